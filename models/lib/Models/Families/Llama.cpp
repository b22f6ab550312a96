//===- Llama.cpp - model_type llama ---------------------------------------===//
//
// Llama 2/3: the GQA decoder the others extend. `attention_bias` puts
// biases on q, k, v and o (LlamaAttention); an MLP bias or any other
// family's key is refused. Hunyuan's cross-layer attention keys are read
// by every family (ModelConfig.cpp).
//
//===----------------------------------------------------------------------===//

#include "Family.h"

using namespace snapflow::models;

namespace {
void read(FieldReader &r, ModelConfig &c) {
  c.arch = Architecture::Llama;
  readGQA(r, c);
  c.qkvBias = c.outputBias = r.boolean("attention_bias", false);
  refuseForeignKeys(r, c.modelType, {"attention_bias"});
}

const IgnoredKey kIgnored[] = {
    {"mlp_bias", "when false (true is refused)"},
};
} // namespace

namespace snapflow::models {
extern const Family kLlamaFamily = {"llama", "GQA decoder, SwiGLU MLP", read,
                                    nullptr, kIgnored};
} // namespace snapflow::models
