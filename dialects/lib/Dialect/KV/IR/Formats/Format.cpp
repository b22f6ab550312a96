//===- Format.cpp - What every KV element format shares -------------------===//
//
// Command-line format strings (`kivi2`, `kivi:bits=2,residual=32`) are a
// spelling of the format attributes, parsed like policy strings. Also the
// byte and FLOP helpers every op that writes or reads a cache's slots uses,
// so a format changes them in one place.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

namespace {
template <typename T> struct Tag { using type = T; };

/// Calls `f(Tag<Attr>())` for every attribute of the dialect that is a
/// format, in definition order.
template <typename Attr, typename F> void visitIfFormat(F &f) {
  if constexpr (std::is_base_of_v<KVFormatAttrInterface::Trait<Attr>, Attr>)
    f(Tag<Attr>());
}
template <typename... Attrs, typename F> void forEachFormatOf(F &&f) {
  (visitIfFormat<Attrs>(f), ...);
}
template <typename F> void forEachFormat(F &&f) {
  forEachFormatOf<
#define GET_ATTRDEF_LIST
#include "snapflow/Dialect/KV/IR/KVAttrs.cpp.inc"
      >(std::forward<F>(f));
}

/// Shorthands of `--kv-format`, and the spelling each stands for.
struct Shorthand {
  const char *name, *spelling, *what;
};
constexpr Shorthand kShorthands[] = {
    {"kivi2", "kivi:bits=2", "KIVI at 2 bits"},
    {"kivi4", "kivi:bits=4", "KIVI at 4 bits"},
    {"quarot4", "quarot:bits=4", "QuaRot at 4 bits"},
};

std::vector<std::string> formatNames() {
  std::vector<std::string> names = {"bf16"};
  forEachFormat([&](auto tag) {
    names.push_back(decltype(tag)::type::getMnemonic().str());
  });
  for (const Shorthand &s : kShorthands)
    names.push_back(s.name);
  return names;
}

std::optional<std::string> formatUsage(StringRef name) {
  std::optional<std::string> usage;
  forEachFormat([&](auto tag) {
    using Attr = typename decltype(tag)::type;
    if (Attr::getMnemonic() != name)
      return;
    StringRef text = Attr::getUsage();
    size_t keys = text.find("keys:");
    usage = keys == StringRef::npos ? std::string("it takes no keys")
                                    : text.drop_front(keys).str();
  });
  return usage;
}
} // namespace

CacheShape snapflow::kv::getCacheShape(Type cache) {
  auto c = cast<KVCacheTypeInterface>(cache);
  int64_t bits = c.getDtype().getIntOrFloatBitWidth();
  if (auto gqa = dyn_cast<CacheType>(cache)) {
    int64_t width = gqa.getKvHeads() * gqa.getHeadDim();
    return {width, width, gqa.getHeadDim(), 2 * gqa.getKvHeads(), bits};
  }
  auto mla = cast<LatentCacheType>(cache);
  return {mla.getLatentDim() + mla.getRopeDim(), 0, mla.getLatentDim(), 1,
          bits};
}

llvm::Expected<KVFormatAttrInterface>
snapflow::kv::parseFormat(MLIRContext *context, StringRef text) {
  StringRef trimmed = text.trim();
  if (trimmed == "bf16")
    return KVFormatAttrInterface();
  // A shorthand stands for its spelling, and takes more keys after it
  // (`kivi2:group=16` is `kivi:bits=2,group=16`).
  std::string spelling = trimmed.str();
  auto [head, keys] = trimmed.split(':');
  for (const Shorthand &s : kShorthands)
    if (head.trim() == s.name)
      spelling = keys.trim().empty() ? std::string(s.spelling)
                                     : (s.spelling + ("," + keys.trim())).str();
  auto attr = detail::parseSpelling(context, spelling, "KV format",
                                    formatNames(), formatUsage);
  if (!attr)
    return attr.takeError();
  auto format = dyn_cast<KVFormatAttrInterface>(*attr);
  if (!format)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "KV format '" + text +
                                       "': not a KV format");
  return format.resolve();
}

std::string snapflow::kv::describeFormats() {
  std::string out = llvm::formatv("  {0,-13} {1}\n", "bf16",
                                  "elements at the cache's dtype (default)");
  forEachFormat([&](auto tag) {
    using Attr = typename decltype(tag)::type;
    SmallVector<StringRef> lines;
    Attr::getUsage().split(lines, '\n');
    for (auto [i, line] : llvm::enumerate(lines))
      out += llvm::formatv("  {0,-13} {1}\n",
                           i == 0 ? Attr::getMnemonic() : StringRef(), line);
  });
  for (const Shorthand &s : kShorthands)
    out += llvm::formatv("  {0,-13} {1}: {2}\n", s.name, s.what, s.spelling);
  return out;
}

/// Tokens of `tokens` written that land in the residual at the dtype.
static int64_t residualOf(KVCacheTypeInterface cache, int64_t tokens) {
  return std::min(cache.getResidualSlots(), tokens);
}

CheckedInt snapflow::kv::getWriteBytes(Type type, int64_t tokens,
                                       bool prefill) {
  auto cache = cast<KVCacheTypeInterface>(type);
  KVFormatAttrInterface format = cache.getFormat();
  if (!format || !format.quantizesOnWrite(prefill))
    return cache.getFullBytesPerTokenPerLayer() * tokens * cache.getBatch();
  int64_t residual = residualOf(cache, tokens);
  return (cache.getFullBytesPerTokenPerLayer() * residual +
          cache.getBytesPerTokenPerLayer() * (tokens - residual)) *
         cache.getBatch();
}

CheckedInt snapflow::kv::getWriteFlops(Type type, int64_t tokens,
                                       bool prefill) {
  auto cache = cast<KVCacheTypeInterface>(type);
  KVFormatAttrInterface format = cache.getFormat();
  if (!format || !format.quantizesOnWrite(prefill))
    return 0;
  return CheckedInt(tokens - residualOf(cache, tokens)) *
         cache.getValuesPerToken() * format.getQuantizeOps() *
         cache.getBatch();
}

CheckedInt snapflow::kv::getReadFlops(Type type, int64_t tokens) {
  auto cache = cast<KVCacheTypeInterface>(type);
  KVFormatAttrInterface format = cache.getFormat();
  if (!format)
    return 0;
  return CheckedInt(tokens - residualOf(cache, tokens)) *
         cache.getValuesPerToken() * format.getDequantizeOps() *
         cache.getBatch();
}
