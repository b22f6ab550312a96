//===- Workload.cpp - What to compile and simulate
//-------------------------===//

#include "snapflow/Driver/Workload.h"

#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Dialect/LLM/Transforms/Passes.h"
#include "snapflow/Driver/Context.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Models/ModelBuilder.h"
#include "snapflow/Support/CheckedInt.h"

#include "llvm/ADT/StringExtras.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <map>

using namespace snapflow;
using namespace snapflow::driver;
using llvm::formatv;

char ProgramFailure::ID;

std::string snapflow::driver::weightsDtypeLabel(const Workload &w) {
  return models::weightDtypeName(w.weightsDtype.value_or(w.config.weightDtype))
      .str();
}

namespace {
/// Whether shard-tp splits the model over `tp` sockets: the pass itself on
/// the model's decode graph at batch 1 and a short context (the split
/// depends on heads and widths, not on lengths), with the default mappings
/// (--moe expert, --mla-cache replicate). `built` is false when the graph
/// itself does not build (the compile reports why). Remembered per model
/// and TP.
struct SplitCheck {
  bool built = true;
  std::string why;   ///< "" when it splits
  bool here = false; ///< computed by this process (not learned)
};

using SplitKey = std::pair<std::string, int64_t>; // model fingerprint, TP
std::map<SplitKey, SplitCheck> &splitChecks() {
  static std::map<SplitKey, SplitCheck> known;
  return known;
}

const SplitCheck &checkSplit(const models::ModelConfig &config, int64_t tp) {
  std::map<SplitKey, SplitCheck> &known = splitChecks();
  auto key = std::make_pair(config.fingerprint(), tp);
  if (auto it = known.find(key); it != known.end())
    return it->second;
  mlir::MLIRContext &context = driverContext();
  models::BuildOptions build;
  build.batch = 1;
  build.buildPrefill = false;
  build.contextTokens = 4 * config.tokensPerCachePosition();
  SplitCheck check;
  {
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      if (check.why.empty())
        check.why = d.str();
      return mlir::success();
    });
    auto module = models::buildModel(context, config, build);
    if (!module) {
      check.built = false;
      check.why = llvm::toString(module.takeError());
    } else {
      mlir::PassManager pm(&context);
      // The question is whether shard-tp splits the graph, which its own
      // diagnostics answer; the compile that follows verifies what it runs.
      pm.enableVerifier(false);
      llm::ShardTPOptions shard;
      shard.tp = tp;
      pm.addPass(llm::createShardTP(shard));
      if (mlir::failed(pm.run(**module)) && check.why.empty())
        check.why = "shard-tp failed";
    }
  }
  check.here = true;
  return known.emplace(key, check).first->second;
}
} // namespace

std::string snapflow::driver::workloadFacts() {
  llvm::json::Array splits;
  for (const auto &[key, check] : splitChecks())
    if (check.here)
      splits.push_back(llvm::json::Object{{"model", key.first},
                                          {"tp", key.second},
                                          {"built", check.built},
                                          {"why", check.why}});
  if (splits.empty())
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(llvm::json::Object{{"splits", std::move(splits)}});
  return text;
}

void snapflow::driver::learnWorkloadFacts(llvm::StringRef text) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  if (!value) {
    llvm::consumeError(value.takeError());
    return;
  }
  const llvm::json::Object *facts = value->getAsObject();
  const llvm::json::Array *splits = facts ? facts->getArray("splits") : nullptr;
  if (!splits)
    return;
  for (const llvm::json::Value &v : *splits) {
    const llvm::json::Object *o = v.getAsObject();
    if (!o)
      continue;
    std::optional<llvm::StringRef> model = o->getString("model");
    std::optional<int64_t> tp = o->getInteger("tp");
    std::optional<bool> built = o->getBoolean("built");
    std::optional<llvm::StringRef> why = o->getString("why");
    if (model && tp && built && why)
      splitChecks().emplace(SplitKey(model->str(), *tp),
                            SplitCheck{*built, why->str(), /*here=*/false});
  }
}

std::string Workload::kvLabel() const {
  if (!kvPolicy) // resolved without a chip: no policy
    return "";
  return llvm::cast<kv::KVPolicyAttrInterface>(kvPolicy).getLabel();
}

std::string Workload::kvFormatLabel() const {
  return kvFormat ? llvm::cast<kv::KVFormatAttrInterface>(kvFormat).getLabel()
                  : "bf16";
}

mlir::Attribute Workload::policyFor(int64_t tokens) const {
  // kvSlots counts cache positions (a Block Transformer's are blocks).
  if (!kvCompressing || kvSlots >= config.cachePositions(tokens))
    return kv::FullPolicyAttr::get(kvPolicy.getContext());
  return kvPolicy;
}

namespace {
llvm::Expected<Workload> resolveUncached(const WorkloadOptions &o,
                                         bool needChip) {
  Workload w;
  auto config = models::ModelConfig::load(o.model);
  if (!config)
    return config.takeError();
  w.config = std::move(*config);
  if (!o.name.empty())
    w.config.name = o.name;
  if (o.cla != 0)
    if (llvm::Error e = w.config.setClaShareFactor(o.cla, "--cla"))
      return std::move(e);
  if (o.batch <= 0 || o.batch > models::kMaxBatch)
    return makeError(formatv("--batch must be in [1, {0}], got {1}",
                             models::kMaxBatch, o.batch));
  if (o.context <= 0)
    return makeError(formatv("--context must be > 0, got {0}", o.context));
  // Checked here, before any loop over context buckets, as well as where the
  // graph is built.
  if (o.context > w.config.maxPositionEmbeddings)
    return makeError(formatv("--context {0} exceeds the model's "
                             "max_position_embeddings ({1}) in {2}",
                             o.context, w.config.maxPositionEmbeddings,
                             w.config.origin));
  // A Block Transformer's cache holds whole blocks: --context 1 ran as a
  // context of 4 and said so only in its header (R24).
  if (int64_t per = w.config.tokensPerCachePosition();
      per > 1 && o.context % per != 0)
    return makeError(formatv(
        "--context {0} is not a whole number of {1}'s {2}-token blocks; "
        "use {3}",
        o.context, w.config.name, per,
        o.context < per ? per : o.context / per * per));
  w.weightsDtype = o.weightsDtype;
  if (!needChip)
    return w;
  auto chip = arch::ArchModel::load(o.chip);
  if (chip && !o.set.empty())
    chip = chip->withOverrides(o.set, "--set");
  if (!chip)
    return chip.takeError();
  w.chip = std::move(*chip);
  {
    mlir::MLIRContext &context = driverContext();
    int64_t positions = w.config.cachePositions(o.context);
    auto policy = kv::resolvePolicy(&context, o.kv, positions);
    if (!policy) // the message names the policy string
      return policy.takeError();
    w.kvPolicy = *policy;
    w.kvSlots = policy->getSlotsFor(positions);
    w.kvCompressing = policy->isCompressing();
    w.kvObservedQueries = policy->getObservedQueries();
    auto format = kv::parseFormat(&context, o.kvFormat);
    if (!format) // the message names the format string
      return format.takeError();
    w.kvFormat = *format;
  }
  int64_t sockets = w.chip.numSockets();
  if (o.tp != 0 && (o.tp < 1 || o.tp > sockets))
    return makeError(formatv("--tp {0} is not possible on {1}, which has {2} "
                             "socket(s)",
                             o.tp, w.chip.getName(), sockets));
  // A given TP is the pipeline's to check, with the mappings the compile
  // chooses (--moe split splits experts a TP does not divide); a failure
  // names the TPs that do (splittingTps).
  w.tp = o.tp == 0 ? sockets : o.tp;
  if (o.tp != 0)
    return w;
  // Not given: the largest group of the chip's sockets the model splits
  // over (a Llama-3.2-3B's 24 heads do not split over 16 sockets, and a
  // --tp nobody chose was the error, issue 34). A graph that does not
  // build is the compile's to report.
  const SplitCheck &all = checkSplit(w.config, sockets);
  if (!all.built || all.why.empty())
    return w;
  for (int64_t t = sockets - 1; t >= 1; --t)
    if (checkSplit(w.config, t).why.empty()) {
      w.tp = t;
      w.tpNote = formatv("TP {0}: the largest that splits {1} over {2}'s {3} "
                         "sockets; at {3}: {4}",
                         t, w.config.name, w.chip.getName(), sockets, all.why);
      break;
    }
  return w;
}

/// An option's text in a workload's memo key.
std::string keyText(const std::string &s) { return s; }
std::string keyText(int64_t v) { return std::to_string(v); }
std::string keyText(const std::vector<std::string> &v) {
  return llvm::join(v, "\x1e");
}
std::string keyText(const std::optional<models::WeightDtype> &d) {
  return d ? models::weightDtypeName(*d).str() : "";
}

/// A model or chip named by a file (which may change between calls).
bool isFile(llvm::StringRef nameOrPath) {
  return nameOrPath.contains('/') || nameOrPath.ends_with(".json") ||
         nameOrPath.ends_with(".yaml") || nameOrPath.ends_with(".yml");
}
} // namespace

llvm::Expected<Workload>
snapflow::driver::resolveWorkload(const WorkloadOptions &o, bool needChip) {
  // Resolved once a process for built-in models and chips (a sweep's
  // points and the Python module's calls resolve the same ones again and
  // again); every option but the batch, which only its range check reads,
  // is in the key.
  if (isFile(o.model) || isFile(o.chip) || o.batch <= 0 ||
      o.batch > models::kMaxBatch)
    return resolveUncached(o, needChip);
  std::string key = needChip ? "chip" : "model";
#define SNAPFLOW_WORKLOAD_OPTION(TYPE, FIELD, ...)                             \
  if (llvm::StringRef(#FIELD) != "batch")                                      \
    key += "\x1f" + keyText(o.FIELD);
#include "snapflow/Driver/WorkloadOptions.def"
  static std::map<std::string, Workload> memo;
  if (auto it = memo.find(key); it != memo.end())
    return it->second;
  auto w = resolveUncached(o, needChip);
  if (w)
    memo.emplace(key, *w);
  return w;
}

std::vector<std::string> Workload::notes() const {
  std::vector<std::string> out;
  if (!tpNote.empty())
    out.push_back(tpNote);
  if (int64_t windowed = config.windowedLayers(); windowed > 0) {
    llvm::StringRef kind =
        llvm::is_contained(config.layerSpans, models::AttentionSpan::Chunked)
            ? "chunked"
            : "sliding-window";
    if (windowed == config.numLayers)
      out.push_back(formatv("{0} has nothing to compress: every layer is "
                            "{1} and keeps its {2}-token ring",
                            kvLabel(), kind, config.windowTokens()));
    else
      out.push_back(formatv("{0} {1} the {2} full layers; the {3} {4} "
                            "layers keep their {5}-token ring",
                            kvLabel(), kvCompressing ? "compresses" : "holds",
                            config.numLayers - windowed, windowed, kind,
                            config.windowTokens()));
  }
  for (const std::string &a : config.approximations())
    out.push_back("approximation: " + a);
  if (!config.unknownKeys.empty())
    out.push_back("read past keys snapflow does not know (check that none "
                  "changes the architecture): " +
                  llvm::join(config.unknownKeys, ", "));
  return out;
}

std::string snapflow::driver::splittingTps(const Workload &w) {
  std::string list;
  for (int64_t t = 1; t <= w.chip.numSockets(); ++t)
    if (checkSplit(w.config, t).why.empty())
      list += (list.empty() ? "" : ", ") + std::to_string(t);
  return formatv("the TPs that split {0} on {1}: {2}", w.config.name,
                 w.chip.getName(), list.empty() ? "none" : list);
}
