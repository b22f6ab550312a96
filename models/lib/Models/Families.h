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

/// The weight `name` (a checkpoint parameter name) of `shape` and `type`.
inline mlir::Value emitParam(mlir::OpBuilder &b, mlir::Location loc,
                             const std::string &name,
                             llvm::ArrayRef<int64_t> shape, mlir::Type type) {
  return b.create<llm::ParamOp>(loc, mlir::RankedTensorType::get(shape, type),
                                mlir::SymbolRefAttr::get(b.getContext(), name));
}

/// Marks every op after `before` (to the end of its block) as decoder
/// layer `layer` (`llm.layer`), so later passes find the layers.
inline void markLayerAfter(mlir::Operation *before, int64_t layer) {
  for (mlir::Operation *op = before->getNextNode(); op; op = op->getNextNode())
    llm::setLayer(op, layer);
}

/// The Block Transformer's phase function `name` (BlockTransformer.cpp).
mlir::func::FuncOp buildBlockTransformerPhase(mlir::OpBuilder &b,
                                              const ModelConfig &config,
                                              const BuildOptions &options,
                                              arch::Phase phase,
                                              llvm::StringRef name);

} // namespace models
} // namespace snapflow

#endif // SNAPFLOW_MODELS_FAMILIES_H
