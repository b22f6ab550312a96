//===- Gnuplot.h - Drawing SVGs with gnuplot ---------------------*- C++
//-*-===//
//
// The plots of `sweep` and `trace` are gnuplot scripts. A script names its
// output through the variable `out` (`if (!exists('out')) out = 'x.svg'`,
// `set output out`), so running it by hand draws x.svg while runGnuplot
// draws a temporary file and renames it: an SVG is whole or absent.
//
// Every chart draws its lines in one style sequence (lineStyle): eight
// colour-blind-safe colours, each with its own dash pattern, point type and
// width, so that lines stay apart in colour, in grey and where they
// coincide. A chart holds at most kLinesPerChart line styles; a plot with
// more is split into small multiples (docs/Sweeps.md).
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_GNUPLOT_H
#define SNAPFLOW_DRIVER_GNUPLOT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace snapflow {
namespace driver {

/// A gnuplot single-quoted string (quotes doubled).
std::string gnuplotQuote(llvm::StringRef s);

/// A gnuplot double-quoted string: newlines become `\n`, so a title can
/// span lines.
std::string gnuplotText(llvm::StringRef s);

/// `s` broken at spaces into lines of at most `width` characters (a word
/// longer than that keeps a line of its own), joined by newlines; a
/// newline in `s` always breaks.
std::string wrapText(llvm::StringRef s, size_t width);

/// The script lines that send the plot to `out`, by default `svg`.
std::string gnuplotOutput(llvm::StringRef svg);

/// How many line styles one chart holds before it is split into facets.
inline constexpr int kLinesPerChart = 8;

/// The width of one character of the plots' 12-point sans font, in SVG
/// pixels, as an upper bound of its average: what legends and titles are
/// sized by.
inline constexpr double kCharPixels = 7.2;

/// How the i-th line of a chart is drawn. Styles repeat after
/// kLinesPerChart, which faceting keeps a chart within.
struct LineStyle {
  const char *colour; ///< `#rrggbb`, Okabe and Ito's colour-blind-safe set
  const char *dash;   ///< a gnuplot dash pattern: `1` (solid) or `(a,b,...)`
  int pointType;      ///< gnuplot `pt`
  double width;       ///< gnuplot `lw`; earlier lines are wider, so a line
                      ///< drawn over an equal one leaves it visible
};
LineStyle lineStyle(int i);

/// `lc rgb '...' pt N lw W dt D` for the i-th line; `dash`, when given,
/// replaces the style's dash pattern (a chart whose dashes mean something,
/// such as DDR against HBM).
std::string gnuplotLineStyle(int i, llvm::StringRef dash = "");

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
