//===- KVEnums.td - kv enums -------------------------------------*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_KV_KVENUMS
#define SNAPFLOW_DIALECT_KV_KVENUMS

include "snapflow/Dialect/KV/IR/KVDialect.td"
include "mlir/IR/EnumAttr.td"

def KV_PoolKind : I32EnumAttr<"PoolKind", "1-D pooling of selection scores", [
  I32EnumAttrCase<"max", 0>, I32EnumAttrCase<"avg", 1>]> {
  let cppNamespace = "::snapflow::kv";
  let genSpecializedAttr = 0;
}
def KV_PoolKindAttr : EnumAttr<KV_Dialect, KV_PoolKind, "pool">;

#endif // SNAPFLOW_DIALECT_KV_KVENUMS
