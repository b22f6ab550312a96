//===- ModelConfig.cpp - Hugging Face config.json reader ------------------===//

#include "snapflow/Models/ModelConfig.h"

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
/// file and the field name.
class FieldReader {
public:
  FieldReader(const llvm::json::Object &obj, StringRef origin)
      : obj(obj), origin(origin) {}

  int64_t integer(StringRef key) {
    const llvm::json::Value *v = obj.get(key);
    if (!v)
      return fail(key, "missing field '" + key.str() + "' (integer)"), 0;
    if (std::optional<int64_t> i = v->getAsInteger())
      return *i;
    return fail(key, "field '" + key.str() + "' must be an integer"), 0;
  }
  int64_t positive(StringRef key) {
    int64_t i = integer(key);
    if (!error && i <= 0)
      fail(key, "field '" + key.str() + "' must be > 0, got " +
                    std::to_string(i));
    return i;
  }
  /// An integer that may be absent or null (e.g. q_lora_rank: null).
  int64_t optionalInteger(StringRef key, int64_t fallback) {
    const llvm::json::Value *v = obj.get(key);
    if (!v || v->kind() == llvm::json::Value::Null)
      return fallback;
    if (std::optional<int64_t> i = v->getAsInteger())
      return *i;
    return fail(key, "field '" + key.str() + "' must be an integer or null"),
           fallback;
  }
  double number(StringRef key, double fallback) {
    const llvm::json::Value *v = obj.get(key);
    if (!v)
      return fallback;
    if (std::optional<double> d = v->getAsNumber())
      return *d;
    return fail(key, "field '" + key.str() + "' must be a number"), fallback;
  }
  bool boolean(StringRef key, bool fallback) {
    const llvm::json::Value *v = obj.get(key);
    if (!v)
      return fallback;
    if (std::optional<bool> b = v->getAsBoolean())
      return *b;
    return fail(key, "field '" + key.str() + "' must be true or false"),
           fallback;
  }
  void fail(StringRef, const std::string &msg) {
    if (!error)
      error = origin.str() + ": error: " + msg;
  }

  const llvm::json::Object &obj;
  StringRef origin;
  std::optional<std::string> error;
};
} // namespace

StringRef snapflow::models::weightDtypeName(WeightDtype dtype) {
  return dtype == WeightDtype::FP8 ? "fp8" : "bf16";
}

llvm::Expected<ModelConfig> ModelConfig::parse(StringRef json,
                                               StringRef origin) {
  auto makeError = [&](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
  };
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(json);
  if (!value)
    return makeError(origin + ": error: malformed JSON: " +
                     llvm::toString(value.takeError()));
  const llvm::json::Object *obj = value->getAsObject();
  if (!obj)
    return makeError(origin + ": error: a config.json must be a JSON object");

  ModelConfig c;
  c.origin = origin.str();
  FieldReader r(*obj, origin);
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
  else
    return makeError(origin + ": error: field 'model_type' is '" + *type +
                     "'; supported: llama, deepseek_v2, deepseek_v3");

  c.hiddenSize = r.positive("hidden_size");
  c.intermediateSize = r.positive("intermediate_size");
  c.numLayers = r.positive("num_hidden_layers");
  c.numHeads = r.positive("num_attention_heads");
  c.vocabSize = r.positive("vocab_size");
  c.maxPositionEmbeddings = r.positive("max_position_embeddings");
  c.tieWordEmbeddings = r.boolean("tie_word_embeddings", false);
  c.rmsNormEps = r.number("rms_norm_eps", 1e-6);
  c.ropeTheta = r.number("rope_theta", 10000.0);

  if (c.arch == Architecture::Llama) {
    c.numKvHeads = r.optionalInteger("num_key_value_heads", c.numHeads);
    c.headDim = r.optionalInteger(
        "head_dim", c.numHeads > 0 ? c.hiddenSize / c.numHeads : 0);
    if (!r.error && (c.numKvHeads <= 0 || c.headDim <= 0))
      r.fail("", "fields 'num_key_value_heads' and 'head_dim' must be > 0");
    if (!r.error && c.numHeads % c.numKvHeads != 0)
      r.fail("", "field 'num_attention_heads' (" +
                     std::to_string(c.numHeads) +
                     ") is not a multiple of 'num_key_value_heads' (" +
                     std::to_string(c.numKvHeads) + ")");
  } else {
    c.qLoraRank = r.optionalInteger("q_lora_rank", 0);
    c.kvLoraRank = r.positive("kv_lora_rank");
    c.qkNopeHeadDim = r.positive("qk_nope_head_dim");
    c.qkRopeHeadDim = r.positive("qk_rope_head_dim");
    c.vHeadDim = r.positive("v_head_dim");
    c.numRoutedExperts = r.optionalInteger("n_routed_experts", 0);
    if (c.numRoutedExperts > 0) {
      c.numSharedExperts = r.optionalInteger("n_shared_experts", 0);
      c.numExpertsPerToken = r.positive("num_experts_per_tok");
      c.moeIntermediateSize = r.positive("moe_intermediate_size");
      c.firstKDenseReplace = r.optionalInteger("first_k_dense_replace", 0);
      c.moeLayerFreq = r.optionalInteger("moe_layer_freq", 1);
      if (!r.error && c.moeLayerFreq <= 0)
        r.fail("", "field 'moe_layer_freq' must be > 0");
      if (!r.error && c.numExpertsPerToken > c.numRoutedExperts)
        r.fail("", "field 'num_experts_per_tok' exceeds 'n_routed_experts'");
    }
    c.numMtpLayers = r.optionalInteger("num_nextn_predict_layers", 0);
    c.headDim = c.qkNopeHeadDim + c.qkRopeHeadDim;
  }
  if (r.error)
    return makeError(*r.error);

  // fp8 checkpoints (DeepSeek-V3/R1) say so in quantization_config.
  c.weightDtype = WeightDtype::BF16;
  if (const llvm::json::Object *q = obj->getObject("quantization_config")) {
    std::optional<StringRef> method = q->getString("quant_method");
    if (method && *method == "fp8")
      c.weightDtype = WeightDtype::FP8;
    else if (method)
      return makeError(origin + ": error: field 'quantization_config."
                                "quant_method' is '" +
                       *method + "'; supported: fp8");
  }
  return c;
}

llvm::Expected<ModelConfig> ModelConfig::loadFile(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read model config '" + path +
                                       "': " + buffer.getError().message());
  llvm::Expected<ModelConfig> c = parse((*buffer)->getBuffer(), path);
  if (c)
    c->name = path.str();
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
  for (const EmbeddedFile &f : kBuiltinModels)
    known += (known.empty() ? "" : ", ") + std::string(f.name);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown model '" + nameOrPath +
                                     "'; built-in models are " + known +
                                     ", or give a path to a config.json");
}

std::vector<std::string> ModelConfig::builtinNames() {
  std::vector<std::string> names;
  for (const EmbeddedFile &f : kBuiltinModels)
    names.push_back(f.name);
  return names;
}
