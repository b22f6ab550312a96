//===- Info.cpp - snapflow list, info and import --------------------------===//
//
// The commands that need a model and a chip but no pass pipeline: what is
// built in, what a model costs in parameters and KV bytes and whether it fits
// a chip's tiers, and the llm IR the model builder emits.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "snapflow/Analysis/ModelStats.h"
#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Dialect/KV/Transforms/Passes.h"
#include "snapflow/Mapping/Passes.h"
#include "snapflow/Pipelines/Pipelines.h"
#include "snapflow/Models/ModelBuilder.h"
#include "snapflow/Sim/Components/Component.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace snapflow;
using namespace snapflow::tools;
using llvm::Error;
using llvm::formatv;

namespace {

/// "1.50 TiB", "64.00 GiB", "520.0 MB": binary units, as capacities are sized.
std::string humanBytes(double bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  return u == 0 ? formatv("{0} B", static_cast<int64_t>(bytes)).str()
                : formatv("{0:f2} {1}", bytes, units[u]).str();
}

} // namespace

llvm::Expected<Workload> snapflow::tools::resolveWorkload(const WorkloadOptions &o,
                                         bool needChip) {
  Workload w;
  auto config = models::ModelConfig::load(o.model);
  if (!config)
    return config.takeError();
  w.config = std::move(*config);
  if (o.batch <= 0 || o.batch > models::kMaxBatch)
    return makeError(formatv("--batch must be in [1, {0}], got {1}",
                             models::kMaxBatch, o.batch));
  if (o.context <= 0)
    return makeError(formatv("--context must be > 0, got {0}", o.context));
  if (!o.weightsDtype.empty()) {
    if (o.weightsDtype == "bf16")
      w.weightsDtype = models::WeightDtype::BF16;
    else if (o.weightsDtype == "fp8")
      w.weightsDtype = models::WeightDtype::FP8;
    else
      return makeError("--weights-dtype must be bf16 or fp8, got '" +
                       o.weightsDtype + "'");
  }
  if (!needChip)
    return w;
  auto chip = arch::ArchModel::load(o.chip);
  if (!chip)
    return chip.takeError();
  w.chip = std::move(*chip);
  {
    mlir::MLIRContext context;
    auto policy = kv::resolvePolicy(&context, o.kv, o.context);
    if (!policy) // the message names the policy string
      return policy.takeError();
    w.kvLabel = policy->getLabel();
    w.kvSlots = policy->getSlotsFor(o.context);
    w.kvCompressing = policy->isCompressing();
  }
  // tp 0 in the options means "not given": every socket of the chip.
  w.tp = o.tp == 0 ? w.chip.numSockets() : o.tp;
  if (w.tp < 1 || w.tp > w.chip.numSockets())
    return makeError(formatv("--tp {0} is not possible on {1}, which has {2} "
                             "socket(s)",
                             w.tp, w.chip.getName(), w.chip.numSockets()));
  return w;
}


Error snapflow::tools::runList(bool components, llvm::raw_ostream &os) {
  if (components) {
    sim::describeComponents(os);
    return Error::success();
  }
  os << "Models (--model NAME, or a path to a Hugging Face config.json):\n";
  for (const std::string &name : models::ModelConfig::builtinNames()) {
    auto c = models::ModelConfig::load(name);
    if (!c)
      return c.takeError();
    os << formatv("  {0,-18} {1,-12} {2} layers, hidden {3}, {4}\n", name,
                  c->modelType, c->numLayers, c->hiddenSize,
                  c->isMLA() ? formatv("MLA, {0} routed experts (top {1})",
                                       c->numRoutedExperts,
                                       c->numExpertsPerToken)
                                   .str()
                             : formatv("GQA {0}/{1} heads", c->numHeads,
                                       c->numKvHeads)
                                   .str());
  }
  os << "\nChips (--chip NAME, or a path to a chip YAML file):\n";
  for (const std::string &name : arch::ArchModel::builtinNames()) {
    auto chip = arch::ArchModel::load(name);
    if (!chip)
      return chip.takeError();
    os << formatv("  {0,-18} {1} socket(s); {2}\n", name, chip->numSockets(),
                  chip->getDescription());
  }
  os << "\nKV policies (--kv POLICY[:key=value,...]):\n"
     << kv::describePolicies();
  return Error::success();
}

Error snapflow::tools::runInfo(const WorkloadOptions &o, bool json,
                               llvm::raw_ostream &os) {
  auto w = resolveWorkload(o, /*needChip=*/true);
  if (!w)
    return w.takeError();

  mlir::MLIRContext context;
  models::BuildOptions build;
  build.batch = o.batch;
  build.contextTokens = o.context;
  build.buildPrefill = false;
  build.weightsDtype = w->weightsDtype;
  auto module = models::buildModel(context, w->config, build);
  if (!module)
    return module.takeError();
  // The KV bytes come from the compressed IR, the same the compiler emits.
  mlir::PassManager pm(&context);
  pm.addPass(kv::createKVCompress({o.kv, o.context}));
  if (mlir::failed(pm.run(**module)))
    return makeError("internal error: --kv-compress failed on " +
                     w->config.name);
  auto decode = (*module)->lookupSymbol<mlir::func::FuncOp>("decode");
  std::string diagnostics;
  mlir::FailureOr<ModelStats> checkedStats = [&] {
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      diagnostics += d.str();
      return mlir::success();
    });
    return computeModelStats(decode);
  }();
  if (mlir::failed(checkedStats))
    return makeError(w->config.name + ": " + diagnostics);
  const ModelStats &stats = *checkedStats;

  int64_t kvBytes = stats.kvBytesPerToken * stats.kvSlots * o.batch;

  // Per socket: the compiler's own memory plan (shard-tp, fuse-layers,
  // plan-memory) on the compressed IR; "full" leaves its caches as they are.
  PipelineOptions p;
  p.chip = o.chip;
  p.kv = "full";
  p.planOnly = true;
  p.tp = w->tp;
  p.requireFit = false;
  mlir::PassManager planPm(&context);
  buildSnapflowPipeline(planPm, p);
  if (mlir::failed(planPm.run(**module)))
    return makeError("internal error: the pipeline failed on " +
                     w->config.name);
  df::MemoryPlanAttr plan = df::getMemoryPlan(decode);
  if (!plan)
    return makeError("internal error: no memory plan");
  int64_t need = plan.getWeightsBytes() + plan.getKvBytes();
  auto fits = [&](arch::MemoryTier tier) {
    if (tier == arch::MemoryTier::HBM)
      return plan.fits();
    return need <= w->chip.tierBytesPerSocket(tier);
  };

  if (json) {
    llvm::json::Object fitsJson;
    for (arch::MemoryTier tier : arch::kAllTiers)
      fitsJson[arch::tierName(tier)] = fits(tier);
    llvm::json::Object root{
        {"layers", stats.layers},
        {"params_total", stats.paramsTotal},
        {"params_active", stats.paramsActive},
        {"kv_bytes_per_token", stats.kvBytesPerToken},
        {"kv_bytes", kvBytes},
        {"fits", std::move(fitsJson)},
    };
    os << formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
    return Error::success();
  }

  const models::ModelConfig &c = w->config;
  os << formatv("{0} ({1}) on {2}, tensor parallel over {3} of {4} socket(s)\n",
                c.name, c.modelType, w->chip.getName(), w->tp,
                w->chip.numSockets());
  os << formatv("  layers       {0} ({1} dense + {2} MoE), {3}\n", stats.layers,
                stats.layers - stats.moeLayers, stats.moeLayers,
                c.isMLA() ? formatv("MLA latent {0} + rope {1}", c.kvLoraRank,
                                    c.qkRopeHeadDim)
                                .str()
                          : formatv("GQA {0} heads / {1} KV heads",
                                    c.numHeads, c.numKvHeads)
                                .str());
  os << formatv("  parameters   {0:f2} B total, {1:f2} B active per token\n",
                stats.paramsTotal / 1e9, stats.paramsActive / 1e9);
  os << formatv("  weights      {0} (projections in {1})\n",
                humanBytes(stats.weightBytes),
                models::weightDtypeName(
                    w->weightsDtype.value_or(c.weightDtype)));
  os << formatv("  KV cache     {0} B per token of one sequence\n",
                stats.kvBytesPerToken);
  os << formatv("               {0} keeps {1} of {2} tokens per sequence "
                "({3:f1}x less than full)\n",
                w->kvLabel, w->kvSlots, o.context,
                static_cast<double>(o.context) / w->kvSlots);
  os << formatv("               batch {0}: {1} in all\n", o.batch,
                humanBytes(kvBytes));
  std::string kvPlacement =
      w->tp == 1 ? std::string("one socket")
      : c.isMLA()
          ? std::string("MLA latent cache replicated on every socket")
          : formatv("{0} of {1} KV heads per socket",
                    plan.getKvBytes() * c.numKvHeads / std::max<int64_t>(1, kvBytes),
                    c.numKvHeads)
                .str();
  os << formatv("\n  per socket   weights {0} + KV {1} ({2}); the compiler's "
                "memory plan\n",
                humanBytes(plan.getWeightsBytes()), humanBytes(plan.getKvBytes()),
                kvPlacement);
  os << formatv("  {0,-6} {1,12} {2,12}  {3}\n", "tier", "capacity",
                "weights+KV", "fits");
  for (arch::MemoryTier tier : arch::kAllTiers)
    os << formatv("  {0,-6} {1,12} {2,12}  {3}\n", arch::tierName(tier),
                  humanBytes(w->chip.tierBytesPerSocket(tier)),
                  humanBytes(need), fits(tier) ? "yes" : "no");
  os << formatv("  largest batch that fits in HBM: {0}\n", plan.getMaxBatch());
  return Error::success();
}

Error snapflow::tools::runImport(const WorkloadOptions &o,
                                 const ImportOptions &io,
                                 const std::string &outputPath) {
  auto w = resolveWorkload(o, /*needChip=*/false);
  if (!w)
    return w.takeError();
  if (io.phase != "both" && io.phase != "decode" && io.phase != "prefill")
    return makeError("--phase must be decode, prefill or both, got '" +
                     io.phase + "'");
  if (io.mtpDepth > 0 && io.phase == "prefill")
    return makeError("--mtp applies to decode; --phase prefill builds none");
  mlir::MLIRContext context;
  models::BuildOptions build;
  build.batch = o.batch;
  build.contextTokens = o.context;
  build.promptTokens = io.promptTokens;
  build.weightsDtype = w->weightsDtype;
  build.mtpDepth = io.mtpDepth;
  build.mtpAcceptance = io.mtpAcceptance;
  build.buildDecode = io.phase != "prefill";
  build.buildPrefill = io.phase != "decode";
  auto module = models::buildModel(context, w->config, build);
  if (!module)
    return module.takeError();
  std::string error;
  auto out = mlir::openOutputFile(outputPath, &error);
  if (!out)
    return makeError(error);
  (*module)->print(out->os());
  out->keep();
  return Error::success();
}
