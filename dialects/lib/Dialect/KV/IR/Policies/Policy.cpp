//===- Policy.cpp - What every KV policy shares ---------------------------===//
//
// Command-line policy strings are a spelling of the policy attributes:
// `snapstream:budget=8,sinks=2` is `#kv.snapstream<budget = 8, sinks = 2>`.
// Parsing goes through MLIR's attribute parser, so every policy the dialect
// defines is reachable by its mnemonic, with the keys and checks of its ODS
// parameters and verifier, and no policy needs parsing code of its own.
// Also the SnapKV-style scored selection several policies emit.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Support/Nearest.h"

#include "../KVAttrList.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

namespace {
llvm::Error policyError(StringRef text, const Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "KV policy '" + text + "': " + msg);
}
} // namespace

std::string snapflow::kv::policyLabel(Attribute policy) {
  std::string text;
  llvm::raw_string_ostream os(text);
  policy.print(os);
  // "#kv.name<k = v, k = v>" -> "name:k=v,k=v"
  StringRef rest = StringRef(text);
  rest.consume_front("#kv.");
  auto [name, params] = rest.split('<');
  if (params.empty())
    return name.str();
  params.consume_back(">");
  SmallVector<StringRef> items;
  params.split(items, ',');
  std::string label = name.str() + ":";
  for (auto [i, item] : llvm::enumerate(items)) {
    auto [key, value] = item.split('=');
    label += (i ? "," : "") + key.trim().str() + "=" + value.trim().str();
  }
  return label;
}

llvm::Expected<Attribute> snapflow::kv::detail::parseSpelling(
    MLIRContext *context, StringRef text, StringRef what,
    ArrayRef<std::string> names,
    function_ref<std::optional<std::string>(StringRef)> usageOf) {
  context->getOrLoadDialect<KVDialect>();
  auto spellingError = [&](const Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   what + " '" + text + "': " + msg);
  };
  StringRef trimmed = text.trim();
  auto [name, rest] = trimmed.split(':');
  name = name.trim();
  std::optional<std::string> usage = usageOf(name);
  if (!usage)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "unknown " + what + " '" + name + "'" + didYouMean(name, names) +
            " (expected " + llvm::join(names, ", ") + "; see `snapflow list`)");
  if (trimmed.contains(':') && rest.trim().empty())
    return spellingError("empty parameter list");
  // name:k=v,k=v  ->  #kv.name<k = v, k = v>; a bare name is the
  // attribute with every parameter left open (`<>`) when it has any.
  std::string attrText = "#kv." + name.str();
  // Each key=value with where ` = value` lies in attrText, to name the key
  // whose value the attribute parser stops at.
  struct Field {
    std::string key, value;
    size_t begin, end;
  };
  std::vector<Field> fields;
  if (!trimmed.contains(':')) {
    // An attribute with parameters cannot be written bare; probe quietly.
    ScopedDiagnosticHandler quiet(context,
                                  [](Diagnostic &) { return success(); });
    if (!mlir::parseAttribute(attrText, context))
      attrText += "<>";
  } else {
    SmallVector<StringRef> items;
    rest.split(items, ',');
    attrText += "<";
    for (StringRef item : items) {
      auto [key, value] = item.trim().split('=');
      key = key.trim();
      value = value.trim();
      if (!item.contains('=') || key.empty() || value.empty() ||
          !llvm::all_of(key,
                        [](char c) { return llvm::isAlnum(c) || c == '_'; }))
        return spellingError("expected key=value, got '" + item.trim() + "'");
      // MLIR's integer parser wraps a literal in [2^63, 2^64): a budget of
      // 2^64 - 1 was refused as "got -1" (R18). Say it as given.
      StringRef magnitude = value;
      magnitude.consume_front("-");
      if (!magnitude.empty() && llvm::all_of(magnitude, llvm::isDigit)) {
        int64_t n;
        if (value.getAsInteger(10, n))
          return spellingError("value '" + value + "' for key '" + key +
                               "' is past the largest number a key takes (" +
                               Twine(INT64_MAX) + ")");
      }
      if (!fields.empty())
        attrText += ", ";
      attrText += key.str();
      // The parser places an error in a value at the end of the token
      // before it, so the range starts after the key: ` = value`.
      fields.push_back({key.str(), value.str(), attrText.size(), 0});
      attrText += (" = " + value).str();
      fields.back().end = attrText.size();
    }
    attrText += ">";
  }
  std::string diagnostics;
  std::optional<size_t> column; // 1-based, of the first diagnostic
  Attribute attr;
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &d) {
      if (diagnostics.empty()) {
        diagnostics = d.str();
        if (auto loc = dyn_cast<FileLineColLoc>(d.getLocation()))
          column = loc.getColumn();
      }
      return success();
    });
    size_t consumed = 0;
    attr = mlir::parseAttribute(attrText, context, Type(), &consumed);
    if (attr && consumed != attrText.size()) {
      attr = {};
      diagnostics = "unexpected text after the parameters";
    }
  }
  if (!attr) {
    // The attribute parser names a key it does not know this way; say it in
    // the user's terms, with the keys the attribute takes.
    StringRef unknown = "duplicate or unknown struct parameter name: ";
    size_t at = StringRef(diagnostics).find(unknown);
    if (at != StringRef::npos) {
      StringRef key = StringRef(diagnostics).drop_front(at + unknown.size());
      std::string pattern = (key + " = ").str();
      bool twice = StringRef(attrText).find(pattern) !=
                   StringRef(attrText).rfind(pattern);
      return spellingError(twice ? "key '" + key + "' given twice"
                                 : "unknown key '" + key + "' for " + name +
                                       " (" + *usage + ")");
    }
    // A syntax error inside a value: say which key's value, in the user's
    // terms (the parser would say "expected '>'" for `budget=abc`).
    if (column)
      for (const Field &field : fields)
        if (*column - 1 >= field.begin && *column - 1 < field.end)
          return spellingError("bad value '" + field.value + "' for key '" +
                               field.key + "' (" + *usage + ")");
    // A bare name whose attribute has a required key.
    if (!trimmed.contains(':') &&
        (StringRef(diagnostics).contains("expected valid keyword") ||
         StringRef(diagnostics).contains("missing required parameter")))
      return spellingError("needs key=value parameters (" + *usage + ")");
    return spellingError(diagnostics.empty() ? "cannot parse" : diagnostics);
  }
  // Every key given must have set a parameter: an attribute without
  // parameters (#kv.full) ignores a trailing `<...>`, so check its label.
  std::string label = policyLabel(attr);
  for (const Field &field : fields)
    if (StringRef(label).find(":" + field.key + "=") == StringRef::npos &&
        StringRef(label).find("," + field.key + "=") == StringRef::npos)
      return spellingError("unknown key '" + field.key + "' for " + name +
                           " (" + *usage + ")");
  return attr;
}

llvm::Expected<KVPolicyAttrInterface>
snapflow::kv::parsePolicy(MLIRContext *context, StringRef text) {
  auto attr = detail::parseSpelling(
      context, text, "KV policy", detail::mnemonicsOf<KVPolicyAttrInterface>(),
      detail::keysOf<KVPolicyAttrInterface>);
  if (!attr)
    return attr.takeError();
  auto policy = dyn_cast<KVPolicyAttrInterface>(*attr);
  if (!policy)
    return policyError(text, "not a KV policy");
  return policy;
}

llvm::Expected<KVPolicyAttrInterface>
snapflow::kv::resolvePolicy(MLIRContext *context, StringRef text,
                            int64_t contextTokens) {
  auto policy = parsePolicy(context, text);
  if (!policy)
    return policy.takeError();
  std::string diagnostics;
  KVPolicyAttrInterface resolved;
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &d) {
      if (diagnostics.empty())
        diagnostics = d.str();
      return success();
    });
    resolved = policy->resolveFor(contextTokens, [&] {
      return mlir::emitError(UnknownLoc::get(context));
    });
  }
  if (!resolved)
    return policyError(text, diagnostics);
  return resolved;
}

std::string snapflow::kv::describePolicies() {
  std::string out = detail::usageLines<KVPolicyAttrInterface>();
  out += "  e.g. snapstream:ratio=4   snapstream:budget=32768,sinks=4,"
         "recent=4096,obs_window=32,kernel=7,pool=max\n";
  return out;
}

/// The lines of one method's published rows: each row's score against
/// the uncompressed one, then the source under the rows that share it.
template <typename Attr> static std::string accuracyLines() {
  ArrayRef<PublishedAccuracy> rows = Attr::getPublishedAccuracy();
  std::string out;
  // `full` is what every row compares against.
  if (rows.empty())
    return llvm::formatv("  {0,-13} {1}\n", Attr::getMnemonic(),
                         Attr::getMnemonic() == "full"
                             ? "the uncompressed baseline of every row"
                             : "no published reference")
        .str();
  for (auto [i, r] : llvm::enumerate(rows)) {
    double delta = r.score - r.full;
    out += llvm::formatv("  {0,-13} {1}, {2}, {3}: {4:f2} against {5:f2} "
                         "uncompressed ({6}{7:f2})\n",
                         i == 0 ? Attr::getMnemonic() : StringRef(),
                         r.benchmark, r.model, r.setting, r.score, r.full,
                         delta < 0 ? "-" : "+", std::abs(delta));
    if (i + 1 == rows.size() || StringRef(rows[i + 1].source) != r.source)
      out += llvm::formatv("  {0,-13}   source: {1}\n", "", r.source);
  }
  return out;
}

std::string snapflow::kv::describePublishedAccuracy() {
  std::string out;
  detail::forEachAttr<KVPolicyAttrInterface>(
      [&](auto tag) { out += accuracyLines<typename decltype(tag)::type>(); });
  out += llvm::formatv("  {0,-13} the uncompressed baseline of every row\n",
                       "bf16");
  detail::forEachAttr<KVFormatAttrInterface>(
      [&](auto tag) { out += accuracyLines<typename decltype(tag)::type>(); });
  return out;
}

LogicalResult
snapflow::kv::verifyBudgetKeys(function_ref<InFlightDiagnostic()> emitError,
                               StringRef policy, std::optional<int64_t> budget,
                               std::optional<int64_t> ratio) {
  if (budget.has_value() == ratio.has_value())
    return emitError() << policy << " needs budget=N or ratio=R, not "
                       << (budget ? "both" : "neither");
  if (budget && *budget <= 0)
    return emitError() << policy << " budget must be > 0, got " << *budget;
  if (ratio && *ratio < 1)
    return emitError() << policy << " ratio must be >= 1, got " << *ratio;
  return success();
}

int64_t snapflow::kv::budgetSlots(std::optional<int64_t> budget,
                                  std::optional<int64_t> ratio,
                                  int64_t contextTokens) {
  if (budget)
    return *budget;
  return ceilDiv(CheckedInt(contextTokens), *ratio).get().value_or(0);
}

bool snapflow::kv::checkSelectionBudget(
    StringRef policy, int64_t contextTokens, int64_t budget,
    function_ref<InFlightDiagnostic()> emitError) {
  if (contextTokens <= 0) {
    emitError() << "context must be > 0 tokens, got " << contextTokens;
    return false;
  }
  if (budget > contextTokens) {
    emitError() << "KV budget of " << budget
                << " tokens exceeds the context of " << contextTokens
                << " tokens; use --kv full for contexts that fit";
    return false;
  }
  if (budget < 2) {
    emitError() << "KV budget of " << budget << " token(s) is too small for "
                << policy
                << ": it keeps an observation window and chooses at least "
                   "one token";
    return false;
  }
  return true;
}

int64_t
snapflow::kv::resolvePoolKernel(StringRef policy, std::optional<int64_t> kernel,
                                int64_t defaultKernel, int64_t budget,
                                function_ref<InFlightDiagnostic()> emitError) {
  if (!kernel) {
    int64_t widest = budget % 2 == 1 ? budget : budget - 1;
    return std::max<int64_t>(1, std::min(defaultKernel, widest));
  }
  if (*kernel > budget) {
    emitError() << policy << " kernel (" << *kernel
                << ") must be at most the budget (" << budget
                << " tokens): it pools the scores of a prompt that long";
    return -1;
  }
  return *kernel;
}

Selection snapflow::kv::buildScoredSelection(OpBuilder &b, Location loc,
                                             const SelectionInputs &in,
                                             int64_t obsWindow, int64_t kernel,
                                             PoolKind pool, int64_t sinks,
                                             int64_t recent) {
  auto scoreType =
      RankedTensorType::get({in.batch, in.groups, in.prompt}, b.getF32Type());
  Value scores = b.create<ScoreOp>(loc, scoreType, in.queries, in.keys,
                                   in.keyUp, b.getI64IntegerAttr(in.heads),
                                   b.getI64IntegerAttr(in.groups),
                                   b.getI64IntegerAttr(obsWindow));
  Value pooled = scores;
  if (kernel > 1)
    pooled =
        b.create<PoolOp>(loc, scoreType, scores, b.getI64IntegerAttr(kernel),
                         PoolKindAttr::get(b.getContext(), pool));
  int64_t k = in.slots - sinks - recent;
  auto indexType =
      RankedTensorType::get({in.batch, in.groups, k}, b.getI32Type());
  Value indices =
      b.create<TopKOp>(loc, indexType, pooled, b.getI64IntegerAttr(k),
                       b.getI64IntegerAttr(sinks), b.getI64IntegerAttr(recent));
  return {indices, scores};
}

Value snapflow::kv::buildEvict(OpBuilder &b, Location loc,
                               const UpkeepInputs &in) {
  return b.create<EvictOp>(loc, in.cache.getType(), in.cache, in.probs,
                           b.getI64IntegerAttr(in.layer));
}

int64_t snapflow::kv::getKeyWidth(Type cache) {
  if (auto gqa = dyn_cast<CacheType>(cache))
    return gqa.getKvHeads() * gqa.getHeadDim();
  return cast<KVCacheTypeInterface>(cache).getValuesPerToken();
}

int64_t snapflow::kv::getGroups(Type cache) {
  if (auto gqa = dyn_cast<CacheType>(cache))
    return gqa.getKvHeads();
  return 1;
}
