//===- ModelStats.h - Parameters, KV and cost of a phase function -*- C++
//-*-===//
//
// Reads what a phase function of llm IR implies: parameter counts (total and
// active per token), weight bytes, KV bytes per token, and the FLOPs and bytes
// summed over CostOpInterface. Everything is derived from the IR, never from
// the config file, so it also holds after passes rewrite the IR.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_ANALYSIS_MODELSTATS_H
#define SNAPFLOW_ANALYSIS_MODELSTATS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cstdint>

namespace snapflow {

/// Totals of one phase function.
struct ModelStats {
  int64_t layers = 0;      ///< attention ops (one per decoder layer)
  int64_t moeLayers = 0;   ///< layers whose FFN is a mixture of experts
  int64_t paramsTotal = 0; ///< elements of every distinct llm.param
  /// Parameters one token uses: routed experts count top_k / num_experts.
  int64_t paramsActive = 0;
  int64_t weightBytes = 0; ///< bytes of every distinct llm.param
  /// One sequence, the layers of the full cache (every layer but the
  /// windowed ones).
  int64_t kvBytesPerToken = 0;
  int64_t kvSlots = 0; ///< full cache slots per sequence
  /// The windowed layers' cache (sliding and chunked: a ring of at most
  /// their window), the whole batch: it does not grow with the context.
  int64_t kvWindowBytes = 0;
  int64_t windowLayers = 0; ///< decoder layers in the window cache
  int64_t batch = 0;
  int64_t flops = 0, bytesRead = 0, bytesWritten = 0, linkBytes = 0;
  /// Of flops and bytes (read + written), what the KV policy's and
  /// format's upkeep adds (CostOpInterface::getKVUpkeepFlops/Bytes).
  int64_t kvUpkeepFlops = 0, kvUpkeepBytes = 0;
};

/// Walks `fn` and sums its parameters, cache and costs; an error at `fn`
/// when a total exceeds a 64-bit count.
mlir::FailureOr<ModelStats> computeModelStats(mlir::func::FuncOp fn);

} // namespace snapflow

#endif // SNAPFLOW_ANALYSIS_MODELSTATS_H
