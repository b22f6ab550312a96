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
  int64_t promptTokens = 4096; ///< L of @prefill
  int64_t contextTokens =
      4096; ///< C of @decode (tokens attended, incl. the new one)
  bool buildPrefill = true;
  bool buildDecode = true;
  /// Overrides the checkpoint's dtype of projection weights.
  std::optional<WeightDtype> weightsDtype;
  /// Speculative decoding with DeepSeek's MTP module: @decode verifies
  /// 1 + mtpDepth tokens per sequence and runs mtpDepth draft depths.
  int64_t mtpDepth = 0;
  /// The most draft depths a step may run: DeepSeek's checkpoints have one
  /// MTP module, run as a chain; a deeper chain's cost grows faster than
  /// its depth, and past the step's tokens its cache cannot hold it.
  static constexpr int64_t kMaxMtpDepth = 8;
  /// Probability that a drafted token is accepted (recorded in the decode
  /// function's llm.workload; sets the accepted tokens per step).
  double mtpAcceptance = 0.8;
  /// Chunked prefill: @prefill is the static graph of one chunk of this
  /// many tokens, run ceil(L / chunk) times over the prompt, each chunk
  /// attending to the KV the earlier ones wrote (0, or a chunk of at least
  /// the prompt: the whole prompt at once). The cache holds the chunks'
  /// slots; a prompt that is not a multiple pads its last chunk.
  int64_t prefillChunk = 0;
};

/// The chunking of a prompt of `prompt` tokens in chunks of at most `chunk`
/// (0: unchunked): the tokens each chunk's static graph processes and how
/// many chunks run.
struct PrefillChunking {
  int64_t chunkTokens = 0, chunks = 1;
};
PrefillChunking chunkPrompt(int64_t prompt, int64_t chunk);

/// Builds a module with the requested phase functions. Errors (a batch or
/// length of zero, a context beyond the model's positions) name the option.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildModel(mlir::MLIRContext &context, const ModelConfig &config,
           const BuildOptions &options);

} // namespace models
} // namespace snapflow

#endif // SNAPFLOW_MODELS_MODELBUILDER_H
