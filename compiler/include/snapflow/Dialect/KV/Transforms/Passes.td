//===- Passes.td - kv transformation passes ---------------------*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_KV_TRANSFORMS_PASSES
#define SNAPFLOW_DIALECT_KV_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def KVCompress : Pass<"kv-compress", "::mlir::ModuleOp"> {
  let summary = "Give every KV cache a static budget and insert SnapKV selection";
  let description = [{
    Rewrites every `!kv.cache` / `!kv.latent_cache` of the module to the slot
    count and policy attribute of `policy` (a policy string such as
    `snapstream:ratio=4` or
    `snapstream:budget=32768,sinks=4,recent=4096,obs_window=32,kernel=7,pool=max`),
    resolved for a context of `context` tokens (default: the largest cache in
    the module, i.e. the decode context). The policy and format applied are
    recorded on the module as their resolved labels (`kv.policy`,
    `kv.format`), which reports name.

    Prefill: after each attention whose prompt is longer than the budget, the
    SnapKV selection is inserted per layer: `kv.score` (observation-window
    queries over the prompt's keys, per KV-head group for GQA, per layer with
    the absorbed up-projection for MLA), `kv.pool`, `kv.topk`, and
    `kv.gather_store` of sinks + selected + recent tokens into the cache.
    StreamingLLM keeps sinks + recent with no selection. Decode: attention
    spans exactly the budget and the new token goes to the recent ring. All
    shapes stay static and the selection's FLOPs and bytes are in the IR.

    With `format` every cache also stores its elements in that format
    (under any policy, `full` included), and the format's own ops are
    inserted: after a prefill's write (ZipCache: probe scores, a top-k of
    the salient tokens, kv.quantize) and after each decode attention (KIVI:
    kv.quantize of one residual token; ZipCache: kv.requantize).
  }];
  let options = [
    Option<"policy", "policy", "std::string", "\"full\"",
           "KV policy string (see `snapflow list`)">,
    Option<"format", "format", "std::string", "\"bf16\"",
           "KV element format: bf16, fp8, kivi2, kivi4, quarot4, zipcache "
           "or name:key=value,... (see `snapflow list`)">,
    Option<"context", "context", "int64_t", "0",
           "Context tokens the policy is resolved for (0: the largest cache)">,
  ];
  let dependentDialects = ["::snapflow::kv::KVDialect"];
}

#endif // SNAPFLOW_DIALECT_KV_TRANSFORMS_PASSES
