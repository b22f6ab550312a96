//===- KVAttrs.td - KV-cache policies ---------------------------*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_KV_KVATTRS
#define SNAPFLOW_DIALECT_KV_KVATTRS

include "snapflow/Dialect/KV/IR/KVDialect.td"
include "snapflow/Dialect/KV/IR/KVInterfaces.td"
include "mlir/IR/AttrTypeBase.td"
include "snapflow/Dialect/KV/IR/KVEnums.td"

class KV_PolicyAttr<string name, string attrMnemonic>
    : AttrDef<KV_Dialect, name, [DeclareAttrInterfaceMethods<KVPolicyAttrInterface>]> {
  let mnemonic = attrMnemonic;
}

def KV_FullPolicyAttr : KV_PolicyAttr<"FullPolicy", "full"> {
  let summary = "keep every token: the cache has one slot per context token";
  let description = [{
    The uncompressed baseline. A cache under `#kv.full` for a context of C tokens
    has C slots and attention reads all of them.

    Example: `!kv.cache<layers = 32, batch = 1, slots = 4096, kv_heads = 8, head_dim = 128, dtype = bf16, policy = #kv.full>`
  }];
}

def KV_StreamingPolicyAttr : KV_PolicyAttr<"StreamingPolicy", "streaming"> {
  let summary = "StreamingLLM: attention sinks plus a recent window";
  let description = [{
    Keeps the first `sinks` tokens and the `window` most recent ones; middle
    tokens are evicted as the window slides (a ring buffer). The cache has
    `sinks + window` slots.

    Example: `#kv.streaming<sinks = 4, window = 2044>`
  }];
  let parameters = (ins "int64_t":$sinks, "int64_t":$window);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def KV_SnapKVPolicyAttr : KV_PolicyAttr<"SnapKVPolicy", "snapkv"> {
  let summary = "SnapKV: one selection of prompt tokens at the end of prefill";
  let description = [{
    At the end of prefill the last `obs_window` queries score every prefix key;
    scores are pooled with a 1-D `pool` of width `kernel`, the top
    `budget - obs_window` tokens per KV-head group are kept together with the
    observation window. Decode appends after the budget (the SnapKV paper lets the
    cache grow during decode; as a static graph snapflow fixes `budget` slots and
    evicts the oldest decoded token, i.e. the window acts as the recent region).

    Example: `#kv.snapkv<budget = 4096, obs_window = 32, kernel = 7, pool = max>`
  }];
  let parameters = (ins "int64_t":$budget, "int64_t":$obs_window,
                        "int64_t":$kernel, EnumParameter<KV_PoolKind>:$pool);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def KV_SnapStreamPolicyAttr : KV_PolicyAttr<"SnapStreamPolicy", "snapstream"> {
  let summary = "SnapStream: SnapKV selection at prefill, sinks + ring buffer at decode";
  let description = [{
    Each sequence owns `budget` slots per layer. At the end of a prefill longer
    than `budget` the cache is filled with the first `sinks` tokens, the
    `budget - sinks - recent` best prefix tokens by SnapKV score (observation
    window `obs_window`, pooling `pool` of width `kernel`), and the last `recent`
    tokens. During decode sinks and selected tokens are frozen and the `recent`
    region is a ring buffer: each new token overwrites the oldest entry, so
    attention always spans exactly `budget` slots.

    Example: `#kv.snapstream<budget = 32768, sinks = 4, recent = 4096, obs_window = 32, kernel = 7, pool = max>`
  }];
  let parameters = (ins "int64_t":$budget, "int64_t":$sinks, "int64_t":$recent,
                        "int64_t":$obs_window, "int64_t":$kernel, EnumParameter<KV_PoolKind>:$pool);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // SNAPFLOW_DIALECT_KV_KVATTRS
