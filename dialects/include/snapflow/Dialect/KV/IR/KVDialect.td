//===- KVDialect.td - KV-cache state and compression -----------*- tablegen -*-===//
//
// The kv dialect models KV-cache state with a static slot count and the ops that
// compress it (SnapKV selection at the end of prefill, ring-buffer append at
// decode). Shapes never depend on run-time lengths: that is what lets SnapStream
// run on static graphs with continuous batching.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_KV_KVDIALECT
#define SNAPFLOW_DIALECT_KV_KVDIALECT

include "mlir/IR/OpBase.td"

def KV_Dialect : Dialect {
  let name = "kv";
  let summary = "KV-cache state with static slot counts and its compression";
  let description = [{
    A KV cache is a value of type `!kv.cache` (grouped-query attention: keys and
    values per KV head) or `!kv.latent_cache` (DeepSeek multi-head latent
    attention: one compressed latent plus a rotary key per token, shared by all
    heads). Both carry a *policy* attribute (`#kv.full`, `#kv.streaming`,
    `#kv.snapkv`, `#kv.snapstream`) that fixes how many slots the cache has and
    how they are filled. Policies implement `KVPolicyAttrInterface`, so a new
    policy is one new attribute plus its lowering.
  }];
  let cppNamespace = "::snapflow::kv";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // On the module after kv-compress: the policy and element format it
  // applied, each as its label with every number resolved for the context
  // ("snapstream:budget=32768,sinks=4,...", "bf16"); what a report names.
  let discardableAttrs = (ins
    "::mlir::StringAttr":$policy,
    "::mlir::StringAttr":$format
  );
  let hasOperationAttrVerify = 1;
}

#endif // SNAPFLOW_DIALECT_KV_KVDIALECT
