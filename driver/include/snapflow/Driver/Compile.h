//===- Compile.h - From a workload to a df program ---------------*- C++
//-*-===//
//
// The compile driver: builds one phase of a model, runs the snapflow
// pipeline with the workload's options (exactly what `snapflow-opt
// --snapflow-pipeline` runs), and reads the memory plan; the largest batch
// that fits, found by compiling. Contexts are the caller's, so a sweep
// compiles every point in one (single-threaded: a df program is small).
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_COMPILE_H
#define SNAPFLOW_DRIVER_COMPILE_H

#include "snapflow/Driver/Workload.h"
#include "snapflow/Sim/Core/Program.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <vector>

namespace snapflow {
namespace driver {

/// While alive, collects the context's diagnostics as snapflow's errors read
/// them: a located one as `file:line:col: error: ...`, an unlocated error as
/// its message alone (the tool prints `snapflow: error:` once), a note as
/// `note: ...`; one per line.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext &context);
  /// What was collected, without its last newline; `otherwise` when
  /// nothing was.
  std::string text(llvm::StringRef otherwise) const;

private:
  std::string collected;
  mlir::ScopedDiagnosticHandler handler;
};

/// A pipeline error, and when it is shard-tp's "cannot split ... over tp =
/// N", the TPs that do split the workload's model (splittingTps).
std::string withTpAdvice(const std::string &message, const Workload &w);

/// Builds `phase` ("decode" or "prefill") of the workload at `batch` and runs
/// the snapflow pipeline on it (never failing for fit: the memory plan on the
/// df program says whether it fits). Pass errors become one message.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
compileModel(const Workload &workload, const WorkloadOptions &options,
             const CompileOptions &compile, int64_t batch, arch::Phase phase);

/// The chunk sizes `--prefill-chunk auto` tries for a prompt, largest first:
/// the whole prompt, then powers of two down to kSmallestAutoChunk.
constexpr int64_t kSmallestAutoChunk = 512;
std::vector<int64_t> autoPrefillChunks(int64_t prompt);

/// compileModel for the prefill, its chunk resolved: with
/// kPrefillChunkAuto, the largest of autoPrefillChunks whose plan fits (the
/// smallest when none does).
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
compilePrefill(const Workload &workload, const WorkloadOptions &options,
               const CompileOptions &compile, int64_t batch);

/// compileModel for one phase, read into the simulator's Program as
/// `simulate` reads a file. A plan that does not fit is a ProgramFailure;
/// `maxBatch` (when given) receives the plan's largest batch that fits.
/// A program this process compiled before for the same inputs (pipeline
/// options, model and chip fingerprints, phase, batch, tokens, chunk, MTP)
/// is returned again, not recompiled: a sweep's prefill shared by its
/// batches, a `--batch max` search's answer, a Python loop.
llvm::Expected<sim::Program> compileProgram(const Workload &workload,
                                            const WorkloadOptions &options,
                                            const CompileOptions &compile,
                                            int64_t batch, bool prefill,
                                            int64_t *maxBatch = nullptr);

/// Programs compileProgram has compiled in this process (not those it
/// returned again).
int64_t programsCompiled();

/// The largest decode batch of the workload that fits its chip: it
/// compiles, and the next batch does not (both checked by compiling them,
/// starting from `estimate`, else the plan's at batch 1); a ProgramFailure
/// when not even batch 1 fits.
llvm::Expected<int64_t>
findMaxBatch(const Workload &workload, const WorkloadOptions &options,
             const CompileOptions &compile,
             std::optional<int64_t> estimate = std::nullopt);

/// What `snapflow compile` produced: the JSON report (also written to
/// `compile.reportPath`) and the plan figures for a summary.
struct CompileOutcome {
  llvm::json::Object report;
  std::string model, chip, kv;
  arch::Phase phase = arch::Phase::Decode;
  int64_t batch = 0, context = 0, tp = 0, maxBatch = 0;
  int64_t weightsBytes = 0, kvBytes = 0, activationBytes = 0, hbmBytes = 0,
          hbmCapacity = 0;
  int64_t ddrBytes = 0, ddrCapacity = 0; ///< weights placed there, a backup
  int64_t prefetchBytes = 0;             ///< SRAM of pipelined loops' prefetch
  /// A prefill: the chunks its static graph runs over the prompt (1: the
  /// whole prompt at once); 0 for a decode.
  int64_t chunks = 0;
  double seconds = 0;
  /// What a reader must know about how it was made (Workload::notes: the
  /// TP chosen, windowed layers, what the model's graph approximates).
  std::vector<std::string> notes;
};

/// `snapflow compile`: the pipeline on one phase; writes the IR (-o, only
/// when it fits) and the report (also when it does not). A program that
/// does not fit is a ProgramFailure after the report is written.
llvm::Expected<CompileOutcome> compile(const WorkloadOptions &workload,
                                       const CompileOptions &options);

} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_COMPILE_H
