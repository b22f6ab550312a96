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

namespace {

/// `type` with `slots` slots (0: its own) under `policy`, stored in
/// `format`, if it is a cache type.
Type compressed(Type type, int64_t slots, KVPolicyAttrInterface policy,
                KVFormatAttrInterface format) {
  if (auto c = dyn_cast<CacheType>(type))
    return CacheType::get(type.getContext(), c.getLayers(), c.getBatch(),
                          slots ? slots : c.getSlots(), c.getKvHeads(),
                          c.getHeadDim(), c.getDtype(), policy, format);
  if (auto c = dyn_cast<LatentCacheType>(type))
    return LatentCacheType::get(type.getContext(), c.getLayers(), c.getBatch(),
                                slots ? slots : c.getSlots(), c.getLatentDim(),
                                c.getRopeDim(), c.getDtype(), policy,
                                slots ? 1 : c.getSeqShards(), format,
                                c.getBatchShards());
  return type;
}

struct KVCompressPass : public kv::impl::KVCompressBase<KVCompressPass> {
  using KVCompressBase::KVCompressBase;

  /// The policy and format already parsed (the driver's): nothing is
  /// parsed again; the string options name them in messages.
  KVCompressPass(KVPolicyAttrInterface policy, KVFormatAttrInterface format,
                 int64_t contextTokens)
      : givenPolicy(policy), givenFormat(format) {
    this->policy = policy.getLabel();
    this->format = format ? format.getLabel() : "bf16";
    this->context = contextTokens;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Taken as given in the module's own context; from another context
    // (a caller that built the module elsewhere), parsed from its label.
    bool given = givenPolicy && givenPolicy.getContext() == &getContext();
    KVPolicyAttrInterface parsed = given ? givenPolicy : nullptr;
    fmt = given ? givenFormat : nullptr;
    if (!parsed) {
      auto p = parsePolicy(&getContext(), policy);
      if (!p) {
        module.emitError() << "kv-compress: " << llvm::toString(p.takeError());
        return signalPassFailure();
      }
      parsed = *p;
      auto f = parseFormat(&getContext(), format);
      if (!f) {
        module.emitError() << "kv-compress: " << llvm::toString(f.takeError());
        return signalPassFailure();
      }
      fmt = *f;
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
    // The policy's own resolution: a budget from a ratio, its defaults, and
    // its checks against the context.
    attr = parsed.resolveFor(tokens, [&] {
      return module.emitError() << "kv-compress: --kv " << policy << ": ";
    });
    if (!attr)
      return signalPassFailure();
    setApplied(module, attr.getLabel(), fmt ? fmt.getLabel() : "bf16");
    if (!attr.isCompressing() && !fmt)
      return;
    slots = attr.isCompressing() ? attr.getSlotsFor(tokens) : 0;
    // The format's checks against the cache (a group that must divide a
    // width), as an error naming the flag rather than a type verifier's.
    bool bad = false;
    module.walk([&](func::FuncOp fn) {
      for (auto [i, t] : llvm::enumerate(fn.getArgumentTypes()))
        if (fmt && !bad && isa<KVCacheTypeInterface>(t) &&
            !llm::isWindowCache(fn, i) &&
            failed(fmt.verifyFor(getCacheShape(t), [&] {
              return module.emitError()
                     << "kv-compress: --kv-format " << format << ": ";
            })))
          bad = true;
    });
    if (bad)
      return signalPassFailure();
    module.walk([&](func::FuncOp fn) { rewriteTypes(fn); });
    module.walk([&](func::FuncOp fn) {
      staged = llm::getStagedPromptSlots(fn);
      chunked = llm::getWorkload(fn) && llm::getWorkload(fn).getChunks() > 1;
      SmallVector<Operation *> attentions;
      fn.walk([&](Operation *op) {
        if (isa<llm::AttentionOp, llm::MLAAttentionOp>(op))
          attentions.push_back(op);
      });
      for (Operation *op : attentions) {
        // A later layer of a CLA group only reads its group's cache layer:
        // the group's first layer selects, quantizes, backs up, recalls
        // and keeps the policy's state for it.
        if (!llm::writesKV(op))
          continue;
        // A window's ring (sliding and chunked layers) is already bounded:
        // the policy compresses the full layers' cache.
        if (llm::getWindow(op) > 0)
          continue;
        if (auto gqa = dyn_cast<llm::AttentionOp>(op))
          gqa.getPhase() == arch::Phase::Decode ? decodeAround(gqa)
                                                : prefillAfter(gqa);
        else if (auto mla = dyn_cast<llm::MLAAttentionOp>(op))
          mla.getPhase() == arch::Phase::Decode ? decodeAround(mla)
                                                : prefillAfter(mla);
      }
    });
  }

private:
  /// Every cache value of `fn` (arguments, results, op results) takes the
  /// budget and the policy, but the window cache's (the argument marked
  /// llm.window and the caches its windowed attentions return).
  void rewriteTypes(func::FuncOp fn) {
    for (BlockArgument arg : fn.getArguments())
      if (!llm::isWindowCache(fn, arg.getArgNumber()))
        arg.setType(compressed(arg.getType(), slots, attr, fmt));
    fn.walk([&](Operation *op) {
      if (llm::getWindow(op) > 0)
        return;
      for (OpResult res : op->getResults())
        res.setType(compressed(res.getType(), slots, attr, fmt));
    });
    SmallVector<Type> results;
    for (Type t : fn.getResultTypes())
      results.push_back(t);
    // The results take the types of what the function returns.
    fn.walk([&](func::ReturnOp ret) {
      results.assign(ret.getOperandTypes().begin(),
                     ret.getOperandTypes().end());
    });
    fn.setType(FunctionType::get(fn.getContext(),
                                 fn.getBody().getArgumentTypes(), results));
  }

  /// The per-token values an attention writes to its cache: (key, value)
  /// for GQA, (latent) for MLA.
  template <typename AttnOp>
  static SmallVector<Value, 2> newValues(AttnOp attn) {
    if constexpr (std::is_same_v<AttnOp, llm::MLAAttentionOp>)
      return {attn.getLatent()};
    else
      return {attn.getKey(), attn.getValue()};
  }

  /// Whether the policy keeps a page backup (ArkVale).
  bool backsUp() const { return attr.getBackupTokens() > 0; }

  /// After an attention (prefill or decode) under a policy with a page
  /// backup: kv.backup copies the tokens it wrote to the backup and digests
  /// the pages they complete; later ops see the cache after it.
  template <typename AttnOp> Value backupAfter(AttnOp attn) {
    Value cache = attn.getNewCache();
    if (!backsUp())
      return cache;
    OpBuilder b(attn);
    b.setInsertionPointAfter(attn);
    auto backup = b.create<BackupOp>(attn.getLoc(), cache.getType(), cache,
                                     newValues(attn),
                                     b.getI64IntegerAttr(attn.getLayer()));
    cache.replaceAllUsesExcept(backup.getResult(), backup);
    llm::copyLayerMarker(attn, backup);
    return backup.getResult();
  }

  /// Replaces the uses of `cache` after `last` (and outside the ops from
  /// `first` to `last`, which the caller just built over it) by `after`,
  /// and marks those ops with `attn`'s layer.
  static void chainAfter(Operation *attn, Value cache, Operation *first,
                         Value after) {
    Operation *last = after.getDefiningOp();
    cache.replaceUsesWithIf(after, [&](OpOperand &use) {
      Operation *user = use.getOwner();
      return !(user->getBlock() == last->getBlock() &&
               (user == last || user->isBeforeInBlock(last)));
    });
    for (Operation *op = first; op != last->getNextNode();
         op = op->getNextNode())
      llm::copyLayerMarker(attn, op);
  }

  /// After a decode attention under a cache format: the format's per-step
  /// and periodic ops over the token it wrote (KIVI's quantization out of
  /// the residual, ZipCache's re-quantization). Built first, so a backup
  /// and an upkeep built after it come between the attention and it.
  template <typename AttnOp> void formatAfterDecode(AttnOp attn) {
    if (!fmt)
      return;
    OpBuilder b(attn);
    b.setInsertionPointAfter(attn);
    RecallInputs in;
    in.cache = attn.getNewCache();
    in.query = attn.getQuery();
    in.heads = attn.getNumHeads();
    in.layer = attn.getLayer();
    Value after = fmt.buildDecodeWork(b, attn.getLoc(), in);
    if (!after)
      return;
    chainAfter(attn, in.cache, attn->getNextNode(), after);
  }

  /// Around a decode attention: the policy's recall before it (a policy
  /// with a page backup), the format's work, the backup after it, and the
  /// upkeep of a policy that evicts by attention.
  template <typename AttnOp> void decodeAround(AttnOp attn) {
    formatAfterDecode(attn);
    if (backsUp()) {
      Operation *prev = attn->getPrevNode();
      OpBuilder b(attn);
      RecallInputs in;
      in.cache = attn.getCache();
      in.query = attn.getQuery();
      in.heads = attn.getNumHeads();
      in.layer = attn.getLayer();
      if (Value recalled = attr.buildDecodeRecall(b, attn.getLoc(), in)) {
        attn.getCacheMutable().assign(recalled);
        for (Operation *op = prev ? prev->getNextNode()
                                  : &attn->getBlock()->front();
             op != attn.getOperation(); op = op->getNextNode())
          llm::copyLayerMarker(attn, op);
      }
      backupAfter(attn);
    }
    upkeepAfter(attn);
  }

  /// After a prefill attention: the policy's selection (over more prompt
  /// tokens than the budget), then the format's work over the tokens
  /// written.
  template <typename AttnOp> void prefillAfter(AttnOp attn) {
    Value written = backupAfter(attn);
    SelectionInputs in = promptInputs(attn);
    if (attr.isCompressing())
      if (Value stored = selectAfter(attn, written, in))
        written = stored;
    if (!fmt)
      return;
    // The tokens written: the prompt (a chunk's, or the staged prompt the
    // selection read), into the cache after the write.
    in.cache = written;
    in.slots = cast<KVCacheTypeInterface>(written.getType()).getSlots();
    OpBuilder b(attn);
    b.setInsertionPointAfter(written.getDefiningOp());
    Operation *before = written.getDefiningOp();
    Value after = fmt.buildPrefillWork(b, attn.getLoc(), in);
    if (!after)
      return;
    chainAfter(attn, written, before->getNextNode(), after);
  }

  /// What a prefill attention gives a selection or a format's work: its
  /// batch, prompt (the attention's tokens), heads, queries and keys (the
  /// latents and the absorbed up-projection for MLA), and layer.
  template <typename AttnOp> static SelectionInputs promptInputs(AttnOp attn) {
    auto q = cast<RankedTensorType>(attn.getQuery().getType());
    SelectionInputs in;
    in.batch = q.getDimSize(0);
    in.prompt = q.getDimSize(1);
    in.heads = attn.getNumHeads();
    in.layer = attn.getLayer();
    in.queries = attn.getQuery();
    if constexpr (std::is_same_v<AttnOp, llm::MLAAttentionOp>) {
      in.keys = attn.getLatent();
      in.keyUp = attn.getKvUp();
    } else {
      in.groups = attn.getNumKvHeads();
      in.keys = attn.getKey();
    }
    return in;
  }

  /// After a prefill attention over more prompt tokens than the budget:
  /// the policy chooses the tokens the cache keeps (its lowering hook), and
  /// kv.gather_store writes them (sinks, chosen, recent); returns the cache
  /// after the store (null: the prompt fits, no selection). A policy with a
  /// page backup backed every prefill's tokens up first (`cache`). `in` (the
  /// attention's promptInputs) then describes the prompt selected over.
  template <typename AttnOp>
  Value selectAfter(AttnOp attn, Value cache, SelectionInputs &in) {
    // A chunked prefill selects over the whole prompt its chunks staged,
    // with the last chunk's queries.
    int64_t prompt = chunked ? staged : in.prompt;
    if (prompt <= slots)
      return {}; // the whole prompt fits: no selection
    in.prompt = prompt;
    in.slots = slots;
    in.cache = cache;
    OpBuilder b(attn);
    b.setInsertionPointAfter(cache.getDefiningOp());
    Location loc = attn.getLoc();
    SmallVector<Value, 2> values = newValues(attn);
    if (chunked) {
      // The prompt's K/V (or latents) as the chunks staged them in HBM.
      auto prompt = [&](Value v) {
        auto t = cast<RankedTensorType>(v.getType());
        return RankedTensorType::get({t.getDimSize(0), staged, t.getDimSize(2)},
                                     t.getElementType());
      };
      SmallVector<Type, 2> types;
      for (Value v : values)
        types.push_back(prompt(v));
      auto read = b.create<ReadOp>(loc, types, cache,
                                   b.getI64IntegerAttr(attn.getLayer()),
                                   b.getI64IntegerAttr(staged));
      values.assign(read.getResults().begin(), read.getResults().end());
      in.keys = values.front();
    }
    Selection selection = attr.buildPrefillSelection(b, loc, in);
    // A policy with per-slot state starts it from the selection's scores.
    Value scores = stateful() ? selection.scores : Value();
    auto store = b.create<GatherStoreOp>(loc, cache.getType(), cache, values,
                                         selection.indices, scores,
                                         b.getI64IntegerAttr(attn.getLayer()));
    // Later layers see the filled cache; the selection itself (the ops
    // before the store) reads the attention's.
    cache.replaceUsesWithIf(store.getResult(), [&](OpOperand &use) {
      Operation *user = use.getOwner();
      return user != store && !(user->getBlock() == store->getBlock() &&
                                user->isBeforeInBlock(store));
    });
    for (Operation *op = attn->getNextNode(); op != store->getNextNode();
         op = op->getNextNode())
      llm::copyLayerMarker(attn, op);
    return store.getResult();
  }

  /// Whether the policy keeps per-slot state (and so evicts at decode).
  bool stateful() const { return attr.getSlotStateBytes(1) > 0; }

  /// After a decode attention under a policy that evicts by attention: the
  /// attention also returns its probabilities over the slots (rebuilt with
  /// the `probs` result), and the policy's upkeep (its decode-time hook)
  /// consumes them; later layers see the cache after the upkeep.
  template <typename AttnOp> void upkeepAfter(AttnOp attn) {
    if (!stateful())
      return;
    auto cache = cast<KVCacheTypeInterface>(attn.getCache().getType());
    OpBuilder b(attn);
    Location loc = attn.getLoc();
    auto probsType = RankedTensorType::get(
        {cache.getBatch(), getGroups(cache), cache.getSlots()}, b.getF32Type());
    auto withProbs =
        b.create<AttnOp>(loc,
                         TypeRange{attn.getResult().getType(),
                                   attn.getNewCache().getType(), probsType},
                         attn->getOperands(), attn->getAttrs());
    attn.getResult().replaceAllUsesWith(withProbs.getResult());
    attn.getNewCache().replaceAllUsesWith(withProbs.getNewCache());
    attn->erase();
    b.setInsertionPointAfter(withProbs);
    UpkeepInputs in;
    in.cache = withProbs.getNewCache();
    in.probs = withProbs.getProbs();
    in.layer = withProbs.getLayer();
    Value after = attr.buildDecodeUpkeep(b, loc, in);
    if (!after)
      return;
    in.cache.replaceUsesWithIf(after, [&](OpOperand &use) {
      return use.getOwner() != after.getDefiningOp();
    });
    for (Operation *op = withProbs->getNextNode();
         op != after.getDefiningOp()->getNextNode(); op = op->getNextNode())
      llm::copyLayerMarker(withProbs, op);
  }

  /// The policy resolved for the context, and the slots it keeps (0: the
  /// caches keep their own, under a policy that does not compress).
  KVPolicyAttrInterface givenPolicy;
  KVFormatAttrInterface givenFormat;
  KVPolicyAttrInterface attr;
  /// The element format (null: the dtype).
  KVFormatAttrInterface fmt;
  int64_t slots = 0;
  /// The function being rewritten: a chunked prefill, and the prompt tokens
  /// its chunks stage (0 when the prompt fits the cache).
  bool chunked = false;
  int64_t staged = 0;
};

} // namespace

std::unique_ptr<Pass>
snapflow::kv::createKVCompress(KVPolicyAttrInterface policy,
                               KVFormatAttrInterface format, int64_t context) {
  return std::make_unique<KVCompressPass>(policy, format, context);
}
