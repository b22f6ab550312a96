//===- ShardTP.cpp - Tensor parallelism over sockets ----------------------===//
//
// Turns a model's phase functions into the program one socket of a
// tensor-parallel group runs. Weights shrink to the socket's share, the
// activations that must be whole again are re-assembled by collectives, and
// every split that cannot be made (a head count that does not divide, an
// expert count smaller than the group) is a located error with the numbers.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/LLM/Transforms/Mappings.h"
#include "snapflow/Dialect/LLM/Transforms/Passes.h"

#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"

#include "snapflow/Dialect/KV/IR/KVOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace snapflow {
namespace llm {
#define GEN_PASS_DEF_SHARDTP
#include "snapflow/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace llm
} // namespace snapflow

using namespace mlir;
using namespace snapflow;
using namespace snapflow::llm;

namespace {

RankedTensorType tensorOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// `v`'s type with dimension `dim` set to `size`.
Type withDim(Type type, int64_t dim, int64_t size) {
  auto t = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(t.getShape());
  shape[dim < 0 ? shape.size() + dim : dim] = size;
  // A weight stored in another form (MXFP4 experts) keeps it.
  return RankedTensorType::get(shape, t.getElementType(), t.getEncoding());
}

void setLastDim(Value v, int64_t size) {
  v.setType(withDim(v.getType(), -1, size));
}

struct ShardTPPass : public llm::impl::ShardTPBase<ShardTPPass> {
  using ShardTPBase::ShardTPBase;

  /// The mla-cache and moe options, parsed at the start of the run.
  MlaCache mlaLayout = MlaCache::Replicate;
  MoeMapping moeMapping = MoeMapping::Expert;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // tp 0: every socket of the chip the module is compiled for.
    df::TargetAttr target = df::getTarget(module);
    int64_t groupSize = tp;
    if (groupSize == 0 && target)
      groupSize = target.getSockets();
    if (groupSize < 1) {
      module.emitError() << "shard-tp: tp must be >= 1"
                         << (tp == 0 ? " (tp = 0, every socket of the "
                                       "target, needs a df.target)"
                                     : "")
                         << ", got " << static_cast<int64_t>(tp);
      return signalPassFailure();
    }
    if (target && groupSize > target.getSockets()) {
      module.emitError() << "shard-tp: tp " << groupSize
                         << " is not possible on " << target.getName().strref()
                         << ", which has " << target.getSockets()
                         << " socket(s)";
      return signalPassFailure();
    }
    // The two mapping choices, read once into their enums.
    std::optional<MlaCache> cacheLayout = parseMlaCache(mlaCache);
    if (!cacheLayout) {
      module.emitError() << "shard-tp: mla-cache must be replicate, "
                            "sequence or batch, got '"
                         << mlaCache << "'";
      return signalPassFailure();
    }
    std::optional<MoeMapping> moeLayout = parseMoeMapping(moe);
    if (!moeLayout) {
      module.emitError() << "shard-tp: moe must be expert or split, got '"
                         << moe << "'";
      return signalPassFailure();
    }
    mlaLayout = *cacheLayout;
    moeMapping = *moeLayout;
    n = groupSize;
    // Loops have block arguments (the carried cache) that this pass does not
    // retype; it splits a model's layers before fuse-layers folds them.
    bool looped = false;
    module.walk([&](RepeatOp repeat) {
      repeat.emitOpError("shard-tp: the module is already looped; run "
                         "shard-tp before fuse-layers");
      looped = true;
      return WalkResult::interrupt();
    });
    if (looped)
      return signalPassFailure();
    setTensorParallelism(module, n);
    if (n == 1)
      return;
    for (auto fn : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (failed(shardFunction(fn)))
        return signalPassFailure();
  }

private:
  /// Splits dimension `dim` of the weight behind `w` into `n` shards (once,
  /// however many ops use it). `pad` rounds up instead of requiring a divisor.
  LogicalResult shardParam(Operation *user, Value w, int64_t dim,
                           StringRef what, bool pad = false) {
    auto param = w.getDefiningOp<ParamOp>();
    if (!param)
      return user->emitOpError()
             << "shard-tp: " << what << " is not an llm.param";
    if (!sharded.insert(param).second)
      return success();
    auto t = tensorOf(w);
    int64_t size = t.getDimSize(dim < 0 ? t.getRank() + dim : dim);
    if (!pad && size % n != 0)
      return user->emitOpError()
             << "cannot split " << what << " " << t << " over tp = " << n
             << ": dimension of " << size << " does not divide";
    w.setType(withDim(t, dim, (size + n - 1) / n));
    return success();
  }

  /// Inserts an all-reduce after `v` and routes every other use through it.
  Value allReduceAfter(Value v) {
    OpBuilder b(v.getContext());
    b.setInsertionPointAfterValue(v);
    auto ar = b.create<AllReduceOp>(
        v.getLoc(), v.getType(), v, b.getI64IntegerAttr(n),
        ReduceKindAttr::get(v.getContext(), ReduceKind::sum));
    v.replaceAllUsesExcept(ar.getResult(), ar);
    if (Operation *def = v.getDefiningOp())
      copyLayerMarker(def, ar);
    return ar.getResult();
  }

  /// The linear behind `v`, and the per-head ops between (an llm.rope, a
  /// q/k norm of each head: Qwen3 normalises before the rotation, Llama 4
  /// after it).
  std::pair<LinearOp, SmallVector<Operation *>> projectionOf(Value v) {
    SmallVector<Operation *> perHead;
    while (Operation *def = v.getDefiningOp()) {
      if (auto rope = dyn_cast<RopeOp>(def)) {
        perHead.push_back(def);
        v = rope.getInput();
      } else if (auto norm = dyn_cast<RMSNormOp>(def);
                 norm && norm.getGroup() > 0) {
        perHead.push_back(def);
        v = norm.getInput();
      } else {
        break;
      }
    }
    return {v.getDefiningOp<LinearOp>(), perHead};
  }

  /// Splits the column-parallel projection (and its per-head ops)
  /// producing `v` so that it yields `heads` heads of `headDim`.
  LogicalResult shardColumn(Operation *attn, Value v, int64_t heads,
                            int64_t headDim, StringRef what) {
    auto [linear, perHead] = projectionOf(v);
    if (!linear)
      return attn->emitOpError()
             << "shard-tp: the " << what << " is not produced by llm.linear";
    auto w = tensorOf(linear.getWeight());
    if (sharded.insert(linear.getWeight().getDefiningOp()).second)
      cast<Value>(linear.getWeight()).setType(withDim(w, 0, heads * headDim));
    // A bias (GPT-NeoX, Qwen2) splits with the output columns.
    if (Value bias = linear.getBias())
      if (sharded.insert(bias.getDefiningOp()).second)
        bias.setType(withDim(tensorOf(bias), 0, heads * headDim));
    setLastDim(linear.getResult(), heads * headDim);
    for (Operation *op : perHead) {
      if (auto rope = dyn_cast<RopeOp>(op))
        rope.setNumHeads(heads);
      setLastDim(op->getResult(0), heads * headDim);
    }
    return success();
  }

  /// Splits the row-parallel output projection consuming `out` and sums the
  /// partial results.
  LogicalResult shardRowAfter(Operation *attn, Value out, int64_t width) {
    setLastDim(out, width);
    if (!out.hasOneUse())
      return attn->emitOpError()
             << "shard-tp: expects one output projection after attention";
    auto linear = dyn_cast<LinearOp>(*out.getUsers().begin());
    if (!linear)
      return attn->emitOpError()
             << "shard-tp: attention output does not feed an llm.linear";
    // A bias stays whole: added once to the summed output (each socket's
    // charge of adding it is one vector add, left in the cost).
    if (failed(shardParam(linear, linear.getWeight(), 1, "output projection")))
      return failure();
    allReduceAfter(linear.getResult());
    return success();
  }

  LogicalResult shardGQA(AttentionOp attn) {
    int64_t hq = attn.getNumHeads(), hkv = attn.getNumKvHeads(),
            d = attn.getHeadDim();
    if (hq % n != 0)
      return attn.emitOpError()
             << "cannot split " << hq << " attention heads over tp = " << n;
    int64_t kvLocal;
    if (hkv % n == 0)
      kvLocal = hkv / n;
    else if (n % hkv == 0)
      kvLocal = 1; // each socket keeps one KV head, replicated n/hkv times
    else
      return attn.emitOpError()
             << "cannot split " << hkv << " KV heads over tp = " << n
             << ": neither divides the other";
    if (failed(shardColumn(attn, attn.getQuery(), hq / n, d, "query")) ||
        failed(shardColumn(attn, attn.getKey(), kvLocal, d, "key")) ||
        failed(shardColumn(attn, attn.getValue(), kvLocal, d, "value")))
      return failure();
    attn.setNumHeads(hq / n);
    attn.setNumKvHeads(kvLocal);
    kvHeadsLocal = kvLocal;
    shardSelection(attn.getQuery(), hq / n, kvLocal);
    return shardRowAfter(attn, attn.getResult(), hq / n * d);
  }

  /// The Block Transformer's token-decoder attention: its query, keys and
  /// values split by heads as a GQA attention's.
  LogicalResult shardLocal(LocalAttentionOp attn) {
    int64_t hq = attn.getNumHeads(), hkv = attn.getNumKvHeads(),
            d = attn.getHeadDim();
    if (hq % n != 0 || hkv % n != 0)
      return attn.emitOpError() << "cannot split " << hq << " heads (" << hkv
                                << " KV heads) over tp = " << n;
    if (failed(shardColumn(attn, attn.getQuery(), hq / n, d, "query")))
      return failure();
    for (auto [i, v] : llvm::enumerate(attn.getKv()))
      if (failed(shardColumn(attn, v, hkv / n, d, i % 2 ? "value" : "key")))
        return failure();
    attn.setNumHeads(hq / n);
    attn.setNumKvHeads(hkv / n);
    return shardRowAfter(attn, attn.getResult(), hq / n * d);
  }

  LogicalResult shardMLA(MLAAttentionOp attn) {
    int64_t h = attn.getNumHeads(), nope = attn.getQkNopeHeadDim(),
            rope = attn.getQkRopeHeadDim(), v = attn.getVHeadDim();
    if (h % n != 0)
      return attn.emitOpError()
             << "cannot split " << h << " attention heads over tp = " << n;
    if (mlaLayout == MlaCache::Sequence) {
      // A page backup and its digests span the whole sequence: their split
      // over sockets (and each socket's share of the recalls) is not
      // modelled.
      auto cache = cast<kv::KVCacheTypeInterface>(attn.getCache().getType());
      if (cache.getPolicy().getBackupTokens() > 0)
        return attn.emitOpError()
               << "--mla-cache sequence does not model the page backup of "
               << cache.getPolicy().getLabel()
               << "; use the replicated latent cache (--mla-cache replicate)";
      // Every socket attends all heads over its 1/n of the tokens; the
      // partial softmax results are summed and each socket keeps its heads.
      Value combined = allReduceAfter(attn.getResult());
      OpBuilder b(attn.getContext());
      b.setInsertionPointAfterValue(combined);
      auto slice = b.create<ShardSliceOp>(
          attn.getLoc(), withDim(combined.getType(), -1, h / n * v), combined,
          /*dim=*/2, /*shards=*/n);
      combined.replaceAllUsesExcept(slice.getResult(), slice);
      copyLayerMarker(attn, slice);
      return shardRowAfter(attn, slice.getResult(), h / n * v);
    }
    if (mlaLayout == MlaCache::Batch && attn.getPhase() == arch::Phase::Decode)
      return shardMLAByBatch(attn);
    if (failed(
            shardColumn(attn, attn.getQuery(), h / n, nope + rope, "query")) ||
        failed(shardParam(attn, attn.getKvUp(), 0, "KV up-projection")))
      return failure();
    attn.setNumHeads(h / n);
    shardSelection(attn.getQuery(), h / n, 1);
    return shardRowAfter(attn, attn.getResult(), h / n * v);
  }

  /// `--mla-cache batch` (SnapStream's decode, section 4.2): the query
  /// projection splits by heads, as every projection does; an all-to-all
  /// turns this socket's heads of the whole batch into every head of its
  /// own ceil(B / tp) sequences, whose latent cache it alone holds; the
  /// attention runs all heads over them with the whole up-projection; a
  /// second all-to-all turns its result back into this socket's heads of
  /// the whole batch for the split output projection and its all-reduce.
  /// The step's latent, computed by every socket for the whole batch (the
  /// down-projection is replicated), is a view of this socket's sequences.
  LogicalResult shardMLAByBatch(MLAAttentionOp attn) {
    int64_t h = attn.getNumHeads(), nope = attn.getQkNopeHeadDim(),
            rope = attn.getQkRopeHeadDim(), v = attn.getVHeadDim();
    auto cache = cast<kv::KVCacheTypeInterface>(attn.getCache().getType());
    if (cache.getPolicy().getBackupTokens() > 0)
      return attn.emitOpError()
             << "--mla-cache batch does not model the page backup of "
             << cache.getPolicy().getLabel()
             << "; use the replicated latent cache (--mla-cache replicate)";
    if (failed(shardColumn(attn, attn.getQuery(), h / n, nope + rope, "query")))
      return failure();
    Value q = attn.getQuery(), latent = attn.getLatent();
    int64_t batch = tensorOf(q).getDimSize(0);
    int64_t local = (batch + n - 1) / n;
    OpBuilder b(attn);
    auto toBatch = b.create<AllToAllOp>(
        attn.getLoc(),
        withDim(withDim(q.getType(), 0, local), 2, h * (nope + rope)), q, n,
        b.getI64IntegerAttr(0), b.getI64IntegerAttr(2));
    auto mine = b.create<ShardSliceOp>(
        attn.getLoc(), withDim(latent.getType(), 0, local), latent,
        /*dim=*/0, /*shards=*/n);
    copyLayerMarker(attn, toBatch);
    copyLayerMarker(attn, mine);
    attn.getQueryMutable().assign(toBatch.getResult());
    attn.getLatentMutable().assign(mine.getResult());
    Value out = attn.getResult();
    out.setType(withDim(out.getType(), 0, local));
    b.setInsertionPointAfter(attn);
    auto toHeads = b.create<AllToAllOp>(
        attn.getLoc(), withDim(withDim(out.getType(), 0, batch), 2, h / n * v),
        out, n, b.getI64IntegerAttr(2), b.getI64IntegerAttr(0));
    out.replaceAllUsesExcept(toHeads.getResult(), toHeads);
    copyLayerMarker(attn, toHeads);
    return shardRowAfter(attn, toHeads.getResult(), h / n * v);
  }

  /// The SnapKV selection scoring `query` (inserted by --kv-compress) follows
  /// the attention's local head and group counts: the scores, their
  /// pooling (absent for a policy that pools nothing) and the top-k.
  void shardSelection(Value query, int64_t heads, int64_t groups) {
    for (Operation *user : query.getUsers()) {
      // A page ranking averages this socket's heads (ArkVale's n_groups:
      // each socket ranks the pages of its own heads' digests).
      if (auto pages = dyn_cast<kv::PageScoreOp>(user))
        pages.setNumHeads(heads);
      auto score = dyn_cast<kv::ScoreOp>(user);
      if (!score)
        continue;
      score.setNumHeads(heads);
      score.setNumGroups(groups);
      Value v = score.getScores();
      v.setType(withDim(v.getType(), 1, groups));
      SmallVector<Value> work{v};
      while (!work.empty()) {
        Value scores = work.pop_back_val();
        for (Operation *use : scores.getUsers()) {
          if (auto pool = dyn_cast<kv::PoolOp>(use)) {
            Value(pool.getResult()).setType(scores.getType());
            work.push_back(pool.getResult());
          } else if (auto topk = dyn_cast<kv::TopKOp>(use)) {
            Value(topk.getIndices())
                .setType(withDim(topk.getIndices().getType(), 1, groups));
          }
        }
      }
    }
  }

  LogicalResult shardMLP(MLPOp mlp) {
    if (failed(shardParam(mlp, mlp.getGate(), 0, "MLP gate")) ||
        failed(shardParam(mlp, mlp.getUp(), 0, "MLP up")) ||
        failed(shardParam(mlp, mlp.getDown(), 1, "MLP down")))
      return failure();
    allReduceAfter(mlp.getResult());
    return success();
  }

  LogicalResult shardGeluMLP(GeluMLPOp mlp) {
    if (failed(shardParam(mlp, mlp.getUp(), 0, "MLP up")) ||
        failed(shardParam(mlp, mlp.getUpBias(), 0, "MLP up bias")) ||
        failed(shardParam(mlp, mlp.getDown(), 1, "MLP down")))
      return failure();
    // The second bias is added once to the summed output.
    allReduceAfter(mlp.getResult());
    return success();
  }

  LogicalResult shardMoE(MoEOp op) {
    if (moeMapping == MoeMapping::Expert) {
      if (op.getNumExperts() % n != 0)
        return op.emitOpError() << "cannot spread " << op.getNumExperts()
                                << " experts over tp = " << n;
      for (Value w : {op.getGate(), op.getUp(), op.getDown()})
        if (failed(shardParam(op, w, 0, "routed experts")))
          return failure();
      op.setNumExperts(op.getNumExperts() / n);
      op.setExpertShards(n);
      // A count of touched experts was for the whole set; on this socket's
      // share the routing formula (or --moe-routing, which runs after) must
      // count again.
      op.removeExpectedActiveExpertsAttr();
    } else {
      if (failed(shardParam(op, op.getGate(), 1, "expert gate")) ||
          failed(shardParam(op, op.getUp(), 1, "expert up")) ||
          failed(shardParam(op, op.getDown(), 2, "expert down")))
        return failure();
    }
    // The shared experts: an MLP whose result the add after this op sums
    // with the routed experts'. Split like an MLP; one all-reduce after the
    // sum serves both.
    Value out = op.getResult();
    if (out.hasOneUse())
      if (auto add = dyn_cast<AddOp>(*out.getUsers().begin())) {
        Value other = add.getLhs() == out ? add.getRhs() : add.getLhs();
        if (auto shared = other.getDefiningOp<MLPOp>()) {
          if (failed(shardParam(shared, shared.getGate(), 0,
                                "shared expert gate")) ||
              failed(
                  shardParam(shared, shared.getUp(), 0, "shared expert up")) ||
              failed(shardParam(shared, shared.getDown(), 1,
                                "shared expert down")))
            return failure();
          sharedExperts.insert(shared);
          out = add.getResult();
        }
      }
    allReduceAfter(out);
    return success();
  }

  /// The cache type one socket holds.
  Type shardCache(Type type) {
    if (auto c = dyn_cast<kv::CacheType>(type))
      return kv::CacheType::get(type.getContext(), c.getLayers(), c.getBatch(),
                                c.getSlots(), kvHeadsLocal, c.getHeadDim(),
                                c.getDtype(), c.getPolicy(), c.getFormat());
    if (auto c = dyn_cast<kv::LatentCacheType>(type)) {
      if (mlaLayout == MlaCache::Batch && decode)
        return kv::LatentCacheType::get(
            type.getContext(), c.getLayers(), (c.getBatch() + n - 1) / n,
            c.getSlots(), c.getLatentDim(), c.getRopeDim(), c.getDtype(),
            c.getPolicy(), /*seq_shards=*/1, c.getFormat(),
            /*batch_shards=*/n);
      if (mlaLayout != MlaCache::Sequence)
        return type;
      return kv::LatentCacheType::get(
          type.getContext(), c.getLayers(), c.getBatch(), c.getSlots() / n,
          c.getLatentDim(), c.getRopeDim(), c.getDtype(), c.getPolicy(), n,
          c.getFormat(), /*batch_shards=*/1);
    }
    return type;
  }

  LogicalResult shardFunction(func::FuncOp fn) {
    kvHeadsLocal = 0;
    // --mla-cache batch splits a decode's batch; a prefill (one prompt at a
    // time) attends by heads, as SnapStream's prefill does.
    llm::WorkloadAttr workload = llm::getWorkload(fn);
    decode = !workload || workload.getPhase() == arch::Phase::Decode;
    if (mlaLayout == MlaCache::Sequence)
      for (BlockArgument arg : fn.getArguments())
        if (auto c = dyn_cast<kv::LatentCacheType>(arg.getType()))
          if (c.getSlots() % n != 0)
            return fn.emitOpError()
                   << "cannot split a latent cache of " << c.getSlots()
                   << " slots by sequence over tp = " << n;

    SmallVector<Operation *> ops;
    fn.walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops) {
      LogicalResult result = success();
      if (auto embed = dyn_cast<EmbedOp>(op)) {
        result = shardParam(embed, embed.getTable(), 0, "embedding table",
                            /*pad=*/true);
        allReduceAfter(embed.getResult());
      } else if (auto attn = dyn_cast<AttentionOp>(op)) {
        result = shardGQA(attn);
      } else if (auto attn = dyn_cast<MLAAttentionOp>(op)) {
        result = shardMLA(attn);
      } else if (auto mlp = dyn_cast<MLPOp>(op)) {
        // An MoE's shared experts are split with it (shardMoE).
        if (!sharedExperts.contains(op))
          result = shardMLP(mlp);
      } else if (auto mlp = dyn_cast<GeluMLPOp>(op)) {
        result = shardGeluMLP(mlp);
      } else if (auto attn = dyn_cast<LocalAttentionOp>(op)) {
        result = shardLocal(attn);
      } else if (auto moeOp = dyn_cast<MoEOp>(op)) {
        result = shardMoE(moeOp);
      } else if (auto head = dyn_cast<LMHeadOp>(op)) {
        result = shardParam(head, head.getWeight(), 0, "output head",
                            /*pad=*/true);
        if (succeeded(result)) {
          int64_t local = tensorOf(head.getWeight()).getDimSize(0);
          Value logits = head.getResult();
          setLastDim(logits, local);
          OpBuilder b(head);
          b.setInsertionPointAfter(head);
          auto gather = b.create<AllGatherOp>(
              head.getLoc(), withDim(logits.getType(), -1, local * n), logits,
              n, /*dim=*/2);
          logits.replaceAllUsesExcept(gather.getResult(), gather);
        }
      }
      if (failed(result))
        return failure();
    }
    // Cache values take the per-socket cache type everywhere.
    auto retype = [&](Value v) {
      // A GQA cache follows its attention's KV heads; with no attention in
      // the function there is nothing to follow.
      if (isa<kv::CacheType>(v.getType()) && kvHeadsLocal == 0)
        return;
      if (isa<kv::KVCacheTypeInterface>(v.getType()))
        v.setType(shardCache(v.getType()));
    };
    for (BlockArgument arg : fn.getArguments())
      retype(arg);
    // A format checked against the whole cache may not fit a socket's
    // share of it (KIVI's value groups against the local heads' width).
    for (BlockArgument arg : fn.getArguments())
      if (auto c = dyn_cast<kv::KVCacheTypeInterface>(arg.getType()))
        if (kv::KVFormatAttrInterface format = c.getFormat())
          if (failed(format.verifyFor(kv::getCacheShape(c), [&] {
                return fn.emitError()
                       << "shard-tp: tp " << n << " leaves each socket a "
                       << "cache the format " << format.getLabel()
                       << " cannot store: ";
              })))
            return failure();
    // A decode attention's probabilities follow its local cache: its
    // KV-head groups, or its share of the slots when split by sequence.
    auto retypeProbs = [&](Value probs, Value cacheValue) {
      if (!probs)
        return;
      auto c = cast<kv::KVCacheTypeInterface>(cacheValue.getType());
      probs.setType(RankedTensorType::get(
          {c.getBatch(), kv::getGroups(c), c.getSlots()},
          cast<RankedTensorType>(probs.getType()).getElementType()));
    };
    fn.walk([&](Operation *op) {
      for (Value r : op->getResults())
        retype(r);
      // What a read returns follows its cache's local KV heads (the
      // staged prompt a chunked prefill's selection reads, too).
      if (auto read = dyn_cast<kv::ReadOp>(op))
        if (auto c = dyn_cast<kv::CacheType>(read.getCache().getType()))
          for (Value v : read.getValues())
            v.setType(withDim(v.getType(), 2, c.getKvHeads() * c.getHeadDim()));
      if (auto attn = dyn_cast<AttentionOp>(op))
        retypeProbs(attn.getProbs(), attn.getCache());
      else if (auto attn = dyn_cast<MLAAttentionOp>(op))
        retypeProbs(attn.getProbs(), attn.getCache());
    });
    auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
    SmallVector<Type> inputs;
    for (BlockArgument arg : fn.getArguments())
      inputs.push_back(arg.getType());
    fn.setType(
        FunctionType::get(fn.getContext(), inputs, ret.getOperandTypes()));
    return success();
  }

  llvm::DenseSet<Operation *> sharded;
  /// Whether the function being split is a decode (a prefill's MLA is never
  /// split by batch).
  bool decode = true;
  /// MLPs that are an MoE's shared experts, already split with it.
  llvm::DenseSet<Operation *> sharedExperts;
  int64_t kvHeadsLocal = 0;
  int64_t n = 1; ///< sockets in the group
};

} // namespace
