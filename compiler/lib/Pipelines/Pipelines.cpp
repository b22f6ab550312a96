//===- Pipelines.cpp - The snapflow compilation pipeline ------------------===//
//
// Reads top to bottom as the compiler's architecture: the target chip, then
// model-level rewrites (compression, parallelism, looping), then chip mapping
// (tiles, memory), then lowering to the dataflow program.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Pipelines/Pipelines.h"

#include "snapflow/Conversion/Passes.h"
#include "snapflow/Dialect/Dataflow/Transforms/Passes.h"
#include "snapflow/Dialect/KV/Transforms/Passes.h"
#include "snapflow/Dialect/LLM/Transforms/Passes.h"
#include "snapflow/Mapping/Passes.h"

#include "snapflow/Support/Number.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringRef.h"

using namespace mlir;
using namespace snapflow;

const PipelineOptions::Info &PipelineOptions::info(llvm::StringRef flag) {
  static const Info infos[] = {
#define SNAPFLOW_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP) {FLAG, HELP},
#include "snapflow/Pipelines/PipelineOptions.def"
  };
  for (const Info &i : infos)
    if (flag == i.flag)
      return i;
  llvm_unreachable("not a pipeline option");
}

namespace {
void printValue(llvm::raw_ostream &os, const std::string &v) {
  // A value with a space is braced, as the pass-option parser reads it.
  if (llvm::StringRef(v).contains(' '))
    os << '{' << v << '}';
  else
    os << v;
}
void printValue(llvm::raw_ostream &os, int64_t v) { os << v; }
void printValue(llvm::raw_ostream &os, bool v) { os << (v ? "true" : "false"); }
void printValue(llvm::raw_ostream &os, double v) { os << shortestText(v); }
} // namespace

std::string PipelineOptions::text() const {
  std::string out;
  llvm::raw_string_ostream os(out);
  const char *separator = "";
  // require-fit and plan-only say whether to stop, not what is computed:
  // a program that exists is the same either way.
#define SNAPFLOW_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)             \
  if (llvm::StringRef(FLAG) != "require-fit" &&                                \
      llvm::StringRef(FLAG) != "plan-only") {                                  \
    os << separator << FLAG << "=";                                            \
    printValue(os, FIELD);                                                     \
    separator = " ";                                                           \
  }
#include "snapflow/Pipelines/PipelineOptions.def"
  return out;
}

void snapflow::buildSnapflowPipeline(OpPassManager &pm,
                                     const PipelineOptions &o) {
  // The target first: every later pass that needs the chip (shard-tp for
  // its socket count, tile-and-map, plan-memory) reads the module's
  // df.target, never an option of its own.
  if (o.resolvedChip)
    pm.addPass(createAssignTarget(*o.resolvedChip));
  else
    pm.addPass(createAssignTarget({o.chip, o.set}));
  // And what compiles it: snapflow's version and these options.
  pm.addPass(createRecordProvenance({o.text()}));

  // Model level: the KV policy first, while caches still have their full
  // context (its budget is a share of it); then split over the sockets, so
  // the selection ops inserted above follow the local heads; then fold the
  // now per-socket identical layers into loops.
  if (auto policy =
          llvm::dyn_cast_or_null<kv::KVPolicyAttrInterface>(o.resolvedPolicy))
    pm.addPass(kv::createKVCompress(
        policy,
        llvm::dyn_cast_or_null<kv::KVFormatAttrInterface>(o.resolvedFormat),
        o.context));
  else
    pm.addPass(kv::createKVCompress({o.kv, o.kvFormat, o.context}));
  llm::ShardTPOptions tp;
  tp.tp = o.tp;
  tp.mlaCache = o.mlaCache;
  tp.moe = o.moe;
  pm.addPass(llm::createShardTP(tp));
  if (o.routingSeed >= 0) {
    // After sharding: a socket's touched experts are what it streams.
    llm::MoERoutingOptions routing;
    routing.seed = static_cast<uint64_t>(o.routingSeed);
    routing.skew = o.routingSkew;
    pm.addPass(llm::createMoERouting(routing));
  }
  if (o.fuseLayers)
    pm.addNestedPass<func::FuncOp>(llm::createFuseLayers());

  // Chip mapping: tiles and units per stage, then the memory tier of every
  // tensor, checked against capacity.
  if (!o.planOnly)
    pm.addPass(createTileAndMap({o.maxTiles}));
  PlanMemoryOptions mem;
  mem.allowDdr = o.allowDdr;
  mem.requireFit = o.requireFit;
  pm.addPass(createPlanMemory(mem));
  if (o.planOnly)
    return;

  // Lowering: the df program the simulator runs; then how it runs across
  // sockets (each collective's algorithm) and across layers (pipelined
  // loops prefetching into spare SRAM).
  pm.addPass(createLowerToDF());
  pm.addPass(df::createPlanSram({o.requireFit}));
  pm.addPass(df::createChooseCollectives());
  pm.addPass(df::createPipelineLoops({o.loopOverlap}));
}

namespace {
/// `--snapflow-pipeline="chip=... kv=..."`: every PipelineOptions field.
struct CLIPipelineOptions : public PassPipelineOptions<CLIPipelineOptions> {
#define SNAPFLOW_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)             \
  Option<TYPE> FIELD{*this, FLAG, llvm::cl::init(DEFAULT),                     \
                     llvm::cl::desc(HELP)};
#include "snapflow/Pipelines/PipelineOptions.def"

  PipelineOptions get() const {
    PipelineOptions o;
#define SNAPFLOW_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)             \
  o.FIELD = FIELD;
#include "snapflow/Pipelines/PipelineOptions.def"
    return o;
  }
};
} // namespace

void snapflow::registerSnapflowPipeline() {
  PassPipelineRegistration<CLIPipelineOptions>(
      "snapflow-pipeline",
      "Assign the target chip, record what compiles it, compress KV, shard "
      "over sockets, fuse layers, "
      "tile and map, plan memory, lower to df, choose collectives, pipeline "
      "loops",
      [](OpPassManager &pm, const CLIPipelineOptions &cli) {
        buildSnapflowPipeline(pm, cli.get());
      });
}
