//===- ModelConfig.cpp - Hugging Face config.json reader ------------------===//

#include "snapflow/Models/ModelConfig.h"

#include "snapflow/Support/EnumNames.h"
#include "snapflow/Support/Input.h"
#include "snapflow/Support/Json.h"
#include "snapflow/Support/Nearest.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>

using namespace snapflow::models;
using llvm::StringRef;

namespace {
struct EmbeddedFile {
  const char *name;
  const char *contents;
};
const EmbeddedFile kBuiltinModels[] = {
#include "BuiltinModels.inc"
};

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

  /// A required integer in [lo, hi].
  int64_t integer(StringRef key, int64_t lo, int64_t hi) {
    const llvm::json::Value *v = obj.get(key);
    if (!v)
      return fail(key, "missing field '" + name(key) + "' (integer)"), lo;
    return check(key, *v, lo, hi, lo);
  }
  /// An integer that may be absent or null (e.g. q_lora_rank: null), in
  /// [lo, hi] when present.
  int64_t optionalInteger(StringRef key, int64_t fallback, int64_t lo,
                          int64_t hi) {
    const llvm::json::Value *v = obj.get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return fallback;
    return check(key, *v, lo, hi, fallback);
  }
  /// A finite number > 0, or `fallback` when absent.
  double positiveNumber(StringRef key, double fallback) {
    const llvm::json::Value *v = obj.get(key);
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
    const llvm::json::Value *v = obj.get(key);
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
    const llvm::json::Object *o = obj.getObject(key);
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
    const llvm::json::Value *v = obj.get(key);
    if (!v)
      return fallback;
    if (std::optional<bool> b = v->getAsBoolean())
      return *b;
    return fail(key, "field '" + name(key) + "' must be true or false"),
           fallback;
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

/// Keys that change a decoder's architecture and that the llama graph does
/// not build: a config carrying one with a value that is on is refused,
/// naming the key, rather than built as a dense llama without it (a
/// Mixtral config renamed llama lost its experts: 7.24 B parameters of
/// 46.7 B). Values that mean "off" (false, null, 0) are accepted.
void refuseForeignKeys(FieldReader &r, const llvm::json::Object &obj,
                       StringRef family) {
  static const struct {
    const char *key, *what;
  } kForeign[] = {
      {"num_local_experts", "experts (a Mixtral config is model_type mixtral)"},
      {"num_experts", "experts"},
      {"n_routed_experts", "routed experts"},
      {"num_experts_per_tok", "experts"},
      {"moe_intermediate_size", "experts"},
      {"n_shared_experts", "shared experts"},
      {"kv_lora_rank", "multi-head latent attention"},
      {"q_lora_rank", "multi-head latent attention"},
      {"sliding_window", "sliding-window attention"},
      {"attention_bias", "biases on the attention projections"},
      {"mlp_bias", "biases on the MLP projections"},
      {"qk_norm", "norms on queries and keys"},
      {"attn_logit_softcapping", "logit soft-capping"},
      {"final_logit_softcapping", "logit soft-capping"},
  };
  for (const auto &f : kForeign) {
    // Qwen's configs carry a window with use_sliding_window: false.
    if (StringRef(f.key) == "sliding_window" &&
        obj.getBoolean("use_sliding_window") == std::optional<bool>(false))
      continue;
    const llvm::json::Value *v = obj.get(f.key);
    if (!v || v->kind() == llvm::json::Value::Null)
      continue;
    std::optional<bool> b = v->getAsBoolean();
    std::optional<double> d = v->getAsNumber();
    if ((b && !*b) || (d && *d == 0))
      continue;
    std::string shown;
    llvm::raw_string_ostream os(shown);
    os << *v;
    r.fail(f.key, "field '" + r.name(f.key) + "' is " + shown + ": " + f.what +
                      ", which snapflow's " + family.str() +
                      " graph does not build; refused rather than left out");
    return;
  }
}

/// A GPT-NeoX decoder of the Block Transformer, from its object (the
/// official YAML's `config` keys, with the Pythia config's defaults the
/// YAML inherits).
NeoXStack readStack(FieldReader &r) {
  NeoXStack s;
  r.oneOf("cls", {"gpt-neo-x"});
  s.numLayers = r.integer("num_hidden_layers", 1, kMaxLayers);
  s.hiddenSize = r.integer("hidden_size", 1, kMaxWidth);
  s.numHeads = r.integer("num_attention_heads", 1, kMaxHeads);
  s.intermediateSize = r.integer("intermediate_size", 1, kMaxWidth);
  s.rotaryPct = r.positiveNumber("rotary_pct", 0.25);
  s.rotaryEmbBase = r.positiveNumber("rotary_emb_base", 10000.0);
  s.layerNormEps = r.positiveNumber("layer_norm_eps", 1e-5);
  if (!r.boolean("use_parallel_residual", true))
    r.fail("use_parallel_residual",
           "field '" + r.name("use_parallel_residual") +
               "' is false; snapflow models GPT-NeoX's parallel residual");
  if (r.error)
    return s;
  if (s.hiddenSize % s.numHeads != 0)
    r.fail("num_attention_heads",
           llvm::formatv("field '{0}' ({1}) does not divide hidden_size ({2})",
                         r.name("num_attention_heads"), s.numHeads,
                         s.hiddenSize));
  else if (s.rotaryPct > 1 || s.rotaryDim() < 2 || s.rotaryDim() % 2 != 0)
    r.fail("rotary_pct",
           llvm::formatv("field '{0}' ({1}) must rotate an even number of "
                         "the {2} channels of a head",
                         r.name("rotary_pct"), s.rotaryPct, s.headDim()));
  return s;
}

/// The rest of a config of model_type block_transformer.
llvm::Expected<ModelConfig> parseBlockTransformer(ModelConfig c,
                                                  FieldReader &r) {
  BlockTransformerConfig &b = c.block;
  b.blockLength = r.integer("block_length", 1, 64);
  b.trainedLength = r.integer("max_length", 1, kMaxPositions);
  c.vocabSize = r.integer("vocab_size", 1, kMaxVocab);
  if (const llvm::json::Object *e = r.object("embedder")) {
    FieldReader er(*e, r, "embedder");
    er.oneOf("cls", {"lookup"});
    er.oneOf("projection_method", {"concat"});
    b.embedderHidden = er.integer("hidden_size", 1, kMaxWidth);
    b.embedderVocab =
        er.optionalInteger("vocab_size", c.vocabSize, 1, kMaxVocab);
    // One block embedding per block (a block decoder position each).
    er.optionalInteger("n_embedding_tokens", 1, 1, 1);
    if (!r.error && er.error)
      r.error = er.error;
  }
  if (const llvm::json::Object *d = r.object("block_decoder")) {
    FieldReader dr(*d, r, "block_decoder");
    b.blockDecoder = readStack(dr);
    if (!r.error && dr.error)
      r.error = dr.error;
  }
  if (const llvm::json::Object *d = r.object("token_decoder")) {
    FieldReader dr(*d, r, "token_decoder");
    b.tokenDecoder = readStack(dr);
    dr.oneOf("expansion_method", {"expansion_layer"});
    dr.oneOf("decoding_strategy", {"prefix"});
    b.expansionRatio = dr.integer("expansion_ratio", 1, 64);
    if (!r.error && dr.error)
      r.error = dr.error;
  }
  if (!r.error && b.embedderHidden * b.blockLength != b.blockDecoder.hiddenSize)
    r.fail("embedder",
           llvm::formatv("the lookup embedder's concatenated block "
                         "(embedder.hidden_size {0} x block_length {1}) must "
                         "be the block decoder's hidden_size ({2})",
                         b.embedderHidden, b.blockLength,
                         b.blockDecoder.hiddenSize));
  if (r.error)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), *r.error);
  // The generic numbers describe the block decoder (the one with a cache);
  // the layers are both decoders'. Positions are rotary, and the official
  // benchmark sizes them to the run (measure_generation_time.py), so the
  // context is bounded only by snapflow's own limit.
  c.arch = Architecture::BlockTransformer;
  const NeoXStack &bd = b.blockDecoder;
  c.hiddenSize = bd.hiddenSize;
  c.intermediateSize = bd.intermediateSize;
  c.numLayers = bd.numLayers + b.tokenDecoder.numLayers;
  c.numHeads = c.numKvHeads = bd.numHeads;
  c.headDim = bd.headDim();
  c.ropeTheta = bd.rotaryEmbBase;
  c.rmsNormEps = bd.layerNormEps;
  c.maxPositionEmbeddings = kMaxPositions;
  c.weightDtype = WeightDtype::BF16;
  return c;
}
} // namespace

StringRef snapflow::models::weightDtypeName(WeightDtype dtype) {
  return dtype == WeightDtype::FP8 ? "fp8" : "bf16";
}

std::optional<WeightDtype> snapflow::models::parseWeightDtype(StringRef name) {
  return enumByName<WeightDtype>(name, kNumWeightDtypes, weightDtypeName);
}

llvm::Expected<ModelConfig> ModelConfig::parse(StringRef json,
                                               StringRef origin) {
  auto makeError = [&](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  llvm::Expected<llvm::json::Value> value = parseJson(json, origin);
  if (!value)
    return value.takeError();
  const llvm::json::Object *obj = value->getAsObject();
  if (!obj)
    return makeError(origin + ": error: a config.json must be a JSON object");

  ModelConfig c;
  c.origin = origin.str();
  FieldReader r(*obj, json, origin);
  std::optional<StringRef> type = obj->getString("model_type");
  if (!type)
    return makeError(origin + ": error: missing field 'model_type' (string)");
  c.modelType = type->str();
  if (*type == "llama")
    c.arch = Architecture::Llama;
  else if (*type == "deepseek_v2")
    c.arch = Architecture::DeepSeekV2;
  else if (*type == "deepseek_v3")
    c.arch = Architecture::DeepSeekV3;
  else if (*type == "block_transformer")
    return parseBlockTransformer(c, r);
  else
    return makeError(origin + ": error: field 'model_type' is '" + *type +
                     "'; supported: llama, deepseek_v2, deepseek_v3, "
                     "block_transformer");

  c.hiddenSize = r.integer("hidden_size", 1, kMaxWidth);
  c.intermediateSize = r.integer("intermediate_size", 1, kMaxWidth);
  c.numLayers = r.integer("num_hidden_layers", 1, kMaxLayers);
  c.numHeads = r.integer("num_attention_heads", 1, kMaxHeads);
  c.vocabSize = r.integer("vocab_size", 1, kMaxVocab);
  c.maxPositionEmbeddings =
      r.integer("max_position_embeddings", 1, kMaxPositions);
  c.tieWordEmbeddings = r.boolean("tie_word_embeddings", false);
  c.rmsNormEps = r.positiveNumber("rms_norm_eps", 1e-6);
  c.ropeTheta = r.positiveNumber("rope_theta", 10000.0);

  if (c.arch == Architecture::Llama) {
    c.numKvHeads =
        r.optionalInteger("num_key_value_heads", c.numHeads, 1, kMaxHeads);
    c.headDim = r.optionalInteger(
        "head_dim", std::max<int64_t>(1, c.hiddenSize / c.numHeads), 1,
        kMaxHeadDim);
    // Rotary embeddings rotate pairs of a head's channels (an odd width
    // failed in llm.rope's verifier, R17).
    if (!r.error && c.headDim % 2 != 0)
      r.fail(obj->get("head_dim") ? "head_dim" : "hidden_size",
             llvm::formatv("a head is {0} channels{1}; rotary position "
                           "embeddings rotate pairs of channels, so it must "
                           "be even",
                           c.headDim,
                           obj->get("head_dim")
                               ? std::string()
                               : llvm::formatv(" (hidden_size {0} / "
                                               "num_attention_heads {1})",
                                               c.hiddenSize, c.numHeads)
                                     .str())
                 .str());
    refuseForeignKeys(r, *obj, c.modelType);
    if (!r.error && c.numHeads % c.numKvHeads != 0)
      r.fail("num_key_value_heads",
             "field 'num_attention_heads' (" + std::to_string(c.numHeads) +
                 ") is not a multiple of 'num_key_value_heads' (" +
                 std::to_string(c.numKvHeads) + ")");
  } else {
    c.qLoraRank = r.optionalInteger("q_lora_rank", 0, 0, kMaxRank);
    c.kvLoraRank = r.integer("kv_lora_rank", 1, kMaxRank);
    c.qkNopeHeadDim = r.integer("qk_nope_head_dim", 1, kMaxHeadDim);
    c.qkRopeHeadDim = r.integer("qk_rope_head_dim", 1, kMaxHeadDim);
    if (!r.error && c.qkRopeHeadDim % 2 != 0)
      r.fail("qk_rope_head_dim",
             llvm::formatv("'qk_rope_head_dim' is {0}; rotary position "
                           "embeddings rotate pairs of channels, so it must "
                           "be even",
                           c.qkRopeHeadDim)
                 .str());
    c.vHeadDim = r.integer("v_head_dim", 1, kMaxHeadDim);
    c.numRoutedExperts =
        r.optionalInteger("n_routed_experts", 0, 0, kMaxExperts);
    if (c.numRoutedExperts > 0) {
      c.numSharedExperts =
          r.optionalInteger("n_shared_experts", 0, 0, kMaxExperts);
      c.numExpertsPerToken =
          r.integer("num_experts_per_tok", 1, c.numRoutedExperts);
      c.moeIntermediateSize = r.integer("moe_intermediate_size", 1, kMaxWidth);
      c.firstKDenseReplace =
          r.optionalInteger("first_k_dense_replace", 0, 0, c.numLayers);
      c.moeLayerFreq = r.optionalInteger("moe_layer_freq", 1, 1, c.numLayers);
    }
    c.numMtpLayers =
        r.optionalInteger("num_nextn_predict_layers", 0, 0, kMaxMtpLayers);
    c.headDim = c.qkNopeHeadDim + c.qkRopeHeadDim;
  }
  // Cross-layer attention: Hunyuan's configs write use_cla and
  // cla_share_factor; a factor without use_cla applies.
  if (r.boolean("use_cla", true))
    c.claShareFactor = r.optionalInteger("cla_share_factor", 1, 1, c.numLayers);
  if (r.error)
    return makeError(*r.error);

  // fp8 checkpoints (DeepSeek-V3/R1) say so in quantization_config.
  c.weightDtype = WeightDtype::BF16;
  if (const llvm::json::Object *q = obj->getObject("quantization_config")) {
    std::optional<StringRef> method = q->getString("quant_method");
    if (method && *method == "fp8")
      c.weightDtype = WeightDtype::FP8;
    else if (method)
      return makeError(origin +
                       ": error: field 'quantization_config."
                       "quant_method' is '" +
                       *method + "'; supported: fp8");
  }
  return c;
}

std::string ModelConfig::nameOfConfigFile(StringRef path) {
  // A Hugging Face checkout names every file config.json: its folder names
  // the model (Qwen3-8B/config.json is qwen3-8b), as the hub does.
  if (llvm::sys::path::filename(path) == "config.json") {
    llvm::SmallString<256> full(path);
    (void)llvm::sys::fs::make_absolute(full); // ./config.json: the folder
    llvm::sys::path::remove_dots(full, /*remove_dot_dot=*/true);
    StringRef folder =
        llvm::sys::path::filename(llvm::sys::path::parent_path(full));
    if (!folder.empty() && folder != "/")
      return folder.lower();
  }
  return path.str();
}

llvm::Expected<ModelConfig> ModelConfig::loadFile(StringRef path) {
  auto buffer = readInput(path, kConfigFileLimit, "a model config");
  if (!buffer)
    return llvm::createStringError("cannot read model config '" + path +
                                   "': " + llvm::toString(buffer.takeError()));
  llvm::Expected<ModelConfig> c = parse((*buffer)->getBuffer(), path);
  if (c)
    c->name = nameOfConfigFile(path);
  return c;
}

llvm::Expected<ModelConfig> ModelConfig::load(StringRef nameOrPath) {
  for (const EmbeddedFile &f : kBuiltinModels)
    if (nameOrPath == f.name) {
      llvm::Expected<ModelConfig> c =
          parse(f.contents, "<builtin>/" + std::string(f.name) + ".json");
      if (c)
        c->name = f.name;
      return c;
    }
  if (nameOrPath.ends_with(".json") || nameOrPath.contains('/'))
    return loadFile(nameOrPath);
  std::string known;
  std::vector<std::string> names;
  for (const EmbeddedFile &f : kBuiltinModels) {
    known += (known.empty() ? "" : ", ") + std::string(f.name);
    names.push_back(f.name);
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown model '" + nameOrPath + "'" +
                                     didYouMean(nameOrPath, names) +
                                     " (built-in models are " + known +
                                     ", or give a path to a config.json)");
}

llvm::Error ModelConfig::setClaShareFactor(int64_t factor,
                                           llvm::StringRef what) {
  if (factor < 1 || factor > numLayers)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("{0} {1}: the CLA sharing factor must be in [1, {2}] "
                      "(num_hidden_layers of {3})",
                      what, factor, numLayers, name)
            .str());
  claShareFactor = factor;
  return llvm::Error::success();
}

std::vector<std::string> ModelConfig::builtinNames() {
  std::vector<std::string> names;
  for (const EmbeddedFile &f : kBuiltinModels)
    names.push_back(f.name);
  return names;
}

std::string ModelConfig::fingerprint() const {
  std::string text = llvm::formatv(
      "{0} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10:e17} {11:e17} {12} {13} ",
      modelType, static_cast<int>(arch), hiddenSize, intermediateSize,
      numLayers, numHeads, numKvHeads, headDim, vocabSize, tieWordEmbeddings,
      rmsNormEps, ropeTheta, maxPositionEmbeddings,
      static_cast<int>(weightDtype));
  text += llvm::formatv("{0} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10} {11}",
                        qLoraRank, kvLoraRank, qkNopeHeadDim, qkRopeHeadDim,
                        vHeadDim, numRoutedExperts, numSharedExperts,
                        numExpertsPerToken, moeIntermediateSize,
                        firstKDenseReplace, moeLayerFreq, numMtpLayers)
              .str();
  if (isBlockTransformer())
    for (const NeoXStack *d : {&block.blockDecoder, &block.tokenDecoder})
      text +=
          llvm::formatv(" bt {0} {1} {2} {3} {4} {5:e17} {6:e17} {7:e17}",
                        block.blockLength, d->numLayers, d->hiddenSize,
                        d->numHeads, d->intermediateSize, d->rotaryPct,
                        d->rotaryEmbBase, d->layerNormEps)
              .str() +
          llvm::formatv(" {0} {1}", block.embedderHidden, block.expansionRatio)
              .str();
  // Added only when on, so configs without CLA keep the fingerprints
  // sweeps recorded before it existed.
  if (claShareFactor != 1)
    text += llvm::formatv(" cla={0}", claShareFactor).str();
  // FNV-1a, as ArchModel::fingerprint.
  uint64_t h = 14695981039346656037ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return llvm::formatv("{0:x-16}", h).str();
}
