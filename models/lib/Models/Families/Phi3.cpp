//===- Phi3.cpp - model_type phi3 (Phi-3, Phi-4) --------------------------===//
//
// A Llama layer whose q, k, v and gate, up weights are fused
// (`qkv_proj`, `gate_up_proj`: the same FLOPs and bytes, built as separate
// projections), h / H wide heads, `partial_rotary_factor` of each head
// rotated, and an optional window on every layer (Phi-3-mini-4k: 2047;
// Phi-4: null). MODEL-FAMILIES.md sections 2, 8.6.
//
//===----------------------------------------------------------------------===//

#include "Family.h"

using namespace snapflow::models;

namespace {
/// `partial_rotary_factor`: the channels of a head rotated, int(d x f),
/// even (Phi3Attention's rotary_ndims).
void readPartialRotary(FieldReader &r, ModelConfig &c) {
  double f = r.positiveNumber("partial_rotary_factor", 1.0);
  if (r.error || f >= 1.0) {
    if (f > 1.0)
      r.fail("partial_rotary_factor", "field '" +
                                          r.name("partial_rotary_factor") +
                                          "' must be in (0, 1]");
    return;
  }
  c.rotaryDim = static_cast<int64_t>(double(c.headDim) * f);
  if (c.rotaryDim < 2 || c.rotaryDim % 2 != 0)
    r.fail("partial_rotary_factor",
           llvm::formatv("field '{0}' ({1}) must rotate an even number of "
                         "the {2} channels of a head",
                         r.name("partial_rotary_factor"), f, c.headDim));
}

void read(FieldReader &r, ModelConfig &c) {
  c.arch = Architecture::Llama;
  readGQA(r, c,
          {/*vocab=*/32064, /*maxPositions=*/4096, false, 1e-5, 10000.0,
           /*headDimKey=*/false});
  readPartialRotary(r, c);
  readUniformWindow(r, c, /*on=*/true);
  refuseForeignKeys(r, c.modelType,
                    {"sliding_window", "partial_rotary_factor"});
}

const IgnoredKey kIgnored[] = {
    {"embd_pdrop", "training only"},
    {"resid_pdrop", "training only"},
};
} // namespace

namespace snapflow::models {
extern const Family kPhi3Family = {
    "phi3", "GQA decoder (fused q/k/v and gate/up weights), SwiGLU MLP", read,
    nullptr, kIgnored};
} // namespace snapflow::models
