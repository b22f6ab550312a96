//===- FuzzModelConfig.cpp - libFuzzer target: Hugging Face config.json ---===//
//
// Every input either parses into a config whose fields are in their ranges
// or is refused with an error; nothing the reader does may crash, overflow
// or read out of bounds (ASan + UBSan in the sanitized build).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Models/ModelConfig.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto config = snapflow::models::ModelConfig::parse(text, "fuzz.json");
  if (!config) {
    llvm::consumeError(config.takeError());
    return 0;
  }
  // What info computes from a config must not wrap either.
  (void)config->cachePositions(4096);
  return 0;
}
