//===- Qwen3Moe.cpp - model_type qwen3_moe --------------------------------===//
//
// Qwen3's attention (q/k norms); layer i is MoE iff i is not in
// `mlp_only_layers` and (i + 1) % `decoder_sparse_step` == 0
// (Qwen3MoeDecoderLayer): `num_experts` SwiGLU experts of
// `moe_intermediate_size`, top `num_experts_per_tok` of a softmax over all,
// no shared expert; `intermediate_size` sizes only the dense layers. A
// window, when on, slides on every layer. MODEL-FAMILIES.md sections 3,
// 8.3.
//
//===----------------------------------------------------------------------===//

#include "Family.h"

using namespace snapflow::models;

namespace snapflow::models {
void readQwen3Attention(FieldReader &r, ModelConfig &c);
} // namespace snapflow::models

namespace {
void read(FieldReader &r, ModelConfig &c) {
  c.arch = Architecture::Llama;
  readGQA(r, c, {/*vocab=*/151936, /*maxPositions=*/32768});
  readQwen3Attention(r, c);
  readUniformWindow(r, c, r.boolean("use_sliding_window", false));
  r.optionalInteger("max_window_layers", 0, 0, kMaxLayers); // unused here
  readExperts(r, c, "num_experts", "moe_intermediate_size");
  int64_t step = r.optionalInteger("decoder_sparse_step", 1, 1, c.numLayers);
  std::vector<int64_t> dense = r.integers("mlp_only_layers", 0, c.numLayers - 1)
                                   .value_or(std::vector<int64_t>{});
  c.moeLayers.assign(c.numLayers, false);
  for (int64_t i = 0; i < c.numLayers; ++i)
    c.moeLayers[i] = !llvm::is_contained(dense, i) && (i + 1) % step == 0;
  c.router = Router::Softmax;
  refuseForeignKeys(r, c.modelType,
                    {"sliding_window", "attention_bias", "num_experts",
                     "num_experts_per_tok", "moe_intermediate_size"});
}

const IgnoredKey kIgnored[] = {
    {"norm_topk_prob", "renormalises the top-k weights: k divisions"},
};
} // namespace

namespace snapflow::models {
extern const Family kQwen3MoeFamily = {
    "qwen3_moe", "GQA decoder with q/k norms, top-k mixture of experts", read,
    nullptr, kIgnored};
} // namespace snapflow::models
