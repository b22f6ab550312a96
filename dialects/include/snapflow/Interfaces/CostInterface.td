//===- CostInterface.td - FLOPs and bytes of an op -------------*- tablegen -*-===//
//
// Every llm and kv op reports the arithmetic and memory traffic it implies, so
// the compiler (tiling, memory planning) and the roofline share one cost model.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_INTERFACES_COSTINTERFACE
#define SNAPFLOW_INTERFACES_COSTINTERFACE

include "mlir/IR/OpBase.td"

def CostOpInterface : OpInterface<"CostOpInterface"> {
  let description = [{
    Reports the floating-point operations an op performs and the bytes it reads
    and writes in memory, derived from its operand types and attributes. A
    multiply-accumulate counts as two FLOPs. Weights are read once per op
    execution (all tokens of a batch share one read); activations are read and
    written once. Collectives also report the bytes each socket sends over its
    peer links.
  }];
  let cppNamespace = "::snapflow";
  let methods = [
    InterfaceMethod<"Floating-point operations of one execution of the op.",
      "::snapflow::CheckedInt", "getFlops">,
    InterfaceMethod<"Bytes read from memory by one execution of the op.",
      "::snapflow::CheckedInt", "getBytesRead">,
    InterfaceMethod<"Bytes written to memory by one execution of the op.",
      "::snapflow::CheckedInt", "getBytesWritten">,
    InterfaceMethod<"Bytes each socket sends over peer links (collectives).",
      "::snapflow::CheckedInt", "getLinkBytes", (ins), [{}],
      [{ return 0; }]>,
    InterfaceMethod<[{Of getFlops, what a KV policy's or format's upkeep
      adds: all of a kv op a policy or format emits (eviction, scoring,
      recall, backup, quantization), or an attention's share (the
      probabilities it keeps for an eviction policy, dequantizing what it
      reads, a format's rotations); 0 for the rest.}],
      "::snapflow::CheckedInt", "getKVUpkeepFlops", (ins), [{}],
      [{ return 0; }]>,
    InterfaceMethod<[{Of getBytesRead + getBytesWritten, the bytes that
      upkeep moves.}],
      "::snapflow::CheckedInt", "getKVUpkeepBytes", (ins), [{}],
      [{ return 0; }]>,
    InterfaceMethod<[{The rows of the op's dominant GEMM: how many activation
      vectors share each weight (or key) it streams, the M of an M x K by
      K x N product, which a systolic array fills only in whole tiles
      (arch::ArchModel::systolicUtilization). A linear's tokens; an
      attention's queries per key (the query heads sharing a KV head, times
      the step's tokens); an MoE's tokens per active expert. 0: not a GEMM,
      or its shape fills the array.}],
      "int64_t", "getGemmRows", (ins), [{}], [{ return 0; }]>,
  ];
  // Costs are products of shapes and attributes a user chose; a verified op's
  // costs fit in 64 bits, so passes may read them with value(). Runs after
  // the op's own verifier (which makes the formulas meaningful).
  let verifyWithRegions = 1;
  let verify = [{ return ::snapflow::verifyCostsFit($_op); }];
}

def StorageFormatAttrInterface : AttrInterface<"StorageFormatAttrInterface"> {
  let description = [{
    The encoding of a tensor stored in another form than its element type
    (gpt-oss's MXFP4 experts: 4-bit values and a scale per block of 32):
    getTensorBytes counts its bytes as stored, so every weight byte the cost
    model, the memory plan and the df program move is the checkpoint's.
  }];
  let cppNamespace = "::snapflow";
  let methods = [
    InterfaceMethod<"Bytes of `elements` elements along a row, as stored.",
      "::snapflow::CheckedInt", "getStorageBytes",
      (ins "::snapflow::CheckedInt":$elements)>,
    InterfaceMethod<"The format's name (`mxfp4`).",
      "std::string", "getLabel">,
  ];
}

#endif // SNAPFLOW_INTERFACES_COSTINTERFACE
