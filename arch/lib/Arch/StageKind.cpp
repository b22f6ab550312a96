//===- StageKind.cpp - What a pipeline stage computes ---------------------===//

#include "snapflow/Arch/StageKind.h"

#include "llvm/Support/ErrorHandling.h"

using namespace snapflow;
using namespace snapflow::arch;

llvm::StringRef snapflow::arch::stageKindName(StageKind kind) {
  switch (kind) {
  case StageKind::Gemm:
    return "gemm";
  case StageKind::Elementwise:
    return "elementwise";
  case StageKind::Reduce:
    return "reduce";
  case StageKind::Softmax:
    return "softmax";
  case StageKind::Norm:
    return "norm";
  case StageKind::TopK:
    return "topk";
  case StageKind::Gather:
    return "gather";
  }
  llvm_unreachable("unknown stage kind");
}

std::optional<StageKind> snapflow::arch::parseStageKind(llvm::StringRef name) {
  for (int k = 0; k < kNumStageKinds; ++k)
    if (stageKindName(static_cast<StageKind>(k)) == name)
      return static_cast<StageKind>(k);
  return std::nullopt;
}

std::string snapflow::arch::stageKindNames(llvm::StringRef separator) {
  std::string out;
  for (int k = 0; k < kNumStageKinds; ++k) {
    if (k > 0)
      out += separator.str();
    out += stageKindName(static_cast<StageKind>(k)).str();
  }
  return out;
}
