//===- CostInterface.cpp - FLOPs and bytes of an op -----------------------===//
//
// Helpers shared by every CostOpInterface implementation.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Interfaces/CostInterface.h"

using namespace mlir;

int64_t snapflow::getElementBytes(Type type) {
  unsigned bits = type.getIntOrFloatBitWidth();
  return (bits + 7) / 8;
}

int64_t snapflow::getTensorBytes(Type type) {
  auto shaped = llvm::cast<ShapedType>(type);
  assert(shaped.hasStaticShape() && "cost of a dynamically shaped tensor");
  return shaped.getNumElements() * getElementBytes(shaped.getElementType());
}

int64_t snapflow::getTotalBytes(ValueRange values) {
  int64_t bytes = 0;
  for (Value v : values)
    if (isa<ShapedType>(v.getType()))
      bytes += getTensorBytes(v.getType());
  return bytes;
}

#include "snapflow/Interfaces/CostInterface.cpp.inc"
