//===- KVEvictTest.cpp - What decode-time eviction costs per step
//----------===//
//
// The policies that evict by attention (#kv.h2o, #kv.scissorhands) add a
// kv.evict per layer and decode step. Its bytes and FLOPs are derived by
// hand below from the policy's state layout, and H2O's are checked against
// what the functional reference (SnapflowKVReference's H2OCache) touches in
// a steady-state step, so the program moves what the method does.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Dialect/KV/Reference/KVReference.h"
#include "snapflow/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir;
using namespace snapflow;

namespace {
struct OpCost {
  int64_t flops, read, written;
};

/// The cost of the first op named `opName` in `ir`.
OpCost costOf(const std::string &ir, llvm::StringRef opName) {
  MLIRContext ctx;
  ctx.loadDialect<func::FuncDialect, llm::LLMDialect, kv::KVDialect>();
  OwningOpRef<ModuleOp> m = parseSourceString<ModuleOp>(ir, &ctx);
  EXPECT_TRUE(m) << "test IR does not parse";
  OpCost c{-1, -1, -1};
  if (!m)
    return c;
  m->walk([&](CostOpInterface op) {
    if (op->getName().getStringRef() == opName && c.flops < 0)
      c = {op.getFlops().value(), op.getBytesRead().value(),
           op.getBytesWritten().value()};
  });
  return c;
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

// H2O, recent 8 of 32 slots, per sequence: read the G x S = 64 f32 scores
// (256 B) and write them back (256 B) plus the victim slot per group
// (2 x 4 B): 264 B; 64 adds and an argmin over the 24 older slots per
// group (48 compares): 112 FLOPs. Over B = 3: 768 B read, 792 B written,
// 336 FLOPs; the op also reads the probabilities, 3 x 2 x 32 x 4 = 768 B.
TEST(KVEvict, H2OCostByHand) {
  OpCost c = costOf(evictIR("#kv.h2o<budget = 32, recent = 8>"), "kv.evict");
  EXPECT_EQ(c.flops, 336);
  EXPECT_EQ(c.read, 768 + 768);
  EXPECT_EQ(c.written, 792);
}

// Scissorhands, history w = 400 (50 B per slot and group), 4 sinks, 10
// recent, per sequence: read every history, 2 x 32 x 50 = 3200 B; write the
// step's column of bits, 2 x ceil(32 / 8) = 8 B, clear the victim's history,
// 2 x 50 = 100 B, and record the victim, 2 x 4 = 8 B: 116 B. FLOPs: 64
// threshold compares, 64 x 400 = 25600 history adds, an argmin over
// 32 - 4 - 10 = 18 candidates per group (36): 25700. Over B = 3: 9600 B
// read (+ 768 B of probabilities), 348 B written, 77100 FLOPs.
TEST(KVEvict, ScissorhandsCostByHand) {
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
TEST(KVEvict, AttentionProbabilities) {
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
}

// The end-of-prefill store of an H2O cache also starts the kept slots'
// scores: reads the kept scores (B x G x S f32 = 1 x 2 x 32 x 4 = 256 B)
// beside the K/V and indices, and writes the state, 256 B, beside the K/V
// (32 slots x 2 x 32 x 2 B = 4096 B).
TEST(KVEvict, GatherStoreStartsTheState) {
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
TEST(KVEvict, H2OMatchesTheReference) {
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
