//===- DataflowEnums.td - df enums -------------------------------*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWENUMS
#define SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWENUMS

include "snapflow/Dialect/Dataflow/IR/DataflowDialect.td"
include "mlir/IR/EnumAttr.td"

def DF_StageKind : I32EnumAttr<"StageKind", "what a stage computes", [
  I32EnumAttrCase<"gemm", 0>, I32EnumAttrCase<"elementwise", 1>,
  I32EnumAttrCase<"reduce", 2>, I32EnumAttrCase<"softmax", 3>,
  I32EnumAttrCase<"norm", 4>, I32EnumAttrCase<"topk", 5>,
  I32EnumAttrCase<"gather", 6>]> {
  let cppNamespace = "::snapflow::df";
}

def DF_CollectiveKind : I32EnumAttr<"CollectiveKind", "cross-socket collective", [
  I32EnumAttrCase<"all_reduce", 0>, I32EnumAttrCase<"all_gather", 1>,
  I32EnumAttrCase<"all_to_all", 2>]> {
  let cppNamespace = "::snapflow::df";
}

// The names are arch::CollectiveAlgorithm's (arch/Collectives.h holds the
// schedules and costs); the IR records a concrete choice, never `auto`.
def DF_CollectiveAlgorithm : I32EnumAttr<"CollectiveAlgorithm",
    "how a collective moves data between the sockets", [
  I32EnumAttrCase<"ring", 0>, I32EnumAttrCase<"bidirectional_ring", 1>,
  I32EnumAttrCase<"ring_2d", 2>, I32EnumAttrCase<"recursive_doubling", 3>,
  I32EnumAttrCase<"halving_doubling", 4>, I32EnumAttrCase<"tree", 5>,
  I32EnumAttrCase<"one_shot", 6>]> {
  let cppNamespace = "::snapflow::df";
}

#endif // SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWENUMS
