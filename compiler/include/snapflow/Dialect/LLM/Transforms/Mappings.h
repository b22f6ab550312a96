//===- Mappings.h - How shard-tp maps MLA caches and MoE layers -*- C++ -*-===//
//
// The two choices of shard-tp's mapping over a TP group, as enums with one
// name and one parse function each: the pass's `mla-cache` and `moe`
// options, the CLI's `--mla-cache` and `--moe`, and the sweep's axes of the
// same names all read them here. Plain C++, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_LLM_TRANSFORMS_MAPPINGS_H
#define SNAPFLOW_DIALECT_LLM_TRANSFORMS_MAPPINGS_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace snapflow {
namespace llm {

/// The MLA latent cache's layout under TP: every socket a copy, split by
/// sequence, or split by batch (decode).
enum class MlaCache { Replicate, Sequence, Batch };
constexpr int kNumMlaCaches = static_cast<int>(MlaCache::Batch) + 1;
/// MoE layers under TP: whole experts per socket, or every expert split.
enum class MoeMapping { Expert, Split };
constexpr int kNumMoeMappings = static_cast<int>(MoeMapping::Split) + 1;

/// `replicate`, `sequence`, `batch`.
llvm::StringRef mlaCacheName(MlaCache m);
std::optional<MlaCache> parseMlaCache(llvm::StringRef text);
/// `expert`, `split`.
llvm::StringRef moeMappingName(MoeMapping m);
std::optional<MoeMapping> parseMoeMapping(llvm::StringRef text);

} // namespace llm
} // namespace snapflow

#endif // SNAPFLOW_DIALECT_LLM_TRANSFORMS_MAPPINGS_H
