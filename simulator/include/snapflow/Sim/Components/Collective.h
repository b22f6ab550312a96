//===- Collective.h - Collectives over the peer links ----------*- C++ -*-===//
//
// The component that runs a df.collective over a socket's peer links, tile by
// tile, with the algorithm the compiler recorded and the cost model of
// arch/Collectives.h (shared with the compiler and the roofline, so the
// three cannot disagree).
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_COLLECTIVE_H
#define SNAPFLOW_SIM_COMPONENTS_COLLECTIVE_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Sim/Components/Component.h"
#include "snapflow/Sim/Core/BandwidthServer.h"
#include "snapflow/Sim/Core/Program.h"
#include "snapflow/Sim/Core/Runtime.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace snapflow {
namespace sim {

/// Where the collectives of every socket meet when all sockets are
/// simulated: a collective completes when the slowest socket has sent.
class CollectiveGroups {
public:
  explicit CollectiveGroups(int sockets) : sockets(sockets) {}
  /// Socket arrival with tile `tile` at collective node `node` of section
  /// `section` of job `job`, its send done at `done`; returns when every
  /// socket has arrived, with the latest completion.
  double meet(int job, int section, int node, int64_t tile, double done);

private:
  struct Group {
    int arrived = 0;
    double completion = 0, result = 0;
    uint64_t generation = 0;
    sc_core::sc_event ready;
  };
  int sockets;
  std::map<std::tuple<int, int, int, int64_t>, Group> groups;
};

/// What one df.collective did, averaged over its simulated runs.
struct CollectiveRecord {
  int job = 0, section = 0, node = 0;
  arch::CollectiveAlgorithm algorithm = arch::CollectiveAlgorithm::Ring;
  double bytes = 0;          ///< message bytes per run
  int64_t runs = 0;          ///< runs simulated
  double spanPs = 0;         ///< first input tile to last output tile, summed
  double exposedPs = 0;      ///< last input tile to last output tile, summed
  arch::CollectiveCost cost; ///< the model for the whole message
};

/// A df.collective, streamed per tile: each input tile, as its producer
/// makes it, is sent with the node's algorithm over the socket's peer links
/// (the bytes of its busiest link direction queue on the link; then its
/// rounds' hops each pay the link latency), and its output tiles go on to
/// the consumer as they complete. The launch cost is paid once per run,
/// before the first tile. Tiles overlap in flight, so splitting a small
/// activation into tiles does not multiply the per-hop latency, which is
/// what decides decode at high TP.
class CollectiveUnit final : public Component {
public:
  static const ComponentInfo &info();
  enum Stat { LinkBytes, LinkBusyPs, Collectives, EnergyPj };

  /// `groups` is null when one socket stands for the symmetric group.
  CollectiveUnit(const arch::ArchModel &chip, CollectiveGroups *groups);

  /// The process of collective node `index` for one run of its section.
  void run(SectionRun &r, int index) override;

  /// The algorithm and cost node `n` runs with: the compiler's choice, or
  /// for an IR that names none, the chip's for its message.
  arch::CollectiveCost costOf(const Node &n, double bytes) const;

  /// Every collective node run so far, in the order first seen.
  const std::vector<CollectiveRecord> &records() const { return recordList; }
  /// Each record's runs and summed spans.
  std::vector<double> tallies() const override;
  void addTallies(llvm::ArrayRef<double> delta, double times) override;

private:
  arch::SystemParams system;
  double hopPs, launchPs;
  double linkPjPerBit;
  int64_t outputLanes;
  BandwidthServer link;
  CollectiveGroups *groups;
  std::map<std::tuple<int, int, int>, size_t> recordIndex;
  std::vector<CollectiveRecord> recordList;
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_COLLECTIVE_H
