//===- KVTypes.td - KV-cache types ------------------------------*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_KV_KVTYPES
#define SNAPFLOW_DIALECT_KV_KVTYPES

include "snapflow/Dialect/KV/IR/KVDialect.td"
include "snapflow/Dialect/KV/IR/KVInterfaces.td"
include "mlir/IR/AttrTypeBase.td"

/// How a cache stores its elements; absent (elided): at its dtype.
def KV_OptionalFormat
    : OptionalParameter<"::snapflow::kv::KVFormatAttrInterface",
                        "element format (absent: the dtype)">;

def KV_CacheType : TypeDef<KV_Dialect, "Cache",
    [KVCacheTypeInterface]> {
  let mnemonic = "cache";
  let summary = "grouped-query attention KV cache with a static slot count";
  let description = [{
    Keys and values for `layers` decoder layers and `batch` sequences, each with
    `slots` token slots of `kv_heads` x `head_dim` elements (K and V each).
    Under a compressing policy `slots` equals the policy's budget.

    `format`, when present, stores the elements quantized
    (`#kv.kivi<...>`, `#kv.fp8`, ...): the cache's bytes are the format's.

    Example: `!kv.cache<layers = 32, batch = 8, slots = 4096, kv_heads = 8, head_dim = 128, dtype = bf16, policy = #kv.full>`,
    `!kv.cache<..., policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 128>>`
  }];
  let parameters = (ins "int64_t":$layers, "int64_t":$batch, "int64_t":$slots,
                        "int64_t":$kv_heads, "int64_t":$head_dim,
                        "::mlir::Type":$dtype,
                        "::snapflow::kv::KVPolicyAttrInterface":$policy,
                        KV_OptionalFormat:$format);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Elements per token per layer.
    int64_t getValuesPerToken() const;
    /// A GQA cache is split by heads, never by sequence or batch.
    int64_t getSeqShards() const { return 1; }
    int64_t getBatchShards() const { return 1; }
  }];
}

def KV_LatentCacheType : TypeDef<KV_Dialect, "LatentCache",
    [KVCacheTypeInterface]> {
  let mnemonic = "latent_cache";
  let summary = "multi-head latent attention cache (DeepSeek MLA)";
  let description = [{
    One compressed latent of `latent_dim` elements plus a rotary key of
    `rope_dim` elements per token and layer, shared by every attention head
    (so tensor parallelism cannot split it by heads). It is replicated on
    every socket; or split by sequence over `seq_shards` sockets (default 1,
    elided), `slots` then being this socket's and `slots * seq_shards` the
    sequence's; or split by batch over `batch_shards` sockets (default 1,
    elided, `--mla-cache batch`: the attention data-parallel over the
    batch), `batch` then being the sequences this socket holds of a batch
    of up to `batch * batch_shards`.

    Example: `!kv.latent_cache<layers = 61, batch = 8, slots = 131072, latent_dim = 512, rope_dim = 64, dtype = bf16, policy = #kv.full>`,
    `!kv.latent_cache<layers = 61, batch = 4, slots = 32768, latent_dim = 512, rope_dim = 64, dtype = bf16, policy = ..., batch_shards = 16>`
  }];
  let parameters = (ins "int64_t":$layers, "int64_t":$batch, "int64_t":$slots,
                        "int64_t":$latent_dim, "int64_t":$rope_dim,
                        "::mlir::Type":$dtype,
                        "::snapflow::kv::KVPolicyAttrInterface":$policy,
                        DefaultValuedParameter<"int64_t", "1">:$seq_shards,
                        KV_OptionalFormat:$format,
                        DefaultValuedParameter<"int64_t", "1">:$batch_shards);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Elements per token per layer.
    int64_t getValuesPerToken() const;
  }];
}

def KV_AnyCache : Type<Or<[KV_CacheType.predicate, KV_LatentCacheType.predicate]>,
                       "KV cache", "::snapflow::kv::KVCacheTypeInterface">;

#endif // SNAPFLOW_DIALECT_KV_KVTYPES
