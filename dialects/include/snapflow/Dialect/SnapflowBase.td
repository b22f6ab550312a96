//===- SnapflowBase.td - Definitions shared by every dialect ---*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_SNAPFLOWBASE
#define SNAPFLOW_DIALECT_SNAPFLOWBASE

include "mlir/IR/CommonAttrConstraints.td"

/// A 64-bit integer attribute read back as a signed int64_t (upstream I64Attr
/// returns uint64_t, which turns every negative-value check into a no-op).
def SF_I64Attr : TypedSignlessIntegerAttrBase<I64, "int64_t",
                                              "64-bit signless integer attribute">;

#endif // SNAPFLOW_DIALECT_SNAPFLOWBASE
