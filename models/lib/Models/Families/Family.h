//===- Family.h - A model family: its model_type and reader ---*- C++ -*-===//
//
// Private to the config reader. A family is the `model_type`s of one
// decoder design and the reader that turns their config.json into a
// ModelConfig: which graph (GQA, MLA, Block Transformer) and which of its
// features (biases, q/k norms, windows, experts, ...). The graph builders
// (ModelBuilder.cpp, BlockTransformer.cpp) emit every family from those
// fields, so a new family's cost is its file here, a line in Families.def
// and its tests (docs/Models.md, "Families").
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_MODELS_FAMILIES_FAMILY_H
#define SNAPFLOW_MODELS_FAMILIES_FAMILY_H

#include "../ConfigReader.h"

namespace snapflow {
namespace models {

/// A key of a family's published configs that does not change what
/// snapflow costs, and why.
struct IgnoredKey {
  const char *key, *why;
};

struct Family {
  /// The `model_type` it reads (`kimi_k2`, `gemma3_text`, ...).
  const char *modelType;
  /// What it builds, in a few words (`snapflow list --families`).
  const char *graph;
  /// Reads a config of this family into `c` (whose modelType is set): the
  /// top-level object, or the `nestedIn` one.
  void (*read)(FieldReader &r, ModelConfig &c);
  /// The key of the object holding the decoder's config, for a family that
  /// nests it (`text_config` of gemma3, llama4), else null.
  const char *nestedIn;
  /// Keys of its published configs it reads past, with why.
  llvm::ArrayRef<IgnoredKey> ignored;
};

/// Keys every family reads past: token ids, training settings, versions.
llvm::ArrayRef<IgnoredKey> commonIgnoredKeys();

} // namespace models
} // namespace snapflow

#endif // SNAPFLOW_MODELS_FAMILIES_FAMILY_H
