//===- FuzzRequests.cpp - libFuzzer target: request traces ----------------===//
//
// snapflow's CSV and the public formats (Azure, BurstGPT), by the first
// byte, then validated against a 2048-token context as --serve does.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Serving/Serving.h"

#include <cstddef>
#include <cstdint>

using namespace snapflow::sim::serving;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  const TraceFormat formats[] = {TraceFormat::Auto, TraceFormat::Snapflow,
                                 TraceFormat::Azure, TraceFormat::BurstGPT};
  llvm::StringRef text(reinterpret_cast<const char *>(data + 1), size - 1);
  auto requests = parseRequests(text, "fuzz.csv", formats[data[0] % 4]);
  if (!requests) {
    llvm::consumeError(requests.takeError());
    return 0;
  }
  ServeConfig config;
  config.maxContext = 2048;
  llvm::consumeError(validate(*requests, config, "fuzz.csv"));
  return 0;
}
