//===- Full.cpp - #kv.full: keep every token
//-------------------------------===//
//
// The uncompressed baseline: one slot per context token, nothing to choose.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

using namespace mlir;
using namespace snapflow::kv;

int64_t FullPolicyAttr::getSlotsFor(int64_t contextTokens) const {
  return contextTokens;
}
bool FullPolicyAttr::isCompressing() const { return false; }
int64_t FullPolicyAttr::getSinkTokens() const { return 0; }
int64_t FullPolicyAttr::getRecentTokens() const { return 0; }
bool FullPolicyAttr::isResolved() const { return true; }
bool FullPolicyAttr::selectsAtPrefill() const { return false; }

KVPolicyAttrInterface
FullPolicyAttr::resolveFor(int64_t contextTokens,
                           function_ref<InFlightDiagnostic()> emitError) const {
  if (contextTokens <= 0) {
    emitError() << "context must be > 0 tokens, got " << contextTokens;
    return {};
  }
  return *this;
}

StringRef FullPolicyAttr::getUsage() {
  return "keep every token (slots = context)";
}
