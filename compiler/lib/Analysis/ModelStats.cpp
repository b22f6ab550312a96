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
/// The counts of ModelStats, checked while they accumulate.
struct CheckedStats {
  CheckedInt layers, moeLayers, paramsTotal, weightBytes, kvBytesPerToken,
      kvWindowBytes, windowLayers, flops, bytesRead, bytesWritten, linkBytes,
      inactive, upkeepFlops, upkeepBytes;
};

/// Accumulates the stats of a block; ops inside an llm.repeat count once per
/// iteration (each iteration is another layer with its own parameters).
struct StatsWalker {
  CheckedStats c;
  int64_t kvSlots = 0, batch = 0;
  llvm::StringSet<> seen;

  void walk(Block &block, CheckedInt times) {
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

  void visit(Operation *op, CheckedInt times) {
    if (auto p = dyn_cast<llm::ParamOp>(op)) {
      // A tied weight is one parameter however often it is named.
      if (seen.insert(p.getName()).second) {
        c.paramsTotal += times * getNumElements(p.getType());
        c.weightBytes += times * getTensorBytes(p.getType());
      }
    }
    if (auto moe = dyn_cast<llm::MoEOp>(op)) {
      c.moeLayers += times;
      CheckedInt routed = 0;
      for (Value w : {moe.getGate(), moe.getUp(), moe.getDown()})
        routed += getNumElements(w.getType());
      // A token uses top_k of the num_experts x expert_shards experts; the
      // rest of the routed weights held here are idle for it.
      double global = double(moe.getNumExperts() * moe.getExpertShards());
      double idle = 1.0 - double(moe.getTopK()) / global;
      std::optional<int64_t> idleParams = (times * routed).get();
      c.inactive += idleParams
                        ? CheckedInt::fromDouble(double(*idleParams) * idle)
                        : CheckedInt::overflow();
    }
    Value cacheValue;
    if (auto gqa = dyn_cast<llm::AttentionOp>(op))
      cacheValue = gqa.getCache();
    else if (auto mla = dyn_cast<llm::MLAAttentionOp>(op))
      cacheValue = mla.getCache();
    if (cacheValue) {
      c.layers += times;
      auto cache = cast<kv::KVCacheTypeInterface>(cacheValue.getType());
      // A later layer of a CLA group reads its group's cache layer; a
      // windowed layer's ring is bounded by its window.
      if (llm::getWindow(op) > 0) {
        c.windowLayers += times;
        if (llm::writesKV(op))
          c.kvWindowBytes +=
              times * cache.getBytesPerSequencePerLayer() * cache.getBatch();
      } else {
        if (llm::writesKV(op))
          c.kvBytesPerToken += times * cache.getBytesPerTokenPerLayer();
        kvSlots = cache.getSlots();
      }
      batch = cache.getBatch();
    }
    if (auto cost = dyn_cast<CostOpInterface>(op)) {
      c.flops += times * cost.getFlops();
      c.bytesRead += times * cost.getBytesRead();
      c.bytesWritten += times * cost.getBytesWritten();
      c.linkBytes += times * cost.getLinkBytes();
      c.upkeepFlops += times * cost.getKVUpkeepFlops();
      c.upkeepBytes += times * cost.getKVUpkeepBytes();
    }
  }
};
} // namespace

FailureOr<ModelStats> snapflow::computeModelStats(func::FuncOp fn) {
  StatsWalker w;
  w.walk(fn.getBody().front(), 1);
  const CheckedStats &c = w.c;
  CheckedInt active = c.paramsTotal - c.inactive;
  for (CheckedInt v :
       {c.layers, c.moeLayers, c.paramsTotal, c.weightBytes, c.kvBytesPerToken,
        c.kvWindowBytes, c.windowLayers, c.flops, c.bytesRead, c.bytesWritten,
        c.linkBytes, active, c.upkeepFlops, c.upkeepBytes})
    if (v.overflowed())
      return fn.emitOpError()
             << "totals (parameters, bytes or FLOPs over all layers) exceed "
                "a 64-bit count; the model, batch or context is too large";
  ModelStats s;
  s.layers = c.layers.value();
  s.moeLayers = c.moeLayers.value();
  s.paramsTotal = c.paramsTotal.value();
  s.paramsActive = active.value();
  s.weightBytes = c.weightBytes.value();
  s.kvBytesPerToken = c.kvBytesPerToken.value();
  s.kvWindowBytes = c.kvWindowBytes.value();
  s.windowLayers = c.windowLayers.value();
  s.kvSlots = w.kvSlots;
  s.batch = w.batch;
  s.flops = c.flops.value();
  s.bytesRead = c.bytesRead.value();
  s.bytesWritten = c.bytesWritten.value();
  s.linkBytes = c.linkBytes.value();
  s.kvUpkeepFlops = c.upkeepFlops.value();
  s.kvUpkeepBytes = c.upkeepBytes.value();
  return s;
}
