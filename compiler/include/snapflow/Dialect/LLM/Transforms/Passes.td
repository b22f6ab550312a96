//===- Passes.td - llm transformation passes --------------------*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_LLM_TRANSFORMS_PASSES
#define SNAPFLOW_DIALECT_LLM_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def ShardTP : Pass<"shard-tp", "::mlir::ModuleOp"> {
  let summary = "Split a model over `tp` sockets in tensor parallel";
  let description = [{
    Rewrites every phase function into the program of one socket of a
    tensor-parallel group of `tp` sockets (Megatron-style):
    - attention heads split (q/k/v projections by output rows, the output
      projection by input columns, then `llm.all_reduce`); GQA KV heads split
      when `num_kv_heads % tp == 0`, else each socket keeps one KV head
      (replicated `tp / num_kv_heads` times; requires `tp % num_kv_heads == 0`);
    - MLA: query heads and the KV up-projection split by heads; the down-
      projections (`q_a_proj`, `kv_a_proj_with_mqa`) are replicated. The latent
      cache is replicated on every socket (`mla-cache=replicate`) or split by
      sequence (`mla-cache=sequence`): each socket then attends all heads over
      its `1/tp` of the tokens, the partial softmax results are combined by an
      all-reduce and each socket keeps its heads (`llm.shard_slice`); or split
      by batch in a decode (`mla-cache=batch`, SnapStream's deployment): the
      query projection splits by heads, an `llm.all_to_all` gives each socket
      every head of its `ceil(B/tp)` sequences, whose cache it alone holds
      (`batch_shards = tp`), the attention keeps the whole up-projection, and
      a second all-to-all returns its result to the heads layout for the
      output projection (a prefill attends by heads, as replicated);
    - MLP columns/rows split, then `llm.all_reduce`;
    - MoE: experts spread over the sockets (`moe=expert`, `expert_shards = tp`:
      activations are replicated under TP, so every socket already holds every
      token and the partial expert outputs are summed by the all-reduce), or
      every expert split like an MLP (`moe=split`); shared experts are split;
    - embedding and output head split by vocabulary rows (the embedding is
      summed by an all-reduce, the logits gathered by `llm.all_gather`); a
      vocabulary that does not divide by `tp` is padded up.
    A head count, width or expert count that cannot be split is an error that
    names the op and the numbers.
  }];
  let options = [
    Option<"tp", "tp", "int64_t", "1",
           "Sockets in the tensor-parallel group (0: every socket of the "
           "module's df.target)">,
    Option<"mlaCache", "mla-cache", "std::string", "\"replicate\"",
           "MLA latent cache: replicate | sequence | batch">,
    Option<"moe", "moe", "std::string", "\"expert\"",
           "MoE layers: expert (expert parallel) | split (split every expert)">,
  ];
  let dependentDialects = ["::snapflow::llm::LLMDialect",
                           "::snapflow::df::DFDialect"];
}

def FuseLayers : Pass<"fuse-layers", "::mlir::func::FuncOp"> {
  let summary = "Fold runs of identical decoder layers into one looped body";
  let description = [{
    Kernel looping: consecutive decoder layers (ops marked `llm.layer`) whose
    ops, attributes (but the layer index and parameter names) and types are
    identical become one `llm.repeat` of the first layer's body, run once per
    layer. Llama gives one loop over all layers; DeepSeek two (the dense
    layers, then the MoE layers). Layers that differ from both neighbours stay
    as they are. Costs and parameter counts are unchanged (`ModelStats`
    counts a repeated body once per iteration).
  }];
  let dependentDialects = ["::snapflow::llm::LLMDialect",
                           "::snapflow::df::DFDialect"];
}

def MoERouting : Pass<"moe-routing", "::mlir::ModuleOp"> {
  let summary = "Set each MoE op's expected touched experts from a seeded routing model";
  let description = [{
    How many distinct experts a batch touches sets the weight bytes a MoE
    layer reads. Without this pass the cost model assumes uniform,
    independent routing: N tokens touch E (1 - (1 - k/E)^N) experts. This
    pass samples routing instead: expert popularity follows a Zipf law of
    exponent `skew` over a random (seeded) ranking of the experts (skew 0 is
    uniform); each of the N tokens picks `top_k` distinct experts with those
    probabilities; the experts held by one socket (`num_experts` of the
    `num_experts x expert_shards`) that at least one token picked are
    counted, averaged over `trials` draws. The mean is recorded as
    `expected_active_experts`. Same seed, same result.
  }];
  let options = [
    Option<"seed", "seed", "uint64_t", "42", "Seed of the routing model">,
    Option<"trials", "trials", "int64_t", "64", "Routing draws averaged">,
    Option<"skew", "skew", "double", "0.0",
           "Zipf exponent of expert popularity (0: uniform)">,
  ];
  let dependentDialects = ["::snapflow::llm::LLMDialect",
                           "::snapflow::df::DFDialect"];
}

#endif // SNAPFLOW_DIALECT_LLM_TRANSFORMS_PASSES
