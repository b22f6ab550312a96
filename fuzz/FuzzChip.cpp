//===- FuzzChip.cpp - libFuzzer target: chip YAML -------------------------===//
//
// A chip file either loads, every value in its declared range, or is
// refused with a located error.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Arch/ArchModel.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto chip = snapflow::arch::ArchModel::parse(text, "fuzz.yaml");
  if (!chip) {
    llvm::consumeError(chip.takeError());
    return 0;
  }
  // The derived quantities the compiler and simulator read.
  (void)chip->fingerprint();
  (void)chip->numSockets();
  return 0;
}
