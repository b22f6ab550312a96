//===- Passes.h - chip-aware mapping passes --------------------*- C++ -*-===//

#ifndef SNAPFLOW_MAPPING_PASSES_H
#define SNAPFLOW_MAPPING_PASSES_H

#include "snapflow/Dialect/LLM/IR/LLMOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace snapflow {

#define GEN_PASS_DECL
#include "snapflow/Mapping/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "snapflow/Mapping/Passes.h.inc"

/// The memory plan of one phase function, as --plan-memory records it.
struct MemoryPlan {
  int64_t weightBytes = 0, kvBytes = 0, activationBytes = 0;
  int64_t sramBytes = 0, hbmBytes = 0, ddrBytes = 0;
  int64_t maxBatch = 0;
  bool fits = true;
  std::string diagnostic; ///< why it does not fit, when it does not
};

/// Reads the `df.memory_plan` attribute of a function, if it has one.
std::optional<MemoryPlan> getMemoryPlan(mlir::Operation *function);

} // namespace snapflow

#endif // SNAPFLOW_MAPPING_PASSES_H
