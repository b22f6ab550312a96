//===- PolicySpec.h - KV policies as written on the command line ---------===//
//
// Parses KV-cache policy strings such as `full`,
// `streaming:sinks=4,window=4092`, `snapkv:budget=4096`,
// `snapstream:budget=32768,sinks=4,recent=4096,obs_window=32,kernel=7,pool=max`
// and `snapstream:ratio=4`, and resolves them for a context length into the
// concrete numbers a `#kv.*` attribute holds. MLIR-free: the simulator's
// serving loop and the CLI use it without the dialects.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_KV_POLICYSPEC_H
#define SNAPFLOW_DIALECT_KV_POLICYSPEC_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace snapflow {
namespace kv {

enum class PolicyKind { Full, Streaming, SnapKV, SnapStream };

/// A policy as the user wrote it: unset fields take defaults at resolve time.
struct PolicySpec {
  PolicyKind kind = PolicyKind::Full;
  std::optional<int64_t> budget, ratio, sinks, recent, window, obsWindow,
      kernel;
  std::optional<std::string> pool; // "max" | "avg"

  /// Parses a policy string; errors name the bad key or value.
  static llvm::Expected<PolicySpec> parse(llvm::StringRef text);
  /// The canonical spelling of what was parsed (round-trips through parse).
  std::string str() const;
};

/// A policy with every number fixed for one context length.
struct ResolvedPolicy {
  PolicyKind kind = PolicyKind::Full;
  int64_t slots = 0;     ///< token slots per sequence and layer
  int64_t sinks = 0;     ///< leading tokens always kept
  int64_t recent = 0;    ///< ring-buffer (or window) tokens
  int64_t obsWindow = 0; ///< SnapKV observation window
  int64_t kernel = 0;    ///< pooling width
  bool maxPool = true;   ///< max (true) or average (false) pooling
};

/// Fixes every number of `spec` for sequences of `contextTokens` tokens.
/// Errors when the policy cannot apply (a budget larger than the context, a
/// ring smaller than the observation window, ...).
llvm::Expected<ResolvedPolicy> resolve(const PolicySpec &spec,
                                       int64_t contextTokens);

/// Name of a policy kind as written on the command line.
llvm::StringRef policyKindName(PolicyKind kind);

/// One line per policy with its keys and defaults, for `snapflow list`.
std::string describePolicies();

} // namespace kv
} // namespace snapflow

#endif // SNAPFLOW_DIALECT_KV_POLICYSPEC_H
