//===- SweepPlots.cpp - Plots and summary of a sweep -----------------------===//
//
// Reads DIR/results.csv and writes, next to it:
//   plots/throughput_vs_context.svg  aggregate tokens/s against context, one
//                                    line per KV policy (and batch);
//   plots/batch_scaling.svg          aggregate and per-user tokens/s against
//                                    batch, one line per KV policy and context;
//   plots/memory_vs_batch.svg        peak HBM and DDR per socket against
//                                    batch, one line per KV policy;
//   summary.md                       the best point per model, chip and
//                                    context, and every point that failed.
// The plot data (plots/*.dat) and gnuplot scripts (plots/*.gp) stay beside
// the SVGs so a plot can be restyled without rerunning the sweep. Without
// gnuplot the scripts are written and a warning says how to draw them.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Driver/Csv.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Driver/Gnuplot.h"
#include "snapflow/Driver/Sweep.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
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
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return makeError(path + ": " + buffer.getError().message());
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

/// One line of a plot. Lines with the same `group` share a colour.
struct Series {
  std::string label;
  std::vector<std::pair<double, double>> points;
  int group = 0;
  bool dashed = false;
  bool y2 = false; ///< against the right-hand axis
  /// Text beside each point, by x (none when empty).
  std::map<double, std::string> labels;
};

/// One plot: series of (x, y) points, drawn with lines and points, in the
/// order of their sort keys.
struct Plot {
  std::string name, title, xlabel, ylabel, y2label;
  bool logx = false;
  std::map<std::string, Series> series;
  std::map<std::string, int> groups; ///< group name -> colour index
  std::vector<std::pair<double, std::string>> hlines; ///< level, title

  Series &line(const std::string &sortKey, const std::string &label,
               const std::string &group) {
    Series &s = series[sortKey];
    s.label = label;
    s.group = groups.emplace(group, static_cast<int>(groups.size()) + 1)
                  .first->second;
    return s;
  }
};

/// A sort key of a number: zero-padded, so keys order like numbers.
std::string numKey(double v) {
  return llvm::formatv("{0:d15}", static_cast<int64_t>(v)).str();
}

Plot makePlot(std::string name, std::string title, std::string xlabel,
              std::string ylabel, bool logx) {
  Plot p;
  p.name = std::move(name);
  p.title = std::move(title);
  p.xlabel = std::move(xlabel);
  p.ylabel = std::move(ylabel);
  p.logx = logx;
  return p;
}


/// Writes NAME.dat and NAME.gp under `plotsDir` and adds the script to
/// `scripts` (with the SVG it draws) when the plot has a line.
Error writePlot(const Plot &p, StringRef plotsDir,
                std::vector<GnuplotScript> &scripts) {
  if (p.series.empty())
    return Error::success();
  llvm::SmallString<256> dat(plotsDir), gp(plotsDir), svg(plotsDir);
  llvm::sys::path::append(dat, p.name + ".dat");
  llvm::sys::path::append(gp, p.name + ".gp");
  llvm::sys::path::append(svg, p.name + ".svg");
  if (Error e = llvm::writeToOutput(dat, [&](llvm::raw_ostream &os) {
        for (const auto &s : p.series) {
          os << "# " << s.second.label << "\n";
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
  // Long labels (a sweep's variants: "full mtp=1 set=...") go below the
  // chart, one per line, so the chart keeps its width.
  size_t longest = 0;
  for (const auto &s : p.series)
    longest = std::max(longest, s.second.label.size());
  bool below = longest > 32;
  int height = below ? 540 + 18 * static_cast<int>(p.series.size()) : 540;
  if (Error e = llvm::writeToOutput(gp, [&](llvm::raw_ostream &os) {
        os << "set terminal svg size 900," << height
           << " dynamic noenhanced font 'sans,12' background rgb 'white'\n";
        os << gnuplotOutput(svg);
        os << "set title " << gnuplotQuote(p.title) << "\n";
        os << "set xlabel " << gnuplotQuote(p.xlabel) << "\n";
        os << "set ylabel " << gnuplotQuote(p.ylabel) << "\n";
        os << "set grid\nset key "
           << (below ? "outside below left Left reverse maxcols 1"
                     : "outside right top")
           << "\nset yrange [0:*]\n";
        if (!p.y2label.empty())
          os << "set y2label " << gnuplotQuote(p.y2label)
             << "\nset y2tics\nset ytics nomirror\nset y2range [0:*]\n";
        if (p.logx)
          os << "set logscale x 2\n";
        // Tics at the swept values (8K for 8192), when they are few.
        std::set<double> xs;
        for (const auto &s : p.series)
          for (auto [x, y] : s.second.points)
            xs.insert(x);
        if (xs.size() <= 12) {
          std::vector<std::string> tics;
          for (double x : xs) {
            int64_t n = static_cast<int64_t>(x);
            std::string label = n >= 4096 && n % 1024 == 0
                                    ? std::to_string(n / 1024) + "K"
                                    : std::to_string(n);
            tics.push_back(llvm::formatv("\"{0}\" {1}", label, x));
          }
          os << "set xtics (" << llvm::join(tics, ", ") << ")\n";
          // Room either side of the first and last value.
          if (p.logx && xs.size() > 1)
            os << llvm::formatv("set xrange [{0}:{1}]\n", *xs.begin() / 1.3,
                                *xs.rbegin() * 1.3);
        }
        os << "plot ";
        int index = 0;
        for (const auto &s : p.series) {
          os << (index ? ", \\\n     " : "") << gnuplotQuote(dat) << " index "
             << index << " using 1:2";
          if (s.second.y2)
            os << " axes x1y2";
          // Colour and point shape both follow the group, so lines stay
          // apart after gnuplot's eight colours come round again.
          os << " with linespoints pt " << (4 + 2 * ((s.second.group - 1) % 4))
             << " ps 0.7 lw 2 lc " << s.second.group;
          if (s.second.dashed)
            os << " dt 2";
          os << " title " << gnuplotQuote(s.second.label);
          if (!s.second.labels.empty())
            os << ", \\\n     " << gnuplotQuote(dat) << " index " << index
               << " using 1:2:3 with labels left offset 0.6,-0.6 font ',9' "
                  "notitle";
          ++index;
        }
        for (const auto &[level, title] : p.hlines)
          os << ", \\\n     " << level
             << " with lines dt 3 lw 1 lc rgb 'black' title " << gnuplotQuote(title);
        os << "\n";
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
  // The scripts name their data by absolute path, so they can be rerun from
  // anywhere.
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
                       bool withFormat = true) {
    std::string v;
    for (const char *axis : {"kv_format", "cla", "mla_cache", "moe", "mtp",
                             "mtp_acceptance", "allow_ddr", "set"}) {
      if (t.column(axis) < 0 || !varies(axis) ||
          (!withFormat && StringRef(axis) == "kv_format"))
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

  bool gp = haveGnuplot();
  std::vector<std::string> drawnNames, skipped;
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
    std::string batchNote =
        batchesHere.size() == 1
            ? (*batchesHere.begin() == "max"
                   ? ", largest batch that fits"
                   : ", batch " + *batchesHere.begin())
            : "";
    Plot throughput = makePlot("throughput_vs_context" + suffix,
                               "Decode throughput against context: " + scope +
                                   batchNote,
                               "context (tokens)", "tokens/s (all sequences)",
                               /*logx=*/true);
    Plot scaling = makePlot("batch_scaling" + suffix,
                            "Aggregate (solid) and per-user (dashed) "
                            "throughput: " +
                                scope,
                            "batch (sequences)", "tokens/s (all sequences)",
                            /*logx=*/true);
    scaling.y2label = "tokens/s per sequence (dashed)";
    Plot memory = makePlot("memory_vs_batch" + suffix,
                           "Peak memory per socket: " + scope,
                           "batch (sequences)", "GiB per socket",
                           /*logx=*/true);
    double maxContext = 0;
    for (const auto *r : rows)
      maxContext = std::max(maxContext, t.num(*r, "context"));
    for (const auto *r : rows) {
      const auto &row = *r;
      double context = t.num(row, "context");
      double batch = t.num(row, "report.batch");
      std::string kv = t.get(row, "kv") + variantOf(row);
      std::string batchLabel =
          manyBatches ? " batch " + t.get(row, "batch") : "";
      std::string batchKey = t.get(row, "batch") == "max"
                                 ? "max"
                                 : numKey(t.num(row, "batch"));
      throughput.line(kv + "\x01" + batchKey, kv + batchLabel, kv + batchLabel)
          .points.push_back(
              {context, t.num(row, "report.throughput_tokens_per_s")});
      std::string ctx = manyContexts ? " @" + contextLabel(row) : "";
      std::string key = kv + "\x01" + numKey(context);
      scaling.line(key + "a", kv + ctx + " aggregate", key)
          .points.push_back(
              {batch, t.num(row, "report.throughput_tokens_per_s")});
      Series &perUser = scaling.line(key + "u", kv + ctx + " per user", key);
      perUser.points.push_back(
          {batch, t.num(row, "report.per_user_tokens_per_s")});
      perUser.dashed = perUser.y2 = true;
      // Memory at the longest context swept, where the policies differ most.
      if (context == maxContext) {
        memory.line(kv + "\x01h", kv + " HBM", kv)
            .points.push_back(
                {batch, gib(t.num(row, "report.memory.peak_bytes.hbm"))});
        if (t.num(row, "report.memory.peak_bytes.ddr") > 0) {
          Series &ddr = memory.line(kv + "\x01d", kv + " DDR", kv);
          ddr.points.push_back(
              {batch, gib(t.num(row, "report.memory.peak_bytes.ddr"))});
          ddr.dashed = true;
        }
      }
    }
    // The HBM a socket has, when the chip is one snapflow can load.
    if (auto chip = arch::ArchModel::load(t.get(*rows.front(), "chip")))
      memory.hlines.push_back(
          {gib(double(chip->tierBytesPerSocket(arch::MemoryTier::HBM))),
           "HBM capacity"});
    else
      llvm::consumeError(chip.takeError());
    if (maxContext > 0)
      memory.title += " at context " + std::to_string(int64_t(maxContext)) +
                      " (HBM solid, DDR dashed)";
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
        p = makePlot("kv_methods" + suffix + "-" + contextLabel(row),
                     "KV methods at context " + contextLabel(row) + ": " +
                         scope +
                         ", largest batch that fits; one line per "
                         "policy, its points the KV formats",
                     "largest batch that fits (sequences)",
                     "tokens/s (all sequences)", /*logx=*/true);
      std::string cla = t.get(row, "cla");
      std::string kv = t.get(row, "kv");
      Series &s =
          p.line(kv + variantOf(row, false), kv + variantOf(row, false), kv);
      s.dashed = !cla.empty() && cla != "1";
      double batch = t.num(row, "report.batch");
      s.points.push_back({batch, t.num(row, "report.throughput_tokens_per_s")});
      if (kv == firstKv && !s.dashed) {
        std::string format = t.get(row, "kv_format");
        std::string &label = s.labels[batch];
        label += (label.empty() ? "" : "/") +
                 (format.empty() ? std::string("bf16") : format);
      }
    }
    for (auto &[context, p] : methods) {
      for (auto it = p.series.begin(); it != p.series.end();)
        it = it->second.points.size() < 2 ? p.series.erase(it) : std::next(it);
      if (Error e = writePlot(p, plotsDir, scripts))
        return e;
      if (!p.series.empty() && gp)
        drawnNames.push_back(p.name + ".svg");
    }
    // A line needs two points; one context or one batch gives none.
    for (Plot *p : {&throughput, &scaling, &memory})
      for (auto it = p->series.begin(); it != p->series.end();)
        it = it->second.points.size() < 2 ? p->series.erase(it)
                                          : std::next(it);
    for (const Plot *p : {&throughput, &scaling, &memory}) {
      if (Error e = writePlot(*p, plotsDir, scripts))
        return e;
      if (p->series.empty())
        skipped.push_back(p->name);
      else if (gp)
        drawnNames.push_back(p->name + ".svg");
    }
  }
  // One gnuplot process for every plot (each costs ~30 ms to start).
  if (gp && !scripts.empty())
    if (Error e = runGnuplot(scripts))
      return e;

  // summary.md: the best point per model, chip and context.
  std::map<std::tuple<std::string, std::string, double>,
           const std::vector<std::string> *>
      best;
  for (const auto *r : ok) {
    auto key = std::make_tuple(t.get(*r, "model"), t.get(*r, "chip"),
                               t.num(*r, "context"));
    auto &b = best[key];
    if (!b || t.num(*r, "report.throughput_tokens_per_s") >
                  t.num(*b, "report.throughput_tokens_per_s"))
      b = r;
  }
  if (Error e = llvm::writeToOutput(summary, [&](llvm::raw_ostream &md) {
        md << "# Sweep summary\n\n"
           << llvm::formatv("{0} points: {1} ran, {2} did not (see below). "
                            "Rows: `results.csv`; plots: `plots/`.\n\n",
                            t.rows.size(), ok.size(), failed.size());
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
    os << "plots: " << plotsDir << "/{" << llvm::join(drawnNames, ",")
       << "}\n";
  if (!skipped.empty())
    os << "no plot " << llvm::join(skipped, ", ")
       << ": it needs two or more points along its x axis\n";
  if (!gp)
    llvm::WithColor::warning(os, "snapflow")
        << "gnuplot not found: plot scripts are in " << plotsDir
        << "; draw them with `gnuplot FILE.gp` (make install brings it)\n";
  return Error::success();
}
