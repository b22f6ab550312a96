//===- Chart.h - A chart of lines, drawn by gnuplot -------------*- C++ -*-===//
//
// The charts of a sweep: a Plot is lines of (x, y) points in one or more
// columns of panels sharing the x axis. writePlot lays it out (a title over
// the canvas, rows of panels with their legends to the right, a plot with
// more lines than a chart holds split into rows by facet and then by line)
// and writes its data and gnuplot script.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_SWEEP_CHART_H
#define SNAPFLOW_DRIVER_SWEEP_CHART_H

#include "snapflow/Driver/Gnuplot.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace snapflow {
namespace driver {
namespace sweep {

/// Where a line belongs when a plot is split into facets: the facet's sort
/// key, its title, and what the line's label gains when the plot is not
/// split (all lines then share one chart).
struct Facet {
  std::string key, title, suffix;
};

/// One line of a plot.
struct Series {
  std::string label; ///< in the legend of its facet
  /// Lines of one group (in one facet) share colour, dash and point type.
  std::string group;
  Facet facet;
  int panel = 0;   ///< the column of its row it is drawn in
  int variant = 0; ///< 0 solid, 1 dashed: DDR against HBM, CLA against none
  std::vector<std::pair<double, double>> points;
  /// Text beside each point, by x (none when empty).
  std::map<double, std::string> labels;
};

/// Orders text as people read numbers in it: "ratio=2" before "ratio=10",
/// "pcu_count=520" before "pcu_count=1040" (a plain string order put them
/// the other way round in legends).
struct NaturalLess {
  bool operator()(llvm::StringRef a, llvm::StringRef b) const {
    while (!a.empty() && !b.empty()) {
      if (llvm::isDigit(a.front()) && llvm::isDigit(b.front())) {
        size_t na = a.find_if_not(llvm::isDigit),
               nb = b.find_if_not(llvm::isDigit);
        llvm::StringRef da = a.take_front(na).ltrim('0'),
                        db = b.take_front(nb).ltrim('0');
        if (da.size() != db.size())
          return da.size() < db.size();
        if (int c = da.compare(db))
          return c < 0;
        a = a.drop_front(std::min(na, a.size()));
        b = b.drop_front(std::min(nb, b.size()));
        continue;
      }
      if (a.front() != b.front())
        return a.front() < b.front();
      a = a.drop_front();
      b = b.drop_front();
    }
    return a.size() < b.size();
  }
};

/// One plot: series of (x, y) points in the order of their sort keys (read
/// as numbers where they hold numbers), in one or more columns of panels
/// sharing the x axis (one y label each).
struct Plot {
  std::string name, title, xlabel;
  std::vector<std::string> ylabels;
  bool logx = false;
  /// Tics as token counts (8K for 8192); else as plain numbers.
  bool tokenTics = true;
  std::map<std::string, Series, NaturalLess> series;
  /// A level drawn across a column of panels, such as a capacity.
  struct Level {
    double y;
    std::string title;
    int panel = 0;
  };
  std::vector<Level> hlines;

  Series &line(const std::string &sortKey, const std::string &label,
               const std::string &group, Facet facet = {}) {
    Series &s = series[sortKey];
    s.label = label;
    s.group = group;
    s.facet = std::move(facet);
    return s;
  }
  /// The distinct x values of its points.
  std::set<double> xs() const {
    std::set<double> xs;
    for (const auto &s : series)
      for (auto [x, y] : s.second.points)
        xs.insert(x);
    return xs;
  }
};

/// A sort key of a number: zero-padded, so keys order like numbers.
inline std::string numKey(double v) {
  return llvm::formatv("{0:d15}", static_cast<int64_t>(v)).str();
}

inline Plot makePlot(std::string name, std::string title, std::string xlabel,
                     std::vector<std::string> ylabels, bool logx) {
  Plot p;
  p.name = std::move(name);
  p.title = std::move(title);
  p.xlabel = std::move(xlabel);
  p.ylabels = std::move(ylabels);
  p.logx = logx;
  return p;
}

/// A number for a gnuplot script: the fewest digits that say it.
inline std::string gnum(double x) {
  return llvm::formatv("{0}", llvm::format("%.6g", x)).str();
}

/// A tic label: 8K for 8192 (contexts), the number otherwise.
inline std::string ticLabel(double x) {
  int64_t n = static_cast<int64_t>(x);
  if (double(n) != x)
    return gnum(x);
  return n >= 4096 && n % 1024 == 0 ? std::to_string(n / 1024) + "K"
                                    : std::to_string(n);
}

/// The tallest chart drawn: past it (9 rows of legends made a 6182 px
/// wall of the KV-methods sweep) a chart is not drawn, and says why.
constexpr double kMaxChartHeight = 2000;

/// Writes NAME.dat and NAME.gp under `plotsDir` and adds the script to
/// `scripts` (with the SVG it draws); a chart taller than kMaxChartHeight
/// is not written but named in `tooTall`.
llvm::Error writePlot(const Plot &p, llvm::StringRef plotsDir,
                      std::vector<GnuplotScript> &scripts,
                      std::vector<std::string> &tooTall);

} // namespace sweep
} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_SWEEP_CHART_H
