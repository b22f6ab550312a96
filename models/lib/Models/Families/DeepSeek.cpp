//===- DeepSeek.cpp - model_type deepseek_v2, deepseek_v3, kimi_k2 --------===//
//
// DeepSeek's decoder: multi-head latent attention (queries through
// `q_lora_rank` or directly, a latent of `kv_lora_rank` plus
// `qk_rope_head_dim` rotated channels cached per token), the first
// `first_k_dense_replace` layers dense, the rest (every `moe_layer_freq`-th)
// `n_routed_experts` experts of `moe_intermediate_size`, top
// `num_experts_per_tok`, plus `n_shared_experts`; `num_nextn_predict_layers`
// multi-token-prediction modules. Kimi-K2 is this graph under its own
// model_type (its remote code is DeepseekV3ForCausalLM). MODEL-FAMILIES.md
// sections 3, 5, 8.11.
//
//===----------------------------------------------------------------------===//

#include "Family.h"

using namespace snapflow::models;

namespace {
void read(FieldReader &r, ModelConfig &c, Architecture arch) {
  c.arch = arch;
  readDecoder(r, c, {});
  c.qLoraRank = r.optionalInteger("q_lora_rank", 0, 0, kMaxRank);
  c.kvLoraRank = r.integer("kv_lora_rank", 1, kMaxRank);
  c.qkNopeHeadDim = r.integer("qk_nope_head_dim", 1, kMaxHeadDim);
  c.qkRopeHeadDim = r.integer("qk_rope_head_dim", 1, kMaxHeadDim);
  if (!r.error && c.qkRopeHeadDim % 2 != 0)
    r.fail("qk_rope_head_dim",
           llvm::formatv("'qk_rope_head_dim' is {0}; rotary position "
                         "embeddings rotate pairs of channels, so it must "
                         "be even",
                         c.qkRopeHeadDim)
               .str());
  c.vHeadDim = r.integer("v_head_dim", 1, kMaxHeadDim);
  c.numRoutedExperts = r.optionalInteger("n_routed_experts", 0, 0, kMaxExperts);
  if (c.numRoutedExperts > 0) {
    c.numSharedExperts =
        r.optionalInteger("n_shared_experts", 0, 0, kMaxExperts);
    c.numExpertsPerToken =
        r.integer("num_experts_per_tok", 1, c.numRoutedExperts);
    c.moeIntermediateSize = r.integer("moe_intermediate_size", 1, kMaxWidth);
    c.firstKDenseReplace =
        r.optionalInteger("first_k_dense_replace", 0, 0, c.numLayers);
    c.moeLayerFreq = r.optionalInteger("moe_layer_freq", 1, 1, c.numLayers);
    c.router =
        arch == Architecture::DeepSeekV2 ? Router::Softmax : Router::Sigmoid;
  }
  c.numMtpLayers =
      r.optionalInteger("num_nextn_predict_layers", 0, 0, kMaxMtpLayers);
  c.headDim = c.qkNopeHeadDim + c.qkRopeHeadDim;
  refuseForeignKeys(r, c.modelType,
                    {"kv_lora_rank", "q_lora_rank", "n_routed_experts",
                     "n_shared_experts", "num_experts_per_tok",
                     "moe_intermediate_size"});
}
void readV2(FieldReader &r, ModelConfig &c) {
  read(r, c, Architecture::DeepSeekV2);
}
void readV3(FieldReader &r, ModelConfig &c) {
  read(r, c, Architecture::DeepSeekV3);
}

// Router details that select experts without changing the cost: the
// router's matmul and a top-k are charged whatever the scoring.
const IgnoredKey kIgnored[] = {
    {"aux_loss_alpha", "training only"},
    {"seq_aux", "training only"},
    {"scoring_func", "softmax or sigmoid: the same matmul and top-k"},
    {"topk_method", "how the top-k is chosen"},
    {"n_group", "group-limited routing: the same top-k"},
    {"topk_group", "group-limited routing: the same top-k"},
    {"norm_topk_prob", "renormalises the top-k weights: k divisions"},
    {"routed_scaling_factor", "a constant on the experts' sum"},
    {"ep_size", "a training setting"},
    {"num_key_value_heads",
     "MLA caches one latent for every head: no KV heads"},
};
} // namespace

namespace snapflow::models {
extern const Family kDeepSeekV2Family = {
    "deepseek_v2", "MLA decoder, DeepSeek MoE (shared + routed experts)",
    readV2, nullptr, kIgnored};
extern const Family kDeepSeekV3Family = {
    "deepseek_v3",
    "MLA decoder, DeepSeek MoE (sigmoid router), multi-token prediction",
    readV3, nullptr, kIgnored};
extern const Family kKimiK2Family = {"kimi_k2", "DeepSeek-V3's graph (Kimi-K2)",
                                     readV3, nullptr, kIgnored};
} // namespace snapflow::models
