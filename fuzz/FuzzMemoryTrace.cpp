//===- FuzzMemoryTrace.cpp - libFuzzer target: `snapflow trace` input -----===//
//
// A Chrome trace with snapflow's memory counters, read and summarised as
// `snapflow trace` prints it.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Driver/MemoryTrace.h"

#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>

// The driver library links SystemC, whose own main() needs sc_main;
// libFuzzer's main() runs instead.
extern "C" int sc_main(int, char **) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto trace = snapflow::driver::parseMemoryTrace(text, "fuzz.json");
  if (!trace) {
    llvm::consumeError(trace.takeError());
    return 0;
  }
  (void)trace->spanUs();
  return 0;
}
