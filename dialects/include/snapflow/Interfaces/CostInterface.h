//===- CostInterface.h - FLOPs and bytes of an op --------------*- C++ -*-===//
//
// The CostOpInterface (FLOPs, bytes read, bytes written, link bytes) and the
// helpers its implementations share. Costs are CheckedInt: the interface's
// verifier rejects an op whose costs do not fit in 64 bits, so a verified
// op's costs can be read with value().
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_INTERFACES_COSTINTERFACE_H
#define SNAPFLOW_INTERFACES_COSTINTERFACE_H

#include "snapflow/Support/CheckedInt.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

namespace snapflow {

/// Bytes of one element of `type` (fp8: 1, bf16: 2, f32: 4, i32: 4).
int64_t getElementBytes(mlir::Type type);

/// Elements of a statically shaped type, checked.
CheckedInt getNumElements(mlir::Type type);

/// Bytes of a statically shaped tensor, checked.
CheckedInt getTensorBytes(mlir::Type type);

/// Bytes of the shaped values, summed.
CheckedInt getTotalBytes(mlir::ValueRange values);

/// The CostOpInterface verifier: every cost of `op`, and the byte size of
/// every shaped operand and result, fits in 64 bits.
mlir::LogicalResult verifyCostsFit(mlir::Operation *op);

} // namespace snapflow

#include "snapflow/Interfaces/CostAttrInterface.h.inc"
#include "snapflow/Interfaces/CostInterface.h.inc"

#endif // SNAPFLOW_INTERFACES_COSTINTERFACE_H
