//===- ConfigReader.cpp - What several families read alike ----------------===//

#include "ConfigReader.h"

#include "Families/Family.h"

using namespace snapflow::models;

llvm::ArrayRef<ArchitectureKey> snapflow::models::architectureKeys() {
  static const ArchitectureKey kKeys[] = {
      {"num_local_experts", "experts (a Mixtral config is model_type mixtral)"},
      {"num_experts", "experts"},
      {"n_routed_experts", "routed experts"},
      {"num_experts_per_tok", "experts"},
      {"experts_per_token", "experts"},
      {"moe_intermediate_size", "experts"},
      {"n_shared_experts", "shared experts"},
      {"moe_layers", "experts"},
      {"interleave_moe_layer_step", "experts"},
      {"kv_lora_rank", "multi-head latent attention"},
      {"q_lora_rank", "multi-head latent attention"},
      {"sliding_window", "sliding-window attention"},
      {"layer_types", "layers of other attention than full"},
      {"attention_chunk_size", "chunked attention"},
      {"no_rope_layers", "layers without rotary embeddings"},
      {"attention_bias", "biases on the attention projections"},
      {"mlp_bias", "biases on the MLP projections"},
      {"lm_head_bias", "a bias on the LM head"},
      {"qk_norm", "norms on queries and keys"},
      {"use_qk_norm", "norms on queries and keys"},
      {"attn_logit_softcapping", "logit soft-capping"},
      {"final_logit_softcapping", "logit soft-capping"},
      {"partial_rotary_factor", "rotary embeddings on part of a head"},
  };
  return kKeys;
}

void snapflow::models::refuseForeignKeys(FieldReader &r, StringRef family,
                                         llvm::ArrayRef<StringRef> understood) {
  for (const ArchitectureKey &f : architectureKeys()) {
    StringRef key = f.key;
    if (llvm::is_contained(understood, key))
      continue;
    const llvm::json::Value *v = r.get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      continue;
    // Qwen's configs carry a window with use_sliding_window: false.
    if (key == "sliding_window" &&
        r.obj.getBoolean("use_sliding_window") == std::optional<bool>(false))
      continue;
    std::optional<bool> b = v->getAsBoolean();
    std::optional<double> d = v->getAsNumber();
    if ((b && !*b) || (d && *d == 0))
      continue;
    if (key == "partial_rotary_factor" && d && *d == 1)
      continue;
    if (const llvm::json::Array *a = v->getAsArray()) {
      // An empty list, or layer types that are all full, change nothing.
      bool on = false;
      for (const llvm::json::Value &e : *a)
        on |= !(key == "layer_types" &&
                e.getAsString() == std::optional<StringRef>("full_attention"));
      if (!on)
        continue;
    }
    std::string shown;
    llvm::raw_string_ostream os(shown);
    os << *v;
    if (shown.size() > 40)
      shown = shown.substr(0, 37) + "...";
    r.fail(key, "field '" + r.name(key) + "' is " + shown + ": " + f.what +
                    ", which snapflow's " + family.str() +
                    " graph does not build; refused rather than left out");
    return;
  }
}

void snapflow::models::readDecoder(FieldReader &r, ModelConfig &c,
                                   const DecoderDefaults &d,
                                   StringRef intermediateKey) {
  c.hiddenSize = r.integer("hidden_size", 1, kMaxWidth);
  if (!intermediateKey.empty())
    c.intermediateSize = r.integer(intermediateKey, 1, kMaxWidth);
  c.numLayers = r.integer("num_hidden_layers", 1, kMaxLayers);
  c.numHeads = r.integer("num_attention_heads", 1, kMaxHeads);
  c.vocabSize = d.vocabSize
                    ? r.optionalInteger("vocab_size", d.vocabSize, 1, kMaxVocab)
                    : r.integer("vocab_size", 1, kMaxVocab);
  c.maxPositionEmbeddings =
      d.maxPositionEmbeddings
          ? r.optionalInteger("max_position_embeddings",
                              d.maxPositionEmbeddings, 1, kMaxPositions)
          : r.integer("max_position_embeddings", 1, kMaxPositions);
  c.tieWordEmbeddings = r.boolean("tie_word_embeddings", d.tieWordEmbeddings);
  c.rmsNormEps = r.positiveNumber("rms_norm_eps", d.rmsNormEps);
  c.ropeTheta = r.positiveNumber("rope_theta", d.ropeTheta);
}

void snapflow::models::readGQA(FieldReader &r, ModelConfig &c,
                               const DecoderDefaults &d,
                               StringRef intermediateKey) {
  readDecoder(r, c, d, intermediateKey);
  c.numKvHeads =
      r.optionalInteger("num_key_value_heads", c.numHeads, 1, kMaxHeads);
  int64_t derived = std::max<int64_t>(1, c.hiddenSize / c.numHeads);
  bool explicitDim = d.headDimKey && r.obj.get("head_dim");
  c.headDim = d.headDimKey
                  ? r.optionalInteger("head_dim", derived, 1, kMaxHeadDim)
                  : derived;
  // Rotary embeddings rotate pairs of a head's channels (an odd width
  // failed in llm.rope's verifier, R17).
  if (!r.error && c.headDim % 2 != 0)
    r.fail(explicitDim ? "head_dim" : "hidden_size",
           llvm::formatv("a head is {0} channels{1}; rotary position "
                         "embeddings rotate pairs of channels, so it must "
                         "be even",
                         c.headDim,
                         explicitDim ? std::string()
                                     : llvm::formatv(" (hidden_size {0} / "
                                                     "num_attention_heads {1})",
                                                     c.hiddenSize, c.numHeads)
                                           .str())
               .str());
  if (!r.error && c.numHeads % c.numKvHeads != 0)
    r.fail("num_key_value_heads", "field '" + r.name("num_attention_heads") +
                                      "' (" + std::to_string(c.numHeads) +
                                      ") is not a multiple of '" +
                                      r.name("num_key_value_heads") + "' (" +
                                      std::to_string(c.numKvHeads) + ")");
}

bool snapflow::models::readLayerTypes(FieldReader &r, ModelConfig &c) {
  std::optional<std::vector<std::string>> types = r.strings("layer_types");
  if (!types || r.error)
    return false;
  if (static_cast<int64_t>(types->size()) != c.numLayers) {
    r.fail("layer_types",
           llvm::formatv("field '{0}' lists {1} layers; num_hidden_layers is "
                         "{2}",
                         r.name("layer_types"), types->size(), c.numLayers));
    return false;
  }
  c.layerSpans.clear();
  for (const std::string &t : *types) {
    if (t == "full_attention")
      c.layerSpans.push_back(AttentionSpan::Full);
    else if (t == "sliding_attention")
      c.layerSpans.push_back(AttentionSpan::Sliding);
    else if (t == "chunked_attention")
      c.layerSpans.push_back(AttentionSpan::Chunked);
    else {
      r.fail("layer_types",
             "field '" + r.name("layer_types") + "' holds '" + t +
                 "'; snapflow builds full_attention, sliding_attention and "
                 "chunked_attention");
      return false;
    }
  }
  return true;
}

void snapflow::models::setSlidingLayers(
    ModelConfig &c, llvm::function_ref<bool(int64_t)> isSliding) {
  c.layerSpans.assign(c.numLayers, AttentionSpan::Full);
  for (int64_t i = 0; i < c.numLayers; ++i)
    if (isSliding(i))
      c.layerSpans[i] = AttentionSpan::Sliding;
}

void snapflow::models::readUniformWindow(FieldReader &r, ModelConfig &c,
                                         bool on) {
  int64_t window = r.optionalInteger("sliding_window", 0, 0, kMaxPositions);
  if (on && window > 0 && window < c.maxPositionEmbeddings) {
    c.slidingWindow = window;
    setSlidingLayers(c, [](int64_t) { return true; });
  }
}

void snapflow::models::readExperts(FieldReader &r, ModelConfig &c,
                                   StringRef expertsKey, StringRef widthKey) {
  c.numRoutedExperts = r.integer(expertsKey, 1, kMaxExperts);
  c.numExpertsPerToken = r.integer("num_experts_per_tok", 1,
                                   std::max<int64_t>(1, c.numRoutedExperts));
  c.moeIntermediateSize = r.integer(widthKey, 1, kMaxWidth);
}

void snapflow::models::readQuantization(FieldReader &r, ModelConfig &c,
                                        bool allowMxfp4) {
  // fp8 checkpoints (DeepSeek-V3/R1) say so in quantization_config.
  c.weightDtype = WeightDtype::BF16;
  const llvm::json::Value *v = r.get("quantization_config");
  const llvm::json::Object *q = v ? v->getAsObject() : nullptr;
  if (!q)
    return;
  std::optional<StringRef> method = q->getString("quant_method");
  if (method && *method == "fp8")
    c.weightDtype = WeightDtype::FP8;
  else if (method && *method == "mxfp4" && allowMxfp4)
    c.mxfp4Experts = true;
  else if (method)
    r.fail("quant_method", "field 'quantization_config.quant_method' is '" +
                               method->str() + "'; supported: fp8" +
                               (allowMxfp4 ? ", mxfp4" : ""));
}

llvm::ArrayRef<IgnoredKey> snapflow::models::commonIgnoredKeys() {
  static const IgnoredKey kKeys[] = {
      {"architectures", "the Python class; model_type picks the graph"},
      {"auto_map", "remote-code class names"},
      {"_name_or_path", "where the checkpoint was saved from"},
      {"bos_token_id", "token ids"},
      {"eos_token_id", "token ids"},
      {"pad_token_id", "token ids"},
      {"torch_dtype", "the activations are bf16 whatever it says"},
      {"transformers_version", "the version that wrote the file"},
      {"use_cache", "snapflow always caches K/V"},
      {"initializer_range", "training only"},
      {"pretraining_tp", "training only"},
      {"attention_dropout", "training only"},
      {"hidden_dropout", "training only"},
      {"router_aux_loss_coef", "training only"},
      {"router_jitter_noise", "training only"},
      {"input_jitter_noise", "training only"},
      {"output_router_logits", "training only"},
      {"hidden_act",
       "the gate's activation (SiLU, GELU): one elementwise function per "
       "intermediate channel, the same cost either way"},
      {"rope_scaling",
       "changes the rotary tables (precomputed), not the rotation's cost"},
      {"original_max_position_embeddings", "a rope scaling parameter"},
      {"_attn_implementation_autoset", "a transformers setting"},
  };
  return kKeys;
}
