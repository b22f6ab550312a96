//===- CollectivesTest.cpp - Collective schedules and costs, by hand ------===//
//
// Golden costs of every algorithm at 4 and 16 sockets, for a decode-sized
// and a prefill-sized message, with the arithmetic in the comments. The
// system: a ring of sockets with 2 links each (one per neighbour), 64 B/ns
// per link direction, 1000 ns per hop, 500 ns launch. A round costs its
// farthest send's hops x 1000 ns + the busiest link direction's bytes / 64;
// on a ring a send to offset d < g/2 goes clockwise over d links, so every
// clockwise link carries d sends of the round (d = g/2 splits both ways).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Arch/Collectives.h"
#include "snapflow/Arch/StageKind.h"

#include "gtest/gtest.h"

using namespace snapflow;
using namespace snapflow::arch;

namespace {

SystemParams ring(int64_t sockets) {
  SystemParams s;
  s.sockets = sockets;
  s.topology = Topology::Ring;
  s.linksPerSocket = 2;
  s.linkBytesPerS = 64e9;
  s.linkLatencyNs = 1000;
  s.collectiveLaunchNs = 500;
  s.collectiveAlgorithm = CollectiveAlgorithm::Auto;
  return s;
}

double ns(CollectiveKind kind, CollectiveAlgorithm a, double bytes, int64_t g,
          const SystemParams &s) {
  return collectiveCost(kind, a, bytes, g, s).seconds() * 1e9;
}

using A = CollectiveAlgorithm;
constexpr CollectiveKind AR = CollectiveKind::AllReduce;

} // namespace

// 4 sockets, 8 KiB (decode: hidden 4096 x bf16). Per unit of bytes-per-byte
// the link takes 8192 / 64 = 128 ns.
// ring:     2 x 3 = 6 rounds to offset 1, 1/4 each: 6 hops, 1.5 x 128 = 192
//           -> 500 + 6000 + 192 = 6692
// bidirectional: 6 rounds to offsets 1 and 3, 1/8 each, each way its own
//           links: 6 hops, 0.75 x 128 = 96 -> 6596
// ring_2d:  2 x 2: reduce-scatter in rows (1 round, offset 1, 1/2), all-
//           reduce in columns (2 rounds, offset 2, 1/4; on a ring of 4,
//           offset 2 = 2 hops, split both ways: load 1), all-gather in rows:
//           hops 1 + 4 + 1 = 6, (1/2 + 2/4 + 1/2) x 128 = 192 -> 6692
// recursive_doubling: offsets 1 and 2, whole message: hops 1 + 2 = 3,
//           (1 + 1) x 128 = 256 -> 500 + 3000 + 256 = 3756
// halving_doubling: offsets 2, 1 (1/2, 1/4) then 1, 2 (1/4, 1/2): hops 6,
//           1.5 x 128 = 192 -> 6692
// tree:     reduce over offsets 1, 2 and broadcast back, whole message:
//           hops 6, 4 x 128 = 512 -> 7012
// one_shot: offsets 1, 2, 3 at once: farthest 2 hops; clockwise links carry
//           the sends to 1 and half of those to 2: load 2 -> 256
//           -> 500 + 2000 + 256 = 2756 (auto's choice)
TEST(Collectives, FourSocketsSmallMessage) {
  SystemParams s = ring(4);
  EXPECT_DOUBLE_EQ(ns(AR, A::Ring, 8192, 4, s), 6692);
  EXPECT_DOUBLE_EQ(ns(AR, A::BidirectionalRing, 8192, 4, s), 6596);
  EXPECT_DOUBLE_EQ(ns(AR, A::Ring2D, 8192, 4, s), 6692);
  EXPECT_DOUBLE_EQ(ns(AR, A::RecursiveDoubling, 8192, 4, s), 3756);
  EXPECT_DOUBLE_EQ(ns(AR, A::HalvingDoubling, 8192, 4, s), 6692);
  EXPECT_DOUBLE_EQ(ns(AR, A::Tree, 8192, 4, s), 7012);
  EXPECT_DOUBLE_EQ(ns(AR, A::OneShot, 8192, 4, s), 2756);
  EXPECT_EQ(chooseCollective(AR, 8192, 4, s).algorithm, A::OneShot);
}

// 4 sockets, 8 MiB (prefill): the link term is 8388608 / 64 = 131072 ns per
// unit. ring 1.5 units + 6500 = 203108; bidirectional 0.75 units + 6500 =
// 104804 (auto's choice); ring_2d and halving-doubling 1.5 units + 6500 =
// 203108; recursive doubling 2 units + 3500 = 265644; tree 4 units + 6500 =
// 530788; one-shot 2 units + 2500 = 264644.
TEST(Collectives, FourSocketsLargeMessage) {
  SystemParams s = ring(4);
  double m = 8 << 20;
  EXPECT_DOUBLE_EQ(ns(AR, A::Ring, m, 4, s), 203108);
  EXPECT_DOUBLE_EQ(ns(AR, A::BidirectionalRing, m, 4, s), 104804);
  EXPECT_DOUBLE_EQ(ns(AR, A::Ring2D, m, 4, s), 203108);
  EXPECT_DOUBLE_EQ(ns(AR, A::RecursiveDoubling, m, 4, s), 265644);
  EXPECT_DOUBLE_EQ(ns(AR, A::HalvingDoubling, m, 4, s), 203108);
  EXPECT_DOUBLE_EQ(ns(AR, A::Tree, m, 4, s), 530788);
  EXPECT_DOUBLE_EQ(ns(AR, A::OneShot, m, 4, s), 264644);
  EXPECT_EQ(chooseCollective(AR, m, 4, s).algorithm, A::BidirectionalRing);
}

// 16 sockets, 8 KiB (128 ns per unit):
// ring:     30 rounds of 1/16: 30 hops, 30/16 = 1.875 units = 240 -> 30740
// bidirectional: 30 hops, 0.9375 units = 120 -> 30620
// ring_2d:  4 x 4: 3 rounds (offset 1, 1/4), 6 rounds (offset 4: 4 hops,
//           every clockwise link carries 4 sends; 1/16), 3 rounds: hops
//           3 + 24 + 3 = 30 (no better than the ring on a ring), units
//           0.75 + 6 x 4/16 + 0.75 = 3 = 384 -> 30884
// recursive_doubling: offsets 1, 2, 4, 8: hops 15, loads 1 + 2 + 4 + 4
//           (offset 8 splits) = 11 units = 1408 -> 500 + 15000 + 1408 = 16908
// halving_doubling: offsets 8, 4, 2, 1 with 1/2, 1/4, 1/8, 1/16 and back:
//           hops 30, 2 x (4/2 + 4/4 + 2/8 + 1/16) = 6.625 units = 848 -> 31348
// tree:     twice those rounds: hops 30, 22 units = 2816 -> 33316
// one_shot: offsets 1..15: farthest 8 hops; clockwise 1 + ... + 7 = 28 plus
//           half of offset 8's 8 = 32 units = 4096 -> 500 + 8000 + 4096 = 12596
//           (auto's choice: what decode at TP 16 runs)
TEST(Collectives, SixteenSocketsSmallMessage) {
  SystemParams s = ring(16);
  EXPECT_DOUBLE_EQ(ns(AR, A::Ring, 8192, 16, s), 30740);
  EXPECT_DOUBLE_EQ(ns(AR, A::BidirectionalRing, 8192, 16, s), 30620);
  EXPECT_DOUBLE_EQ(ns(AR, A::Ring2D, 8192, 16, s), 30884);
  EXPECT_DOUBLE_EQ(ns(AR, A::RecursiveDoubling, 8192, 16, s), 16908);
  EXPECT_DOUBLE_EQ(ns(AR, A::HalvingDoubling, 8192, 16, s), 31348);
  EXPECT_DOUBLE_EQ(ns(AR, A::Tree, 8192, 16, s), 33316);
  EXPECT_DOUBLE_EQ(ns(AR, A::OneShot, 8192, 16, s), 12596);
  EXPECT_EQ(chooseCollective(AR, 8192, 16, s).algorithm, A::OneShot);
}

// 16 sockets, 8 MiB (131072 ns per unit), the units and hops of the small
// case: ring 1.875 units + 30500 = 276260; bidirectional 0.9375 units +
// 30500 = 153380 (auto's choice); ring_2d 3 units + 30500 = 423716;
// recursive doubling 11 units + 15500 = 1457292; halving-doubling 6.625
// units + 30500 = 898852; tree 22 units + 30500 = 2914084; one-shot 32
// units + 8500 = 4202804.
TEST(Collectives, SixteenSocketsLargeMessage) {
  SystemParams s = ring(16);
  double m = 8 << 20;
  EXPECT_DOUBLE_EQ(ns(AR, A::Ring, m, 16, s), 276260);
  EXPECT_DOUBLE_EQ(ns(AR, A::BidirectionalRing, m, 16, s), 153380);
  EXPECT_DOUBLE_EQ(ns(AR, A::Ring2D, m, 16, s), 423716);
  EXPECT_DOUBLE_EQ(ns(AR, A::RecursiveDoubling, m, 16, s), 1457292);
  EXPECT_DOUBLE_EQ(ns(AR, A::HalvingDoubling, m, 16, s), 898852);
  EXPECT_DOUBLE_EQ(ns(AR, A::Tree, m, 16, s), 2914084);
  EXPECT_DOUBLE_EQ(ns(AR, A::OneShot, m, 16, s), 4202804);
  EXPECT_EQ(chooseCollective(AR, m, 16, s).algorithm, A::BidirectionalRing);
}

// The topology decides hops and sharing. Fully connected with 15 links: a
// one-shot all-reduce of 8 KiB at 16 sockets is 1 hop over a link of its
// own: 500 + 1000 + 128 = 1628. A switch with 2 links per socket: every
// peer 2 hops away, a socket's 3 sends share its 2 links: 1.5 units = 192
// -> 500 + 2000 + 192 = 2692 at 4 sockets. And the 2-D ring pays off where
// columns are one hop apart: fully connected, 16 sockets: 12 hops, 3 units.
TEST(Collectives, TopologyDecidesHopsAndSharing) {
  SystemParams full = ring(16);
  full.topology = Topology::FullyConnected;
  full.linksPerSocket = 15;
  EXPECT_DOUBLE_EQ(ns(AR, A::OneShot, 8192, 16, full), 1628);
  EXPECT_DOUBLE_EQ(ns(AR, A::Ring2D, 8192, 16, full),
                   500 + 12000 + (0.75 + 6 / 16.0 + 0.75) * 128);
  SystemParams sw = ring(4);
  sw.topology = Topology::Switch;
  EXPECT_DOUBLE_EQ(ns(AR, A::OneShot, 8192, 4, sw), 2692);
}

// All-gather of a 1 KiB shard over a ring of 4: 3 rounds to offset 1:
// 3 hops, 3 x 1024 / 64 = 48 -> 3548. All-to-all of 4 KiB, one-shot: 1 KiB
// to each of offsets 1, 2, 3: 2 hops, load 2 x 1024 / 64 = 32 -> 2532;
// Bruck (recursive doubling): offsets 1 and 2 with half the buffer each:
// 3 hops, (1 + 1) x 2048 / 64 = 64 -> 3564.
TEST(Collectives, AllGatherAndAllToAll) {
  SystemParams s = ring(4);
  EXPECT_DOUBLE_EQ(ns(CollectiveKind::AllGather, A::Ring, 1024, 4, s), 3548);
  EXPECT_DOUBLE_EQ(ns(CollectiveKind::AllToAll, A::OneShot, 4096, 4, s), 2532);
  EXPECT_DOUBLE_EQ(
      ns(CollectiveKind::AllToAll, A::RecursiveDoubling, 4096, 4, s), 3564);
}

// Recursive doubling over 6 sockets folds the 2 beyond 4 in with a round to
// offset 4 before and after (2 hops each on a ring of 6): 4 rounds, hops
// 2 + 1 + 2 + 2 = 7.
TEST(Collectives, RecursiveDoublingFoldsExtraSockets) {
  SystemParams s = ring(6);
  CollectiveCost c = collectiveCost(AR, A::RecursiveDoubling, 8192, 6, s);
  EXPECT_EQ(c.rounds, 4);
  EXPECT_EQ(c.hops, 7);
}

// A chip that names its algorithm gets it whatever the message; one socket
// has nothing to send.
TEST(Collectives, ANamedAlgorithmIsKept) {
  SystemParams s = ring(16);
  s.collectiveAlgorithm = A::Ring;
  EXPECT_EQ(chooseCollective(AR, 8192, 16, s).algorithm, A::Ring);
  EXPECT_DOUBLE_EQ(chooseCollective(AR, 8192, 1, s).seconds(), 0);
}

// Every algorithm name reads back, and `auto` is one of them.
TEST(Collectives, NamesRoundTrip) {
  EXPECT_EQ(parseCollectiveAlgorithm("auto"), A::Auto);
  for (A a : kConcreteCollectiveAlgorithms)
    EXPECT_EQ(parseCollectiveAlgorithm(collectiveAlgorithmName(a)), a);
  EXPECT_FALSE(parseCollectiveAlgorithm("butterfly"));
  // Every algorithm has its own name (the dialect prints them).
  EXPECT_EQ(kNumCollectiveAlgorithms,
            static_cast<int>(std::size(kConcreteCollectiveAlgorithms)) + 1);
  for (int k = 0; k < kNumCollectiveKinds; ++k) {
    auto kind = static_cast<CollectiveKind>(k);
    EXPECT_EQ(parseCollectiveKind(collectiveKindName(kind)), kind);
  }
  EXPECT_FALSE(parseCollectiveKind("reduce_scatter"));
  EXPECT_EQ(collectiveKindNames(", "), "all_reduce, all_gather, all_to_all");
}

// The stage kinds of arch/StageKind.h, one enum for the df dialect and the
// simulator, and their IR keywords.
TEST(StageKinds, NamesRoundTrip) {
  for (int k = 0; k < kNumStageKinds; ++k) {
    auto kind = static_cast<StageKind>(k);
    EXPECT_EQ(parseStageKind(stageKindName(kind)), kind);
  }
  EXPECT_FALSE(parseStageKind("matmul"));
  EXPECT_EQ(stageKindNames(" "),
            "gemm elementwise reduce softmax norm topk gather");
}
