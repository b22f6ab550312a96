//===- KVOps.h - kv dialect: caches, policies and ops ----------*- C++ -*-===//
//
// Everything the kv dialect declares: the dialect, the policy attributes and
// their interface, the cache types and their interface, and the ops.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_KV_IR_KVOPS_H
#define SNAPFLOW_DIALECT_KV_IR_KVOPS_H

#include "snapflow/Interfaces/CostInterface.h"
#include "snapflow/Support/CheckedInt.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "snapflow/Dialect/KV/IR/KVDialect.h.inc"
#include "snapflow/Dialect/KV/IR/KVEnums.h.inc"
#include "snapflow/Dialect/KV/IR/KVAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "snapflow/Dialect/KV/IR/KVAttrs.h.inc"

#include "snapflow/Dialect/KV/IR/KVTypeInterfaces.h.inc"

#define GET_TYPEDEF_CLASSES
#include "snapflow/Dialect/KV/IR/KVTypes.h.inc"

#define GET_OP_CLASSES
#include "snapflow/Dialect/KV/IR/KVOps.h.inc"

#endif // SNAPFLOW_DIALECT_KV_IR_KVOPS_H
