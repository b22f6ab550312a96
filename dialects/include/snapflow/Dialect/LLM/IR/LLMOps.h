//===- LLMOps.h - llm dialect: model-level inference ops -------*- C++ -*-===//
//
// The llm dialect, its enum attributes and its ops.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_LLM_IR_LLMOPS_H
#define SNAPFLOW_DIALECT_LLM_IR_LLMOPS_H

#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Interfaces/CostInterface.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

#include "snapflow/Dialect/LLM/IR/LLMDialect.h.inc"
#include "snapflow/Dialect/LLM/IR/LLMEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "snapflow/Dialect/LLM/IR/LLMAttrs.h.inc"

#define GET_OP_CLASSES
#include "snapflow/Dialect/LLM/IR/LLMOps.h.inc"

namespace snapflow {
namespace llm {
/// Discardable attribute naming the decoder layer an op belongs to. The model
/// builder sets it; passes that insert ops copy it from the op they extend.
constexpr llvm::StringLiteral kLayerAttrName = "llm.layer";

/// Copies `from`'s layer marker, if any, to `to`.
inline void copyLayerMarker(mlir::Operation *from, mlir::Operation *to) {
  if (mlir::Attribute a = from->getAttr(kLayerAttrName))
    to->setAttr(kLayerAttrName, a);
}
} // namespace llm
} // namespace snapflow

#endif // SNAPFLOW_DIALECT_LLM_IR_LLMOPS_H
