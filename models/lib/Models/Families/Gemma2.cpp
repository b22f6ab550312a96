//===- Gemma2.cpp - model_type gemma2 -------------------------------------===//
//
// Gemma 2: four norms per layer (the sandwich: after attention and after
// the MLP too), GeGLU MLP, explicit `head_dim`, tied embeddings by default,
// tanh soft-capping of attention scores (`attn_logit_softcapping`) and of
// the logits (`final_logit_softcapping`), and every even layer sliding over
// `sliding_window` (Gemma2Config's layer_types; `layer_types` when given).
// MODEL-FAMILIES.md sections 2, 4, 8.7.
//
//===----------------------------------------------------------------------===//

#include "Family.h"

using namespace snapflow::models;

namespace snapflow::models {
/// What Gemma 2 and 3 share: sandwich norms, soft-caps (null: off), the
/// window, and their layer pattern when `layer_types` is absent; then the
/// keys neither reads are refused.
void readGemma(FieldReader &r, ModelConfig &c, int64_t defaultWindow,
               llvm::function_ref<bool(int64_t)> sliding) {
  c.arch = Architecture::Llama;
  c.sandwichNorms = true;
  c.attnLogitSoftcap = r.nonNegativeNumber("attn_logit_softcapping", 0);
  c.finalLogitSoftcap = r.nonNegativeNumber("final_logit_softcapping", 0);
  c.qkvBias = c.outputBias = r.boolean("attention_bias", false);
  c.slidingWindow =
      r.optionalInteger("sliding_window", defaultWindow, 1, kMaxPositions);
  if (!readLayerTypes(r, c))
    setSlidingLayers(c, sliding);
  refuseForeignKeys(r, c.modelType,
                    {"sliding_window", "layer_types", "attention_bias",
                     "attn_logit_softcapping", "final_logit_softcapping"});
}
} // namespace snapflow::models

namespace {
void read(FieldReader &r, ModelConfig &c) {
  readGQA(r, c, {/*vocab=*/256000, /*maxPositions=*/8192, /*tied=*/true});
  readGemma(r, c, 4096, [](int64_t i) { return i % 2 == 0; });
}

const IgnoredKey kIgnored[] = {
    {"hidden_activation", "GELU (tanh) gate: the cost of SwiGLU's"},
    {"query_pre_attn_scalar", "the softmax scale: a constant"},
    {"sliding_window_size", "an older spelling of sliding_window"},
    {"cache_implementation", "a transformers setting"},
};
} // namespace

namespace snapflow::models {
extern const Family kGemma2Family = {
    "gemma2",
    "GQA decoder, sandwich norms, GeGLU, soft-caps, alternating windows", read,
    nullptr, kIgnored};
} // namespace snapflow::models
