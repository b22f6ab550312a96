//===- Passes.h - df transformation passes ---------------------*- C++ -*-===//

#ifndef SNAPFLOW_DIALECT_DATAFLOW_TRANSFORMS_PASSES_H
#define SNAPFLOW_DIALECT_DATAFLOW_TRANSFORMS_PASSES_H

#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace snapflow {
namespace df {

#define GEN_PASS_DECL
#include "snapflow/Dialect/Dataflow/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "snapflow/Dialect/Dataflow/Transforms/Passes.h.inc"

} // namespace df
} // namespace snapflow

#endif // SNAPFLOW_DIALECT_DATAFLOW_TRANSFORMS_PASSES_H
