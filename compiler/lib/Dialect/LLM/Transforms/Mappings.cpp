//===- Mappings.cpp - How shard-tp maps MLA caches and MoE layers ---------===//

#include "snapflow/Dialect/LLM/Transforms/Mappings.h"

#include "snapflow/Support/EnumNames.h"

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
  return enumByName<MlaCache>(text, kNumMlaCaches, mlaCacheName);
}

llvm::StringRef snapflow::llm::moeMappingName(MoeMapping m) {
  return m == MoeMapping::Expert ? "expert" : "split";
}

std::optional<MoeMapping> snapflow::llm::parseMoeMapping(llvm::StringRef text) {
  return enumByName<MoeMapping>(text, kNumMoeMappings, moeMappingName);
}
