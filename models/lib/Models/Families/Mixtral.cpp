//===- Mixtral.cpp - model_type mixtral -----------------------------------===//
//
// Mistral's attention with every MLP a mixture of `num_local_experts`
// (alias `num_experts`) SwiGLU experts of `intermediate_size`, top
// `num_experts_per_tok`, softmax router, no shared expert
// (MixtralSparseMoeBlock). MODEL-FAMILIES.md sections 3, 8.5.
//
//===----------------------------------------------------------------------===//

#include "Family.h"

using namespace snapflow::models;

namespace {
void read(FieldReader &r, ModelConfig &c) {
  c.arch = Architecture::Llama;
  readGQA(r, c, {/*vocab=*/32000, /*maxPositions=*/4096 * 32}, "");
  readUniformWindow(r, c, /*on=*/true);
  readExperts(r, c,
              r.obj.get("num_local_experts") ? "num_local_experts"
                                             : "num_experts",
              "intermediate_size");
  c.intermediateSize = c.moeIntermediateSize; // no dense layer
  c.router = Router::Softmax;
  refuseForeignKeys(r, c.modelType,
                    {"sliding_window", "num_local_experts", "num_experts",
                     "num_experts_per_tok"});
}
} // namespace

namespace snapflow::models {
extern const Family kMixtralFamily = {
    "mixtral",
    "GQA decoder, every MLP a top-k mixture of SwiGLU experts",
    read,
    nullptr,
    {}};
} // namespace snapflow::models
