//===- LoweringTest.cpp - The df program against the model's analytics ---===//
//
// Runs the whole snapflow pipeline and checks what the df program moves and
// computes per step against numbers derived by hand from the model shapes.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Analysis/ProgramStats.h"
#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"
#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Dialect/LLM/IR/LLMOps.h"
#include "snapflow/Models/ModelBuilder.h"
#include "snapflow/Pipelines/Pipelines.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace snapflow;

namespace {
/// Compiles one decode step and returns the stats of its df program.
ProgramStats compileDecode(MLIRContext &ctx, const std::string &model,
                           const std::string &chip, int64_t batch,
                           int64_t context, int64_t tp, const std::string &kv,
                           bool fuse = true) {
  auto config = models::ModelConfig::load(model);
  EXPECT_TRUE(static_cast<bool>(config));
  models::BuildOptions build;
  build.batch = batch;
  build.contextTokens = context;
  build.buildPrefill = false;
  auto module = models::buildModel(ctx, *config, build);
  EXPECT_TRUE(static_cast<bool>(module));
  PipelineOptions o;
  o.chip = chip;
  o.kv = kv;
  o.tp = tp;
  o.fuseLayers = fuse;
  PassManager pm(&ctx);
  buildSnapflowPipeline(pm, o);
  EXPECT_TRUE(succeeded(pm.run(**module)));
  auto program = (*module)->lookupSymbol<df::ProgramOp>("decode");
  EXPECT_TRUE(program);
  auto stats = computeProgramStats(program);
  EXPECT_TRUE(succeeded(stats));
  return *stats;
}
} // namespace

// Llama-3.1-8B decode, batch 1, context 4096, one socket: the program reads
// every weight but the embedding table once, (8,030,261,248 - 525,336,576) x
// 2 B = 15,009,849,344 B, one embedding row of 8,192 B and the KV cache, 32
// layers x 4096 slots x 2 x 8 x 128 x 2 B = 536,870,912 B: 15,546,728,448 B
// from HBM (the issue asks for 1%; the lowering is exact). FLOPs equal the
// cost model's 17,181,884,416 (CostModelTest derives them).
TEST(Lowering, Llama8BReadsWeightsAndKV) {
  MLIRContext ctx;
  ProgramStats s =
      compileDecode(ctx, "llama-3.1-8b", "sn40l", 1, 4096, 1, "full");
  const int64_t analytic =
      (8030261248LL - 525336576LL) * 2 + 8192 + 536870912LL;
  EXPECT_NEAR(static_cast<double>(s.offChipBytesRead()),
              static_cast<double>(analytic), 0.01 * analytic);
  EXPECT_EQ(s.offChipBytesRead(), analytic);
  EXPECT_EQ(s.flops, 17181884416LL);
  // One new token per layer goes to the cache: 32 x 4096 B.
  EXPECT_EQ(s.bytesStored[static_cast<int>(arch::MemoryTier::HBM)],
            32LL * 4096);
}

// Kernel looping changes the program's shape, not its traffic: the unfused
// program (one section per layer run) reads and computes the same.
TEST(Lowering, FusionKeepsTraffic) {
  MLIRContext ctx;
  ProgramStats fused = compileDecode(ctx, "llama-3.2-1b", "sn40l", 2, 1024, 1,
                                     "full", /*fuse=*/true);
  ProgramStats flat = compileDecode(ctx, "llama-3.2-1b", "sn40l", 2, 1024, 1,
                                    "full", /*fuse=*/false);
  EXPECT_EQ(fused.offChipBytesRead(), flat.offChipBytesRead());
  EXPECT_EQ(fused.flops, flat.flops);
  EXPECT_LT(fused.sections, 4);
}

// SnapStream at ratio 4 reads a quarter of the KV: DeepSeek-V2-Lite decode,
// batch 4, context 4096 on 4 sockets: the latent cache of 27 x 576 x 2 B =
// 31,104 B per token, replicated per socket, 4 sequences: 4096 slots ->
// 509,607,936 B; 1024 slots -> 127,401,984 B, i.e. 382,205,952 B fewer.
TEST(Lowering, SnapStreamReadsAQuarterOfTheKV) {
  MLIRContext ctx;
  ProgramStats full =
      compileDecode(ctx, "deepseek-v2-lite", "sn40l-16", 4, 4096, 4, "full");
  ProgramStats snap = compileDecode(ctx, "deepseek-v2-lite", "sn40l-16", 4,
                                    4096, 4, "snapstream:ratio=4");
  EXPECT_EQ(full.offChipBytesRead() - snap.offChipBytesRead(), 382205952LL);
  EXPECT_GT(full.collectiveBytes, 0);
}

// The chip travels as an object: a pipeline handed the resolved chip
// (PipelineOptions::resolvedChip, what the driver does with --chip and
// --set) records exactly the target that chip= and set= give, and the
// target's chip model is built once per context: every pass and the Loader
// get the same object back.
TEST(Lowering, ResolvedChipEqualsNamedChip) {
  auto config = models::ModelConfig::load("llama-3.2-1b");
  ASSERT_TRUE(static_cast<bool>(config));
  models::BuildOptions build;
  build.batch = 1;
  build.contextTokens = 256;
  build.buildPrefill = false;
  auto chip = arch::ArchModel::load("sn40l");
  ASSERT_TRUE(static_cast<bool>(chip));
  auto changed = chip->withOverrides({"socket.hbm_bytes_per_s=1e12"}, "set");
  ASSERT_TRUE(static_cast<bool>(changed));

  MLIRContext ctx;
  df::TargetAttr targets[2];
  for (int resolved = 0; resolved < 2; ++resolved) {
    auto module = models::buildModel(ctx, *config, build);
    ASSERT_TRUE(static_cast<bool>(module));
    PipelineOptions o;
    o.chip = "sn40l";
    o.set = "socket.hbm_bytes_per_s=1e12";
    o.tp = 1;
    if (resolved)
      o.resolvedChip = *changed;
    PassManager pm(&ctx);
    buildSnapflowPipeline(pm, o);
    ASSERT_TRUE(succeeded(pm.run(**module)));
    targets[resolved] = df::getTarget(**module);
  }
  ASSERT_TRUE(targets[0]);
  EXPECT_EQ(targets[0], targets[1]);
  const arch::ArchModel &model = targets[0].getArchModel();
  EXPECT_EQ(&model, &targets[1].getArchModel());
  EXPECT_TRUE(model.differences(*changed).empty());
  EXPECT_EQ(model.socket().hbmBytesPerS, 1e12);
}

// tile-and-map and lower-to-df know an op as a stage only through its
// TrafficOpInterface: every llm and kv op with a cost implements it, but
// the ones that never become a stage (weights, views, collectives), so an
// op added without saying what it computes and moves is caught here rather
// than silently left unmapped.
TEST(Lowering, EveryCostedOpDeclaresItsTraffic) {
  MLIRContext ctx;
  ctx.loadDialect<llm::LLMDialect, kv::KVDialect>();
  const std::set<std::string> notStages = {"llm.param",       "llm.reshape",
                                           "llm.shard_slice", "llm.all_reduce",
                                           "llm.all_gather",  "llm.all_to_all"};
  int stages = 0;
  for (RegisteredOperationName op : ctx.getRegisteredOperations()) {
    StringRef dialect = op.getDialectNamespace();
    if ((dialect != "llm" && dialect != "kv") ||
        !op.hasInterface<CostOpInterface>())
      continue;
    std::string name = op.getStringRef().str();
    bool traffic = op.hasInterface<TrafficOpInterface>();
    EXPECT_EQ(traffic, !notStages.count(name)) << name;
    stages += traffic;
  }
  EXPECT_GE(stages, 28);
}
