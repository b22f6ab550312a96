//===- Passes.h - llm transformation passes --------------------*- C++ -*-===//

#ifndef SNAPFLOW_DIALECT_LLM_TRANSFORMS_PASSES_H
#define SNAPFLOW_DIALECT_LLM_TRANSFORMS_PASSES_H

#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"
#include "snapflow/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace snapflow {
namespace llm {

#define GEN_PASS_DECL
#include "snapflow/Dialect/LLM/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "snapflow/Dialect/LLM/Transforms/Passes.h.inc"

} // namespace llm
} // namespace snapflow

#endif // SNAPFLOW_DIALECT_LLM_TRANSFORMS_PASSES_H
