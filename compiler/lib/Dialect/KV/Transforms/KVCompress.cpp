//===- KVCompress.cpp - Static KV budgets and SnapKV selection ------------===//
//
// The pass that puts SnapStream into a model graph. Every cache type gets the
// policy's slot count; a prefill longer than the budget gets, per layer, the
// selection that decides which prompt tokens the static cache keeps. Nothing
// depends on run-time lengths, which is what lets the result run as a static
// graph with continuous batching.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/Transforms/Passes.h"

#include "snapflow/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace snapflow {
namespace kv {
#define GEN_PASS_DEF_KVCOMPRESS
#include "snapflow/Dialect/KV/Transforms/Passes.h.inc"
} // namespace kv
} // namespace snapflow

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

KVPolicyAttrInterface snapflow::kv::getPolicyAttr(MLIRContext *ctx,
                                                  const ResolvedPolicy &p) {
  PoolKind pool = p.maxPool ? PoolKind::max : PoolKind::avg;
  switch (p.kind) {
  case PolicyKind::Full:
    return cast<KVPolicyAttrInterface>(FullPolicyAttr::get(ctx));
  case PolicyKind::Streaming:
    return cast<KVPolicyAttrInterface>(
        StreamingPolicyAttr::get(ctx, p.sinks, p.recent));
  case PolicyKind::SnapKV:
    return cast<KVPolicyAttrInterface>(
        SnapKVPolicyAttr::get(ctx, p.slots, p.obsWindow, p.kernel, pool));
  case PolicyKind::SnapStream:
    return cast<KVPolicyAttrInterface>(SnapStreamPolicyAttr::get(
        ctx, p.slots, p.sinks, p.recent, p.obsWindow, p.kernel, pool));
  }
  llvm_unreachable("unknown policy kind");
}

namespace {

/// `type` with `slots` slots under `policy`, if it is a cache type.
Type compressed(Type type, int64_t slots, KVPolicyAttrInterface policy) {
  if (auto c = dyn_cast<CacheType>(type))
    return CacheType::get(type.getContext(), c.getLayers(), c.getBatch(),
                          slots, c.getKvHeads(), c.getHeadDim(), c.getDtype(),
                          policy);
  if (auto c = dyn_cast<LatentCacheType>(type))
    return LatentCacheType::get(type.getContext(), c.getLayers(), c.getBatch(),
                                slots, c.getLatentDim(), c.getRopeDim(),
                                c.getDtype(), policy, /*seq_shards=*/1);
  return type;
}

struct KVCompressPass : public kv::impl::KVCompressBase<KVCompressPass> {
  using KVCompressBase::KVCompressBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto spec = PolicySpec::parse(policy);
    if (!spec) {
      module.emitError() << "kv-compress: " << llvm::toString(spec.takeError());
      return signalPassFailure();
    }
    int64_t tokens = context;
    if (tokens == 0)
      module.walk([&](func::FuncOp fn) {
        for (Type t : fn.getArgumentTypes())
          if (auto c = dyn_cast<KVCacheTypeInterface>(t))
            tokens = std::max(tokens, c.getSlots());
      });
    if (tokens == 0)
      return; // no cache in the module: nothing to compress
    auto resolved = resolve(*spec, tokens);
    if (!resolved) {
      module.emitError() << "kv-compress: --kv " << policy << ": "
                         << llvm::toString(resolved.takeError());
      return signalPassFailure();
    }
    if (resolved->kind == PolicyKind::Full)
      return;
    r = *resolved;
    attr = getPolicyAttr(&getContext(), r);
    module.walk([&](func::FuncOp fn) { rewriteTypes(fn); });
    module.walk([&](Operation *op) {
      if (auto gqa = dyn_cast<llm::AttentionOp>(op))
        selectAfter(gqa);
      else if (auto mla = dyn_cast<llm::MLAAttentionOp>(op))
        selectAfter(mla);
    });
  }

private:
  /// Every cache value of `fn` (arguments, results, op results) takes the
  /// budget and the policy.
  void rewriteTypes(func::FuncOp fn) {
    for (BlockArgument arg : fn.getArguments())
      arg.setType(compressed(arg.getType(), r.slots, attr));
    fn.walk([&](Operation *op) {
      for (OpResult res : op->getResults())
        res.setType(compressed(res.getType(), r.slots, attr));
    });
    SmallVector<Type> inputs, results;
    for (Type t : fn.getArgumentTypes())
      inputs.push_back(compressed(t, r.slots, attr));
    for (Type t : fn.getResultTypes())
      results.push_back(compressed(t, r.slots, attr));
    fn.setType(FunctionType::get(fn.getContext(), inputs, results));
  }

  /// After a prefill attention over more prompt tokens than the budget:
  /// score, pool, top-k and gather-store the tokens the cache keeps.
  template <typename AttnOp> void selectAfter(AttnOp attn) {
    if (attn.getPhase() != llm::Phase::prefill)
      return;
    auto q = cast<RankedTensorType>(attn.getQuery().getType());
    int64_t batch = q.getDimSize(0), prompt = q.getDimSize(1);
    if (prompt <= r.slots)
      return; // the whole prompt fits: no selection
    OpBuilder b(attn);
    b.setInsertionPointAfter(attn);
    Location loc = attn.getLoc();
    constexpr bool isMLA = std::is_same_v<AttnOp, llm::MLAAttentionOp>;
    int64_t heads = attn.getNumHeads();
    int64_t groups = 1;
    Value keys, keyUp;
    SmallVector<Value, 2> values;
    if constexpr (isMLA) {
      keys = attn.getLatent();
      keyUp = attn.getKvUp();
      values = {attn.getLatent()};
    } else {
      groups = attn.getNumKvHeads();
      keys = attn.getKey();
      values = {attn.getKey(), attn.getValue()};
    }
    Value indices;
    if (r.kind != PolicyKind::Streaming) {
      auto scoreType =
          RankedTensorType::get({batch, groups, prompt}, b.getF32Type());
      Value scores = b.create<ScoreOp>(
          loc, scoreType, attn.getQuery(), keys, keyUp,
          b.getI64IntegerAttr(heads), b.getI64IntegerAttr(groups),
          b.getI64IntegerAttr(r.obsWindow));
      Value pooled = b.create<PoolOp>(
          loc, scoreType, scores, b.getI64IntegerAttr(r.kernel),
          PoolKindAttr::get(b.getContext(),
                            r.maxPool ? PoolKind::max : PoolKind::avg));
      int64_t k = r.slots - r.sinks - r.recent;
      auto indexType =
          RankedTensorType::get({batch, groups, k}, b.getI32Type());
      indices = b.create<TopKOp>(loc, indexType, pooled,
                                 b.getI64IntegerAttr(k),
                                 b.getI64IntegerAttr(r.sinks),
                                 b.getI64IntegerAttr(r.recent));
    }
    Value cache = attn.getNewCache();
    auto store = b.create<GatherStoreOp>(loc, cache.getType(), cache, values,
                                         indices,
                                         b.getI64IntegerAttr(attn.getLayer()));
    cache.replaceAllUsesExcept(store.getResult(), store);
    for (Operation *op = attn->getNextNode(); op != store->getNextNode();
         op = op->getNextNode())
      llm::copyLayerMarker(attn, op);
  }

  ResolvedPolicy r;
  KVPolicyAttrInterface attr;
};

} // namespace
