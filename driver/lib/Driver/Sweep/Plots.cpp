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
//   plots/energy_vs_batch.svg        J/token and the node's average power
//                                    against batch, one line per KV policy
//                                    and context;
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

#include "Chart.h"

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
using namespace snapflow::driver::sweep;
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

using Row = std::vector<std::string>;
using RowRef = const Row *;
using Rows = std::vector<RowRef>;

/// The charts of one drawing: what varies over the points that ran, how a
/// chart names its lines and says what it holds fixed, and each chart of a
/// scope (a model on a chip, and a TP and weight dtype when those vary).
class Charts {
public:
  Charts(const Table &t, Rows ok) : t(t), ok(std::move(ok)) {
    manyTp = varies("tp");
    manyDtypes = varies("weights_dtype");
    manyBatches = varies("batch");
    manyContexts = varies("context");
    manyScopes = varies("model") || varies("chip") || manyTp || manyDtypes;
  }

  /// Whether a column holds more than one value over the points that ran.
  bool varies(StringRef col) const {
    std::set<std::string> values;
    for (RowRef r : ok)
      values.insert(t.get(*r, col));
    return values.size() > 1;
  }
  /// One set of plots per model and chip (and TP and weight dtype when
  /// those vary): lines of different models on one axis are unreadable.
  std::string scopeOf(const std::vector<std::string> &r) const {
    std::string s = t.get(r, "model") + " on " + t.get(r, "chip");
    if (manyTp)
      s += " tp " + t.get(r, "tp");
    if (manyDtypes)
      s += " " + t.get(r, "weights_dtype");
    return s;
  }
  /// The variants of one question (compiler options and chip parameters
  /// swept) share a chart: each is its own line, named after what it sets.
  std::string variantOf(const std::vector<std::string> &r,
                        bool withFormat = true, bool withCla = true,
                        bool withSet = true) const {
    std::string v;
    for (const SweepAxisInfo &a : sweepAxes()) {
      if (a.role != AxisRole::Variant)
        continue;
      const char *axis = a.column;
      if (t.column(axis) < 0 || !varies(axis) ||
          (!withFormat && StringRef(axis) == "kv_format") ||
          (!withCla && StringRef(axis) == "cla") ||
          (!withSet && StringRef(axis) == "set"))
        continue;
      std::string value = t.get(r, axis);
      v += " " + std::string(axis) + "=" + (value.empty() ? "default" : value);
    }
    return v;
  }
  std::string contextLabel(const std::vector<std::string> &r) const {
    int64_t c = static_cast<int64_t>(t.num(r, "context"));
    return c % 1024 == 0 ? std::to_string(c / 1024) + "K" : std::to_string(c);
  }
  /// Whether a model has MLA and routed experts (each config read once per
  /// drawing).
  std::pair<bool, bool> kindOf(const std::string &model) {
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
  }
  /// What a chart holds fixed, for its title: every setting that has one
  /// value over its rows, but those the chart shows (its x axis, its
  /// lines), so the chart stands alone.
  std::string fixedSettings(const Rows &rows,
                            std::initializer_list<StringRef> shown) {
    // The MLA cache and MoE mode are said for the models they apply to
    // (each config read once per drawing).
    auto [mla, moe] = rows.empty() ? std::pair<bool, bool>()
                                   : kindOf(t.get(*rows.front(), "model"));
    std::vector<std::string> parts;
    // Every axis but the scope's (SweepAxes.def: its title and the word
    // for its default).
    for (const SweepAxisInfo &st : sweepAxes()) {
      if (st.role == AxisRole::Scope || t.column(st.column) < 0 ||
          llvm::is_contained(shown, st.column) ||
          (StringRef(st.column) == "mla_cache" && !mla) ||
          (StringRef(st.column) == "moe" && !moe))
        continue;
      std::set<std::string> values;
      for (const auto *r : rows)
        values.insert(t.get(*r, st.column));
      if (values.size() != 1)
        continue;
      std::string v = *values.begin();
      if (v.empty() && !*st.unset)
        continue; // the config's or the tool's default, said nowhere else
      if (v.empty())
        v = st.unset;
      if (StringRef(st.column) == "context")
        v = ticLabel(std::stod(v));
      if (StringRef(st.column) == "batch" && v == "max")
        v = "largest that fits";
      if (StringRef(st.column) == "tp" && v == "0")
        v = "every socket";
      parts.push_back(std::string(st.title) + " " + v);
    }
    return parts.empty() ? std::string() : "\n" + llvm::join(parts, ", ");
  }

  /// The charts of one scope, in drawing order; `suffix` ends their names.
  std::vector<Plot> chartsOf(const std::string &scope, const Rows &rows,
                             const std::string &suffix) {
    std::set<std::string> batchesHere;
    for (RowRef r : rows)
      batchesHere.insert(t.get(*r, "batch"));
    // Every point at the largest batch that fits: one point per policy and
    // context, so the batch charts draw a line per policy over the
    // contexts, each point named by its context (a line per policy and
    // context was a wall of single dots).
    bool batchMaxOnly =
        batchesHere.size() == 1 && *batchesHere.begin() == "max";
    std::vector<Plot> out;
    for (auto &[context, p] : methodCharts(scope, rows, suffix, batchMaxOnly))
      out.push_back(std::move(p));
    out.push_back(throughputChart(scope, rows, suffix));
    out.push_back(scalingChart(scope, rows, suffix, batchMaxOnly));
    out.push_back(memoryChart(scope, rows, suffix, batchMaxOnly));
    out.push_back(energyChart(scope, rows, suffix, batchMaxOnly));
    for (Plot &p : setCharts(scope, rows, suffix))
      out.push_back(std::move(p));
    return out;
  }

private:
  /// Tokens/s against context, a line per policy (and batch).
  Plot throughputChart(const std::string &scope, const Rows &rows,
                       const std::string &suffix) {
    Plot throughput = makePlot("throughput_vs_context" + suffix,
                               "Decode throughput against context: " + scope +
                                   fixedSettings(rows, {"context"}),
                               "context (tokens)", {"tokens/s, all sequences"},
                               /*logx=*/true);
    for (RowRef r : rows) {
      const auto &row = *r;
      std::string kv = t.get(row, "kv") + variantOf(row);
      std::string batchKey =
          t.get(row, "batch") == "max" ? "max" : numKey(t.num(row, "batch"));
      Facet byBatch{batchKey,
                    t.get(row, "batch") == "max"
                        ? "largest batch that fits"
                        : "batch " + t.get(row, "batch"),
                    manyBatches ? " batch " + t.get(row, "batch") : ""};
      throughput.line(kv + "\x01" + batchKey, kv, kv, byBatch)
          .points.push_back({t.num(row, "context"),
                             t.num(row, "report.throughput_tokens_per_s")});
    }
    return throughput;
  }

  /// Two figures of each row against batch, side by side: a line per
  /// policy and context (per policy, its points the contexts, when every
  /// point is the largest batch that fits). `left` and `right` give a
  /// row's figures; a row whose left figure is not positive (a column the
  /// rows lack) is left out.
  Plot batchPanels(const std::string &name, const std::string &title,
                   std::vector<std::string> ylabels, const Rows &rows,
                   bool batchMaxOnly,
                   llvm::function_ref<double(const Row &)> left,
                   llvm::function_ref<double(const Row &)> right) {
    Plot p = makePlot(name, title,
                      batchMaxOnly ? "largest batch that fits (sequences)"
                                   : "batch (sequences)",
                      std::move(ylabels), /*logx=*/true);
    for (RowRef r : rows) {
      const auto &row = *r;
      double l = left(row);
      if (!(l > 0))
        continue;
      double context = t.num(row, "context");
      double batch = t.num(row, "report.batch");
      std::string kv = t.get(row, "kv") + variantOf(row);
      Facet byContext{numKey(context), "context " + contextLabel(row),
                      manyContexts ? " @" + contextLabel(row) : ""};
      std::string key =
          batchMaxOnly ? kv + "\x01" : kv + "\x01" + numKey(context);
      Facet facet = batchMaxOnly ? Facet{} : byContext;
      Series &a = p.line(key + "a", kv, kv, facet);
      a.points.push_back({batch, l});
      Series &b = p.line(key + "b", kv, kv, facet);
      b.points.push_back({batch, right(row)});
      b.panel = 1;
      if (batchMaxOnly && manyContexts)
        a.labels[batch] = b.labels[batch] = contextLabel(row);
    }
    return p;
  }

  /// Aggregate (left) and per-sequence (right) tokens/s against batch.
  Plot scalingChart(const std::string &scope, const Rows &rows,
                    const std::string &suffix, bool batchMaxOnly) {
    return batchPanels(
        "batch_scaling" + suffix,
        (batchMaxOnly ? "Decode throughput against the largest batch that "
                        "fits: "
                      : "Decode throughput against batch: ") +
            scope + fixedSettings(rows, {"batch"}) +
            "\naggregate (left) and per sequence (right)" +
            (batchMaxOnly ? ", one line per policy, its points the contexts"
                          : ""),
        {"tokens/s, all sequences", "tokens/s per sequence"}, rows,
        batchMaxOnly,
        [&](const Row &row) {
          return t.num(row, "report.throughput_tokens_per_s");
        },
        [&](const Row &row) {
          return t.num(row, "report.per_user_tokens_per_s");
        });
  }

  /// Peak HBM (and DDR, in a column of its own) against batch, at the
  /// longest context swept, where the policies differ most (at the largest
  /// batch, at every context), with the HBM a socket has.
  Plot memoryChart(const std::string &scope, const Rows &rows,
                   const std::string &suffix, bool batchMaxOnly) {
    double maxContext = 0;
    for (RowRef r : rows)
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
    for (RowRef r : rows) {
      const auto &row = *r;
      if (!batchMaxOnly && t.num(row, "context") != maxContext)
        continue;
      double batch = t.num(row, "report.batch");
      std::string kv = t.get(row, "kv") + variantOf(row);
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
    if (llvm::any_of(memory.series,
                     [](const auto &s) { return s.second.panel > 0; }))
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
    return memory;
  }

  /// Energy per token (left) and the node's average power (right) against
  /// batch, as batch_scaling draws its lines.
  Plot energyChart(const std::string &scope, const Rows &rows,
                   const std::string &suffix, bool batchMaxOnly) {
    return batchPanels(
        "energy_vs_batch" + suffix,
        (batchMaxOnly ? "Energy per token against the largest batch that "
                        "fits: "
                      : "Energy per token against batch: ") +
            scope + fixedSettings(rows, {"batch"}) +
            "\nJ/token (left) and average power (right) at the node" +
            (batchMaxOnly ? ", one line per policy, its points the contexts"
                          : ""),
        {"J/token (node)", "average power (kW, node)"}, rows, batchMaxOnly,
        [&](const Row &row) {
          return t.num(row, "report.energy.joules_per_token");
        },
        [&](const Row &row) {
          return t.num(row, "report.energy.average_power_w.node") / 1e3;
        });
  }

  /// The KV methods side by side: a grid of KV formats (or CLA factors)
  /// at the largest batch gives, per context, tokens/s against the batch
  /// that fits, one line per policy and variant (dashed when layers share
  /// K/V), its points the formats, named along the grid's first line.
  std::map<double, Plot> methodCharts(const std::string &scope,
                                      const Rows &rows,
                                      const std::string &suffix,
                                      bool batchMaxOnly) {
    std::map<double, Plot> methods;
    bool byMethod = (varies("kv_format") || varies("cla")) && batchMaxOnly;
    std::string firstKv = rows.empty() ? "" : t.get(*rows.front(), "kv");
    for (const auto *r : byMethod ? rows : Rows()) {
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
      // Beside it, tokens per joule at the node (rows from before energy
      // was reported have none).
      if (double j = t.num(row, "report.energy.joules_per_token"); j > 0) {
        Series &e = p.line(kv + variantOf(row, false) + "\x01e",
                           kv + variantOf(row, false),
                           kv + variantOf(row, false, false));
        e.variant = s.variant;
        e.panel = 1;
        e.points.push_back({batch, 1 / j});
        p.ylabels = {"tokens/s, all sequences", "tokens per joule (node)"};
      }
      if (kv == firstKv && !s.variant) {
        std::string format = t.get(row, "kv_format");
        std::string &label = s.labels[batch];
        label += (label.empty() ? "" : "/") +
                 (format.empty() ? std::string("bf16") : format);
      }
    }
    return methods;
  }

  /// A swept chip parameter (--set KEY=V1,V2,...) on the x axis: tokens/s
  /// against each key whose value varies, one line per policy and the
  /// rest of the point (the other keys, context, batch).
  std::vector<Plot> setCharts(const std::string &scope, const Rows &rows,
                              const std::string &suffix) {
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
                        key + " (--set)",
                        {"tokens/s, all sequences", "J/token (node)"},
                        /*logx=*/false);
      p.title = (key.find("_pj_") != std::string::npos ||
                         StringRef(key).ends_with("_w") ||
                         key.find("power") != std::string::npos
                     ? "Energy per token and throughput against "
                     : "Decode throughput and energy per token against ") +
                key + ": " + scope + fixedSettings(rows, {"set"}) +
                "\ntokens/s (left), J/token at the node (right)";
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
        double x = std::stod(it->second);
        p.line(line, line, line)
            .points.push_back({x, t.num(*r, "report.throughput_tokens_per_s")});
        if (double j = t.num(*r, "report.energy.joules_per_token"); j > 0) {
          Series &e = p.line(line + "\x01e", line, line);
          e.panel = 1;
          e.points.push_back({x, j});
        }
      }
      setPlots.push_back(std::move(p));
    }
    return setPlots;
  }

  const Table &t;
  Rows ok;
  bool manyTp, manyDtypes, manyBatches, manyContexts;
  std::map<std::string, std::pair<bool, bool>> kinds; // model -> MLA, MoE

public:
  bool manyScopes;
};

/// A serving sweep's best point per model, chip and context: the most
/// goodput under its SLOs, with what it served.
template <class Best>
void writeServedBest(llvm::raw_ostream &md, const Table &t, const Best &best,
                     const Charts &charts) {
  md << "## Most goodput per model, chip and context\n\n"
        "Goodput: requests per second meeting every SLO of the sweep's "
        "serving flags (every request without SLOs).\n\n"
        "| model | chip | context | kv | slots | goodput (requests/s) | "
        "meeting SLOs | tokens/s | TTFT p99 s | TPOT p99 ms |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto &b : best) {
    const auto &r = *b.second;
    md << llvm::formatv(
        "| {0} | {1} | {2} | `{3}` | {4} | {5:f3} | {6:f1}% | {7:f1} | "
        "{8:f2} | {9:f2} |\n",
        t.get(r, "model"), t.get(r, "chip"), t.get(r, "context"),
        t.get(r, "kv") + charts.variantOf(r), t.get(r, "serve.slots"),
        t.num(r, "serve.slo.goodput_requests_per_s"),
        100 * t.num(r, "serve.slo.attainment.both"),
        t.num(r, "serve.throughput_tokens_per_s"), t.num(r, "serve.ttft_s.p99"),
        t.num(r, "serve.tpot_s.p99") * 1e3);
  }
}

/// summary.md: the best point per model, chip and context, of all the
/// points and of those whose published accuracy loss (quoted, the larger
/// of policy's and format's) is at most 1%: "most tokens/s at under 1%
/// published loss" without a hand join; then every point that did not run.
Error writeSummary(StringRef path, const Table &t, const Rows &ok,
                   const Rows &failed, const Charts &charts) {
  // summary.md: the best point per model, chip and context, of all the
  // points and of those whose published accuracy loss (quoted, the larger
  // of policy's and format's) is at most 1%: "most tokens/s at under 1%
  // published loss" without a hand join.
  using Best = std::map<std::tuple<std::string, std::string, double>,
                        const std::vector<std::string> *>;
  // A serving sweep (sweep --serve) ranks by goodput under its SLOs (every
  // request's rate without SLOs) and names what made it from serve.*.
  const bool served = std::any_of(ok.begin(), ok.end(), [&](const auto *r) {
    return !t.get(*r, "serve.snapflow").empty();
  });
  const std::string pre = served ? "serve." : "report.";
  const std::string metric = served ? "serve.slo.goodput_requests_per_s"
                                    : "report.throughput_tokens_per_s";
  auto bestOf =
      [&](llvm::function_ref<bool(const std::vector<std::string> &)> keep) {
        Best best;
        for (const auto *r : ok) {
          if (!keep(*r))
            continue;
          auto &b = best[std::make_tuple(t.get(*r, "model"), t.get(*r, "chip"),
                                         t.num(*r, "context"))];
          if (!b || t.num(*r, metric) > t.num(*b, metric))
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
    builds.insert(t.get(*r, pre + "snapflow"));
    models.insert(t.get(*r, "model") + " (" +
                  t.get(*r, pre + "model_fingerprint") + ")");
    chips.insert(t.get(*r, "chip") + " (" +
                 t.get(*r, pre + "chip_fingerprint") + ")");
  }
  auto joined = [](const std::set<std::string> &s) {
    return llvm::join(s.begin(), s.end(), ", ");
  };
  if (Error e = writeOutput(path, [&](llvm::raw_ostream &md) {
        md << "# Sweep summary\n\n"
           << llvm::formatv("{0} points: {1} ran, {2} did not (see below). "
                            "Rows: `results.csv`; plots: `plots/`.\n\n",
                            t.rows.size(), ok.size(), failed.size());
        if (!ok.empty())
          md << "Made by snapflow " << joined(builds) << "; models "
             << joined(models) << "; chips " << joined(chips) << ".\n\n";
        if (served)
          writeServedBest(md, t, best, charts);
        else
          md << "## Highest aggregate throughput per model, chip and "
                "context\n\n"
                "| model | chip | context | kv | batch | tp | tokens/s | "
                "per user tokens/s | step latency ms | peak HBM GiB | "
                "peak DDR GiB | binding |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
        for (const auto &b : best) {
          if (served)
            break;
          const auto &r = *b.second;
          md << llvm::formatv(
              "| {0} | {1} | {2} | `{3}` | {4} | {5} | {6:f1} | {7:f2} | "
              "{8:f2} | {9:f1} | {10:f1} | {11} |\n",
              t.get(r, "model"), t.get(r, "chip"), t.get(r, "context"),
              t.get(r, "kv") + charts.variantOf(r), t.get(r, "report.batch"),
              t.get(r, "report.tp"), t.num(r, "report.throughput_tokens_per_s"),
              t.num(r, "report.per_user_tokens_per_s"),
              t.num(r, "report.step_latency_s") * 1e3,
              gib(t.num(r, "report.memory.peak_bytes.hbm")),
              gib(t.num(r, "report.memory.peak_bytes.ddr")),
              t.get(r, "report.roofline.binding"));
        }
        if (hasAccuracy && !ok.empty()) {
          md << llvm::formatv(
              "\n## Highest {1} within {0:f0}% published accuracy loss\n"
              "\nAmong the points whose KV policy and format have a "
              "published row at the point's setting with at most {0:f0}% loss "
              "against the uncompressed score (`accuracy.loss_pct`, quoted "
              "from its source, never simulated; `full` in bf16 counts as "
              "0). A point with no published row is not ranked.\n\n"
              "| model | chip | context | kv | batch | {2} | loss % | "
              "published row |\n|---|---|---|---|---|---|---|---|\n",
              kLossBudgetPct, served ? "goodput" : "throughput",
              served ? "goodput (requests/s)" : "tokens/s");
          for (const auto &b : bestWithin) {
            const auto &r = *b.second;
            std::string reference = t.get(r, "accuracy.reference");
            std::replace(reference.begin(), reference.end(), '|', '/');
            md << llvm::formatv(
                "| {0} | {1} | {2} | `{3}` | {4} | {5:f3} | {6} | {7} |\n",
                t.get(r, "model"), t.get(r, "chip"), t.get(r, "context"),
                t.get(r, "kv") + charts.variantOf(r),
                t.get(r, served ? "serve.slots" : "report.batch"),
                t.num(r, metric), t.get(r, "accuracy.loss_pct"), reference);
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
            md << llvm::formatv("| {0} | {1} | {2} | {3} | {4} | `{5}` | {6} | "
                                "{7} |\n",
                                t.get(*r, "index"), t.get(*r, "model"),
                                t.get(*r, "chip"), t.get(*r, "context"),
                                t.get(*r, "batch"),
                                t.get(*r, "kv") + charts.variantOf(*r),
                                t.get(*r, "status"), reason);
          }
        }
        return Error::success();
      }))
    return e;
  return Error::success();
}

} // namespace

Error snapflow::driver::drawSweep(StringRef dir, llvm::raw_ostream &os) {
  llvm::SmallString<256> results(dir), plotsDir(dir), summary(dir);
  llvm::sys::path::append(results, "results.csv");
  llvm::sys::path::append(plotsDir, "plots");
  // gnuplot is given the scripts by absolute path; they name their data
  // relative to their own folder.
  (void)llvm::sys::fs::make_absolute(plotsDir); // else relative to here
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
      (void)llvm::sys::fs::remove(it->path());
  }
  Rows ok, failed;
  for (const auto &r : t.rows)
    (t.get(r, "status") == "ok" ? ok : failed).push_back(&r);
  Charts charts(t, ok);
  std::map<std::string, Rows> scopes;
  for (RowRef r : ok)
    scopes[charts.scopeOf(*r)].push_back(r);

  bool gp = haveGnuplot();
  std::vector<std::string> drawnNames, skipped, tooTall;
  std::vector<GnuplotScript> scripts;
  for (const auto &[scope, rows] : scopes) {
    // File names: the scope with anything but letters, digits, '.', '-'
    // turned into '_'.
    std::string suffix;
    if (charts.manyScopes) {
      suffix = "-";
      for (char ch : scope)
        suffix += llvm::isAlnum(ch) || ch == '.' || ch == '-' ? ch : '_';
    }
    // A plot needs two values along its x axis (one context or one batch
    // gives none); a line with one point is drawn as a point.
    for (const Plot &p : charts.chartsOf(scope, rows, suffix)) {
      // Nothing to draw: rows without its columns (results from before
      // energy was reported).
      if (p.series.empty())
        continue;
      if (p.xs().size() < 2) {
        skipped.push_back(p.name);
        continue;
      }
      size_t tall = tooTall.size();
      if (Error e = writePlot(p, plotsDir, scripts, tooTall))
        return e;
      if (gp && tooTall.size() == tall)
        drawnNames.push_back(p.name + ".svg");
    }
  }
  // One gnuplot process for every plot (each costs ~30 ms to start).
  if (gp && !scripts.empty())
    if (Error e = runGnuplot(scripts))
      return e;
  if (Error e = writeSummary(summary, t, ok, failed, charts))
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
