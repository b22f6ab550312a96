//===- EnergyTest.cpp - Hand-computed energy of small programs ------------===//
//
// Each case runs a small program on the tiny chip (arch/chips/tiny.yaml)
// and derives its energy by hand from the chip's round prices:
//   FLOP: 1 pJ systolic (gemm), 2 pJ SIMD (every other stage);
//   SRAM: 1 pJ/bit read, 2 pJ/bit written; every stream's tile is written
//        into its PMU buffer when pushed and read when popped;
//   HBM 10 pJ/bit, DDR 20 pJ/bit, read or written;
//   mesh: 0.5 pJ/bit a hop over the mean (3 + 3) / 3 = 2 hops: 1 pJ/bit a
//        crossing, paid by every tile pushed;
//   peer link: 5 pJ/bit over each link a send crosses;
//   static: 10 + 1 + 2 = 13 W a socket (4 sockets), host 50 W, wall
//        factor 1.25.
// SystemC allows one simulation per process; ctest runs each TEST alone.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Stats/Energy.h"
#include "snapflow/Sim/Components/DmaEngine.h"

#include "ProgramBuilder.h"

#include "gtest/gtest.h"

#include <systemc>

using namespace snapflow;
using namespace snapflow::sim;
using namespace snapflow::sim::test;

extern "C" int sc_main(int, char **) { return 0; }

namespace {
double pjOf(const OperatorProfile &op, EnergyAction a) { return op.energy[a]; }
const OperatorProfile &opOf(const Profile &p, arch::OpKind k) {
  return p.ops[static_cast<int>(k)];
}
} // namespace

// HBM -> gemm -> elementwise -> DDR, 4 tiles each way:
//   load (qkv_projection): 4 x 4096 B = 131072 bits read from HBM,
//     1310720 pJ; pushed: 131072 pJ of crossings, 262144 pJ of PMU writes.
//   gemm (qkv_projection): pops 131072 bits, 131072 pJ of reads;
//     4 x 1000 FLOP x 1 pJ = 4000 pJ; pushes 4 x 256 B = 8192 bits: 8192
//     pJ crossing, 16384 pJ written.
//   elementwise (attention): pops 8192 pJ; 4 x 100 FLOP x 2 pJ = 800 pJ;
//     pushes 8192 + 16384 pJ.
//   store (attention): pops 8192 pJ; writes 8192 bits to DDR, 163840 pJ.
// qkv_projection: HBM 1310720, network 139264, SRAM 409600, compute 4000;
// attention: compute 800, network 8192, SRAM 32768, DDR 163840; in all
// 2069184 pJ, which the components' own totals agree with.
TEST(Energy, EveryActionIsChargedWhereItHappens) {
  Builder b;
  int w = b.tensor(arch::MemoryTier::HBM, 4 * 4096);
  int o = b.tensor(arch::MemoryTier::DDR, 4 * 256);
  int s0 = b.stream(4096, 4), s1 = b.stream(256, 4), s2 = b.stream(256, 4);
  int load = b.load(w, s0, 4);
  int gemm = b.stage(StageKind::Gemm, {s0}, {s1}, 4, 1000);
  int ew = b.stage(StageKind::Elementwise, {s1}, {s2}, 4, 100);
  int store = b.store(s2, o);
  for (int n : {load, gemm})
    b.sec().nodes[n].opKind = arch::OpKind::QKVProjection;
  for (int n : {ew, store})
    b.sec().nodes[n].opKind = arch::OpKind::Attention;
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  const JobResult &j = r.jobs[0];
  const OperatorProfile &qkv = opOf(j.profile, arch::OpKind::QKVProjection);
  const OperatorProfile &att = opOf(j.profile, arch::OpKind::Attention);
  EXPECT_DOUBLE_EQ(pjOf(qkv, EnergyAction::HBM), 1310720);
  EXPECT_DOUBLE_EQ(pjOf(qkv, EnergyAction::Network), 139264);
  EXPECT_DOUBLE_EQ(pjOf(qkv, EnergyAction::SRAM), 409600);
  EXPECT_DOUBLE_EQ(pjOf(qkv, EnergyAction::Compute), 4000);
  EXPECT_DOUBLE_EQ(pjOf(qkv, EnergyAction::DDR), 0);
  EXPECT_DOUBLE_EQ(pjOf(att, EnergyAction::Compute), 800);
  EXPECT_DOUBLE_EQ(pjOf(att, EnergyAction::Network), 8192);
  EXPECT_DOUBLE_EQ(pjOf(att, EnergyAction::SRAM), 32768);
  EXPECT_DOUBLE_EQ(pjOf(att, EnergyAction::DDR), 163840);
  EXPECT_DOUBLE_EQ(qkv.simdFlops, 0);
  EXPECT_DOUBLE_EQ(att.simdFlops, 400);
  EXPECT_DOUBLE_EQ(stepEnergy(j).total(), 2069184);
  // The components' statistics, summed apart from the nodes', agree.
  EXPECT_DOUBLE_EQ(j.energyPj, 2069184);
  // The section's run carries it to the trace's power counter.
  double traced = 0;
  for (const TraceEvent &e : r.trace)
    if (e.kind == TraceEvent::Section)
      traced += e.energyPj;
  EXPECT_DOUBLE_EQ(traced, 2069184);
}

// The node over a step of the first half of that program (the load and
// the gemm, which ends it): one socket's (tp 1), so the tiny chip's 4
// sockets hold 4 copies of it, each spending 1839008 pJ (1310720 of HBM,
// 131072 crossing, 262144 written and 131072 read in PMUs, 4000 of FLOPs);
// the 4 sockets draw 13 W each and the host 50 W over the step's t
// seconds, and the wall adds a quarter: (4 x 1839008e-12 + 52 t + 50 t) x
// 1.25.
TEST(Energy, TheNodeAddsStaticHostAndWallPower) {
  Builder b;
  int w = b.tensor(arch::MemoryTier::HBM, 4 * 4096);
  int s0 = b.stream(4096, 4);
  b.load(w, s0, 4);
  b.stage(StageKind::Gemm, {s0}, {}, 4, 1000);
  SimResult r = run(b.p);
  ASSERT_FALSE(r.deadlocked) << r.failure;
  const JobResult &j = r.jobs[0];
  double t = j.stepPs * 1e-12;
  double perSocket = stepEnergy(j).total();
  // 1310720 HBM + 131072 crossing + 262144 written + 131072 read + 4000.
  EXPECT_DOUBLE_EQ(perSocket, 1839008);
  NodeEnergy e = nodeEnergy(stepEnergy(j), t, 1, tiny());
  EXPECT_EQ(groupsPerNode(1, tiny()), 4);
  EXPECT_DOUBLE_EQ(e.dynamicJ(), 4 * 1839008e-12);
  EXPECT_DOUBLE_EQ(e.staticJ, 52 * t);
  EXPECT_DOUBLE_EQ(e.hostJ, 50 * t);
  EXPECT_NEAR(e.totalJ(), 1.25 * (4 * 1839008e-12 + 102 * t), 1e-18);
  EXPECT_DOUBLE_EQ(idlePowerW(tiny()), 1.25 * 102);
  // The report's object: one token a sequence a step, batch 1, 4 copies.
  llvm::json::Object o = energyObject(&j, nullptr, b.p, nullptr, tiny());
  EXPECT_NEAR(*o.getNumber("joules_per_token"), e.totalJ() / 4, 1e-18);
  const llvm::json::Object *by = o.getObject("by_action_j");
  ASSERT_TRUE(by);
  double sum = 0;
  for (const auto &kv : *by)
    sum += *kv.second.getAsNumber();
  EXPECT_NEAR(sum, e.totalJ(), 1e-15);
}

namespace {
/// The link energy of an all-reduce of 4096 B over the tiny chip's 4
/// sockets run with `algorithm` (its node tagged all_reduce).
double allReduceLinkPj(arch::CollectiveAlgorithm algorithm) {
  Program p = allReduce(4, 1, algorithm);
  p.sections[0].nodes[1].opKind = arch::OpKind::AllReduce;
  SimResult r = run(p);
  EXPECT_FALSE(r.deadlocked) << r.failure;
  return r.jobs.empty() ? -1
                        : pjOf(opOf(r.jobs[0].profile, arch::OpKind::AllReduce),
                               EnergyAction::Link);
}
} // namespace

// A ring all-reduce sends 6 x 1024 B to a neighbour, one link each: 49152
// bits x 5 pJ = 245760 pJ.
TEST(Energy, RingAllReduceChargesItsLinks) {
  EXPECT_DOUBLE_EQ(allReduceLinkPj(arch::CollectiveAlgorithm::Ring), 245760);
}

// A one-shot all-reduce sends the whole message to offsets 1, 2 and 3,
// which on the ring are 1, 2 and 1 links away: route-through pays every
// link crossed, 4 x 32768 bits x 5 pJ = 655360 pJ (not 3 x).
TEST(Energy, RoutedThroughSendsChargeEveryLinkCrossed) {
  EXPECT_DOUBLE_EQ(allReduceLinkPj(arch::CollectiveAlgorithm::OneShot), 655360);
}

// A copy of 2 blocks of 262144 B from DDR to HBM: each bit read from DDR
// (20 pJ), crossing the mesh (1 pJ) and written to HBM (10 pJ), 8 x 524288
// bits: 83886080 + 4194304 + 41943040 pJ.
TEST(Energy, ACopyChargesItsReadsCrossingsAndWrites) {
  Job copy;
  copy.copy = Copy{2 * DmaEngine::kCopyBlockBytes, arch::MemoryTier::DDR,
                   arch::MemoryTier::HBM};
  SimResult r = simulate({copy}, tiny(), SimOptions());
  ASSERT_FALSE(r.deadlocked) << r.failure;
  const ActionEnergy &e = r.jobs[0].copyEnergy;
  EXPECT_DOUBLE_EQ(e[EnergyAction::DDR], 83886080);
  EXPECT_DOUBLE_EQ(e[EnergyAction::Network], 4194304);
  EXPECT_DOUBLE_EQ(e[EnergyAction::HBM], 41943040);
  EXPECT_DOUBLE_EQ(r.jobs[0].energyPj, e.total());
}
