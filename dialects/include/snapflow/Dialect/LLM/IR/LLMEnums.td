//===- LLMEnums.td - llm enums -----------------------------------*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_LLM_LLMENUMS
#define SNAPFLOW_DIALECT_LLM_LLMENUMS

include "snapflow/Dialect/LLM/IR/LLMDialect.td"
include "mlir/IR/EnumAttr.td"

def LLM_ReduceKind : I32EnumAttr<"ReduceKind", "reduction of a collective", [
  I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>]> {
  let cppNamespace = "::snapflow::llm";
  let genSpecializedAttr = 0;
}
def LLM_ReduceKindAttr : EnumAttr<LLM_Dialect, LLM_ReduceKind, "reduce">;

#endif // SNAPFLOW_DIALECT_LLM_LLMENUMS
