//===- FuzzDeployment.cpp - libFuzzer target: deployment files ------------===//
//
// A `--deployment` YAML file, read and each model resolved (config, chip,
// KV policy and format) as `run --serve --deployment` does, on sn40l.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Driver/Deployment.h"

#include <cstddef>
#include <cstdint>

using namespace snapflow::driver;

// The driver library links SystemC, whose own main() needs sc_main;
// libFuzzer's main() runs instead.
extern "C" int sc_main(int, char **) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const WorkloadOptions shared = [] {
    WorkloadOptions o;
    o.model = "llama-3.2-1b";
    o.chip = "sn40l";
    o.context = 4096;
    o.batch = 1;
    return o;
  }();
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  auto models = parseDeployment(text, "fuzz.yaml", shared, /*maxBatch=*/false);
  if (!models)
    llvm::consumeError(models.takeError());
  return 0;
}
