//===- CostInterface.cpp - FLOPs and bytes of an op -----------------------===//
//
// Helpers shared by every CostOpInterface implementation, and the verifier
// that keeps every cost within 64 bits.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Interfaces/CostInterface.h"

using namespace mlir;
using namespace snapflow;

#include "snapflow/Interfaces/CostAttrInterface.cpp.inc"

int64_t snapflow::getElementBytes(Type type) {
  unsigned bits = type.getIntOrFloatBitWidth();
  return (bits + 7) / 8;
}

CheckedInt snapflow::getNumElements(Type type) {
  auto shaped = llvm::cast<ShapedType>(type);
  assert(shaped.hasStaticShape() && "cost of a dynamically shaped tensor");
  return checkedProduct(shaped.getShape());
}

CheckedInt snapflow::getTensorBytes(Type type) {
  auto shaped = llvm::cast<ShapedType>(type);
  // A tensor stored in another form (MXFP4) takes its bytes as stored, row
  // by row along its last dimension.
  if (auto ranked = llvm::dyn_cast<RankedTensorType>(type))
    if (auto format = llvm::dyn_cast_or_null<StorageFormatAttrInterface>(
            ranked.getEncoding());
        format && ranked.getRank() > 0) {
      CheckedInt rows = checkedProduct(ranked.getShape().drop_back());
      return rows * format.getStorageBytes(ranked.getShape().back());
    }
  return getNumElements(type) * getElementBytes(shaped.getElementType());
}

CheckedInt snapflow::getTotalBytes(ValueRange values) {
  CheckedInt bytes = 0;
  for (Value v : values)
    if (isa<ShapedType>(v.getType()))
      bytes += getTensorBytes(v.getType());
  return bytes;
}

LogicalResult snapflow::verifyCostsFit(Operation *op) {
  auto tooLarge = [&](StringRef what) {
    return op->emitOpError()
           << what
           << " exceeds a 64-bit count; a dimension or count of the model, "
              "batch or context is too large";
  };
  auto tooLargeType = [&](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    return shaped && shaped.hasStaticShape() &&
           shaped.getElementType().isIntOrFloat() &&
           getTensorBytes(t).overflowed();
  };
  SmallVector<Type> types(op->getOperandTypes());
  llvm::append_range(types, op->getResultTypes());
  for (Type t : types)
    if (tooLargeType(t))
      return op->emitOpError()
             << "the byte size of " << t
             << " exceeds a 64-bit count; a dimension of the model, batch or "
                "context is too large";
  auto cost = cast<CostOpInterface>(op);
  if (cost.getFlops().overflowed())
    return tooLarge("its FLOP count");
  if (cost.getBytesRead().overflowed())
    return tooLarge("its count of bytes read");
  if (cost.getBytesWritten().overflowed())
    return tooLarge("its count of bytes written");
  if (cost.getLinkBytes().overflowed())
    return tooLarge("its count of link bytes");
  return success();
}

#include "snapflow/Interfaces/CostInterface.cpp.inc"
