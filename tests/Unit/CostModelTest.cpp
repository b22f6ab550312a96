//===- CostModelTest.cpp - FLOPs, bytes and parameters from llm IR -------===//
//
// The expected numbers are derived by hand in the comments from the model
// shapes (FACTS.md), never copied from the program's output.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Analysis/ModelStats.h"
#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Dialect/KV/Reference/KVReference.h"
#include "snapflow/Dialect/KV/Transforms/Passes.h"
#include "snapflow/Dialect/LLM/IR/LLMOps.h"
#include "snapflow/Dialect/LLM/Transforms/Passes.h"
#include "snapflow/Models/ModelBuilder.h"

#include "mlir/Pass/PassManager.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir;
using namespace snapflow;

namespace {

ModelStats statsOf(MLIRContext &ctx, const std::string &model,
                   const models::BuildOptions &options,
                   const std::string &phase = "decode") {
  auto config = models::ModelConfig::load(model);
  EXPECT_TRUE(static_cast<bool>(config));
  auto module = models::buildModel(ctx, *config, options);
  EXPECT_TRUE(static_cast<bool>(module));
  auto stats = computeModelStats((*module)->lookupSymbol<func::FuncOp>(phase));
  EXPECT_TRUE(succeeded(stats));
  return *stats;
}

models::BuildOptions decodeAt(int64_t batch, int64_t context) {
  models::BuildOptions o;
  o.batch = batch;
  o.contextTokens = context;
  o.buildPrefill = false;
  return o;
}

} // namespace

// Llama-3.1-8B parameters: embed 128256 x 4096 = 525,336,576 (x2, untied
// lm_head); per layer q,o 4096^2 = 16,777,216 each, k,v 1024 x 4096 =
// 4,194,304 each, MLP 3 x 4096 x 14336 = 176,160,768, norms 2 x 4096:
// 218,112,000 per layer x 32 = 6,979,584,000; final norm 4096.
// Total 8,030,261,248 (8.03B, FACTS.md).
TEST(CostModel, Llama8BParameters) {
  MLIRContext ctx;
  ModelStats s = statsOf(ctx, "llama-3.1-8b", decodeAt(1, 4096));
  EXPECT_EQ(s.paramsTotal, 8030261248LL);
  EXPECT_EQ(s.paramsActive, s.paramsTotal);
  EXPECT_EQ(s.layers, 32);
  // KV per token: 2 (K, V) x 8 heads x 128 x 2 B x 32 layers = 131,072 B.
  EXPECT_EQ(s.kvBytesPerToken, 131072);
}

// Llama-3.1-8B decode, batch 1, context 4096 (the Kernel Looping paper's
// point: ~20 GFLOPs, ~15.4 GB read, KV 0.5 GB per token).
// FLOPs per layer: linear q,o 2 x 4096^2 = 33,554,432 each, k,v 2 x 4096 x
// 1024 = 8,388,608 each; attention 32 heads x 4096 slots x (4 x 128 + 5) =
// 67,764,224; MLP 6 x 4096 x 14336 + 5 x 14336 = 352,393,216; two norms
// 4 x 4096 each = 32,768; rope 3 x 128 x (32 + 8) = 15,360; two adds 8,192.
// = 504,099,840 x 32 = 16,131,194,880; final norm 16,384; lm_head 2 x 4096 x
// 128256 = 1,050,673,152. Total 17,181,884,416 (17.2 GFLOPs: the paper's
// "about 20" also counts work we keep on chip; see docs/Validation.md).
TEST(CostModel, Llama8BDecodeFlops) {
  MLIRContext ctx;
  ModelStats s = statsOf(ctx, "llama-3.1-8b", decodeAt(1, 4096));
  EXPECT_EQ(s.flops, 17181884416LL);
}

// Bytes read: every weight but the embedding table, in bf16:
// (8,030,261,248 - 525,336,576) x 2 = 15,009,849,344; the KV cache
// 4096 slots x 131,072 B = 536,870,912 (0.5 GiB); one embedding row 8,192 B
// and 4 B of token id; activations per layer (bf16, 4096-wide rows of 8,192 B
// unless said): norm inputs 2 x 8,192, q/k/v/o inputs 4 x 8,192, rope q
// 8,192 + k 2,048, attention q 8,192 + k,v 2 x 2,048, MLP input 8,192, two adds
// 2 x 16,384 = 112,640 x 32 = 3,604,480; final norm and lm_head inputs
// 2 x 8,192. Total 15,550,349,316 B (15.55 GB vs ~15.4 GB published, 1%).
TEST(CostModel, Llama8BDecodeBytes) {
  MLIRContext ctx;
  ModelStats s = statsOf(ctx, "llama-3.1-8b", decodeAt(1, 4096));
  const int64_t weights = (8030261248LL - 525336576LL) * 2;
  const int64_t kv = 4096LL * 131072;
  const int64_t activations = 112640LL * 32 + 2 * 8192 + 8192 + 4;
  EXPECT_EQ(kv, 536870912LL);
  EXPECT_EQ(s.bytesRead, weights + kv + activations);
  EXPECT_EQ(s.bytesRead, 15550349316LL);
}

// DeepSeek-R1 (V3 architecture). Per layer: MLA q_a 7168 x 1536, q_a norm
// 1536, q_b 1536 x 128 x 192, kv_a 7168 x 576, kv_a norm 512, kv_b 512 x
// 128 x 256, o 128 x 128 x 7168: 187,107,328; two norms 14,336. Dense FFN
// 3 x 7168 x 18432 = 396,361,728 (3 layers). MoE: router 256 x 7168 =
// 1,835,008, 256 routed experts of 3 x 7168 x 2048 = 44,040,192, one shared
// of the same size (58 layers). Embeddings and lm_head 129280 x 7168 =
// 926,679,040 each, final norm 7168. Total 671,026,404,352 (671B published;
// the 58 x 256 router biases are not modelled). Active: 248 of 256 routed
// experts idle per token, 58 x 248 x 44,040,192 = 633,474,121,728 fewer:
// 37,552,282,624 (~37B published).
TEST(CostModel, DeepSeekR1Parameters) {
  MLIRContext ctx;
  ModelStats s = statsOf(ctx, "deepseek-r1", decodeAt(1, 4096));
  EXPECT_EQ(s.paramsTotal, 671026404352LL);
  EXPECT_EQ(s.paramsActive, 37552282624LL);
  EXPECT_EQ(s.layers, 61);
  EXPECT_EQ(s.moeLayers, 58);
  // MLA cache: (512 + 64) x 2 B x 61 layers = 70,272 B per token.
  EXPECT_EQ(s.kvBytesPerToken, 70272);
}

// DeepSeek-R1 weights in fp8 except embeddings, lm_head, norms and routers:
// bf16 parameters = 2 x 926,679,040 + 7168 + 61 x (1536 + 512 + 14336) +
// 58 x 1,835,008 = 1,853,358,080 + 7,168 + 999,424 + 106,430,464 =
// 1,960,795,136; the other 669,065,609,216 are fp8.
// Bytes = 2 x 1,960,795,136 + 669,065,609,216 = 672,987,199,488.
TEST(CostModel, DeepSeekR1WeightBytes) {
  MLIRContext ctx;
  ModelStats s = statsOf(ctx, "deepseek-r1", decodeAt(1, 4096));
  EXPECT_EQ(s.weightBytes, 672987199488LL);
}

namespace {
/// Parses `ir` (one func.func) and returns the cost of the first op named
/// `opName` in it.
struct OpCost {
  int64_t flops, read, written, link;
  /// The share a KV policy's or format's upkeep adds (getKVUpkeep*).
  int64_t upkeepFlops, upkeepBytes;
  /// The rows of its GEMM (getGemmRows; 0 when it is none).
  int64_t rows;
};
OpCost costOf(const std::string &ir, llvm::StringRef opName) {
  MLIRContext ctx;
  ctx.loadDialect<func::FuncDialect, llm::LLMDialect, kv::KVDialect>();
  OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(ir, &ctx);
  EXPECT_TRUE(m) << "test IR does not parse";
  OpCost c{-1, -1, -1, -1, -1, -1, -1};
  m->walk([&](CostOpInterface op) {
    if (op->getName().getStringRef() == opName && c.flops < 0)
      c = {op.getFlops().value(),
           op.getBytesRead().value(),
           op.getBytesWritten().value(),
           op.getLinkBytes().value(),
           op.getKVUpkeepFlops().value(),
           op.getKVUpkeepBytes().value(),
           op.getGemmRows()};
  });
  return c;
}

/// A function of `args` whose body is `ops` (one op per line), for costOf.
std::string funcOf(const std::string &args, const std::string &ops) {
  return "func.func @f(" + args + ") {\n" + ops + "\n  return\n}\n";
}

/// A kv.evict over a cache of B = 3 sequences, S = 32 slots and G = 2
/// KV-head groups under `policy`.
std::string evictIR(const std::string &policy) {
  std::string cache = "!kv.cache<layers = 2, batch = 3, slots = 32, kv_heads "
                      "= 2, head_dim = 16, dtype = bf16, policy = " +
                      policy + ">";
  return "func.func @f(%c: " + cache +
         ", %p: tensor<3x2x32xf32>) {\n  %e = kv.evict %c[1], %p : " + cache +
         ", tensor<3x2x32xf32>\n  return\n}\n";
}
} // namespace

// A linear of 2 x 3 rows by 8 -> 16 (bf16): 2 x 6 x 8 x 16 = 1536 FLOPs;
// reads 6 x 8 x 2 = 96 B of input and 16 x 8 x 2 = 256 B of weight; writes
// 6 x 16 x 2 = 192 B.
TEST(CostModel, LinearOp) {
  OpCost c = costOf(R"(
    func.func @f(%x: tensor<2x3x8xbf16>, %w: tensor<16x8xbf16>) -> tensor<2x3x16xbf16> {
      %y = llm.linear %x, %w : tensor<2x3x8xbf16>, tensor<16x8xbf16> -> tensor<2x3x16xbf16>
      return %y : tensor<2x3x16xbf16>
    })",
                    "llm.linear");
  EXPECT_EQ(c.flops, 1536);
  EXPECT_EQ(c.read, 96 + 256);
  EXPECT_EQ(c.written, 192);
  // Its GEMM's rows: the 2 x 3 tokens sharing each weight.
  EXPECT_EQ(c.rows, 6);
}

// MoE with E = 4 experts, top 2, over N = 1 token: the uniform model touches
// E (1 - (1 - 2/4)^1) = 2 experts, so half of the routed weights are read.
// Routed weights: 3 x 4 x 8 x 16 x 2 B = 3072 B -> 1536 B; input 32 B; the
// routing (1 token x 2 indices x 4 B) 8 B. FLOPs: 2 x (6 x 16 x 8 + 5 x 8)
// = 1616.
TEST(CostModel, MoEExpectedExperts) {
  OpCost c = costOf(R"(
    func.func @f(%x: tensor<1x1x16xbf16>, %r: tensor<1x1x2xi32>, %g: tensor<4x8x16xbf16>,
                 %u: tensor<4x8x16xbf16>, %d: tensor<4x16x8xbf16>) -> tensor<1x1x16xbf16> {
      %y = llm.moe %x, %r, %g, %u, %d {num_experts = 4, top_k = 2} : tensor<1x1x16xbf16>, tensor<1x1x2xi32>, tensor<4x8x16xbf16>, tensor<4x8x16xbf16>, tensor<4x16x8xbf16>
      return %y : tensor<1x1x16xbf16>
    })",
                    "llm.moe");
  EXPECT_EQ(c.flops, 1616);
  EXPECT_EQ(c.read, 32 + 8 + 1536);
  // The token's 2 assignments over the 2 experts they touch: 1 row each.
  EXPECT_EQ(c.rows, 1);
}

// Rows per active expert: 8 tokens of top 2 over E = 4 touch
// 4 (1 - (1 - 2/4)^8) = 3.984 experts, 16 / 3.984 = 4.02 tokens each: 4.
// With 2 expert shards this socket holds 4 of 8 experts, each of a token's
// 2 here with p = 2/8: 8 x 2 / 2 = 8 assignments over
// 4 (1 - (1 - 1/4)^8) = 3.60 experts, 2.2 each: 2.
TEST(CostModel, MoERowsPerActiveExpert) {
  const char *ir = R"(
    func.func @f(%x: tensor<1x8x16xbf16>, %r: tensor<1x8x2xi32>, %g: tensor<4x8x16xbf16>,
                 %u: tensor<4x8x16xbf16>, %d: tensor<4x16x8xbf16>) -> tensor<1x8x16xbf16> {
      %y = llm.moe %x, %r, %g, %u, %d {num_experts = 4, top_k = 2SHARDS} : tensor<1x8x16xbf16>, tensor<1x8x2xi32>, tensor<4x8x16xbf16>, tensor<4x8x16xbf16>, tensor<4x16x8xbf16>
      return %y : tensor<1x8x16xbf16>
    })";
  auto with = [&](const std::string &shards) {
    std::string text = ir;
    text.replace(text.find("SHARDS"), 6, shards);
    return costOf(text, "llm.moe").rows;
  };
  EXPECT_EQ(with(""), 4);
  EXPECT_EQ(with(", expert_shards = 2"), 2);
}

// The router of the same MoE: the GEMM 2 x 16 x 4 = 128 FLOPs, then a score
// and a top-k pass over the 4 experts of the token, 2 x 4 = 8. Reads the
// input (32 B) and the router (4 x 16 x 2 B = 128 B), writes 2 indices.
TEST(CostModel, RouteOp) {
  OpCost c = costOf(R"(
    func.func @f(%x: tensor<1x1x16xbf16>, %w: tensor<4x16xbf16>) -> tensor<1x1x2xi32> {
      %r = llm.route %x, %w {top_k = 2} : tensor<1x1x16xbf16>, tensor<4x16xbf16> -> tensor<1x1x2xi32>
      return %r : tensor<1x1x2xi32>
    })",
                    "llm.route");
  EXPECT_EQ(c.flops, 128 + 8);
  EXPECT_EQ(c.read, 32 + 128);
  EXPECT_EQ(c.written, 8);
  EXPECT_EQ(c.rows, 1);
}

// A ring all-reduce over 4 sockets of a 1 KiB tensor sends 2 x 3/4 x 1024 =
// 1536 B per socket.
TEST(CostModel, AllReduceLinkBytes) {
  OpCost c = costOf(R"(
    func.func @f(%x: tensor<1x1x512xbf16>) -> tensor<1x1x512xbf16> {
      %y = llm.all_reduce %x {group_size = 4, kind = #llm<reduce sum>} : tensor<1x1x512xbf16>
      return %y : tensor<1x1x512xbf16>
    })",
                    "llm.all_reduce");
  EXPECT_EQ(c.link, 1536);
}

// kv.score over B = 1, a prompt of L = 8 tokens with a window of W = 2
// queries, H = 4 heads in G = 2 groups of key dim 4. The window is the last
// two queries, causal: they see 7 and 8 keys, 15 (query, key) pairs per
// head (2 x (8 - 2) + 2 x 3 / 2), 60 in all, each 2 x 4 + 6 = 14 FLOPs: 840.
// Reads the window's queries 2 x 16 x 2 B = 64 B and the keys 8 x 8 x 2 B = 128
// B.
TEST(CostModel, ScoreOp) {
  OpCost c = costOf(R"(
    func.func @f(%q: tensor<1x8x16xbf16>, %k: tensor<1x8x8xbf16>) -> tensor<1x2x8xf32> {
      %s = kv.score %q, %k {num_heads = 4, num_groups = 2, obs_window = 2} : tensor<1x8x16xbf16>, tensor<1x8x8xbf16> -> tensor<1x2x8xf32>
      return %s : tensor<1x2x8xf32>
    })",
                    "kv.score");
  EXPECT_EQ(c.flops, 840);
  EXPECT_EQ(c.read, 64 + 128);
  EXPECT_EQ(c.written, 1 * 2 * 8 * 4);
}

// Absorbed MLA scoring: H = 2 heads, nope 16 + rope 8 query dims, latent 32 +
// rope 8, W = 2 of L = 8. Absorbing each window query's 16 non-rotary dims
// into the 32-wide latent: 2 x 1 x 2 x 2 x 16 x 32 = 4096; the causal window
// gives 7 + 8 = 15 pairs per head, 30 pairs of 2 x 40 + 6 = 86 FLOPs: 2580.
// Total 6676. Reads 2 x 48 x 2 = 192 B
// of queries, 8 x 40 x 2 = 640 B of latents, 64 x 32 x 2 = 4096 B of weight.
TEST(CostModel, AbsorbedScoreOp) {
  OpCost c = costOf(R"(
    func.func @f(%q: tensor<1x8x48xbf16>, %l: tensor<1x8x40xbf16>, %w: tensor<64x32xbf16>) -> tensor<1x1x8xf32> {
      %s = kv.score %q, %l absorb %w {num_heads = 2, num_groups = 1, obs_window = 2} : tensor<1x8x48xbf16>, tensor<1x8x40xbf16>, tensor<64x32xbf16> -> tensor<1x1x8xf32>
      return %s : tensor<1x1x8xf32>
    })",
                    "kv.score");
  EXPECT_EQ(c.flops, 6676);
  EXPECT_EQ(c.read, 192 + 640 + 4096);
}

namespace {
/// Stats of DeepSeek-V2-Lite decode (batch 4, context 1024) after `passes`.
ModelStats statsAfter(llvm::function_ref<void(PassManager &)> passes) {
  MLIRContext ctx;
  auto config = models::ModelConfig::load("deepseek-v2-lite");
  EXPECT_TRUE(static_cast<bool>(config));
  auto module = models::buildModel(ctx, *config, decodeAt(4, 1024));
  EXPECT_TRUE(static_cast<bool>(module));
  PassManager pm(&ctx);
  passes(pm);
  EXPECT_TRUE(succeeded(pm.run(**module)));
  auto stats =
      computeModelStats((*module)->lookupSymbol<func::FuncOp>("decode"));
  EXPECT_TRUE(succeeded(stats));
  return *stats;
}
} // namespace

// Kernel looping changes the program's shape, not its cost: a repeated body
// counts once per layer, so parameters, FLOPs and bytes are unchanged.
TEST(CostModel, FuseLayersKeepsCosts) {
  ModelStats flat = statsAfter([](PassManager &) {});
  ModelStats fused = statsAfter([](PassManager &pm) {
    pm.addNestedPass<func::FuncOp>(llm::createFuseLayers());
  });
  EXPECT_EQ(fused.paramsTotal, flat.paramsTotal);
  EXPECT_EQ(fused.paramsActive, flat.paramsActive);
  EXPECT_EQ(fused.flops, flat.flops);
  EXPECT_EQ(fused.bytesRead, flat.bytesRead);
  EXPECT_EQ(fused.kvBytesPerToken, flat.kvBytesPerToken);
  EXPECT_EQ(fused.layers, 27);
  EXPECT_EQ(fused.moeLayers, 26);
}

// Over 4 sockets each holds a quarter of the attention heads, MLP columns,
// vocabulary and experts, and a replicated MLA cache. DeepSeek-V2-Lite keeps
// whole on every socket: the 27 latent down-projections kv_a (576 x 2048)
// and the norms (27 x (2 x 2048 + 512) + 2048); the routers (26 x 64 x 2048)
// are replicated too. Everything else divides by 4 exactly, so
// total(TP 4) = (total - replicated) / 4 + replicated.
TEST(CostModel, ShardTPSplitsWeights) {
  ModelStats one = statsAfter([](PassManager &) {});
  ModelStats four = statsAfter([](PassManager &pm) {
    llm::ShardTPOptions o;
    o.tp = 4;
    pm.addPass(llm::createShardTP(o));
  });
  const int64_t replicated =
      27LL * 576 * 2048 + 27LL * (2 * 2048 + 512) + 2048 + 26LL * 64 * 2048;
  EXPECT_EQ(four.paramsTotal, (one.paramsTotal - replicated) / 4 + replicated);
  EXPECT_EQ(four.kvBytesPerToken, one.kvBytesPerToken);
  EXPECT_GT(four.linkBytes, 0);
  EXPECT_EQ(one.linkBytes, 0);
}

namespace {
/// Expected touched experts of DeepSeek-V2-Lite decode (batch `batch`) after
/// the seeded routing model.
double touchedAfterRouting(int64_t batch, uint64_t seed, double skew) {
  MLIRContext ctx;
  auto config = models::ModelConfig::load("deepseek-v2-lite");
  auto module = models::buildModel(ctx, *config, decodeAt(batch, 256));
  PassManager pm(&ctx);
  llm::MoERoutingOptions o;
  o.seed = seed;
  o.trials = 256;
  o.skew = skew;
  pm.addPass(llm::createMoERouting(o));
  EXPECT_TRUE(succeeded(pm.run(**module)));
  double touched = -1;
  (*module)->walk([&](llm::MoEOp op) { touched = op.getActiveExperts(); });
  return touched;
}
} // namespace

// With uniform popularity the seeded model agrees with the formula: 16 tokens
// choosing 6 of 64 experts touch 64 (1 - (58/64)^16) = 51.2 experts; 256
// draws keep the mean within 2%. Skewed popularity concentrates tokens on
// fewer experts; the same seed gives the same count.
TEST(CostModel, SeededRoutingModel) {
  double uniform = touchedAfterRouting(16, 1, 0.0);
  double formula = 64.0 * (1.0 - std::pow(58.0 / 64.0, 16));
  EXPECT_NEAR(uniform, formula, 0.02 * formula);
  EXPECT_LT(touchedAfterRouting(16, 1, 1.2), uniform);
  EXPECT_EQ(touchedAfterRouting(16, 3, 0.5), touchedAfterRouting(16, 3, 0.5));
}

//===----------------------------------------------------------------------===//
// Decode-time eviction (#kv.h2o, #kv.scissorhands): kv.evict per layer and
// step, the attention's probabilities, the state the prefill store starts;
// H2O's per-step work checked against the functional reference.
//===----------------------------------------------------------------------===//

// H2O, recent 8 of 32 slots, per sequence: read the G x S = 64 f32 scores
// (256 B) and write them back (256 B) plus the victim slot per group
// (2 x 4 B): 264 B; 64 adds and an argmin over the 24 older slots per
// group (48 compares): 112 FLOPs. Over B = 3: 768 B read, 792 B written,
// 336 FLOPs; the op also reads the probabilities, 3 x 2 x 32 x 4 = 768 B.
TEST(CostModel, EvictH2OCostByHand) {
  OpCost c = costOf(evictIR("#kv.h2o<budget = 32, recent = 8>"), "kv.evict");
  EXPECT_EQ(c.flops, 336);
  EXPECT_EQ(c.read, 768 + 768);
  EXPECT_EQ(c.written, 792);
  // An op the policy emits is all upkeep.
  EXPECT_EQ(c.upkeepFlops, 336);
  EXPECT_EQ(c.upkeepBytes, 768 + 768 + 792);
}

// Scissorhands, history w = 400 (50 B per slot and group), 4 sinks, 10
// recent, per sequence: read every history, 2 x 32 x 50 = 3200 B; write the
// step's column of bits, 2 x ceil(32 / 8) = 8 B, clear the victim's history,
// 2 x 50 = 100 B, and record the victim, 2 x 4 = 8 B: 116 B. FLOPs: 64
// threshold compares, 64 x 400 = 25600 history adds, an argmin over
// 32 - 4 - 10 = 18 candidates per group (36): 25700. Over B = 3: 9600 B
// read (+ 768 B of probabilities), 348 B written, 77100 FLOPs.
TEST(CostModel, EvictScissorhandsCostByHand) {
  OpCost c = costOf(evictIR("#kv.scissorhands<budget = 32, sinks = 4, "
                            "recent = 10, history = 400>"),
                    "kv.evict");
  EXPECT_EQ(c.flops, 77100);
  EXPECT_EQ(c.read, 9600 + 768);
  EXPECT_EQ(c.written, 348);
}

// A decode attention that returns its probabilities sums each group's 2
// query heads into them: B x T x H x S = 3 x 1 x 4 x 32 = 384 adds on top of
// the attention (3 x 4 x 32 pairs x (4 x 16 + 5) = 26496), and writes the
// 3 x 2 x 32 f32 (768 B) beside its 3 x 64 x 2 B output and the new
// token's K/V (3 x 2 x 32 x 2 B).
TEST(CostModel, AttentionProbabilities) {
  std::string cache = "!kv.cache<layers = 2, batch = 3, slots = 32, kv_heads "
                      "= 2, head_dim = 16, dtype = bf16, policy = "
                      "#kv.h2o<budget = 32, recent = 8>>";
  OpCost c = costOf(
      "func.func @f(%q: tensor<3x1x64xbf16>, %k: tensor<3x1x32xbf16>, %v: "
      "tensor<3x1x32xbf16>, %c: " +
          cache +
          ") {\n  %o, %c1, %p = llm.attention %q, %k, %v, %c {layer = 0, "
          "num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = "
          "#llm<phase decode>} : tensor<3x1x64xbf16>, tensor<3x1x32xbf16>, "
          "tensor<3x1x32xbf16>, " +
          cache +
          " -> tensor<3x1x64xbf16>, probs tensor<3x2x32xf32>\n  "
          "return\n}\n",
      "llm.attention");
  EXPECT_EQ(c.flops, 26496 + 384);
  EXPECT_EQ(c.written, 768 + 3 * 64 * 2 + 3 * 2 * 32 * 2);
  // Of which the eviction policy's upkeep: the sums and the probabilities
  // written; attending the cache and writing the token are not.
  EXPECT_EQ(c.upkeepFlops, 384);
  EXPECT_EQ(c.upkeepBytes, 768);
  // Each KV head's keys serve its 4 / 2 query heads for the one token.
  EXPECT_EQ(c.rows, 2);
}

// The end-of-prefill store of an H2O cache also starts the kept slots'
// scores: reads the kept scores (B x G x S f32 = 1 x 2 x 32 x 4 = 256 B)
// beside the K/V and indices, and writes the state, 256 B, beside the K/V
// (32 slots x 2 x 32 x 2 B = 4096 B).
TEST(CostModel, GatherStoreStartsTheState) {
  std::string cache = "!kv.cache<layers = 2, batch = 1, slots = 32, kv_heads "
                      "= 2, head_dim = 16, dtype = bf16, policy = "
                      "#kv.h2o<budget = 32, recent = 8>>";
  OpCost c =
      costOf("func.func @f(%c: " + cache +
                 ", %i: tensor<1x2x24xi32>, %s: tensor<1x2x64xf32>, %k: "
                 "tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>) {\n  %g = "
                 "kv.gather_store %c[0] select %i scores %s, %k, %v : " +
                 cache +
                 " select tensor<1x2x24xi32> scores tensor<1x2x64xf32>, "
                 "tensor<1x64x32xbf16>, tensor<1x64x32xbf16>\n  return\n}\n",
             "kv.gather_store");
  EXPECT_EQ(c.read, 4096 + 1 * 2 * 24 * 4 + 256);
  EXPECT_EQ(c.written, 4096 + 256);
}

// The program's per-step H2O work equals what the reference touches: run
// the reference's cache of 24 heavy + 8 recent slots past full on random
// attention, and compare one steady-state step per group with the
// kv.evict of a one-sequence, one-group cache of the same budget.
TEST(CostModel, EvictH2OMatchesTheReference) {
  kv::ref::H2OCache ref(/*heavy=*/24, /*recent=*/8);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> attention(0.f, 1.f);
  for (int64_t pos = 0; pos < 100; ++pos)
    ref.step(pos, [&](int64_t) { return attention(rng); });
  const auto &t = ref.lastStep();
  ASSERT_EQ(t.slotsWritten, 1);
  std::string cache = "!kv.cache<layers = 1, batch = 1, slots = 32, kv_heads "
                      "= 1, head_dim = 16, dtype = bf16, policy = "
                      "#kv.h2o<budget = 32, recent = 8>>";
  OpCost c = costOf("func.func @f(%c: " + cache +
                        ", %p: tensor<1x1x32xf32>) {\n  %e = kv.evict %c[0], "
                        "%p : " +
                        cache + ", tensor<1x1x32xf32>\n  return\n}\n",
                    "kv.evict");
  const int64_t f32 = 4, probs = 32 * f32, victim = 4;
  EXPECT_EQ(c.read - probs, t.scoresRead * f32);
  EXPECT_EQ(c.written - victim, t.scoresWritten * f32);
  // One add per score read, one compare per candidate.
  EXPECT_EQ(c.flops, t.scoresRead + t.compared);
}

//===----------------------------------------------------------------------===//
// Recallable pages (#kv.arkvale): kv.page_score, kv.recall and kv.backup per
// layer and step, on B = 3 sequences of a GQA cache of 2 KV heads x 16
// (K and V of a token: 2 x 32 x 2 B = 128 B; keys 32 channels), pages of 4
// tokens, a 64-token context: 16 pages, each digest 2 x 32 x 2 B = 128 B.
//===----------------------------------------------------------------------===//

namespace {
const char *kPagedCache =
    "!kv.cache<layers = 2, batch = 3, slots = 32, kv_heads = 2, head_dim = "
    "16, dtype = bf16, policy = #kv.arkvale<budget = 32, page = 4, sinks = "
    "1, window = 2, topk = 4, recall = 2, tokens = 64>>";
} // namespace

// The decode query (4 heads of 16) against every digest: per page and head
// q*lo, q*hi, their max and the sum over the 16 channels (4 x 16) and one
// add of the mean over heads: 3 x 16 x 4 x 65 = 12480 FLOPs. Reads the
// query, 3 x 64 x 2 = 384 B, and the digests, 3 x 16 x 128 = 6144 B;
// writes 3 x 16 f32 = 192 B.
TEST(CostModel, PageScoreByHand) {
  std::string cache = kPagedCache;
  OpCost c = costOf(funcOf("%q: tensor<3x1x64xbf16>, %c: " + cache,
                           "%s = kv.page_score %q, %c[1] {num_heads = 4} : "
                           "tensor<3x1x64xbf16>, " +
                               cache + " -> tensor<3x1x16xf32>"),
                    "kv.page_score");
  EXPECT_EQ(c.flops, 12480);
  EXPECT_EQ(c.read, 384 + 6144);
  EXPECT_EQ(c.written, 192);
}

// MLA: the digest spans the latent and rotary key, 40 channels (2 x 40 x
// 2 B = 160 B per page, 16 pages); 2 heads, each scoring the 40 channels of
// the one group: 16 x 2 x (4 x 40 + 1) = 5152 FLOPs; reads the query (48 x
// 2 B) and 16 x 160 B of digests.
TEST(CostModel, PageScoreLatentByHand) {
  std::string cache =
      "!kv.latent_cache<layers = 1, batch = 1, slots = 32, latent_dim = 32, "
      "rope_dim = 8, dtype = bf16, policy = #kv.arkvale<budget = 32, page = "
      "4, sinks = 1, window = 2, topk = 4, recall = 2, tokens = 64>>";
  OpCost c = costOf(funcOf("%q: tensor<1x1x48xbf16>, %c: " + cache,
                           "%s = kv.page_score %q, %c[0] {num_heads = 2} : "
                           "tensor<1x1x48xbf16>, " +
                               cache + " -> tensor<1x1x16xf32>"),
                    "kv.page_score");
  EXPECT_EQ(c.flops, 5152);
  EXPECT_EQ(c.read, 96 + 2560);
}

// Recalling 2 pages per sequence: 3 x 2 x 4 tokens x 128 B = 3072 B from
// the backup into the cache; also reads the 3 x 4 i32 page indices (48 B).
TEST(CostModel, RecallByHand) {
  std::string cache = kPagedCache;
  OpCost c = costOf(funcOf("%c: " + cache + ", %i: tensor<3x1x4xi32>",
                           "%r = kv.recall %c[1], %i {pages = 2} : " + cache +
                               ", tensor<3x1x4xi32>"),
                    "kv.recall");
  EXPECT_EQ(c.flops, 0);
  EXPECT_EQ(c.read, 48 + 3072);
  EXPECT_EQ(c.written, 3072);
}

// A decode backup of one token per sequence: writes 3 x 128 B to DDR and
// ceil(3 x 128 / 4) = 96 B of digests (3 / 4 of a page completes per step
// on average); re-reads one token's keys per sequence, 3 x 32 x 2 = 192 B,
// beside the new K and V (2 x 3 x 32 x 2 B = 384 B). FLOPs: 32 channels x
// (5 per token x 3 + 5 per page x ceil(3 / 4)) = 640.
TEST(CostModel, BackupDecodeByHand) {
  std::string cache = kPagedCache;
  OpCost c =
      costOf(funcOf("%c: " + cache +
                        ", %k: tensor<3x1x32xbf16>, %v: tensor<3x1x32xbf16>",
                    "%b = kv.backup %c[1], %k, %v : " + cache +
                        ", tensor<3x1x32xbf16>, tensor<3x1x32xbf16>"),
             "kv.backup");
  EXPECT_EQ(c.flops, 640);
  EXPECT_EQ(c.read, 384 + 192);
  EXPECT_EQ(c.written, 384 + 96);
}

// A prefill backup of 64 tokens: writes 3 x 64 x 128 B = 24576 B to DDR and
// the digests of 3 x 16 pages, 6144 B; digests from the keys it streams (no
// re-read). FLOPs: 32 x (5 x 192 + 5 x 48) = 38400.
TEST(CostModel, BackupPrefillByHand) {
  std::string cache = kPagedCache;
  OpCost c =
      costOf(funcOf("%c: " + cache +
                        ", %k: tensor<3x64x32xbf16>, %v: tensor<3x64x32xbf16>",
                    "%b = kv.backup %c[0], %k, %v : " + cache +
                        ", tensor<3x64x32xbf16>, tensor<3x64x32xbf16>"),
             "kv.backup");
  EXPECT_EQ(c.flops, 38400);
  EXPECT_EQ(c.read, 2 * 3 * 64 * 32 * 2);
  EXPECT_EQ(c.written, 24576 + 6144);
}

// The cache's footprint: per sequence and layer 32 slots x 128 B = 4096 B of
// K/V and 16 digests x 128 B = 2048 B in HBM, over 2 layers and 3
// sequences 36864 B; the DDR backup holds 64 x 128 B per sequence and layer,
// 49152 B.
TEST(CostModel, PagedCacheFootprint) {
  MLIRContext ctx;
  ctx.loadDialect<kv::KVDialect>();
  auto type = mlir::parseType(kPagedCache, &ctx);
  ASSERT_TRUE(type);
  auto cache = llvm::cast<kv::KVCacheTypeInterface>(type);
  EXPECT_EQ(cache.getDigestBytesPerSequencePerLayer().value(), 2048);
  EXPECT_EQ(cache.getTotalBytes().value(), 36864);
  EXPECT_EQ(cache.getBackupBytes().value(), 49152);
}

// The program's per-step ArkVale work equals what the reference touches. The
// reference's cache of one KV head of 16 channels (pages of 4, a budget of 8
// pages: 1 sink, 2 window, topk 4, recall 2) takes 92 tokens (23 full
// pages) with a step after each, then 4 more steps of one token, the last
// of which fills the 96-token context. The compiled ops are those of a
// one-sequence cache of the same policy over that context (24 pages; K and
// V 2 x 16 x 2 B = 64 B per token, a digest 2 x 16 x 2 B = 64 B per page):
// - kv.page_score reads every page's digest: at the context's last step the
//   reference's digestsRead x 64 B, beside the query (a static program
//   scores the pages of the whole context every step);
// - kv.backup writes the step's token, tokensBackedUp x 64 B, and the
//   digests of B * T / page pages on average: over 4 steps exactly the one
//   page the reference completed, 64 B = 4 x 16 B;
// - kv.recall moves the provisioned 2 pages x 4 tokens x 64 B = 512 B: no
//   step of the reference recalls more, and some recall that many.
TEST(CostModel, ArkValeMatchesTheReference) {
  kv::ref::ArkValeCache ref(/*pageTokens=*/4, /*budgetPages=*/8,
                            /*sinkPages=*/1, /*windowPages=*/2, /*topk=*/4,
                            /*recall=*/2);
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  auto vec = [&] {
    std::vector<float> v(16);
    for (float &x : v)
      x = normal(rng);
    return v;
  };
  int64_t pos = 0, mostRecalled = 0;
  for (; pos < 92; ++pos) {
    ref.append(pos, vec());
    ref.step(vec());
    mostRecalled = std::max(mostRecalled, ref.lastStep().pagesRecalled);
  }
  std::string cache = "!kv.cache<layers = 1, batch = 1, slots = 32, kv_heads "
                      "= 1, head_dim = 16, dtype = bf16, policy = "
                      "#kv.arkvale<budget = 32, page = 4, sinks = 1, window "
                      "= 2, topk = 4, recall = 2, tokens = 96>>";
  std::string ir = funcOf(
      "%q: tensor<1x1x16xbf16>, %k: tensor<1x1x16xbf16>, %v: "
      "tensor<1x1x16xbf16>, %i: tensor<1x1x4xi32>, %c: " +
          cache,
      "%s = kv.page_score %q, %c[0] {num_heads = 1} : tensor<1x1x16xbf16>, " +
          cache +
          " -> tensor<1x1x24xf32>\n%r = kv.recall %c[0], %i {pages = "
          "2} : " +
          cache + ", tensor<1x1x4xi32>\n%b = kv.backup %c[0], %k, %v : " +
          cache + ", tensor<1x1x16xbf16>, tensor<1x1x16xbf16>");
  OpCost score = costOf(ir, "kv.page_score");
  OpCost recall = costOf(ir, "kv.recall");
  OpCost backup = costOf(ir, "kv.backup");
  const int64_t token = 64, digest = 64, page = 4, query = 16 * 2;
  int64_t digested = 0;
  for (int k = 0; k < 4; ++k, ++pos) {
    ref.append(pos, vec());
    ref.step(vec());
    const auto &t = ref.lastStep();
    mostRecalled = std::max(mostRecalled, t.pagesRecalled);
    digested += t.pagesDigested;
    EXPECT_EQ(backup.written - digest / page, t.tokensBackedUp * token);
    if (k == 3)
      EXPECT_EQ(score.read - query, t.digestsRead * digest);
  }
  EXPECT_EQ(4 * (digest / page), digested * digest);
  EXPECT_EQ(recall.written, mostRecalled * page * token);
}

namespace {
/// A decode step's attention over `cache` (B = 3 sequences, 4 query heads
/// over 2 KV heads of 16 channels: 32 key and 32 value channels per token).
std::string decodeAttention(const std::string &cache) {
  return funcOf("%q: tensor<3x1x64xbf16>, %k: tensor<3x1x32xbf16>, %v: "
                "tensor<3x1x32xbf16>, %c: " +
                    cache,
                "%o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, "
                "num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = "
                "#llm<phase decode>} : tensor<3x1x64xbf16>, "
                "tensor<3x1x32xbf16>, tensor<3x1x32xbf16>, " +
                    cache + " -> tensor<3x1x64xbf16>");
}
/// A cache of 2 layers, B = 3, 256 slots, 2 KV heads of 16 channels, in
/// `format`.
std::string formatCache(const std::string &format, int slots = 256) {
  return "!kv.cache<layers = 2, batch = 3, slots = " + std::to_string(slots) +
         ", kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, "
         "format = " +
         format + ">";
}
} // namespace

// KIVI-2 with groups of 32 and a 64-token residual. A token of one layer:
// keys 32 x 2 bits + a bf16 scale and zero per channel per 32 tokens
// (32 x 32 / 32 = 32 bits), values 32 x 2 bits + 32 bits per 32 channels:
// 192 bits = 24 B, against 64 x 2 = 128 B at bf16. A decode step's
// attention reads per sequence the 64 residual tokens at bf16 and the 192
// others quantized: 64 x 128 + 192 x 24 = 12,800 B, x 3 = 38,400 B, plus
// q, k, v (384 + 192 + 192 = 768 B). FLOPs: the attention's 3 x 4 x 256
// x (4 x 16 + 5) = 211,968 plus dequantizing the 192 quantized tokens' 64
// elements at 2 each, x 3: 73,728. The new token lands in the residual at
// bf16 (3 x 128 = 384 B beside the 384 B output), unquantized.
TEST(CostModel, AttentionOverKIVIByHand) {
  std::string cache =
      formatCache("#kv.kivi<bits = 2, group = 32, residual = 64>");
  OpCost c = costOf(decodeAttention(cache), "llm.attention");
  EXPECT_EQ(c.flops, 211968 + 73728);
  EXPECT_EQ(c.read, 768 + 38400);
  EXPECT_EQ(c.written, 384 + 384);
  // The format's upkeep: its FLOPs; it moves fewer bytes, none extra.
  EXPECT_EQ(c.upkeepFlops, 73728);
  EXPECT_EQ(c.upkeepBytes, 0);
}

// QuaRot-4: 64 x 4 bits + an fp16 scale and zero per (token, head), 4 head
// groups of K and V: 256 + 128 = 384 bits = 48 B per token. The attention
// reads 3 x 256 x 48 = 36,864 B of cache (+ 768 of q, k, v) and writes the
// new token quantized (3 x 48 = 144 B beside the 384 B output). FLOPs
// beyond the 211,968: quantizing the new token, 3 x 64 x 5 = 960;
// dequantizing 256 tokens, 3 x 256 x 64 x 2 = 98,304; the Hadamard
// transforms per query token, (4 query + 2 key heads) x 16 x log2 16 = 384
// and the online one over the 4 heads' outputs, 4 x log2 4 x 16 = 128:
// 512 x 3 = 1,536.
TEST(CostModel, AttentionOverQuaRotByHand) {
  std::string cache = formatCache("#kv.quarot<bits = 4>");
  OpCost c = costOf(decodeAttention(cache), "llm.attention");
  EXPECT_EQ(c.flops, 211968 + 960 + 98304 + 1536);
  EXPECT_EQ(c.read, 768 + 36864);
  EXPECT_EQ(c.written, 384 + 144);
  EXPECT_EQ(c.upkeepFlops, 960 + 98304 + 1536);
  EXPECT_EQ(c.upkeepBytes, 0);
}

// kv.quantize over the KIVI cache above: `tokens` per sequence every
// `every` steps, so ceil(3 x tokens / every) tokens a step, each read at
// bf16 (128 B), quantized (64 elements x 5) and written (24 B). One a
// step: 3 tokens, 384 B read, 72 B written, 960 FLOPs. 10 every 4 steps:
// ceil(30 / 4) = 8 tokens: 1,024 B, 192 B, 2,560 FLOPs.
TEST(CostModel, QuantizeByHand) {
  std::string cache =
      formatCache("#kv.kivi<bits = 2, group = 32, residual = 64>");
  OpCost one = costOf(
      funcOf("%c: " + cache, "%c1 = kv.quantize %c[1] {tokens = 1, every = 1} "
                             ": " +
                                 cache),
      "kv.quantize");
  EXPECT_EQ(one.flops, 960);
  EXPECT_EQ(one.read, 384);
  EXPECT_EQ(one.written, 72);
  OpCost periodic = costOf(
      funcOf("%c: " + cache,
             "%c1 = kv.quantize %c[1] {tokens = 10, every = 4} : " + cache),
      "kv.quantize");
  EXPECT_EQ(periodic.flops, 2560);
  EXPECT_EQ(periodic.read, 1024);
  EXPECT_EQ(periodic.written, 192);
}

// ZipCache with half the tokens at 4 bits and half at 2 (3 bits per
// element), a 10-token buffer re-quantized every 10 steps, on 64 slots:
// a token is ceil(64 x 3) = 192 bits + a bf16 scale and minimum (32) + a
// precision flag (1) = 225 bits -> 29 B. Per sequence and period: the last
// query against every slot, 4 heads x 64 slots x (2 x 16 + 6) = 9,728
// FLOPs; dequantizing the 54 stored tokens, 54 x 64 x 2 = 6,912; quantizing
// all 64, 64 x 64 x 5 = 20,480: 37,120. Reads the 54 stored tokens (54 x
// 29 = 1,566 B), the 10 buffered (10 x 128 = 1,280 B) and the query (128
// B); writes all 64 quantized (1,856 B). A step does 3 / 10 of a
// sequence's: ceil(3 x 37,120 / 10) = 11,136 FLOPs; reads ceil(4,698 / 10)
// + ceil(3,840 / 10) + ceil(384 / 10) = 470 + 384 + 39 = 893 B; writes
// ceil(5,568 / 10) = 557 B.
TEST(CostModel, RequantizeByHand) {
  std::string cache = formatCache(
      "#kv.zipcache<high = 4, low = 2, salient = 50, gap = 10, probes = 10>",
      64);
  OpCost c = costOf(funcOf("%q: tensor<3x1x64xbf16>, %c: " + cache,
                           "%c1 = kv.requantize %q, %c[1] {num_heads = 4, "
                           "every = 10} : tensor<3x1x64xbf16>, " +
                               cache),
                    "kv.requantize");
  EXPECT_EQ(c.flops, 11136);
  EXPECT_EQ(c.read, 893);
  EXPECT_EQ(c.written, 557);
}

// A format changes a cache's footprint: the KIVI cache above holds per
// sequence and layer 64 residual tokens at 128 B and 192 at 24 B = 12,800
// B; x 3 sequences x 2 layers = 76,800 B (bf16: 256 x 128 x 6 = 196,608).
TEST(CostModel, FormatCacheFootprint) {
  MLIRContext ctx;
  ctx.loadDialect<kv::KVDialect>();
  auto type = mlir::cast<kv::KVCacheTypeInterface>(mlir::parseType(
      formatCache("#kv.kivi<bits = 2, group = 32, residual = 64>"), &ctx));
  EXPECT_EQ(type.getBytesPerTokenPerLayer().value(), 24);
  EXPECT_EQ(type.getFullBytesPerTokenPerLayer().value(), 128);
  EXPECT_EQ(type.getResidualSlots(), 64);
  EXPECT_EQ(type.getTotalBytes().value(), 76800);
}

// The compiled kv.quantize of a KIVI decode step against the reference's
// KIVICache: over the steps R to 2R after warm-up, a sequence quantizes R
// key tokens at once and one value token per step, i.e. on average one
// token of K and V (64 elements here) per step. The compiled op charges
// per sequence and step exactly that: the elements' bf16 bytes read, their
// quantization (5 per element) and one stored token written (24 B).
TEST(CostModel, KIVIQuantizeMatchesTheReference) {
  constexpr int64_t R = 64, G = 32, width = 32, batch = 3;
  kv::ref::KIVICache ref(R, G, width, width, /*bits=*/2);
  std::mt19937_64 rng(11);
  std::normal_distribution<float> normal;
  std::vector<float> key(width), value(width);
  for (int64_t t = 0; t < 3 * R; ++t) {
    for (int64_t c = 0; c < width; ++c) {
      key[c] = normal(rng);
      value[c] = normal(rng);
    }
    ref.append(key, value);
  }
  kv::ref::KIVICache::Rate rate = ref.averagePerStep(R, 2 * R);
  std::string cache =
      formatCache("#kv.kivi<bits = 2, group = 32, residual = 64>");
  OpCost c = costOf(
      funcOf("%c: " + cache, "%c1 = kv.quantize %c[1] {tokens = 1, every = 1} "
                             ": " +
                                 cache),
      "kv.quantize");
  EXPECT_EQ(rate.keyTokens, 1.0);
  EXPECT_EQ(rate.valueTokens, 1.0);
  EXPECT_EQ(double(c.read), rate.elements * 2 * batch);
  EXPECT_EQ(double(c.flops), rate.elements * 5 * batch);
  EXPECT_EQ(double(c.written),
            (rate.keyTokens + rate.valueTokens) / 2 * 24 * batch);
}

namespace {
/// `attention` with `reuse_kv` added to its attributes (a later layer of a
/// cross-layer-attention group).
std::string reusing(std::string ir) {
  size_t at = ir.find("phase = #llm<phase ");
  at = ir.find('>', at) + 1;
  return ir.insert(at, ", reuse_kv");
}
/// A decode step's MLA attention over a latent cache of B = 3, 32 slots:
/// 2 heads, qk_nope 16, qk_rope 8, v 16, kv_lora_rank 32.
std::string decodeMLA() {
  std::string cache = "!kv.latent_cache<layers = 2, batch = 3, slots = 32, "
                      "latent_dim = 32, rope_dim = 8, dtype = bf16, policy = "
                      "#kv.full>";
  return funcOf("%q: tensor<3x1x48xbf16>, %l: tensor<3x1x40xbf16>, %up: "
                "tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: " +
                    cache,
                "%o, %c1 = llm.mla_attention %q, %l, %up, %n, %c {layer = 0, "
                "num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, "
                "v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase "
                "decode>} : tensor<3x1x48xbf16>, tensor<3x1x40xbf16>, "
                "tensor<64x32xbf16>, tensor<32xbf16>, " +
                    cache + " -> tensor<3x1x32xbf16>");
}
} // namespace

// CLA, GQA decode (B = 3, 256 slots, 2 KV heads of 16, bf16). The first
// layer of a group reads q, k, v (384 + 192 + 192 = 768 B) and the layer's
// 256 cached tokens (3 x 256 x 128 B = 98,304 B), and writes the output
// (384 B) and the new token (3 x 128 = 384 B). A `reuse_kv` layer reads q
// and the same cache layer, where the step's token already is (384 +
// 98,304 B), and writes only its output (384 B). Both attend: 3 x 4 x 256
// x (4 x 16 + 5) = 211,968 FLOPs.
TEST(CostModel, CrossLayerAttentionDecodeByHand) {
  std::string ir = decodeAttention(
      "!kv.cache<layers = 2, batch = 3, slots = 256, kv_heads = 2, head_dim "
      "= 16, dtype = bf16, policy = #kv.full>");
  OpCost first = costOf(ir, "llm.attention");
  OpCost reuse = costOf(reusing(ir), "llm.attention");
  EXPECT_EQ(first.flops, 211968);
  EXPECT_EQ(reuse.flops, 211968);
  EXPECT_EQ(first.read, 768 + 98304);
  EXPECT_EQ(reuse.read, 384 + 98304);
  EXPECT_EQ(first.written, 384 + 384);
  EXPECT_EQ(reuse.written, 384);
}

// CLA, MLA decode (B = 3, 32 slots). Per query token: q_nope into latent
// space 2 x 2 x 16 x 32 = 2,048; scores 2 x 2 x 32 x (32 + 8) = 5,120; PV
// 2 x 2 x 32 x 32 = 4,096; latent to v 2 x 2 x 32 x 16 = 2,048; softmax
// 5 x 2 x 32 = 320: 13,632, x 3 = 40,896. The first layer also normalises
// and rotates the new latent, 3 x (4 x 32 + 3 x 8) = 456. Bytes read: q
// (3 x 48 x 2 = 288), kv_up (64 x 32 x 2 = 4,096) and the cache (3 x 32 x
// 40 x 2 = 7,680); the first layer also the new latent (3 x 40 x 2 = 240)
// and the norm weight (64). Written: the output, 3 x 32 x 2 = 192 B, and
// for the first layer the new latent, 240 B.
TEST(CostModel, CrossLayerAttentionMLADecodeByHand) {
  OpCost first = costOf(decodeMLA(), "llm.mla_attention");
  OpCost reuse = costOf(reusing(decodeMLA()), "llm.mla_attention");
  EXPECT_EQ(first.flops, 40896 + 456);
  EXPECT_EQ(reuse.flops, 40896);
  EXPECT_EQ(first.read, 288 + 4096 + 7680 + 240 + 64);
  EXPECT_EQ(reuse.read, 288 + 4096 + 7680);
  EXPECT_EQ(first.written, 192 + 240);
  EXPECT_EQ(reuse.written, 192);
}

// CLA, GQA prefill of 8 tokens into a full cache of 8 slots (B = 1): both
// layers attend causally over the group's keys and values, which they read
// (q 8 x 64 x 2 = 1,024 B, k and v 512 B each); only the first writes the
// 8 tokens to the cache (8 x 128 = 1,024 B beside its 1,024 B output).
// FLOPs: 4 heads x 36 causal pairs x (4 x 16 + 5) = 9,936 each.
TEST(CostModel, CrossLayerAttentionPrefillByHand) {
  std::string cache = "!kv.cache<layers = 1, batch = 1, slots = 8, kv_heads "
                      "= 2, head_dim = 16, dtype = bf16, policy = #kv.full>";
  std::string ir = funcOf(
      "%q: tensor<1x8x64xbf16>, %k: tensor<1x8x32xbf16>, %v: "
      "tensor<1x8x32xbf16>, %c: " +
          cache,
      "%o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, "
      "num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>} : "
      "tensor<1x8x64xbf16>, tensor<1x8x32xbf16>, tensor<1x8x32xbf16>, " +
          cache + " -> tensor<1x8x64xbf16>");
  OpCost first = costOf(ir, "llm.attention");
  OpCost reuse = costOf(reusing(ir), "llm.attention");
  EXPECT_EQ(first.flops, 9936);
  EXPECT_EQ(reuse.flops, 9936);
  EXPECT_EQ(first.read, 2048);
  EXPECT_EQ(reuse.read, 2048);
  EXPECT_EQ(first.written, 1024 + 1024);
  EXPECT_EQ(reuse.written, 1024);
}

// The Block Transformer's ops, each derived by hand.
// A block embedding of 8 tokens in rows of 4 from a 100 x 16 table: the 8
// rows looked up (8 x 16 x 2 = 256 B) and the token ids (8 x 4 = 32 B)
// read; 1 x 2 x 64 x 2 = 256 B written; no FLOPs.
TEST(CostModel, BlockEmbeddingByHand) {
  OpCost c = costOf(funcOf("%t: tensor<1x8xi32>, %e: tensor<100x16xbf16>",
                           "%h = llm.embed %t, %e {tokens_per_row = 4} : "
                           "tensor<1x8xi32>, tensor<100x16xbf16> -> "
                           "tensor<1x2x64xbf16>"),
                    "llm.embed");
  EXPECT_EQ(c.flops, 0);
  EXPECT_EQ(c.read, 256 + 32);
  EXPECT_EQ(c.written, 256);
}

// Layer norm of 1 x 2 x 64: 8 FLOPs an element, 1,024; reads x (256 B),
// weight and bias (128 B each); writes 256 B.
TEST(CostModel, LayerNormByHand) {
  OpCost c =
      costOf(funcOf("%x: tensor<1x2x64xbf16>, %w: tensor<64xbf16>, %b: "
                    "tensor<64xbf16>",
                    "%y = llm.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : "
                    "tensor<1x2x64xbf16>, tensor<64xbf16>, tensor<64xbf16>"),
             "llm.layer_norm");
  EXPECT_EQ(c.flops, 1024);
  EXPECT_EQ(c.read, 512);
  EXPECT_EQ(c.written, 256);
}

// A projection 64 -> 128 of 2 rows with a bias: 2 x 2 x 64 x 128 = 32,768
// FLOPs plus 256 bias adds; reads x (256 B), the weight (16,384 B) and the
// bias (256 B); writes 2 x 128 x 2 = 512 B.
TEST(CostModel, LinearBiasByHand) {
  OpCost c =
      costOf(funcOf("%x: tensor<1x2x64xbf16>, %w: tensor<128x64xbf16>, %b: "
                    "tensor<128xbf16>",
                    "%y = llm.linear %x, %w bias %b : tensor<1x2x64xbf16>, "
                    "tensor<128x64xbf16> bias tensor<128xbf16> -> "
                    "tensor<1x2x128xbf16>"),
             "llm.linear");
  EXPECT_EQ(c.flops, 32768 + 256);
  EXPECT_EQ(c.read, 256 + 16384 + 256);
  EXPECT_EQ(c.written, 512);
}

// GELU MLP, H = 64, I = 256, 2 rows: per row 4 x 64 x 256 = 65,536 for the
// products, 9 x 256 = 2,304 for the first bias and GELU, 64 for the second
// bias: 67,904, x 2 = 135,808. Reads x (256 B), up (32,768), its bias
// (512), down (32,768) and its bias (128); writes 256 B.
TEST(CostModel, GeluMLPByHand) {
  OpCost c = costOf(
      funcOf("%x: tensor<1x2x64xbf16>, %u: tensor<256x64xbf16>, %ub: "
             "tensor<256xbf16>, %d: tensor<64x256xbf16>, %db: tensor<64xbf16>",
             "%y = llm.gelu_mlp %x, %u, %ub, %d, %db : tensor<1x2x64xbf16>, "
             "tensor<256x64xbf16>, tensor<256xbf16>, tensor<64x256xbf16>, "
             "tensor<64xbf16>"),
      "llm.gelu_mlp");
  EXPECT_EQ(c.flops, 135808);
  EXPECT_EQ(c.read, 256 + 32768 + 512 + 32768 + 128);
  EXPECT_EQ(c.written, 256);
}

// Local attention of one query row (4 heads of 16) over 4 earlier keys and
// its own: 5 pairs x 4 heads x (4 x 16 + 5) = 1,380 FLOPs. Reads q (128 B),
// the earlier keys and values (2 x 4 x 64 x 2 = 1,024 B) and its own (256
// B); writes 128 B. No cache: nothing else moves.
TEST(CostModel, LocalAttentionByHand) {
  OpCost c = costOf(
      funcOf("%q: tensor<1x1x64xbf16>, %k: tensor<1x4x64xbf16>, %o: "
             "tensor<1x1x64xbf16>",
             "%r = llm.local_attention %q over (%k, %k, %o, %o) {num_heads = "
             "4, num_kv_heads = 4, head_dim = 16} : tensor<1x1x64xbf16> over "
             "(tensor<1x4x64xbf16>, tensor<1x4x64xbf16>, tensor<1x1x64xbf16>, "
             "tensor<1x1x64xbf16>) -> tensor<1x1x64xbf16>"),
      "llm.local_attention");
  EXPECT_EQ(c.flops, 1380);
  EXPECT_EQ(c.read, 128 + 1024 + 256);
  EXPECT_EQ(c.written, 128);
}

// Greedy sampling over 100 logits: 100 comparisons; reads 200 B, writes one
// i32. A reshape is a view: nothing.
TEST(CostModel, SampleAndReshapeByHand) {
  OpCost s = costOf(funcOf("%l: tensor<1x1x100xbf16>",
                           "%t = llm.sample %l : tensor<1x1x100xbf16> -> "
                           "tensor<1x1xi32>"),
                    "llm.sample");
  EXPECT_EQ(s.flops, 100);
  EXPECT_EQ(s.read, 200);
  EXPECT_EQ(s.written, 4);
  OpCost r = costOf(funcOf("%x: tensor<1x1x128xbf16>",
                           "%y = llm.reshape %x : tensor<1x1x128xbf16> -> "
                           "tensor<1x2x64xbf16>"),
                    "llm.reshape");
  EXPECT_EQ(r.flops, 0);
  EXPECT_EQ(r.read, 0);
  EXPECT_EQ(r.written, 0);
}
