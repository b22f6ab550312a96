//===- Program.cpp - The df program as plain C++ --------------------------===//

#include "snapflow/Sim/Core/Program.h"

using namespace snapflow::sim;

const char *snapflow::sim::stageKindName(StageKind kind) {
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
  return "?";
}

const char *snapflow::sim::collectiveKindName(CollectiveKind kind) {
  return arch::collectiveKindName(kind).data();
}

int64_t Program::tensorBytes(arch::MemoryTier tier) const {
  int64_t bytes = 0;
  for (const Tensor &t : tensors)
    if (t.tier == tier)
      bytes += t.bytes;
  return bytes;
}
