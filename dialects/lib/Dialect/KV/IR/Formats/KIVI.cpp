//===- KIVI.cpp - #kv.kivi: 2/4-bit keys per channel, values per token ----===//
//
// KIVI (Liu et al., ICML 2024; jy-yuan/KIVI, models/llama_kivi.py and
// quant/new_pack.py). Keys per channel over groups of `group` tokens,
// values per token over groups of `group` channels, asymmetric, a scale and
// a zero point at the data dtype per group; the `residual` newest tokens
// stay at the dtype. Defaults: the LongBench settings (docs/long_bench.md:
// "32 group size and 128 residual length for both KIVI-2 and KIVI-4").
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

#include "../Published.h"

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

static constexpr int64_t kDefaultGroup = 32, kDefaultResidual = 128;

LogicalResult
KIVIFormatAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t bits, std::optional<int64_t> group,
                       std::optional<int64_t> residual) {
  if (bits != 2 && bits != 4)
    return emitError() << "kivi bits must be 2 or 4 (the official kernels' "
                          "widths), got "
                       << bits;
  int64_t g = group.value_or(kDefaultGroup);
  int64_t r = residual.value_or(kDefaultResidual);
  if (g <= 0)
    return emitError() << "kivi group must be > 0, got " << g;
  if (r <= 0 || r % g != 0)
    return emitError() << "kivi residual must be a positive multiple of the "
                          "group ("
                       << g << "), got " << r;
  return success();
}

bool KIVIFormatAttr::isResolved() const { return getGroup() && getResidual(); }
KVFormatAttrInterface KIVIFormatAttr::resolve() const {
  return KIVIFormatAttr::get(getContext(), getBits(),
                             getGroup().value_or(kDefaultGroup),
                             getResidual().value_or(kDefaultResidual));
}
LogicalResult
KIVIFormatAttr::verifyFor(const CacheShape &shape,
                          function_ref<InFlightDiagnostic()> emitError) const {
  int64_t group = getGroup().value_or(kDefaultGroup);
  if (shape.valueWidth % group != 0)
    return emitError() << "kivi quantizes values per token in groups of "
                       << group << " channels, but a token's value has "
                       << shape.valueWidth;
  return success();
}
int64_t KIVIFormatAttr::getTokenBits(const CacheShape &shape) const {
  int64_t group = getGroup().value_or(kDefaultGroup);
  int64_t meta = 2 * shape.dtypeBits; // a scale and a zero point
  // Keys: a scale and zero per channel and group of `group` tokens.
  int64_t keys =
      shape.keyWidth * getBits() + (shape.keyWidth * meta + group - 1) / group;
  // Values: a scale and zero per token and group of `group` channels.
  int64_t values =
      shape.valueWidth * getBits() + shape.valueWidth / group * meta;
  return keys + values;
}
int64_t KIVIFormatAttr::getResidualTokens() const {
  return getResidual().value_or(kDefaultResidual);
}
bool KIVIFormatAttr::quantizesOnWrite(bool prefill) const { return prefill; }
// Quantize: min and max of the group (2), scale (amortized), subtract,
// multiply, round, pack (4): 5 per element with the reductions' share;
// dequantize: a multiply-add per element.
int64_t KIVIFormatAttr::getQuantizeOps() const { return 5; }
int64_t KIVIFormatAttr::getDequantizeOps() const { return 2; }
Value KIVIFormatAttr::buildDecodeWork(OpBuilder &b, Location loc,
                                      const RecallInputs &in) const {
  // Each step one token's values leave the residual; keys leave it
  // `residual` at a time every `residual` steps: one token a step either
  // way, on average.
  return b.create<QuantizeOp>(loc, in.cache.getType(), in.cache, Value(),
                              b.getI64IntegerAttr(in.layer),
                              b.getI64IntegerAttr(1), b.getI64IntegerAttr(1));
}
StringRef KIVIFormatAttr::getUsage() {
  return "KIVI: keys per channel, values per token, fp16 residual window\n"
         "keys: bits (2|4, required), group (32), residual (128, a multiple "
         "of group)";
}

/// KIVI's published accuracy (SEED-SYSTEMS.md section 9, and KIVI's own table
/// in section 5).
ArrayRef<PublishedAccuracy> KIVIFormatAttr::getPublishedAccuracy() {
  static const PublishedAccuracy rows[] = {
      {published::kLongBench6, "Llama-3-8B-Instruct", "2 bits", 48.13, 47.18,
       published::kLongBenchYuan},
      {published::kLongBench6, "Llama-3-8B-Instruct", "4 bits", 48.13, 48.18,
       published::kLongBenchYuan},
      {published::kLongBench6, "Mistral-7B-Instruct-v0.2", "2 bits", 49.12,
       47.23, published::kLongBenchYuan},
      {published::kLongBench6, "Mistral-7B-Instruct-v0.2", "4 bits", 49.12,
       49.12, published::kLongBenchYuan},
      {"LongBench v1, average", "LongChat-7B-v1.5-32k",
       "2 bits, group 32, residual 128", 38.72, 38.3,
       "KIVI repo docs/long_bench.md"},
      {"LongBench v1, average", "LongChat-7B-v1.5-32k",
       "4 bits, group 32, residual 128", 38.72, 38.79,
       "KIVI repo docs/long_bench.md"},
      {"LongBench v1, average", "Mistral-7B-Instruct-v0.2",
       "2 bits, group 32, residual 128", 43.54, 42.43,
       "KIVI repo docs/long_bench.md"},
      {"LongBench v1, average", "Mistral-7B-Instruct-v0.2",
       "4 bits, group 32, residual 128", 43.54, 43.53,
       "KIVI repo docs/long_bench.md"},
  };
  return rows;
}
