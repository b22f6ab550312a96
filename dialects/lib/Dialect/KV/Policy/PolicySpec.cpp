//===- PolicySpec.cpp - KV policies as written on the command line --------===//
//
// Policy strings: `kind[:key=value,...]`. Each kind accepts a fixed key set;
// an unknown or repeated key, a non-integer value or a key of another policy is
// an error that names it. Defaults follow the published configurations
// (FACTS.md): 4 sinks (StreamingLLM), observation window 32 and max-pooling of
// width 7 (SnapKV LongBench configs), a recent ring of min(4096, budget / 4).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/PolicySpec.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace snapflow::kv;
using llvm::StringRef;

namespace {
constexpr int64_t kDefaultSinks = 4;
constexpr int64_t kDefaultObsWindow = 32;
constexpr int64_t kDefaultKernel = 7;
constexpr int64_t kDefaultRecentCap = 4096;

llvm::Error err(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// Keys each policy accepts.
llvm::ArrayRef<StringRef> keysOf(PolicyKind kind) {
  static const StringRef streaming[] = {"sinks", "window"};
  static const StringRef snapkv[] = {"budget", "ratio", "obs_window", "kernel",
                                     "pool"};
  static const StringRef snapstream[] = {"budget",     "ratio",  "sinks",
                                         "recent",     "obs_window", "kernel",
                                         "pool"};
  switch (kind) {
  case PolicyKind::Full:
    return {};
  case PolicyKind::Streaming:
    return streaming;
  case PolicyKind::SnapKV:
    return snapkv;
  case PolicyKind::SnapStream:
    return snapstream;
  }
  return {};
}
} // namespace

StringRef snapflow::kv::policyKindName(PolicyKind kind) {
  switch (kind) {
  case PolicyKind::Full:
    return "full";
  case PolicyKind::Streaming:
    return "streaming";
  case PolicyKind::SnapKV:
    return "snapkv";
  case PolicyKind::SnapStream:
    return "snapstream";
  }
  return "?";
}

llvm::Expected<PolicySpec> PolicySpec::parse(StringRef text) {
  auto [name, rest] = text.trim().split(':');
  PolicySpec spec;
  if (name == "full")
    spec.kind = PolicyKind::Full;
  else if (name == "streaming")
    spec.kind = PolicyKind::Streaming;
  else if (name == "snapkv")
    spec.kind = PolicyKind::SnapKV;
  else if (name == "snapstream")
    spec.kind = PolicyKind::SnapStream;
  else
    return err("unknown KV policy '" + name +
               "'; expected full, streaming, snapkv or snapstream");

  llvm::ArrayRef<StringRef> allowed = keysOf(spec.kind);
  if (text.contains(':') && rest.trim().empty())
    return err("KV policy '" + text + "' has an empty parameter list");
  llvm::SmallVector<StringRef> items;
  if (!rest.empty())
    rest.split(items, ',');
  llvm::StringSet<> seen;
  for (StringRef item : items) {
    auto [key, value] = item.trim().split('=');
    key = key.trim();
    value = value.trim();
    if (!item.contains('=') || key.empty() || value.empty())
      return err("KV policy '" + text + "': expected key=value, got '" +
                 item.trim() + "'");
    if (llvm::find(allowed, key) == allowed.end()) {
      std::string keys;
      for (StringRef k : allowed)
        keys += (keys.empty() ? "" : ", ") + k.str();
      return err("KV policy '" + text + "': unknown key '" + key + "' for " +
                 name + (keys.empty() ? " (it takes no keys)"
                                      : " (keys: " + keys + ")"));
    }
    if (!seen.insert(key).second)
      return err("KV policy '" + text + "': key '" + key + "' given twice");
    if (key == "pool") {
      if (value != "max" && value != "avg")
        return err("KV policy '" + text + "': pool must be max or avg, got '" +
                   value + "'");
      spec.pool = value.str();
      continue;
    }
    int64_t n;
    if (value.getAsInteger(10, n) || n < 0)
      return err("KV policy '" + text + "': " + key +
                 " must be a non-negative integer, got '" + value + "'");
    if (key == "budget")
      spec.budget = n;
    else if (key == "ratio")
      spec.ratio = n;
    else if (key == "sinks")
      spec.sinks = n;
    else if (key == "recent")
      spec.recent = n;
    else if (key == "window")
      spec.window = n;
    else if (key == "obs_window")
      spec.obsWindow = n;
    else if (key == "kernel")
      spec.kernel = n;
  }
  if (spec.budget && spec.ratio)
    return err("KV policy '" + text + "': give budget or ratio, not both");
  if (spec.ratio && *spec.ratio < 1)
    return err("KV policy '" + text + "': ratio must be >= 1");
  if ((spec.kind == PolicyKind::SnapKV || spec.kind == PolicyKind::SnapStream) &&
      !spec.budget && !spec.ratio)
    return err("KV policy '" + text + "': " + name +
               " needs budget=N or ratio=R");
  if (spec.kind == PolicyKind::Streaming && !spec.window)
    return err("KV policy '" + text + "': streaming needs window=N");
  return spec;
}

std::string PolicySpec::str() const {
  std::string s = policyKindName(kind).str();
  std::string sep = ":";
  auto add = [&](StringRef key, const std::optional<int64_t> &v) {
    if (v) {
      s += sep + key.str() + "=" + std::to_string(*v);
      sep = ",";
    }
  };
  add("budget", budget);
  add("ratio", ratio);
  add("sinks", sinks);
  add("recent", recent);
  add("window", window);
  add("obs_window", obsWindow);
  add("kernel", kernel);
  if (pool)
    s += sep + "pool=" + *pool;
  return s;
}

llvm::Expected<ResolvedPolicy> snapflow::kv::resolve(const PolicySpec &spec,
                                                     int64_t context) {
  ResolvedPolicy r;
  r.kind = spec.kind;
  if (context <= 0)
    return err("context must be > 0 tokens");
  switch (spec.kind) {
  case PolicyKind::Full:
    r.slots = context;
    return r;
  case PolicyKind::Streaming:
    r.sinks = spec.sinks.value_or(kDefaultSinks);
    r.recent = *spec.window;
    r.slots = r.sinks + r.recent;
    if (r.recent <= 0)
      return err("streaming window must be > 0");
    if (r.slots > context)
      return err(llvm::formatv("streaming sinks + window = {0} tokens exceeds "
                               "the context of {1} tokens",
                               r.slots, context));
    return r;
  case PolicyKind::SnapKV:
  case PolicyKind::SnapStream:
    break;
  }
  int64_t budget = spec.budget ? *spec.budget
                               : (context + *spec.ratio - 1) / *spec.ratio;
  if (budget <= 0)
    return err("KV budget must be > 0");
  if (budget > context)
    return err(llvm::formatv("KV budget of {0} tokens exceeds the context of "
                             "{1} tokens; use --kv full for contexts that fit",
                             budget, context));
  r.slots = budget;
  r.obsWindow = spec.obsWindow.value_or(std::min(kDefaultObsWindow, budget / 2));
  r.kernel = spec.kernel.value_or(kDefaultKernel);
  r.maxPool = spec.pool.value_or("max") == "max";
  if (r.kernel <= 0 || r.kernel % 2 == 0)
    return err(llvm::formatv("pooling kernel must be a positive odd number, "
                             "got {0}",
                             r.kernel));
  if (r.obsWindow <= 0)
    return err("obs_window must be > 0");
  if (spec.kind == PolicyKind::SnapKV) {
    r.recent = r.obsWindow;
    if (r.obsWindow >= budget)
      return err(llvm::formatv("snapkv obs_window ({0}) must be smaller than "
                               "the budget ({1})",
                               r.obsWindow, budget));
    return r;
  }
  r.sinks = spec.sinks.value_or(kDefaultSinks);
  r.recent = spec.recent.value_or(
      std::max(r.obsWindow, std::min(kDefaultRecentCap, budget / 4)));
  if (r.sinks + r.recent > budget)
    return err(llvm::formatv("snapstream sinks + recent ({0} + {1}) exceeds "
                             "the budget ({2})",
                             r.sinks, r.recent, budget));
  if (r.obsWindow > r.recent)
    return err(llvm::formatv("snapstream obs_window ({0}) must not exceed "
                             "recent ({1})",
                             r.obsWindow, r.recent));
  return r;
}

std::string snapflow::kv::describePolicies() {
  return "  full        keep every token (slots = context)\n"
         "  streaming   StreamingLLM sinks + recent window\n"
         "              keys: sinks (default 4), window (required)\n"
         "  snapkv      SnapKV selection at the end of prefill\n"
         "              keys: budget | ratio (context/ratio), obs_window "
         "(min(32, budget/2)), kernel (7), pool (max|avg, max)\n"
         "  snapstream  SnapKV at prefill + sinks and a ring buffer at decode\n"
         "              keys: budget | ratio, sinks (4), recent (max(obs_window, "
         "min(4096, budget/4))), obs_window (min(32, budget/2)), kernel (7), "
         "pool (max)\n"
         "  e.g. snapstream:ratio=4   "
         "snapstream:budget=32768,sinks=4,recent=4096,obs_window=32,kernel=7,"
         "pool=max\n";
}
