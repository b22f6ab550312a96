//===- Passes.td - Conversion passes ----------------------------*- tablegen -*-===//

#ifndef SNAPFLOW_CONVERSION_PASSES
#define SNAPFLOW_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def LowerToDF : Pass<"lower-to-df", "::mlir::ModuleOp"> {
  let summary = "Lower mapped llm/kv phase functions to df programs";
  let description = [{
    Needs --tile-and-map (and uses --plan-memory's tiers when present). Each
    phase function becomes a `df.program` of the same name:
    - `df.tensor` declarations: every weight (stacked over the layers of a
      loop: `tensor<count x ...>`), the KV cache (`tensor<layers x batch x
      slots x width>`), the tokens, the logits, and every activation that
      crosses a section boundary (1-D, in the tier the plan chose);
    - one `df.section` per mapped section, `repeat` = the loop count;
    - per stage op a `df.stage` fed by `df.load`s of its weights (only the
      routed experts expected to be touched), of the KV cache for decode
      attention, and of activations from earlier sections; its outputs
      stream to later stages, to `df.collective`s, or are stored
      (`df.store`) to their home tensor and, for new tokens, to the KV cache.
    The llm functions are replaced by the programs.
  }];
  let dependentDialects = ["::snapflow::df::DFDialect"];
}

#endif // SNAPFLOW_CONVERSION_PASSES
