//===- OpHelpers.h - What the llm ops' verifiers and costs share -*- C++
//-*-===//
//
// Private to the llm dialect's sources: the shape checks and the cost
// pieces its ops share (LLMOps.cpp, LLMAttention.cpp), so a rule such as
// "an attention writes its new tokens itself unless a prompt overflows a
// compressed cache" is written once for the cost model and the traffic
// lower-to-df reads.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_LIB_DIALECT_LLM_IR_OPHELPERS_H
#define SNAPFLOW_LIB_DIALECT_LLM_IR_OPHELPERS_H

#include "snapflow/Dialect/LLM/IR/LLMOps.h"

namespace snapflow {
namespace llm {
namespace detail {

using namespace mlir;

inline RankedTensorType tensorOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

inline int64_t lastDim(Value v) {
  RankedTensorType t = tensorOf(v);
  return t.getRank() == 0 ? 1 : t.getDimSize(t.getRank() - 1);
}

/// Elements of a value, checked.
inline CheckedInt numElements(Value v) {
  return snapflow::getNumElements(v.getType());
}

/// Rows of an activation: every dimension but the last (B*T), checked.
inline CheckedInt rows(Value v) {
  RankedTensorType t = tensorOf(v);
  return t.getRank() == 0 ? CheckedInt(1)
                          : checkedProduct(t.getShape().drop_back());
}

/// Rows of an activation as a GEMM's M (verified shapes fit in 64 bits).
inline int64_t gemmRows(Value v) { return rows(v).get().value_or(0); }

inline LogicalResult verifyStatic(Operation *op) {
  for (Type t : op->getOperandTypes())
    if (auto s = dyn_cast<ShapedType>(t); s && !s.hasStaticShape())
      return op->emitOpError()
             << "operand type " << t << " must have a static shape";
  for (Type t : op->getResultTypes())
    if (auto s = dyn_cast<ShapedType>(t); s && !s.hasStaticShape())
      return op->emitOpError()
             << "result type " << t << " must have a static shape";
  return success();
}

/// Checks `type` is `tensor<batch x tokens x width>`.
inline LogicalResult expectBTW(Operation *op, StringRef what, Value v,
                               int64_t batch, int64_t tokens, int64_t width) {
  RankedTensorType t = tensorOf(v);
  if (t.getRank() != 3 || t.getDimSize(0) != batch ||
      t.getDimSize(1) != tokens || t.getDimSize(2) != width)
    return op->emitOpError()
           << what << " must be tensor<" << batch << "x" << tokens << "x"
           << width << "xT>, got " << v.getType();
  return success();
}

inline LogicalResult expectShape(Operation *op, StringRef what, Value v,
                                 ArrayRef<int64_t> shape) {
  if (tensorOf(v).getShape() != shape) {
    std::string dims;
    for (int64_t d : shape)
      dims += std::to_string(d) + "x";
    return op->emitOpError()
           << what << " must be tensor<" << dims << "T>, got " << v.getType();
  }
  return success();
}

inline LogicalResult verifyLayerIndex(Operation *op, int64_t layer,
                                      int64_t layers) {
  if (layer < 0 || layer >= layers)
    return op->emitOpError()
           << "layer " << layer << " is out of range for a cache of " << layers
           << " layers";
  return success();
}

/// Whether an attention writes its `tokens` new tokens to HBM itself:
/// always in decode, and in prefill unless a whole prompt overflows a
/// compressed cache (then kv.gather_store writes what is kept). A chunk of a
/// chunked prefill (`prefix` > 0) always does: into the cache, or into the
/// prompt's staging copy the later chunks and the selection read.
inline bool writesCache(arch::Phase phase, kv::KVCacheTypeInterface cache,
                        int64_t tokens, int64_t prefix) {
  return phase == arch::Phase::Decode || !cache.getPolicy().isCompressing() ||
         prefix > 0 || tokens <= cache.getTotalSlots().value();
}

/// What an attention over a cache with an element format adds: quantizing
/// the tokens it writes (when the format quantizes on write), dequantizing
/// the stored tokens it reads (the decode's slots, a chunk's prefix) and the
/// format's rotations per query token. 0 without a format.
inline CheckedInt formatFlops(Type cacheType, arch::Phase phase, int64_t batch,
                              int64_t tokens, int64_t prefix, int64_t heads,
                              bool writes) {
  auto cache = cast<kv::KVCacheTypeInterface>(cacheType);
  kv::KVFormatAttrInterface format = cache.getFormat();
  if (!format)
    return 0;
  bool prefill = phase == arch::Phase::Prefill;
  CheckedInt flops = CheckedInt(batch) * tokens *
                     format.getRotationFlops(kv::getCacheShape(cache), heads);
  if (writes)
    flops += kv::getWriteFlops(cache, tokens, prefill);
  if (!prefill)
    flops += kv::getReadFlops(cache, cache.getSlots());
  if (prefix > 0)
    flops += kv::getReadFlops(cache, prefix / cache.getSeqShards());
  return flops;
}

/// Causal (query, key) pairs of a prompt of `t` tokens.
inline CheckedInt causalPairs(CheckedInt t) { return t * (t + 1) / 2; }

/// A decode attention's optional probabilities: tensor<B x groups x slots x
/// f32>, the softmax over the slots summed over each group's query heads
/// (and the step's queries).
inline LogicalResult verifyProbs(Operation *op, Value probs, arch::Phase phase,
                                 int64_t batch, int64_t groups, int64_t slots) {
  if (!probs)
    return success();
  if (phase != arch::Phase::Decode)
    return op->emitOpError()
           << "returns attention probabilities only in decode (a prefill's "
              "scores are kv.score's)";
  auto t = cast<RankedTensorType>(probs.getType());
  if (t.getShape() != ArrayRef<int64_t>{batch, groups, slots} ||
      !t.getElementType().isF32())
    return op->emitOpError() << "probs must be tensor<" << batch << "x"
                             << groups << "x" << slots << "xf32> (batch x "
                             << "KV-head groups x cache slots), got " << t;
  return success();
}

/// Summing the probabilities of `heads` query heads (and `t` queries) per
/// group: one add per head, query and slot.
inline CheckedInt probsFlops(Value probs, RankedTensorType q, int64_t heads,
                             int64_t slots) {
  if (!probs)
    return 0;
  return CheckedInt(q.getDimSize(0)) * q.getDimSize(1) * heads * slots;
}

/// A prefix (earlier chunks' tokens) is a prefill's, and not negative.
inline LogicalResult verifyPrefix(Operation *op, int64_t prefix,
                                  arch::Phase phase) {
  if (prefix < 0)
    return op->emitOpError() << "prefix must be >= 0, got " << prefix;
  if (prefix > 0 && phase != arch::Phase::Prefill)
    return op->emitOpError() << "a prefix (" << prefix
                             << " tokens of earlier chunks) applies to a "
                                "chunked prefill only";
  return success();
}

/// Head counts of a grouped-query attention: positive, and the query heads
/// a multiple of the KV heads.
inline LogicalResult verifyHeads(Operation *op, int64_t hq, int64_t hkv,
                                 int64_t d) {
  if (hq <= 0 || hkv <= 0 || d <= 0)
    return op->emitOpError("num_heads, num_kv_heads and head_dim must be > 0");
  if (hq % hkv != 0)
    return op->emitOpError()
           << "num_heads (" << hq << ") is not a multiple of num_kv_heads ("
           << hkv << ")";
  return success();
}

} // namespace detail
} // namespace llm
} // namespace snapflow

#endif // SNAPFLOW_LIB_DIALECT_LLM_IR_OPHELPERS_H
