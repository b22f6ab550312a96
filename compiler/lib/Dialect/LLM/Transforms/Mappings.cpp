//===- Mappings.cpp - How shard-tp maps MLA caches and MoE layers ---------===//

#include "snapflow/Dialect/LLM/Transforms/Mappings.h"

#include "llvm/Support/ErrorHandling.h"

using namespace snapflow;
using namespace snapflow::llm;

llvm::StringRef snapflow::llm::mlaCacheName(MlaCache m) {
  switch (m) {
  case MlaCache::Replicate:
    return "replicate";
  case MlaCache::Sequence:
    return "sequence";
  case MlaCache::Batch:
    return "batch";
  }
  llvm_unreachable("unknown MLA cache layout");
}

std::optional<MlaCache> snapflow::llm::parseMlaCache(llvm::StringRef text) {
  for (MlaCache m : {MlaCache::Replicate, MlaCache::Sequence, MlaCache::Batch})
    if (mlaCacheName(m) == text)
      return m;
  return std::nullopt;
}

llvm::StringRef snapflow::llm::moeMappingName(MoeMapping m) {
  return m == MoeMapping::Expert ? "expert" : "split";
}

std::optional<MoeMapping> snapflow::llm::parseMoeMapping(llvm::StringRef text) {
  for (MoeMapping m : {MoeMapping::Expert, MoeMapping::Split})
    if (moeMappingName(m) == text)
      return m;
  return std::nullopt;
}
