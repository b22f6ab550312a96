//===- Gemma3.cpp - model_type gemma3, gemma3_text ------------------------===//
//
// Gemma 3's text model: Gemma 2's layer with q/k norms (weights of
// head_dim, before the rotation) in place of the soft-caps, and 5 sliding
// layers per global one: layer i slides iff (i + 1) % `sliding_window_pattern`
// != 0 (default 6, window 1024), or as `layer_types` lists. `gemma3`
// nests it in `text_config` (its vision tower is not built); the
// text-only checkpoints are `gemma3_text` at the top level. Defaults are
// Gemma3TextConfig's (vocab 262208, 131072 positions, rope theta 1e6).
// MODEL-FAMILIES.md sections 1, 2, 8.8.
//
//===----------------------------------------------------------------------===//

#include "Family.h"

using namespace snapflow::models;

namespace snapflow::models {
void readGemma(FieldReader &r, ModelConfig &c, int64_t defaultWindow,
               llvm::function_ref<bool(int64_t)> sliding);
} // namespace snapflow::models

namespace {
void read(FieldReader &r, ModelConfig &c) {
  readGQA(r, c,
          {/*vocab=*/262208, /*maxPositions=*/131072, /*tied=*/true, 1e-6,
           /*ropeTheta=*/1e6});
  int64_t pattern =
      r.optionalInteger("sliding_window_pattern", 6, 1, kMaxLayers);
  readGemma(r, c, 4096, [&](int64_t i) { return (i + 1) % pattern != 0; });
  c.qkNorm = QKNorm::BeforeRope;
}

const IgnoredKey kIgnored[] = {
    {"hidden_activation", "GELU (tanh) gate: the cost of SwiGLU's"},
    {"query_pre_attn_scalar", "the softmax scale: a constant"},
    {"rope_local_base_freq", "the sliding layers' rotary base: a table"},
    {"vision_config", "the SigLIP vision tower (not built)"},
    {"mm_tokens_per_image", "images are not built"},
    {"boi_token_index", "token ids"},
    {"eoi_token_index", "token ids"},
    {"image_token_index", "token ids"},
};
} // namespace

namespace snapflow::models {
extern const Family kGemma3Family = {
    "gemma3",
    "Gemma 3's text model (text_config): q/k norms, 5 local : 1 global", read,
    "text_config", kIgnored};
extern const Family kGemma3TextFamily = {
    "gemma3_text", "GQA decoder, sandwich norms, q/k norms, 5 local : 1 global",
    read, nullptr, kIgnored};
} // namespace snapflow::models
