//===- OptionValues.cpp - How an option's value is read -------------------===//

#include "snapflow/Driver/OptionValues.h"

#include "snapflow/Driver/Errors.h"
#include "snapflow/Support/CheckedInt.h"
#include "snapflow/Support/EnumNames.h"
#include "snapflow/Support/Nearest.h"
#include "snapflow/Support/Number.h"

#include "snapflow/Dialect/LLM/Transforms/Mappings.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <vector>

using namespace snapflow;
using namespace snapflow::driver;
using llvm::StringRef;

namespace {
/// `what: expected a, b or c, got 'x'` (and the nearest name), or the
/// enumerator of E among the first `count` named `text`.
template <typename E, typename NameFn>
llvm::Expected<E> choiceOf(StringRef text, StringRef what, int count,
                           NameFn name) {
  if (std::optional<E> e = enumByName<E>(text, count, name))
    return *e;
  std::vector<std::string> names;
  for (int k = 0; k < count; ++k)
    names.push_back(StringRef(name(static_cast<E>(k))).str());
  std::string expected;
  for (size_t i = 0; i < names.size(); ++i)
    expected += (i == 0                  ? ""
                 : i + 1 == names.size() ? " or "
                                         : ", ") +
                names[i];
  return makeError(what + ": expected " + expected + ", got '" + text + "'" +
                   didYouMean(text, names));
}
/// choiceOf, kept as its name (an option the pipeline takes as text).
template <typename E, typename NameFn>
llvm::Expected<std::string> choiceName(StringRef text, StringRef what,
                                       int count, NameFn name) {
  auto e = choiceOf<E>(text, what, count, name);
  if (!e)
    return e.takeError();
  return name(*e).str();
}

/// A whole number of type T, or `what must be DESCRIBED, got 'text'`.
template <typename T>
llvm::Expected<T> wholeNumber(StringRef text, StringRef what,
                              StringRef described) {
  T n;
  if (text.trim().getAsInteger(10, n))
    return makeError(what + " must be " + described + ", got '" + text + "'");
  return n;
}
} // namespace

llvm::Expected<int64_t> snapflow::driver::parseTokens(StringRef s,
                                                      StringRef what) {
  StringRef digits = s.trim();
  int64_t scale = 1;
  if (digits.ends_with_insensitive("k")) {
    scale = 1024;
    digits = digits.drop_back();
  } else if (digits.ends_with_insensitive("m")) {
    scale = 1024 * 1024;
    digits = digits.drop_back();
  }
  int64_t n;
  if (digits.getAsInteger(10, n) || n <= 0)
    return makeError(what +
                     ": expected a positive number of tokens like 8192, 8k "
                     "or 1M, got '" +
                     s + "'");
  std::optional<int64_t> tokens = (CheckedInt(n) * scale).get();
  if (!tokens)
    return makeError(what + ": '" + s + "' tokens exceeds a 64-bit count");
  return *tokens;
}

llvm::Expected<std::string> snapflow::driver::parseText(StringRef text,
                                                        StringRef) {
  return text.str();
}

llvm::Expected<int64_t> snapflow::driver::parseBatch(StringRef text,
                                                     StringRef what) {
  if (text == "max")
    return kBatchMax;
  int64_t n;
  if (text.getAsInteger(10, n) || n < 1)
    return makeError(what + " must be a number of slots >= 1 or max, got '" +
                     text + "'");
  return n;
}

bool snapflow::driver::isBatchSet(StringRef text) {
  return text.contains(',') || text == "auto";
}

int64_t BatchSet::largest() const {
  int64_t most = 0;
  for (int64_t b : sizes)
    if (b == kBatchMax)
      return kBatchMax;
    else
      most = std::max(most, b);
  return autoPick ? kBatchMax : most;
}

llvm::Expected<BatchSet> snapflow::driver::parseBatchSet(StringRef text,
                                                         StringRef what) {
  BatchSet set;
  if (text == "auto") {
    set.autoPick = true;
    return set;
  }
  llvm::SmallVector<StringRef> items;
  text.split(items, ',');
  for (StringRef item : items) {
    auto b = parseBatch(item.trim(), what);
    if (!b)
      return b.takeError();
    if (llvm::is_contained(set.sizes, *b))
      return makeError(what + " names batch " + item.trim() + " twice in '" +
                       text + "'");
    set.sizes.push_back(*b);
  }
  return set;
}

llvm::Expected<int64_t> snapflow::driver::parseAtLeastOne(StringRef text,
                                                          StringRef what) {
  int64_t n;
  if (text.getAsInteger(10, n))
    return makeError(what + " must be a number >= 1, got '" + text + "'");
  if (n < 1)
    return makeError(what + " must be >= 1, got " + text);
  return n;
}

llvm::Expected<std::optional<models::WeightDtype>>
snapflow::driver::parseWeightsDtype(StringRef text, StringRef what) {
  if (auto d = models::parseWeightDtype(text))
    return d;
  return makeError(what + " must be bf16 or fp8, got '" + text + "'");
}

llvm::Expected<int64_t> snapflow::driver::parseInteger(StringRef text,
                                                       StringRef what) {
  return wholeNumber<int64_t>(text, what, "a whole number");
}

llvm::Expected<uint64_t> snapflow::driver::parseUnsigned(StringRef text,
                                                         StringRef what) {
  return wholeNumber<uint64_t>(text, what, "a whole number >= 0");
}

llvm::Expected<double> snapflow::driver::parseFinite(StringRef text,
                                                     StringRef what) {
  // An empty value read as 0 (`--length-spread ''` ran with no spread,
  // R21); nan and inf are no setting.
  double v;
  if (text.trim().empty() || text.trim().getAsDouble(v) || !std::isfinite(v))
    return makeError(what + " must be a finite number, got '" + text + "'");
  return v;
}

llvm::Expected<int64_t> snapflow::driver::parsePrefillChunk(StringRef text,
                                                            StringRef what) {
  if (text == "auto")
    return kPrefillChunkAuto;
  auto n = parseTokens(text, what);
  if (n)
    return *n;
  llvm::consumeError(n.takeError());
  return makeError(what +
                   " must be a number of tokens >= 1 (8192, 8k) or auto, "
                   "got '" +
                   text + "'");
}

llvm::Expected<arch::Phase> snapflow::driver::parsePhaseValue(StringRef text,
                                                              StringRef what) {
  if (std::optional<arch::Phase> p = arch::parsePhase(text))
    return *p;
  return makeError(what + " must be decode or prefill, got '" + text + "'");
}

llvm::Expected<std::string>
snapflow::driver::parseMlaCacheName(StringRef text, StringRef what) {
  return choiceName<llm::MlaCache>(text, what, llm::kNumMlaCaches,
                                   llm::mlaCacheName);
}

llvm::Expected<std::string> snapflow::driver::parseMoeName(StringRef text,
                                                           StringRef what) {
  return choiceName<llm::MoeMapping>(text, what, llm::kNumMoeMappings,
                                     llm::moeMappingName);
}

llvm::Expected<sim::serving::TraceFormat>
snapflow::driver::parseTraceFormatValue(StringRef text, StringRef what) {
  using sim::serving::TraceFormat;
  return choiceOf<TraceFormat>(text, what, sim::serving::kNumTraceFormats,
                               sim::serving::traceFormatName);
}

llvm::Expected<sim::serving::Overlong>
snapflow::driver::parseOverlongValue(StringRef text, StringRef what) {
  using sim::serving::Overlong;
  return choiceOf<Overlong>(text, what, static_cast<int>(Overlong::Clip) + 1,
                            sim::serving::overlongName);
}

llvm::Expected<sim::serving::Schedule>
snapflow::driver::parseScheduleValue(StringRef text, StringRef what) {
  using sim::serving::Schedule;
  return choiceOf<Schedule>(text, what, static_cast<int>(Schedule::Chunked) + 1,
                            sim::serving::scheduleName);
}

llvm::Expected<sim::serving::CachePolicy>
snapflow::driver::parseCachePolicyValue(StringRef text, StringRef what) {
  using sim::serving::CachePolicy;
  return choiceOf<CachePolicy>(text, what,
                               static_cast<int>(CachePolicy::Prewarm) + 1,
                               sim::serving::cachePolicyName);
}

llvm::Expected<sim::serving::Router>
snapflow::driver::parseRouterValue(StringRef text, StringRef what) {
  using sim::serving::Router;
  return choiceOf<Router>(text, what, static_cast<int>(Router::PrefixAware) + 1,
                          sim::serving::routerName);
}

llvm::Expected<NodeSplit> snapflow::driver::parseNodeSplit(StringRef text,
                                                           StringRef what) {
  auto [p, d] = text.split(':');
  NodeSplit split;
  if (p.trim().getAsInteger(10, split.prefill) ||
      d.trim().getAsInteger(10, split.decode) || split.prefill < 1 ||
      split.decode < 1 || split.prefill > sim::serving::limits::kMaxNodes ||
      split.decode > sim::serving::limits::kMaxNodes)
    return makeError(llvm::formatv("{0} must be P:D, prefill and decode "
                                   "nodes from 1 to {1} each (3:1), got '{2}'",
                                   what, sim::serving::limits::kMaxNodes,
                                   text));
  return split;
}

std::string snapflow::driver::optionText(const std::string &v) { return v; }
std::string snapflow::driver::optionText(int64_t v) {
  return std::to_string(v);
}
std::string snapflow::driver::optionText(uint64_t v) {
  return std::to_string(v);
}
std::string snapflow::driver::optionText(double v) { return shortestText(v); }
std::string snapflow::driver::optionText(bool v) {
  return v ? "true" : "false";
}
std::string snapflow::driver::optionText(arch::Phase v) {
  return arch::phaseName(v).str();
}
std::string snapflow::driver::optionText(sim::serving::TraceFormat v) {
  return sim::serving::traceFormatName(v).str();
}
std::string snapflow::driver::optionText(sim::serving::Overlong v) {
  return sim::serving::overlongName(v).str();
}
std::string snapflow::driver::optionText(sim::serving::Schedule v) {
  return sim::serving::scheduleName(v).str();
}
std::string snapflow::driver::optionText(sim::serving::CachePolicy v) {
  return sim::serving::cachePolicyName(v).str();
}
std::string snapflow::driver::optionText(sim::serving::Router v) {
  return sim::serving::routerName(v).str();
}
