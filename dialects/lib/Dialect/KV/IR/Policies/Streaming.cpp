//===- Streaming.cpp - #kv.streaming: StreamingLLM
//-------------------------===//
//
// Attention sinks plus a recent window (Xiao et al., StreamingLLM): the first
// `sinks` tokens stay, the last `window` ones slide through a ring buffer.
// Nothing is scored, so prefill keeps its sinks and its last tokens.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

/// StreamingLLM's published configuration keeps 4 sink tokens.
static constexpr int64_t kDefaultSinks = 4;

LogicalResult
StreamingPolicyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            std::optional<int64_t> sinks, int64_t window) {
  if (sinks && *sinks < 0)
    return emitError() << "streaming sinks must be >= 0, got " << *sinks;
  if (window <= 0)
    return emitError() << "streaming window must be > 0, got " << window;
  if ((CheckedInt(sinks.value_or(kDefaultSinks)) + window).overflowed())
    return emitError() << "streaming sinks + window exceeds a 64-bit count";
  return success();
}

int64_t StreamingPolicyAttr::getSlotsFor(int64_t) const {
  return getSinkTokens() + getWindow();
}
bool StreamingPolicyAttr::isCompressing() const { return true; }
int64_t StreamingPolicyAttr::getSinkTokens() const {
  return getSinks().value_or(kDefaultSinks);
}
int64_t StreamingPolicyAttr::getRecentTokens() const { return getWindow(); }
bool StreamingPolicyAttr::isResolved() const { return getSinks().has_value(); }
bool StreamingPolicyAttr::selectsAtPrefill() const { return false; }

KVPolicyAttrInterface StreamingPolicyAttr::resolveFor(
    int64_t contextTokens, function_ref<InFlightDiagnostic()> emitError) const {
  int64_t slots = getSlotsFor(contextTokens);
  if (slots > contextTokens) {
    emitError() << "streaming sinks + window = " << slots
                << " tokens exceeds the context of " << contextTokens
                << " tokens";
    return {};
  }
  return StreamingPolicyAttr::get(getContext(), getSinkTokens(), getWindow());
}

StringRef StreamingPolicyAttr::getUsage() {
  return "StreamingLLM sinks + recent window\n"
         "keys: sinks (default 4), window (required)";
}
