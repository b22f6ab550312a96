//===- SimulatorTest.cpp - Hand-computable simulator golden cases ---------===//
//
// Each case builds a small program by hand and runs it on the tiny chip
// (arch/chips/tiny.yaml: 1 GHz, so 1 cycle = 1 ns = 1000 ps). The expected
// cycle counts are derived in the comments from the chip's numbers:
//   PCU: 64 FLOP/cycle systolic, 16 SIMD, pipeline fill 10 cycles (first step
//        of a stage run); on-chip network 64 B/cycle per lane, 3 x 3 mesh so a
//        crossing is (3 + 3) / 3 = 2 hops of 1 cycle; a stage output crosses
//        it over `pcus` lanes before the push.
//   DMA: 64 B/cycle per AGCU, plus the 2-cycle crossing, pipelined with the
//        next memory reads; reads issue as far ahead as the stream's depth.
//   HBM: 64 B/cycle over 2 interleaved channels, latency 100 cycles.
//   DDR: 16 B/cycle over 1 channel, latency 200 cycles.
//   Links: 32 B/cycle, 1000 ns per hop, ring collectives, no launch cost.
//   Reconfiguration: 1000 cycles before the first section.
// SystemC allows one simulation per process; ctest runs each TEST alone.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Components/Component.h"
#include "snapflow/Sim/Core/Simulator.h"

#include "gtest/gtest.h"

#include <set>

#include <systemc>

using namespace snapflow;
using namespace snapflow::sim;

extern "C" int sc_main(int, char **) { return 0; }

namespace {

arch::ArchModel tiny() {
  auto m = arch::ArchModel::load("tiny");
  EXPECT_TRUE(static_cast<bool>(m));
  return std::move(*m);
}

/// Builds one-section programs.
struct Builder {
  Program p;
  Section &sec() { return p.sections.back(); }

  Builder() {
    p.name = p.phase = "decode";
    p.target = tiny();
    p.sections.emplace_back();
    sec().name = "s";
  }
  int tensor(arch::MemoryTier tier, int64_t bytes) {
    p.tensors.push_back({"t" + std::to_string(p.tensors.size()), bytes, tier,
                         false});
    return static_cast<int>(p.tensors.size()) - 1;
  }
  int stream(int64_t tileBytes, int64_t tiles, int64_t depth = 2) {
    Stream s;
    s.tileBytes = tileBytes;
    s.tiles = tiles;
    s.depth = depth;
    sec().streams.push_back(s);
    return static_cast<int>(sec().streams.size()) - 1;
  }
  int add(Node n) {
    int index = static_cast<int>(sec().nodes.size());
    for (int in : n.inputs)
      sec().streams[in].consumers.push_back(index);
    for (int out : n.outputs)
      sec().streams[out].producer = index;
    n.label = "node" + std::to_string(index);
    sec().nodes.push_back(n);
    return index;
  }
  int load(int tensor, int out, int64_t tiles, int64_t agcus = 1) {
    Node n;
    n.kind = NodeKind::Load;
    n.tensor = tensor;
    n.tiles = tiles;
    n.agcus = agcus;
    n.outputs = {out};
    return add(n);
  }
  int stage(StageKind kind, std::vector<int> in, std::vector<int> out,
            int64_t tiles, int64_t flops, int64_t pcus = 1) {
    Node n;
    n.kind = NodeKind::Stage;
    n.stageKind = kind;
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    for (int o : n.outputs)
      n.outputTiles.push_back(sec().streams[o].tiles);
    n.tiles = tiles;
    n.flopsPerTile = flops;
    n.pcus = pcus;
    return add(n);
  }
  int collective(CollectiveKind kind, int in, int out, int64_t group) {
    Node n;
    n.kind = NodeKind::Collective;
    n.collective = kind;
    n.inputs = {in};
    n.outputs = {out};
    n.group = group;
    return add(n);
  }
};

SimResult run(const Program &p, bool allSockets = false) {
  arch::ArchModel chip = tiny();
  SimOptions o;
  o.allSockets = allSockets;
  return simulate({{&p, 1}}, chip, o);
}

/// Cycles from the end of the reconfiguration to the end of the run.
double sectionCycles(const SimResult &r) { return r.cycles - 1000; }

/// End of a node's activity (its last push or pop), in cycles. Stage slices
/// are named "section: node".
double nodeEnd(const SimResult &r, const std::string &label) {
  for (const TraceEvent &e : r.trace)
    if (e.kind == TraceEvent::Slice && e.name == "s: " + label)
      return (e.startPs + e.durationPs) / 1000.0;
  return -1;
}

} // namespace

// One DMA of 4 tiles of 4096 B from HBM into a stage doing no work.
// Memory: a tile is 2 x 2048 B stripes at 32 B/cycle = 64 cycles, +100.
// DMA: 4096 / 64 = 64 cycles, +2.
//   tile 0: read 0..64, arrives 164; DMA 164..228, lands 230.
//   tile 1 (issued at 0, second buffer): read 64..128 -> 228; DMA 228..292
//     -> 294.
//   tile 2 issued when tile 0 lands (230): read 230..294 -> 394; DMA
//     394..458 -> 460.
//   tile 3 issued when tile 1 lands (294): read 294..358 -> 458; DMA
//     458..522 -> 524.
// The stage pops each as it lands; its last step ends at 524.
TEST(Simulator, OneDMA) {
  Builder b;
  int w = b.tensor(arch::MemoryTier::HBM, 4 * 4096);
  int s = b.stream(4096, 4);
  b.load(w, s, 4);
  b.stage(StageKind::Elementwise, {s}, {}, 4, 0);
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.deadlock;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 524);
  EXPECT_DOUBLE_EQ(r.jobs[0].bytes[static_cast<int>(arch::MemoryTier::HBM)], 16384);
}

// One GEMM stage of 8 steps on 2 PCUs, 12800 FLOPs per step: 12800 / (2 x 64)
// = 100 cycles, +10 fill on the first step. Each 256-B output tile crosses
// the network over 2 lanes: 256 / 128 + 2 = 4 cycles. 8 x 104 + 10 = 842.
TEST(Simulator, OneGemmStage) {
  Builder b;
  int s = b.stream(256, 8);
  b.stage(StageKind::Gemm, {}, {s}, 8, 12800, 2);
  b.stage(StageKind::Elementwise, {s}, {}, 8, 0);
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.deadlock;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 842);
  EXPECT_DOUBLE_EQ(r.jobs[0].flops, 8 * 12800);
}

// Two stages in a pipeline: A takes 100 cycles per step (6400 FLOPs on one
// PCU), B 300 (19200). A's 64-B tiles cross in 64 / 64 + 2 = 3 cycles.
// A pushes tile 0 at 10 + 100 + 3 = 113; B runs 113 + 10 + 300 = 423, then
// one step per 300 cycles as A stays ahead: 423 + 7 x 300 = 2523. The
// slower stage sets the pace.
TEST(Simulator, PipelineLimitedBySlowerStage) {
  Builder b;
  int s = b.stream(64, 8);
  b.stage(StageKind::Gemm, {}, {s}, 8, 6400);
  b.stage(StageKind::Gemm, {s}, {}, 8, 19200);
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.deadlock;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 2523);
}

// The same pipeline through a stream of depth 1 and of depth 2. B pops tile
// j at 113 (j = 0) and at 423 + 300 (j - 1) after that. With depth 1, A can
// push tile k only after B took tile k - 1: A's last push (k = 7) waits for
// B's pop of tile 6 at 423 + 1500 = 1923. With depth 2 it waits for tile 5:
// 423 + 1200 = 1623. B ends at 2523 either way.
TEST(Simulator, BackPressureFromShallowFifo) {
  for (int64_t depth : {1, 2}) {
    Builder b;
    int s = b.stream(64, 8, depth);
    int a = b.stage(StageKind::Gemm, {}, {s}, 8, 6400);
    b.stage(StageKind::Gemm, {s}, {}, 8, 19200);
    (void)a;
    // One simulation per process: run the depth-2 case in its own test.
    if (depth == 2)
      continue;
    SimResult r = run(b.p);
    ASSERT_FALSE(r.deadlocked) << r.deadlock;
    EXPECT_DOUBLE_EQ(nodeEnd(r, "node0") - 1000, 1923);
    EXPECT_DOUBLE_EQ(sectionCycles(r), 2523);
  }
}
TEST(Simulator, BackPressureDepthTwo) {
  Builder b;
  int s = b.stream(64, 8, 2);
  b.stage(StageKind::Gemm, {}, {s}, 8, 6400);
  b.stage(StageKind::Gemm, {s}, {}, 8, 19200);
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.deadlock;
  EXPECT_DOUBLE_EQ(nodeEnd(r, "node0") - 1000, 1623);
}

// Two DMAs of one 3200-B tile each from DDR (one channel, 16 B/cycle,
// latency 200). Alone a read takes 3200 / 16 = 200 cycles + 200. Together
// the second waits for the channel: reads 0..200 and 200..400, arriving at
// 400 and 600; DMAs of 3200 / 64 = 50 cycles + 2 land them at 452 and 652.
// The consumer pops both and spends its 10-cycle fill: 662.
TEST(Simulator, TwoDMAsContendForOneChannel) {
  Builder b;
  int x = b.tensor(arch::MemoryTier::DDR, 3200), y = b.tensor(arch::MemoryTier::DDR, 3200);
  int sx = b.stream(3200, 1), sy = b.stream(3200, 1);
  b.load(x, sx, 1);
  b.load(y, sy, 1);
  b.stage(StageKind::Elementwise, {sx, sy}, {}, 1, 0);
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.deadlock;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 662);
  EXPECT_NEAR(r.ddrUtilization * r.elapsedPs / 1000.0, 400, 1e-6);
}

namespace {
/// A stage makes one 4096-B tile, a ring all-reduce over `group` sockets
/// sums it, a stage takes the result.
Program allReduce(int64_t group) {
  Builder b;
  b.p.tp = group;
  int a = b.stream(4096, 1), c = b.stream(4096, 1);
  b.stage(StageKind::Gemm, {}, {a}, 1, 0);
  b.collective(CollectiveKind::AllReduce, a, c, group);
  b.stage(StageKind::Elementwise, {c}, {}, 1, 0);
  return b.p;
}
} // namespace

// Ring all-reduce over 4 sockets: 2 x 3 = 6 hops of 4096 / 4 = 1024 B.
// The producer pushes at 10 (fill) + 4096 / 64 + 2 = 76. The link sends
// 6 x 1024 = 6144 B at 32 B/cycle = 192 cycles, and each of the 6 hops costs
// 1000 ns: 76 + 192 + 6000 = 6268. The result crosses to the consumer over
// one lane (66 cycles, 6334), which spends its fill: 6344.
TEST(Simulator, RingAllReduceFourSockets) {
  Program p = allReduce(4);
  SimResult r = run(p);
  ASSERT_FALSE(r.deadlocked) << r.deadlock;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 6344);
}

// Over 16 sockets: 30 hops of 256 B: 7680 B / 32 = 240 cycles + 30 x 1000:
// 76 + 30240 = 30316, +66 = 30382, +10 = 30392. At small tiles, latency per
// hop, not bandwidth, decides.
TEST(Simulator, RingAllReduceSixteenSockets) {
  Program p = allReduce(16);
  SimResult r = run(p);
  ASSERT_FALSE(r.deadlocked) << r.deadlock;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 30392);
}

// Simulating all 4 sockets of the group, with the collective as a real
// rendezvous, gives the symmetric result of the one-socket model.
TEST(Simulator, AllSocketsAgreeWithSymmetry) {
  Program p = allReduce(4);
  SimResult r = run(p, /*allSockets=*/true);
  ASSERT_FALSE(r.deadlocked) << r.deadlock;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 6344);
}

// Two stages that each wait for the other's output: a cycle of streams. The
// run ends with a deadlock that names both stages and the streams they wait
// on, at the cycle it happened (right after the 1000-cycle
// reconfiguration).
TEST(Simulator, DeadlockIsReported) {
  Builder b;
  int ab = b.stream(64, 4, 1), ba = b.stream(64, 4, 1);
  b.stage(StageKind::Elementwise, {ba}, {ab}, 4, 16);
  b.stage(StageKind::Elementwise, {ab}, {ba}, 4, 16);
  SimResult r = run(b.p);
  ASSERT_TRUE(r.deadlocked);
  EXPECT_NE(r.deadlock.find("deadlock at cycle 1000"), std::string::npos)
      << r.deadlock;
  EXPECT_NE(r.deadlock.find("node0 waits to pop from stream #1"),
            std::string::npos)
      << r.deadlock;
  EXPECT_NE(r.deadlock.find("node1 waits to pop from stream #0"),
            std::string::npos)
      << r.deadlock;
}

// A loop of 50 identical iterations: with fast-forward the controller
// simulates until two iterations take the same time and accounts the rest;
// the total equals simulating every one. (Each iteration: one DMA of 4096 B,
// as in OneDMA but a single tile: 164 + 66 = 230 cycles, +10 fill = 240.)
TEST(Simulator, FastForwardMatchesFullRun) {
  Builder b;
  b.sec().repeat = 50;
  int w = b.tensor(arch::MemoryTier::HBM, 4096);
  int s = b.stream(4096, 1);
  b.load(w, s, 1);
  b.stage(StageKind::Elementwise, {s}, {}, 1, 0);
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.deadlock;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 50 * 240);
  EXPECT_LT(r.jobs[0].iterationsSimulated, 50);
  EXPECT_DOUBLE_EQ(r.jobs[0].bytes[static_cast<int>(arch::MemoryTier::HBM)], 50 * 4096);
}

// Every component declares its parameters and statistics with units, and
// every parameter names the chip keys it comes from, each a key the chip
// file declares: no hardware number is a literal in a component.
TEST(Components, ParametersComeFromTheChipFile) {
  std::set<std::string> keys;
  for (const arch::ArchParamInfo &p : arch::ArchModel::paramInfos())
    keys.insert(p.dottedKey());
  EXPECT_GE(allComponents().size(), 7u);
  for (const ComponentInfo *c : allComponents()) {
    EXPECT_FALSE(llvm::StringRef(c->description).empty()) << c->name;
    for (const ParamInfo &p : c->params) {
      EXPECT_FALSE(llvm::StringRef(p.unit).empty()) << c->name << " " << p.name;
      // "socket.pmu_count x socket.pmu_bytes_per_cycle": every word that
      // looks like a chip key must be one.
      llvm::SmallVector<llvm::StringRef> words;
      llvm::StringRef(p.chipKeys).split(words, ' ', -1, false);
      int named = 0;
      for (llvm::StringRef w : words) {
        w = w.trim(",;:");
        if (!w.starts_with("socket.") && !w.starts_with("system."))
          continue;
        ++named;
        EXPECT_TRUE(keys.count(w.str())) << c->name << " " << p.name << ": "
                                         << w.str() << " is not a chip key";
      }
      EXPECT_GT(named, 0) << c->name << " " << p.name;
    }
    for (const StatInfo &s : c->stats)
      EXPECT_FALSE(llvm::StringRef(s.unit).empty()) << c->name << " " << s.name;
  }
  std::string listing;
  llvm::raw_string_ostream os(listing);
  describeComponents(os);
  EXPECT_NE(listing.find("memory tier: "), std::string::npos);
  EXPECT_NE(listing.find("from socket.hbm_bytes_per_s"), std::string::npos);
}
