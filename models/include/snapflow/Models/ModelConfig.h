//===- ModelConfig.h - Hugging Face config.json reader ---------*- C++ -*-===//
//
// Reads a Hugging Face `config.json` of model_type llama, deepseek_v2 or
// deepseek_v3 into the few numbers the builder needs. MLIR-free. A missing or
// wrongly typed field is an error naming the file and the field.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_MODELS_MODELCONFIG_H
#define SNAPFLOW_MODELS_MODELCONFIG_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace snapflow {
namespace models {

/// The graph a config builds: a GQA decoder (every family but DeepSeek's
/// and the Block Transformer), DeepSeek's MLA decoder, or the Block
/// Transformer. A family (`model_type`) picks one and sets the features
/// below (models/lib/Models/Families/).
enum class Architecture { Llama, DeepSeekV2, DeepSeekV3, BlockTransformer };

/// What a decoder layer's attention sees: every earlier token (full), the
/// last `slidingWindow` (sliding), or its own chunk of `attentionChunk`
/// (chunked, Llama 4).
enum class AttentionSpan { Full, Sliding, Chunked };

/// Norms on each head's query and key: none; an RMS norm over a head with a
/// weight of head_dim, before rotary embeddings (Qwen3, Gemma 3); or a
/// weightless one after them (Llama 4's RoPE layers).
enum class QKNorm { None, BeforeRope, AfterRopeWeightless };

/// How a MoE router turns logits into expert weights. The cost is the
/// router's matmul and a top-k either way; recorded so a report can say
/// which (softmax over all experts: Mixtral, Qwen3-MoE; softmax over the
/// top-k: gpt-oss; sigmoid: Llama 4, DeepSeek-V3).
enum class Router { Softmax, SoftmaxTopK, Sigmoid };

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

/// A family of configs (`snapflow list --families`, docs/Models.md).
struct ModelFamily {
  std::string modelType; ///< empty: the keys every family ignores
  std::string graph;     ///< what it builds
  std::string nestedIn;  ///< the key nesting its decoder, or empty
  /// Keys of its configs that do not change costs, and why.
  std::vector<std::pair<std::string, std::string>> ignored;
};

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
  int64_t headDim = 0;    ///< GQA only: `head_dim`, else h / H
  int64_t vocabSize = 0;
  bool tieWordEmbeddings = false;
  double rmsNormEps = 1e-6;
  double ropeTheta = 10000.0;
  int64_t maxPositionEmbeddings = 0;
  WeightDtype weightDtype = WeightDtype::BF16;

  // Features of GQA families (models/lib/Models/Families/): each changes
  // the graph's weights or costs.
  bool qkvBias = false;    ///< biases on q, k, v (Qwen2, gpt-oss, PhiMoE)
  bool outputBias = false; ///< a bias on o_proj (gpt-oss, PhiMoE)
  bool lmHeadBias = false; ///< a bias on the LM head (PhiMoE)
  QKNorm qkNorm = QKNorm::None;
  /// Gemma's sandwich: norms after attention and after the MLP too (four
  /// per layer).
  bool sandwichNorms = false;
  /// LayerNorm (weight and bias) in place of RMSNorm (PhiMoE).
  bool layerNorm = false;
  /// One learned sink logit per head and layer (gpt-oss): H weights, one
  /// more term in each softmax, no cache entry.
  bool attentionSinks = false;
  /// tanh soft-capping of attention scores and of the logits (Gemma 2);
  /// 0: off.
  double attnLogitSoftcap = 0, finalLogitSoftcap = 0;
  /// Per decoder layer: what its attention sees, and whether it rotates
  /// (Llama 4's NoPE layers do not). Empty: every layer full, with RoPE.
  std::vector<AttentionSpan> layerSpans;
  std::vector<bool> layerNoRope;
  int64_t slidingWindow = 0;  ///< tokens a sliding layer sees (W)
  int64_t attentionChunk = 0; ///< tokens of a chunked layer's chunk (C)
  /// Rotated channels of a head (`partial_rotary_factor`); 0: all.
  int64_t rotaryDim = 0;

  // Multi-head latent attention (DeepSeek).
  int64_t qLoraRank = 0; ///< 0: queries are projected directly
  int64_t kvLoraRank = 0;
  int64_t qkNopeHeadDim = 0;
  int64_t qkRopeHeadDim = 0;
  int64_t vHeadDim = 0;

  // Block Transformer (model_type block_transformer).
  BlockTransformerConfig block;

  // Mixture of experts (DeepSeek, Qwen3-MoE, Mixtral, PhiMoE, gpt-oss,
  // Llama 4).
  int64_t numRoutedExperts = 0;
  int64_t numSharedExperts = 0;
  int64_t numExpertsPerToken = 0;
  int64_t moeIntermediateSize = 0;
  int64_t firstKDenseReplace = 0;
  int64_t moeLayerFreq = 1;
  int64_t numMtpLayers = 0; ///< num_nextn_predict_layers
  /// Which decoder layers are MoE, when a family says so layer by layer
  /// (Qwen3-MoE's mlp_only_layers, Llama 4's interleave); empty: the
  /// DeepSeek rule (first_k_dense_replace, moe_layer_freq).
  std::vector<bool> moeLayers;
  Router router = Router::Softmax;
  /// Biases on the router and on each expert's projections (gpt-oss).
  bool expertBiases = false;
  /// Experts stored in MXFP4 (gpt-oss's quantization_config): 4-bit values
  /// with an 8-bit scale per 32.
  bool mxfp4Experts = false;

  /// Keys of the config.json that no reader asked for: each is one its
  /// family lists as not changing costs (docs/Models.md, "Families").
  std::vector<std::string> ignoredKeys;
  /// Keys no reader asked for and no family lists: read past, and named by
  /// `info`, since one might change the architecture.
  std::vector<std::string> unknownKeys;

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
    if (numRoutedExperts == 0)
      return false;
    if (!moeLayers.empty())
      return i < static_cast<int64_t>(moeLayers.size()) && moeLayers[i];
    return i >= firstKDenseReplace && i % moeLayerFreq == 0;
  }
  /// What decoder layer `i`'s attention sees.
  AttentionSpan spanOf(int64_t i) const {
    return i < static_cast<int64_t>(layerSpans.size()) ? layerSpans[i]
                                                       : AttentionSpan::Full;
  }
  /// Whether decoder layer `i` rotates its queries and keys.
  bool ropeOn(int64_t i) const {
    return !(i < static_cast<int64_t>(layerNoRope.size()) && layerNoRope[i]);
  }
  /// Decoder layers whose attention is windowed (sliding or chunked).
  int64_t windowedLayers() const;
  /// Whether decoder layer `i` is windowed (its K/V in the window cache).
  bool isWindowed(int64_t i) const { return spanOf(i) != AttentionSpan::Full; }
  /// The tokens a windowed layer keeps: the chunk of a chunked model
  /// (Llama 4), else the sliding window.
  int64_t windowTokens() const {
    return llvm::is_contained(layerSpans, AttentionSpan::Chunked)
               ? attentionChunk
               : slidingWindow;
  }
  /// What the graph does not yet model of this config, one sentence each
  /// (said by `info` and `run`); empty when the graph is exact.
  std::vector<std::string> approximations() const;

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
  /// The families the reader knows, after the keys all of them ignore.
  static std::vector<ModelFamily> families();
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
