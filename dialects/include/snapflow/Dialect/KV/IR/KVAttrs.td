//===- KVAttrs.td - KV-cache policies ---------------------------*- tablegen -*-===//
//
// One attribute per KV-cache policy. A policy may be written unresolved
// (`#kv.snapstream<ratio = 4>`: a budget as a share of the context, defaults
// left open); `resolveFor(context)` fixes every number, and caches hold only
// resolved policies. The C++ of each policy (verifier, resolution, lowering
// hook, costs) is in lib/Dialect/KV/IR/Policies/<Name>.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_KV_KVATTRS
#define SNAPFLOW_DIALECT_KV_KVATTRS

include "snapflow/Dialect/KV/IR/KVDialect.td"
include "snapflow/Dialect/KV/IR/KVInterfaces.td"
include "mlir/IR/AttrTypeBase.td"
include "snapflow/Dialect/KV/IR/KVEnums.td"

/// A policy attribute; `overrides` names the interface methods with a
/// default implementation that the policy provides itself.
class KV_PolicyAttr<string name, string attrMnemonic,
                    list<string> overrides = []>
    : AttrDef<KV_Dialect, name,
              [DeclareAttrInterfaceMethods<KVPolicyAttrInterface, overrides>]> {
  let mnemonic = attrMnemonic;
}

/// A count a policy may leave open (filled in by resolveFor).
def KV_OptionalCount : OptionalParameter<"std::optional<int64_t>", "token count">;

/// A pooling kind a policy may leave open (max when resolved).
def KV_OptionalPool
    : OptionalParameter<"std::optional<::snapflow::kv::PoolKind>",
                        "pooling of scores (max or avg)"> {
  let parser = "::mlir::FieldParser<::snapflow::kv::PoolKind>::parse($_parser)";
  let printer = "$_printer << ::snapflow::kv::stringifyPoolKind(*$_self)";
}

def KV_FullPolicyAttr : KV_PolicyAttr<"FullPolicy", "full"> {
  let summary = "keep every token: the cache has one slot per context token";
  let description = [{
    The uncompressed baseline. A cache under `#kv.full` for a context of C tokens
    has C slots and attention reads all of them.

    Example: `!kv.cache<layers = 32, batch = 1, slots = 4096, kv_heads = 8, head_dim = 128, dtype = bf16, policy = #kv.full>`
  }];
}

def KV_StreamingPolicyAttr : KV_PolicyAttr<"StreamingPolicy", "streaming",
                                              ["getPublishedAccuracy"]> {
  let summary = "StreamingLLM: attention sinks plus a recent window";
  let description = [{
    Keeps the first `sinks` tokens (default 4) and the `window` most recent
    ones; middle tokens are evicted as the window slides (a ring buffer).
    The cache has `sinks + window` slots.

    Example: `#kv.streaming<sinks = 4, window = 2044>`
  }];
  let parameters = (ins KV_OptionalCount:$sinks, "int64_t":$window);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def KV_SnapKVPolicyAttr
    : KV_PolicyAttr<"SnapKVPolicy", "snapkv",
                    ["buildPrefillSelection", "getPublishedAccuracy",
                     "getObservedQueries"]> {
  let summary = "SnapKV: one selection of prompt tokens at the end of prefill";
  let description = [{
    At the end of prefill the last `obs_window` queries score every prefix key;
    scores are pooled with a 1-D `pool` of width `kernel`, the top
    `budget - obs_window` tokens per KV-head group are kept together with the
    observation window. Decode appends after the budget (the SnapKV paper lets the
    cache grow during decode; as a static graph snapflow fixes `budget` slots and
    evicts the oldest decoded token, i.e. the window acts as the recent region).
    `ratio = R` sets the budget to ceil(context / R); unresolved, `obs_window`
    defaults to min(32, budget / 2), `kernel` to 7 and `pool` to max.

    Example: `#kv.snapkv<budget = 4096, obs_window = 32, kernel = 7, pool = max>`,
    unresolved `#kv.snapkv<ratio = 4>`
  }];
  let parameters = (ins KV_OptionalCount:$budget, KV_OptionalCount:$ratio,
                        KV_OptionalCount:$obs_window, KV_OptionalCount:$kernel,
                        KV_OptionalPool:$pool);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def KV_SnapStreamPolicyAttr
    : KV_PolicyAttr<"SnapStreamPolicy", "snapstream",
                    ["buildPrefillSelection", "getObservedQueries"]> {
  let summary = "SnapStream: SnapKV selection at prefill, sinks + ring buffer at decode";
  let description = [{
    Each sequence owns `budget` slots per layer. At the end of a prefill longer
    than `budget` the cache is filled with the first `sinks` tokens, the
    `budget - sinks - recent` best prefix tokens by SnapKV score (observation
    window `obs_window`, pooling `pool` of width `kernel`), and the last `recent`
    tokens. During decode sinks and selected tokens are frozen and the `recent`
    region is a ring buffer: each new token overwrites the oldest entry, so
    attention always spans exactly `budget` slots. `ratio = R` sets the
    budget to ceil(context / R); unresolved, `sinks` defaults to 4,
    `obs_window` to min(32, budget / 2), `recent` to max(obs_window,
    min(4096, budget / 4)), `kernel` to 7 and `pool` to max.

    Example: `#kv.snapstream<budget = 32768, sinks = 4, recent = 4096, obs_window = 32, kernel = 7, pool = max>`,
    unresolved `#kv.snapstream<ratio = 4>`
  }];
  let parameters = (ins KV_OptionalCount:$budget, KV_OptionalCount:$ratio,
                        KV_OptionalCount:$sinks, KV_OptionalCount:$recent,
                        KV_OptionalCount:$obs_window, KV_OptionalCount:$kernel,
                        KV_OptionalPool:$pool);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def KV_H2OPolicyAttr
    : KV_PolicyAttr<"H2OPolicy", "h2o",
                    ["buildPrefillSelection", "getPublishedAccuracy", "getSlotStateBytes",
                     "buildDecodeUpkeep", "getEvictCost"]> {
  let summary = "H2O: heavy hitters by accumulated attention plus recent tokens";
  let description = [{
    Heavy-Hitter Oracle (Zhang et al., NeurIPS 2023), in the fixed-slot form
    of its official FlexGen code. Each sequence owns `budget` slots per
    layer: `budget - recent` heavy hitters and the `recent` newest tokens.
    Every slot keeps its token's accumulated attention (an f32 per KV-head
    group). A prefill longer than the budget scores every prompt token by
    the attention all prompt queries give it (kv.score over the whole
    prompt) and keeps the top `budget - recent` older tokens with the last
    `recent`. Each decode step the attention emits its probabilities, and
    kv.evict adds them to the scores and picks the lowest-scored slot
    outside the recent tokens, which the next token overwrites.
    `ratio = R` sets the budget to ceil(context / R); unresolved, `recent`
    defaults to budget / 2 (the official scripts' equal heavy and recent
    ratios, `--heavy_ratio 0.1 --recent_ratio 0.1`).

    Example: `#kv.h2o<budget = 8192, recent = 4096>`, unresolved
    `#kv.h2o<ratio = 5>`
  }];
  let parameters = (ins KV_OptionalCount:$budget, KV_OptionalCount:$ratio,
                        KV_OptionalCount:$recent);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def KV_ScissorhandsPolicyAttr
    : KV_PolicyAttr<"ScissorhandsPolicy", "scissorhands",
                    ["buildPrefillSelection", "getSlotStateBytes",
                     "buildDecodeUpkeep", "getEvictCost"]> {
  let summary = "Scissorhands: persistence of importance over a history window";
  let description = [{
    Scissorhands (Liu et al., NeurIPS 2023). Each sequence owns `budget`
    slots per layer: `sinks` first tokens, `recent` newest ones, and the
    rest chosen by how often they were important. Every slot keeps a
    window of `history` bits per KV-head group: whether the step's
    attention gave it at least the uniform share (1/slots). A prefill
    longer than the budget scores the prompt tokens by the attention of the
    last `history` prompt queries. Each decode step kv.evict records the
    step's bits, counts every slot's over the window and picks the slot
    important least often outside the sinks and recent tokens, which the
    next token overwrites (and its history is cleared). Defaults: the
    paper's `history = 400` and `recent = 10` (Algorithm 2, as
    cold-compress cites them), `sinks = 4` (StreamingLLM's; the paper's
    count of protected first tokens was not read). `ratio = R` sets the
    budget to ceil(context / R).

    Example: `#kv.scissorhands<budget = 8192, sinks = 4, recent = 10, history = 400>`,
    unresolved `#kv.scissorhands<ratio = 5>`
  }];
  let parameters = (ins KV_OptionalCount:$budget, KV_OptionalCount:$ratio,
                        KV_OptionalCount:$sinks, KV_OptionalCount:$recent,
                        KV_OptionalCount:$history);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def KV_ArkValePolicyAttr
    : KV_PolicyAttr<"ArkValePolicy", "arkvale",
                    ["buildPrefillSelection", "getPageTokens",
                     "getBackupTokens", "getDigestBytes",
                     "buildDecodeRecall"]> {
  let summary = "ArkVale: recallable pages backed up to DDR, chosen by digest";
  let description = [{
    ArkVale (Chen et al., NeurIPS 2024), in the form of its official code
    (pku-liang/ArkVale). Tokens live in pages of `page` tokens; each
    sequence keeps `budget` tokens (budget / page pages) per layer in HBM.
    Every page is backed up to the chip's external tier (DDR) as it fills,
    and its digest (the per-channel box of its keys, cuboid-mean) is kept
    in HBM for every page of the `context`. A prefill longer than the
    budget keeps `sinks` first pages, `window` last pages and the best
    other pages by digest score with the last prompt query. Each decode
    step scores every digest with the query (kv.page_score), takes the
    `topk` best pages (kv.topk, sinks and window always kept), brings
    `recall` of them back from DDR (kv.recall: the recall rate a static
    program provisions), attends over the resident budget, and backs the
    new token up (kv.backup). `ratio = R` sets the budget to ceil(context /
    R) rounded up to whole pages. Defaults, from the official benchmark
    scripts (longbench_pred.py, performance.py): `page = 32`, `sinks = 1`,
    `window = 2`, `topk = 32` (at most half the budget's pages); `recall`
    = min(10, topk), the paper's measured bound ("fewer than 10 pages per
    decode step"). `tokens` is the sequence length (the context) the backup
    and digests are sized for, filled in by resolution.

    Example: `#kv.arkvale<budget = 4096, page = 32, sinks = 1, window = 2, topk = 32, recall = 10, tokens = 32768>`,
    unresolved `#kv.arkvale<ratio = 8>`
  }];
  let parameters = (ins KV_OptionalCount:$budget, KV_OptionalCount:$ratio,
                        KV_OptionalCount:$page, KV_OptionalCount:$sinks,
                        KV_OptionalCount:$window, KV_OptionalCount:$topk,
                        KV_OptionalCount:$recall, KV_OptionalCount:$tokens);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

include "snapflow/Dialect/KV/IR/KVFormats.td"

#endif // SNAPFLOW_DIALECT_KV_KVATTRS
