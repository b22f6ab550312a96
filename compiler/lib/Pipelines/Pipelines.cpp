//===- Pipelines.cpp - The snapflow compilation pipeline ------------------===//
//
// Reads top to bottom as the compiler's architecture: model-level rewrites
// (compression, parallelism, looping), then chip mapping (tiles, memory),
// then lowering to the dataflow program.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Pipelines/Pipelines.h"

#include "snapflow/Dialect/KV/Transforms/Passes.h"
#include "snapflow/Dialect/LLM/Transforms/Passes.h"
#include "snapflow/Conversion/Passes.h"
#include "snapflow/Mapping/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace snapflow;

void snapflow::buildSnapflowPipeline(OpPassManager &pm,
                                     const PipelineOptions &o) {
  // Model level: the KV policy first, while caches still have their full
  // context (its budget is a share of it); then split over the sockets, so
  // the selection ops inserted above follow the local heads; then fold the
  // now per-socket identical layers into loops.
  pm.addPass(kv::createKVCompress({o.kv, o.context}));
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
  if (!o.planOnly) {
    TileAndMapOptions tiles;
    tiles.chip = o.chip;
    pm.addPass(createTileAndMap(tiles));
  }
  PlanMemoryOptions mem;
  mem.chip = o.chip;
  mem.allowDdr = o.allowDdr;
  mem.requireFit = o.requireFit;
  pm.addPass(createPlanMemory(mem));
  if (o.planOnly)
    return;

  // Lowering: the df program the simulator runs.
  pm.addPass(createLowerToDF());
}

namespace {
struct CLIPipelineOptions
    : public PassPipelineOptions<CLIPipelineOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::init("sn40l-16"),
                           llvm::cl::desc("Chip name or YAML path")};
  Option<std::string> kv{*this, "kv", llvm::cl::init("full"),
                         llvm::cl::desc("KV policy string")};
  Option<int64_t> context{*this, "context", llvm::cl::init(0),
                          llvm::cl::desc("Context the policy is resolved for")};
  Option<int64_t> tp{*this, "tp", llvm::cl::init(1),
                     llvm::cl::desc("Tensor-parallel sockets")};
  Option<std::string> mlaCache{*this, "mla-cache",
                               llvm::cl::init("replicate"),
                               llvm::cl::desc("replicate | sequence")};
  Option<std::string> moe{*this, "moe", llvm::cl::init("expert"),
                          llvm::cl::desc("expert | split")};
  Option<bool> allowDdr{*this, "allow-ddr", llvm::cl::init(false),
                        llvm::cl::desc("Let weights overflow to DDR")};
  Option<bool> fuseLayers{*this, "fuse-layers", llvm::cl::init(true),
                          llvm::cl::desc("Fold identical layers into loops")};
  Option<int64_t> routingSeed{
      *this, "routing-seed", llvm::cl::init(-1),
      llvm::cl::desc("Seeded MoE routing model (-1: uniform formula)")};
  Option<double> routingSkew{*this, "routing-skew", llvm::cl::init(0.0),
                             llvm::cl::desc("Zipf exponent of expert "
                                            "popularity")};
};
} // namespace

void snapflow::registerSnapflowPipeline() {
  PassPipelineRegistration<CLIPipelineOptions>(
      "snapflow-pipeline",
      "Compress KV, shard over sockets, fuse layers, tile and map, plan "
      "memory, lower to df",
      [](OpPassManager &pm, const CLIPipelineOptions &cli) {
        PipelineOptions o;
        o.chip = cli.chip;
        o.kv = cli.kv;
        o.context = cli.context;
        o.tp = cli.tp;
        o.mlaCache = cli.mlaCache;
        o.moe = cli.moe;
        o.allowDdr = cli.allowDdr;
        o.fuseLayers = cli.fuseLayers;
        o.routingSeed = cli.routingSeed;
        o.routingSkew = cli.routingSkew;
        buildSnapflowPipeline(pm, o);
      });
}
