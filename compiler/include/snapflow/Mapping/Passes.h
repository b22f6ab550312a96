//===- Passes.h - chip-aware mapping passes --------------------*- C++ -*-===//

#ifndef SNAPFLOW_MAPPING_PASSES_H
#define SNAPFLOW_MAPPING_PASSES_H

#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"
#include "snapflow/Dialect/LLM/IR/LLMOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace snapflow {

#define GEN_PASS_DECL
#include "snapflow/Mapping/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "snapflow/Mapping/Passes.h.inc"

} // namespace snapflow

#endif // SNAPFLOW_MAPPING_PASSES_H
