//===- ModelStats.cpp - Parameters, KV and cost of a phase function -------===//

#include "snapflow/Analysis/ModelStats.h"

#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Dialect/LLM/IR/LLMOps.h"
#include "snapflow/Interfaces/CostInterface.h"

#include "llvm/ADT/StringSet.h"

#include <cmath>

using namespace mlir;
using namespace snapflow;

namespace {
/// Accumulates the stats of a block; ops inside an llm.repeat count once per
/// iteration (each iteration is another layer with its own parameters).
struct StatsWalker {
  ModelStats s;
  llvm::StringSet<> seen;
  int64_t inactive = 0;

  void walk(Block &block, int64_t times) {
    for (Operation &op : block) {
      if (auto repeat = dyn_cast<llm::RepeatOp>(op)) {
        walk(repeat.getBody().front(), times * repeat.getCount());
        continue;
      }
      visit(&op, times);
      for (Region &region : op.getRegions())
        for (Block &b : region)
          walk(b, times);
    }
  }

  void visit(Operation *op, int64_t times) {
    if (auto p = dyn_cast<llm::ParamOp>(op)) {
      // A tied weight is one parameter however often it is named.
      if (seen.insert(p.getName()).second) {
        auto t = cast<RankedTensorType>(p.getType());
        s.paramsTotal += times * t.getNumElements();
        s.weightBytes += times * getTensorBytes(t);
      }
    }
    if (auto moe = dyn_cast<llm::MoEOp>(op)) {
      s.moeLayers += times;
      int64_t routed = 0;
      for (Value w : {moe.getGate(), moe.getUp(), moe.getDown()})
        routed += cast<RankedTensorType>(w.getType()).getNumElements();
      // A token uses top_k of the num_experts x expert_shards experts; the
      // rest of the routed weights held here are idle for it.
      double global = double(moe.getNumExperts() * moe.getExpertShards());
      double idle = 1.0 - double(moe.getTopK()) / global;
      inactive += static_cast<int64_t>(
          std::llround(double(times) * double(routed) * idle));
    }
    Value cacheValue;
    if (auto gqa = dyn_cast<llm::AttentionOp>(op))
      cacheValue = gqa.getCache();
    else if (auto mla = dyn_cast<llm::MLAAttentionOp>(op))
      cacheValue = mla.getCache();
    if (cacheValue) {
      s.layers += times;
      auto cache = cast<kv::KVCacheTypeInterface>(cacheValue.getType());
      s.kvBytesPerToken += times * cache.getBytesPerTokenPerLayer();
      s.kvSlots = cache.getSlots();
      s.batch = cache.getBatch();
    }
    if (auto cost = dyn_cast<CostOpInterface>(op)) {
      s.flops += times * cost.getFlops();
      s.bytesRead += times * cost.getBytesRead();
      s.bytesWritten += times * cost.getBytesWritten();
      s.linkBytes += times * cost.getLinkBytes();
    }
  }
};
} // namespace

ModelStats snapflow::computeModelStats(func::FuncOp fn) {
  StatsWalker w;
  w.walk(fn.getBody().front(), 1);
  w.s.paramsActive = w.s.paramsTotal - w.inactive;
  return w.s;
}
