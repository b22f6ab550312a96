//===- Pipelines.h - The snapflow compilation pipeline ---------*- C++ -*-===//
//
// The named pipeline that turns model IR into the program a chip runs. It is a
// plain function over a pass manager (CIRCT style) so `snapflow compile`,
// `snapflow info` and `snapflow-opt --snapflow-pipeline` run the same passes.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_PIPELINES_PIPELINES_H
#define SNAPFLOW_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"

#include <string>

namespace snapflow {

/// Options of the snapflow pipeline; defaults are the CLI's.
struct PipelineOptions {
  std::string chip = "sn40l-16";
  std::string kv = "full";
  int64_t context = 0; ///< tokens the KV policy is resolved for (0: largest cache)
  int64_t tp = 1;
  std::string mlaCache = "replicate";
  std::string moe = "expert";
  bool fuseLayers = true;
  /// Seeded MoE routing model (--moe-routing); < 0 keeps the uniform formula.
  int64_t routingSeed = -1;
  double routingSkew = 0.0;
  bool allowDdr = false;
  bool requireFit = true;
  /// Stop after memory planning (no tiling or df lowering), for `info`.
  bool planOnly = false;
};

/// Appends the pipeline to `pm`:
///   kv-compress -> shard-tp -> [moe-routing] -> fuse-layers -> tile-and-map
///   -> plan-memory -> lower-to-df
/// (the pass manager verifies the IR after every pass).
void buildSnapflowPipeline(mlir::OpPassManager &pm,
                           const PipelineOptions &options);

/// Registers `--snapflow-pipeline` for snapflow-opt.
void registerSnapflowPipeline();

} // namespace snapflow

#endif // SNAPFLOW_PIPELINES_PIPELINES_H
