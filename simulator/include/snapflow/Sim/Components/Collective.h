//===- Collective.h - Collectives over the peer links ----------*- C++ -*-===//
//
// How many hops a collective takes and how many bytes each socket sends per
// hop, for the algorithm the chip file chooses (collectiveTraffic, shared
// with the roofline so the two cannot disagree), and the component that runs
// a df.collective over a socket's peer link.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_COLLECTIVE_H
#define SNAPFLOW_SIM_COMPONENTS_COLLECTIVE_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Sim/Components/BandwidthServer.h"
#include "snapflow/Sim/Components/Component.h"
#include "snapflow/Sim/Core/Program.h"
#include "snapflow/Sim/Core/Runtime.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace snapflow {
namespace sim {

struct CollectiveTraffic {
  double steps = 1;       ///< hops in sequence (each pays the link latency)
  double bytesPerStep = 0; ///< bytes one socket sends per hop
};

/// Ring: all-reduce = reduce-scatter + all-gather, 2(g-1) hops of bytes/g;
/// all-gather (g-1) hops of the shard; all-to-all (g-1) hops of bytes/g.
/// Tree: 2 log2(g) hops of the whole tensor for all-reduce, recursive
/// doubling for all-gather, Bruck's log2(g) hops of half the data for
/// all-to-all. One-shot: one hop that sends to every peer at once.
inline CollectiveTraffic collectiveTraffic(CollectiveKind kind,
                                           arch::CollectiveAlgorithm algorithm,
                                           double bytes, double g) {
  g = std::max(2.0, g);
  double lg = std::ceil(std::log2(g));
  switch (algorithm) {
  case arch::CollectiveAlgorithm::Ring:
    if (kind == CollectiveKind::AllReduce)
      return {2 * (g - 1), bytes / g};
    if (kind == CollectiveKind::AllGather)
      return {g - 1, bytes};
    return {g - 1, bytes / g};
  case arch::CollectiveAlgorithm::Tree:
    if (kind == CollectiveKind::AllReduce)
      return {2 * lg, bytes};
    if (kind == CollectiveKind::AllGather) // recursive doubling
      return {lg, bytes * (g - 1) / lg};
    return {lg, bytes / 2}; // Bruck: each step sends half the data
  case arch::CollectiveAlgorithm::OneShot:
    if (kind == CollectiveKind::AllToAll)
      return {1, bytes * (g - 1) / g};
    return {1, bytes * (g - 1)};
  }
  return {1, bytes};
}

/// Where the collectives of every socket meet when all sockets are
/// simulated: a collective completes when the slowest socket has sent.
class CollectiveGroups {
public:
  explicit CollectiveGroups(int sockets) : sockets(sockets) {}
  /// Socket arrival at collective node `node` of section `section` of job
  /// `job`, done sending at `done`; returns when every socket has arrived,
  /// with the latest completion.
  double meet(int job, int section, int node, double done);
  /// After the wait: clears the completion for the node's next run once
  /// every socket is past it.
  void leave(int job, int section, int node);

private:
  struct Group {
    int arrived = 0;
    double completion = 0;
    sc_core::sc_event ready;
  };
  int sockets;
  std::map<std::tuple<int, int, int>, Group> groups;
};

/// A df.collective: it takes every input tile (they arrive as their
/// producer makes them), runs the algorithm once over the socket's peer
/// link (one hop latency per sequential step, the bytes at link bandwidth,
/// after the launch cost), then hands the result on. Splitting a small
/// activation into tiles must not multiply the per-hop latency, which is
/// what decides decode at high TP.
class CollectiveUnit {
public:
  static const ComponentInfo &info();
  enum Stat { LinkBytes, LinkBusyPs, Collectives };

  /// `groups` is null when one socket stands for the symmetric group.
  CollectiveUnit(const arch::ArchModel &chip, CollectiveGroups *groups);

  /// The process of collective node `index` for one run of its section.
  void run(SectionRun &r, int index);

  Stats stats{info()};

private:
  arch::CollectiveAlgorithm algorithm;
  double hopPs, launchPs;
  BandwidthServer link;
  CollectiveGroups *groups;
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_COLLECTIVE_H
