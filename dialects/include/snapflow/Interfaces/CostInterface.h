//===- CostInterface.h - FLOPs and bytes of an op --------------*- C++ -*-===//
//
// The CostOpInterface (FLOPs, bytes read, bytes written, link bytes) and the
// helpers its implementations share.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_INTERFACES_COSTINTERFACE_H
#define SNAPFLOW_INTERFACES_COSTINTERFACE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

namespace snapflow {

/// Bytes of one element of `type` (fp8: 1, bf16: 2, f32: 4, i32: 4).
int64_t getElementBytes(mlir::Type type);

/// Bytes of a statically shaped tensor.
int64_t getTensorBytes(mlir::Type type);

/// Bytes of a tensor, summed over values.
int64_t getTotalBytes(mlir::ValueRange values);

} // namespace snapflow

#include "snapflow/Interfaces/CostInterface.h.inc"

#endif // SNAPFLOW_INTERFACES_COSTINTERFACE_H
