//===- Collectives.cpp - Collective algorithms on the peer network --------===//

#include "snapflow/Arch/Collectives.h"

#include "snapflow/Support/EnumNames.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cmath>

using namespace snapflow;
using namespace snapflow::arch;

llvm::StringRef arch::collectiveKindName(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::AllGather:
    return "all_gather";
  case CollectiveKind::AllToAll:
    return "all_to_all";
  }
  llvm_unreachable("unknown collective kind");
}

std::optional<arch::CollectiveKind>
arch::parseCollectiveKind(llvm::StringRef name) {
  return enumByName<CollectiveKind>(name, kNumCollectiveKinds,
                                    collectiveKindName);
}

std::string arch::collectiveKindNames(llvm::StringRef separator) {
  return enumNames<CollectiveKind>(kNumCollectiveKinds, collectiveKindName,
                                   separator);
}

namespace {

using Schedule = llvm::SmallVector<CollectiveRound, 8>;

int64_t floorLog2(int64_t g) {
  int64_t k = 0;
  while ((int64_t(2) << k) <= g)
    ++k;
  return k;
}
int64_t ceilLog2(int64_t g) {
  int64_t k = floorLog2(g);
  return (int64_t(1) << k) < g ? k + 1 : k;
}

void add(Schedule &s, llvm::SmallVector<int64_t, 4> offsets, double share,
         int64_t count = 1) {
  if (count > 0)
    s.push_back({std::move(offsets), share, count});
}

/// The most square a x b = g with a <= b (a = 1 for a prime g).
std::pair<int64_t, int64_t> factor2D(int64_t g) {
  int64_t a = 1;
  for (int64_t d = 1; d * d <= g; ++d)
    if (g % d == 0)
      a = d;
  return {a, g / a};
}

/// Every peer: offsets 1 .. g - 1.
llvm::SmallVector<int64_t, 4> allPeers(int64_t g) {
  llvm::SmallVector<int64_t, 4> out;
  for (int64_t d = 1; d < g; ++d)
    out.push_back(d);
  return out;
}

/// Rounds to offsets 1, 2, 4, ... (`rounds` of them, or the reverse), each
/// carrying `share(2^k)` of the message.
template <typename Share>
void doubling(Schedule &s, int64_t rounds, bool reverse, Share share) {
  for (int64_t i = 0; i < rounds; ++i) {
    int64_t k = reverse ? rounds - 1 - i : i;
    add(s, {int64_t(1) << k}, share(double(int64_t(1) << k)));
  }
}

/// Offsets 1 and g - 1 (both neighbours), one offset when they coincide.
llvm::SmallVector<int64_t, 4> bothWays(int64_t d, int64_t g) {
  if (d == g - d)
    return {d};
  return {d, g - d};
}

Schedule allReduce(CollectiveAlgorithm a, int64_t g) {
  Schedule s;
  double n = double(g);
  int64_t p = int64_t(1) << floorLog2(g), lp = floorLog2(g);
  switch (a) {
  case CollectiveAlgorithm::Ring:
    add(s, {1}, 1 / n, 2 * (g - 1)); // reduce-scatter + all-gather
    break;
  case CollectiveAlgorithm::BidirectionalRing:
    // Half the tensor goes each way round: twice the links, same steps.
    add(s, bothWays(1, g), g == 2 ? 1 / n : 1 / (2 * n), 2 * (g - 1));
    break;
  case CollectiveAlgorithm::Ring2D: {
    auto [ra, rb] = factor2D(g);
    if (ra == 1)
      return allReduce(CollectiveAlgorithm::Ring, g);
    // Reduce-scatter along rows, all-reduce the shard along columns,
    // all-gather along rows (ranks laid out row-major, rows of ra).
    add(s, {1}, 1.0 / double(ra), ra - 1);
    add(s, {ra}, 1.0 / n, 2 * (rb - 1));
    add(s, {1}, 1.0 / double(ra), ra - 1);
    break;
  }
  case CollectiveAlgorithm::RecursiveDoubling:
    if (p < g)
      add(s, {p}, 1); // fold the extra sockets in
    doubling(s, lp, false, [](double) { return 1.0; });
    if (p < g)
      add(s, {p}, 1); // and hand them the result
    break;
  case CollectiveAlgorithm::HalvingDoubling:
    // Rabenseifner: reduce-scatter by recursive halving, all-gather by
    // recursive doubling.
    if (p < g)
      add(s, {p}, 1);
    {
      auto half = [&](double d) { return d / double(p); };
      doubling(s, lp, true, half);  // halving: p/2 apart with 1/2 first
      doubling(s, lp, false, half); // doubling back
    }
    if (p < g)
      add(s, {p}, 1);
    break;
  case CollectiveAlgorithm::Tree:
    // Binomial tree: reduce to the root, broadcast back, whole tensor.
    doubling(s, ceilLog2(g), false, [](double) { return 1.0; });
    doubling(s, ceilLog2(g), true, [](double) { return 1.0; });
    break;
  case CollectiveAlgorithm::OneShot:
    // Every socket sends its whole tensor to every peer and reduces locally.
    add(s, allPeers(g), 1);
    break;
  case CollectiveAlgorithm::Auto:
    llvm_unreachable("auto is resolved by chooseCollective");
  }
  return s;
}

Schedule allGather(CollectiveAlgorithm a, int64_t g) {
  Schedule s;
  double n = double(g);
  int64_t p = int64_t(1) << floorLog2(g), lp = floorLog2(g);
  switch (a) {
  case CollectiveAlgorithm::Ring:
    add(s, {1}, 1, g - 1);
    break;
  case CollectiveAlgorithm::BidirectionalRing:
    add(s, bothWays(1, g), 1, g / 2); // each shard travels both ways
    break;
  case CollectiveAlgorithm::Ring2D: {
    auto [ra, rb] = factor2D(g);
    if (ra == 1)
      return allGather(CollectiveAlgorithm::Ring, g);
    add(s, {1}, 1, ra - 1);
    add(s, {ra}, double(ra), rb - 1);
    break;
  }
  case CollectiveAlgorithm::RecursiveDoubling:
  case CollectiveAlgorithm::HalvingDoubling:
    if (p < g)
      add(s, {p}, 1);
    doubling(s, lp, false, [](double d) { return d; });
    if (p < g)
      add(s, {p}, n);
    break;
  case CollectiveAlgorithm::Tree:
    // Gather to the root, then broadcast the whole result.
    doubling(s, ceilLog2(g), false, [](double d) { return d; });
    doubling(s, ceilLog2(g), true, [&](double) { return n; });
    break;
  case CollectiveAlgorithm::OneShot:
    add(s, allPeers(g), 1);
    break;
  case CollectiveAlgorithm::Auto:
    llvm_unreachable("auto is resolved by chooseCollective");
  }
  return s;
}

Schedule allToAll(CollectiveAlgorithm a, int64_t g) {
  Schedule s;
  double n = double(g);
  switch (a) {
  case CollectiveAlgorithm::Ring:
    // Pairwise exchange: round k sends to rank + k.
    for (int64_t k = 1; k < g; ++k)
      add(s, {k}, 1 / n);
    break;
  case CollectiveAlgorithm::BidirectionalRing:
    for (int64_t k = 1; 2 * k <= g; ++k)
      add(s, bothWays(k, g), 1 / n);
    break;
  case CollectiveAlgorithm::Ring2D: {
    auto [ra, rb] = factor2D(g);
    if (ra == 1)
      return allToAll(CollectiveAlgorithm::Ring, g);
    // Within rows, each peer gets what its column needs; then columns.
    for (int64_t j = 1; j < ra; ++j)
      add(s, {j}, 1.0 / double(ra));
    for (int64_t j = 1; j < rb; ++j)
      add(s, {j * ra}, 1.0 / double(rb));
    break;
  }
  case CollectiveAlgorithm::RecursiveDoubling:
  case CollectiveAlgorithm::HalvingDoubling:
  case CollectiveAlgorithm::Tree:
    // Bruck: ceil(log2 g) rounds, each moving half the buffer.
    doubling(s, ceilLog2(g), false, [](double) { return 0.5; });
    break;
  case CollectiveAlgorithm::OneShot:
    add(s, allPeers(g), 1 / n);
    break;
  case CollectiveAlgorithm::Auto:
    llvm_unreachable("auto is resolved by chooseCollective");
  }
  return s;
}

} // namespace

llvm::SmallVector<CollectiveRound, 8>
arch::collectiveSchedule(CollectiveKind kind, CollectiveAlgorithm algorithm,
                         int64_t g) {
  if (g < 2)
    return {};
  switch (kind) {
  case CollectiveKind::AllReduce:
    return allReduce(algorithm, g);
  case CollectiveKind::AllGather:
    return allGather(algorithm, g);
  case CollectiveKind::AllToAll:
    return allToAll(algorithm, g);
  }
  llvm_unreachable("unknown collective kind");
}

int64_t arch::collectiveHops(Topology topology, int64_t offset, int64_t g) {
  int64_t d = ((offset % g) + g) % g;
  switch (topology) {
  case Topology::Ring:
    return std::min(d, g - d);
  case Topology::FullyConnected:
    return 1;
  case Topology::Switch:
    return 2; // socket -> switch -> socket
  }
  llvm_unreachable("unknown topology");
}

double arch::busiestLinkLoad(Topology topology, int64_t links,
                             llvm::ArrayRef<int64_t> offsets, int64_t g) {
  double count = double(offsets.size());
  links = std::max<int64_t>(1, links);
  switch (topology) {
  case Topology::Ring: {
    // Half the links go to each neighbour. A send to offset d < g/2 goes
    // clockwise and uses d links in a row, so every clockwise link carries
    // d sends of each round; d = g/2 splits between the two ways.
    double cw = 0, ccw = 0;
    for (int64_t offset : offsets) {
      int64_t d = ((offset % g) + g) % g;
      if (2 * d < g)
        cw += double(d);
      else if (2 * d > g)
        ccw += double(g - d);
      else {
        cw += double(d) / 2;
        ccw += double(d) / 2;
      }
    }
    return std::max(cw, ccw) / double(std::max<int64_t>(1, links / 2));
  }
  case Topology::FullyConnected: {
    // Each peer over its own links when there are enough of them; else a
    // socket's links carry all its sends.
    int64_t perPeer = links / (g - 1);
    if (perPeer >= 1)
      return 1.0 / double(perPeer);
    return count / std::min(double(links), count);
  }
  case Topology::Switch:
    return count / double(links);
  }
  llvm_unreachable("unknown topology");
}

CollectiveCost arch::collectiveCost(CollectiveKind kind,
                                    CollectiveAlgorithm algorithm, double bytes,
                                    int64_t g, const SystemParams &system) {
  CollectiveCost c;
  c.algorithm = algorithm;
  if (g < 2)
    return c;
  for (const CollectiveRound &r : collectiveSchedule(kind, algorithm, g)) {
    int64_t hops = 0, crossings = 0;
    for (int64_t offset : r.offsets) {
      int64_t h = collectiveHops(system.topology, offset, g);
      hops = std::max(hops, h);
      crossings += h;
    }
    double load =
        busiestLinkLoad(system.topology, system.linksPerSocket, r.offsets, g);
    c.rounds += r.count;
    c.hops += r.count * hops;
    c.linkBytesPerByte += double(r.count) * load * r.share;
    c.sentPerByte += double(r.count) * double(r.offsets.size()) * r.share;
    c.crossedPerByte += double(r.count) * double(crossings) * r.share;
  }
  c.launchS = system.collectiveLaunchNs * 1e-9;
  c.latencyS = double(c.hops) * system.linkLatencyNs * 1e-9;
  c.transferS = system.linkBytesPerS > 0
                    ? c.linkBytesPerByte * bytes / system.linkBytesPerS
                    : 0;
  return c;
}

CollectiveCost arch::chooseCollective(CollectiveKind kind, double bytes,
                                      int64_t g, const SystemParams &system,
                                      CollectiveAlgorithm requested) {
  if (requested == CollectiveAlgorithm::Auto)
    requested = system.collectiveAlgorithm;
  if (requested != CollectiveAlgorithm::Auto)
    return collectiveCost(kind, requested, bytes, g, system);
  CollectiveCost best;
  bool first = true;
  for (CollectiveAlgorithm a : kConcreteCollectiveAlgorithms) {
    CollectiveCost c = collectiveCost(kind, a, bytes, g, system);
    if (first || c.seconds() < best.seconds())
      best = c;
    first = false;
  }
  return best;
}
