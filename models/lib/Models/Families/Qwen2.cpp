//===- Qwen2.cpp - model_type qwen2 (Qwen2, Qwen2.5) ----------------------===//
//
// A Llama layer with biases on q, k and v (not o: Qwen2Attention). Layer i
// slides over `sliding_window` iff `use_sliding_window` and i >=
// `max_window_layers` (Qwen2Config; released checkpoints ship it off), or
// as `layer_types` lists. h / H is the head width (no head_dim key).
// MODEL-FAMILIES.md sections 2, 8.1.
//
//===----------------------------------------------------------------------===//

#include "Family.h"

using namespace snapflow::models;

namespace snapflow::models {
/// Qwen's window rule, shared by qwen2 and qwen3: `layer_types` when
/// given, else sliding from `max_window_layers` on when
/// `use_sliding_window`.
void readQwenWindows(FieldReader &r, ModelConfig &c) {
  bool on = r.boolean("use_sliding_window", false);
  int64_t from =
      r.optionalInteger("max_window_layers", c.numLayers, 0, kMaxLayers);
  int64_t window = r.optionalInteger("sliding_window", 0, 0, kMaxPositions);
  if (readLayerTypes(r, c)) {
    c.slidingWindow = window;
  } else if (on && window > 0) {
    c.slidingWindow = window;
    setSlidingLayers(c, [&](int64_t i) { return i >= from; });
  }
}
} // namespace snapflow::models

namespace {
void read(FieldReader &r, ModelConfig &c) {
  c.arch = Architecture::Llama;
  readGQA(r, c, {/*vocab=*/151936, /*maxPositions=*/32768},
          "intermediate_size");
  c.headDim = c.hiddenSize / c.numHeads; // Qwen2Attention: no head_dim
  c.qkvBias = true;
  readQwenWindows(r, c);
  refuseForeignKeys(r, c.modelType, {"sliding_window", "layer_types"});
}
} // namespace

namespace snapflow::models {
extern const Family kQwen2Family = {
    "qwen2", "GQA decoder with q/k/v biases, SwiGLU MLP", read, nullptr, {}};
} // namespace snapflow::models
