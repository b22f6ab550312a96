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
      "int64_t", "getFlops">,
    InterfaceMethod<"Bytes read from memory by one execution of the op.",
      "int64_t", "getBytesRead">,
    InterfaceMethod<"Bytes written to memory by one execution of the op.",
      "int64_t", "getBytesWritten">,
    InterfaceMethod<"Bytes each socket sends over peer links (collectives).",
      "int64_t", "getLinkBytes", (ins), [{}], [{ return 0; }]>,
  ];
}

#endif // SNAPFLOW_INTERFACES_COSTINTERFACE
