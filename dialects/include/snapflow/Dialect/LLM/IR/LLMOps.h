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

#include "snapflow/Dialect/LLM/IR/LLMDialect.h.inc"
#include "snapflow/Dialect/LLM/IR/LLMEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "snapflow/Dialect/LLM/IR/LLMAttrs.h.inc"

#define GET_OP_CLASSES
#include "snapflow/Dialect/LLM/IR/LLMOps.h.inc"

#endif // SNAPFLOW_DIALECT_LLM_IR_LLMOPS_H
