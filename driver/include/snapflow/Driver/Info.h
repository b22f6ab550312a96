//===- Info.h - What a model costs on a chip, and its llm IR -----*- C++
//-*-===//
//
// `snapflow info`: parameters, KV bytes (from the compressed IR, the same the
// compiler emits) and the per-socket memory plan of the compiler, with
// whether weights + KV fit each tier. `snapflow import`: the llm IR the model
// builder emits.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_INFO_H
#define SNAPFLOW_DRIVER_INFO_H

#include "snapflow/Analysis/ModelStats.h"
#include "snapflow/Dialect/LLM/Transforms/Mappings.h"
#include "snapflow/Driver/Workload.h"

#include <array>

namespace snapflow {
namespace driver {

/// What `snapflow info` reports.
struct ModelInfo {
  Workload workload;
  ModelStats stats; ///< of the decode graph after kv-compress
  int64_t batch = 0, context = 0;
  int64_t kvBytes = 0; ///< every sequence of the batch, all sockets
  /// Of kvBytes, the policy's state beside the K/V: per-slot state (H2O's
  /// scores, Scissorhands' history) and page digests (ArkVale); 0 for none.
  int64_t kvStateBytes = 0;
  /// Beside kvBytes, the policy's page backup in DDR (ArkVale); 0 for none.
  int64_t kvBackupBytes = 0;
  /// The compiler's plan per socket (shard-tp, fuse-layers, plan-memory).
  int64_t planWeightsBytes = 0, planKvBytes = 0, maxBatch = 0;
  /// Whether weights + KV per socket fit each tier (HBM: the plan's word,
  /// activations included).
  std::array<bool, 3> fits{};
  int64_t needBytes = 0; ///< weights + KV per socket
  /// How an MLA cache is laid out over the sockets (`--mla-cache`).
  llm::MlaCache mlaCache = llm::MlaCache::Replicate;
  /// Why there is no plan per socket (a --tp that does not split the
  /// model), or empty. The figures above it do not depend on the TP and are
  /// still printed; the command then fails with this message.
  std::string planError;
};

/// `mlaCache` is `--mla-cache`: replicate, sequence or batch.
llvm::Expected<ModelInfo>
describeWorkload(const WorkloadOptions &options,
                 llm::MlaCache mlaCache = llm::MlaCache::Replicate);

/// Options of `snapflow import` beyond the workload.
struct ImportOptions {
  /// The one phase to build; none: both.
  std::optional<arch::Phase> phase;
  int64_t promptTokens = 4096;
  /// Chunk of a chunked @prefill; kPrefillChunkAuto builds the whole prompt
  /// (no plan to fit to before the pipeline).
  int64_t prefillChunk = kPrefillChunkAuto;
  int64_t mtpDepth = 0;
  double mtpAcceptance = 0.8;
};

/// Writes the llm IR of the workload's model to `outputPath` ("-": stdout).
llvm::Error importModel(const WorkloadOptions &options,
                        const ImportOptions &import,
                        const std::string &outputPath);

} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_INFO_H
