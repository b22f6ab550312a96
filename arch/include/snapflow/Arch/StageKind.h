//===- StageKind.h - What a pipeline stage computes -------------*- C++ -*-===//
//
// The mode a df.stage runs its PCUs in: gemm on the systolic arrays, the
// rest on the SIMD lanes. One enum for the df dialect (`df.stage gemm`,
// `#df.stage<gemm, ...>`), the mapping passes, the Loader and the
// simulator's PCU stage, as MemoryTier is for tiers and OpKind for model
// operators.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_ARCH_STAGEKIND_H
#define SNAPFLOW_ARCH_STAGEKIND_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace snapflow {
namespace arch {

enum class StageKind { Gemm, Elementwise, Reduce, Softmax, Norm, TopK, Gather };
constexpr int kNumStageKinds = static_cast<int>(StageKind::Gather) + 1;

/// Its IR keyword: `gemm`, `elementwise`, `reduce`, `softmax`, `norm`,
/// `topk`, `gather`.
llvm::StringRef stageKindName(StageKind kind);
std::optional<StageKind> parseStageKind(llvm::StringRef name);
/// Every keyword, joined by `separator`.
std::string stageKindNames(llvm::StringRef separator);

} // namespace arch
} // namespace snapflow

#endif // SNAPFLOW_ARCH_STAGEKIND_H
