//===- StageKind.cpp - What a pipeline stage computes ---------------------===//

#include "snapflow/Arch/StageKind.h"

#include "snapflow/Support/EnumNames.h"

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
  return enumByName<StageKind>(name, kNumStageKinds, stageKindName);
}

std::string snapflow::arch::stageKindNames(llvm::StringRef separator) {
  return enumNames<StageKind>(kNumStageKinds, stageKindName, separator);
}
