//===- QuaRot.cpp - #kv.quarot: Hadamard-rotated 4-bit heads --------------===//
//
// QuaRot's KV cache (Ashkboos et al., NeurIPS 2024; spcl/QuaRot,
// quarot/transformers/kv_cache.py and e2e/quantized_llama): q and k rotated
// by a Hadamard transform after RoPE, then each (token, head) quantized
// asymmetrically with an fp16 scale and zero; the value rotation is folded
// into v_proj/o_proj but for one online Hadamard over the heads of the
// attention output. Default 4 bits (the paper's KV4).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

static constexpr int64_t kDefaultBits = 4;
/// The e2e cache's scale and zero per group are fp16.
static constexpr int64_t kScaleBits = 16;

LogicalResult
QuaRotFormatAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         std::optional<int64_t> bits) {
  if (bits && (*bits < 2 || *bits > 8))
    return emitError() << "quarot bits must be 2 to 8, got " << *bits;
  return success();
}
bool QuaRotFormatAttr::isResolved() const { return getBits().has_value(); }
KVFormatAttrInterface QuaRotFormatAttr::resolve() const {
  return QuaRotFormatAttr::get(getContext(), getBits().value_or(kDefaultBits));
}
LogicalResult QuaRotFormatAttr::verifyFor(
    const CacheShape &shape,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (!llvm::isPowerOf2_64(shape.headWidth))
    return emitError() << "quarot rotates each head by a Hadamard transform, "
                          "which needs a power-of-2 head width, got "
                       << shape.headWidth;
  return success();
}
int64_t QuaRotFormatAttr::getTokenBits(const CacheShape &shape) const {
  return (shape.keyWidth + shape.valueWidth) *
             getBits().value_or(kDefaultBits) +
         shape.groupsPerToken * 2 * kScaleBits;
}
int64_t QuaRotFormatAttr::getQuantizeOps() const { return 5; }
int64_t QuaRotFormatAttr::getDequantizeOps() const { return 2; }
int64_t QuaRotFormatAttr::getRotationFlops(const CacheShape &shape,
                                           int64_t heads) const {
  // A fast Walsh-Hadamard transform of width w is w * log2(w) additions:
  // each query head and each new key head (the latent, for MLA).
  int64_t w = shape.headWidth;
  int64_t kvHeads = shape.keyWidth / w;
  int64_t flops = (heads + kvHeads) * w * llvm::Log2_64_Ceil(w);
  // The online Hadamard over the heads of the attention output (GQA; MLA's
  // value path is the latent's, already rotated).
  if (shape.valueWidth > 0)
    flops += heads * llvm::Log2_64_Ceil(heads) * w;
  return flops;
}
StringRef QuaRotFormatAttr::getUsage() {
  return "QuaRot: Hadamard-rotated q/k, asymmetric per (token, head) with "
         "fp16 scale and zero\nkeys: bits (4)";
}
