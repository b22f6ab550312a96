//===- Qwen3.cpp - model_type qwen3 ---------------------------------------===//
//
// Qwen2's layer without its fixed biases (`attention_bias`: q, k, v and o)
// and with an RMS norm over each head of q and of k, weights of head_dim,
// before the rotation (Qwen3Attention). `head_dim` is explicit and rarely
// h / H (Qwen3-32B: 128, h / H = 80). Windows as Qwen2. MODEL-FAMILIES.md
// sections 2, 8.2.
//
//===----------------------------------------------------------------------===//

#include "Family.h"

using namespace snapflow::models;

namespace snapflow::models {
void readQwenWindows(FieldReader &r, ModelConfig &c);

/// The attention of qwen3 and qwen3_moe.
void readQwen3Attention(FieldReader &r, ModelConfig &c) {
  c.qkvBias = c.outputBias = r.boolean("attention_bias", false);
  c.qkNorm = QKNorm::BeforeRope;
}
} // namespace snapflow::models

namespace {
void read(FieldReader &r, ModelConfig &c) {
  c.arch = Architecture::Llama;
  readGQA(r, c, {/*vocab=*/151936, /*maxPositions=*/32768});
  readQwen3Attention(r, c);
  readQwenWindows(r, c);
  refuseForeignKeys(r, c.modelType,
                    {"sliding_window", "layer_types", "attention_bias"});
}
} // namespace

namespace snapflow::models {
extern const Family kQwen3Family = {
    "qwen3", "GQA decoder with q/k norms, SwiGLU MLP", read, nullptr, {}};
} // namespace snapflow::models
