//===- LLMAttrs.td - What a phase function computes -------------*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_LLM_LLMATTRS
#define SNAPFLOW_DIALECT_LLM_LLMATTRS

include "snapflow/Dialect/SnapflowBase.td"
include "snapflow/Dialect/LLM/IR/LLMDialect.td"
include "snapflow/Dialect/LLM/IR/LLMEnums.td"
include "snapflow/Interfaces/CostInterface.td"
include "mlir/IR/AttrTypeBase.td"

/// The phase: `arch::Phase` (arch/Phase.h), the one phase enum of the
/// dialects, compiler, driver and simulator, spelled `prefill` or `decode`.
def LLM_PhaseParameter : AttrParameter<"::snapflow::arch::Phase",
                                       "inference phase (prefill or decode)"> {
  let parser = "::snapflow::llm::parsePhaseKeyword($_parser)";
  let printer = "$_printer << ::snapflow::arch::phaseName($_self)";
}

def LLM_PhaseAttr : AttrDef<LLM_Dialect, "Phase"> {
  let mnemonic = "phase";
  let summary = "the phase an attention op runs in";
  let description = [{
    Example: `phase = #llm<phase decode>`; its accessor on an op returns
    the `arch::Phase`.
  }];
  let parameters = (ins LLM_PhaseParameter:$value);
  let assemblyFormat = "$value";
  let returnType = "::snapflow::arch::Phase";
  let convertFromStorage = "$_self.getValue()";
  let constBuilderCall =
      "::snapflow::llm::PhaseAttr::get($_builder.getContext(), $0)";
}

def LLM_BlockScaledAttr : AttrDef<LLM_Dialect, "BlockScaled",
    [DeclareAttrInterfaceMethods<StorageFormatAttrInterface>]> {
  let mnemonic = "block_scaled";
  let summary = "a weight stored as low-bit values with a scale per block";
  let description = [{
    The encoding of a weight tensor stored in a block-scaled format (the OCP
    Microscaling formats): every `block` consecutive elements of a row (the
    last dimension) are `element_bits`-bit values sharing one
    `scale_bits`-bit scale. MXFP4, in which gpt-oss ships its experts, is
    `element_bits = 4, block = 32, scale_bits = 8`: 4.25 bits a weight. The
    element type is what the op computes in (the values are dequantized on
    the way); getTensorBytes counts the bytes as stored.

    Example:
    `tensor<128x2880x2880xbf16, #llm.block_scaled<element_bits = 4, block = 32, scale_bits = 8>>`
  }];
  let parameters = (ins "int64_t":$element_bits, "int64_t":$block,
                        "int64_t":$scale_bits);
  let assemblyFormat = [{
    `<` `element_bits` `=` $element_bits `,` `block` `=` $block `,`
    `scale_bits` `=` $scale_bits `>`
  }];
  let genVerifyDecl = 1;
}

def LLM_WorkloadAttr : AttrDef<LLM_Dialect, "Workload"> {
  let mnemonic = "workload";
  let summary = "what a phase function computes: phase, batch, tokens, speculation";
  let description = [{
    Set by the model builder on each phase function (`llm.workload`) and
    carried by lower-to-df onto its `df.program`. `tokens` is the prompt
    length for prefill and the context each sequence attends for decode.
    With DeepSeek's MTP module, decode verifies `1 + mtp_depth` tokens per
    sequence and step, each draft accepted with probability
    `mtp_acceptance`; the accepted tokens per step are derived from these
    two (`getTokensPerStep`), never stored. A chunked prefill runs its
    static graph (the chunk of T tokens the function's ops process)
    `chunks` times over the prompt, each chunk attending to the KV the
    earlier ones wrote (the attention ops' `prefix`); `tokens` is then the
    whole prompt, at most `chunks` x T. A Block Transformer decode step
    produces a block of `block_tokens` tokens per sequence (its token
    decoder runs that many forwards); `tokens` still counts tokens, and the
    block decoder's cache holds one slot per block of them.

    Example: `#llm.workload<decode, batch = 8, tokens = 131072>`,
    `#llm.workload<decode, batch = 147, tokens = 131072, mtp_depth = 1, mtp_acceptance = 8.000000e-01>`,
    `#llm.workload<prefill, batch = 1, tokens = 131072, chunks = 16>`
  }];
  let parameters = (ins LLM_PhaseParameter:$phase, "int64_t":$batch,
                        "int64_t":$tokens,
                        DefaultValuedParameter<"int64_t", "0">:$mtp_depth,
                        SF_F64Parameter<"draft acceptance", "::llvm::APFloat(0.0)">:$mtp_acceptance,
                        DefaultValuedParameter<"int64_t", "1">:$chunks,
                        DefaultValuedParameter<"int64_t", "1">:$block_tokens);
  let assemblyFormat =
      "`<` $phase `,` struct($batch, $tokens, $mtp_depth, $mtp_acceptance, $chunks, $block_tokens) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Accepted tokens per sequence and step: 1 + P + ... + P^mtp_depth
    /// (token i is kept when the i drafts before it were all accepted),
    /// times the block's tokens.
    double getTokensPerStep() const;
  }];
}

#endif // SNAPFLOW_DIALECT_LLM_LLMATTRS
