//===- Workload.h - What to compile and simulate ----------------*- C++ -*-===//
//
// The options every command shares (model, chip, context, batch, KV policy,
// TP, weight dtype) and the compile options, each with its default declared
// here once (the pipeline's own defaults come from PipelineOptions.def), and
// their resolution into a loaded model, chip and policy with every bad value
// named.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_WORKLOAD_H
#define SNAPFLOW_DRIVER_WORKLOAD_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Arch/Phase.h"
#include "snapflow/Driver/OptionValues.h"
#include "snapflow/Models/ModelConfig.h"
#include "snapflow/Pipelines/Pipelines.h"

#include "mlir/IR/Attributes.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace snapflow {
namespace driver {

/// Options shared by the commands that build a model for a chip, each
/// declared once in WorkloadOptions.def: chip what-ifs in `set`
/// ("system.link_latency_ns=500"), `tp` and `cla` 0 when not given (every
/// socket of the chip; the config's sharing), `weightsDtype` none for the
/// checkpoint's.
struct WorkloadOptions {
#define SNAPFLOW_WORKLOAD_OPTION(TYPE, FIELD, DEFAULT, ...)                    \
  TYPE FIELD = DEFAULT;
#include "snapflow/Driver/WorkloadOptions.def"
};

/// Model, chip and KV policy resolved from the options.
struct Workload {
  models::ModelConfig config;
  arch::ArchModel chip;
  /// The KV policy resolved for the context, parsed once: a
  /// kv::KVPolicyAttrInterface of driverContext() (Context.h), which every
  /// compile of this workload takes as it is.
  mlir::Attribute kvPolicy;
  /// The KV format (a kv::KVFormatAttrInterface; null for bf16).
  mlir::Attribute kvFormat;
  /// What the policy gives at the context, read from it once: the slots a
  /// sequence keeps, whether it compresses at all, and the prompt's last
  /// queries its prefill selection scores with (the observation window; 0
  /// for none), in cache positions.
  int64_t kvSlots = 0;
  bool kvCompressing = false;
  int64_t kvObservedQueries = 0;
  int64_t tp = 0;
  /// Why `tp` is below the chip's sockets when --tp was not given (the
  /// largest group the model splits over); "" otherwise.
  std::string tpNote;
  std::optional<models::WeightDtype> weightsDtype;

  /// What a reader of a result must know about how it was made: the TP
  /// note, what the model's graph does not yet build
  /// (ModelConfig::approximations), and the config's keys snapflow does not
  /// know. `info` and `run` print them.
  std::vector<std::string> notes() const;

  /// The policy's label, every number fixed, as kv::parsePolicy reads it
  /// back ("snapstream:budget=32768,sinks=4,..."); its attribute's printer.
  std::string kvLabel() const;
  /// The format's label ("bf16" for none).
  std::string kvFormatLabel() const;
  /// The policy a graph of `tokens` tokens compiles with: this one, or
  /// full when its budget keeps every token (a serving bucket shorter than
  /// the budget).
  mlir::Attribute policyFor(int64_t tokens) const;
};

/// The weights' dtype the workload builds with: --weights-dtype, else the
/// config's ("bf16", "fp8").
std::string weightsDtypeLabel(const Workload &w);

/// "the TPs that split MODEL on CHIP: 1, 2, 4, 8": each group of the chip's
/// sockets shard-tp splits the model over with the default mappings (for a
/// --tp that does not split, in its error).
std::string splittingTps(const Workload &w);

/// Loads the model and (with `needChip`) the chip and policy; every bad
/// option is an error naming it.
llvm::Expected<Workload> resolveWorkload(const WorkloadOptions &options,
                                         bool needChip);

/// What this process computed for workloads that any later command line
/// can reuse, as JSON text ("" when nothing): today the split checks
/// (whether shard-tp splits a model over N sockets, a model build each), of
/// this process's own computing, not those it learned. A process that forks
/// a child per command line (the Python module's call server) learns each
/// child's (learnWorkloadFacts), so later children find them as a sweep's
/// points do.
std::string workloadFacts();
/// Remembers facts another process computed (workloadFacts's text); text
/// that is not such is ignored: a fact only saves work.
void learnWorkloadFacts(llvm::StringRef text);

/// Options of compiling one phase beyond the workload.
struct CompileOptions {
  arch::Phase phase = arch::Phase::Decode;
  /// Tokens of the static graph a prefill runs per chunk of the prompt
  /// (a chunk of at least the prompt: the whole prompt at once), or
  /// kPrefillChunkAuto.
  int64_t prefillChunk = kPrefillChunkAuto;
  /// The pipeline's mapping options (mla-cache, moe, fuse-layers, routing,
  /// allow-ddr, max-tiles); its chip, kv, context and tp come from the
  /// workload.
  PipelineOptions pipeline;
  int64_t mtp = 0;            ///< MTP draft depth (0: off)
  double mtpAcceptance = 0.8; ///< probability a draft token is accepted
  /// Verify the IR after every pass; otherwise once, after the last. A
  /// sweep verifies once: a program is as checked either way, and the
  /// verifier was a fifth of a sweep's compile time.
  bool verifyEachPass = true;
  std::string output;     ///< compile: "" for none
  std::string reportPath; ///< compile: "" for none
};

} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_WORKLOAD_H
