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

#include "snapflow/Sim/Engine/Simulator.h"
#include "snapflow/Sim/Components/DmaEngine.h"
#include "snapflow/Sim/Engine/Registry.h"
#include "snapflow/Sim/Engine/Socket.h"

#include "ProgramBuilder.h"

#include "gtest/gtest.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include <sys/wait.h>
#include <unistd.h>

#include <systemc>

using namespace snapflow;
using namespace snapflow::sim;
using namespace snapflow::sim::test;

extern "C" int sc_main(int, char **) { return 0; }

namespace {

/// End of a node's activity (its last push or pop), in cycles: the end of
/// the first trace slice of the node labelled `label`.
double nodeEnd(const SimResult &r, const std::string &label) {
  for (const TraceEvent &e : r.trace)
    if (e.kind == TraceEvent::Node &&
        e.program->sections[e.section].nodes[e.node].label == label)
      return double(e.endPs) / 1000.0;
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
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 524);
  EXPECT_DOUBLE_EQ(r.jobs[0].bytes[static_cast<int>(arch::MemoryTier::HBM)],
                   16384);
}

// The profile charges each span of the critical path to the operator its
// node works for and the resource it waited on. OneDMA's load (tagged
// qkv_projection) lands its tiles at 230, 294, 460 and 524; its consumer
// (tagged attention) computes 1600 FLOPs a step on one SIMD PCU, 100
// cycles (+10 fill on step 0). Step 0 takes tile 0 at 230 and ends at 340;
// step 1 ends at 440 (tile 1 was there at 294); step 2 waits for tile 2 to
// land at 460, so the path becomes the load's again, and ends at 560; step
// 3 ends at 660. The path is the load's 460 cycles of HBM, then the
// stage's 200 of PCU, after the 1000-cycle launch (the reconfiguration).
// Busy: the load waited 230 + 64 + 166 + 64 = 524 on its tiles, the stage
// computed 10 + 4 x 100 = 410.
TEST(Simulator, ProfileChargesTheCriticalPathToOperators) {
  Builder b;
  int w = b.tensor(arch::MemoryTier::HBM, 4 * 4096);
  int s = b.stream(4096, 4);
  int load = b.load(w, s, 4);
  int stage = b.stage(StageKind::Elementwise, {s}, {}, 4, 1600);
  b.sec().nodes[load].opKind = arch::OpKind::QKVProjection;
  b.sec().nodes[stage].opKind = arch::OpKind::Attention;
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 660);
  const Profile &pr = r.jobs[0].profile;
  auto at = [&](arch::OpKind k, Resource res) {
    return pr.ops[static_cast<int>(k)].criticalPs[static_cast<int>(res)] / 1000;
  };
  EXPECT_DOUBLE_EQ(at(arch::OpKind::QKVProjection, Resource::HBM), 460);
  EXPECT_DOUBLE_EQ(at(arch::OpKind::Attention, Resource::PCU), 200);
  EXPECT_DOUBLE_EQ(at(arch::OpKind::KernelLaunch, Resource::Launch), 1000);
  EXPECT_DOUBLE_EQ(pr.criticalPs() / 1000, 1660);
  const OperatorProfile &qkv =
      pr.ops[static_cast<int>(arch::OpKind::QKVProjection)];
  const OperatorProfile &attention =
      pr.ops[static_cast<int>(arch::OpKind::Attention)];
  EXPECT_DOUBLE_EQ(qkv.busyPs / 1000, 524);
  EXPECT_DOUBLE_EQ(attention.busyPs / 1000, 410);
  EXPECT_DOUBLE_EQ(attention.flops, 4 * 1600);
  EXPECT_DOUBLE_EQ(qkv.bytes[static_cast<int>(arch::MemoryTier::HBM)], 16384);
  // The breakdown is the profile by kind of wait.
  EXPECT_DOUBLE_EQ(r.jobs[0].breakdown.memoryPs / 1000, 460);
  EXPECT_DOUBLE_EQ(r.jobs[0].breakdown.computePs / 1000, 200);
  ASSERT_EQ(pr.sections.size(), 1u);
  EXPECT_DOUBLE_EQ(pr.sections[0].calls, 1);
  EXPECT_DOUBLE_EQ(pr.sections[0].ps / 1000, 1660);
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
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 842);
  EXPECT_DOUBLE_EQ(r.jobs[0].flops, 8 * 12800);
}

// The same GEMM with 3 rows (activations sharing each weight): the tiny
// chip's array is 8 lanes x 64 / 2 / 8 = 4 stages, filled at best 3/4 (the
// rows along the 4 stages; 3/8 along the lanes), so a step takes
// ceil(12800 / (2 x 64 x 0.75)) = ceil(133.3) = 134 cycles:
// 8 x (134 + 4) + 10 = 1114.
TEST(Simulator, GemmOfFewRowsFillsPartOfTheArray) {
  Builder b;
  int s = b.stream(256, 8);
  int g = b.stage(StageKind::Gemm, {}, {s}, 8, 12800, 2);
  b.sec().nodes[g].gemmRows = 3;
  b.stage(StageKind::Elementwise, {s}, {}, 8, 0);
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 1114);
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
  ASSERT_FALSE(r.deadlocked) << r.failure;
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
    ASSERT_FALSE(r.deadlocked) << r.failure;
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
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(nodeEnd(r, "node0") - 1000, 1623);
}

// Two DMAs of one 3200-B tile each from DDR (one channel, 16 B/cycle,
// latency 200). Alone a read takes 3200 / 16 = 200 cycles + 200. Together
// the second waits for the channel: reads 0..200 and 200..400, arriving at
// 400 and 600; DMAs of 3200 / 64 = 50 cycles + 2 land them at 452 and 652.
// The consumer pops both and spends its 10-cycle fill: 662.
TEST(Simulator, TwoDMAsContendForOneChannel) {
  Builder b;
  int x = b.tensor(arch::MemoryTier::DDR, 3200),
      y = b.tensor(arch::MemoryTier::DDR, 3200);
  int sx = b.stream(3200, 1), sy = b.stream(3200, 1);
  b.load(x, sx, 1);
  b.load(y, sy, 1);
  b.stage(StageKind::Elementwise, {sx, sy}, {}, 1, 0);
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 662);
  EXPECT_NEAR(r.ddrUtilization * r.elapsedPs / 1000.0, 400, 1e-6);
}

// An activation home in SRAM streams from its PMUs over the mesh, not
// through the AGCU portals, so it does not queue behind the weights that
// fill the AGCU pool (a layer's carry load once waited there behind the
// next layer's prefetch: 1.4 ms of a DeepSeek-R1 step that the profile
// showed as "norm on sram"). An HBM load of 4 tiles of 4096 B (depth 4,
// both AGCUs) issues at 0: reads end 64, 128, 192, 256, +100 latency:
// 164 .. 356; its lanes and the pool (128 B/cycle) carry each in 32
// cycles, to 196, 260, 324, 388 (the pool is then booked up to 388), +2
// hops: its consumer (fill 10) ends at 390. The SRAM load of two 4096 B
// tiles (depth 1) reads each in 4096 / (4 PMUs x 64) = 16 cycles and
// crosses its one lane (64 B/cycle) in 64: tile 0 lands at 82, tile 1 is
// read at 82 .. 98 and lands at 98 + 64 + 2 = 164, when its consumer ends.
// Through the pool, tile 1 would have waited until 388: 388 + 32 + 2 = 422.
TEST(Simulator, SramLoadsBypassTheAgcus) {
  Builder b;
  int w = b.tensor(arch::MemoryTier::HBM, 4 * 4096);
  int h = b.tensor(arch::MemoryTier::SRAM, 2 * 4096);
  int sw = b.stream(4096, 4, /*depth=*/4), sh = b.stream(4096, 2, /*depth=*/1);
  b.load(w, sw, 4, /*agcus=*/2);
  b.load(h, sh, 2);
  b.stage(StageKind::Elementwise, {sw}, {}, 4, 0);
  b.stage(StageKind::Elementwise, {sh}, {}, 2, 0);
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 390);
  EXPECT_DOUBLE_EQ(nodeEnd(r, "node3"), 1000 + 164);
}

// Ring all-reduce over 4 sockets (tiny names the ring): 2 x 3 = 6 hops of
// 4096 / 4 = 1024 B. The producer pushes at 10 (fill) + 4096 / 64 + 2 = 76.
// The link sends 6 x 1024 = 6144 B at 32 B/cycle = 192 cycles, and each of
// the 6 hops costs 1000 ns: 76 + 192 + 6000 = 6268. The result crosses to
// the consumer over the AGCUs' lanes (2 x 64 B/cycle: 4096 / 128 + 2 = 34
// cycles, 6302), which spends its fill: 6312.
TEST(Simulator, RingAllReduceFourSockets) {
  Program p = allReduce(4);
  SimResult r = run(p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 6312);
  ASSERT_EQ(r.collectives.size(), 1u);
  EXPECT_EQ(r.collectives[0].algorithm, arch::CollectiveAlgorithm::Ring);
  EXPECT_DOUBLE_EQ(r.collectives[0].latencyPs / 1000, 6302 - 76);
}

// Over 16 sockets: 30 hops of 256 B: 7680 B / 32 = 240 cycles + 30 x 1000:
// 76 + 30240 = 30316, +34 = 30350, +10 = 30360. At small tiles, latency per
// hop, not bandwidth, decides.
TEST(Simulator, RingAllReduceSixteenSockets) {
  Program p = allReduce(16);
  SimResult r = run(p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 30360);
}

// A one-shot all-reduce over 4 sockets streamed in 4 tiles of 1024 B. The
// producer makes a tile every 1024 / 64 + 2 = 18 cycles after its 10-cycle
// fill: at 28, 46, 64, 82. Each tile goes to offsets 1, 2, 3 at once; the
// busiest link carries 2 x 1024 B (arch/Collectives.h) = 64 cycles, so the
// link sends them 28..92, 92..156, 156..220, 220..284, and each lands 2 hops
// (2000 ns) later: 2092, 2156, 2220, 2284, and crosses to the consumer in
// 1024 / 128 + 2 = 10 cycles. The consumer's fill ends its first step at
// 2102 + 10; its last tile arrives at 2294. The hop latency is paid once,
// not per tile: the unstreamed message would end at 82 + 256 + 2000 + 34.
TEST(Simulator, OneShotStreamsPerTile) {
  Program p = allReduce(4, 4, arch::CollectiveAlgorithm::OneShot);
  SimResult r = run(p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 2294);
  ASSERT_EQ(r.collectives.size(), 1u);
  // From the first input tile (28) to the last output (2294); after the
  // producer's last tile (82): 2212 exposed.
  EXPECT_DOUBLE_EQ(r.collectives[0].latencyPs / 1000, 2294 - 28);
  EXPECT_DOUBLE_EQ(r.collectives[0].exposedPs / 1000, 2294 - 82);
}

// Simulating all 4 sockets of the group, with the collective as a real
// rendezvous per tile, gives the symmetric result of the one-socket model.
TEST(Simulator, AllSocketsAgreeWithSymmetry) {
  Program p = allReduce(4);
  SimResult r = run(p, /*allSockets=*/true);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 6312);
}

// The same for the streamed one-shot of OneShotStreamsPerTile.
TEST(Simulator, AllSocketsAgreeWithSymmetryStreamed) {
  Program p = allReduce(4, 4, arch::CollectiveAlgorithm::OneShot);
  SimResult r = run(p, /*allSockets=*/true);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 2294);
}

namespace {
/// Two decoder layers as a kernel loop: each loads its 4096-B weight tile
/// from HBM and the 256-B carry from SRAM, a gemm combines them, a ring
/// all-reduce over 4 sockets sums the result, which is stored back as the
/// next layer's carry.
Program twoLayers(bool pipelined) {
  Builder b;
  b.p.tp = 4;
  b.sec().repeat = 2;
  b.sec().pipelined = pipelined;
  int w = b.tensor(arch::MemoryTier::HBM, 2 * 4096);
  int carry = b.tensor(arch::MemoryTier::SRAM, 256);
  int sw = b.stream(4096, 1), sc = b.stream(256, 1);
  int sg = b.stream(256, 1), sr = b.stream(256, 1);
  b.load(w, sw, 1);
  b.load(carry, sc, 1);
  b.stage(StageKind::Gemm, {sc, sw}, {sg}, 1, 0);
  b.collective(CollectiveKind::AllReduce, sg, sr, 4);
  b.store(sr, carry);
  return b.p;
}
} // namespace

// One layer, as the OneDMA case shows: the weight tile lands at 230. The
// carry: an SRAM read of 256 B over 4 PMUs (1 cycle), 4 cycles on the AGCU
// lane, 2 hops: 7. The gemm pops both at 230, fills 10 cycles, crosses its
// 256-B output on one lane (4 + 2): 246. The all-reduce: 6 x 64 B = 384 B on
// the link (12 cycles) and 6 hops: 6258, crosses on 2 lanes (2 + 2): 6262;
// the store writes it in 1 cycle: 6263. Without overlap the second layer
// repeats all of it: 2 x 6263 = 12526.
TEST(Simulator, KernelLoopWithoutOverlap) {
  Program p = twoLayers(false);
  SimResult r = run(p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 12526);
}

// Pipelined, the second layer's weight tile streams while the first layer's
// all-reduce runs (read 230..294 +100, lands 460), so the second layer is
// only its dependency chain: the carry load waits for the first store
// (6263) and lands 7 cycles later, then gemm 16, all-reduce 6016, store 1:
// 6263 + 6040 = 12303. The step is the larger of the streaming time (2
// tiles, 460) and the chain (the first weight tile, 230, then 2 x 6033 of
// gemm, all-reduce and store, and the second carry load, 7).
TEST(Simulator, KernelLoopOverlapsTheNextLayersLoads) {
  Program p = twoLayers(true);
  SimResult r = run(p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 12303);
  EXPECT_EQ(r.jobs[0].iterationsSimulated, 2);
  // The breakdown follows the critical path, so its parts add up to the
  // step: memory 230 (the first weight tile) + 1 + 7 (the second carry) + 1;
  // compute 2 x 10 (gemm fills); network 2 x (6 + 4) (the gemm's and the
  // all-reduce's crossings); collective 2 x 6012 (link and hops); plus the
  // 1000-cycle reconfiguration. The second weight tile is off the path.
  const Breakdown &bd = r.jobs[0].breakdown;
  EXPECT_DOUBLE_EQ(bd.memoryPs / 1000, 239);
  EXPECT_DOUBLE_EQ(bd.computePs / 1000, 20);
  EXPECT_DOUBLE_EQ(bd.networkPs / 1000, 20);
  EXPECT_DOUBLE_EQ(bd.collectivePs / 1000, 12024);
  EXPECT_DOUBLE_EQ(bd.reconfigPs / 1000, 1000);
}

/// A section that loads one 4096-B tile from HBM into a stage doing no
/// work: 240 cycles a run (FastForwardMatchesFullRun).
static void oneTileSection(Builder &b, const std::string &name) {
  if (!b.sec().nodes.empty())
    b.p.sections.emplace_back();
  b.sec().name = name;
  int w = b.tensor(arch::MemoryTier::HBM, 4096);
  int s = b.stream(4096, 1);
  b.load(w, s, 1);
  b.stage(StageKind::Elementwise, {s}, {}, 1, 0);
}

static SimResult runWithLaunch(const Program &p, int64_t launchCycles) {
  auto chip = tiny().withOverrides(
      {"socket.kernel_launch_cycles=" + std::to_string(launchCycles)}, "test");
  EXPECT_TRUE(static_cast<bool>(chip)) << llvm::toString(chip.takeError());
  return simulate({{&p, 1}}, *chip, SimOptions());
}

// A loop without kernel looping is a call per iteration, and each call pays
// its launch (argument load and execute, 50 cycles here); the program load
// (1000) only before the first, as the same kernel runs again. Three calls
// of 240 cycles: 1000 + 3 x (50 + 240) = 1870 cycles, of which 1000 + 3 x
// 50 = 1150 are launches.
TEST(Simulator, KernelCallsPayTheirLaunch) {
  Builder b;
  oneTileSection(b, "s");
  b.sec().repeat = 3;
  SimResult r = runWithLaunch(b.p, 50);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(r.cycles, 1870);
  const Profile &pr = r.jobs[0].profile;
  EXPECT_DOUBLE_EQ(pr.ops[static_cast<int>(arch::OpKind::KernelLaunch)]
                           .criticalPs[static_cast<int>(Resource::Launch)] /
                       1000,
                   1150);
  ASSERT_EQ(pr.sections.size(), 1u);
  EXPECT_DOUBLE_EQ(pr.sections[0].calls, 3);
  EXPECT_DOUBLE_EQ(pr.criticalPs() / 1000, 1870);
}

// A loop whose body is two kernels (sections a and b of loop "L", as an MoE
// layer's attention and experts) calls them in turn, a, b, a, b; each call
// loads its program (1000: the kernel before it was the other) and pays
// its launch (50): 4 x (1000 + 50 + 240) = 5160 cycles.
TEST(Simulator, KernelLoopCallsEachKernelInTurn) {
  Builder b;
  oneTileSection(b, "a");
  oneTileSection(b, "b");
  for (Section &sec : b.p.sections) {
    sec.repeat = 2;
    sec.loop = "L";
  }
  SimResult r = runWithLaunch(b.p, 50);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(r.cycles, 5160);
  const Profile &pr = r.jobs[0].profile;
  ASSERT_EQ(pr.sections.size(), 2u);
  EXPECT_DOUBLE_EQ(pr.sections[0].calls, 2);
  EXPECT_DOUBLE_EQ(pr.sections[1].calls, 2);
  EXPECT_DOUBLE_EQ(pr.ops[static_cast<int>(arch::OpKind::KernelLaunch)]
                           .criticalPs[static_cast<int>(Resource::Launch)] /
                       1000,
                   4 * 1050);
  EXPECT_EQ(r.jobs[0].iterationsSimulated + r.jobs[0].iterationsFastForwarded,
            4);
  // Each call's program load is in its section's share: 2 x (1050 + 240).
  EXPECT_DOUBLE_EQ(pr.sections[0].ps / 1000, 2580);
  EXPECT_DOUBLE_EQ(pr.sections[1].ps / 1000, 2580);
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
  EXPECT_NE(r.failure.find("deadlock at cycle 1000"), std::string::npos)
      << r.failure;
  EXPECT_NE(r.failure.find("node0 waits to pop from stream #1"),
            std::string::npos)
      << r.failure;
  EXPECT_NE(r.failure.find("node1 waits to pop from stream #0"),
            std::string::npos)
      << r.failure;
}

// A loop of 50 identical iterations: with fast-forward the controller
// simulates until two iterations take the same time and accounts the rest;
// the total equals simulating every one. (Each iteration: one DMA of 4096 B,
// as in OneDMA but a single tile: 164 + 66 = 230 cycles, +10 fill = 240.)
TEST(Simulator, FastForwardMatchesFullRun) {
  Builder b;
  oneTileSection(b, "s");
  b.sec().repeat = 50;
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 50 * 240);
  EXPECT_LT(r.jobs[0].iterationsSimulated, 50);
  EXPECT_DOUBLE_EQ(r.jobs[0].bytes[static_cast<int>(arch::MemoryTier::HBM)],
                   50 * 4096);
}

// The same iteration as a pipelined loop of 50 (kernel looping): the load
// starts iteration k + 1 as soon as its tile of iteration k has landed, so
// iterations start 230 cycles apart (t_k = 230 k) while the stage's fill
// (10) overlaps the next read: iteration k ends at 230 k + 240, and the run
// at 49 x 230 + 240 = 11510 cycles. Once three periods of 230 agree the
// watch (Engine/SteadyState.h) stops the loop at the furthest iteration
// under way and accounts the rest as periods: the same 11510 cycles and
// 50 x 4096 bytes, from fewer iterations simulated, the critical path
// still adding up to the time.
TEST(Simulator, PipelinedLoopSteadyStateIsAccounted) {
  Builder b;
  oneTileSection(b, "s");
  b.sec().repeat = 50;
  b.sec().pipelined = true;
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 49 * 230 + 240);
  EXPECT_LT(r.jobs[0].iterationsSimulated, 50);
  EXPECT_EQ(r.jobs[0].iterationsSimulated + r.jobs[0].iterationsFastForwarded,
            50);
  EXPECT_DOUBLE_EQ(r.jobs[0].bytes[static_cast<int>(arch::MemoryTier::HBM)],
                   50 * 4096);
  EXPECT_DOUBLE_EQ(r.jobs[0].profile.criticalPs() / 1000, r.cycles);
}

namespace {
/// What a run reports, as named numbers, for comparing a fast-forwarded
/// run with the full one.
struct Facts {
  std::vector<std::string> names;
  std::vector<double> values;
  void add(std::string name, double v) {
    names.push_back(std::move(name));
    values.push_back(v);
  }
};

std::string opName(int k) {
  return arch::opKindName(static_cast<arch::OpKind>(k)).str();
}

/// What the components counted: time, tiles, busy fractions, per step and
/// socket the bytes per tier, FLOPs, link bytes and energy, each
/// operator's own work (the nodes' tallies), each collective's mean
/// latency and exposed time (its runs and their spans).
Facts workFacts(const SimResult &r) {
  Facts f;
  f.add("elapsed_ps", r.elapsedPs);
  f.add("tiles_moved", double(r.tilesMoved));
  f.add("pcu_utilization", r.pcuUtilization);
  f.add("hbm_utilization", r.hbmUtilization);
  f.add("ddr_utilization", r.ddrUtilization);
  f.add("link_utilization", r.linkUtilization);
  for (const JobResult &j : r.jobs) {
    f.add("flops", j.flops);
    for (arch::MemoryTier t : arch::kAllTiers)
      f.add("bytes." + arch::tierName(t).str(), j.bytes[static_cast<int>(t)]);
    f.add("link_bytes", j.linkBytes);
    f.add("energy_pj", j.energyPj);
    for (int k = 0; k < arch::kNumOpKinds; ++k) {
      const OperatorProfile &op = j.profile.ops[k];
      std::string name = "ops." + opName(k);
      f.add(name + ".busy_ps", op.busyPs);
      f.add(name + ".flops", op.flops);
      f.add(name + ".simd_flops", op.simdFlops);
      for (arch::MemoryTier t : arch::kAllTiers)
        f.add(name + ".bytes." + arch::tierName(t).str(),
              op.bytes[static_cast<int>(t)]);
      f.add(name + ".link_bytes", op.linkBytes);
      for (int a = 0; a < kNumEnergyActions; ++a)
        f.add(name + ".energy." +
                  energyActionName(static_cast<EnergyAction>(a)).str(),
              op.energy.pj[a]);
    }
    for (size_t s = 0; s < j.profile.sections.size(); ++s)
      f.add("sections." + std::to_string(s) + ".energy_pj",
            j.profile.sections[s].energyPj);
  }
  for (const CollectiveResult &c : r.collectives) {
    f.add("collectives." + c.label + ".latency_ps", c.latencyPs);
    f.add("collectives." + c.label + ".exposed_ps", c.exposedPs);
  }
  return f;
}

/// The critical path: by operator and resource, and by section and
/// operator, with each section's time and calls.
Facts pathFacts(const SimResult &r) {
  Facts f;
  f.add("elapsed_ps", r.elapsedPs);
  for (const JobResult &j : r.jobs) {
    for (int k = 0; k < arch::kNumOpKinds; ++k)
      for (int res = 0; res < kNumResources; ++res)
        f.add("ops." + opName(k) + ".critical." +
                  resourceName(static_cast<Resource>(res)).str(),
              j.profile.ops[k].criticalPs[res]);
    for (size_t s = 0; s < j.profile.sections.size(); ++s) {
      const Profile::SectionShare &share = j.profile.sections[s];
      std::string name = "sections." + std::to_string(s);
      f.add(name + ".ps", share.ps);
      f.add(name + ".calls", share.calls);
      for (int k = 0; k < arch::kNumOpKinds; ++k)
        f.add(name + ".critical." + opName(k), share.criticalPs[k]);
    }
  }
  return f;
}

Facts allFacts(const SimResult &r) {
  Facts f = workFacts(r), path = pathFacts(r);
  f.names.insert(f.names.end(), path.names.begin(), path.names.end());
  f.values.insert(f.values.end(), path.values.begin(), path.values.end());
  return f;
}

/// The values of `facts` of one step of `p` simulated whole (no
/// fast-forward) on the tiny chip, in a process of its own: SystemC allows
/// one simulation per process, and this one's is the fast-forwarded run.
std::vector<double> fullRun(const Program &p, bool allSockets,
                            Facts (*facts)(const SimResult &)) {
  int fds[2];
  if (::pipe(fds) != 0) {
    ADD_FAILURE() << "pipe: " << std::strerror(errno);
    return {};
  }
  std::fflush(nullptr); // nothing buffered is written twice
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    arch::ArchModel chip = tiny();
    SimOptions o;
    o.fastForward = false;
    o.allSockets = allSockets;
    SimResult r;
    try {
      r = simulate({{&p, 1}}, chip, o);
    } catch (...) {
      ::_exit(1); // never the rest of the test in the child
    }
    if (!r.failure.empty())
      ::_exit(1);
    std::vector<double> v = facts(r).values;
    const char *at = reinterpret_cast<const char *>(v.data());
    for (size_t left = v.size() * sizeof(double); left > 0;) {
      ssize_t n = ::write(fds[1], at, left);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        ::_exit(1);
      at += n;
      left -= size_t(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::vector<char> bytes;
  char buffer[4096];
  for (ssize_t n; pid > 0 && (n = ::read(fds[0], buffer, sizeof(buffer)));) {
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      break;
    bytes.insert(bytes.end(), buffer, buffer + n);
  }
  ::close(fds[0]);
  int status = 0;
  while (pid > 0 && ::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  EXPECT_TRUE(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the full run failed";
  std::vector<double> v(bytes.size() / sizeof(double));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(double));
  return v;
}

/// Expects each of the fast-forwarded run's facts to be the full run's,
/// within 1e-9 of the larger (or 1e-6 of zero), as SteadyState's watch
/// compares periods.
void expectFullRun(const Facts &fast, const std::vector<double> &full) {
  ASSERT_EQ(fast.values.size(), full.size());
  for (size_t k = 0; k < full.size(); ++k) {
    double a = fast.values[k], b = full[k];
    EXPECT_LE(std::fabs(a - b),
              std::max(1e-9 * std::max(std::fabs(a), std::fabs(b)), 1e-6))
        << fast.names[k] << ": fast-forwarded " << a << ", full run " << b;
  }
}

/// Iterations the trace says were accounted, not simulated.
int64_t accountedInTrace(const SimResult &r) {
  int64_t n = 0;
  for (const TraceEvent &e : r.trace)
    if (e.kind == TraceEvent::IterationsAccounted)
      n += e.count;
  return n;
}
} // namespace

// A cut loop accounts what every component of every socket counted in the
// iterations it skipped. A pipelined loop of 40 iterations with every
// socket of its 4-socket TP group simulated: each iteration loads 4 tiles
// of 1024 B from HBM, a GEMM stage computes 6400 FLOPs on each (systolic),
// a ring all-reduce over the 4 sockets sums them, an elementwise stage
// computes 1600 FLOPs on each (SIMD) and a store writes them to DDR. The
// all-reduce (6 hops of 1000 cycles a run) sets the period; once three
// agree the watch cuts the loop. Per socket and step, by hand:
//   FLOPs 40 x 4 x (6400 + 1600) = 1280000, of them SIMD 40 x 4 x 1600 =
//     256000;
//   bytes: HBM and DDR 40 x 4 x 1024 = 163840 each; link: a ring all-reduce
//     of 4 sends 2 x 3 / 4 of its 4096-B message, 40 x 6144 = 245760;
//   energy (pJ): compute 1024000 x 1 + 256000 x 2 = 1536000; HBM 163840 x 8
//     bits x 10 = 13107200; DDR x 20 = 26214400; links 245760 x 8 x 5 =
//     9830400; the 4 streams' 4 x 163840 x 8 = 5242880 bits each written to
//     and read from SRAM (2 + 1 pJ/bit) = 15728640 and crossing 2 hops of
//     the mesh (0.5 pJ/bit/hop) = 5242880; 71659520 in all;
//   tiles: 4 streams x 4 tiles x 40 = 640 per socket, 2560 on the 4.
// The rest is the full run's (simulated in a process of its own), within
// 1e-9: the time, the busy fractions, each operator's busy time, and the
// all-reduce's mean latency and exposed time, whose first run is not a
// steady one: the mean moves unless its runs and its spans are both scaled.
TEST(Simulator, PipelinedLoopCutAccountsEveryStatistic) {
  Builder b;
  b.p.tp = 4;
  b.sec().repeat = 40;
  b.sec().pipelined = true;
  int w = b.tensor(arch::MemoryTier::HBM, 40 * 4096);
  int out = b.tensor(arch::MemoryTier::DDR, 40 * 4096);
  int sw = b.stream(1024, 4), sg = b.stream(1024, 4);
  int sr = b.stream(1024, 4), se = b.stream(1024, 4);
  b.load(w, sw, 4);
  b.stage(StageKind::Gemm, {sw}, {sg}, 4, 6400);
  b.collective(CollectiveKind::AllReduce, sg, sr, 4);
  b.stage(StageKind::Elementwise, {sr}, {se}, 4, 1600);
  b.store(se, out);
  std::vector<double> full = fullRun(b.p, /*allSockets=*/true, workFacts);
  SimResult r = run(b.p, /*allSockets=*/true);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  const JobResult &j = r.jobs[0];
  EXPECT_GT(j.iterationsFastForwarded, 0);
  EXPECT_EQ(j.iterationsSimulated + j.iterationsFastForwarded, 40);
  EXPECT_EQ(accountedInTrace(r), j.iterationsFastForwarded);
  EXPECT_DOUBLE_EQ(j.flops, 1280000);
  const OperatorProfile &op =
      j.profile.ops[static_cast<int>(arch::OpKind::Other)];
  EXPECT_DOUBLE_EQ(op.flops, 1280000);
  EXPECT_DOUBLE_EQ(op.simdFlops, 256000);
  EXPECT_DOUBLE_EQ(j.bytes[static_cast<int>(arch::MemoryTier::HBM)], 163840);
  EXPECT_DOUBLE_EQ(j.bytes[static_cast<int>(arch::MemoryTier::DDR)], 163840);
  EXPECT_DOUBLE_EQ(j.linkBytes, 245760);
  EXPECT_DOUBLE_EQ(op.energy[EnergyAction::Compute], 1536000);
  EXPECT_DOUBLE_EQ(op.energy[EnergyAction::HBM], 13107200);
  EXPECT_DOUBLE_EQ(op.energy[EnergyAction::DDR], 26214400);
  EXPECT_DOUBLE_EQ(op.energy[EnergyAction::Link], 9830400);
  EXPECT_DOUBLE_EQ(op.energy[EnergyAction::SRAM], 15728640);
  EXPECT_DOUBLE_EQ(op.energy[EnergyAction::Network], 5242880);
  EXPECT_DOUBLE_EQ(j.energyPj, 71659520);
  EXPECT_EQ(r.tilesMoved, 2560);
  ASSERT_EQ(r.collectives.size(), 1u);
  expectFullRun(workFacts(r), full);
}

// A cut loop's critical path is split as the full run's: each span of the
// simulated path inside the measured period is charged once more per
// period cut out, to its own operator and resource. twoLayers's layer
// (KernelLoopOverlapsTheNextLayersLoads) pipelined over 40 layers, its
// nodes tagged apart: weight load qkv_projection, carry load norm, gemm
// mlp, all-reduce all_reduce, store residual. The path is the first weight
// tile (HBM 230), then per layer the gemm (PCU fill 10, NoC crossing 6),
// the all-reduce (link 6012, NoC crossing 4), the store (SRAM 1) and, from
// the second layer on, the carry load waiting on the store before it
// (SRAM 7), after the 1000-cycle launch:
//   qkv_projection: hbm 230;      norm: sram 39 x 7 = 273;
//   mlp: pcu 40 x 10 = 400, noc 40 x 6 = 240;
//   all_reduce: link 40 x 6012 = 240480, noc 40 x 4 = 160;
//   residual: sram 40 x 1 = 40;
// 223 + 40 x 6040 = 241823 cycles. A cut charging what it skipped to one
// place (the remainder goes to the link of the last node's operator)
// would fail, as would one scaling the wrong spans.
TEST(Simulator, PipelinedLoopCutSplitsTheCriticalPath) {
  Program p = twoLayers(true);
  Section &sec = p.sections[0];
  sec.repeat = 40;
  const arch::OpKind kinds[] = {arch::OpKind::QKVProjection, arch::OpKind::Norm,
                                arch::OpKind::MLP, arch::OpKind::AllReduce,
                                arch::OpKind::Residual};
  ASSERT_EQ(sec.nodes.size(), 5u);
  for (size_t k = 0; k < sec.nodes.size(); ++k)
    sec.nodes[k].opKind = kinds[k];
  std::vector<double> full = fullRun(p, /*allSockets=*/false, pathFacts);
  SimResult r = run(p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_GT(r.jobs[0].iterationsFastForwarded, 0);
  EXPECT_DOUBLE_EQ(sectionCycles(r), 241823);
  const Profile &pr = r.jobs[0].profile;
  auto at = [&](arch::OpKind k, Resource res) {
    return pr.ops[static_cast<int>(k)].criticalPs[static_cast<int>(res)] / 1000;
  };
  EXPECT_DOUBLE_EQ(at(arch::OpKind::QKVProjection, Resource::HBM), 230);
  EXPECT_DOUBLE_EQ(at(arch::OpKind::Norm, Resource::SRAM), 273);
  EXPECT_DOUBLE_EQ(at(arch::OpKind::MLP, Resource::PCU), 400);
  EXPECT_DOUBLE_EQ(at(arch::OpKind::MLP, Resource::NoC), 240);
  EXPECT_DOUBLE_EQ(at(arch::OpKind::AllReduce, Resource::Link), 240480);
  EXPECT_DOUBLE_EQ(at(arch::OpKind::AllReduce, Resource::NoC), 160);
  EXPECT_DOUBLE_EQ(at(arch::OpKind::Residual, Resource::SRAM), 40);
  EXPECT_DOUBLE_EQ(at(arch::OpKind::Residual, Resource::Link), 0);
  EXPECT_DOUBLE_EQ(at(arch::OpKind::KernelLaunch, Resource::Launch), 1000);
  EXPECT_DOUBLE_EQ(pr.criticalPs() / 1000, r.cycles);
  expectFullRun(pathFacts(r), full);
}

// A pipelined loop too short to cut: the watch needs kSteadyPeriods (3)
// equal periods, four iteration ends, and then an iteration not started
// yet. oneTileSection's loop (PipelinedLoopSteadyStateIsAccounted) of 5:
// iteration k starts at 230 k and ends at 230 k + 240, so the fourth end
// (930) shows three periods of 230, but the load started the last
// iteration (4) at 920: nothing is left to skip. Every iteration is
// simulated, none accounted, and the run is the full run: 1000 + 4 x 230 +
// 240 = 2160 cycles, its path the load's HBM 5 x 230 = 1150 and the
// stage's fill 10 after the launch.
TEST(Simulator, ShortPipelinedLoopIsNotCut) {
  Builder b;
  oneTileSection(b, "s");
  b.sec().repeat = 5;
  b.sec().pipelined = true;
  std::vector<double> full = fullRun(b.p, /*allSockets=*/false, allFacts);
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_EQ(r.jobs[0].iterationsSimulated, 5);
  EXPECT_EQ(r.jobs[0].iterationsFastForwarded, 0);
  EXPECT_EQ(accountedInTrace(r), 0);
  EXPECT_DOUBLE_EQ(r.cycles, 2160);
  const OperatorProfile &op =
      r.jobs[0].profile.ops[static_cast<int>(arch::OpKind::Other)];
  EXPECT_DOUBLE_EQ(op.criticalPs[static_cast<int>(Resource::HBM)] / 1000, 1150);
  EXPECT_DOUBLE_EQ(op.criticalPs[static_cast<int>(Resource::PCU)] / 1000, 10);
  expectFullRun(allFacts(r), full);
}

// Simulated time has a horizon (2^62 ps, about 4.6e6 s): a step of 1240
// cycles (1.24e-6 s: the 1000-cycle reconfiguration before the first
// section and the 240-cycle iteration above; later steps 240 cycles) repeated
// 2^50 times would need about 2.7e11 s. The run stops at the horizon and
// says so, instead of reporting times clamped to the end of SystemC's
// 64-bit clock (reliability defect 24: --steps INT64_MAX).
TEST(Simulator, TimePastTheHorizonIsAnError) {
  Builder b;
  int w = b.tensor(arch::MemoryTier::HBM, 4096);
  int s = b.stream(4096, 1);
  b.load(w, s, 1);
  b.stage(StageKind::Elementwise, {s}, {}, 1, 0);
  arch::ArchModel chip = tiny();
  SimResult r = simulate({{&b.p, int64_t(1) << 50}}, chip, SimOptions());
  EXPECT_TRUE(r.pastHorizon);
  EXPECT_FALSE(r.deadlocked);
  EXPECT_NE(r.failure.find("simulated time would pass 2^62 ps"),
            std::string::npos)
      << r.failure;
  EXPECT_LE(r.elapsedPs, 0x1p62);
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

// The engine builds a socket from the registry alone (Socket::build), so the
// registry must hold a component for every node kind a program can hold
// (exactly one each), one that copies, a server for every memory tier and
// the network, and for every role the run-wide totals read, a statistic
// (tier roles on a component that serves a tier, so they land in its
// tier's column).
TEST(Components, RegistryBuildsACompleteSocket) {
  arch::ArchModel chip = tiny();
  Socket socket;
  socket.build({chip});
  std::set<std::string> names;
  for (const ComponentKind &kind : registeredComponents())
    EXPECT_TRUE(names.insert(kind.info().name).second) << kind.info().name;
  int runners[kNumNodeKinds] = {}, copiers = 0;
  std::set<StatRole> roles;
  for (const std::unique_ptr<Component> &c : socket.components) {
    for (NodeKind k : c->getInfo().runs)
      ++runners[static_cast<int>(k)];
    copiers += c->getInfo().copies;
    for (const StatInfo &s : c->getInfo().stats) {
      roles.insert(s.role);
      if (s.role == StatRole::TierBusy || s.role == StatRole::TierBytes)
        EXPECT_TRUE(c->stats.getTier().has_value()) << c->getInfo().name;
    }
  }
  for (int k = 0; k < kNumNodeKinds; ++k)
    EXPECT_EQ(runners[k], 1) << "node kind " << k;
  EXPECT_EQ(copiers, 1);
  for (StatRole r : {StatRole::PcuBusy, StatRole::Flops, StatRole::LinkBusy,
                     StatRole::LinkBytes, StatRole::Tiles, StatRole::TierBusy,
                     StatRole::TierBytes})
    EXPECT_TRUE(roles.count(r)) << static_cast<int>(r);
  for (arch::MemoryTier t : arch::kAllTiers)
    ASSERT_NE(socket.ports->tiers[static_cast<int>(t)], nullptr);
  EXPECT_NE(socket.ports->network, nullptr);
  // Three tiers are three instances of one kind.
  EXPECT_EQ(socket.components.size(), registeredComponents().size() + 2);
}

// A chunked prefill of 3 chunks runs its section once per chunk, the stage's
// 2 prefix tiles (of 4) growing with the chunk: chunk j runs
// 4 - 2 + ceil(2 j / 2) steps = 2, 3, 4. Each step is 12800 FLOPs on 2 PCUs
// = 100 cycles, +10 fill at every run's first step: 210 + 310 + 410 = 930
// cycles after the one reconfiguration (the same section runs again), and
// 9 steps of FLOPs in the one step of the job.
TEST(Simulator, ChunkedPrefillGrowsThePrefixWork) {
  Builder b;
  b.p.name = "prefill";
  b.p.phase = arch::Phase::Prefill;
  b.p.chunks = 3;
  int st = b.stage(StageKind::Gemm, {}, {}, 4, 12800, 2);
  b.sec().nodes[st].prefixTiles = 2;
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  EXPECT_DOUBLE_EQ(sectionCycles(r), 930);
  // Each chunk's time, the first carrying the one reconfiguration.
  EXPECT_EQ(r.jobs[0].chunkPs,
            (std::vector<double>{(1000 + 210) * 1e3, 310e3, 410e3}));
  EXPECT_DOUBLE_EQ(r.jobs[0].flops, 9 * 12800);
  EXPECT_EQ(r.jobs[0].steps, 1);
}

// The streams of a chunk carry what their producers emit in it: a prefix
// load's tiles (none in the first chunk, 3 of 6 in the middle one of 3, all
// in the last), a buffer's input times its reads; a stage's outputs keep
// their counts whatever its prefix steps.
TEST(Simulator, ChunkTilesFollowTheProducer) {
  Builder b;
  int kv = b.tensor(arch::MemoryTier::HBM, 6 * 4096);
  int s0 = b.stream(4096, 6), s1 = b.stream(4096, 12), s2 = b.stream(256, 5);
  int load = b.load(kv, s0, 6);
  b.sec().nodes[load].prefixTiles = 6;
  Node buffer;
  buffer.kind = NodeKind::Buffer;
  buffer.reads = 2;
  buffer.inputs = {s0};
  buffer.outputs = {s1};
  b.add(buffer);
  int st = b.stage(StageKind::Gemm, {s1}, {s2}, 8, 100);
  b.sec().nodes[st].prefixTiles = 4;
  b.stage(StageKind::Elementwise, {s2}, {}, 5, 0);
  std::vector<std::vector<int64_t>> streams, nodes;
  for (int64_t chunk = 0; chunk < 3; ++chunk) {
    Section::ChunkTiles t = b.sec().tilesInChunk(chunk, 3);
    streams.push_back(t.streams);
    nodes.push_back(t.nodes);
  }
  EXPECT_EQ(streams[0], (std::vector<int64_t>{0, 0, 5}));
  EXPECT_EQ(streams[1], (std::vector<int64_t>{3, 6, 5}));
  EXPECT_EQ(streams[2], (std::vector<int64_t>{6, 12, 5}));
  EXPECT_EQ(nodes[0][st], 4);
  EXPECT_EQ(nodes[1][st], 6);
  EXPECT_EQ(nodes[2][st], 8);
}

// The selection's time is what it adds to the last chunk. A 2-chunk prefill
// runs a GEMM stage of 4 steps on 2 PCUs (100 cycles each, +10 fill: 410)
// beside a selection stage (lastChunk) of 3 steps on 1 PCU (200 each, +10:
// 610). Chunk 0 runs the first alone, 410; chunk 1 both, 610; 1020 cycles
// after the one reconfiguration. The what-if runs chunk 1 again without
// the selection: 410 cycles, no reconfiguration (the section is loaded), so
// the selection adds 200; the run's cycles and FLOPs leave it out.
TEST(Simulator, WhatIfWithoutSelectionTimesTheSelection) {
  Builder b;
  b.p.name = "prefill";
  b.p.phase = arch::Phase::Prefill;
  b.p.chunks = 2;
  b.stage(StageKind::Gemm, {}, {}, 4, 12800, 2);
  int sel = b.stage(StageKind::Gemm, {}, {}, 3, 12800, 1);
  b.sec().nodes[sel].lastChunk = true;
  ASSERT_TRUE(b.p.hasSelection());
  arch::ArchModel chip = tiny();
  SimResult r = simulate({{&b.p, 1}, {&b.p, 1, /*withoutSelection=*/true}},
                         chip, SimOptions());
  ASSERT_FALSE(r.deadlocked) << r.failure;
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(sectionCycles(r), 1020);
  EXPECT_DOUBLE_EQ(r.jobs[0].lastChunkPs(), 610e3);
  EXPECT_TRUE(r.jobs[1].withoutSelection);
  EXPECT_DOUBLE_EQ(r.jobs[1].lastChunkPs(), 410e3);
  EXPECT_DOUBLE_EQ(r.jobs[0].flops, (2 * 4 + 3) * 12800);
  EXPECT_DOUBLE_EQ(r.jobs[1].flops, 4 * 12800);
}

// A copy of two blocks (2 x 262144 B) from DDR to HBM, alone: a model's
// weights switched in. Both reads issue at 0 (4 may be in flight): DDR
// moves 262144 / 16 = 16384 cycles each, latency 200, so they arrive at
// 16584 and 32968. Each block then crosses the AGCU pool twice (2 x 262144
// B at 2 x 64 B/cycle = 4096 cycles) and the mesh (2 hops), and is written
// to HBM (262144 / 64 = 4096 cycles, latency 100):
//   block 0: pool 16584..20680, +2; HBM 20682..24778, lands 24878;
//   block 1: pool 32968..37064, +2; HBM 37066..41162, lands 41262.
// No section runs, so no reconfiguration: the copy takes 41262 cycles.
TEST(Simulator, CopyAloneMovesBlocksThroughTheAgcus) {
  ASSERT_EQ(DmaEngine::kCopyBlockBytes, 262144);
  arch::ArchModel chip = tiny();
  Job copy;
  copy.copy = Copy{2 * DmaEngine::kCopyBlockBytes, arch::MemoryTier::DDR,
                   arch::MemoryTier::HBM};
  SimResult r = simulate({copy}, chip, SimOptions());
  ASSERT_FALSE(r.deadlocked) << r.failure;
  ASSERT_EQ(r.jobs.size(), 1u);
  EXPECT_EQ(r.jobs[0].program, nullptr); // a copy alone
  EXPECT_DOUBLE_EQ(r.jobs[0].stepPs, 41262e3);
  EXPECT_DOUBLE_EQ(r.jobs[0].copyBytes, 2 * 262144);
  EXPECT_DOUBLE_EQ(r.jobs[0].bytes[static_cast<int>(arch::MemoryTier::DDR)],
                   2 * 262144);
  EXPECT_DOUBLE_EQ(r.jobs[0].bytes[static_cast<int>(arch::MemoryTier::HBM)],
                   2 * 262144);
}

// A program bound by HBM, run alone and then with a copy from DDR to HBM
// in the background, on the tiny chip with 64 AGCUs (a pool of 4096
// B/cycle, so that HBM alone binds): one load of 400 tiles of 8192 B over
// 2 AGCUs (128 B/cycle, faster than HBM's 64) into a stage doing no work.
// Alone, HBM moves a tile every 8192 / 64 = 128 cycles: 400 x 128 = 51200
// cycles plus the latency (100) and the last tile's crossing (64 + 2; the
// stage's fill overlapped the first tiles), after the 1000-cycle
// reconfiguration: 51366. With the copy
// (the section is loaded, so no reconfiguration) its blocks' reads arrive
// from DDR every 16384 cycles (first at 16584), cross the pool in
// 2 x 262144 / 4096 = 128 cycles and are written to HBM, where each takes
// its turn with the load's reads for 262144 / 64 = 4096 cycles: the step
// grows by 4096 cycles per block written during it: three (their reads
// arrive at 16584, 32968 and 49352; the fourth's at 65736, after the step
// ends near 51366 + 3 x 4096 = 63654), plus, per block, at most one tile's read
// and one crossing (128 + 128) of queueing where the block lands between the
// load's tiles.
TEST(Simulator, BackgroundCopyContendsWithTheProgram) {
  Builder b;
  auto chip = tiny().withOverrides({"socket.agcu_count=64"}, "the test");
  ASSERT_TRUE(static_cast<bool>(chip)) << llvm::toString(chip.takeError());
  b.p.target = *chip;
  int w = b.tensor(arch::MemoryTier::HBM, 400 * 8192);
  int s = b.stream(8192, 400, 4);
  b.load(w, s, 400, /*agcus=*/2);
  b.stage(StageKind::Elementwise, {s}, {}, 400, 0);
  Job alone{&b.p, 1};
  Job contended{&b.p, 1};
  contended.copy = Copy{64 * DmaEngine::kCopyBlockBytes, arch::MemoryTier::DDR,
                        arch::MemoryTier::HBM};
  SimResult r = simulate({alone, contended}, *chip, SimOptions());
  ASSERT_FALSE(r.deadlocked) << r.failure;
  ASSERT_EQ(r.jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(r.jobs[0].copyBytes, 0);
  EXPECT_DOUBLE_EQ(r.jobs[1].copyBytes, 3 * 262144);
  double aloneCycles = r.jobs[0].stepPs / 1000 - 1000;
  double withCopy = r.jobs[1].stepPs / 1000;
  EXPECT_DOUBLE_EQ(aloneCycles, 51200 + 100 + 66);
  EXPECT_GE(withCopy - aloneCycles, 3 * 4096);
  EXPECT_LE(withCopy - aloneCycles, 3 * (4096 + 256));
  EXPECT_DOUBLE_EQ(r.jobs[1].bytes[static_cast<int>(arch::MemoryTier::HBM)],
                   400 * 8192 + 3 * 262144);
}
