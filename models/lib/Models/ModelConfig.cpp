//===- ModelConfig.cpp - Hugging Face config.json reader ------------------===//

#include "snapflow/Models/ModelConfig.h"

#include "ConfigReader.h"
#include "Families/Family.h"

#include "snapflow/Support/EnumNames.h"
#include "snapflow/Support/Input.h"
#include "snapflow/Support/Json.h"
#include "snapflow/Support/Nearest.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <map>
#include <mutex>

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
} // namespace

namespace snapflow::models {
#define FAMILY(Name) extern const Family k##Name##Family;
#include "Families/Families.def"
} // namespace snapflow::models

namespace {
const Family *const kFamilies[] = {
#define FAMILY(Name) &k##Name##Family,
#include "Families/Families.def"
};

const Family *findFamily(StringRef modelType) {
  for (const Family *f : kFamilies)
    if (modelType == f->modelType)
      return f;
  return nullptr;
}

/// Sorts the keys of `obj` that `r` never asked for into those its family
/// (or every family) lists as not changing costs and those snapflow does
/// not know (`info` names them: one might change the architecture).
void sortUnread(FieldReader &r, const Family &family, ModelConfig &c) {
  std::vector<std::string> keys;
  for (const auto &kv : r.obj)
    keys.push_back(kv.first.str());
  llvm::sort(keys);
  for (const std::string &key : keys) {
    if (r.touched.count(key) || key == "model_type")
      continue;
    auto listed = [&](llvm::ArrayRef<IgnoredKey> list) {
      return llvm::any_of(list,
                          [&](const IgnoredKey &k) { return key == k.key; });
    };
    (listed(commonIgnoredKeys()) || listed(family.ignored) ? c.ignoredKeys
                                                           : c.unknownKeys)
        .push_back(r.name(key));
  }
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
  FieldReader top(*obj, json, origin);
  std::optional<StringRef> type = obj->getString("model_type");
  if (!type)
    return makeError(origin + ": error: missing field 'model_type' (string)");
  c.modelType = type->str();
  const Family *family = findFamily(*type);
  if (!family) {
    std::string list;
    for (const Family *f : kFamilies)
      list += (list.empty() ? "" : ", ") + std::string(f->modelType);
    top.fail("model_type",
             "field 'model_type' is '" + type->str() + "'; supported: " + list);
    return makeError(*top.error);
  }
  // Gemma 3 and Llama 4 nest their decoder in text_config: its fields are
  // named and located there.
  std::optional<FieldReader> nested;
  if (family->nestedIn) {
    const llvm::json::Object *decoder = top.object(family->nestedIn);
    if (!decoder)
      return makeError(*top.error);
    nested.emplace(*decoder, top, family->nestedIn);
  }
  FieldReader &r = nested ? *nested : top;
  family->read(r, c);
  // Cross-layer attention: Hunyuan's configs write use_cla and
  // cla_share_factor; a factor without use_cla applies.
  if (!c.isBlockTransformer() && r.boolean("use_cla", true))
    c.claShareFactor = r.optionalInteger("cla_share_factor", 1, 1, c.numLayers);
  if (!c.isBlockTransformer())
    readQuantization(top, c, /*allowMxfp4=*/c.numRoutedExperts > 0);
  // Sliding layers (by layer_types or a family's rule) need a window.
  if (!r.error && c.slidingWindow == 0 &&
      llvm::is_contained(c.layerSpans, AttentionSpan::Sliding))
    r.fail("sliding_window", "layers slide ('layer_types') but field '" +
                                 r.name("sliding_window") +
                                 "' gives no window");
  for (std::optional<std::string> *e : {&r.error, &top.error})
    if (*e)
      return makeError(**e);
  // What no reader asked for: listed as ignored, or unknown.
  if (nested) {
    top.touched.insert(family->nestedIn);
    sortUnread(top, *family, c);
  }
  sortUnread(r, *family, c);
  return c;
}

namespace {
/// The GQA families' features, as the fingerprint hashes them.
std::string featureText(const ModelConfig &c) {
  std::string text = llvm::formatv(
      "{0}{1}{2}{3}{4}{5}{6} {7:e17} {8:e17} {9} {10} {11} {12}{13}",
      int(c.qkvBias), int(c.outputBias), int(c.lmHeadBias), int(c.qkNorm),
      int(c.sandwichNorms), int(c.layerNorm), int(c.attentionSinks),
      c.attnLogitSoftcap, c.finalLogitSoftcap, c.slidingWindow,
      c.attentionChunk, c.rotaryDim, int(c.expertBiases), int(c.mxfp4Experts));
  for (AttentionSpan span : c.layerSpans)
    text += char('0' + int(span));
  for (bool off : c.layerNoRope)
    text += off ? 'n' : 'r';
  for (bool moe : c.moeLayers)
    text += moe ? 'm' : 'd';
  return text;
}
} // namespace

int64_t ModelConfig::windowedLayers() const {
  return llvm::count_if(
      layerSpans, [](AttentionSpan s) { return s != AttentionSpan::Full; });
}

std::vector<std::string> ModelConfig::approximations() const {
  std::vector<std::string> out;
  if (llvm::is_contained(layerSpans, AttentionSpan::Chunked))
    out.push_back(llvm::formatv(
        "{0} chunked layers are charged as windows of their {1}-token "
        "chunk: a decode attends the whole chunk, where a query sees "
        "(position mod {1}) + 1 keys, {2} on average",
        windowedLayers(), attentionChunk, (attentionChunk + 1) / 2));
  std::vector<std::string> unbuilt;
  if (attentionSinks)
    unbuilt.push_back(
        llvm::formatv("the attention sinks ({0} a layer)", numHeads));
  if (expertBiases)
    unbuilt.push_back(llvm::formatv(
        "the router's and experts' biases ({0} a MoE layer)",
        numRoutedExperts * (1 + 2 * moeIntermediateSize + hiddenSize)));
  if (lmHeadBias)
    unbuilt.push_back(llvm::formatv("the LM head's bias ({0})", vocabSize));
  if (!unbuilt.empty())
    out.push_back("not built, a negligible cost: " + llvm::join(unbuilt, ", "));

  return out;
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
  // A built-in config is parsed once a process (its text never changes):
  // a sweep's points and the Python module's calls load it again and again.
  static std::mutex mutex;
  static std::map<std::string, ModelConfig> parsed;
  for (const EmbeddedFile &f : kBuiltinModels)
    if (nameOrPath == f.name) {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = parsed.find(f.name);
      if (it == parsed.end()) {
        llvm::Expected<ModelConfig> c =
            parse(f.contents, "<builtin>/" + std::string(f.name) + ".json");
        if (!c)
          return c.takeError();
        c->name = f.name;
        it = parsed.emplace(f.name, std::move(*c)).first;
      }
      return it->second;
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

std::vector<ModelFamily> ModelConfig::families() {
  std::vector<ModelFamily> out;
  auto pairs = [](llvm::ArrayRef<IgnoredKey> keys) {
    std::vector<std::pair<std::string, std::string>> list;
    for (const IgnoredKey &k : keys)
      list.emplace_back(k.key, k.why);
    return list;
  };
  out.push_back({"", "every family", "", pairs(commonIgnoredKeys())});
  for (const Family *f : kFamilies)
    out.push_back({f->modelType, f->graph, f->nestedIn ? f->nestedIn : "",
                   pairs(f->ignored)});
  return out;
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
  // sweeps recorded before it existed; so are the families' features.
  if (claShareFactor != 1)
    text += llvm::formatv(" cla={0}", claShareFactor).str();
  // The router's scoring is not in it: it does not change the graph.
  if (std::string features = featureText(*this);
      features != featureText(ModelConfig()))
    text += " f" + features;
  // FNV-1a, as ArchModel::fingerprint.
  uint64_t h = 14695981039346656037ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return llvm::formatv("{0:x-16}", h).str();
}
