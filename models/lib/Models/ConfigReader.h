//===- ConfigReader.h - Reading a config.json's fields ---------*- C++ -*-===//
//
// Private to the config reader and the families' readers
// (models/lib/Models/Families/): a located reader of typed fields, the
// ranges every count is held to, and the readers of what several families
// share (a GQA decoder's numbers, layer types, experts).
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_MODELS_CONFIGREADER_H
#define SNAPFLOW_MODELS_CONFIGREADER_H

#include "snapflow/Models/ModelConfig.h"
#include "snapflow/Support/Json.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <optional>
#include <set>
#include <string>

namespace snapflow {
namespace models {

using llvm::StringRef;

/// Reads typed fields from a config object, recording the first error with the
/// file, the line and column of the field (found in the text: llvm::json
/// keeps no positions) and the field name. Every count has a sane range
/// (docs/Models.md, "Limits"): a value outside it is refused where it is
/// read, so no product of config values downstream can wrap.
class FieldReader {
public:
  FieldReader(const llvm::json::Object &obj, StringRef text, StringRef origin)
      : obj(obj), text(text), origin(origin) {}
  /// A reader of the nested object `scope` of `parent`'s (its fields are
  /// named `scope.key` in errors and located after `"scope":`).
  FieldReader(const llvm::json::Object &obj, const FieldReader &parent,
              StringRef scope)
      : obj(obj), text(parent.text), origin(parent.origin),
        scope(scope.str() + "."), from(parent.positionOf(scope)) {}

  /// The value of `key`, noting that the family read it (a key of the
  /// config no reader asked for is one snapflow ignores: ModelConfig's
  /// ignoredKeys).
  const llvm::json::Value *get(StringRef key) {
    touched.insert(key.str());
    return obj.get(key);
  }

  /// A required integer in [lo, hi].
  int64_t integer(StringRef key, int64_t lo, int64_t hi) {
    const llvm::json::Value *v = get(key);
    if (!v)
      return fail(key, "missing field '" + name(key) + "' (integer)"), lo;
    return check(key, *v, lo, hi, lo);
  }
  /// An integer that may be absent or null (e.g. q_lora_rank: null), in
  /// [lo, hi] when present.
  int64_t optionalInteger(StringRef key, int64_t fallback, int64_t lo,
                          int64_t hi) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return fallback;
    return check(key, *v, lo, hi, fallback);
  }
  /// A finite number > 0, or `fallback` when absent.
  double positiveNumber(StringRef key, double fallback) {
    const llvm::json::Value *v = get(key);
    if (!v)
      return fallback;
    std::optional<double> d = v->getAsNumber();
    if (!d)
      return fail(key, "field '" + name(key) + "' must be a number"), fallback;
    if (!std::isfinite(*d) || *d <= 0)
      return fail(key, "field '" + name(key) +
                           "' must be a finite number > "
                           "0, got " +
                           llvm::formatv("{0}", *d).str()),
             fallback;
    return *d;
  }
  /// A string field that must be one of `allowed` (the first when absent).
  void oneOf(StringRef key, llvm::ArrayRef<StringRef> allowed) {
    const llvm::json::Value *v = get(key);
    if (!v)
      return;
    std::optional<StringRef> str = v->getAsString();
    if (str && llvm::is_contained(allowed, *str))
      return;
    std::string list;
    for (StringRef a : allowed)
      list += (list.empty() ? "" : ", ") + a.str();
    fail(key, "field '" + name(key) + "' is " +
                  (str ? "'" + str->str() + "'" : std::string("not a string")) +
                  "; snapflow models " + list);
  }
  /// The nested object `key` (an error when absent or not an object).
  const llvm::json::Object *object(StringRef key) {
    const llvm::json::Value *v = get(key);
    const llvm::json::Object *o = v ? v->getAsObject() : nullptr;
    if (!o)
      fail(key, "missing field '" + name(key) + "' (object)");
    return o;
  }
  /// `key` as errors name it (with its scope).
  std::string name(StringRef key) const { return scope + key.str(); }
  /// Where `"key":` is in the text (after this reader's scope), or npos.
  size_t positionOf(StringRef key) const {
    std::string quoted = ("\"" + key + "\"").str();
    for (size_t at = text.find(quoted, from); at != StringRef::npos;
         at = text.find(quoted, at + 1))
      if (text.drop_front(at + quoted.size()).ltrim().starts_with(":"))
        return at;
    return StringRef::npos;
  }
  bool boolean(StringRef key, bool fallback) {
    const llvm::json::Value *v = get(key);
    if (!v)
      return fallback;
    if (std::optional<bool> b = v->getAsBoolean())
      return *b;
    return fail(key, "field '" + name(key) + "' must be true or false"),
           fallback;
  }
  /// A finite number >= 0 (a soft-cap, a factor), or `fallback` when
  /// absent or null.
  double nonNegativeNumber(StringRef key, double fallback) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return fallback;
    std::optional<double> d = v->getAsNumber();
    if (!d || !std::isfinite(*d) || *d < 0)
      return fail(key, "field '" + name(key) +
                           "' must be a finite number "
                           ">= 0"),
             fallback;
    return *d;
  }
  /// A list of strings (absent or null: nullopt).
  std::optional<std::vector<std::string>> strings(StringRef key) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return std::nullopt;
    std::vector<std::string> out;
    if (const llvm::json::Array *a = v->getAsArray())
      for (const llvm::json::Value &e : *a)
        if (std::optional<StringRef> str = e.getAsString())
          out.push_back(str->str());
        else
          return fail(key, "field '" + name(key) +
                               "' must be a list of "
                               "strings"),
                 std::nullopt;
    else
      return fail(key, "field '" + name(key) + "' must be a list of strings"),
             std::nullopt;
    return out;
  }
  /// A list of integers in [lo, hi] (absent or null: nullopt).
  std::optional<std::vector<int64_t>> integers(StringRef key, int64_t lo,
                                               int64_t hi) {
    const llvm::json::Value *v = get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return std::nullopt;
    const llvm::json::Array *a = v->getAsArray();
    if (!a)
      return fail(key, "field '" + name(key) +
                           "' must be a list of "
                           "integers"),
             std::nullopt;
    std::vector<int64_t> out;
    for (const llvm::json::Value &e : *a) {
      std::optional<int64_t> i = snapflow::exactInteger(e);
      if (!i || *i < lo || *i > hi)
        return fail(key, llvm::formatv("field '{0}' holds {1}; snapflow "
                                       "accepts integers {2} to {3}",
                                       name(key), e, lo, hi)),
               std::nullopt;
      out.push_back(*i);
    }
    return out;
  }
  /// Records the first error, located at `key` when it is in the text.
  void fail(StringRef key, const std::string &msg) {
    if (error)
      return;
    error = locate(key) + ": error: " + msg;
  }

  const llvm::json::Object &obj;
  StringRef text, origin;
  std::string scope; ///< "block_decoder." for a nested object's fields
  size_t from = 0;   ///< where the scope's object starts in the text
  std::optional<std::string> error;
  /// Keys of `obj` read (the scope's, for a nested reader).
  std::set<std::string> touched;

private:
  int64_t check(StringRef key, const llvm::json::Value &v, int64_t lo,
                int64_t hi, int64_t fallback) {
    // getAsInteger accepts only exact integers in the int64_t range; a
    // double such as 1e15 is "not an integer" here, which is right: a count
    // written as a float is a mistake.
    // (exactInteger: also past 2^63, where LLVM's own cast is undefined.)
    std::optional<int64_t> i = snapflow::exactInteger(v);
    if (!i) {
      std::optional<double> d = v.getAsNumber();
      if (d && std::isfinite(*d) && *d == std::floor(*d))
        return fail(key, llvm::formatv("field '{0}' is {1}; snapflow accepts "
                                       "{2} to {3}",
                                       name(key), v, lo, hi)),
               fallback;
      return fail(key, "field '" + name(key) + "' must be an integer"),
             fallback;
    }
    if (*i < lo || *i > hi)
      return fail(key, llvm::formatv("field '{0}' is {1}; snapflow accepts "
                                     "{2} to {3}",
                                     name(key), *i, lo, hi)),
             fallback;
    return *i;
  }

  /// "origin:line:col" of the first `"key":` in the text, or "origin".
  std::string locate(StringRef key) {
    size_t at = key.empty() ? StringRef::npos : positionOf(key);
    if (at == StringRef::npos)
      return origin.str();
    StringRef before = text.take_front(at);
    size_t line = before.count('\n') + 1;
    size_t lineStart = before.rfind('\n');
    size_t col = at - (lineStart == StringRef::npos ? 0 : lineStart + 1) + 1;
    return llvm::formatv("{0}:{1}:{2}", origin, line, col).str();
  }
};

/// Ranges of the config fields (docs/Models.md, "Limits"): far above any
/// published model, far below what would overflow a 64-bit byte count.
constexpr int64_t kMaxWidth = 1 << 20; ///< hidden, intermediate sizes
constexpr int64_t kMaxLayers = 4096;
constexpr int64_t kMaxHeads = 1 << 14; ///< attention and KV heads
constexpr int64_t kMaxHeadDim = 1 << 14;
constexpr int64_t kMaxVocab = 1 << 24;
constexpr int64_t kMaxPositions = 1 << 27; ///< 134,217,728 tokens
constexpr int64_t kMaxRank = 1 << 16;      ///< LoRA ranks
constexpr int64_t kMaxExperts = 1 << 16;
constexpr int64_t kMaxMtpLayers = 64;

/// A key that changes a decoder's architecture, and what it adds.
struct ArchitectureKey {
  const char *key, *what;
};

/// Every key snapflow knows to change an architecture. A family's reader
/// names the ones it reads; refuseForeignKeys refuses the others when on.
llvm::ArrayRef<ArchitectureKey> architectureKeys();

/// Refuses, naming the key and `family`, the first architecture key of
/// `r`'s object that is on (not false, null, 0 or an empty list) and not in
/// `understood`: a config is never built without what its key adds (a
/// Mixtral config renamed llama lost its experts: 7.24 B parameters of
/// 46.7 B).
void refuseForeignKeys(FieldReader &r, StringRef family,
                       llvm::ArrayRef<StringRef> understood);

/// A family's defaults for keys its published configs omit (its
/// configuration class's, as transformers applies them).
struct DecoderDefaults {
  int64_t vocabSize = 0;             ///< 0: `vocab_size` is required
  int64_t maxPositionEmbeddings = 0; ///< 0: required
  bool tieWordEmbeddings = false;
  double rmsNormEps = 1e-6;
  double ropeTheta = 10000.0;
  /// Whether the family reads `head_dim` (else h / H always: qwen2, phi3).
  bool headDimKey = true;
};

/// The numbers every decoder family reads the same way: hidden size, the
/// dense FFN width (`intermediateKey`; empty: none), layers, heads,
/// vocabulary, positions, tied embeddings, norm epsilon and rope theta.
void readDecoder(FieldReader &r, ModelConfig &c, const DecoderDefaults &d,
                 StringRef intermediateKey = "intermediate_size");

/// readDecoder, then a GQA decoder's KV heads and `head_dim` (else h / H),
/// checked (an even head, H a multiple of the KV heads).
void readGQA(FieldReader &r, ModelConfig &c, const DecoderDefaults &d = {},
             StringRef intermediateKey = "intermediate_size");

/// `quantization_config`: fp8 projection weights (DeepSeek-V3), MXFP4
/// experts (gpt-oss, with `allowMxfp4`); any other method is refused.
void readQuantization(FieldReader &r, ModelConfig &c, bool allowMxfp4);

/// Reads `layer_types` (full_attention, sliding_attention,
/// chunked_attention) into c.layerSpans when present; true if it was.
bool readLayerTypes(FieldReader &r, ModelConfig &c);

/// Sliding layers where `isSliding(i)`, full elsewhere.
void setSlidingLayers(ModelConfig &c,
                      llvm::function_ref<bool(int64_t)> isSliding);

/// A window on every layer when `on` and `sliding_window` is set below the
/// positions (PhiMoE's 131072 of 131072 is none): Mistral, Mixtral, Phi-3,
/// PhiMoE, and Qwen3-MoE with `use_sliding_window`.
void readUniformWindow(FieldReader &r, ModelConfig &c, bool on);

/// The experts of a family that names them `expertsKey` (num_local_experts,
/// num_experts), their top-k and width (`widthKey`).
void readExperts(FieldReader &r, ModelConfig &c, StringRef expertsKey,
                 StringRef widthKey);

} // namespace models
} // namespace snapflow

#endif // SNAPFLOW_MODELS_CONFIGREADER_H
