//===- SweepPlots.cpp - Plots and summary of a sweep
//-----------------------===//
//
// Reads DIR/results.csv and writes, next to it:
//   plots/throughput_vs_context.svg  aggregate tokens/s against context, one
//                                    line per KV policy (and batch);
//   plots/batch_scaling.svg          aggregate and per-sequence tokens/s
//                                    against batch, side by side, one line
//                                    per KV policy and context;
//   plots/memory_vs_batch.svg        peak HBM (and DDR) per socket against
//                                    batch, one line per KV policy;
//   summary.md                       the best point per model, chip and
//                                    context, and every point that failed.
// A plot with more lines than a chart holds (kLinesPerChart) is split into
// rows of panels, by context or batch and then by line (writePlot), each
// row with its legend beside it. The plot data (plots/*.dat) and gnuplot
// scripts (plots/*.gp) stay beside the SVGs so a plot can be restyled
// without rerunning the sweep. Without gnuplot the scripts are written and
// a warning says how to draw them.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Driver/Csv.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Driver/Gnuplot.h"
#include "snapflow/Driver/Sweep.h"
#include "snapflow/Models/ModelConfig.h"
#include "snapflow/Support/Input.h"
#include "snapflow/Support/Output.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

using namespace snapflow;
using namespace snapflow::driver;
using llvm::Error;
using llvm::StringRef;

namespace {

/// The rows of a results file, by column name.
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;

  int column(StringRef name) const {
    for (size_t i = 0; i < columns.size(); ++i)
      if (columns[i] == name)
        return static_cast<int>(i);
    return -1;
  }
  std::string get(const std::vector<std::string> &row, StringRef name) const {
    int c = column(name);
    return c >= 0 && c < static_cast<int>(row.size()) ? row[c] : "";
  }
  double num(const std::vector<std::string> &row, StringRef name) const {
    double v = 0;
    StringRef(get(row, name)).getAsDouble(v);
    return v;
  }
};

llvm::Expected<Table> readTable(StringRef path) {
  auto buffer = readInput(path, kDataFileLimit, "a sweep's rows");
  if (!buffer)
    return makeError(path + ": " + llvm::toString(buffer.takeError()));
  Table t;
  llvm::SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  if (lines.empty())
    return makeError(path + ": empty file");
  t.columns = csv::split(lines[0]);
  for (StringRef required : {"status", "kv", "context", "model", "chip"})
    if (t.column(required) < 0)
      return makeError(path + ":1: no column '" + required + "'");
  for (size_t i = 1; i < lines.size(); ++i) {
    auto row = csv::split(lines[i]);
    if (row.size() != t.columns.size())
      return makeError(llvm::formatv("{0}:{1}: {2} fields, expected {3}", path,
                                     i + 1, row.size(), t.columns.size()));
    t.rows.push_back(std::move(row));
  }
  return t;
}

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
std::string numKey(double v) {
  return llvm::formatv("{0:d15}", static_cast<int64_t>(v)).str();
}

Plot makePlot(std::string name, std::string title, std::string xlabel,
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
std::string gnum(double x) {
  return llvm::formatv("{0}", llvm::format("%.6g", x)).str();
}

/// A tic label: 8K for 8192 (contexts), the number otherwise.
std::string ticLabel(double x) {
  int64_t n = static_cast<int64_t>(x);
  if (double(n) != x)
    return gnum(x);
  return n >= 4096 && n % 1024 == 0 ? std::to_string(n / 1024) + "K"
                                    : std::to_string(n);
}

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

/// The tallest chart drawn: past it (9 rows of legends made a 6182 px
/// wall of the KV-methods sweep) a chart is not drawn, and says why.
constexpr double kMaxChartHeight = 2000;

/// Writes NAME.dat and NAME.gp under `plotsDir` and adds the script to
/// `scripts` (with the SVG it draws).
///
/// The chart: a title over the whole canvas, then rows of panels, each row
/// with its legend to its right, outside the data. A plot whose lines
/// would need more than kLinesPerChart styles is split into rows: one per
/// facet (a context, a batch), and a facet with more groups still into
/// rows of at most kLinesPerChart groups, each group keeping its style in
/// every row. The panels share the x range; the canvas grows with the rows
/// and the legend's width, so nothing is squeezed.

Error writePlot(const Plot &p, StringRef plotsDir,
                std::vector<GnuplotScript> &scripts,
                std::vector<std::string> &tooTall) {
  llvm::SmallString<256> dat(plotsDir), gp(plotsDir), svg(plotsDir);
  llvm::sys::path::append(dat, p.name + ".dat");
  llvm::sys::path::append(gp, p.name + ".gp");
  llvm::sys::path::append(svg, p.name + ".svg");

  // Styles: one per group, or per group and facet when the plot is one
  // chart; split when there are more than a chart holds.
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
  bool faceted =
      facets.size() > 1 && identities(false).size() > size_t(kLinesPerChart);
  std::vector<std::string> ids = identities(faceted);
  auto idOf = [&](const Series &s) {
    std::string id = (faceted ? "" : s.facet.key + "\x02") + s.group;
    return static_cast<int>(llvm::find(ids, id) - ids.begin());
  };
  int chunks =
      (static_cast<int>(ids.size()) + kLinesPerChart - 1) / kLinesPerChart;
  int chunkSize = (static_cast<int>(ids.size()) + chunks - 1) / chunks;
  bool variants = llvm::any_of(
      p.series, [](const auto &s) { return s.second.variant > 0; });

  /// A row of panels and its legend.
  struct Entry {
    std::string label;
    int style, variant;
    bool single = true; ///< every line behind it has one point
  };
  struct Row {
    std::string title;
    std::vector<std::pair<int, const Series *>> series; // .dat index
    std::vector<Entry> legend;
  };
  std::vector<Row> rows;
  for (const auto &[facetKey, facetTitle] :
       faceted ? facets : decltype(facets){{"", ""}})
    for (int chunk = 0; chunk < chunks; ++chunk) {
      Row row;
      row.title = facetTitle;
      if (chunks > 1)
        row.title += llvm::formatv(
            "{0}lines {1} to {2} of {3}", row.title.empty() ? "" : ", ",
            chunk * chunkSize + 1,
            std::min<int>((chunk + 1) * chunkSize, ids.size()), ids.size());
      int index = 0;
      for (const auto &[key, s] : p.series) {
        int id = idOf(s);
        if ((faceted && s.facet.key != facetKey) || id / chunkSize != chunk) {
          ++index;
          continue;
        }
        row.series.push_back({index++, &s});
        std::string label = faceted ? s.label : s.label + s.facet.suffix;
        auto it = llvm::find_if(
            row.legend, [&](const Entry &e) { return e.label == label; });
        if (it == row.legend.end())
          it = row.legend.insert(row.legend.end(),
                                 Entry{label, id % chunkSize, s.variant});
        it->single &= s.points.size() < 2;
      }
      if (!row.series.empty())
        rows.push_back(std::move(row));
    }

  // Sizes in pixels.
  int columns = std::max<int>(1, p.ylabels.size());
  const double plotWidth = columns == 1 ? 620 : 400, left = 95, gap = 25,
               ticsBelow = 44, xlabelBelow = 24;
  size_t longest = 0, entries = p.hlines.size();
  for (const Row &row : rows) {
    for (const Entry &e : row.legend)
      longest = std::max(longest, e.label.size());
    entries = std::max(entries, row.legend.size() + p.hlines.size());
  }
  for (const auto &h : p.hlines)
    longest = std::max(longest, h.title.size());
  double legendWidth = std::max(140.0, 80 + kCharPixels * longest);
  double width = columns * (left + plotWidth + gap) + legendWidth;
  std::string title = wrapText(p.title, size_t((width - 40) / 8));
  double titleHeight =
      24 + 20 * (1 + std::count(title.begin(), title.end(), '\n'));
  double plotHeight =
      std::max(rows.size() == 1 ? 360.0 : 260.0, 20.0 * entries + 20);
  auto rowTitleHeight = [&](const Row &row) {
    return row.title.empty() ? 10.0 : 34.0;
  };
  double height = titleHeight + xlabelBelow + 10;
  for (const Row &row : rows)
    height += rowTitleHeight(row) + plotHeight + ticsBelow;
  if (height > kMaxChartHeight) {
    tooTall.push_back(llvm::formatv("{0} ({1} lines)", p.name, ids.size()));
    return Error::success();
  }
  if (Error e = writeOutput(dat, [&](llvm::raw_ostream &os) {
        for (const auto &s : p.series) {
          os << "# " << s.second.label << s.second.facet.suffix << "\n";
          auto points = s.second.points;
          llvm::sort(points);
          for (auto [x, y] : points) {
            os << llvm::formatv("{0} {1}", x, y);
            if (auto it = s.second.labels.find(x); it != s.second.labels.end())
              os << " \"" << it->second << "\"";
            os << "\n";
          }
          os << "\n\n";
        }
        return Error::success();
      }))
    return e;

  auto sx = [&](double px) { return px / width; };
  auto sy = [&](double px) { return 1 - px / height; }; // px from the top

  // The x axis all panels share, with room either side.
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
       pickTics(xs, lo, hi, p.logx, plotWidth, p.tokenTics))
    tics.push_back(llvm::formatv("\"{0}\" {1}", label, gnum(x)));

  auto dashOf = [&](int variant) -> std::string {
    return variants ? (variant ? "2" : "1") : "";
  };
  if (Error e = writeOutput(gp, [&](llvm::raw_ostream &os) {
        os << llvm::formatv("set terminal svg size {0},{1} dynamic "
                            "noenhanced font 'sans,12' background rgb "
                            "'white'\n",
                            int(width), int(height));
        // Paths relative to this script's folder (ARG0 is the script as
        // gnuplot was given it), so a copied sweep folder draws its own
        // data into its own plots (absolute paths read and overwrote the
        // original's).
        os << "here = ''; rest = ARG0\n"
              "while (strstrt(rest, '/') > 0) { here = here . "
              "rest[1:strstrt(rest, '/')]; rest = rest[strstrt(rest, '/') + "
              "1:] }\n";
        os << "dat = here . " << gnuplotQuote(p.name + ".dat") << "\n";
        os << "if (!exists('out')) out = here . "
           << gnuplotQuote(p.name + ".svg") << "\nset output out\n";
        os << "set multiplot title " << gnuplotText(title)
           << " font 'sans,13'\n";
        os << "unset key\nset grid\nset yrange [0:*]\n";
        os << "set xrange [" << gnum(lo) << ":" << gnum(hi) << "]\n";
        if (p.logx)
          os << "set logscale x 2\n";
        os << "set xtics (" << llvm::join(tics, ", ") << ")\n";
        double top = titleHeight;
        for (size_t r = 0; r < rows.size(); ++r) {
          const Row &row = rows[r];
          top += rowTitleHeight(row);
          os << "\n# " << (row.title.empty() ? p.name : row.title) << "\n";
          os << llvm::formatv("set tmargin at screen {0}\nset bmargin at "
                              "screen {1}\n",
                              sy(top), sy(top + plotHeight));
          os << "set title " << gnuplotQuote(row.title) << "\n";
          if (r + 1 == rows.size())
            os << "set xlabel " << gnuplotQuote(p.xlabel) << "\n";
          for (int c = 0; c < columns; ++c) {
            std::vector<std::string> lines;
            for (auto [index, s] : row.series) {
              if (s->panel != c)
                continue;
              std::string data =
                  "dat index " + std::to_string(index) + " using 1:2";
              lines.push_back(
                  data +
                  (s->points.size() < 2 ? " with points ps 1.3 "
                                        : " with linespoints ps 0.8 ") +
                  gnuplotLineStyle(idOf(*s) % chunkSize, dashOf(s->variant)) +
                  " notitle");
              if (!s->labels.empty())
                lines.push_back(data + ":3 with labels left offset 0.6,-0.6 "
                                       "font ',9' notitle");
            }
            if (lines.empty())
              continue;
            for (const auto &h : p.hlines)
              if (h.panel == c)
                lines.push_back(gnum(h.y) +
                                " with lines lc rgb '#555555' lw 1.5 dt "
                                "(20,5,4,5) notitle");
            double x0 = c * (left + plotWidth + gap) + left;
            os << llvm::formatv("set lmargin at screen {0}\nset rmargin at "
                                "screen {1}\n",
                                sx(x0), sx(x0 + plotWidth));
            os << "set ylabel "
               << gnuplotQuote(c < int(p.ylabels.size()) ? p.ylabels[c] : "")
               << "\n";
            os << "plot " << llvm::join(lines, ", \\\n     ") << "\n";
          }
          top += plotHeight + ticsBelow;
        }

        // The legends: a panel beside each row with no axes, whose lines
        // have no points, so that only their keys show.
        os << "\n# legends\nunset title\nunset xlabel\nunset ylabel\nunset "
              "border\nunset tics\nunset grid\nunset logscale x\n"
              "set xrange [0:1]\nset yrange [0:1]\n"
              "set key inside left top Left reverse samplen 5 spacing 1.25\n";
        os << llvm::formatv("set lmargin at screen {0}\nset rmargin at screen "
                            "{1}\n",
                            sx(columns * (left + plotWidth + gap)),
                            sx(width - 5));
        top = titleHeight;
        for (const Row &row : rows) {
          top += rowTitleHeight(row);
          std::vector<std::string> keys;
          for (const Entry &e : row.legend)
            keys.push_back(
                std::string("NaN with ") +
                (e.single ? "points ps 1.3 " : "linespoints ps 0.8 ") +
                gnuplotLineStyle(e.style, dashOf(e.variant)) + " title " +
                gnuplotQuote(e.label));
          for (const auto &h : p.hlines)
            keys.push_back("NaN with lines lc rgb '#555555' lw 1.5 dt "
                           "(20,5,4,5) title " +
                           gnuplotQuote(h.title));
          os << llvm::formatv("set tmargin at screen {0}\nset bmargin at "
                              "screen {1}\n",
                              sy(top), sy(top + plotHeight));
          os << "plot " << llvm::join(keys, ", \\\n     ") << "\n";
          top += plotHeight + ticsBelow;
        }
        os << "unset multiplot\n";
        return Error::success();
      }))
    return e;
  scripts.push_back({std::string(gp), std::string(svg)});
  return Error::success();
}

} // namespace

Error snapflow::driver::drawSweep(StringRef dir, llvm::raw_ostream &os) {
  llvm::SmallString<256> results(dir), plotsDir(dir), summary(dir);
  llvm::sys::path::append(results, "results.csv");
  llvm::sys::path::append(plotsDir, "plots");
  // gnuplot is given the scripts by absolute path; they name their data
  // relative to their own folder.
  llvm::sys::fs::make_absolute(plotsDir);
  llvm::sys::path::append(summary, "summary.md");
  auto table = readTable(results);
  if (!table)
    return table.takeError();
  const Table &t = *table;
  if (std::error_code ec = llvm::sys::fs::create_directories(plotsDir))
    return makeError("cannot create " + plotsDir + ": " + ec.message());
  // plots/ is ours: drop the plots of an earlier drawing (a resumed sweep
  // may have more models now, and so other file names).
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(plotsDir, ec), end;
       it != end && !ec; it.increment(ec)) {
    StringRef ext = llvm::sys::path::extension(it->path());
    if (ext == ".svg" || ext == ".gp" || ext == ".dat")
      llvm::sys::fs::remove(it->path());
  }

  std::vector<const std::vector<std::string> *> ok, failed;
  for (const auto &r : t.rows)
    (t.get(r, "status") == "ok" ? ok : failed).push_back(&r);

  // One set of plots per model and chip (and TP and weight dtype when those
  // vary): lines of different models on one axis are unreadable.
  auto varies = [&](StringRef col) {
    std::set<std::string> values;
    for (const auto *r : ok)
      values.insert(t.get(*r, col));
    return values.size() > 1;
  };
  bool manyTp = varies("tp"), manyDtypes = varies("weights_dtype"),
       manyBatches = varies("batch"), manyContexts = varies("context");
  bool manyScopes = varies("model") || varies("chip") || manyTp || manyDtypes;
  auto scopeOf = [&](const std::vector<std::string> &r) {
    std::string s = t.get(r, "model") + " on " + t.get(r, "chip");
    if (manyTp)
      s += " tp " + t.get(r, "tp");
    if (manyDtypes)
      s += " " + t.get(r, "weights_dtype");
    return s;
  };
  // The variants of one question (compiler options and chip parameters
  // swept) share a chart: each is its own line, named after what it sets.
  auto variantOf = [&](const std::vector<std::string> &r,
                       bool withFormat = true, bool withCla = true,
                       bool withSet = true) {
    std::string v;
    for (const char *axis : {"kv_format", "cla", "mla_cache", "moe", "mtp",
                             "mtp_acceptance", "allow_ddr", "set"}) {
      if (t.column(axis) < 0 || !varies(axis) ||
          (!withFormat && StringRef(axis) == "kv_format") ||
          (!withCla && StringRef(axis) == "cla") ||
          (!withSet && StringRef(axis) == "set"))
        continue;
      std::string value = t.get(r, axis);
      v += " " + std::string(axis) + "=" + (value.empty() ? "default" : value);
    }
    return v;
  };
  auto contextLabel = [&](const std::vector<std::string> &r) {
    int64_t c = static_cast<int64_t>(t.num(r, "context"));
    return c % 1024 == 0 ? std::to_string(c / 1024) + "K" : std::to_string(c);
  };
  std::map<std::string, std::vector<const std::vector<std::string> *>> scopes;
  for (const auto *r : ok)
    scopes[scopeOf(*r)].push_back(r);
  std::map<std::string, std::pair<bool, bool>> kinds; // model -> MLA, MoE
  auto kindOf = [&](const std::string &model) {
    auto it = kinds.find(model);
    if (it == kinds.end()) {
      std::pair<bool, bool> kind;
      if (auto c = models::ModelConfig::load(model))
        kind = {c->isMLA(), c->numRoutedExperts > 0};
      else
        llvm::consumeError(c.takeError());
      it = kinds.emplace(model, kind).first;
    }
    return it->second;
  };
  // What a chart holds fixed, for its title: every setting that has one
  // value over its rows, but those the chart shows (its x axis, its
  // lines), so the chart stands alone.
  auto fixedSettings =
      [&](const std::vector<const std::vector<std::string> *> &rows,
          std::initializer_list<StringRef> shown) {
        struct Setting {
          const char *column, *name, *unset;
        };
        static const Setting settings[] = {
            {"context", "context", nullptr},
            {"batch", "batch", nullptr},
            {"kv", "kv", nullptr},
            {"kv_format", "kv-format", "bf16"},
            {"cla", "cla", nullptr},
            {"tp", "tp", nullptr},
            {"weights_dtype", "weights", nullptr},
            {"mla_cache", "mla-cache", "replicate"},
            {"moe", "moe", "expert"},
            {"mtp", "mtp", nullptr},
            {"mtp_acceptance", "mtp-acceptance", nullptr},
            {"allow_ddr", "allow-ddr", nullptr},
            {"set", "set", nullptr}};
        // The MLA cache and MoE mode are said for the models they apply to
        // (each config read once per drawing).
        auto [mla, moe] = rows.empty() ? std::pair<bool, bool>()
                                       : kindOf(t.get(*rows.front(), "model"));
        std::vector<std::string> parts;
        for (const Setting &st : settings) {
          if (t.column(st.column) < 0 || llvm::is_contained(shown, st.column) ||
              (StringRef(st.column) == "mla_cache" && !mla) ||
              (StringRef(st.column) == "moe" && !moe))
            continue;
          std::set<std::string> values;
          for (const auto *r : rows)
            values.insert(t.get(*r, st.column));
          if (values.size() != 1)
            continue;
          std::string v = *values.begin();
          if (v.empty() && !st.unset)
            continue; // the config's or the tool's default, said nowhere else
          if (v.empty())
            v = st.unset;
          if (StringRef(st.column) == "context")
            v = ticLabel(std::stod(v));
          if (StringRef(st.column) == "batch" && v == "max")
            v = "largest that fits";
          if (StringRef(st.column) == "tp" && v == "0")
            v = "every socket";
          parts.push_back(std::string(st.name) + " " + v);
        }
        return parts.empty() ? std::string() : "\n" + llvm::join(parts, ", ");
      };

  bool gp = haveGnuplot();
  std::vector<std::string> drawnNames, skipped, tooTall;
  std::vector<GnuplotScript> scripts;
  for (const auto &[scope, rows] : scopes) {
    // File names: the scope with anything but letters, digits, '.', '-'
    // turned into '_'.
    std::string suffix;
    if (manyScopes) {
      suffix = "-";
      for (char ch : scope)
        suffix += llvm::isAlnum(ch) || ch == '.' || ch == '-' ? ch : '_';
    }
    std::set<std::string> batchesHere;
    for (const auto *r : rows)
      batchesHere.insert(t.get(*r, "batch"));
    // Every point at the largest batch that fits: one point per policy and
    // context, so the batch charts draw a line per policy over the
    // contexts, each point named by its context (a line per policy and
    // context was a wall of single dots).
    bool batchMaxOnly =
        batchesHere.size() == 1 && *batchesHere.begin() == "max";
    Plot throughput = makePlot("throughput_vs_context" + suffix,
                               "Decode throughput against context: " + scope +
                                   fixedSettings(rows, {"context"}),
                               "context (tokens)", {"tokens/s, all sequences"},
                               /*logx=*/true);
    Plot scaling = makePlot(
        "batch_scaling" + suffix,
        (batchMaxOnly ? "Decode throughput against the largest batch that "
                        "fits: "
                      : "Decode throughput against batch: ") +
            scope + fixedSettings(rows, {"batch"}) +
            "\naggregate (left) and per sequence (right)" +
            (batchMaxOnly ? ", one line per policy, its points the contexts"
                          : ""),
        batchMaxOnly ? "largest batch that fits (sequences)"
                     : "batch (sequences)",
        {"tokens/s, all sequences", "tokens/s per sequence"},
        /*logx=*/true);
    double maxContext = 0;
    for (const auto *r : rows)
      maxContext = std::max(maxContext, t.num(*r, "context"));
    Plot memory = makePlot(
        "memory_vs_batch" + suffix,
        (batchMaxOnly
             ? "Peak memory per socket against the largest batch that fits: "
             : "Peak memory per socket against batch: ") +
            scope +
            fixedSettings(
                rows,
                batchMaxOnly
                    ? std::initializer_list<StringRef>{"batch"}
                    : std::initializer_list<StringRef>{"batch", "context"}) +
            (batchMaxOnly ? "\none line per policy, its points the contexts"
             : maxContext > 0
                 ? "\nat context " + ticLabel(maxContext) + " (" +
                       std::to_string(int64_t(maxContext)) + " tokens)"
                 : std::string()),
        batchMaxOnly ? "largest batch that fits (sequences)"
                     : "batch (sequences)",
        {"peak memory (GiB per socket)"},
        /*logx=*/true);
    for (const auto *r : rows) {
      const auto &row = *r;
      double context = t.num(row, "context");
      double batch = t.num(row, "report.batch");
      std::string kv = t.get(row, "kv") + variantOf(row);
      std::string batchKey =
          t.get(row, "batch") == "max" ? "max" : numKey(t.num(row, "batch"));
      Facet byBatch{batchKey,
                    t.get(row, "batch") == "max"
                        ? "largest batch that fits"
                        : "batch " + t.get(row, "batch"),
                    manyBatches ? " batch " + t.get(row, "batch") : ""};
      throughput.line(kv + "\x01" + batchKey, kv, kv, byBatch)
          .points.push_back(
              {context, t.num(row, "report.throughput_tokens_per_s")});
      Facet byContext{numKey(context), "context " + contextLabel(row),
                      manyContexts ? " @" + contextLabel(row) : ""};
      std::string key =
          batchMaxOnly ? kv + "\x01" : kv + "\x01" + numKey(context);
      Facet facet = batchMaxOnly ? Facet{} : byContext;
      Series &all = scaling.line(key + "a", kv, kv, facet);
      all.points.push_back(
          {batch, t.num(row, "report.throughput_tokens_per_s")});
      Series &perUser = scaling.line(key + "u", kv, kv, facet);
      perUser.points.push_back(
          {batch, t.num(row, "report.per_user_tokens_per_s")});
      perUser.panel = 1;
      if (batchMaxOnly && manyContexts)
        all.labels[batch] = perUser.labels[batch] = contextLabel(row);
      // Memory at the longest context swept, where the policies differ most
      // (at the largest batch, at every context).
      if (batchMaxOnly || context == maxContext) {
        Series &hbm = memory.line(kv + "\x01h", kv, kv);
        hbm.points.push_back(
            {batch, gib(t.num(row, "report.memory.peak_bytes.hbm"))});
        if (batchMaxOnly && manyContexts)
          hbm.labels[batch] = contextLabel(row);
        if (t.num(row, "report.memory.peak_bytes.ddr") > 0) {
          Series &ddr = memory.line(kv + "\x01d", kv, kv);
          ddr.points.push_back(
              {batch, gib(t.num(row, "report.memory.peak_bytes.ddr"))});
          ddr.panel = 1;
        }
      }
    }
    // DDR, when a point used it, in a column of its own.
    bool ddr = llvm::any_of(memory.series,
                            [](const auto &s) { return s.second.panel > 0; });
    if (ddr)
      memory.ylabels = {"peak HBM (GiB per socket)",
                        "peak DDR (GiB per socket)"};
    // The HBM a socket has, when the chip is one snapflow can load (DDR's
    // is so much larger that it would flatten what the points used).
    if (auto chip = arch::ArchModel::load(t.get(*rows.front(), "chip")))
      memory.hlines.push_back(
          {gib(double(chip->tierBytesPerSocket(arch::MemoryTier::HBM))),
           "HBM capacity per socket", 0});
    else
      llvm::consumeError(chip.takeError());
    // The KV methods side by side: a grid of KV formats (or CLA factors)
    // at the largest batch gives, per context, tokens/s against the batch
    // that fits, one line per policy and variant (dashed when layers share
    // K/V), its points the formats, named along the grid's first line.
    std::map<double, Plot> methods;
    bool byMethod = (varies("kv_format") || varies("cla")) &&
                    batchesHere.size() == 1 && *batchesHere.begin() == "max";
    std::string firstKv = rows.empty() ? "" : t.get(*rows.front(), "kv");
    for (const auto *r : byMethod ? rows : decltype(rows)()) {
      const auto &row = *r;
      double context = t.num(row, "context");
      auto [it, added] = methods.try_emplace(context);
      Plot &p = it->second;
      if (added)
        p = makePlot(
            "kv_methods" + suffix + "-" + contextLabel(row),
            "KV methods at context " + contextLabel(row) + ": " + scope +
                fixedSettings(rows,
                              {"context", "batch", "kv", "kv_format", "cla"}) +
                "\none line per policy (dashed: layers share K/V), "
                "its points the KV formats",
            "largest batch that fits (sequences)", {"tokens/s, all sequences"},
            /*logx=*/true);
      std::string cla = t.get(row, "cla");
      std::string kv = t.get(row, "kv");
      Series &s = p.line(kv + variantOf(row, false), kv + variantOf(row, false),
                         kv + variantOf(row, false, false));
      s.variant = !cla.empty() && cla != "1";
      double batch = t.num(row, "report.batch");
      s.points.push_back({batch, t.num(row, "report.throughput_tokens_per_s")});
      if (kv == firstKv && !s.variant) {
        std::string format = t.get(row, "kv_format");
        std::string &label = s.labels[batch];
        label += (label.empty() ? "" : "/") +
                 (format.empty() ? std::string("bf16") : format);
      }
    }
    // A swept chip parameter (--set KEY=V1,V2,...) on the x axis: tokens/s
    // against each key whose value varies, one line per policy and the
    // rest of the point (the other keys, context, batch).
    std::map<std::string, std::map<std::string, std::string>> setsOf;
    std::map<std::string, std::set<std::string>> setValues;
    for (const auto *r : rows) {
      std::string set = t.get(*r, "set");
      llvm::SmallVector<StringRef> items;
      StringRef(set).split(items, ';', -1, false);
      for (StringRef item : items) {
        auto [key, value] = item.split('=');
        setsOf[t.get(*r, "index")][key.str()] = value.str();
        setValues[key.str()].insert(value.str());
      }
    }
    std::vector<Plot> setPlots;
    for (const auto &[key, values] : setValues) {
      bool numeric = values.size() > 1 && llvm::all_of(values, [](auto &v) {
                       double d;
                       return !StringRef(v).getAsDouble(d);
                     });
      if (!numeric)
        continue;
      std::string file;
      for (char ch : key)
        file += llvm::isAlnum(ch) ? ch : '_';
      Plot p = makePlot("set_" + file + suffix,
                        "Decode throughput against " + key + ": " + scope +
                            fixedSettings(rows, {"set"}),
                        key + " (--set)", {"tokens/s, all sequences"},
                        /*logx=*/false);
      p.tokenTics = false;
      for (const auto *r : rows) {
        const auto &sets = setsOf[t.get(*r, "index")];
        auto it = sets.find(key);
        if (it == sets.end())
          continue;
        std::string line = t.get(*r, "kv") + variantOf(*r, true, true, false);
        for (const auto &[other, v] : sets)
          if (other != key && setValues[other].size() > 1)
            line += " " + other + "=" + v;
        if (manyContexts)
          line += " @" + contextLabel(*r);
        if (manyBatches)
          line += " batch " + t.get(*r, "batch");
        p.line(line, line, line)
            .points.push_back({std::stod(it->second),
                               t.num(*r, "report.throughput_tokens_per_s")});
      }
      setPlots.push_back(std::move(p));
    }
    std::vector<const Plot *> plots;
    for (auto &[context, p] : methods)
      plots.push_back(&p);
    plots.insert(plots.end(), {&throughput, &scaling, &memory});
    for (const Plot &p : setPlots)
      plots.push_back(&p);
    // A plot needs two values along its x axis (one context or one batch
    // gives none); a line with one point is drawn as a point.
    for (const Plot *p : plots) {
      if (p->xs().size() < 2) {
        skipped.push_back(p->name);
        continue;
      }
      size_t tall = tooTall.size();
      if (Error e = writePlot(*p, plotsDir, scripts, tooTall))
        return e;
      if (gp && tooTall.size() == tall)
        drawnNames.push_back(p->name + ".svg");
    }
  }
  // One gnuplot process for every plot (each costs ~30 ms to start).
  if (gp && !scripts.empty())
    if (Error e = runGnuplot(scripts))
      return e;

  // summary.md: the best point per model, chip and context, of all the
  // points and of those whose published accuracy loss (quoted, the larger
  // of policy's and format's) is at most 1%: "most tokens/s at under 1%
  // published loss" without a hand join.
  using Best = std::map<std::tuple<std::string, std::string, double>,
                        const std::vector<std::string> *>;
  auto bestOf =
      [&](llvm::function_ref<bool(const std::vector<std::string> &)> keep) {
        Best best;
        for (const auto *r : ok) {
          if (!keep(*r))
            continue;
          auto &b = best[std::make_tuple(t.get(*r, "model"), t.get(*r, "chip"),
                                         t.num(*r, "context"))];
          if (!b || t.num(*r, "report.throughput_tokens_per_s") >
                        t.num(*b, "report.throughput_tokens_per_s"))
            b = r;
        }
        return best;
      };
  constexpr double kLossBudgetPct = 1.0;
  bool hasAccuracy = t.column("accuracy.loss_pct") >= 0;
  Best best = bestOf([](const auto &) { return true; });
  Best bestWithin = bestOf([&](const std::vector<std::string> &r) {
    double loss;
    return hasAccuracy &&
           !StringRef(t.get(r, "accuracy.loss_pct")).getAsDouble(loss) &&
           loss <= kLossBudgetPct;
  });
  // What made the points: the builds that simulated them and each model's
  // and chip's fingerprint, as their reports name them.
  std::set<std::string> builds, models, chips;
  for (const auto *r : ok) {
    builds.insert(t.get(*r, "report.snapflow"));
    models.insert(t.get(*r, "model") + " (" +
                  t.get(*r, "report.model_fingerprint") + ")");
    chips.insert(t.get(*r, "chip") + " (" +
                 t.get(*r, "report.chip_fingerprint") + ")");
  }
  auto joined = [](const std::set<std::string> &s) {
    return llvm::join(s.begin(), s.end(), ", ");
  };
  if (Error e = writeOutput(summary, [&](llvm::raw_ostream &md) {
        md << "# Sweep summary\n\n"
           << llvm::formatv("{0} points: {1} ran, {2} did not (see below). "
                            "Rows: `results.csv`; plots: `plots/`.\n\n",
                            t.rows.size(), ok.size(), failed.size());
        if (!ok.empty())
          md << "Made by snapflow " << joined(builds) << "; models "
             << joined(models) << "; chips " << joined(chips) << ".\n\n";
        md << "## Highest aggregate throughput per model, chip and context\n\n"
              "| model | chip | context | kv | batch | tp | tokens/s | "
              "per user tokens/s | step latency ms | peak HBM GiB | "
              "peak DDR GiB | binding |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
        for (const auto &b : best) {
          const auto &r = *b.second;
          md << llvm::formatv(
              "| {0} | {1} | {2} | `{3}` | {4} | {5} | {6:f1} | {7:f2} | "
              "{8:f2} | {9:f1} | {10:f1} | {11} |\n",
              t.get(r, "model"), t.get(r, "chip"), t.get(r, "context"),
              t.get(r, "kv") + variantOf(r), t.get(r, "report.batch"),
              t.get(r, "report.tp"), t.num(r, "report.throughput_tokens_per_s"),
              t.num(r, "report.per_user_tokens_per_s"),
              t.num(r, "report.step_latency_s") * 1e3,
              gib(t.num(r, "report.memory.peak_bytes.hbm")),
              gib(t.num(r, "report.memory.peak_bytes.ddr")),
              t.get(r, "report.roofline.binding"));
        }
        if (hasAccuracy && !ok.empty()) {
          md << llvm::formatv(
              "\n## Highest throughput within {0:f0}% published accuracy loss\n"
              "\nAmong the points whose KV policy and format have a "
              "published row at the point's setting with at most {0:f0}% loss "
              "against the uncompressed score (`accuracy.loss_pct`, quoted "
              "from its source, never simulated; `full` in bf16 counts as "
              "0). A point with no published row is not ranked.\n\n"
              "| model | chip | context | kv | batch | tokens/s | loss % | "
              "published row |\n|---|---|---|---|---|---|---|---|\n",
              kLossBudgetPct);
          for (const auto &b : bestWithin) {
            const auto &r = *b.second;
            std::string reference = t.get(r, "accuracy.reference");
            std::replace(reference.begin(), reference.end(), '|', '/');
            md << llvm::formatv(
                "| {0} | {1} | {2} | `{3}` | {4} | {5:f1} | {6} | {7} |\n",
                t.get(r, "model"), t.get(r, "chip"), t.get(r, "context"),
                t.get(r, "kv") + variantOf(r), t.get(r, "report.batch"),
                t.num(r, "report.throughput_tokens_per_s"),
                t.get(r, "accuracy.loss_pct"), reference);
          }
        }
        if (!failed.empty()) {
          md << "\n## Points that did not run\n\n"
                "| index | model | chip | context | batch | kv | status | "
                "reason |\n|---|---|---|---|---|---|---|---|\n";
          for (const auto *r : failed) {
            std::string reason = t.get(*r, "reason");
            if (StringRef(reason).starts_with("snapflow: error: "))
              reason.erase(0, strlen("snapflow: error: "));
            std::replace(reason.begin(), reason.end(), '|', '/');
            md << llvm::formatv(
                "| {0} | {1} | {2} | {3} | {4} | `{5}` | {6} | "
                "{7} |\n",
                t.get(*r, "index"), t.get(*r, "model"), t.get(*r, "chip"),
                t.get(*r, "context"), t.get(*r, "batch"),
                t.get(*r, "kv") + variantOf(*r), t.get(*r, "status"), reason);
          }
        }
        return Error::success();
      }))
    return e;

  os << "summary: " << summary << "\n";
  if (!drawnNames.empty())
    os << "plots: " << plotsDir << "/{" << llvm::join(drawnNames, ",") << "}\n";
  if (!skipped.empty())
    os << "no plot " << llvm::join(skipped, ", ")
       << ": it needs two or more points along its x axis\n";
  if (!tooTall.empty())
    os << "no plot " << llvm::join(tooTall, ", ") << ": more lines than a "
       << "chart of at most " << int(kMaxChartHeight)
       << " px shows; sweep fewer values at once"
       << (llvm::any_of(tooTall,
                        [](StringRef n) { return n.starts_with("kv_methods"); })
               ? "\n"
               : " (a --batch max sweep of KV formats or CLA factors draws "
                 "them side by side in kv_methods-*.svg)\n");
  if (!gp)
    llvm::WithColor::warning(os, "snapflow")
        << "gnuplot not found: plot scripts are in " << plotsDir
        << "; draw them with `gnuplot FILE.gp` (make install brings it)\n";
  return Error::success();
}
