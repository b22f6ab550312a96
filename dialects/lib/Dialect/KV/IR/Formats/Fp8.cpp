//===- Fp8.cpp - #kv.fp8: 8-bit floating-point elements -------------------===//
//
// Every element as fp8 e4m3 with one scale per layer's tensor, as vLLM's
// `kv_cache_dtype=fp8` stores it: 8 bits per element. Writing multiplies by
// the inverse scale and converts (2 operations per element), reading
// converts and multiplies (2).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

bool Fp8FormatAttr::isResolved() const { return true; }
KVFormatAttrInterface Fp8FormatAttr::resolve() const { return *this; }
LogicalResult
Fp8FormatAttr::verifyFor(const CacheShape &,
                         function_ref<InFlightDiagnostic()>) const {
  return success();
}
int64_t Fp8FormatAttr::getTokenBits(const CacheShape &shape) const {
  return (shape.keyWidth + shape.valueWidth) * 8;
}
int64_t Fp8FormatAttr::getQuantizeOps() const { return 2; }
int64_t Fp8FormatAttr::getDequantizeOps() const { return 2; }
StringRef Fp8FormatAttr::getUsage() {
  return "fp8 e4m3, one scale per layer's tensor (vLLM kv_cache_dtype=fp8)";
}
