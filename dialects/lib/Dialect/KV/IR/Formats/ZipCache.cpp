//===- ZipCache.cpp - #kv.zipcache: saliency-mixed 4/2-bit tokens ---------===//
//
// ZipCache (He et al., NeurIPS 2024; ThisisBillhe/ZipCache,
// zipcache/models/modeling_llama.py and CompressUtils). Saliency is the
// attention a token gets from probe queries, normalized by the queries that
// see it; the most salient `salient` percent are stored at `high` bits, the
// rest at `low`; decode buffers `gap` tokens at the dtype and every `gap`
// steps re-scores and re-quantizes the whole cache. Defaults from
// zipcache_generation_demo.py: 4/2 bits, unimportant_ratio 0.4,
// streaming_gap 100; probes are its 5% recent + 5% random positions.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

static constexpr int64_t kHigh = 4, kLow = 2, kSalient = 60, kGap = 100,
                         kProbes = 10;

LogicalResult ZipCacheFormatAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, std::optional<int64_t> high,
    std::optional<int64_t> low, std::optional<int64_t> salient,
    std::optional<int64_t> gap, std::optional<int64_t> probes) {
  int64_t h = high.value_or(kHigh), l = low.value_or(kLow);
  if (l < 1 || h < l || h > 8)
    return emitError() << "zipcache needs 1 <= low <= high <= 8 bits, got low "
                       << l << ", high " << h;
  if (salient && (*salient < 0 || *salient > 100))
    return emitError() << "zipcache salient is a percent (0 to 100), got "
                       << *salient;
  if (gap && *gap < 1)
    return emitError() << "zipcache gap must be >= 1 step, got " << *gap;
  if (probes && (*probes < 1 || *probes > 100))
    return emitError() << "zipcache probes is a percent (1 to 100), got "
                       << *probes;
  return success();
}
bool ZipCacheFormatAttr::isResolved() const {
  return getHigh() && getLow() && getSalient() && getGap() && getProbes();
}
KVFormatAttrInterface ZipCacheFormatAttr::resolve() const {
  return ZipCacheFormatAttr::get(
      getContext(), getHigh().value_or(kHigh), getLow().value_or(kLow),
      getSalient().value_or(kSalient), getGap().value_or(kGap),
      getProbes().value_or(kProbes));
}
LogicalResult
ZipCacheFormatAttr::verifyFor(const CacheShape &,
                              function_ref<InFlightDiagnostic()>) const {
  return success();
}
int64_t ZipCacheFormatAttr::getTokenBits(const CacheShape &shape) const {
  int64_t salient = getSalient().value_or(kSalient);
  int64_t perHundred = salient * getHigh().value_or(kHigh) +
                       (100 - salient) * getLow().value_or(kLow);
  int64_t elements = shape.keyWidth + shape.valueWidth;
  // The token's value scale and minimum at the dtype, and its precision
  // flag; per-channel parameters are per sequence, not per token.
  return (elements * perHundred + 99) / 100 + 2 * shape.dtypeBits + 1;
}
int64_t ZipCacheFormatAttr::getResidualTokens() const {
  return getGap().value_or(kGap);
}
bool ZipCacheFormatAttr::quantizesOnWrite(bool) const { return false; }
int64_t ZipCacheFormatAttr::getQuantizeOps() const { return 5; }
int64_t ZipCacheFormatAttr::getDequantizeOps() const { return 2; }

Value ZipCacheFormatAttr::buildPrefillWork(OpBuilder &b, Location loc,
                                           const SelectionInputs &in) const {
  int64_t kept = std::min(in.prompt, in.slots);
  int64_t salient = (kept * getSalient().value_or(kSalient) + 99) / 100;
  Value indices;
  if (salient > 0) {
    // The probes: the last `probes` percent of the prompt's queries (the
    // queries the op is given cover at most the last chunk).
    auto q = mlir::cast<RankedTensorType>(in.queries.getType());
    int64_t probes = std::max<int64_t>(
        1, std::min((in.prompt * getProbes().value_or(kProbes) + 99) / 100,
                    q.getDimSize(1)));
    auto scoreType =
        RankedTensorType::get({in.batch, in.groups, in.prompt}, b.getF32Type());
    Value scores = b.create<ScoreOp>(loc, scoreType, in.queries, in.keys,
                                     in.keyUp, b.getI64IntegerAttr(in.heads),
                                     b.getI64IntegerAttr(in.groups),
                                     b.getI64IntegerAttr(probes));
    auto indexType =
        RankedTensorType::get({in.batch, in.groups, salient}, b.getI32Type());
    indices =
        b.create<TopKOp>(loc, indexType, scores, b.getI64IntegerAttr(salient),
                         b.getI64IntegerAttr(0), b.getI64IntegerAttr(0));
  }
  return b.create<QuantizeOp>(
      loc, in.cache.getType(), in.cache, indices, b.getI64IntegerAttr(in.layer),
      b.getI64IntegerAttr(kept), b.getI64IntegerAttr(1));
}

Value ZipCacheFormatAttr::buildDecodeWork(OpBuilder &b, Location loc,
                                          const RecallInputs &in) const {
  return b.create<RequantizeOp>(loc, in.cache.getType(), in.query, in.cache,
                                b.getI64IntegerAttr(in.layer),
                                b.getI64IntegerAttr(in.heads),
                                b.getI64IntegerAttr(getGap().value_or(kGap)));
}
StringRef ZipCacheFormatAttr::getUsage() {
  return "ZipCache: salient tokens at high bits, the rest at low, "
         "re-quantized every gap steps\nkeys: high (4), low (2), salient "
         "(60, percent), gap (100), probes (10, percent of prompt queries)";
}
