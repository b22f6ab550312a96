//===- Gnuplot.h - Drawing SVGs with gnuplot ---------------------*- C++ -*-===//
//
// The plots of `sweep` and `trace` are gnuplot scripts. A script names its
// output through the variable `out` (`if (!exists('out')) out = 'x.svg'`,
// `set output out`), so running it by hand draws x.svg while runGnuplot
// draws a temporary file and renames it: an SVG is whole or absent.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_GNUPLOT_H
#define SNAPFLOW_DRIVER_GNUPLOT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace snapflow {
namespace driver {

/// A gnuplot single-quoted string (quotes doubled).
std::string gnuplotQuote(llvm::StringRef s);

/// The script lines that send the plot to `out`, by default `svg`.
std::string gnuplotOutput(llvm::StringRef svg);

/// Whether gnuplot is on the PATH.
bool haveGnuplot();

/// A script (which uses gnuplotOutput) and the SVG it draws.
struct GnuplotScript {
  std::string script, svg;
};

/// Runs the scripts in one gnuplot process so that each writes its SVG
/// whole: all are drawn, or none is touched.
llvm::Error runGnuplot(llvm::ArrayRef<GnuplotScript> scripts);

/// Runs `script` so that it writes `svg` whole.
inline llvm::Error runGnuplot(llvm::StringRef script, llvm::StringRef svg) {
  return runGnuplot(GnuplotScript{script.str(), svg.str()});
}

} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_GNUPLOT_H
