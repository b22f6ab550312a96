//===- Commands.h - snapflow subcommands ------------------------*- C++ -*-===//
//
// Each subcommand is a function from parsed options to an exit code:
// 0 ok, 1 bad input, 2 the simulated program failed. Errors are printed once,
// as `snapflow: error: ...`, by the caller.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_TOOLS_SNAPFLOW_COMMANDS_H
#define SNAPFLOW_TOOLS_SNAPFLOW_COMMANDS_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Models/ModelConfig.h"
#include "snapflow/Sim/Core/Program.h"
#include "snapflow/Sim/Serving/Serving.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <optional>

#include <cstdint>
#include <string>
#include <vector>

namespace snapflow {
namespace tools {

/// An error whose message is `msg` (main prints it once).
inline llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// Bytes in GiB.
inline double gib(double bytes) { return bytes / double(1LL << 30); }

/// Options shared by the commands that build a model for a chip.
struct WorkloadOptions {
  std::string model;
  std::string chip;
  int64_t context = 0; ///< decode: tokens in context; prefill: prompt length
  int64_t batch = 0;
  std::string kv;
  int64_t tp = 0; ///< 0: the chip's socket count
  std::string weightsDtype; ///< "" (checkpoint), "bf16" or "fp8"
};

/// Model, chip and KV policy resolved from the options.
struct Workload {
  models::ModelConfig config;
  arch::ArchModel chip;
  /// The KV policy resolved for the context: its label (every number
  /// fixed, as kv::parsePolicy reads it), the slots a sequence keeps, and
  /// whether it compresses at all.
  std::string kvLabel;
  int64_t kvSlots = 0;
  bool kvCompressing = false;
  int64_t tp = 0;
  std::optional<models::WeightDtype> weightsDtype;
};

/// Loads the model and (with `needChip`) the chip and policy; every bad
/// option is an error naming it.
llvm::Expected<Workload> resolveWorkload(const WorkloadOptions &options,
                                         bool needChip);

/// The error of a program that cannot run (does not fit, deadlocks): the
/// tool exits with 2 instead of 1.
class ProgramFailure : public llvm::ErrorInfo<ProgramFailure> {
public:
  static char ID;
  explicit ProgramFailure(std::string message) : message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  std::string message;
};

/// Options of `snapflow compile` beyond the workload.
struct CompileOptions {
  std::string phase = "decode";
  std::string mlaCache = "replicate";
  std::string moe = "expert";
  bool allowDdr = false;
  bool fuseLayers = true;
  int64_t routingSeed = -1;   ///< seeded MoE routing (-1: uniform formula)
  double routingSkew = 0.0;   ///< Zipf exponent of expert popularity
  int64_t mtp = 0;            ///< MTP draft depth (0: off)
  double mtpAcceptance = 0.8; ///< probability a draft token is accepted
  std::string output;     ///< "" for none
  std::string reportPath; ///< "" for none
};

/// Options of `snapflow simulate` and `snapflow run`.
struct SimulateOptions {
  int64_t steps = 1;
  bool fastForward = true;
  bool allSockets = false;
  bool withPrefill = true; ///< run: also simulate one prefill (TTFT)
  std::string reportPath, tracePath, csvPath;
  /// simulate: the chip the program must have been compiled for ("" any).
  std::string chip;
  /// simulate: run on this chip instead of the program's own (a what-if).
  std::string whatIfChip;
};

/// `snapflow simulate prog.mlir`: run a df program on the SystemC model of
/// the chip it was compiled for (its df.target), or of `whatIfChip`.
llvm::Error runSimulate(const std::string &path,
                        const SimulateOptions &options, llvm::raw_ostream &os);

/// Options of `snapflow run --serve`.
struct ServeOptions {
  std::string requestsPath; ///< --trace-requests; "" to generate
  bool generate = false;    ///< --rate or --requests given
  sim::serving::GeneratorOptions gen;
};

/// `snapflow run --serve`: continuous batching of a request trace over
/// --batch slots, with step costs from one SystemC run per shape.
llvm::Error runServe(const WorkloadOptions &workload, bool maxBatch,
                     const CompileOptions &compile,
                     const SimulateOptions &simulate,
                     const ServeOptions &serve, llvm::raw_ostream &os);

/// `snapflow run`: compile and simulate; `maxBatch` picks the largest batch
/// that fits.
llvm::Error runRun(const WorkloadOptions &workload, bool maxBatch,
                   const CompileOptions &compile,
                   const SimulateOptions &simulate, llvm::raw_ostream &os);

/// Builds `phase` ("decode" or "prefill") of the workload at `batch` and runs
/// the snapflow pipeline on it (never failing for fit: the memory plan on the
/// df program says whether it fits). Pass errors become one message.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
compileModel(mlir::MLIRContext &context, const Workload &workload,
             const WorkloadOptions &options, const CompileOptions &compile,
             int64_t batch, const std::string &phase);

/// compileModel for one phase, printed as df IR text (the hand-off between
/// compiler and simulator). A plan that does not fit is a ProgramFailure;
/// `maxBatch` receives the plan's largest batch that fits.
llvm::Expected<std::string>
compileToDataflowText(const Workload &workload, const WorkloadOptions &options,
                      const CompileOptions &compile, int64_t batch,
                      bool prefill, int64_t &maxBatch);

/// The largest decode batch of the workload that fits its chip (checked by
/// compiling it); a ProgramFailure when not even batch 1 fits.
llvm::Expected<int64_t> findMaxBatch(const Workload &workload,
                                     const WorkloadOptions &options,
                                     const CompileOptions &compile);

/// A ProgramFailure when a program's tensors exceed an off-chip tier of
/// `chip`.
llvm::Error checkFits(const sim::Program &program, const arch::ArchModel &chip);

/// `snapflow compile`: the pipeline on one phase, the IR and a JSON report.
llvm::Error runCompile(const WorkloadOptions &workload,
                       const CompileOptions &options, llvm::raw_ostream &os);

/// Options of `snapflow sweep`: comma lists, the grid is their product.
struct SweepOptions {
  std::string models, chips, contexts, batches, kv, tps, weightsDtypes;
  int64_t jobs = 1;
  int64_t steps = 16;
  int64_t shardIndex = 0, shardCount = 1;
  bool resume = false;
  std::string outputDir;
};

/// `snapflow sweep`: runs the grid in worker processes (`argv0` finds the
/// snapflow executable), writing DIR/results.csv row by row, then the plots.
llvm::Error runSweep(const SweepOptions &options, const char *argv0,
                     llvm::raw_ostream &os);

/// `snapflow sweep merge DIR... -o OUT`: joins the results of shards.
llvm::Error runSweepMerge(const std::vector<std::string> &dirs,
                          const std::string &outputDir, llvm::raw_ostream &os);

/// Draws DIR/results.csv as SVG plots (gnuplot) and DIR/summary.md.
llvm::Error drawSweep(llvm::StringRef dir, llvm::raw_ostream &os);

/// `snapflow trace t.json`: occupancy per tier (peak, time-weighted mean)
/// and the largest tensors of a trace; `svgPath` draws occupancy over time.
llvm::Error runTrace(const std::string &path, const std::string &svgPath,
                     llvm::raw_ostream &os);

/// `snapflow list`: built-in models, chips and KV policies; with
/// `components`, the simulator's components and their declarations.
llvm::Error runList(bool components, llvm::raw_ostream &os);

/// `snapflow info`: parameters, KV bytes and per-tier fit.
llvm::Error runInfo(const WorkloadOptions &options, bool json,
                    llvm::raw_ostream &os);

/// Options of `snapflow import` beyond the workload.
struct ImportOptions {
  std::string phase = "both"; ///< decode, prefill or both
  int64_t promptTokens = 4096;
  int64_t mtpDepth = 0;
  double mtpAcceptance = 0.8;
};

/// `snapflow import`: the llm IR of a model, as text; with the options of a
/// `snapflow compile`, the module that compile hands to the pipeline.
llvm::Error runImport(const WorkloadOptions &options,
                      const ImportOptions &import,
                      const std::string &outputPath);

} // namespace tools
} // namespace snapflow

#endif // SNAPFLOW_TOOLS_SNAPFLOW_COMMANDS_H
