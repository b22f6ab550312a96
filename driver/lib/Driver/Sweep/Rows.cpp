//===- Rows.cpp - results.csv ---------------------------------------------===//
//
// The rows of a sweep: its columns (the inputs, status and reason, every
// report key each report has, the published accuracy), rows read back (a
// row cut short by a kill dropped), and the row of a finished point.
//
//===----------------------------------------------------------------------===//

#include "SweepInternal.h"

#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Driver/Context.h"
#include "snapflow/Driver/Csv.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Models/ModelConfig.h"
#include "snapflow/Sim/Stats/ReportSchema.h"
#include "snapflow/Support/Input.h"

#include "snapflow/Support/Output.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>
#include <optional>

#include <sys/wait.h>

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::driver::sweep;
using llvm::Error;
using llvm::formatv;
using llvm::StringRef;

std::string sweep::flagOf(StringRef column) {
  for (const SweepAxisInfo &a : sweepAxes())
    if (column == a.column)
      return a.flag;
  return column.str();
}

std::string sweep::identityKey(llvm::ArrayRef<std::string> inputsWithoutIndex) {
  return llvm::join(inputsWithoutIndex, "\x1f");
}

std::string sweep::lookup(const llvm::json::Object &report, StringRef key) {
  auto [head, rest] = key.split('.');
  const llvm::json::Value *v = report.get(head);
  if (!v)
    return "";
  if (!rest.empty()) {
    const llvm::json::Object *o = v->getAsObject();
    return o ? lookup(*o, rest) : "";
  }
  if (v->kind() == llvm::json::Value::Null)
    return "";
  if (auto s = v->getAsString())
    return s->str();
  if (auto i = v->getAsInteger())
    return std::to_string(*i);
  if (auto d = v->getAsNumber())
    return csv::number(*d);
  if (auto b = v->getAsBoolean())
    return *b ? "true" : "false";
  return "";
}

std::string sweep::csvLine(llvm::ArrayRef<std::string> fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i)
    line += (i ? "," : "") + csv::field(fields[i]);
  return line;
}

Error sweep::writeRows(StringRef path,
                       const std::vector<std::vector<std::string>> &rows) {
  return writeOutput(path, [&](llvm::raw_ostream &os) {
    os << csvLine(sweepColumns()) << "\n";
    for (const auto &r : rows)
      os << csvLine(r) << "\n";
    return Error::success();
  });
}

std::string sweep::pathIn(StringRef dir, StringRef name) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, name);
  return std::string(p);
}

std::string sweep::describeValues(const std::vector<std::string> &values) {
  std::vector<std::string> shown;
  for (const std::string &v : values)
    shown.push_back(v.empty() ? "(default)" : v);
  return llvm::join(shown, ",");
}

const char *const snapflow::driver::kServeSweepKeys[] = {
    "snapflow",
    "model_fingerprint",
    "chip_fingerprint",
    "requests_count",
    "slots",
    "makespan_s",
    "throughput_tokens_per_s",
    "requests_per_s",
    "ttft_s.p50",
    "ttft_s.p99",
    "tpot_s.p50",
    "tpot_s.p99",
    "e2e_s.p50",
    "e2e_s.p99",
    "decode_slot_utilization",
    "load.ratio",
    "load.overloaded",
    "slo.attainment.ttft",
    "slo.attainment.tpot",
    "slo.attainment.both",
    "slo.goodput_requests_per_s",
    "slo.met",
    "cluster.kv_transfer.bytes_per_request",
    "energy.joules_per_request",
    "energy.joules_per_output_token",
    "energy.average_power_w",
};
const size_t snapflow::driver::kNumServeSweepKeys =
    sizeof(kServeSweepKeys) / sizeof(kServeSweepKeys[0]);

const std::vector<std::string> &snapflow::driver::sweepColumns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> c = {"index"};
    for (const SweepAxisInfo &a : sweepAxes())
      c.push_back(a.column);
    c.push_back("status");
    c.push_back("reason");
    for (const sim::ReportKey &k : sim::reportSchema())
      if (k.presence == sim::ReportPresence::Always && !k.list)
        c.push_back(std::string("report.") + k.key);
    for (size_t k = 0; k < kNumServeSweepKeys; ++k)
      c.push_back(std::string("serve.") + kServeSweepKeys[k]);
    c.push_back("accuracy.loss_pct");
    c.push_back("accuracy.reference");
    return c;
  }();
  return columns;
}

llvm::Expected<std::map<std::string, std::vector<std::string>>>
snapflow::driver::readSweepRows(StringRef path) {
  std::map<std::string, std::vector<std::string>> rows;
  if (!llvm::sys::fs::exists(path))
    return rows; // no file yet
  auto buffer = readInput(path, kDataFileLimit, "a sweep's rows");
  if (!buffer)
    return makeError(path + ": " + llvm::toString(buffer.takeError()));
  StringRef text = (*buffer)->getBuffer();
  std::string header = csvLine(sweepColumns());
  size_t columns = sweepColumns().size();
  bool first = true;
  int line = 0;
  // A file a spreadsheet saved back (a byte order mark, CRLF line ends)
  // holds the same rows; it was "not this snapflow's" (R19). The sweep
  // writes it back in its own form when the grid completes.
  text.consume_front("\xEF\xBB\xBF");
  while (!text.empty()) {
    size_t eol = text.find('\n');
    if (eol == StringRef::npos)
      break; // unterminated: written when the sweep was killed
    StringRef l = text.take_front(eol);
    l.consume_back("\r");
    text = text.drop_front(eol + 1);
    ++line;
    if (first) {
      if (l != header)
        return makeError(path + ":1: its columns are not this snapflow's; "
                                "start a new sweep directory");
      first = false;
      continue;
    }
    std::vector<std::string> cols = csv::split(l);
    int64_t index;
    if (cols.size() != columns || StringRef(cols[0]).getAsInteger(10, index))
      return makeError(formatv("{0}:{1}: a malformed row ({2} fields, "
                               "expected {3}); was the file edited?",
                               path, line, cols.size(), columns));
    std::string key = identityKey(llvm::ArrayRef(cols).slice(1, kSweepAxes));
    if (!rows.emplace(key, std::move(cols)).second)
      return makeError(formatv("{0}:{1}: the point of this row is already "
                               "on an earlier line",
                               path, line));
  }
  return rows;
}

namespace {

/// The published accuracy effect of a point's KV policy and format, quoted
/// (never simulated): of the published rows of the policy at the share of
/// the KV the point removes (a row's "25% removed" or "4x"; a row given as
/// a budget in tokens names no share and is not matched) and of the
/// format at the point's bits ("2 bits"), the largest loss relative to its
/// uncompressed score, in percent, and that row with its source. Empty and
/// "uncompressed" for full KV in bf16; empty and "no published row ..."
/// when nothing matches.
std::pair<std::string, std::string>
publishedAccuracy(const SweepPoint &p, const llvm::json::Object &report) {
  mlir::MLIRContext &context = driverContext();
  static std::map<std::string, int64_t> perPosition; // model -> tokens
  std::string label = report.getString("kv").value_or("").str();
  std::string format = report.getString("kv_format").value_or("").str();
  auto contextTokens = report.getInteger("context_tokens");
  if (label.empty() || !contextTokens)
    return {"", ""};
  auto per = perPosition.find(p.model);
  if (per == perPosition.end()) {
    auto c = models::ModelConfig::load(p.model);
    int64_t tokens = c ? c->tokensPerCachePosition() : 1;
    if (!c)
      llvm::consumeError(c.takeError());
    per = perPosition.emplace(p.model, tokens).first;
  }
  int64_t positions = (*contextTokens + per->second - 1) / per->second;
  auto policy = kv::parsePolicy(&context, label);
  if (!policy) {
    llvm::consumeError(policy.takeError());
    return {"", ""};
  }
  double kept = std::min(1.0, double(policy->getSlotsFor(positions)) /
                                  double(std::max<int64_t>(1, positions)));
  double removed = 100 * (1 - kept);
  // The share a row's setting names, in percent removed.
  auto shareOf = [](StringRef setting) -> std::optional<double> {
    llvm::SmallVector<StringRef> words;
    setting.split(words, ' ', -1, false);
    for (size_t i = 0; i < words.size(); ++i) {
      StringRef w = words[i].rtrim(',');
      double v;
      if (w.ends_with("%") && !w.drop_back().getAsDouble(v) &&
          i + 1 < words.size() && words[i + 1].starts_with("removed"))
        return v;
      if (w.ends_with("x") && !w.drop_back().getAsDouble(v) && v >= 1)
        return 100 * (1 - 1 / v);
    }
    return std::nullopt;
  };
  const kv::PublishedAccuracy *worst = nullptr;
  double worstLoss = 0;
  auto consider = [&](const kv::PublishedAccuracy &r) {
    double loss = r.full > 0 ? 100 * (r.full - r.score) / r.full : 0;
    if (!worst || loss > worstLoss)
      worst = &r, worstLoss = loss;
  };
  bool compressing = policy->isCompressing() && removed > 0.5;
  const kv::PublishedAccuracy *policyRow = nullptr, *formatRow = nullptr;
  if (compressing)
    for (const kv::PublishedAccuracy &r : policy->getPublishedAccuracy())
      if (auto share = shareOf(r.setting);
          share && std::abs(*share - removed) < 1) {
        consider(r);
        policyRow = &r;
      }
  bool quantized = !format.empty() && format != "bf16";
  int64_t bits = 0;
  if (quantized) {
    if (auto f = kv::parseFormat(&context, format)) {
      size_t at = format.find("bits=");
      if (at != std::string::npos)
        StringRef(format).substr(at + 5).consumeInteger(10, bits);
      for (const kv::PublishedAccuracy &r : f->getPublishedAccuracy())
        if (bits > 0 &&
            StringRef(r.setting).starts_with(std::to_string(bits) + " bits")) {
          consider(r);
          formatRow = &r;
        }
    } else {
      llvm::consumeError(f.takeError());
    }
  }
  if (!compressing && !quantized)
    return {"0.00", "uncompressed"};
  // A number only when every part of the compression has a published row:
  // a point whose policy has none is not bounded by its format's.
  bool policyMissing = compressing && !policyRow,
       formatMissing = quantized && !formatRow;
  if (policyMissing || formatMissing)
    return {"", formatv("no published row of {0}{1}{2}",
                        policyMissing
                            ? formatv("{0} at {1:f0}% removed",
                                      label.substr(0, label.find(':')), removed)
                                  .str()
                            : std::string(),
                        policyMissing && formatMissing ? " or of " : "",
                        formatMissing ? format : std::string())
                    .str()};
  // With a policy and a format, the larger of their published losses: the
  // two together were not published, so it is what is known, not a bound.
  return {
      formatv("{0:f2}", worstLoss).str(),
      formatv("{0}{1}, {2}, {3}: {4} against {5} uncompressed ({6})",
              compressing && quantized ? "larger of policy and format: " : "",
              worst->benchmark, worst->model, worst->setting, worst->score,
              worst->full, worst->source)
          .str()};
}

} // namespace

std::vector<std::string> sweep::makeRow(const SweepPoint &p, StringRef status,
                                        StringRef reason,
                                        const llvm::json::Object &report) {
  std::vector<std::string> row = p.inputs();
  row.push_back(status.str());
  // One line: a reason becomes one CSV field.
  std::string oneLine = reason.trim().str();
  std::replace(oneLine.begin(), oneLine.end(), '\n', ' ');
  row.push_back(oneLine);
  // A serving report (it names its serve_options) fills the serve.*
  // columns, a simulation report the report.* ones.
  const bool served = report.get("serve_options") != nullptr;
  const std::vector<std::string> &columns = sweepColumns();
  for (size_t i = kReasonColumn + 1; i < columns.size(); ++i) {
    StringRef column = columns[i];
    if (column.consume_front("report."))
      row.push_back(served ? "" : lookup(report, column));
    else if (column.consume_front("serve."))
      row.push_back(served ? lookup(report, column) : "");
  }
  auto [loss, reference] = publishedAccuracy(p, report);
  if (status != "ok")
    loss.clear(), reference.clear();
  row.push_back(loss);
  row.push_back(reference);
  return row;
}

std::vector<std::string> sweep::childRow(const Running &c, int status) {
  llvm::json::Object report;
  auto readText = [](StringRef path) {
    auto b = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    return b ? (*b)->getBuffer().trim().str() : std::string();
  };
  std::string stderrText = readText(c.err);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    auto buffer = llvm::MemoryBuffer::getFile(c.report);
    auto parsed = buffer ? llvm::json::parse((*buffer)->getBuffer())
                         : llvm::Expected<llvm::json::Value>(
                               makeError("the point wrote no report"));
    if (!parsed)
      return makeRow(c.point, "error", llvm::toString(parsed.takeError()),
                     report);
    if (!parsed->getAsObject())
      return makeRow(c.point, "error", "malformed report", report);
    return makeRow(c.point, "ok", "", *parsed->getAsObject());
  }
  if (WIFEXITED(status))
    return makeRow(c.point, WEXITSTATUS(status) == 2 ? "failed" : "error",
                   stderrText.empty()
                       ? formatv("exit code {0}", WEXITSTATUS(status)).str()
                       : stderrText,
                   report);
  std::string why = formatv("the simulation was killed by signal {0} ({1})",
                            WTERMSIG(status), ::strsignal(WTERMSIG(status)))
                        .str();
  if (!stderrText.empty())
    why += ": " + stderrText;
  return makeRow(c.point, "error", why, report);
}
