//===- GptOss.cpp - model_type gpt_oss ------------------------------------===//
//
// gpt-oss: biases on q, k, v and o (`attention_bias`), a learned sink
// logit per head and layer, every even layer sliding over
// `sliding_window` (128) or as `layer_types` lists, and every MLP a
// mixture of `num_local_experts` experts of `intermediate_size` with
// biases, top `num_experts_per_tok` (the reference's `experts_per_token`)
// of a biased router, softmax over the selected. The experts ship in MXFP4
// (`quantization_config`). MODEL-FAMILIES.md sections 2, 3, 8.9.
//
//===----------------------------------------------------------------------===//

#include "Family.h"

using namespace snapflow::models;

namespace {
void read(FieldReader &r, ModelConfig &c) {
  c.arch = Architecture::Llama;
  readGQA(r, c,
          {/*vocab=*/201088, /*maxPositions=*/131072, false, 1e-5, 150000.0},
          "");
  c.qkvBias = c.outputBias = r.boolean("attention_bias", true);
  c.attentionSinks = true;
  c.slidingWindow = r.optionalInteger("sliding_window", 128, 1, kMaxPositions);
  if (!readLayerTypes(r, c))
    setSlidingLayers(c, [](int64_t i) { return i % 2 == 0; });
  readExperts(r, c, "num_local_experts", "intermediate_size");
  // The reference reads experts_per_token; the two must agree.
  if (!r.error && r.obj.get("experts_per_token") &&
      r.integer("experts_per_token", 1, c.numRoutedExperts) !=
          c.numExpertsPerToken)
    r.fail("experts_per_token", "field '" + r.name("experts_per_token") +
                                    "' and 'num_experts_per_tok' differ");
  c.intermediateSize = c.moeIntermediateSize;
  c.router = Router::SoftmaxTopK;
  c.expertBiases = true;
  refuseForeignKeys(r, c.modelType,
                    {"sliding_window", "layer_types", "attention_bias",
                     "num_local_experts", "num_experts_per_tok",
                     "experts_per_token"});
}

const IgnoredKey kIgnored[] = {
    {"swiglu_limit", "clamps the gate: one min/max per channel"},
    {"initial_context_length", "the rope scaling's original length"},
};
} // namespace

namespace snapflow::models {
extern const Family kGptOssFamily = {
    "gpt_oss",
    "GQA decoder with biases and sinks, alternating windows, biased "
    "top-k experts (MXFP4)",
    read, nullptr, kIgnored};
} // namespace snapflow::models
