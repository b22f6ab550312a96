//===- ModelConfig.h - Hugging Face config.json reader ---------*- C++ -*-===//
//
// Reads a Hugging Face `config.json` of model_type llama, deepseek_v2 or
// deepseek_v3 into the few numbers the builder needs. MLIR-free. A missing or
// wrongly typed field is an error naming the file and the field.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_MODELS_MODELCONFIG_H
#define SNAPFLOW_MODELS_MODELCONFIG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace snapflow {
namespace models {

enum class Architecture { Llama, DeepSeekV2, DeepSeekV3, BlockTransformer };

/// One GPT-NeoX stack of the Block Transformer (its block or token decoder).
struct NeoXStack {
  int64_t numLayers = 0;
  int64_t hiddenSize = 0;
  int64_t numHeads = 0;
  int64_t intermediateSize = 0;
  double rotaryPct = 0.25;
  double rotaryEmbBase = 10000.0;
  double layerNormEps = 1e-5;
  int64_t headDim() const { return hiddenSize / numHeads; }
  /// Rotated channels of a head: int(head_dim x rotary_pct), as GPT-NeoX.
  int64_t rotaryDim() const {
    return static_cast<int64_t>(double(headDim()) * rotaryPct);
  }
};

/// The Block Transformer (Ho et al., NeurIPS 2024;
/// github.com/itsnamgyu/block-transformer): a lookup embedder concatenates
/// each block of `blockLength` tokens into one block embedding, a block
/// decoder attends over the blocks, and a token decoder decodes the next
/// block's tokens from `expansionRatio` prefix vectors with attention
/// within the block only.
struct BlockTransformerConfig {
  int64_t blockLength = 4;
  int64_t embedderHidden = 0; ///< lookup width; x blockLength = block hidden
  int64_t embedderVocab = 0;  ///< rows of the lookup table
  int64_t expansionRatio = 2; ///< prefix vectors from one block embedding
  int64_t trainedLength = 0;  ///< max_length of training, in tokens
  NeoXStack blockDecoder, tokenDecoder;
};

/// Element type of weights as stored.
enum class WeightDtype { BF16, FP8 };
constexpr int kNumWeightDtypes = static_cast<int>(WeightDtype::FP8) + 1;
/// `bf16` or `fp8`, as `--weights-dtype`, deployments, sweeps and reports
/// spell it.
llvm::StringRef weightDtypeName(WeightDtype dtype);
std::optional<WeightDtype> parseWeightDtype(llvm::StringRef name);

/// The model numbers snapflow uses, named after the config.json fields.
struct ModelConfig {
  std::string name;   ///< built-in name, a config.json's folder, or the path
  std::string origin; ///< file path, or "<builtin>/name.json"
  std::string modelType;
  Architecture arch = Architecture::Llama;

  int64_t hiddenSize = 0;
  int64_t intermediateSize = 0;
  int64_t numLayers = 0;
  int64_t numHeads = 0;
  int64_t numKvHeads = 0; ///< GQA only
  int64_t headDim = 0;    ///< GQA only
  int64_t vocabSize = 0;
  bool tieWordEmbeddings = false;
  double rmsNormEps = 1e-6;
  double ropeTheta = 10000.0;
  int64_t maxPositionEmbeddings = 0;
  WeightDtype weightDtype = WeightDtype::BF16;

  // Multi-head latent attention (DeepSeek).
  int64_t qLoraRank = 0; ///< 0: queries are projected directly
  int64_t kvLoraRank = 0;
  int64_t qkNopeHeadDim = 0;
  int64_t qkRopeHeadDim = 0;
  int64_t vHeadDim = 0;

  // Block Transformer (model_type block_transformer).
  BlockTransformerConfig block;

  // Mixture of experts (DeepSeek).
  int64_t numRoutedExperts = 0;
  int64_t numSharedExperts = 0;
  int64_t numExpertsPerToken = 0;
  int64_t moeIntermediateSize = 0;
  int64_t firstKDenseReplace = 0;
  int64_t moeLayerFreq = 1;
  int64_t numMtpLayers = 0; ///< num_nextn_predict_layers

  /// Cross-layer attention (CLA, Brandon et al. 2024): decoder layers share
  /// K/V in consecutive groups of this many; the first layer of a group
  /// computes and caches them, the others project queries only. 1: off.
  /// Read from `cla_share_factor` (honoured unless `use_cla` is false, as
  /// in Hunyuan's configs), or set by `--cla`.
  int64_t claShareFactor = 1;

  bool isMLA() const {
    return arch == Architecture::DeepSeekV2 || arch == Architecture::DeepSeekV3;
  }
  bool isBlockTransformer() const {
    return arch == Architecture::BlockTransformer;
  }
  /// Whether decoder layer `i` computes and caches its own K/V (the first
  /// layer of its CLA group; every MTP layer, beyond num_hidden_layers).
  bool producesKV(int64_t i) const {
    return i >= numLayers || i % claShareFactor == 0;
  }
  /// The cache layer decoder layer `i` reads (and, if it produces KV,
  /// writes): its CLA group's; MTP layers follow the groups.
  int64_t cacheLayer(int64_t i) const {
    return i < numLayers ? i / claShareFactor : cacheLayers() + i - numLayers;
  }
  /// Cache layers of the decoder layers: one per CLA group.
  int64_t cacheLayers() const {
    return (numLayers + claShareFactor - 1) / claShareFactor;
  }
  /// Cache positions `tokens` of context take: one per token, or for the
  /// Block Transformer one per block (the block decoder's cache). A KV
  /// policy's budget is counted in these.
  int64_t cachePositions(int64_t tokens) const {
    int64_t per = tokensPerCachePosition();
    return (tokens + per - 1) / per;
  }
  /// Tokens one cache position holds: a Block Transformer's block, else 1.
  int64_t tokensPerCachePosition() const {
    return isBlockTransformer() ? block.blockLength : 1;
  }
  /// Sets the CLA sharing factor; an error naming `what` (the flag or
  /// field) when it is not in [1, num_hidden_layers].
  llvm::Error setClaShareFactor(int64_t factor, llvm::StringRef what);
  /// Whether decoder layer `i` (0-based) uses a mixture of experts.
  bool isMoELayer(int64_t i) const {
    return numRoutedExperts > 0 && i >= firstKDenseReplace &&
           i % moeLayerFreq == 0;
  }

  /// Parses config.json text; `origin` names the file in errors.
  static llvm::Expected<ModelConfig> parse(llvm::StringRef json,
                                           llvm::StringRef origin);
  /// The name a config file's model goes by: a `config.json`'s folder,
  /// lower-cased (`Qwen3-8B/config.json` -> `qwen3-8b`), else the path.
  static std::string nameOfConfigFile(llvm::StringRef path);
  /// Reads a config.json from disk; its name is nameOfConfigFile's.
  static llvm::Expected<ModelConfig> loadFile(llvm::StringRef path);
  /// A built-in model name (e.g. "llama-3.1-8b") or a path to a config.json.
  static llvm::Expected<ModelConfig> load(llvm::StringRef nameOrPath);
  /// Names of the built-in models (models/configs/*.json).
  static std::vector<std::string> builtinNames();

  /// A hash of every number above (not the name or origin): two configs
  /// with the same fingerprint build the same graphs. A sweep records it to
  /// notice a config file edited between a run and its resumption.
  std::string fingerprint() const;
};

} // namespace models
} // namespace snapflow

#endif // SNAPFLOW_MODELS_MODELCONFIG_H
