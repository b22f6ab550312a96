//===- Pipelines.h - The snapflow compilation pipeline ---------*- C++ -*-===//
//
// The named pipeline that turns model IR into the program a chip runs. It is a
// plain function over a pass manager (CIRCT style) so `snapflow compile`,
// `snapflow info` and `snapflow-opt --snapflow-pipeline` run the same passes
// with the same options (PipelineOptions.def declares each once).
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_PIPELINES_PIPELINES_H
#define SNAPFLOW_PIPELINES_PIPELINES_H

#include "snapflow/Arch/ArchModel.h"

#include "mlir/Pass/PassManager.h"

#include <cstdint>
#include <optional>
#include <string>

namespace snapflow {

/// Options of the snapflow pipeline, with their defaults
/// (PipelineOptions.def).
struct PipelineOptions {
#define SNAPFLOW_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)             \
  TYPE FIELD = DEFAULT;
#include "snapflow/Pipelines/PipelineOptions.def"

  /// The chip `chip` and `set` name, when the caller has already resolved
  /// it (the driver): assign-target records it as is. `chip` and `set` still
  /// say where it came from in df.provenance.
  std::optional<arch::ArchModel> resolvedChip;
  /// The KV policy and format `kv` and `kv-format` name, when the caller
  /// has already parsed them (the driver, in the context it compiles in):
  /// kv-compress takes them as they are (a null format is bf16); `kv` and
  /// `kv-format` still say what was asked in df.provenance.
  mlir::Attribute resolvedPolicy, resolvedFormat;

  /// The flag and help text of an option, by its flag name ("mla-cache").
  struct Info {
    const char *flag, *help;
  };
  static const Info &info(llvm::StringRef flag);

  /// Every option that changes what is compiled, as `snapflow-opt
  /// --snapflow-pipeline` reads them ("chip=sn40l-16 set= kv=full ...
  /// max-tiles=64"; not require-fit or plan-only): what the module's
  /// df.provenance records.
  std::string text() const;
};

/// Appends the pipeline to `pm`:
///   assign-target -> record-provenance -> kv-compress -> shard-tp
///   -> [moe-routing] -> fuse-layers -> tile-and-map -> plan-memory
///   -> lower-to-df -> plan-sram -> choose-collectives -> pipeline-loops
/// (the pass manager verifies the IR after every pass).
void buildSnapflowPipeline(mlir::OpPassManager &pm,
                           const PipelineOptions &options);

/// Registers `--snapflow-pipeline` for snapflow-opt.
void registerSnapflowPipeline();

} // namespace snapflow

#endif // SNAPFLOW_PIPELINES_PIPELINES_H
