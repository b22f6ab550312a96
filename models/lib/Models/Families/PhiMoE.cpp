//===- PhiMoE.cpp - model_type phimoe (Phi-3.5-MoE) -----------------------===//
//
// A Mixtral-shaped decoder (`num_local_experts` SwiGLU experts of
// `intermediate_size`, top `num_experts_per_tok`) with LayerNorms (weight
// and bias) in place of RMS norms, biases on q, k, v and o
// (`attention_bias`) and on the LM head (`lm_head_bias`)
// (modeling_phimoe.py of the checkpoint's remote code). Its router
// (sparsemixer) costs what a softmax top-k does.
//
//===----------------------------------------------------------------------===//

#include "Family.h"

using namespace snapflow::models;

namespace {
void read(FieldReader &r, ModelConfig &c) {
  c.arch = Architecture::Llama;
  readGQA(r, c, {/*vocab=*/32064, /*maxPositions=*/4096 * 32, false, 1e-5}, "");
  c.qkvBias = c.outputBias = r.boolean("attention_bias", false);
  c.lmHeadBias = r.boolean("lm_head_bias", false);
  c.layerNorm = true;
  readUniformWindow(r, c, /*on=*/true);
  readExperts(r, c, "num_local_experts", "intermediate_size");
  c.intermediateSize = c.moeIntermediateSize;
  c.router = Router::Softmax;
  refuseForeignKeys(r, c.modelType,
                    {"sliding_window", "attention_bias", "lm_head_bias",
                     "num_local_experts", "num_experts_per_tok"});
}
} // namespace

namespace snapflow::models {
extern const Family kPhiMoEFamily = {
    "phimoe",
    "GQA decoder with LayerNorms and biases, top-k mixture of experts",
    read,
    nullptr,
    {}};
} // namespace snapflow::models
