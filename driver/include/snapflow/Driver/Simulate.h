//===- Simulate.h - Running df programs on the SystemC model ----*- C++ -*-===//
//
// `simulate` runs a df program file on the chip it was compiled for (or a
// named what-if chip); `run` compiles a workload and simulates it in one
// process, reading the compiled module in memory (sim::readProgram; a lit
// test checks it equals compile -o then simulate). Both write the report, the
// Perfetto trace and the occupancy CSV when asked, and return the report for
// a summary.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_SIMULATE_H
#define SNAPFLOW_DRIVER_SIMULATE_H

#include "snapflow/Driver/Workload.h"
#include "snapflow/Sim/Core/Program.h"

#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace snapflow {
namespace driver {

/// The most decode steps a run simulates (--steps): a 128K-token output.
/// Fast-forwarded they cost one step's simulation; with --no-fast-forward
/// each is simulated, so the bound also bounds the work.
constexpr int64_t kMaxSteps = 131072;

/// Options of simulating.
struct SimulateOptions {
  int64_t steps = 1; ///< 1 to kMaxSteps
  bool fastForward = true;
  bool allSockets = false;
  bool withPrefill = true; ///< run: also simulate one prefill (TTFT)
  /// No summary printed: the report need not come back from a simulation
  /// in another process (simulateInChildren), only its files.
  bool quiet = false;
  std::string reportPath, tracePath, csvPath;
  /// simulate: the chip the program must have been compiled for ("" any).
  std::string chip;
  /// simulate: run on this chip instead of the program's own (a what-if).
  std::string whatIfChip;
};

/// A simulation: notes for a person (the batch chosen, a prefill that could
/// not run) and the report.
struct SimulationOutcome {
  std::vector<std::string> notes;
  llvm::json::Object report;
};

/// A ProgramFailure when a program's tensors exceed an off-chip tier of
/// `chip`.
llvm::Error checkFits(const sim::Program &program, const arch::ArchModel &chip);

/// The chip to simulate `program` (read from `path`) on: its own target,
/// checked against `options.chip` when given; another chip only as a named
/// what-if (`options.whatIfChip`), which needs the program's TP sockets.
llvm::Expected<arch::ArchModel> simulationChip(const sim::Program &program,
                                               llvm::StringRef path,
                                               const SimulateOptions &options);

/// `snapflow simulate prog.mlir`.
llvm::Expected<SimulationOutcome> simulateFile(const std::string &path,
                                               const SimulateOptions &options);

/// `snapflow run`: compile and simulate; `maxBatch` picks the largest batch
/// that fits.
llvm::Expected<SimulationOutcome> runWorkload(const WorkloadOptions &workload,
                                              bool maxBatch,
                                              const CompileOptions &compile,
                                              const SimulateOptions &simulate);

/// From now on, simulates each run's programs (runWorkload) in a process
/// of its own, forked from a small server started now (the sweep's point
/// server, PointRunner.h): for a process that runs many workloads one
/// after another (the Python module's call server), SystemC's one
/// simulation a process is kept while the compiles share this process's
/// MLIR context and what it learned. Call while the process is small.
llvm::Error simulateInChildren();
/// Simulates in this process again: in a process forked from one that
/// simulates in children, whose point server it must not share.
void simulateHere();

/// Simulates decode (and prefill when given) on `chip`, writes the files
/// `options` asks for, and returns the report. The entry the sweep's
/// workers use.
llvm::Expected<llvm::json::Object>
simulatePrograms(const sim::Program &decode, const sim::Program *prefill,
                 const arch::ArchModel &chip, const SimulateOptions &options);

} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_SIMULATE_H
