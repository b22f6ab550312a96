//===- LLMOps.td - Model-level inference ops --------------------*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_LLM_LLMOPS
#define SNAPFLOW_DIALECT_LLM_LLMOPS

include "snapflow/Dialect/SnapflowBase.td"
include "snapflow/Dialect/LLM/IR/LLMDialect.td"
include "snapflow/Dialect/KV/IR/KVTypes.td"
include "snapflow/Interfaces/CostInterface.td"
include "snapflow/Interfaces/TrafficInterface.td"
include "snapflow/Dialect/LLM/IR/LLMEnums.td"
include "snapflow/Dialect/LLM/IR/LLMAttrs.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

class LLM_Op<string mnemonic, list<Trait> traits = []>
    : Op<LLM_Dialect, mnemonic,
         !listconcat(traits, [Pure, DeclareOpInterfaceMethods<CostOpInterface>])>;

/// An op tile-and-map runs as a pipeline stage: it says what it computes and
/// moves (TrafficInterface.td) beside its definition.
class LLM_StageOp<string mnemonic, list<Trait> traits = []>
    : LLM_Op<mnemonic,
             !listconcat(traits, [DeclareOpInterfaceMethods<TrafficOpInterface>])>;

def LLM_Activation : RankedTensorOf<[BF16, F16, F32, F8E4M3FN, F8E5M2]>;
def LLM_Weight : RankedTensorOf<[BF16, F16, F32, F8E4M3FN, F8E5M2]>;

/// GEMMs also report their rows (the activations sharing each weight).
class LLM_GemmOp<string mnemonic, list<Trait> traits = []>
    : Op<LLM_Dialect, mnemonic,
         !listconcat(traits, [Pure, DeclareOpInterfaceMethods<CostOpInterface,
                                     ["getGemmRows"]>,
                              DeclareOpInterfaceMethods<TrafficOpInterface>])>;

/// Attentions over a KV cache also report the share of their cost a KV
/// policy's or format's upkeep adds, and their rows.
class LLM_CacheAttentionOp<string mnemonic, list<Trait> traits = []>
    : Op<LLM_Dialect, mnemonic,
         !listconcat(traits, [Pure, DeclareOpInterfaceMethods<CostOpInterface,
                                     ["getKVUpkeepFlops", "getKVUpkeepBytes",
                                      "getGemmRows"]>,
                              DeclareOpInterfaceMethods<TrafficOpInterface,
                                     ["getKVTokensWritten", "readsKVSlots"]>])>;

/// Collectives also report the bytes they send over peer links.
class LLM_CollectiveOp<string mnemonic, list<Trait> traits = []>
    : Op<LLM_Dialect, mnemonic,
         !listconcat(traits, [Pure, DeclareOpInterfaceMethods<CostOpInterface, ["getLinkBytes"]>])>;

//===----------------------------------------------------------------------===//
// Weights and embeddings
//===----------------------------------------------------------------------===//

def LLM_ParamOp : LLM_Op<"param"> {
  let summary = "a symbolic weight tensor (shape and dtype only, no data)";
  let description = [{
    Names one weight of the model, with the Hugging Face parameter name after
    the `@`. Reading it is charged to the op that consumes it.

    Example:
    ```mlir
    %wq = llm.param @model.layers.0.self_attn.q_proj : tensor<4096x4096xbf16>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$name);
  let results = (outs LLM_Weight:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def LLM_EmbedOp : LLM_StageOp<"embed"> {
  let summary = "look up token embeddings";
  let description = [{
    Gathers one row of the `vocab x hidden` table per token of a `B x T` token
    tensor. Only the rows looked up are read.

    With `tokens_per_row` = g > 1 (the Block Transformer's lookup embedder,
    `projection_method: concat`) the rows of each g consecutive tokens are
    concatenated into one: the result is `B x T/g x g*hidden`, one block
    embedding per block of g tokens.

    Example:
    ```mlir
    %h = llm.embed %tokens, %table : tensor<1x1xi32>, tensor<128256x4096xbf16> -> tensor<1x1x4096xbf16>
    %blocks = llm.embed %t, %e {tokens_per_row = 4} : tensor<1x8xi32>, tensor<50304x512xbf16> -> tensor<1x2x2048xbf16>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I32, I64]>:$tokens, LLM_Weight:$table,
                       DefaultValuedAttr<SF_I64Attr, "1">:$tokens_per_row);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = [{
    $tokens `,` $table attr-dict `:` type($tokens) `,` type($table) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise and normalisation
//===----------------------------------------------------------------------===//

def LLM_RMSNormOp : LLM_StageOp<"rms_norm", [AllTypesMatch<["input", "result"]>]> {
  let summary = "RMS normalisation over the last axis or groups of it";
  let description = [{
    `y = x / sqrt(mean(x^2) + eps) * w` over groups of `group` channels of
    the last axis of `x` (`group` 0: the whole axis). `w`, when given, has a
    group's length; a norm without it (Llama 4's q/k norm) only normalises.
    A group of a head's width normalises each head of a query or key
    (Qwen3's and Gemma 3's q/k norms).

    Example:
    ```mlir
    %y = llm.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x1x4096xbf16>, tensor<4096xbf16>
    %q = llm.rms_norm %x {eps = 1.0e-06 : f64, group = 128} : tensor<1x1x4096xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$input, Optional<LLM_Weight>:$weight,
                       F64Attr:$eps, DefaultValuedAttr<SF_I64Attr, "0">:$group);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = [{
    $input (`,` $weight^)? attr-dict `:` type($input) (`,` type($weight)^)?
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::mlir::Value":$weight, "double":$eps), [{
      build($_builder, $_state, input.getType(), input, weight, $_builder.getF64FloatAttr(eps), $_builder.getI64IntegerAttr(0));
    }]>,
    OpBuilder<(ins "::mlir::Value":$input, "::mlir::Value":$weight, "double":$eps, "int64_t":$group), [{
      build($_builder, $_state, input.getType(), input, weight, $_builder.getF64FloatAttr(eps), $_builder.getI64IntegerAttr(group));
    }]>
  ];
}

def LLM_LayerNormOp : LLM_StageOp<"layer_norm", [AllTypesMatch<["input", "result"]>]> {
  let summary = "layer normalisation over the last axis, with a weight and a bias";
  let description = [{
    `y = (x - mean(x)) / sqrt(var(x) + eps) * w + b` along the last axis of
    `x` (GPT-NeoX); `w` and `b` have that axis's length.

    Example:
    ```mlir
    %y = llm.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : tensor<1x1x2048xbf16>, tensor<2048xbf16>, tensor<2048xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$input, LLM_Weight:$weight,
                       LLM_Weight:$bias, F64Attr:$eps);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = [{
    $input `,` $weight `,` $bias attr-dict `:` type($input) `,` type($weight)
    `,` type($bias)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "::mlir::Value":$weight,
                   "::mlir::Value":$bias, "double":$eps), [{
      build($_builder, $_state, input.getType(), input, weight, bias,
            $_builder.getF64FloatAttr(eps));
    }]>
  ];
}

def LLM_AddOp : LLM_StageOp<"add", [SameOperandsAndResultType]> {
  let summary = "elementwise sum (residual connection)";
  let description = [{
    Example:
    ```mlir
    %y = llm.add %a, %b : tensor<1x1x4096xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$lhs, LLM_Activation:$rhs);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def LLM_RopeOp : LLM_StageOp<"rope", [SameOperandsAndResultType]> {
  let summary = "rotary position embedding on `rotary_dim` elements of each head";
  let description = [{
    Rotates pairs of `rotary_dim` elements of each of `num_heads` heads of
    `head_dim` elements by position-dependent angles (base `theta`): all of a
    Llama head, the trailing `qk_rope_head_dim` of a DeepSeek MLA query head.
    The input is `tensor<B x T x num_heads*head_dim>`.

    Example:
    ```mlir
    %q2 = llm.rope %q {num_heads = 32, head_dim = 128, rotary_dim = 128, theta = 5.0e+05 : f64} : tensor<1x1x4096xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$input, SF_I64Attr:$num_heads, SF_I64Attr:$head_dim,
                       SF_I64Attr:$rotary_dim, F64Attr:$theta);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix products and blocks
//===----------------------------------------------------------------------===//

def LLM_LinearOp : LLM_GemmOp<"linear"> {
  let summary = "dense projection y = x W^T (+ b)";
  let description = [{
    `x` is `tensor<B x T x K>`, the weight `tensor<N x K>` (Hugging Face's
    out x in layout), the result `tensor<B x T x N>`; an optional `bias` is
    `tensor<N>` (GPT-NeoX's projections have one).

    Example:
    ```mlir
    %q = llm.linear %x, %wq : tensor<1x1x4096xbf16>, tensor<4096x4096xbf16> -> tensor<1x1x4096xbf16>
    %e = llm.linear %c, %we bias %be : tensor<1x1x2048xbf16>, tensor<4096x2048xbf16> bias tensor<4096xbf16> -> tensor<1x1x4096xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$input, LLM_Weight:$weight,
                       Optional<LLM_Weight>:$bias);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = [{
    $input `,` $weight (`bias` $bias^)? attr-dict `:` type($input) `,`
    type($weight) (`bias` type($bias)^)? `->` type($result)
  }];
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$input,
                   "::mlir::Value":$weight), [{
      build($_builder, $_state, result, input, weight, ::mlir::Value());
    }]>
  ];
}

def LLM_MLPOp : LLM_GemmOp<"mlp", [AllTypesMatch<["input", "result"]>]> {
  let summary = "SwiGLU feed-forward block: down(silu(gate(x)) * up(x))";
  let description = [{
    `gate` and `up` are `tensor<I x H>`, `down` is `tensor<H x I>`.

    Example:
    ```mlir
    %y = llm.mlp %x, %g, %u, %d : tensor<1x1x4096xbf16>, tensor<14336x4096xbf16>, tensor<14336x4096xbf16>, tensor<4096x14336xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$input, LLM_Weight:$gate, LLM_Weight:$up,
                       LLM_Weight:$down);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = [{
    $input `,` $gate `,` $up `,` $down attr-dict `:` type($input) `,` type($gate)
    `,` type($up) `,` type($down)
  }];
  let hasVerifier = 1;
}

def LLM_GeluMLPOp : LLM_GemmOp<"gelu_mlp", [AllTypesMatch<["input", "result"]>]> {
  let summary = "GELU feed-forward block with biases: down(gelu(up(x) + b1)) + b2";
  let description = [{
    GPT-NeoX's MLP (`dense_h_to_4h`, GELU, `dense_4h_to_h`): `up` is
    `tensor<I x H>` with bias `tensor<I>`, `down` is `tensor<H x I>` with
    bias `tensor<H>`.

    Example:
    ```mlir
    %y = llm.gelu_mlp %x, %u, %ub, %d, %db : tensor<1x1x2048xbf16>, tensor<8192x2048xbf16>, tensor<8192xbf16>, tensor<2048x8192xbf16>, tensor<2048xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$input, LLM_Weight:$up,
                       LLM_Weight:$up_bias, LLM_Weight:$down,
                       LLM_Weight:$down_bias);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = [{
    $input `,` $up `,` $up_bias `,` $down `,` $down_bias attr-dict `:`
    type($input) `,` type($up) `,` type($up_bias) `,` type($down) `,`
    type($down_bias)
  }];
  let hasVerifier = 1;
}

def LLM_RouteOp : LLM_GemmOp<"route"> {
  let summary = "an MoE router: scores the experts of every token, picks top_k";
  let description = [{
    The router GEMM (`router`, `tensor<E x H>`: one row per expert) scores
    every expert for each of the B x T tokens, and each token keeps its
    `top_k` best: the result is their indices, `tensor<B x T x top_k x i32>`.
    The routed experts (`llm.moe`) read the weights of the experts these
    indices name, so they cannot stream them before the router has run: the
    kernel boundary of an MoE layer (docs/Lowering.md, "Kernels").

    Example:
    ```mlir
    %r = llm.route %x, %w {top_k = 8} : tensor<8x1x7168xbf16>, tensor<256x7168xbf16> -> tensor<8x1x8xi32>
    ```
  }];
  let arguments = (ins LLM_Activation:$input, LLM_Weight:$router,
                       SF_I64Attr:$top_k);
  let results = (outs RankedTensorOf<[I32]>:$experts);
  let assemblyFormat = [{
    $input `,` $router attr-dict `:` type($input) `,` type($router) `->`
    type($experts)
  }];
  let hasVerifier = 1;
}

def LLM_MoEOp : LLM_GemmOp<"moe", [AllTypesMatch<["input", "result"]>]> {
  let summary = "the routed experts of a mixture of experts (SwiGLU, top-k per token)";
  let description = [{
    Each token runs the `top_k` experts its router (`llm.route`) chose,
    `routing`: `tensor<B x T x top_k x i32>`; routed expert weights are
    stacked (`gate`/`up`: `tensor<E x I x H>`, `down`: `tensor<E x H x I>`).
    Shared experts, which every token runs, are an `llm.mlp` beside it whose
    result an `llm.add` sums with this one's.

    Under expert parallelism (`expert_shards` = S > 1) this socket holds
    `num_experts` of the `num_experts * S` experts the router chooses from;
    each token then runs `top_k / S` of its experts here on average, and the
    partial outputs are summed by the all-reduce that follows.

    Routing statistics set the bytes read: a step touches
    `expected_active_experts` distinct local experts. When the attribute is
    absent, routing is taken as uniform and independent per token, so N tokens
    touch `E * (1 - (1 - top_k/(E*S))^N)` of the E local experts in expectation.

    Example:
    ```mlir
    %y = llm.moe %x, %r, %g, %u, %d {num_experts = 64, top_k = 6} : tensor<1x1x2048xbf16>, tensor<1x1x6xi32>, tensor<64x1408x2048xbf16>, tensor<64x1408x2048xbf16>, tensor<64x2048x1408xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$input, RankedTensorOf<[I32]>:$routing,
                       LLM_Weight:$gate, LLM_Weight:$up, LLM_Weight:$down,
                       SF_I64Attr:$num_experts, SF_I64Attr:$top_k,
                       DefaultValuedAttr<SF_I64Attr, "1">:$expert_shards,
                       OptionalAttr<F64Attr>:$expected_active_experts);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = [{
    $input `,` $routing `,` $gate `,` $up `,` $down attr-dict
    `:` type($input) `,` type($routing) `,` type($gate) `,` type($up) `,`
    type($down)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Distinct routed experts one execution touches (attribute or uniform model).
    double getActiveExperts();
  }];
}

def LLM_AttentionOp : LLM_CacheAttentionOp<"attention", [AllTypesMatch<["cache", "new_cache"]>]> {
  let summary = "grouped-query attention over a KV cache";
  let description = [{
    Writes the T new tokens' keys and values into layer `layer` of the cache and
    attends each of `num_heads` query heads over the cache (`num_kv_heads` KV
    heads, each shared by `num_heads / num_kv_heads` query heads). In `prefill`
    attention is causal over the T prompt tokens; in `decode` each new token
    attends over all `slots` of the cache. Queries are
    `tensor<B x T x num_heads*head_dim>`, keys and values
    `tensor<B x T x num_kv_heads*head_dim>`.

    In a chunked prefill (the function's `llm.workload` has `chunks` > 1) the
    T tokens are one chunk, and its queries also attend fully to the
    `prefix` tokens earlier chunks wrote, read back from HBM (the cache, or
    for a compressing policy the prompt's staging copy). `prefix` is the last
    chunk's: chunk j of n sees j/(n-1) of it, which is how the df program
    runs it (`prefix_tiles`). The op's costs are those of the last chunk;
    `getPrefixFlops` is their share that grows with the prefix.

    A decode attention under a policy that evicts by attention (`#kv.h2o`,
    `#kv.scissorhands`) also returns `probs`, the step's softmax
    probabilities over the cache's slots summed over the query heads of
    each KV-head group (`tensor<B x groups x slots x f32>`; one group for
    MLA): kv-compress adds it and the kv.evict that consumes it.

    With `window` W > 0 the layer attends to its last W tokens only (a
    sliding-window layer: Gemma, gpt-oss, Mistral v0.1; a chunked layer of
    Llama 4, charged as a window of its chunk, the most a query of a chunk
    sees): its cache is the function's window cache (the argument marked
    `llm.window`), a ring of at most W slots that no KV policy compresses.
    A prefill attends causally within the window, to at most W of the
    `prefix`, and leaves the last W tokens in the cache.

    With `softcap` c (Gemma 2's `attn_logit_softcapping`) each score
    becomes c tanh(score / c) before the softmax: 3 FLOPs more a score.

    With `reuse_kv` the op is a later layer of a cross-layer-attention
    group (CLA): `key` and `value` are the ones the group's first layer
    computed and wrote into cache layer `layer`. The op writes nothing
    (`new_cache` is `cache` unchanged): a prefill attends over those keys
    and values as given, a decode reads the cache layer, which already
    holds the step's token.

    Example:
    ```mlir
    %o, %c1 = llm.attention %q, %k, %v, %c0 {layer = 0, num_heads = 32, num_kv_heads = 8, head_dim = 128, phase = #llm<phase decode>} : tensor<1x1x4096xbf16>, tensor<1x1x1024xbf16>, tensor<1x1x1024xbf16>, !kv.cache<layers = 32, batch = 1, slots = 4096, kv_heads = 8, head_dim = 128, dtype = bf16, policy = #kv.full> -> tensor<1x1x4096xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$query, LLM_Activation:$key,
                       LLM_Activation:$value, KV_CacheType:$cache,
                       SF_I64Attr:$layer, SF_I64Attr:$num_heads, SF_I64Attr:$num_kv_heads,
                       SF_I64Attr:$head_dim, LLM_PhaseAttr:$phase,
                       DefaultValuedAttr<SF_I64Attr, "0">:$prefix,
                       UnitAttr:$reuse_kv,
                       DefaultValuedAttr<SF_I64Attr, "0">:$window,
                       OptionalAttr<F64Attr>:$softcap);
  let results = (outs LLM_Activation:$result, KV_CacheType:$new_cache,
                      Optional<AnyRankedTensor>:$probs);
  let extraClassDeclaration = [{
    /// FLOPs of attending the T queries to the `prefix` tokens (part of
    /// getFlops, proportional to `prefix`).
    ::snapflow::CheckedInt getPrefixFlops();
    /// Of `tokens` new tokens per sequence, those left in the cache: all,
    /// or a window's last slots.
    int64_t tokensKept(int64_t tokens);
    /// FLOPs of one query-key score of one head: QK^T and PV, the softmax,
    /// and the soft-cap when there is one.
    int64_t flopsPerScore();
  }];
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $cache attr-dict `:` type($query) `,`
    type($key) `,` type($value) `,` qualified(type($cache)) `->` type($result)
    (`,` `probs` type($probs)^)?
  }];
  let hasVerifier = 1;
}

def LLM_MLAAttentionOp : LLM_CacheAttentionOp<"mla_attention", [AllTypesMatch<["cache", "new_cache"]>]> {
  let summary = "DeepSeek multi-head latent attention over a latent cache";
  let description = [{
    Normalises (weight `latent_norm`, `tensor<kv_lora_rank>`) the latent part
    and rotates the rotary part of the new tokens' compressed KV (`tensor<B x T
    x kv_lora_rank + qk_rope_head_dim>`, the output of the KV down-projection),
    writes them into layer `layer` of the latent cache, then attends. Queries are
    `tensor<B x T x num_heads*(qk_nope_head_dim + qk_rope_head_dim)>`;
    `kv_up` is the KV up-projection `tensor<num_heads*(qk_nope_head_dim +
    v_head_dim) x kv_lora_rank>`. Decode uses the absorbed form (the up-projection
    folded into the query and output, attention in latent space); prefill
    decompresses the prompt's keys and values and attends causally. The result
    is `tensor<B x T x num_heads*v_head_dim>` (before the output projection).
    A chunk of a chunked prefill also attends to `prefix` earlier tokens,
    as `llm.attention` does; it decompresses their latents again (the
    non-absorbed form is the cheaper one for a chunk of many queries).

    A decode attention under a policy that evicts by attention (`#kv.h2o`,
    `#kv.scissorhands`) also returns `probs`, the step's softmax
    probabilities over the cache's slots summed over the query heads of
    each KV-head group (`tensor<B x groups x slots x f32>`; one group for
    MLA): kv-compress adds it and the kv.evict that consumes it.

    With `reuse_kv` (a later layer of a CLA group) `latent` and
    `latent_norm` are the group's first layer's, which normalised, rotated
    and wrote them: this op only attends, with its own `kv_up`, and writes
    nothing.

    Example:
    ```mlir
    %o, %c1 = llm.mla_attention %q, %kv, %wkvb, %wn, %c0 {layer = 0, num_heads = 16, qk_nope_head_dim = 128, qk_rope_head_dim = 64, v_head_dim = 128, kv_lora_rank = 512, phase = #llm<phase decode>} : tensor<1x1x3072xbf16>, tensor<1x1x576xbf16>, tensor<4096x512xbf16>, tensor<512xbf16>, !kv.latent_cache<layers = 27, batch = 1, slots = 4096, latent_dim = 512, rope_dim = 64, dtype = bf16, policy = #kv.full> -> tensor<1x1x2048xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$query, LLM_Activation:$latent,
                       LLM_Weight:$kv_up, LLM_Weight:$latent_norm,
                       KV_LatentCacheType:$cache,
                       SF_I64Attr:$layer, SF_I64Attr:$num_heads,
                       SF_I64Attr:$qk_nope_head_dim, SF_I64Attr:$qk_rope_head_dim,
                       SF_I64Attr:$v_head_dim, SF_I64Attr:$kv_lora_rank,
                       LLM_PhaseAttr:$phase,
                       DefaultValuedAttr<SF_I64Attr, "0">:$prefix,
                       UnitAttr:$reuse_kv);
  let results = (outs LLM_Activation:$result, KV_LatentCacheType:$new_cache,
                      Optional<AnyRankedTensor>:$probs);
  let extraClassDeclaration = [{
    /// FLOPs of decompressing the `prefix` tokens and attending the T
    /// queries to them (part of getFlops, proportional to `prefix`).
    ::snapflow::CheckedInt getPrefixFlops();
  }];
  let assemblyFormat = [{
    $query `,` $latent `,` $kv_up `,` $latent_norm `,` $cache attr-dict `:`
    type($query) `,` type($latent) `,` type($kv_up) `,` type($latent_norm) `,`
    qualified(type($cache)) `->` type($result) (`,` `probs` type($probs)^)?
  }];
  let hasVerifier = 1;
}

def LLM_LocalAttentionOp : LLM_GemmOp<"local_attention"> {
  let summary = "attention within a block, over keys and values kept on chip";
  let description = [{
    The Block Transformer's token decoder: each forward of a block attends
    only to the block's own positions (the prefix vectors and the tokens
    decoded so far), whose keys and values stay on chip and are reset at
    every block, so no cache is read or written. `kv` lists the keys and
    values (`tensor<B x T_i x num_kv_heads*head_dim>`) in the order the
    block's forwards made them: `k_0, v_0, ..., k_n, v_n`. The queries
    (`tensor<B x T x num_heads*head_dim>`) see every earlier pair in full and
    their own pair, the last, causally (its T_n is T).

    Example:
    ```mlir
    %o = llm.local_attention %q over (%k0, %v0, %k1, %v1) {num_heads = 16, num_kv_heads = 16, head_dim = 128} : tensor<1x1x2048xbf16> over (tensor<1x2x2048xbf16>, tensor<1x2x2048xbf16>, tensor<1x1x2048xbf16>, tensor<1x1x2048xbf16>) -> tensor<1x1x2048xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$query, Variadic<LLM_Activation>:$kv,
                       SF_I64Attr:$num_heads, SF_I64Attr:$num_kv_heads,
                       SF_I64Attr:$head_dim);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = [{
    $query `over` ` ` `(` $kv `)` attr-dict `:` type($query) `over` ` ` `(`
    type($kv) `)` `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Keys each query row sees beyond its own pair (the earlier forwards').
    int64_t getEarlierKeys();
  }];
}

def LLM_ReshapeOp : LLM_Op<"reshape"> {
  let summary = "a view of an activation with another shape of the same elements";
  let description = [{
    No data moves: the Block Transformer's expansion layer output
    `tensor<B x 1 x R*H>` read as R prefix vectors `tensor<B x R x H>`.

    Example:
    ```mlir
    %p = llm.reshape %e : tensor<1x1x4096xbf16> -> tensor<1x2x2048xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$input);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def LLM_SampleOp : LLM_StageOp<"sample"> {
  let summary = "greedy sampling: the most likely token of each position";
  let description = [{
    The argmax over the vocabulary of `tensor<B x T x V>` logits, as
    `tensor<B x T x i32>` tokens. It is where the next forward of a
    sequential decode (the Block Transformer's token decoder) waits for
    this one.

    Example:
    ```mlir
    %t = llm.sample %logits : tensor<1x1x50304xbf16> -> tensor<1x1xi32>
    ```
  }];
  let arguments = (ins LLM_Activation:$logits);
  let results = (outs RankedTensorOf<[I32]>:$tokens);
  let assemblyFormat = "$logits attr-dict `:` type($logits) `->` type($tokens)";
  let hasVerifier = 1;
}

def LLM_LMHeadOp : LLM_GemmOp<"lm_head"> {
  let summary = "project hidden states to vocabulary logits";
  let description = [{
    `tensor<B x T x H>` times the `tensor<V x H>` output embedding. With
    `last_token_only` (prefill) only the last position of each sequence is
    projected and the result is `tensor<B x 1 x V>`. With `softcap` c (Gemma
    2's `final_logit_softcapping`) each logit becomes c tanh(logit / c):
    3 FLOPs more a logit.

    Example:
    ```mlir
    %logits = llm.lm_head %h, %w : tensor<1x1x4096xbf16>, tensor<128256x4096xbf16> -> tensor<1x1x128256xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$input, LLM_Weight:$weight,
                       UnitAttr:$last_token_only,
                       OptionalAttr<F64Attr>:$softcap);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = [{
    $input `,` $weight attr-dict `:` type($input) `,` type($weight) `->` type($result)
  }];
  let hasVerifier = 1;
}

def LLM_MTPOp : LLM_GemmOp<"mtp"> {
  let summary = "DeepSeek multi-token-prediction combine: eh_proj(concat(norm h, norm e))";
  let description = [{
    Entry of MTP module `depth` (1-based): combines the previous depth's hidden
    state with the embedding of the next token through the `tensor<H x 2H>`
    projection. The module's transformer block and the shared output head follow
    as ordinary llm ops. Speculative decoding uses the module to draft tokens.

    Example:
    ```mlir
    %m = llm.mtp %h, %e, %w {depth = 1} : tensor<1x1x7168xbf16>, tensor<1x1x7168xbf16>, tensor<7168x14336xbf16> -> tensor<1x1x7168xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$hidden, LLM_Activation:$embedded,
                       LLM_Weight:$eh_proj, SF_I64Attr:$depth);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = [{
    $hidden `,` $embedded `,` $eh_proj attr-dict `:` type($hidden) `,`
    type($embedded) `,` type($eh_proj) `->` type($result)
  }];
  let hasVerifier = 1;
}

def LLM_ShardSliceOp : LLM_Op<"shard_slice"> {
  let summary = "this socket's 1/shards part of a replicated tensor along `dim`";
  let description = [{
    After a collective leaves a tensor replicated on every socket, a
    tensor-parallel consumer takes its own part: the `dim` axis shrinks to
    `ceil(d / shards)` (the last part padded when it does not divide: a
    batch of 1 split over 16 sockets is one sequence on the busiest). A
    view: no FLOPs and no bytes.

    Example:
    ```mlir
    %y = llm.shard_slice %x {dim = 2, shards = 16} : tensor<8x1x16384xbf16> -> tensor<8x1x1024xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$input, SF_I64Attr:$dim, SF_I64Attr:$shards);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Kernel looping
//===----------------------------------------------------------------------===//

def LLM_RepeatOp : Op<LLM_Dialect, "repeat", [SingleBlock,
    RecursiveMemoryEffects]> {
  let summary = "run one body of decoder layers for `count` iterations";
  let description = [{
    Kernel looping: `count` identical decoder layers, from `first_layer` on,
    become one body run `count` times. The block arguments are the values the
    layers carry from one to the next (hidden state, KV cache), initialised
    from `inits`; `llm.yield` passes them on and the last iteration's become
    the results. Inside the body, layer indices and parameter names are those
    of `first_layer` and stand for iteration `i`'s layer `first_layer + i`.

    With `x stride`, the body is `stride` consecutive decoder layers (layers
    that repeat as a group, such as a cross-layer-attention group whose
    first layer writes the K/V the others read): iteration `i` runs layers
    `first_layer + i * stride` to `first_layer + (i + 1) * stride - 1`, and
    each cache layer index in the body stands for its value plus `i`.

    Example:
    ```mlir
    %h1, %c1 = llm.repeat 32 layers from 0 (%h0, %c0) : (tensor<1x1x4096xbf16>, !c) -> (tensor<1x1x4096xbf16>, !c) {
    ^bb0(%h: tensor<1x1x4096xbf16>, %c: !c):
      ...
      llm.yield %h2, %c2 : tensor<1x1x4096xbf16>, !c
    }
    %h3, %c3 = llm.repeat 16 x 2 layers from 0 (%h0, %c0) : ...
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$inits, SF_I64Attr:$count,
                       SF_I64Attr:$first_layer,
                       OptionalAttr<SF_I64Attr>:$stride);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $count (`x` $stride^)? `layers` `from` $first_layer ` ` `(` $inits `)`
    attr-dict `:` functional-type($inits, $results) $body
  }];
  let extraClassDeclaration = [{
    /// Decoder layers per iteration (1 without `stride`).
    int64_t getLayersPerIteration() { return getStride().value_or(1); }
  }];
  let hasVerifier = 1;
}

def LLM_YieldOp : Op<LLM_Dialect, "yield", [Pure, Terminator, ReturnLike,
    HasParent<"RepeatOp">]> {
  let summary = "carry values to the next iteration of an llm.repeat";
  let description = [{
    Example: `llm.yield %h, %c : tensor<1x1x4096xbf16>, !c`
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Collectives (after tensor parallelism)
//===----------------------------------------------------------------------===//

def LLM_AllReduceOp : LLM_CollectiveOp<"all_reduce", [SameOperandsAndResultType]> {
  let summary = "reduce a tensor across the `group_size` sockets of a TP group";
  let description = [{
    Every socket contributes a tensor of the same shape and receives the
    elementwise `kind` reduction.

    Example:
    ```mlir
    %y = llm.all_reduce %x {group_size = 16, kind = #llm<reduce sum>} : tensor<8x1x7168xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$input, SF_I64Attr:$group_size,
                       LLM_ReduceKindAttr:$kind);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def LLM_AllGatherOp : LLM_CollectiveOp<"all_gather"> {
  let summary = "concatenate each socket's shard along `dim`";
  let description = [{
    The result's `dim` is `group_size` times the input's.

    Example:
    ```mlir
    %y = llm.all_gather %x {group_size = 16, dim = 2} : tensor<8x1x8080xbf16> -> tensor<8x1x129280xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$input, SF_I64Attr:$group_size, SF_I64Attr:$dim);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def LLM_AllToAllOp : LLM_CollectiveOp<"all_to_all"> {
  let summary = "exchange parts of a tensor among `group_size` sockets";
  let description = [{
    Each socket cuts its tensor into `group_size` parts and sends part i to
    socket i. Without `split_dim` and `concat_dim` the parts are equal cuts
    of the leading dimension and the tensor keeps its type (expert-parallel
    token dispatch and combine). With them it changes the layout: each
    socket cuts `split_dim` (the last part padded when it does not divide)
    and stacks what it receives along `concat_dim`, so the result's
    `split_dim` is `ceil(d / group_size)` and its `concat_dim` is
    `group_size` times the input's, less up to `group_size - 1` padded rows
    the layout leaves out. `--mla-cache batch` turns the query heads of the
    whole batch into every head of this socket's sequences
    (`split_dim = 0, concat_dim = 2`) and back (`split_dim = 2,
    concat_dim = 0`).

    Example:
    ```mlir
    %y = llm.all_to_all %x {group_size = 16} : tensor<64x1x7168xbf16> -> tensor<64x1x7168xbf16>
    %q = llm.all_to_all %p {group_size = 16, split_dim = 0, concat_dim = 2} : tensor<64x3x1536xbf16> -> tensor<4x3x24576xbf16>
    ```
  }];
  let arguments = (ins LLM_Activation:$input, SF_I64Attr:$group_size,
                       OptionalAttr<SF_I64Attr>:$split_dim,
                       OptionalAttr<SF_I64Attr>:$concat_dim);
  let results = (outs LLM_Activation:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

#endif // SNAPFLOW_DIALECT_LLM_LLMOPS
