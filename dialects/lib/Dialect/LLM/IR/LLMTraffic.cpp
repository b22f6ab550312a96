//===- LLMTraffic.cpp - What each llm op moves as a stage -----------------===//
//
// The TrafficOpInterface of the llm ops that run as pipeline stages
// (TrafficInterface.td): the mode each runs its PCUs in and, for the
// attentions over a KV cache, the tokens they write to it and whether they
// stream its slots. tile-and-map and lower-to-df read these instead of
// knowing each op by name.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/LLM/IR/LLMOps.h"

using namespace mlir;
using namespace snapflow;
using namespace snapflow::llm;

using arch::StageKind;

// The GEMMs: their PCUs run as systolic arrays.
std::optional<StageKind> LinearOp::getStageKind() { return StageKind::Gemm; }
std::optional<StageKind> MLPOp::getStageKind() { return StageKind::Gemm; }
std::optional<StageKind> GeluMLPOp::getStageKind() { return StageKind::Gemm; }
std::optional<StageKind> RouteOp::getStageKind() { return StageKind::Gemm; }
std::optional<StageKind> MoEOp::getStageKind() { return StageKind::Gemm; }
std::optional<StageKind> LocalAttentionOp::getStageKind() {
  return StageKind::Gemm;
}
std::optional<StageKind> LMHeadOp::getStageKind() { return StageKind::Gemm; }
std::optional<StageKind> MTPOp::getStageKind() { return StageKind::Gemm; }

// The rest run on the SIMD lanes.
std::optional<StageKind> EmbedOp::getStageKind() { return StageKind::Gather; }
std::optional<StageKind> RMSNormOp::getStageKind() { return StageKind::Norm; }
std::optional<StageKind> LayerNormOp::getStageKind() { return StageKind::Norm; }
std::optional<StageKind> AddOp::getStageKind() {
  return StageKind::Elementwise;
}
std::optional<StageKind> RopeOp::getStageKind() {
  return StageKind::Elementwise;
}
std::optional<StageKind> SampleOp::getStageKind() { return StageKind::Reduce; }
