//===- Passes.h - Conversion passes ----------------------------*- C++ -*-===//

#ifndef SNAPFLOW_CONVERSION_PASSES_H
#define SNAPFLOW_CONVERSION_PASSES_H

#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace snapflow {

#define GEN_PASS_DECL
#include "snapflow/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "snapflow/Conversion/Passes.h.inc"

} // namespace snapflow

#endif // SNAPFLOW_CONVERSION_PASSES_H
