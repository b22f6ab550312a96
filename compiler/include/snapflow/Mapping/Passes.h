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

/// assign-target with a chip its caller has already resolved (loaded and
/// overridden): the object travels, not its name and overrides as text.
std::unique_ptr<mlir::Pass> createAssignTarget(arch::ArchModel chip);

#define GEN_PASS_REGISTRATION
#include "snapflow/Mapping/Passes.h.inc"

} // namespace snapflow

#endif // SNAPFLOW_MAPPING_PASSES_H
