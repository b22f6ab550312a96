//===- Info.cpp - What a model costs on a chip, and its llm IR ------------===//

#include "snapflow/Driver/Info.h"

#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"
#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Dialect/KV/Transforms/Passes.h"
#include "snapflow/Driver/Compile.h"
#include "snapflow/Driver/Context.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Models/ModelBuilder.h"
#include "snapflow/Pipelines/Pipelines.h"
#include "snapflow/Support/CheckedInt.h"
#include "snapflow/Support/Output.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace snapflow;
using namespace snapflow::driver;
using llvm::Error;
using llvm::formatv;

llvm::Expected<ModelInfo>
snapflow::driver::describeWorkload(const WorkloadOptions &o,
                                   llm::MlaCache mlaCache) {
  auto w = resolveWorkload(o, /*needChip=*/true);
  if (!w)
    return w.takeError();

  mlir::MLIRContext &context = driverContext();
  context.printOpOnDiagnostic(false);
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
  pm.addPass(kv::createKVCompress(
      llvm::cast<kv::KVPolicyAttrInterface>(w->kvPolicy),
      llvm::cast_or_null<kv::KVFormatAttrInterface>(w->kvFormat),
      w->config.cachePositions(o.context)));
  {
    DiagnosticCollector diagnostics(context);
    if (mlir::failed(pm.run(**module)))
      return makeError(
          diagnostics.text("--kv-compress failed on " + w->config.name));
  }
  auto decode = (*module)->lookupSymbol<mlir::func::FuncOp>("decode");
  std::string diagnostics;
  mlir::FailureOr<ModelStats> stats = [&] {
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      diagnostics += d.str();
      return mlir::success();
    });
    return computeModelStats(decode);
  }();
  if (mlir::failed(stats))
    return makeError(w->config.name + ": " + diagnostics);

  ModelInfo info;
  info.stats = *stats;
  info.batch = o.batch;
  info.context = o.context;
  // A policy's per-slot state and page digests are part of the cache's
  // footprint; its page backup lives in DDR beside it.
  // A format's residual keeps its newest tokens at the dtype, above the
  // stored bytes per token.
  CheckedInt state = 0, backup = 0, residual = 0;
  for (mlir::Type t : decode.getArgumentTypes())
    if (auto cache = mlir::dyn_cast<kv::KVCacheTypeInterface>(t)) {
      residual += (cache.getFullBytesPerTokenPerLayer() -
                   cache.getBytesPerTokenPerLayer()) *
                  cache.getResidualSlots() * cache.getBatch() *
                  cache.getLayers();
      state += (cache.getStateBytesPerSequencePerLayer() +
                cache.getDigestBytesPerSequencePerLayer()) *
               cache.getBatch() * cache.getLayers();
      backup += cache.getBackupBytes();
    }
  info.kvStateBytes = state.get().value_or(0);
  info.kvBackupBytes = backup.get().value_or(0);
  std::optional<int64_t> kvBytes =
      (CheckedInt(stats->kvBytesPerToken) * stats->kvSlots * o.batch + state +
       residual + stats->kvWindowBytes)
          .get();
  if (!kvBytes)
    return makeError(formatv("{0}: the KV cache of batch {1} exceeds a "
                             "64-bit byte count",
                             w->config.name, o.batch));
  info.kvBytes = *kvBytes;

  // Per socket: the compiler's own memory plan (shard-tp, fuse-layers,
  // plan-memory) on the compressed IR; "full" leaves its caches as they are.
  PipelineOptions p;
  p.chip = o.chip;
  p.set = llvm::join(o.set, ",");
  p.kv = "full";
  p.mlaCache = llm::mlaCacheName(mlaCache).str();
  p.planOnly = true;
  p.tp = w->tp;
  p.requireFit = false;
  mlir::PassManager planPm(&context);
  buildSnapflowPipeline(planPm, p);
  {
    // What the user can fix (a TP that does not divide the heads) is the
    // pass's own message, said once.
    DiagnosticCollector diagnostics(context);
    if (mlir::failed(planPm.run(**module))) {
      info.planError = withTpAdvice(
          diagnostics.text("the pipeline failed on " + w->config.name), *w);
      info.mlaCache = mlaCache;
      info.workload = std::move(*w);
      return info;
    }
  }
  df::MemoryPlanAttr plan = df::getMemoryPlan(decode);
  if (!plan)
    return makeError("internal error: no memory plan");
  info.planWeightsBytes = plan.getWeightsBytes();
  info.planKvBytes = plan.getKvBytes();
  info.maxBatch = plan.getMaxBatch();
  std::optional<int64_t> need =
      (CheckedInt(plan.getWeightsBytes()) + plan.getKvBytes()).get();
  if (!need)
    return makeError(w->config.name +
                     ": weights + KV per socket exceed a 64-bit byte count");
  info.needBytes = *need;
  for (arch::MemoryTier tier : arch::kAllTiers)
    info.fits[static_cast<size_t>(tier)] =
        tier == arch::MemoryTier::HBM
            ? plan.fits()
            : info.needBytes <= w->chip.tierBytesPerSocket(tier);
  info.mlaCache = mlaCache;
  info.workload = std::move(*w);
  return info;
}

Error snapflow::driver::importModel(const WorkloadOptions &o,
                                    const ImportOptions &io,
                                    const std::string &outputPath) {
  auto w = resolveWorkload(o, /*needChip=*/false);
  if (!w)
    return w.takeError();
  if (io.mtpDepth > 0 && io.phase == arch::Phase::Prefill)
    return makeError("--mtp applies to decode; --phase prefill builds none");
  mlir::MLIRContext &context = driverContext();
  models::BuildOptions build;
  build.batch = o.batch;
  build.contextTokens = o.context;
  build.promptTokens = io.promptTokens;
  build.weightsDtype = w->weightsDtype;
  build.mtpDepth = io.mtpDepth;
  build.mtpAcceptance = io.mtpAcceptance;
  build.prefillChunk =
      io.prefillChunk == kPrefillChunkAuto ? 0 : io.prefillChunk;
  build.buildDecode = io.phase != arch::Phase::Prefill;
  build.buildPrefill = io.phase != arch::Phase::Decode;
  auto module = models::buildModel(context, w->config, build);
  if (!module)
    return module.takeError();
  return writeOutput(outputPath, [&](llvm::raw_ostream &os) {
    (*module)->print(os);
    return Error::success();
  });
}
