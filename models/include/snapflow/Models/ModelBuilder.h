//===- ModelBuilder.h - config.json -> llm IR ------------------*- C++ -*-===//
//
// Emits the llm IR of a model: `@prefill` (B prompts of L tokens) and
// `@decode` (B sequences holding C tokens of context), every decoder layer
// present, dense or MoE as the config says, MLA for DeepSeek and GQA for
// Llama. Caches are uncompressed (`#kv.full`); `--kv-compress` rewrites them.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_MODELS_MODELBUILDER_H
#define SNAPFLOW_MODELS_MODELBUILDER_H

#include "snapflow/Models/ModelConfig.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace snapflow {
namespace models {

/// The largest batch a model is built for (docs/Models.md, "Limits"): far
/// above what fits any chip, far below what overflows a byte count.
constexpr int64_t kMaxBatch = 1 << 20;

/// What to build.
struct BuildOptions {
  int64_t batch = 1;
  int64_t promptTokens = 4096;  ///< L of @prefill
  int64_t contextTokens = 4096; ///< C of @decode (tokens attended, incl. the new one)
  bool buildPrefill = true;
  bool buildDecode = true;
  /// Overrides the checkpoint's dtype of projection weights.
  std::optional<WeightDtype> weightsDtype;
  /// Speculative decoding with DeepSeek's MTP module: @decode verifies
  /// 1 + mtpDepth tokens per sequence and runs mtpDepth draft depths.
  int64_t mtpDepth = 0;
  /// Probability that a drafted token is accepted (recorded in the decode
  /// function's llm.workload; sets the accepted tokens per step).
  double mtpAcceptance = 0.8;
};

/// Builds a module with the requested phase functions. Errors (a batch or
/// length of zero, a context beyond the model's positions) name the option.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildModel(mlir::MLIRContext &context, const ModelConfig &config,
           const BuildOptions &options);

} // namespace models
} // namespace snapflow

#endif // SNAPFLOW_MODELS_MODELBUILDER_H
