//===- Sweep.cpp - snapflow sweep ------------------------------------------===//
//
// A grid of `snapflow run` points run in worker processes (SystemC allows one
// simulation per process). Each finished point becomes one row of
// DIR/results.csv at once, so nothing computed is lost; `--resume` skips the
// points already there (a row cut short by a kill is dropped and rerun);
// `--shard i/N` runs every N-th point and `sweep merge` joins shards. When the
// grid is done the rows are put in grid order, so a resumed or merged sweep
// gives the same file as one uninterrupted run (up to the wall-clock
// columns), and the plots and summary are drawn.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "Csv.h"

#include "snapflow/Dialect/KV/IR/KVOps.h"

#include "mlir/IR/MLIRContext.h"
#include "snapflow/Support/CheckedInt.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <charconv>
#include <chrono>
#include <map>
#include <set>

using namespace snapflow;
using namespace snapflow::tools;
using llvm::Error;
using llvm::StringRef;

namespace {

/// Inputs of a point, in CSV order.
const char *const kInputColumns[] = {"index",  "model", "chip",
                                     "context", "batch", "kv",
                                     "tp",     "weights_dtype"};
/// Report keys (dotted = nested), in CSV order. tests/Tools/sweep.test checks
/// that a real report has no key missing here.
const char *const kReportColumns[] = {
    "batch",
    "breakdown.collective_s",
    "breakdown.compute_s",
    "breakdown.memory_s",
    "breakdown.network_s",
    "breakdown.reconfig_s",
    "chip",
    "chip_fingerprint",
    "context_tokens",
    "iterations_fast_forwarded",
    "iterations_simulated",
    "kv_cache_bytes_per_socket",
    "memory.peak_bytes.ddr",
    "memory.peak_bytes.hbm",
    "memory.peak_bytes.sram",
    "per_user_tokens_per_s",
    "program",
    "roofline.binding",
    "roofline.compute_s",
    "roofline.ddr_s",
    "roofline.hbm_s",
    "roofline.link_s",
    "roofline.sram_s",
    "roofline.step_latency_lower_bound_s",
    "roofline_efficiency",
    "simulated_cycles",
    "step_latency_s",
    "steps",
    "steps_simulated",
    "throughput_tokens_per_s",
    "tiles_moved",
    "tiles_per_wall_second",
    "tokens_per_step",
    "tp",
    "ttft_s",
    "utilization.ddr",
    "utilization.hbm",
    "utilization.link",
    "utilization.pcu",
    "wall_time_s",
};
const char *const kStatusColumns[] = {"status", "reason"};

std::string header() {
  std::vector<std::string> cols;
  for (const char *c : kInputColumns)
    cols.push_back(c);
  for (const char *c : kStatusColumns)
    cols.push_back(c);
  for (const char *c : kReportColumns)
    cols.push_back(std::string("report.") + c);
  return llvm::join(cols, ",");
}
size_t columnCount() {
  return std::size(kInputColumns) + std::size(kStatusColumns) +
         std::size(kReportColumns);
}

/// The value at a dotted key of a report, as CSV text.
std::string lookup(const llvm::json::Object &report, StringRef key) {
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
  if (auto d = v->getAsNumber()) {
    // The shortest text that reads back to the same double.
    char buf[64];
    auto end = std::to_chars(buf, buf + sizeof(buf), *d).ptr;
    return std::string(buf, end);
  }
  if (auto b = v->getAsBoolean())
    return *b ? "true" : "false";
  return "";
}

/// Splits a comma list; for KV policies a `key=value` item continues the
/// policy before it (`full,snapstream:budget=8,sinks=4` is two policies).
std::vector<std::string> splitList(StringRef text, bool policies) {
  llvm::SmallVector<StringRef> parts;
  text.split(parts, ',', -1, /*KeepEmpty=*/false);
  std::vector<std::string> out;
  for (StringRef p : parts) {
    p = p.trim();
    if (policies && !out.empty() && p.contains('=') && !p.contains(':'))
      out.back() += "," + p.str();
    else
      out.push_back(p.str());
  }
  return out;
}

/// "8k" -> 8192, "128K" -> 131072, "4096" -> 4096.
llvm::Expected<int64_t> parseTokens(StringRef s) {
  int64_t scale = 1;
  if (s.ends_with_insensitive("k")) {
    scale = 1024;
    s = s.drop_back();
  }
  int64_t n;
  if (s.getAsInteger(10, n) || n <= 0)
    return makeError("--context: expected a positive number like 8192 or 8k, "
                     "got '" +
                     s + "'");
  std::optional<int64_t> tokens = (CheckedInt(n) * scale).get();
  if (!tokens)
    return makeError("--context: '" + s + "k' tokens exceeds a 64-bit count");
  return *tokens;
}

struct Point {
  int64_t index = 0;
  std::string model, chip, batch, kv, dtype;
  int64_t context = 0, tp = 0;

  std::vector<std::string> inputs() const {
    return {std::to_string(index), model, chip,
            std::to_string(context), batch, kv,
            std::to_string(tp), dtype};
  }
};

/// Reads the complete rows of a results file (index -> row); a last row cut
/// short by a kill, or any malformed row, is dropped.
llvm::Expected<std::map<int64_t, std::string>> readRows(StringRef path) {
  std::map<int64_t, std::string> rows;
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return rows; // no file yet
  StringRef text = (*buffer)->getBuffer();
  bool first = true;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    if (eol == StringRef::npos)
      break; // unterminated: written when the sweep was killed
    StringRef line = text.take_front(eol);
    text = text.drop_front(eol + 1);
    if (first) {
      if (line != header())
        return makeError(path + ": its columns are not this snapflow's; "
                                "start a new sweep directory");
      first = false;
      continue;
    }
    std::vector<std::string> cols = csv::split(line);
    int64_t index;
    if (cols.size() != columnCount() ||
        StringRef(cols[0]).getAsInteger(10, index))
      continue;
    rows[index] = line.str();
  }
  return rows;
}

Error writeRows(StringRef path, const std::map<int64_t, std::string> &rows) {
  return llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    os << header() << "\n";
    for (const auto &r : rows)
      os << r.second << "\n";
    return Error::success();
  });
}

} // namespace

Error snapflow::tools::runSweep(const SweepOptions &o, const char *argv0,
                                llvm::raw_ostream &os) {
  if (o.outputDir.empty())
    return makeError("sweep needs -o DIR for its results");
  // The grid, validated before any point runs.
  std::vector<std::string> models = splitList(o.models, false),
                           chips = splitList(o.chips, false),
                           batches = splitList(o.batches, false),
                           policies = splitList(o.kv, true),
                           dtypes = splitList(o.weightsDtypes, false);
  std::vector<int64_t> contexts, tps;
  for (const std::string &c : splitList(o.contexts, false)) {
    auto n = parseTokens(c);
    if (!n)
      return n.takeError();
    contexts.push_back(*n);
  }
  for (const std::string &t : splitList(o.tps, false)) {
    int64_t n;
    if (StringRef(t).getAsInteger(10, n) || n < 1)
      return makeError("--tp: expected positive numbers, got '" + t + "'");
    tps.push_back(n);
  }
  if (dtypes.empty())
    dtypes.push_back("");
  if (tps.empty())
    tps.push_back(0);
  for (const std::string &m : models)
    if (auto c = models::ModelConfig::load(m); !c)
      return c.takeError();
  for (const std::string &c : chips)
    if (auto a = arch::ArchModel::load(c); !a)
      return a.takeError();
  {
    mlir::MLIRContext context;
    for (const std::string &p : policies)
      if (auto s = kv::parsePolicy(&context, p); !s)
        return s.takeError();
  }
  for (const std::string &b : batches) {
    int64_t n;
    if (b != "max" && (StringRef(b).getAsInteger(10, n) || n <= 0))
      return makeError("--batch: expected positive numbers or max, got '" + b +
                       "'");
  }
  for (const std::string &d : dtypes)
    if (!d.empty() && d != "bf16" && d != "fp8")
      return makeError("--weights-dtype: expected bf16 or fp8, got '" + d +
                       "'");
  if (models.empty() || chips.empty() || contexts.empty() ||
      batches.empty() || policies.empty())
    return makeError("sweep needs at least one --model, --chip, --context, "
                     "--batch and --kv");
  if (o.shardCount < 1 || o.shardIndex < 0 || o.shardIndex >= o.shardCount)
    return makeError(llvm::formatv("--shard: expected i/N with 0 <= i < N, "
                                   "got {0}/{1}",
                                   o.shardIndex, o.shardCount));

  std::vector<Point> grid;
  for (const std::string &m : models)
    for (const std::string &c : chips)
      for (int64_t ctx : contexts)
        for (const std::string &b : batches)
          for (const std::string &p : policies)
            for (int64_t tp : tps)
              for (const std::string &d : dtypes) {
                Point pt{static_cast<int64_t>(grid.size()), m, c, b, p, d,
                         ctx, tp};
                grid.push_back(pt);
              }
  std::vector<Point> mine;
  for (const Point &p : grid)
    if (p.index % o.shardCount == o.shardIndex)
      mine.push_back(p);

  // The results file: new, or resumed.
  llvm::SmallString<256> results(o.outputDir), points(o.outputDir);
  llvm::sys::path::append(results, "results.csv");
  llvm::sys::path::append(points, "points");
  if (std::error_code ec = llvm::sys::fs::create_directories(points))
    return makeError("cannot create " + points + ": " + ec.message());
  bool exists = llvm::sys::fs::exists(results);
  if (exists && !o.resume)
    return makeError(results + " exists; add --resume to continue that "
                               "sweep, or choose another -o");
  auto done = readRows(results);
  if (!done)
    return done.takeError();
  // Rewrite the file with its complete rows only (drops a cut-off row).
  if (Error e = writeRows(results, *done))
    return e;
  std::vector<Point> todo;
  for (const Point &p : mine)
    if (!done->count(p.index))
      todo.push_back(p);

  std::error_code ec;
  llvm::raw_fd_ostream resultsFile(results, ec, llvm::sys::fs::OF_Append);
  if (ec)
    return makeError("cannot append to " + results + ": " + ec.message());

  std::string exe = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&runSweep));
  bool tty = llvm::sys::Process::StandardOutIsDisplayed();
  size_t total = todo.size(), finished = 0, failed = 0;
  os << llvm::formatv("sweep: {0} points, {1} in this shard, {2} already done, "
                      "{3} to run with -j {4}\n",
                      grid.size(), mine.size(), mine.size() - todo.size(),
                      total, o.jobs);
  os.flush();
  auto start = std::chrono::steady_clock::now();

  struct Running {
    Point point;
    llvm::sys::ProcessInfo process;
    std::string report, err;
  };
  std::vector<Running> running;
  size_t next = 0;
  auto launch = [&](const Point &p) -> Error {
    Running r;
    r.point = p;
    r.report = (points + "/" + std::to_string(p.index) + ".json").str();
    r.err = (points + "/" + std::to_string(p.index) + ".err").str();
    std::vector<std::string> args = {
        exe, "run", "--model", p.model, "--chip", p.chip,
        "--context", std::to_string(p.context), "--batch", p.batch,
        "--kv", p.kv,
        "--steps", std::to_string(o.steps), "--no-prefill",
        "--report", r.report};
    if (p.tp > 0) { // 0: every socket of the chip, the worker's default
      args.push_back("--tp");
      args.push_back(std::to_string(p.tp));
    }
    if (!p.dtype.empty()) {
      args.push_back("--weights-dtype");
      args.push_back(p.dtype);
    }
    std::vector<StringRef> argv(args.begin(), args.end());
    std::optional<StringRef> redirects[] = {StringRef(""), StringRef(""),
                                            StringRef(r.err)};
    std::string message;
    llvm::sys::fs::remove(r.report);
    r.process = llvm::sys::ExecuteNoWait(exe, argv, std::nullopt, redirects, 0,
                                         &message);
    if (r.process.Pid == llvm::sys::ProcessInfo::InvalidPid)
      return makeError("cannot start a worker: " + message);
    running.push_back(std::move(r));
    return Error::success();
  };
  auto record = [&](Running &r, int code) {
    std::vector<std::string> row = r.point.inputs();
    std::string status = "ok", reason;
    llvm::json::Object report;
    if (code == 0) {
      auto buffer = llvm::MemoryBuffer::getFile(r.report);
      auto parsed = buffer ? llvm::json::parse((*buffer)->getBuffer())
                           : llvm::Expected<llvm::json::Value>(
                                 makeError("no report"));
      if (parsed && parsed->getAsObject())
        report = std::move(*parsed->getAsObject());
      else {
        status = "error";
        reason = parsed ? "malformed report" : llvm::toString(parsed.takeError());
      }
    } else {
      status = code == 2 ? "failed" : "error";
      auto err = llvm::MemoryBuffer::getFile(r.err);
      reason = err ? StringRef((*err)->getBuffer()).trim().str()
                   : "exit code " + std::to_string(code);
      ++failed;
    }
    row.push_back(status);
    row.push_back(reason);
    for (const char *key : kReportColumns)
      row.push_back(lookup(report, key));
    std::string line;
    for (size_t i = 0; i < row.size(); ++i)
      line += (i ? "," : "") + csv::field(row[i]);
    // One write per row, flushed: a kill leaves whole rows and at most one
    // unterminated tail, which --resume drops.
    resultsFile << line << "\n";
    resultsFile.flush();
    ++finished;
    double elapsed = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    double eta = finished ? elapsed / finished * (total - finished) : 0;
    if (tty) {
      int width = 30;
      int filled = total ? static_cast<int>(width * finished / total) : width;
      os << "\r[" << std::string(filled, '=') << std::string(width - filled, ' ')
         << llvm::formatv("] {0}/{1}  {2} failed  ETA {3:f0} s   ", finished,
                          total, failed, eta);
    } else {
      os << llvm::formatv("point {0} ({1}/{2}): {3} {4} context {5} batch {6} "
                          "--kv {7}: {8}{9}; ETA {10:f0} s\n",
                          r.point.index, finished, total, r.point.model,
                          r.point.chip, r.point.context, r.point.batch,
                          r.point.kv, status,
                          status == "ok"
                              ? llvm::formatv(
                                    " {0:f1} tokens/s",
                                    report.getNumber("throughput_tokens_per_s")
                                        .value_or(0))
                                    .str()
                              : "",
                          eta);
    }
    os.flush();
  };

  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() &&
           running.size() < static_cast<size_t>(std::max<int64_t>(1, o.jobs)))
      if (Error e = launch(todo[next++]))
        return e;
    bool progressed = false;
    // Poll each without blocking.
    for (size_t i = 0; i < running.size(); ++i) {
      std::string message;
      llvm::sys::ProcessInfo info =
          llvm::sys::Wait(running[i].process, /*SecondsToWait=*/0, &message);
      if (info.Pid == 0)
        continue; // still running
      record(running[i], info.ReturnCode);
      running.erase(running.begin() + i);
      progressed = true;
      break;
    }
    if (progressed)
      continue;
    // None done: block on the oldest (points take similar times).
    std::string message;
    llvm::sys::ProcessInfo info = llvm::sys::Wait(
        running.front().process, /*SecondsToWait=*/std::nullopt, &message);
    record(running.front(), info.ReturnCode);
    running.erase(running.begin());
  }
  if (tty)
    os << "\n";
  resultsFile.close();

  // Grid order, whatever order the points finished in.
  auto rows = readRows(results);
  if (!rows)
    return rows.takeError();
  if (Error e = writeRows(results, *rows))
    return e;
  os << llvm::formatv("sweep: {0} rows in {1} ({2} failed in this run)\n",
                      rows->size(), results, failed);
  if (rows->size() == grid.size() || o.shardCount == 1)
    if (Error e = drawSweep(o.outputDir, os))
      return e;
  return Error::success();
}

Error snapflow::tools::runSweepMerge(const std::vector<std::string> &dirs,
                                     const std::string &outputDir,
                                     llvm::raw_ostream &os) {
  if (dirs.empty() || outputDir.empty())
    return makeError("usage: snapflow sweep merge DIR... -o OUT");
  std::map<int64_t, std::string> merged;
  for (const std::string &d : dirs) {
    llvm::SmallString<256> path(d);
    llvm::sys::path::append(path, "results.csv");
    if (!llvm::sys::fs::exists(path))
      return makeError(path + ": no such file");
    auto rows = readRows(path);
    if (!rows)
      return rows.takeError();
    for (auto &r : *rows)
      if (!merged.emplace(r.first, r.second).second)
        return makeError(llvm::formatv("point {0} is in more than one shard "
                                       "({1})",
                                       r.first, path));
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return makeError("cannot create " + outputDir + ": " + ec.message());
  llvm::SmallString<256> out(outputDir);
  llvm::sys::path::append(out, "results.csv");
  if (Error e = writeRows(out, merged))
    return e;
  os << llvm::formatv("merged {0} rows from {1} shards into {2}\n",
                      merged.size(), dirs.size(), out);
  return drawSweep(outputDir, os);
}
