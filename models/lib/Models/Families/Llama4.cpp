//===- Llama4.cpp - model_type llama4, llama4_text ------------------------===//
//
// Llama 4's text model. iRoPE: `no_rope_layers[i]` 1 is a RoPE layer with
// chunked attention (`attention_chunk_size`) and, with `use_qk_norm`, a
// weightless norm of q and k after the rotation; 0 is a NoPE layer with
// full attention. An empty list takes the default: NoPE iff (i + 1) %
// `no_rope_layer_interval` (4) == 0. Layer i is MoE iff it is in
// `moe_layers`, else iff (i + 1) % `interleave_moe_layer_step` == 0:
// `num_local_experts` experts of `intermediate_size`, top
// `num_experts_per_tok` by a sigmoid router, plus one shared expert of the
// same width; dense layers use `intermediate_size_mlp`. `llama4` nests it
// in `text_config` (its vision tower is not built). MODEL-FAMILIES.md
// sections 2, 3, 8.10.
//
//===----------------------------------------------------------------------===//

#include "Family.h"

using namespace snapflow::models;

namespace {
void read(FieldReader &r, ModelConfig &c) {
  c.arch = Architecture::Llama;
  readGQA(r, c,
          {/*vocab=*/202048, /*maxPositions=*/4096 * 32, false, 1e-5, 500000.0},
          "intermediate_size_mlp");
  c.qkvBias = c.outputBias = r.boolean("attention_bias", false);
  c.attentionChunk =
      r.optionalInteger("attention_chunk_size", 8192, 1, kMaxPositions);
  std::vector<int64_t> rope =
      r.integers("no_rope_layers", 0, 1).value_or(std::vector<int64_t>{});
  int64_t interval =
      r.optionalInteger("no_rope_layer_interval", 4, 1, kMaxLayers);
  if (!r.error && !rope.empty() &&
      static_cast<int64_t>(rope.size()) != c.numLayers)
    r.fail("no_rope_layers",
           llvm::formatv("field '{0}' lists {1} layers; num_hidden_layers is "
                         "{2}",
                         r.name("no_rope_layers"), rope.size(), c.numLayers));
  c.layerNoRope.assign(c.numLayers, false);
  c.layerSpans.assign(c.numLayers, AttentionSpan::Chunked);
  for (int64_t i = 0; i < c.numLayers && !r.error; ++i) {
    bool noRope = rope.empty() ? (i + 1) % interval == 0 : rope[i] == 0;
    c.layerNoRope[i] = noRope;
    c.layerSpans[i] = noRope ? AttentionSpan::Full : AttentionSpan::Chunked;
  }
  // A config that lists layer_types says the spans itself; its full layers
  // are the NoPE ones (Llama4TextConfig derives them so).
  if (readLayerTypes(r, c))
    for (int64_t i = 0; i < c.numLayers; ++i)
      c.layerNoRope[i] = c.spanOf(i) == AttentionSpan::Full;
  if (r.boolean("use_qk_norm", false))
    c.qkNorm = QKNorm::AfterRopeWeightless;
  readExperts(r, c, "num_local_experts", "intermediate_size");
  c.numSharedExperts = 1;
  c.router = Router::Sigmoid;
  std::optional<std::vector<int64_t>> moe =
      r.integers("moe_layers", 0, c.numLayers - 1);
  int64_t step =
      r.optionalInteger("interleave_moe_layer_step", 1, 1, c.numLayers);
  c.moeLayers.assign(c.numLayers, false);
  for (int64_t i = 0; i < c.numLayers; ++i)
    c.moeLayers[i] = moe ? llvm::is_contained(*moe, i) : (i + 1) % step == 0;
  refuseForeignKeys(r, c.modelType,
                    {"attention_bias", "attention_chunk_size", "layer_types",
                     "no_rope_layers", "use_qk_norm", "num_local_experts",
                     "num_experts_per_tok", "moe_layers",
                     "interleave_moe_layer_step"});
}

const IgnoredKey kIgnored[] = {
    {"attn_temperature_tuning", "scales NoPE layers' queries: one multiply"},
    {"floor_scale", "with attn_temperature_tuning"},
    {"attn_scale", "with attn_temperature_tuning"},
    {"for_llm_compressor", "a quantization tool's setting"},
    {"vision_config", "the vision tower (not built)"},
    {"boi_token_index", "token ids"},
    {"eoi_token_index", "token ids"},
    {"image_token_index", "token ids"},
};
} // namespace

namespace snapflow::models {
extern const Family kLlama4Family = {
    "llama4",
    "Llama 4's text model (text_config): chunked RoPE and full NoPE layers, "
    "top-k sigmoid experts plus a shared one",
    read, "text_config", kIgnored};
extern const Family kLlama4TextFamily = {
    "llama4_text",
    "GQA decoder: chunked RoPE and full NoPE layers, top-k sigmoid experts "
    "plus a shared one",
    read, nullptr, kIgnored};
} // namespace snapflow::models
