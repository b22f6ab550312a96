//===- DataflowOps.h - df dialect: tiled dataflow programs -----*- C++ -*-===//
//
// The df dialect, its stream type, enums and ops.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_DATAFLOW_IR_DATAFLOWOPS_H
#define SNAPFLOW_DIALECT_DATAFLOW_IR_DATAFLOWOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"

#include "snapflow/Dialect/Dataflow/IR/DataflowDialect.h.inc"
#include "snapflow/Dialect/Dataflow/IR/DataflowEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "snapflow/Dialect/Dataflow/IR/DataflowTypes.h.inc"

#define GET_OP_CLASSES
#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h.inc"

namespace snapflow {
namespace df {
/// Tiles a stream carries in one run of its section: a load's `tiles`, a
/// stage output's `output_tiles` entry (or `tiles`), a buffer's input times
/// `reads`, a collective's input count.
int64_t getStreamTileCount(mlir::Value stream);
} // namespace df
} // namespace snapflow

#endif // SNAPFLOW_DIALECT_DATAFLOW_IR_DATAFLOWOPS_H
