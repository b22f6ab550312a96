//===- Socket.h - One socket's components -----------------------*- C++ -*-===//
//
// The engine's socket: one instance of each component (three memory tiers),
// the ports the components reach each other by, the runs of every section
// of every job on it, and its bulk copy.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_ENGINE_SOCKET_H
#define SNAPFLOW_SIM_ENGINE_SOCKET_H

#include "snapflow/Sim/Components/Buffer.h"
#include "snapflow/Sim/Components/Collective.h"
#include "snapflow/Sim/Components/DmaEngine.h"
#include "snapflow/Sim/Components/MemoryTier.h"
#include "snapflow/Sim/Components/Network.h"
#include "snapflow/Sim/Components/PcuStage.h"
#include "snapflow/Sim/Core/Runtime.h"

#include <memory>
#include <vector>

namespace snapflow {
namespace sim {

/// One socket's components and its runs of every section of every job.
struct Socket {
  std::unique_ptr<MemoryTierServer> tiers[3]; ///< by arch::MemoryTier
  std::unique_ptr<OnChipNetwork> network;
  std::unique_ptr<PcuStage> pcus;
  std::unique_ptr<DmaEngine> dma;
  std::unique_ptr<Buffer> buffers;
  std::unique_ptr<CollectiveUnit> collectives;
  /// The tiers and the network as its runs' components reach them.
  std::unique_ptr<SocketPorts> ports = std::make_unique<SocketPorts>();
  std::vector<std::vector<std::unique_ptr<SectionRun>>> runs; // [job][section]
  std::unique_ptr<CopyRun> copy = std::make_unique<CopyRun>();

  MemoryTierServer &tier(arch::MemoryTier t) {
    return *tiers[static_cast<int>(t)];
  }
  /// Points the ports at the components (once they are built).
  void connect();
  /// Every component's statistics, in a fixed order.
  std::vector<Stats *> stats();
};

/// A snapshot of statistics: one vector per block of Socket::stats().
using StatsSnapshot = std::vector<std::vector<double>>;
StatsSnapshot snapshot(Socket &socket);

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_ENGINE_SOCKET_H
