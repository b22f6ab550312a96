//===- Mistral.cpp - model_type mistral -----------------------------------===//
//
// A Llama layer with an optional sliding window on every layer
// (MistralAttention; v0.1: 4096, v0.2 and v0.3: null, so full). An
// optional `head_dim` (MistralConfig). MODEL-FAMILIES.md sections 2, 8.4.
//
//===----------------------------------------------------------------------===//

#include "Family.h"

using namespace snapflow::models;

namespace {
void read(FieldReader &r, ModelConfig &c) {
  c.arch = Architecture::Llama;
  readGQA(r, c, {/*vocab=*/32000, /*maxPositions=*/4096 * 32});
  readUniformWindow(r, c, /*on=*/true);
  refuseForeignKeys(r, c.modelType, {"sliding_window"});
}
} // namespace

namespace snapflow::models {
extern const Family kMistralFamily = {
    "mistral",
    "GQA decoder, SwiGLU MLP, optional sliding window",
    read,
    nullptr,
    {}};
} // namespace snapflow::models
