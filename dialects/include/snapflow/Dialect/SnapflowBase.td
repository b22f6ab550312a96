//===- SnapflowBase.td - Definitions shared by every dialect ---*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_SNAPFLOWBASE
#define SNAPFLOW_DIALECT_SNAPFLOWBASE

include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/AttrTypeBase.td"

/// A 64-bit integer attribute read back as a signed int64_t (upstream I64Attr
/// returns uint64_t, which turns every negative-value check into a no-op).
def SF_I64Attr : TypedSignlessIntegerAttrBase<I64, "int64_t",
                                              "64-bit signless integer attribute">;

/// A real-number parameter of an attribute (an APFloat, since attribute
/// storage hashes its parameters), written as a float and printed so that it
/// reads back to the same value. Read it with `.convertToDouble()`.
class SF_F64Parameter<string desc, string default = "">
    : APFloatParameter<desc> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::llvm::APFloat> {
    double v;
    if ($_parser.parseFloat(v))
      return ::mlir::failure();
    return ::llvm::APFloat(v);
  }() }];
  let printer = [{ $_printer.printFloat($_self) }];
  let defaultValue = default;
}

#endif // SNAPFLOW_DIALECT_SNAPFLOWBASE
