//===- Simulate.cpp - snapflow simulate and snapflow run -------------------===//
//
// `simulate` loads a df program (the compiler's output), refuses one that
// does not fit its chip, runs the SystemC model and writes the report, the
// Perfetto trace and the memory CSV. `run` compiles (decode at the requested
// batch, prefill of one prompt for the time to first token) and simulates
// in the same process; the df text is the hand-off, as between the commands.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"
#include "snapflow/Mapping/Passes.h"
#include "snapflow/Models/ModelBuilder.h"
#include "snapflow/Pipelines/Pipelines.h"
#include "snapflow/Sim/Core/Simulator.h"
#include "snapflow/Sim/Loader/Loader.h"
#include "snapflow/Sim/Stats/Report.h"
#include "snapflow/Sim/Trace/Trace.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>

using namespace snapflow;
using namespace snapflow::tools;
using llvm::Error;

Error snapflow::tools::checkFits(const sim::Program &p, const arch::ArchModel &chip) {
  for (arch::MemoryTier tier : arch::kAllTiers) {
    double need = double(p.tensorBytes(tier));
    double cap = double(chip.tierBytesPerSocket(tier));
    if (tier != arch::MemoryTier::SRAM && need > cap)
      return llvm::make_error<ProgramFailure>(llvm::formatv(
          "{0} batch {1} context {2} needs {3:f1} GiB {4} per socket; {5} "
          "has {6:f1} GiB",
          p.phase, p.batch, p.tokens, gib(need),
          llvm::StringRef(arch::tierName(tier)).upper(), chip.getName(),
          gib(cap)));
  }
  return Error::success();
}

namespace {
Error simulateAndReport(const sim::Program &decode,
                        const sim::Program *prefill,
                        const arch::ArchModel &chip,
                        const SimulateOptions &o, llvm::raw_ostream &os) {
  // The program runs on the chip it was compiled for, unless the caller
  // asked for a what-if (then the report names both).
  bool whatIf = !decode.target.differences(chip).empty() ||
                decode.target.getName() != chip.getName();
  if (Error e = checkFits(decode, chip))
    return e;
  if (prefill)
    if (Error e = checkFits(*prefill, chip))
      return e;
  if (o.steps < 1)
    return makeError(llvm::formatv("--steps must be >= 1, got {0}", o.steps));
  std::vector<sim::Job> jobs;
  std::vector<const sim::Program *> programs;
  if (prefill) {
    jobs.push_back({prefill, 1});
    programs.push_back(prefill);
  }
  jobs.push_back({&decode, o.steps});
  programs.push_back(&decode);
  sim::SimOptions so;
  so.fastForward = o.fastForward;
  so.allSockets = o.allSockets;
  so.trace = !o.tracePath.empty() || !o.csvPath.empty();
  auto start = std::chrono::steady_clock::now();
  sim::SimResult result = sim::simulate(jobs, chip, so);
  double wall = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  if (result.deadlocked)
    return llvm::make_error<ProgramFailure>(decode.name + ": " +
                                            result.deadlock);
  llvm::json::Object report =
      sim::makeReport(result, decode, prefill, chip, wall);
  if (whatIf) {
    report["what_if"] = true;
    report["compiled_for"] = decode.target.getName();
    report["compiled_for_fingerprint"] = decode.target.fingerprint();
  }
  if (!o.reportPath.empty())
    if (Error e = llvm::writeToOutput(o.reportPath, [&](llvm::raw_ostream &f) {
          f << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object(report)))
            << "\n";
          return Error::success();
        }))
      return e;
  if (!o.tracePath.empty())
    if (Error e = sim::writeChromeTrace(o.tracePath, result, programs, chip))
      return e;
  if (!o.csvPath.empty())
    if (Error e = sim::writeMemoryCsv(o.csvPath, result))
      return e;
  if (whatIf)
    os << llvm::formatv("what-if: compiled for {0} ({1}), simulated on {2} "
                        "({3})\n",
                        decode.target.getName(), decode.target.fingerprint(),
                        chip.getName(), chip.fingerprint());
  sim::printSummary(os, report);
  return Error::success();
}

/// The chip to simulate `program` on: its own target, checked against
/// `--chip` when given; another chip only as a named what-if
/// (`--what-if-chip`), which must keep the socket count the program spans.
llvm::Expected<arch::ArchModel> simulationChip(const sim::Program &program,
                                               const std::string &path,
                                               const SimulateOptions &o) {
  const arch::ArchModel &target = program.target;
  auto describe = [](const arch::ArchModel &c) {
    return llvm::formatv("'{0}' ({1}, {2} socket(s))", c.getName(),
                         c.fingerprint(), c.numSockets())
        .str();
  };
  if (!o.chip.empty()) {
    auto chip = arch::ArchModel::load(o.chip);
    if (!chip)
      return chip.takeError();
    std::vector<std::string> diff = target.differences(*chip);
    if (!diff.empty())
      return makeError(llvm::formatv(
          "{0} was compiled for {1}, not --chip {2}; they differ in {3}. "
          "To run it on another chip as a what-if, use --what-if-chip {4}",
          path, describe(target), describe(*chip), llvm::join(diff, ", "),
          o.chip));
  }
  if (o.whatIfChip.empty())
    return target;
  auto chip = arch::ArchModel::load(o.whatIfChip);
  if (!chip)
    return chip.takeError();
  if (chip->numSockets() < program.tp)
    return makeError(llvm::formatv(
        "--what-if-chip: {0} spans {1} socket(s) of {2}; {3} cannot run it. "
        "A program over fewer sockets needs a new compile (snapflow compile "
        "--chip {4})",
        path, program.tp, describe(target), describe(*chip), o.whatIfChip));
  return std::move(*chip);
}
} // namespace

Error snapflow::tools::runSimulate(const std::string &path,
                                   const SimulateOptions &o,
                                   llvm::raw_ostream &os) {
  auto decode = sim::loadProgram(path, "");
  if (!decode)
    return decode.takeError();
  std::optional<sim::Program> prefill;
  if (decode->name != "prefill") {
    auto p = sim::loadProgram(path, "prefill");
    if (p)
      prefill = std::move(*p);
    else
      llvm::consumeError(p.takeError()); // the file has no prefill program
  }
  auto chip = simulationChip(*decode, path, o);
  if (!chip)
    return chip.takeError();
  return simulateAndReport(*decode, prefill ? &*prefill : nullptr, *chip, o,
                           os);
}


llvm::Expected<int64_t>
snapflow::tools::findMaxBatch(const Workload &w, const WorkloadOptions &o,
                              const CompileOptions &c) {
  // The plan at batch 1 estimates the largest batch (KV and activations
  // per sequence); spilling whole activation tensors can make the estimate
  // a little high, so it is checked, and on a miss the largest batch that
  // fits is found by bisection (the need grows with the batch).
  int64_t estimate = 0;
  auto probe = compileToDataflowText(w, o, c, 1, /*prefill=*/false, estimate);
  if (!probe)
    return probe.takeError();
  if (estimate < 1)
    return llvm::make_error<ProgramFailure>(
        w.config.name + ": not even batch 1 fits " + w.chip.getName());
  auto fitsAt = [&](int64_t batch) -> llvm::Expected<bool> {
    int64_t ignored = 0;
    auto text = compileToDataflowText(w, o, c, batch, false, ignored);
    if (text)
      return true;
    Error e = text.takeError();
    if (!e.isA<ProgramFailure>())
      return std::move(e);
    llvm::consumeError(std::move(e));
    return false;
  };
  auto top = fitsAt(estimate);
  if (!top)
    return top.takeError();
  if (*top)
    return estimate;
  int64_t lo = 1, hi = estimate; // lo fits, hi does not
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    auto ok = fitsAt(mid);
    if (!ok)
      return ok.takeError();
    (*ok ? lo : hi) = mid;
  }
  return lo;
}

Error snapflow::tools::runRun(const WorkloadOptions &o, bool maxBatch,
                              const CompileOptions &c,
                              const SimulateOptions &s,
                              llvm::raw_ostream &os) {
  auto w = resolveWorkload(o, /*needChip=*/true);
  if (!w)
    return w.takeError();
  int64_t batch = o.batch, fits = 0;
  if (maxBatch) {
    auto largest = findMaxBatch(*w, o, c);
    if (!largest)
      return largest.takeError();
    batch = *largest;
    os << llvm::formatv("largest batch that fits: {0}\n", batch);
    // The simulation below reports the batch it ran.
  }
  auto decodeText = compileToDataflowText(*w, o, c, batch, /*prefill=*/false, fits);
  if (!decodeText)
    return decodeText.takeError();
  auto decode = sim::parseProgram(*decodeText, "<decode>", "decode");
  if (!decode)
    return decode.takeError();
  // Time to first token: one prompt of --context tokens.
  std::optional<sim::Program> prefill;
  if (s.withPrefill) {
    int64_t ignored = 0;
    auto prefillText = compileToDataflowText(*w, o, c, 1, /*prefill=*/true, ignored);
    if (!prefillText) {
      // A whole-prompt prefill may not fit where decode does (its
      // activations grow with the prompt); decode is still worth running.
      // Any other failure is an error.
      Error e = prefillText.takeError();
      if (!e.isA<ProgramFailure>())
        return e;
      std::string why = llvm::toString(std::move(e));
      os << "note: no TTFT: the prefill of one " << o.context
         << "-token prompt does not fit: " << why << "\n";
    } else {
      auto p = sim::parseProgram(*prefillText, "<prefill>", "prefill");
      if (!p)
        return p.takeError();
      prefill = std::move(*p);
    }
  }
  // The chip the program records, which is the one just compiled for.
  return simulateAndReport(*decode, prefill ? &*prefill : nullptr,
                           decode->target, s, os);
}
