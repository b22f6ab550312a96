//===- Gnuplot.h - Drawing SVGs with gnuplot ---------------------*- C++ -*-===//
//
// The plots of `sweep` and `trace` are gnuplot scripts. A script names its
// output through the variable `out` (`if (!exists('out')) out = 'x.svg'`,
// `set output out`), so running it by hand draws x.svg while runGnuplot
// draws a temporary file and renames it: an SVG is whole or absent.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_TOOLS_SNAPFLOW_GNUPLOT_H
#define SNAPFLOW_TOOLS_SNAPFLOW_GNUPLOT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace snapflow {
namespace tools {

/// A gnuplot single-quoted string (quotes doubled).
std::string gnuplotQuote(llvm::StringRef s);

/// The script lines that send the plot to `out`, by default `svg`.
std::string gnuplotOutput(llvm::StringRef svg);

/// Whether gnuplot is on the PATH.
bool haveGnuplot();

/// Runs `script` (which uses gnuplotOutput) so that it writes `svg` whole.
llvm::Error runGnuplot(llvm::StringRef script, llvm::StringRef svg);

} // namespace tools
} // namespace snapflow

#endif // SNAPFLOW_TOOLS_SNAPFLOW_GNUPLOT_H
