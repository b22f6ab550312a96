//===- FuzzRequests.cpp - libFuzzer target: request traces ----------------===//
//
// Every trace format (Trace.h), named by the first byte or detected, then
// validated against a 2048-token context as --serve does.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Serving/Trace.h"

#include <cstddef>
#include <cstdint>

using namespace snapflow::sim::serving;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  TraceOptions options;
  options.format = static_cast<TraceFormat>(data[0] % kNumTraceFormats);
  llvm::StringRef text(reinterpret_cast<const char *>(data + 1), size - 1);
  auto requests = parseRequests(text, "fuzz.csv", options);
  if (!requests) {
    llvm::consumeError(requests.takeError());
    return 0;
  }
  ServeConfig config;
  config.maxContext = 2048;
  llvm::consumeError(validate(*requests, config, "fuzz.csv"));
  return 0;
}
