//===- FuzzKVPolicy.cpp - libFuzzer target: --kv and --kv-format strings --===//
//
// The first byte picks what the rest is read as: a KV policy resolved for a
// context the second and third bytes choose (up to 2^27 tokens, the longest
// a config may declare), or a KV element format.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext *context = [] {
    auto *c = new mlir::MLIRContext(mlir::MLIRContext::Threading::DISABLED);
    c->loadDialect<snapflow::kv::KVDialect>();
    return c;
  }();
  if (size < 3)
    return 0;
  int64_t contextTokens = int64_t(1) << (data[1] % 28);
  contextTokens += data[2];
  llvm::StringRef text(reinterpret_cast<const char *>(data + 3), size - 3);
  if (data[0] & 1) {
    auto format = snapflow::kv::parseFormat(context, text);
    if (!format)
      llvm::consumeError(format.takeError());
    return 0;
  }
  auto policy = snapflow::kv::resolvePolicy(context, text, contextTokens);
  if (!policy) {
    llvm::consumeError(policy.takeError());
    return 0;
  }
  (void)policy->getSlotsFor(contextTokens);
  return 0;
}
