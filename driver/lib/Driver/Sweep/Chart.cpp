//===- Chart.cpp - A chart of lines, drawn by gnuplot ---------------------===//
//
// Lays a Plot out and writes its data and gnuplot script (Chart.h). The
// chart: a title over the whole canvas, then rows of panels, each row with
// its legend to its right, outside the data. A plot whose lines would need
// more than kLinesPerChart styles is split into rows: one per facet (a
// context, a batch), and a facet with more groups still into rows of at
// most kLinesPerChart groups, each group keeping its style in every row.
// The panels share the x range; the canvas grows with the rows and the
// legend's width, so nothing is squeezed.
//
//===----------------------------------------------------------------------===//

#include "Chart.h"

#include "snapflow/Support/Output.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::driver::sweep;
using llvm::Error;
using llvm::StringRef;

namespace {

/// Tics at the values swept, as many as fit `width` pixels without their
/// labels touching: powers of two first (the values people sweep), then
/// the others (a resolved `--batch max`) where there is room.
std::vector<std::pair<std::string, double>> pickTics(const std::set<double> &xs,
                                                     double lo, double hi,
                                                     bool logx, double width,
                                                     bool tokens) {
  auto at = [&](double x) {
    return logx ? width * std::log(x / lo) / std::log(hi / lo)
                : width * (x - lo) / (hi - lo);
  };
  auto round = [](double x) {
    int64_t n = static_cast<int64_t>(x);
    return double(n) == x && n > 0 && (n & (n - 1)) == 0;
  };
  std::vector<double> order;
  llvm::copy_if(xs, std::back_inserter(order), round);
  llvm::copy_if(xs, std::back_inserter(order),
                [&](double x) { return !round(x); });
  std::vector<std::pair<std::string, double>> tics;
  for (double x : order) {
    std::string label = tokens ? ticLabel(x) : gnum(x);
    bool fits = llvm::all_of(tics, [&](const auto &t) {
      double gap = (label.size() + t.first.size()) / 2.0 * kCharPixels + 10;
      return std::abs(at(x) - at(t.second)) >= gap;
    });
    if (fits)
      tics.push_back({label, x});
  }
  llvm::sort(tics,
             [](const auto &a, const auto &b) { return a.second < b.second; });
  return tics;
}

/// A legend entry of a row.
struct Entry {
  std::string label;
  int style, variant;
  bool single = true; ///< every line behind it has one point
};

/// A row of panels and its legend.
struct Row {
  std::string title;
  std::vector<std::pair<int, const Series *>> series; // .dat index
  std::vector<Entry> legend;
};

/// How a plot is drawn: its line styles, rows of panels and sizes in
/// pixels.
struct Layout {
  /// Styles: one per group, or per group and facet when the plot is one
  /// chart; split into `chunks` of `chunkSize` when there are more than a
  /// chart holds.
  bool faceted = false;
  std::vector<std::string> ids;
  int chunks = 1, chunkSize = 1;
  bool variants = false; ///< some line is dashed
  std::vector<Row> rows;
  int columns = 1;
  double plotWidth = 620, left = 95, gap = 25, ticsBelow = 44, xlabelBelow = 24;
  double legendWidth = 140, width = 0, titleHeight = 0, plotHeight = 0,
         height = 0;
  std::string title; ///< wrapped to the canvas

  int idOf(const Series &s) const {
    std::string id = (faceted ? "" : s.facet.key + "\x02") + s.group;
    return static_cast<int>(llvm::find(ids, id) - ids.begin());
  }
  double rowTitleHeight(const Row &row) const {
    return row.title.empty() ? 10.0 : 34.0;
  }
  double sx(double px) const { return px / width; }
  double sy(double px) const { return 1 - px / height; } // px from the top
  std::string dashOf(int variant) const {
    return variants ? (variant ? "2" : "1") : "";
  }
};

/// The line styles and the rows of panels a plot's lines fall into.
void assignRows(const Plot &p, Layout &l) {
  std::map<std::string, std::string> facets; // key -> title
  for (const auto &s : p.series)
    facets.emplace(s.second.facet.key, s.second.facet.title);
  auto identities = [&](bool byFacet) {
    std::vector<std::string> ids;
    for (const auto &s : p.series) {
      std::string id =
          (byFacet ? "" : s.second.facet.key + "\x02") + s.second.group;
      if (!llvm::is_contained(ids, id))
        ids.push_back(id);
    }
    return ids;
  };
  l.faceted =
      facets.size() > 1 && identities(false).size() > size_t(kLinesPerChart);
  l.ids = identities(l.faceted);
  int n = static_cast<int>(l.ids.size());
  l.chunks = (n + kLinesPerChart - 1) / kLinesPerChart;
  l.chunkSize = (n + l.chunks - 1) / l.chunks;
  l.variants = llvm::any_of(p.series,
                            [](const auto &s) { return s.second.variant > 0; });
  for (const auto &[facetKey, facetTitle] :
       l.faceted ? facets : decltype(facets){{"", ""}})
    for (int chunk = 0; chunk < l.chunks; ++chunk) {
      Row row;
      row.title = facetTitle;
      if (l.chunks > 1)
        row.title += llvm::formatv(
            "{0}lines {1} to {2} of {3}", row.title.empty() ? "" : ", ",
            chunk * l.chunkSize + 1,
            std::min<int>((chunk + 1) * l.chunkSize, n), n);
      int index = 0;
      for (const auto &[key, s] : p.series) {
        int id = l.idOf(s);
        if ((l.faceted && s.facet.key != facetKey) ||
            id / l.chunkSize != chunk) {
          ++index;
          continue;
        }
        row.series.push_back({index++, &s});
        std::string label = l.faceted ? s.label : s.label + s.facet.suffix;
        auto it = llvm::find_if(
            row.legend, [&](const Entry &e) { return e.label == label; });
        if (it == row.legend.end())
          it = row.legend.insert(row.legend.end(),
                                 Entry{label, id % l.chunkSize, s.variant});
        it->single &= s.points.size() < 2;
      }
      if (!row.series.empty())
        l.rows.push_back(std::move(row));
    }
}

/// The canvas: panels, legends, the title wrapped to it.
void size(const Plot &p, Layout &l) {
  l.columns = std::max<int>(1, p.ylabels.size());
  l.plotWidth = l.columns == 1 ? 620 : 400;
  size_t longest = 0, entries = p.hlines.size();
  for (const Row &row : l.rows) {
    for (const Entry &e : row.legend)
      longest = std::max(longest, e.label.size());
    entries = std::max(entries, row.legend.size() + p.hlines.size());
  }
  for (const auto &h : p.hlines)
    longest = std::max(longest, h.title.size());
  l.legendWidth = std::max(140.0, 80 + kCharPixels * longest);
  l.width = l.columns * (l.left + l.plotWidth + l.gap) + l.legendWidth;
  l.title = wrapText(p.title, size_t((l.width - 40) / 8));
  l.titleHeight =
      24 + 20 * (1 + std::count(l.title.begin(), l.title.end(), '\n'));
  l.plotHeight =
      std::max(l.rows.size() == 1 ? 360.0 : 260.0, 20.0 * entries + 20);
  l.height = l.titleHeight + l.xlabelBelow + 10;
  for (const Row &row : l.rows)
    l.height += l.rowTitleHeight(row) + l.plotHeight + l.ticsBelow;
}

/// NAME.dat: a block per line, its points in x order.
Error writeData(StringRef path, const Plot &p) {
  return writeOutput(path, [&](llvm::raw_ostream &os) {
    for (const auto &s : p.series) {
      os << "# " << s.second.label << s.second.facet.suffix << "\n";
      auto points = s.second.points;
      llvm::sort(points);
      for (auto [x, y] : points) {
        os << gnum(x) << " " << gnum(y);
        if (auto it = s.second.labels.find(x); it != s.second.labels.end())
          os << " \"" << it->second << "\"";
        os << "\n";
      }
      os << "\n\n";
    }
    return Error::success();
  });
}

/// The script's start: the canvas, its files (relative to the script's
/// folder) and the x axis all panels share, with room either side.
void writeHeader(llvm::raw_ostream &os, const Plot &p, const Layout &l) {
  std::set<double> xs = p.xs();
  double lo = *xs.begin(), hi = *xs.rbegin();
  if (p.logx) {
    lo /= 1.3;
    hi *= 1.3;
  } else {
    double pad = std::max(hi - lo, std::abs(hi)) * 0.05;
    lo -= pad;
    hi += pad;
  }
  std::vector<std::string> tics;
  for (const auto &[label, x] :
       pickTics(xs, lo, hi, p.logx, l.plotWidth, p.tokenTics))
    tics.push_back(llvm::formatv("\"{0}\" {1}", label, gnum(x)));
  os << llvm::formatv("set terminal svg size {0},{1} dynamic "
                      "noenhanced font 'sans,12' background rgb "
                      "'white'\n",
                      int(l.width), int(l.height));
  // Paths relative to this script's folder (ARG0 is the script as gnuplot
  // was given it), so a copied sweep folder draws its own data into its
  // own plots (absolute paths read and overwrote the original's).
  os << "here = ''; rest = ARG0\n"
        "while (strstrt(rest, '/') > 0) { here = here . "
        "rest[1:strstrt(rest, '/')]; rest = rest[strstrt(rest, '/') + "
        "1:] }\n";
  os << "dat = here . " << gnuplotQuote(p.name + ".dat") << "\n";
  os << "if (!exists('out')) out = here . " << gnuplotQuote(p.name + ".svg")
     << "\nset output out\n";
  os << "set multiplot title " << gnuplotText(l.title) << " font 'sans,13'\n";
  os << "unset key\nset grid\nset yrange [0:*]\n";
  os << "set xrange [" << gnum(lo) << ":" << gnum(hi) << "]\n";
  if (p.logx)
    os << "set logscale x 2\n";
  os << "set xtics (" << llvm::join(tics, ", ") << ")\n";
}

/// The `plot` command of column `c` of a row ("" when it has no line).
std::string panelPlot(const Plot &p, const Layout &l, const Row &row, int c) {
  std::vector<std::string> lines;
  for (auto [index, s] : row.series) {
    if (s->panel != c)
      continue;
    std::string data = "dat index " + std::to_string(index) + " using 1:2";
    lines.push_back(
        data +
        (s->points.size() < 2 ? " with points ps 1.3 "
                              : " with linespoints ps 0.8 ") +
        gnuplotLineStyle(l.idOf(*s) % l.chunkSize, l.dashOf(s->variant)) +
        " notitle");
    if (!s->labels.empty())
      lines.push_back(data + ":3 with labels left offset 0.6,-0.6 "
                             "font ',9' notitle");
  }
  if (lines.empty())
    return "";
  for (const auto &h : p.hlines)
    if (h.panel == c)
      lines.push_back(gnum(h.y) + " with lines lc rgb '#555555' lw 1.5 dt "
                                  "(20,5,4,5) notitle");
  return "plot " + llvm::join(lines, ", \\\n     ") + "\n";
}

/// Every row of panels.
void writePanels(llvm::raw_ostream &os, const Plot &p, const Layout &l) {
  double top = l.titleHeight;
  for (size_t r = 0; r < l.rows.size(); ++r) {
    const Row &row = l.rows[r];
    top += l.rowTitleHeight(row);
    os << "\n# " << (row.title.empty() ? p.name : row.title) << "\n";
    os << llvm::formatv("set tmargin at screen {0}\nset bmargin at "
                        "screen {1}\n",
                        l.sy(top), l.sy(top + l.plotHeight));
    os << "set title " << gnuplotQuote(row.title) << "\n";
    if (r + 1 == l.rows.size())
      os << "set xlabel " << gnuplotQuote(p.xlabel) << "\n";
    for (int c = 0; c < l.columns; ++c) {
      std::string plot = panelPlot(p, l, row, c);
      if (plot.empty())
        continue;
      double x0 = c * (l.left + l.plotWidth + l.gap) + l.left;
      os << llvm::formatv("set lmargin at screen {0}\nset rmargin at "
                          "screen {1}\n",
                          l.sx(x0), l.sx(x0 + l.plotWidth));
      os << "set ylabel "
         << gnuplotQuote(c < int(p.ylabels.size()) ? p.ylabels[c] : "") << "\n";
      os << plot;
    }
    top += l.plotHeight + l.ticsBelow;
  }
}

/// The legends: a panel beside each row with no axes, whose lines have no
/// points, so that only their keys show.
void writeLegends(llvm::raw_ostream &os, const Plot &p, const Layout &l) {
  os << "\n# legends\nunset title\nunset xlabel\nunset ylabel\nunset "
        "border\nunset tics\nunset grid\nunset logscale x\n"
        "set xrange [0:1]\nset yrange [0:1]\n"
        "set key inside left top Left reverse samplen 5 spacing 1.25\n";
  os << llvm::formatv("set lmargin at screen {0}\nset rmargin at screen "
                      "{1}\n",
                      l.sx(l.columns * (l.left + l.plotWidth + l.gap)),
                      l.sx(l.width - 5));
  double top = l.titleHeight;
  for (const Row &row : l.rows) {
    top += l.rowTitleHeight(row);
    std::vector<std::string> keys;
    for (const Entry &e : row.legend)
      keys.push_back(std::string("NaN with ") +
                     (e.single ? "points ps 1.3 " : "linespoints ps 0.8 ") +
                     gnuplotLineStyle(e.style, l.dashOf(e.variant)) +
                     " title " + gnuplotQuote(e.label));
    for (const auto &h : p.hlines)
      keys.push_back("NaN with lines lc rgb '#555555' lw 1.5 dt "
                     "(20,5,4,5) title " +
                     gnuplotQuote(h.title));
    os << llvm::formatv("set tmargin at screen {0}\nset bmargin at "
                        "screen {1}\n",
                        l.sy(top), l.sy(top + l.plotHeight));
    os << "plot " << llvm::join(keys, ", \\\n     ") << "\n";
    top += l.plotHeight + l.ticsBelow;
  }
  os << "unset multiplot\n";
}

} // namespace

Error sweep::writePlot(const Plot &p, StringRef plotsDir,
                       std::vector<GnuplotScript> &scripts,
                       std::vector<std::string> &tooTall) {
  llvm::SmallString<256> dat(plotsDir), gp(plotsDir), svg(plotsDir);
  llvm::sys::path::append(dat, p.name + ".dat");
  llvm::sys::path::append(gp, p.name + ".gp");
  llvm::sys::path::append(svg, p.name + ".svg");
  Layout l;
  assignRows(p, l);
  size(p, l);
  if (l.height > kMaxChartHeight) {
    tooTall.push_back(llvm::formatv("{0} ({1} lines)", p.name, l.ids.size()));
    return Error::success();
  }
  if (Error e = writeData(dat, p))
    return e;
  if (Error e = writeOutput(gp, [&](llvm::raw_ostream &os) {
        writeHeader(os, p, l);
        writePanels(os, p, l);
        writeLegends(os, p, l);
        return Error::success();
      }))
    return e;
  scripts.push_back({std::string(gp), std::string(svg)});
  return Error::success();
}
