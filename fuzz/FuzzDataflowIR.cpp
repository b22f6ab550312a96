//===- FuzzDataflowIR.cpp - libFuzzer target: df IR through the Loader ----===//
//
// Parse, verify and convert a df program as `snapflow simulate` does
// (sim::parseProgram); the text is a slice of a larger buffer, as the
// Loader's callers may pass (reliability defect 4: the parser was handed a
// buffer without its NUL terminator).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Loader/Loader.h"

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // No NUL after the text: ASan sees a read past the end.
  std::vector<char> copy(data, data + size);
  llvm::StringRef text(copy.data(), copy.size());
  auto program = snapflow::sim::parseProgram(text, "fuzz.mlir");
  if (!program)
    llvm::consumeError(program.takeError());
  return 0;
}
