//===- LLMDialect.td - Model-level inference ops ----------------*- tablegen -*-===//
//
// The llm dialect describes one inference phase (prefill or decode) of a
// transformer at the granularity of its layers' building blocks, on statically
// shaped tensors. Weights are symbolic (`llm.param`): there is no data, only
// shapes and element types, which set FLOPs and bytes.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_LLM_LLMDIALECT
#define SNAPFLOW_DIALECT_LLM_LLMDIALECT

include "mlir/IR/OpBase.td"

def LLM_Dialect : Dialect {
  let name = "llm";
  let summary = "transformer inference graphs (Llama, DeepSeek) on static shapes";
  let description = [{
    One `func.func` per phase: `@prefill` processes a batch of B prompts of L
    tokens; `@decode` produces one token for each of B sequences that already
    hold C tokens of context. Every op reports its FLOPs and bytes through
    `CostOpInterface`. After tensor parallelism, `llm.all_reduce`,
    `llm.all_gather` and `llm.all_to_all` carry data between sockets.
  }];
  let cppNamespace = "::snapflow::llm";
  let dependentDialects = ["::snapflow::kv::KVDialect"];
  let useDefaultAttributePrinterParser = 1;
  // The discardable attributes the builder and passes exchange; each is typed
  // and checked by verifyOperationAttribute, which refuses other `llm.*`
  // names.
  let discardableAttrs = (ins
    // On each phase function and its df.program: what it computes.
    "WorkloadAttr":$workload,
    // On the module: the model's name, config model_type and the hash of
    // its config's numbers (ModelConfig::fingerprint), for provenance.
    "::mlir::StringAttr":$model,
    "::mlir::StringAttr":$model_type,
    "::mlir::StringAttr":$model_fingerprint,
    // On the module: the dtype the builder gave the weights ("bf16" or
    // "fp8": the config's, or --weights-dtype), for provenance.
    "::mlir::StringAttr":$weights_dtype,
    // On the module after shard-tp: the sockets of the TP group.
    "::mlir::IntegerAttr":$tp,
    // On each op of a decoder layer: its index (for fuse-layers).
    "::mlir::IntegerAttr":$layer
  );
  let hasOperationAttrVerify = 1;
  // llm.window on a phase function's window cache argument.
  let hasRegionArgAttrVerify = 1;
}

#endif // SNAPFLOW_DIALECT_LLM_LLMDIALECT
