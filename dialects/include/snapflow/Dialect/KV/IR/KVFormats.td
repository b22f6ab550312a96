//===- KVFormats.td - KV-cache element formats ------------------*- tablegen -*-===//
//
// One attribute per way of storing a cache's elements below its dtype. A
// format may be written with defaults left open (`#kv.kivi<bits = 2>`);
// `resolve()` fills them, and caches hold only resolved formats. The C++ of
// each format (verifier, layout, costs, lowering hooks) is in
// lib/Dialect/KV/IR/Formats/<Name>.cpp. Sources and reasoning for every
// default: ../shared/reference/SEED-SYSTEMS.md sections 3 to 5.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_KV_KVFORMATS
#define SNAPFLOW_DIALECT_KV_KVFORMATS

include "snapflow/Dialect/KV/IR/KVDialect.td"
include "snapflow/Dialect/KV/IR/KVInterfaces.td"
include "mlir/IR/AttrTypeBase.td"

/// A format attribute; `overrides` names the interface methods with a
/// default implementation that the format provides itself.
class KV_FormatAttr<string name, string attrMnemonic,
                    list<string> overrides = []>
    : AttrDef<KV_Dialect, name,
              [DeclareAttrInterfaceMethods<KVFormatAttrInterface, overrides>]> {
  let mnemonic = attrMnemonic;
}

def KV_Fp8FormatAttr : KV_FormatAttr<"Fp8Format", "fp8"> {
  let summary = "8-bit floating point (e4m3) with a per-tensor scale";
  let description = [{
    Every element stored as fp8 e4m3 with one scale per layer's tensor (as
    vLLM's `kv_cache_dtype=fp8`): 8 bits per element, the per-layer scale
    not counted per token. The op that writes a token converts it (a scale
    and a conversion per element), attention converts back on read.

    Example: `#kv.fp8`
  }];
}

def KV_KIVIFormatAttr
    : KV_FormatAttr<"KIVIFormat", "kivi",
                    ["getPublishedAccuracy", "getResidualTokens", "quantizesOnWrite",
                     "buildDecodeWork"]> {
  let summary = "KIVI: 2/4-bit keys per channel, values per token, fp16 residual";
  let description = [{
    KIVI (Liu et al., ICML 2024; official code jy-yuan/KIVI). Keys are
    quantized per channel over groups of `group` tokens, values per token
    over groups of `group` channels, asymmetric with a scale and a zero
    point at the dtype per group: `bits + 2 * dtype bits / group` bits per
    element. The `residual` newest tokens stay at the dtype: new tokens land
    there, and each decode step quantizes one token's values out of the
    window while keys leave it `residual` at a time every `residual` steps
    (one token per step on average: kv.quantize with tokens = 1). A
    prefill quantizes all but its last `residual` tokens as it writes them.
    For a latent cache (MLA) the latent is quantized as keys are. Defaults:
    `group = 32`, `residual = 128` (the LongBench settings of
    docs/long_bench.md); `bits` is 2 or 4.

    Example: `#kv.kivi<bits = 2, group = 32, residual = 128>`, unresolved
    `#kv.kivi<bits = 2>`
  }];
  let parameters = (ins "int64_t":$bits, KV_OptionalCount:$group,
                        KV_OptionalCount:$residual);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def KV_QuaRotFormatAttr
    : KV_FormatAttr<"QuaRotFormat", "quarot", ["getRotationFlops"]> {
  let summary = "QuaRot: Hadamard-rotated heads, 4-bit with a scale and zero per head";
  let description = [{
    QuaRot's KV cache (Ashkboos et al., NeurIPS 2024; spcl/QuaRot, its e2e
    `MultiLayerPagedKVCache4Bit`). Queries and keys are rotated by a
    Hadamard transform after RoPE (a fast Walsh-Hadamard transform,
    `width * log2(width)` additions per head), the value rotation is folded
    into the projections except one online Hadamard over the heads of the
    attention output; each (token, head) is then quantized asymmetrically
    to `bits` bits with an fp16 scale and zero: `bits + 32 / head_dim` bits
    per element (4.25 at head_dim 128). The writer quantizes as it writes;
    attention dequantizes as it reads. For a latent cache the latent
    (a power-of-2 width) is rotated and quantized as one group per token.
    Default `bits = 4`.

    Example: `#kv.quarot<bits = 4>`, unresolved `#kv.quarot<>`
  }];
  let parameters = (ins KV_OptionalCount:$bits);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def KV_ZipCacheFormatAttr
    : KV_FormatAttr<"ZipCacheFormat", "zipcache",
                    ["getResidualTokens", "quantizesOnWrite",
                     "buildPrefillWork", "buildDecodeWork"]> {
  let summary = "ZipCache: salient tokens at 4 bits, the rest at 2, re-quantized every gap steps";
  let description = [{
    ZipCache (He et al., NeurIPS 2024; ThisisBillhe/ZipCache). Token
    saliency is the attention it receives from probe queries, normalized by
    the queries that can see it; the `salient` percent most salient tokens
    are stored at `high` bits, the rest at `low` bits (keys per channel,
    values per token with a per-channel normalizer): `(salient * high +
    (100 - salient) * low) / 100` bits per element, plus a scale and minimum
    per value token at the dtype and a precision flag per token. A prefill
    writes its tokens at the dtype, scores them with `probes` percent of its
    queries (the last, kv.score) and quantizes them by saliency
    (kv.topk, kv.quantize). Decode keeps up to `gap` new tokens at the
    dtype; every `gap` steps a sequence scores its cache with the step's
    query and re-quantizes all of it (kv.requantize). Defaults from the
    official demo (`zipcache_generation_demo.py`): `high = 4`, `low = 2`,
    `salient = 60` (`unimportant_ratio` 0.4), `gap = 100`
    (`streaming_gap`), `probes = 10` (5% recent + 5% random positions).

    Example: `#kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>`,
    unresolved `#kv.zipcache<>`
  }];
  let parameters = (ins KV_OptionalCount:$high, KV_OptionalCount:$low,
                        KV_OptionalCount:$salient, KV_OptionalCount:$gap,
                        KV_OptionalCount:$probes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // SNAPFLOW_DIALECT_KV_KVFORMATS
