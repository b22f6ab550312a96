//===- ModelStats.cpp - Parameters, KV and cost of a phase function -------===//

#include "snapflow/Analysis/ModelStats.h"

#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Dialect/LLM/IR/LLMOps.h"
#include "snapflow/Interfaces/CostInterface.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace snapflow;

ModelStats snapflow::computeModelStats(func::FuncOp fn) {
  ModelStats s;
  llvm::StringSet<> seen;
  int64_t inactive = 0;
  fn.walk([&](Operation *op) {
    if (auto p = dyn_cast<llm::ParamOp>(op)) {
      // A tied weight is one parameter however often it is named.
      if (seen.insert(p.getName()).second) {
        auto t = cast<RankedTensorType>(p.getType());
        s.paramsTotal += t.getNumElements();
        s.weightBytes += getTensorBytes(t);
      }
    }
    if (auto moe = dyn_cast<llm::MoEOp>(op)) {
      ++s.moeLayers;
      int64_t routed = 0;
      for (Value w : {moe.getGate(), moe.getUp(), moe.getDown()})
        routed += cast<RankedTensorType>(w.getType()).getNumElements();
      // A token uses top_k of the num_experts x expert_shards experts; the
      // rest of the routed weights held here are idle for it.
      int64_t global = moe.getNumExperts() * moe.getExpertShards();
      inactive += routed / moe.getNumExperts() *
                  (moe.getNumExperts() -
                   moe.getTopK() * moe.getNumExperts() / global);
    }
    Value cacheValue;
    if (auto gqa = dyn_cast<llm::AttentionOp>(op))
      cacheValue = gqa.getCache();
    else if (auto mla = dyn_cast<llm::MLAAttentionOp>(op))
      cacheValue = mla.getCache();
    if (cacheValue) {
      ++s.layers;
      auto cache = cast<kv::KVCacheTypeInterface>(cacheValue.getType());
      s.kvBytesPerToken += cache.getBytesPerTokenPerLayer();
      s.kvSlots = cache.getSlots();
      s.batch = cache.getBatch();
    }
    if (auto cost = dyn_cast<CostOpInterface>(op)) {
      s.flops += cost.getFlops();
      s.bytesRead += cost.getBytesRead();
      s.bytesWritten += cost.getBytesWritten();
      s.linkBytes += cost.getLinkBytes();
    }
  });
  s.paramsActive = s.paramsTotal - inactive;
  return s;
}
