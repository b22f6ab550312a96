//===- Families.h - Builders of the model families --------------*- C++ -*-===//
//
// Internal to the model builder: buildModel checks the options and hands
// each phase function to its family's builder.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_MODELS_FAMILIES_H
#define SNAPFLOW_MODELS_FAMILIES_H

#include "snapflow/Dialect/LLM/IR/LLMOps.h"
#include "snapflow/Models/ModelBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace snapflow {
namespace models {

/// The Block Transformer's phase function `name` (BlockTransformer.cpp).
mlir::func::FuncOp buildBlockTransformerPhase(mlir::OpBuilder &b,
                                              const ModelConfig &config,
                                              const BuildOptions &options,
                                              llm::Phase phase,
                                              llvm::StringRef name);

} // namespace models
} // namespace snapflow

#endif // SNAPFLOW_MODELS_FAMILIES_H
