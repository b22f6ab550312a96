//===- LLMAttention.cpp - The attentions over a KV cache ------------------===//
//
// llm.attention (grouped-query) and llm.mla_attention (DeepSeek's latent
// attention): their shape rules, their FLOPs and bytes, and what each moves
// as a pipeline stage (TrafficOpInterface), from the same helpers, so the
// cost model and lower-to-df agree on what an attention writes.
//
//===----------------------------------------------------------------------===//

#include "OpHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace snapflow;
using namespace snapflow::llm;
using namespace snapflow::llm::detail;

/// Whether attention `op` writes the step's `t` new tokens to its cache
/// itself: not when a later layer of a CLA group shares the cache, else by
/// writesCache. Its bytes written, its format's upkeep and the tokens its
/// stage stores (TrafficOpInterface) all follow this one rule.
template <typename AttentionT>
static bool writesNewTokens(AttentionT op, kv::KVCacheTypeInterface cache,
                            int64_t t) {
  return !op.getReuseKv() &&
         writesCache(op.getPhase(), cache, t, op.getPrefix());
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t hq = getNumHeads(), hkv = getNumKvHeads(), d = getHeadDim();
  if (failed(verifyHeads(*this, hq, hkv, d)))
    return failure();
  auto cache = cast<kv::CacheType>(getCache().getType());
  if (cache.getKvHeads() != hkv)
    return emitOpError() << "GQA group mismatch: the cache holds "
                         << cache.getKvHeads() << " KV heads but the op has "
                         << hkv;
  if (cache.getHeadDim() != d)
    return emitOpError() << "cache head_dim " << cache.getHeadDim()
                         << " does not match head_dim " << d;
  if (failed(verifyLayerIndex(*this, getLayer(), cache.getLayers())))
    return failure();
  RankedTensorType q = tensorOf(getQuery());
  if (q.getRank() != 3)
    return emitOpError() << "query must be tensor<B x T x " << hq * d
                         << ">, got " << q;
  int64_t b = q.getDimSize(0), t = q.getDimSize(1);
  if (b != cache.getBatch())
    return emitOpError() << "batch " << b << " does not match the cache batch "
                         << cache.getBatch();
  if (failed(expectBTW(*this, "query", getQuery(), b, t, hq * d)) ||
      failed(expectBTW(*this, "key", getKey(), b, t, hkv * d)) ||
      failed(expectBTW(*this, "value", getValue(), b, t, hkv * d)))
    return failure();
  if (getResult().getType() != getQuery().getType())
    return emitOpError("result type must equal the query type");
  for (Value kv : {getKey(), getValue()})
    if (tensorOf(kv).getElementType() != cache.getDtype())
      return emitOpError() << "key and value element type "
                           << tensorOf(kv).getElementType()
                           << " does not match the cache dtype "
                           << cache.getDtype();
  bool compressing = cache.getPolicy().isCompressing();
  if (failed(verifyPrefix(*this, getPrefix(), getPhase())))
    return failure();
  if (getPhase() == arch::Phase::Decode && t > cache.getSlots())
    return emitOpError() << "decodes " << t << " tokens but the cache has "
                         << cache.getSlots() << " slots";
  if (FloatAttr cap = getSoftcapAttr(); cap && !(cap.getValueAsDouble() > 0))
    return emitOpError() << "softcap must be > 0, got "
                         << cap.getValueAsDouble();
  int64_t window = getWindow();
  if (window < 0)
    return emitOpError() << "window must be >= 0 (0: full), got " << window;
  if (window > 0) {
    // A window's ring holds at most W slots; a prefill's prefix beyond the
    // window is not read.
    if (cache.getSlots() > window)
      return emitOpError() << "a window of " << window
                           << " tokens keeps at most that many slots; the "
                              "cache has "
                           << cache.getSlots();
    if (getPrefix() > window)
      return emitOpError() << "prefix (" << getPrefix()
                           << ") exceeds the window (" << window << ")";
    if (compressing)
      return emitOpError("a window's cache is not compressed by a KV policy");
  } else if (getPhase() == arch::Phase::Prefill && !compressing &&
             t + getPrefix() > cache.getSlots()) {
    return emitOpError() << "prefill of " << t + getPrefix()
                         << " tokens does not fit a full cache of "
                         << cache.getSlots() << " slots";
  }
  return verifyProbs(*this, getProbs(), getPhase(), b, hkv, cache.getSlots());
}

/// Query-key pairs of a causal prefill of `t` tokens whose queries see at
/// most `window` keys (0: all earlier ones): t(t+1)/2, or within a window
/// W < t, W(W+1)/2 for the first W queries and W for each after.
static CheckedInt windowedPairs(int64_t t, int64_t window) {
  if (window == 0 || t <= window)
    return causalPairs(t);
  return causalPairs(window) + CheckedInt(t - window) * window;
}
CheckedInt AttentionOp::getFlops() {
  RankedTensorType q = tensorOf(getQuery());
  CheckedInt b = q.getDimSize(0), t = q.getDimSize(1);
  CheckedInt pairs =
      getPhase() == arch::Phase::Prefill
          ? windowedPairs(q.getDimSize(1), getWindow())
          : t * cast<kv::CacheType>(getCache().getType()).getSlots();
  // QK^T and PV (2 x 2 FLOPs per MAC) plus softmax (and a soft-cap) per
  // score, and what a policy or format adds.
  return b * getNumHeads() * pairs * flopsPerScore() + getPrefixFlops() +
         getKVUpkeepFlops();
}
// Each KV head's keys serve its query heads for each of the step's tokens.
int64_t AttentionOp::getGemmRows() {
  return tensorOf(getQuery()).getDimSize(1) * getNumHeads() /
         std::max<int64_t>(1, getNumKvHeads());
}
CheckedInt AttentionOp::getKVUpkeepFlops() {
  RankedTensorType q = tensorOf(getQuery());
  auto cache = cast<kv::CacheType>(getCache().getType());
  int64_t tk = tensorOf(getKey()).getDimSize(1);
  return probsFlops(getProbs(), q, getNumHeads(), cache.getSlots()) +
         formatFlops(cache, getPhase(), q.getDimSize(0), tk, getPrefix(),
                     getNumHeads(), writesNewTokens(*this, cache, tk));
}
CheckedInt AttentionOp::getKVUpkeepBytes() {
  return getProbs() ? getTensorBytes(getProbs().getType()) : CheckedInt(0);
}
CheckedInt AttentionOp::getPrefixFlops() {
  RankedTensorType q = tensorOf(getQuery());
  CheckedInt pairs = CheckedInt(q.getDimSize(1)) * getPrefix();
  return q.getDimSize(0) * getNumHeads() * pairs * flopsPerScore();
}
CheckedInt AttentionOp::getBytesRead() {
  // A CLA layer's decode finds the step's key and value in the cache it
  // reads; its prefill attends over the group's keys and values as given.
  bool inCache = getReuseKv() && getPhase() == arch::Phase::Decode;
  CheckedInt bytes =
      inCache ? getTensorBytes(getQuery().getType())
              : getTotalBytes(ValueRange{getQuery(), getKey(), getValue()});
  auto cache = cast<kv::KVCacheTypeInterface>(getCache().getType());
  if (getPhase() == arch::Phase::Decode)
    bytes += cache.getBytesPerSequencePerLayer() * cache.getBatch();
  bytes += cache.getBytesPerTokenPerLayer() * getPrefix() * cache.getBatch();
  return bytes;
}
CheckedInt AttentionOp::getBytesWritten() {
  CheckedInt bytes = getTensorBytes(getResult().getType());
  if (Value probs = getProbs())
    bytes += getTensorBytes(probs.getType());
  auto cache = cast<kv::CacheType>(getCache().getType());
  // New tokens go to the cache, except in a prefill longer than a compressed
  // cache, where kv.gather_store writes the tokens kept instead.
  int64_t t = tensorOf(getKey()).getDimSize(1);
  if (writesNewTokens(*this, cache, t))
    bytes += kv::getWriteBytes(cache, tokensKept(t),
                               getPhase() == arch::Phase::Prefill);
  return bytes;
}

//===----------------------------------------------------------------------===//
// MLAAttentionOp
//===----------------------------------------------------------------------===//

LogicalResult MLAAttentionOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t h = getNumHeads(), nope = getQkNopeHeadDim(),
          rope = getQkRopeHeadDim(), v = getVHeadDim(), r = getKvLoraRank();
  if (h <= 0 || nope <= 0 || rope < 0 || v <= 0 || r <= 0)
    return emitOpError("num_heads, qk_nope_head_dim, v_head_dim and "
                       "kv_lora_rank must be > 0 and qk_rope_head_dim >= 0");
  auto cache = cast<kv::LatentCacheType>(getCache().getType());
  if (cache.getLatentDim() != r || cache.getRopeDim() != rope)
    return emitOpError() << "latent cache (latent_dim " << cache.getLatentDim()
                         << ", rope_dim " << cache.getRopeDim()
                         << ") does not match kv_lora_rank " << r
                         << " and qk_rope_head_dim " << rope;
  if (failed(verifyLayerIndex(*this, getLayer(), cache.getLayers())))
    return failure();
  RankedTensorType q = tensorOf(getQuery());
  if (q.getRank() != 3)
    return emitOpError() << "query must be tensor<B x T x " << h * (nope + rope)
                         << ">, got " << q;
  int64_t b = q.getDimSize(0), t = q.getDimSize(1);
  if (b != cache.getBatch())
    return emitOpError() << "batch " << b << " does not match the cache batch "
                         << cache.getBatch();
  if (failed(expectBTW(*this, "query", getQuery(), b, t, h * (nope + rope))) ||
      failed(expectBTW(*this, "latent", getLatent(), b, t, r + rope)) ||
      failed(expectShape(*this, "kv_up", getKvUp(), {h * (nope + v), r})) ||
      failed(expectShape(*this, "latent_norm", getLatentNorm(), {r})) ||
      failed(expectBTW(*this, "result", getResult(), b, t, h * v)))
    return failure();
  if (tensorOf(getLatent()).getElementType() != cache.getDtype())
    return emitOpError() << "latent element type "
                         << tensorOf(getLatent()).getElementType()
                         << " does not match the cache dtype "
                         << cache.getDtype();
  if (getPhase() == arch::Phase::Decode && t > cache.getSlots())
    return emitOpError() << "decodes " << t << " tokens but the cache has "
                         << cache.getSlots() << " slots";
  if (failed(verifyPrefix(*this, getPrefix(), getPhase())))
    return failure();
  if (getPhase() == arch::Phase::Prefill &&
      !cache.getPolicy().isCompressing() &&
      t + getPrefix() > cache.getSlots() * cache.getSeqShards())
    return emitOpError() << "prefill of " << t + getPrefix()
                         << " tokens does not fit a full cache of "
                         << cache.getSlots() * cache.getSeqShards() << " slots";
  return verifyProbs(*this, getProbs(), getPhase(), b, 1, cache.getSlots());
}
CheckedInt MLAAttentionOp::getFlops() {
  RankedTensorType q = tensorOf(getQuery());
  CheckedInt b = q.getDimSize(0), t = q.getDimSize(1);
  CheckedInt h = getNumHeads(), nope = getQkNopeHeadDim(),
             rope = getQkRopeHeadDim(), v = getVHeadDim(), r = getKvLoraRank();
  // Norm of the new latents and rotation of their rotary part (done by the
  // group's first layer for a CLA layer).
  CheckedInt prep = getReuseKv() ? CheckedInt(0) : b * t * (4 * r + 3 * rope);
  if (getPhase() == arch::Phase::Decode) {
    // Absorbed: q_nope -> latent space, scores and PV against the latent
    // cache, latent -> v_head output.
    CheckedInt s = cast<kv::LatentCacheType>(getCache().getType()).getSlots();
    CheckedInt perQuery = 2 * h * nope * r + 2 * h * s * (r + rope) +
                          2 * h * s * r + 2 * h * r * v + 5 * h * s;
    return prep + b * t * perQuery + getKVUpkeepFlops();
  }
  // Prefill: decompress the prompt's K and V, then causal attention; a cache
  // split by sequence gives each socket 1/seq_shards of the keys.
  auto cache = cast<kv::LatentCacheType>(getCache().getType());
  CheckedInt pairs = causalPairs(t) / cache.getSeqShards();
  // Each socket decompresses only the tokens it holds.
  return prep +
         b * (2 * t * r * h * (nope + v) / cache.getSeqShards() +
              2 * h * pairs * (nope + rope) + 2 * h * pairs * v +
              5 * h * pairs) +
         getPrefixFlops() + getKVUpkeepFlops();
}
// Decode attends the latent cache absorbed: every head of every token of
// the step shares each cached latent. Prefill decompresses keys and values
// per head, and each serves the prompt's tokens.
int64_t MLAAttentionOp::getGemmRows() {
  int64_t t = tensorOf(getQuery()).getDimSize(1);
  return getPhase() == arch::Phase::Decode ? t * getNumHeads() : t;
}
CheckedInt MLAAttentionOp::getKVUpkeepFlops() {
  RankedTensorType q = tensorOf(getQuery());
  auto cache = cast<kv::LatentCacheType>(getCache().getType());
  int64_t t = q.getDimSize(1);
  return probsFlops(getProbs(), q, getNumHeads(), cache.getSlots()) +
         formatFlops(cache, getPhase(), q.getDimSize(0), t, getPrefix(),
                     getNumHeads(), writesNewTokens(*this, cache, t));
}
CheckedInt MLAAttentionOp::getKVUpkeepBytes() {
  return getProbs() ? getTensorBytes(getProbs().getType()) : CheckedInt(0);
}
CheckedInt MLAAttentionOp::getPrefixFlops() {
  RankedTensorType q = tensorOf(getQuery());
  CheckedInt b = q.getDimSize(0), t = q.getDimSize(1);
  CheckedInt h = getNumHeads(), nope = getQkNopeHeadDim(),
             rope = getQkRopeHeadDim(), v = getVHeadDim(), r = getKvLoraRank();
  auto cache = cast<kv::LatentCacheType>(getCache().getType());
  // The prefix tokens this socket holds: decompressed again, then every
  // query attends to them fully.
  CheckedInt p = CheckedInt(getPrefix()) / cache.getSeqShards();
  CheckedInt pairs = t * p;
  return b * (2 * p * r * h * (nope + v) + 2 * h * pairs * (nope + rope) +
              2 * h * pairs * v + 5 * h * pairs);
}
CheckedInt MLAAttentionOp::getBytesRead() {
  // A CLA layer neither normalises the latents (no norm weight) nor, in a
  // decode, takes the step's latent (it is in the cache it reads).
  CheckedInt bytes =
      !getReuseKv() ? getTotalBytes(ValueRange{getQuery(), getLatent(),
                                               getKvUp(), getLatentNorm()})
      : getPhase() == arch::Phase::Decode
          ? getTotalBytes(ValueRange{getQuery(), getKvUp()})
          : getTotalBytes(ValueRange{getQuery(), getLatent(), getKvUp()});
  auto cache = cast<kv::LatentCacheType>(getCache().getType());
  if (getPhase() == arch::Phase::Decode)
    bytes += cache.getBytesPerSequencePerLayer() * cache.getBatch();
  bytes += cache.getBytesPerTokenPerLayer() * getPrefix() /
           cache.getSeqShards() * cache.getBatch();
  return bytes;
}
CheckedInt MLAAttentionOp::getBytesWritten() {
  CheckedInt bytes = getTensorBytes(getResult().getType());
  if (Value probs = getProbs())
    bytes += getTensorBytes(probs.getType());
  auto cache = cast<kv::LatentCacheType>(getCache().getType());
  int64_t t = tensorOf(getLatent()).getDimSize(1);
  if (writesNewTokens(*this, cache, t))
    bytes += kv::getWriteBytes(cache, t, getPhase() == arch::Phase::Prefill);
  return bytes;
}

//===----------------------------------------------------------------------===//
// What the attentions move as stages (TrafficOpInterface)
//===----------------------------------------------------------------------===//

// The tokens an attention writes to its cache are the ones its cost
// counts (getBytesWritten): writesNewTokens.
std::optional<arch::StageKind> AttentionOp::getStageKind() {
  return arch::StageKind::Gemm;
}
int64_t AttentionOp::getKVTokensWritten() {
  auto cache = cast<kv::KVCacheTypeInterface>(getCache().getType());
  int64_t t = tensorOf(getKey()).getDimSize(1);
  return writesNewTokens(*this, cache, t) ? cache.getBatch() * tokensKept(t)
                                          : 0;
}
int64_t AttentionOp::flopsPerScore() {
  return 4 * getHeadDim() + 5 + (getSoftcapAttr() ? 3 : 0);
}
int64_t AttentionOp::tokensKept(int64_t tokens) {
  auto cache = cast<kv::KVCacheTypeInterface>(getCache().getType());
  return getWindow() > 0 ? std::min(tokens, cache.getSlots()) : tokens;
}
bool AttentionOp::readsKVSlots() { return getPhase() == arch::Phase::Decode; }

std::optional<arch::StageKind> MLAAttentionOp::getStageKind() {
  return arch::StageKind::Gemm;
}
int64_t MLAAttentionOp::getKVTokensWritten() {
  auto cache = cast<kv::KVCacheTypeInterface>(getCache().getType());
  int64_t t = tensorOf(getLatent()).getDimSize(1);
  return writesNewTokens(*this, cache, t) ? cache.getBatch() * t : 0;
}
bool MLAAttentionOp::readsKVSlots() {
  return getPhase() == arch::Phase::Decode;
}
