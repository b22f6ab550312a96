//===- Format.cpp - What every KV element format shares -------------------===//
//
// Command-line format strings (`kivi2`, `kivi:bits=2,residual=32`) are a
// spelling of the format attributes, parsed like policy strings. Also the
// byte and FLOP helpers every op that writes or reads a cache's slots uses,
// so a format changes them in one place.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

#include "../KVAttrList.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

namespace {
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
  for (std::string &name : kv::detail::mnemonicsOf<KVFormatAttrInterface>())
    names.push_back(std::move(name));
  for (const Shorthand &s : kShorthands)
    names.push_back(s.name);
  return names;
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
  auto attr =
      kv::detail::parseSpelling(context, spelling, "KV format", formatNames(),
                                kv::detail::keysOf<KVFormatAttrInterface>);
  if (!attr)
    return attr.takeError();
  auto format = dyn_cast<KVFormatAttrInterface>(*attr);
  if (!format)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "KV format '" + text + "': not a KV format");
  return format.resolve();
}

std::string snapflow::kv::describeFormats() {
  std::string out = llvm::formatv("  {0,-13} {1}\n", "bf16",
                                  "elements at the cache's dtype (default)");
  out += kv::detail::usageLines<KVFormatAttrInterface>();
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
         cache.getValuesPerToken() * format.getQuantizeOps() * cache.getBatch();
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
