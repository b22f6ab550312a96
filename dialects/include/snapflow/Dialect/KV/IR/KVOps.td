//===- KVOps.td - KV-cache ops ----------------------------------*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_KV_KVOPS
#define SNAPFLOW_DIALECT_KV_KVOPS

include "snapflow/Dialect/SnapflowBase.td"
include "snapflow/Dialect/KV/IR/KVDialect.td"
include "snapflow/Dialect/KV/IR/KVAttrs.td"
include "snapflow/Dialect/KV/IR/KVTypes.td"
include "snapflow/Interfaces/CostInterface.td"
include "snapflow/Interfaces/TrafficInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

/// Every kv op is a pipeline stage; `traffic` names the TrafficOpInterface
/// methods it defines beyond its stage kind (what it moves besides its
/// streams).
class KV_Op<string mnemonic, list<Trait> traits = [],
            list<string> traffic = []>
    : Op<KV_Dialect, mnemonic,
         !listconcat(traits, [Pure, DeclareOpInterfaceMethods<CostOpInterface,
                                     ["getKVUpkeepFlops", "getKVUpkeepBytes"]>,
                              DeclareOpInterfaceMethods<TrafficOpInterface,
                                                        traffic>])>;

def KV_AppendOp : KV_Op<"append", [AllTypesMatch<["cache", "result"]>],
    ["getKVTokensWritten"]> {
  let summary = "write the new tokens' K/V (or latent) at the ring slot of one layer";
  let description = [{
    Decode-time write of T new tokens into layer `layer` of the cache. Under a
    full cache the tokens go after the context; under a compressing policy they
    overwrite the oldest entries of the recent ring, so the slot count never
    changes. Operands are `(k, v)` for `!kv.cache` (each `tensor<B x T x
    kv_heads*head_dim>`) and `(latent)` for `!kv.latent_cache` (`tensor<B x T x
    latent_dim+rope_dim>`).

    Example:
    ```mlir
    %c1 = kv.append %c0[3], %k, %v : !kv.cache<layers = 32, batch = 1, slots = 4096, kv_heads = 8, head_dim = 128, dtype = bf16, policy = #kv.full>, tensor<1x1x1024xbf16>, tensor<1x1x1024xbf16>
    ```
  }];
  let arguments = (ins KV_AnyCache:$cache, Variadic<AnyRankedTensor>:$values,
                       SF_I64Attr:$layer);
  let results = (outs KV_AnyCache:$result);
  let assemblyFormat = [{
    $cache `[` $layer `]` `,` $values attr-dict `:` qualified(type($cache)) `,` type($values)
  }];
  let hasVerifier = 1;
}

def KV_ReadOp : KV_Op<"read", [], ["readsKVSlots"]> {
  let summary = "read every slot of one layer of the cache";
  let description = [{
    Returns the cached keys and values (or latents) of layer `layer` for all
    `slots` positions: `(k, v)` of `tensor<B x slots x kv_heads*head_dim>` for
    `!kv.cache`, `(latent)` of `tensor<B x slots x latent_dim+rope_dim>` for
    `!kv.latent_cache`. With `staged` > 0 (a chunked prefill whose prompt
    exceeds a compressing cache) it reads the `staged` tokens of the
    prompt's staging copy the chunks wrote instead, for the selection at the
    end of the prefill; such a read is a view of that HBM copy, not a stage:
    its consumers load what they use of it.

    Example:
    ```mlir
    %k, %v = kv.read %c[0] : !kv.cache<layers = 2, batch = 1, slots = 16, kv_heads = 2, head_dim = 4, dtype = bf16, policy = #kv.full> -> tensor<1x16x8xbf16>, tensor<1x16x8xbf16>
    ```
  }];
  let arguments = (ins KV_AnyCache:$cache, SF_I64Attr:$layer,
                       DefaultValuedAttr<SF_I64Attr, "0">:$staged);
  let results = (outs Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = [{
    $cache `[` $layer `]` attr-dict `:` qualified(type($cache)) `->` type($values)
  }];
  let hasVerifier = 1;
}

def KV_ScoreOp : KV_Op<"score", [], ["isKVSelection"]> {
  let summary = "SnapKV scores: observation-window attention summed per KV-head group";
  let description = [{
    The last `obs_window` of the L prompt queries attend (softmax in f32,
    causal inside the window) over all L prompt keys; the probabilities are
    summed over the window queries and over the query heads of each of
    `num_groups` KV-head groups. Queries are `tensor<B x L x num_heads*Dq>`,
    keys `tensor<B x L x num_groups*Dk>`, the result `tensor<B x num_groups x L
    x f32>`. Only the window's queries are read: the queries may be the
    last chunk of a chunked prefill (at least `obs_window` tokens), the keys
    the whole prompt.

    For MLA (`num_groups = 1`) the keys are the prompt's latents
    (`kv_lora_rank + rope` wide) and `absorb` gives the KV up-projection
    `tensor<num_heads*(nope + v) x kv_lora_rank>`: each window query's
    non-rotary part is folded into latent space first (the absorbed form), so
    Dq = nope + rope and Dk = kv_lora_rank + rope. Without `absorb`, Dq = Dk.

    Example:
    ```mlir
    %s = kv.score %q, %k {num_heads = 32, num_groups = 8, obs_window = 32} : tensor<1x8192x4096xbf16>, tensor<1x8192x1024xbf16> -> tensor<1x8x8192xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$queries, AnyRankedTensor:$keys,
                       Optional<AnyRankedTensor>:$key_up,
                       SF_I64Attr:$num_heads, SF_I64Attr:$num_groups,
                       SF_I64Attr:$obs_window);
  let results = (outs AnyRankedTensor:$scores);
  let assemblyFormat = [{
    $queries `,` $keys (`absorb` $key_up^)? attr-dict `:` type($queries) `,`
    type($keys) (`,` type($key_up)^)? `->` type($scores)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Width of one head's query (Dq) and key (Dk), and for MLA the non-rotary
    /// query width folded by absorption (0 without `absorb`).
    struct Dims { int64_t queryDim, keyDim, absorbedDim, latentDim; };
    Dims getDims();
  }];
}

def KV_PoolOp : KV_Op<"pool", [SameOperandsAndResultType],
    ["isKVSelection"]> {
  let summary = "1-D pooling of selection scores along the token axis";
  let description = [{
    Max or average pooling of width `kernel` (odd, same padding) along the last
    axis of a `tensor<B x G x L x f32>` score tensor, so selected tokens come with
    their neighbours (SnapKV's clustering step).

    Example:
    ```mlir
    %p = kv.pool %s {kernel = 7, kind = #kv<pool max>} : tensor<1x8x8192xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$scores, SF_I64Attr:$kernel, KV_PoolKindAttr:$kind);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$scores attr-dict `:` type($scores)";
  let hasVerifier = 1;
}

def KV_TopKOp : KV_Op<"topk", [], ["isKVSelection"]> {
  let summary = "indices of the k best-scored prompt tokens per group";
  let description = [{
    Selects, per batch entry and KV-head group, the `k` highest pooled scores
    among prompt positions `[sinks, L - recent)`; sinks and the recent tokens are
    kept unconditionally by `kv.gather_store`, so `sinks + k + recent` is the
    cache budget and may not exceed the prompt length L. Returns
    `tensor<B x G x k x i32>` positions.

    Example:
    ```mlir
    %i = kv.topk %p {k = 4092, sinks = 4, recent = 4096} : tensor<1x8x16384xf32> -> tensor<1x8x4092xi32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$scores, SF_I64Attr:$k, SF_I64Attr:$sinks,
                       SF_I64Attr:$recent);
  let results = (outs AnyRankedTensor:$indices);
  let assemblyFormat = "$scores attr-dict `:` type($scores) `->` type($indices)";
  let hasVerifier = 1;
}

def KV_GatherStoreOp : KV_Op<"gather_store", [AttrSizedOperandSegments, AllTypesMatch<["cache", "result"]>],
    ["getKVTokensWritten", "getKVAccesses", "isKVSelection"]> {
  let summary = "fill one layer of a compressed cache with sinks, selected and recent tokens";
  let description = [{
    End-of-prefill write of layer `layer`: the first `sinks` prompt tokens, the
    tokens at `indices` (per KV-head group; absent for StreamingLLM, which
    selects nothing) and the last `recent` prompt tokens are copied from the
    prompt's K/V (or latents) into the cache's `budget` slots. `sinks` and
    `recent` come from the cache's policy.

    Example:
    ```mlir
    %c1 = kv.gather_store %c0[0] select %i, %k, %v : !kv.cache<layers = 32, batch = 1, slots = 8192, kv_heads = 8, head_dim = 128, dtype = bf16, policy = #kv.snapstream<budget = 8192, sinks = 4, recent = 4096, obs_window = 32, kernel = 7, pool = max>> select tensor<1x8x4092xi32>, tensor<1x16384x1024xbf16>, tensor<1x16384x1024xbf16>
    ```
  }];
  let arguments = (ins KV_AnyCache:$cache, Variadic<AnyRankedTensor>:$values,
                       Optional<AnyRankedTensor>:$indices,
                       Optional<AnyRankedTensor>:$scores, SF_I64Attr:$layer);
  let results = (outs KV_AnyCache:$result);
  let assemblyFormat = [{
    $cache `[` $layer `]` (`select` $indices^)? (`scores` $scores^)? `,`
    $values attr-dict `:` qualified(type($cache)) (`select` type($indices)^)?
    (`scores` type($scores)^)? `,` type($values)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes of the policy's per-slot state the store starts (0 without
    /// `scores`).
    ::snapflow::CheckedInt getStateBytesWritten();
  }];
}

def KV_EvictOp : KV_Op<"evict", [AllTypesMatch<["cache", "result"]>],
    ["getKVAccesses"]> {
  let summary = "decode-time upkeep of a policy that evicts by attention";
  let description = [{
    After a decode attention over layer `layer`, updates the per-slot state
    of the cache's policy from `probs`, the step's attention probabilities
    over the slots summed per KV-head group (`tensor<B x groups x slots x
    f32>`, the attention's `probs` result), and chooses per group the slot
    whose token leaves: the one the next decode token overwrites.
    `#kv.h2o` adds the probabilities to each slot's accumulated score and
    takes the lowest outside the recent tokens; `#kv.scissorhands` records
    which slots got at least the uniform share (1/slots) in a window of
    `history` steps and takes the slot seen important least often outside
    the sinks and recent tokens. What it reads, writes and computes is the
    policy's (`getEvictCost`) plus reading `probs`; the state lives beside
    the cache (`kv_state` in the df program).

    Example:
    ```mlir
    %c2 = kv.evict %c1[0], %p : !kv.cache<layers = 32, batch = 1, slots = 8192, kv_heads = 8, head_dim = 128, dtype = bf16, policy = #kv.h2o<budget = 8192, recent = 4096>>, tensor<1x8x8192xf32>
    ```
  }];
  let arguments = (ins KV_AnyCache:$cache, AnyRankedTensor:$probs,
                       SF_I64Attr:$layer);
  let results = (outs KV_AnyCache:$result);
  let assemblyFormat = [{
    $cache `[` $layer `]` `,` $probs attr-dict `:` qualified(type($cache)) `,`
    type($probs)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The policy's cost of one layer's update over the whole batch; the
    /// op's bytes read add the probabilities.
    ::snapflow::kv::StepCost getBatchCost();
  }];
}

def KV_PageScoreOp : KV_Op<"page_score", [], ["getKVAccesses", "isKVSelection"]> {
  let summary = "score every backed-up page's digest with the last query";
  let description = [{
    ArkVale's page importance (`estimate_scores` of its official code): for
    each of the `P` pages whose digests the cache's policy keeps (a
    per-channel interval [lo, hi] summarizing the page's keys per KV-head
    group: cuboid-mean, see kv.backup), the last of the T queries gives
    `sum_c max(q_c * lo_c, q_c * hi_c)` per query head, an estimate of its
    best `q.k` in the page (an upper bound when the interval is the keys'
    box); the estimates are averaged over the `num_heads` heads, so one
    ranking per sequence and layer (`tensor<B x 1 x P x f32>`). Queries are `tensor<B x T x
    num_heads*D>`, T = 1 at decode; for a latent cache D is the absorbed
    query's width (the attention computes that query; the op reads the
    raw one and counts no absorption). Reads the digests of layer `layer`.

    Example:
    ```mlir
    %s = kv.page_score %q, %c[0] {num_heads = 32} : tensor<1x1x4096xbf16>, !kv.cache<layers = 32, batch = 1, slots = 4096, kv_heads = 8, head_dim = 128, dtype = bf16, policy = #kv.arkvale<budget = 4096, page = 32, sinks = 1, window = 2, topk = 32, recall = 10, tokens = 32768>> -> tensor<1x1x1024xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$queries, KV_AnyCache:$cache,
                       SF_I64Attr:$layer, SF_I64Attr:$num_heads);
  let results = (outs AnyRankedTensor:$scores);
  let assemblyFormat = [{
    $queries `,` $cache `[` $layer `]` attr-dict `:` type($queries) `,`
    qualified(type($cache)) `->` type($scores)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Pages scored (the scores' last dimension).
    int64_t getPages();
    /// Bytes of the digests the op reads.
    ::snapflow::CheckedInt getDigestBytesRead();
  }];
}

def KV_RecallOp : KV_Op<"recall", [AllTypesMatch<["cache", "result"]>],
    ["getKVTokensWritten", "getKVWriteRun", "getKVAccesses"]> {
  let summary = "bring chosen pages back from the backup into the HBM slots";
  let description = [{
    Before a decode attention over layer `layer`: of the pages `indices`
    chose (`tensor<B x 1 x K x i32>`, the top-k of kv.page_score), the ones
    no longer resident are copied from the policy's backup (DDR) into the
    slots of the lowest-ranked resident pages (HBM). How many that is varies
    with the text; a static program provisions `pages` per sequence and
    step (the policy's recall rate), each a whole page of K/V.

    Example:
    ```mlir
    %c1 = kv.recall %c0[0], %i {pages = 10} : !kv.cache<...>, tensor<1x1x32xi32>
    ```
  }];
  let arguments = (ins KV_AnyCache:$cache, AnyRankedTensor:$indices,
                       SF_I64Attr:$layer, SF_I64Attr:$pages);
  let results = (outs KV_AnyCache:$result);
  let assemblyFormat = [{
    $cache `[` $layer `]` `,` $indices attr-dict `:` qualified(type($cache))
    `,` type($indices)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes of K/V the recall moves from the backup into the cache.
    ::snapflow::CheckedInt getRecalledBytes();
  }];
}

def KV_BackupOp : KV_Op<"backup", [AllTypesMatch<["cache", "result"]>],
    ["getKVAccesses"]> {
  let summary = "copy new tokens to the external backup and digest full pages";
  let description = [{
    After an attention over layer `layer` wrote T new tokens (`values`, as
    kv.append takes them): the tokens are copied to the policy's backup in
    DDR, and every page they complete is summarized into its digest (HBM):
    per channel c = (max + min) / 2 and r = mean |c - k| over the page's
    keys, stored as [c - r, c + r] (ArkVale's cuboid-mean). With continuous
    batching sequences fill pages at staggered steps, so a decode step (T <
    page) digests B * T / page pages on average and the program does that
    average every step, re-reading those pages' keys from the cache; a
    prefill digests its T / page pages from the keys it already streams.

    Example:
    ```mlir
    %c1 = kv.backup %c0[0], %k, %v : !kv.cache<...>, tensor<1x1x1024xbf16>, tensor<1x1x1024xbf16>
    ```
  }];
  let arguments = (ins KV_AnyCache:$cache, Variadic<AnyRankedTensor>:$values,
                       SF_I64Attr:$layer);
  let results = (outs KV_AnyCache:$result);
  let assemblyFormat = [{
    $cache `[` $layer `]` `,` $values attr-dict `:` qualified(type($cache))
    `,` type($values)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// New tokens per sequence (the values' token count).
    int64_t getTokens();
    /// Bytes written to the backup (DDR).
    ::snapflow::CheckedInt getBackupBytesWritten();
    /// Bytes of digests written (HBM), and of the cache's keys re-read to
    /// build them at decode (HBM).
    ::snapflow::CheckedInt getDigestBytesWritten();
    ::snapflow::CheckedInt getKeyBytesRead();
  }];
}

def KV_QuantizeOp : KV_Op<"quantize",
                            [AllTypesMatch<["cache", "result"]>],
    ["getKVAccesses"]> {
  let summary = "quantize tokens held at the dtype into the cache's format";
  let description = [{
    The cache's format at work on layer `layer`: `tokens` tokens per
    sequence, held at the dtype, are quantized into the format once every
    `every` steps. At decode they come from the format's residual (KIVI:
    one token per step, `every = 1`, the average of its values leaving the
    window every step and its keys `residual` at a time); with continuous
    batching sequences reach their period at staggered steps, so a step
    quantizes `ceil(B * tokens / every)` tokens. At prefill (`every = 1`)
    they are the prompt tokens the writer left at the dtype (ZipCache), and
    `salient` (`tensor<B x G x K x i32>`, a kv.topk over the tokens'
    saliency) names the K per group that take the format's high precision.

    Example:
    ```mlir
    %c1 = kv.quantize %c0[0] {every = 1, tokens = 1} : !kv.cache<..., format = #kv.kivi<bits = 2, group = 32, residual = 128>>
    ```
  }];
  let arguments = (ins KV_AnyCache:$cache,
                       Optional<RankedTensorOf<[I32]>>:$salient,
                       SF_I64Attr:$layer, SF_I64Attr:$tokens,
                       SF_I64Attr:$every);
  let results = (outs KV_AnyCache:$result);
  let assemblyFormat = [{
    $cache `[` $layer `]` (`salient` $salient^)? attr-dict `:`
    qualified(type($cache)) (`salient` type($salient)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Tokens the whole batch quantizes per step: ceil(B * tokens / every).
    int64_t getTokensPerStep();
  }];
}

def KV_RequantizeOp : KV_Op<"requantize", [AllTypesMatch<["cache", "result"]>],
    ["getKVAccesses"]> {
  let summary = "re-score and re-quantize a sequence's whole cache, periodically";
  let description = [{
    ZipCache's streaming step on layer `layer`: once every `every` decode
    steps a sequence scores every slot with the step's last query (`q.k`
    and softmax per query head, summed per group: the saliency of the
    tokens buffered since), dequantizes its cache and quantizes all of it
    again (the buffered tokens included) by the new saliency. Sequences
    reach their period at staggered steps, so a step does that work for
    `B / every` sequences: `ceil(B * x / every)` of each per-sequence
    quantity x.

    Example:
    ```mlir
    %c1 = kv.requantize %q, %c0[0] {every = 100, num_heads = 32} : tensor<1x1x4096xbf16>, !kv.cache<..., format = #kv.zipcache<...>>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$queries, KV_AnyCache:$cache,
                       SF_I64Attr:$layer, SF_I64Attr:$num_heads,
                       SF_I64Attr:$every);
  let results = (outs KV_AnyCache:$result);
  let assemblyFormat = [{
    $queries `,` $cache `[` $layer `]` attr-dict `:` type($queries) `,`
    qualified(type($cache))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Per-step bytes read from the quantized slots and the residual, and
    /// written back to the quantized slots.
    ::snapflow::CheckedInt getStoredBytesRead();
    ::snapflow::CheckedInt getResidualBytesRead();
    ::snapflow::CheckedInt getStoredBytesWritten();
  }];
}

#endif // SNAPFLOW_DIALECT_KV_KVOPS
