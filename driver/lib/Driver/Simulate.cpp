//===- Simulate.cpp - Running df programs on the SystemC model
//-------------===//
//
// `simulate` loads a df program (the compiler's output), refuses one that
// does not fit its chip, runs the SystemC model and writes the report, the
// Perfetto trace and the memory CSV. `run` compiles (decode at the requested
// batch, prefill of one prompt for the time to first token) and simulates
// in the same process, reading the compiled module as `simulate` reads a
// file (tests/Pipelines/run-equals-compile-simulate.test).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Driver/Simulate.h"

#include "PointRunner.h"

#include "snapflow/Driver/Compile.h"
#include "snapflow/Driver/Csv.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Sim/Core/ProgramIO.h"
#include "snapflow/Sim/Engine/Simulator.h"
#include "snapflow/Sim/Loader/Loader.h"
#include "snapflow/Sim/Stats/Report.h"
#include "snapflow/Sim/Trace/Trace.h"
#include "snapflow/Support/Output.h"
#include "snapflow/Support/Progress.h"
#include "snapflow/Support/Version.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <optional>
#include <sys/wait.h>

using namespace snapflow;
using namespace snapflow::driver;
using llvm::Error;

Error snapflow::driver::checkFits(const sim::Program &p,
                                  const arch::ArchModel &chip) {
  for (arch::MemoryTier tier : arch::kAllTiers) {
    double need = double(p.tensorBytes(tier));
    double cap = double(chip.tierBytesPerSocket(tier));
    if (tier != arch::MemoryTier::SRAM && need > cap)
      return llvm::make_error<ProgramFailure>(llvm::formatv(
          "{0} batch {1} context {2} needs {3:f1} GiB {4} per socket; {5} "
          "has {6:f1} GiB",
          p.phaseLabel(), p.batch, p.tokens, gib(need),
          llvm::StringRef(arch::tierName(tier)).upper(), chip.getName(),
          gib(cap)));
  }
  return Error::success();
}

namespace {

/// The point server of simulateInChildren (none: simulate here).
std::optional<PointRunner> &pointRunnerSlot() {
  static std::optional<PointRunner> runner;
  return runner;
}
PointRunner *pointRunner() {
  auto &slot = pointRunnerSlot();
  return slot ? &*slot : nullptr;
}

/// A file's text ("" when it cannot be read).
std::string readText(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : "";
}

/// simulatePrograms on the chip `decode` records, in a child of the point
/// server: the same report, files and errors (a ProgramFailure when the
/// program cannot run).
llvm::Expected<llvm::json::Object> simulateInChild(PointRunner &runner,
                                                   const sim::Program &decode,
                                                   const sim::Program *prefill,
                                                   const SimulateOptions &s) {
  llvm::SmallString<128> errPath, reportPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("snapflow-sim", "err", errPath))
    return makeError("no temporary file for the simulation: " + ec.message());
  llvm::FileRemover removeErr(errPath);
  SimulateOptions o = s;
  // The child runs where the point server started: the paths as this
  // process means them.
  for (std::string *path : {&o.reportPath, &o.tracePath, &o.csvPath})
    if (!path->empty()) {
      llvm::SmallString<256> absolute(*path);
      if (std::error_code ec = llvm::sys::fs::make_absolute(absolute))
        return makeError("cannot resolve " + *path + ": " + ec.message());
      *path = absolute.str().str();
    }
  std::optional<llvm::FileRemover> removeReport;
  if (o.reportPath.empty()) {
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "snapflow-sim", "json", reportPath))
      return makeError("no temporary file for the simulation: " + ec.message());
    removeReport.emplace(reportPath);
    o.reportPath = reportPath.str().str();
  }
  if (Error e = runner.submit(0, o, sim::serializeProgram(decode), errPath,
                              prefill ? sim::serializeProgram(*prefill) : ""))
    return std::move(e);
  auto exit = runner.next();
  if (!exit)
    return exit.takeError();
  std::string message = llvm::StringRef(readText(errPath)).trim().str();
  int status = exit->status;
  if (WIFSIGNALED(status))
    return makeError(llvm::formatv("the simulation ended on signal {0} ({1})",
                                   WTERMSIG(status),
                                   strsignal(WTERMSIG(status))));
  if (WEXITSTATUS(status) == 2)
    return llvm::make_error<ProgramFailure>(message);
  if (WEXITSTATUS(status) != 0)
    return makeError(message.empty() ? "the simulation failed" : message);
  if (s.quiet) // nothing prints it: the files are written
    return llvm::json::Object();
  auto report = llvm::json::parse(readText(o.reportPath));
  if (!report)
    return report.takeError();
  if (llvm::json::Object *object = report->getAsObject())
    return std::move(*object);
  return makeError("the simulation's report is not a JSON object");
}

} // namespace

void snapflow::driver::simulateHere() { pointRunnerSlot().reset(); }

llvm::Error snapflow::driver::simulateInChildren() {
  if (pointRunner())
    return Error::success();
  auto runner = PointRunner::start();
  if (!runner)
    return runner.takeError();
  pointRunnerSlot().emplace(std::move(*runner));
  return Error::success();
}

llvm::Expected<llvm::json::Object> snapflow::driver::simulatePrograms(
    const sim::Program &decode, const sim::Program *prefill,
    const arch::ArchModel &chip, const SimulateOptions &o) {
  if (Error e = checkFits(decode, chip))
    return std::move(e);
  if (prefill)
    if (Error e = checkFits(*prefill, chip))
      return std::move(e);
  if (o.steps < 1 || o.steps > kMaxSteps)
    return makeError(llvm::formatv("--steps must be from 1 to {0}, got {1}",
                                   kMaxSteps, o.steps));
  std::vector<sim::Job> jobs;
  std::vector<const sim::Program *> programs;
  if (prefill) {
    jobs.push_back({prefill, 1});
    programs.push_back(prefill);
  }
  jobs.push_back({&decode, o.steps});
  programs.push_back(&decode);
  // The prefill again without its selection, for what the selection adds
  // (ttft_breakdown.selection_s).
  const sim::Program *pre = sim::reportedPrefill(decode, prefill);
  if (pre && pre->hasSelection())
    jobs.push_back({pre, 1, /*withoutSelection=*/true});
  sim::SimOptions so;
  so.fastForward = o.fastForward;
  so.allSockets = o.allSockets;
  so.trace = !o.tracePath.empty() || !o.csvPath.empty();
  // How far the decode steps are, on a terminal (R14: --steps 131072
  // --no-fast-forward ran for minutes without a word).
  Progress progress("simulating", "decode steps", o.steps);
  so.onStep = [&](int64_t done, int64_t steps) {
    if (steps == o.steps)
      progress.update(done);
  };
  auto start = std::chrono::steady_clock::now();
  sim::SimResult result = sim::simulate(jobs, chip, so);
  double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!result.failure.empty())
    return llvm::make_error<ProgramFailure>(decode.name + ": " +
                                            result.failure);
  llvm::json::Object report =
      sim::makeReport(result, decode, prefill, chip, wall, versionString(),
                      llvm::formatv("steps={0} fast-forward={1} "
                                    "all-sockets={2}",
                                    o.steps, o.fastForward, o.allSockets)
                          .str());
  if (!o.reportPath.empty())
    if (Error e = writeOutput(o.reportPath, [&](llvm::raw_ostream &f) {
          f << llvm::formatv("{0:2}",
                             llvm::json::Value(llvm::json::Object(report)))
            << "\n";
          return Error::success();
        }))
      return std::move(e);
  if (!o.tracePath.empty())
    if (Error e = sim::writeChromeTrace(o.tracePath, result, programs, chip))
      return std::move(e);
  if (!o.csvPath.empty())
    if (Error e = sim::writeMemoryCsv(
            o.csvPath, result, csv::kProvenanceHeader,
            csv::provenanceCells(
                report.getString("model").value_or(""), chip.getName(),
                report.getString("kv").value_or(""), versionString())))
      return std::move(e);
  return std::move(report);
}

llvm::Expected<arch::ArchModel>
snapflow::driver::simulationChip(const sim::Program &program,
                                 llvm::StringRef path,
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

llvm::Expected<SimulationOutcome>
snapflow::driver::simulateFile(const std::string &path,
                               const SimulateOptions &o) {
  if (path.empty())
    return makeError("simulate needs a df program file; produce one with "
                     "`snapflow compile -o`");
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
  SimulationOutcome out;
  if (!decode->target.differences(*chip).empty() ||
      decode->target.getName() != chip->getName())
    out.notes.push_back(
        llvm::formatv("what-if: compiled for {0} ({1}), simulated on {2} ({3})",
                      decode->target.getName(), decode->target.fingerprint(),
                      chip->getName(), chip->fingerprint()));
  auto report =
      simulatePrograms(*decode, prefill ? &*prefill : nullptr, *chip, o);
  if (!report)
    return report.takeError();
  out.report = std::move(*report);
  return std::move(out);
}

llvm::Expected<SimulationOutcome>
snapflow::driver::runWorkload(const WorkloadOptions &o, bool maxBatch,
                              const CompileOptions &c,
                              const SimulateOptions &s) {
  auto w = resolveWorkload(o, /*needChip=*/true);
  if (!w)
    return w.takeError();
  SimulationOutcome out;
  out.notes = w->notes();
  int64_t batch = o.batch;
  if (maxBatch) {
    auto largest = findMaxBatch(*w, o, c);
    if (!largest)
      return largest.takeError();
    batch = *largest;
    out.notes.push_back(llvm::formatv("largest batch that fits: {0}", batch));
  }
  auto decode = compileProgram(*w, o, c, batch, /*prefill=*/false);
  if (!decode)
    return decode.takeError();
  // Time to first token: one prompt of --context tokens.
  std::optional<sim::Program> prefill;
  if (s.withPrefill) {
    auto p = compileProgram(*w, o, c, 1, /*prefill=*/true);
    if (!p) {
      // A whole-prompt prefill may not fit where decode does (its
      // activations grow with the prompt); decode is still worth running.
      // Any other failure is an error.
      Error e = p.takeError();
      if (!e.isA<ProgramFailure>())
        return std::move(e);
      std::string why = llvm::toString(std::move(e));
      out.notes.push_back(llvm::formatv(
          "note: no TTFT: the prefill of one {0}-token prompt does not fit: "
          "{1}",
          o.context, why));
    } else {
      prefill = std::move(*p);
    }
  }
  // The chip the program records, which is the one just compiled for.
  auto report = pointRunner()
                    ? simulateInChild(*pointRunner(), *decode,
                                      prefill ? &*prefill : nullptr, s)
                    : simulatePrograms(*decode, prefill ? &*prefill : nullptr,
                                       decode->target, s);
  if (!report)
    return report.takeError();
  out.report = std::move(*report);
  return std::move(out);
}
