//===- Collective.h - Traffic of a collective algorithm --------*- C++ -*-===//
//
// How many hops a collective takes and how many bytes each socket sends per
// hop, for the algorithm the chip file chooses. The simulator times them over
// its link servers; the roofline divides their bytes by link bandwidth.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_COLLECTIVE_H
#define SNAPFLOW_SIM_COMPONENTS_COLLECTIVE_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Sim/Core/Program.h"

#include <algorithm>
#include <cmath>

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

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_COLLECTIVE_H
