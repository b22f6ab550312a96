//===- Ports.h - What a component reaches of its socket ---------*- C++ -*-===//
//
// A component acts on its own state and on the run it is handed; of the
// rest of its socket it reaches only these ports: a memory tier to move
// bytes through, and the on-chip network tiles cross. The engine wires them
// to the socket's components (Engine/Socket.h), so the core and the
// components never name the engine, and a component is tested with ports of
// its own.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_CORE_PORTS_H
#define SNAPFLOW_SIM_CORE_PORTS_H

#include "snapflow/Arch/ArchModel.h"

#include <cstdint>

namespace snapflow {
namespace sim {

/// Which way bytes move through a memory tier.
enum class Access { Read, Write };

/// A memory tier of the socket: SRAM, HBM or DDR.
class MemoryPort {
public:
  virtual ~MemoryPort() = default;
  /// Reads or writes `bytes` starting no earlier than `nowPs`; returns the
  /// picosecond the data has arrived (latency included). The tier charges
  /// the access's energy to itself; the caller charges it to its node.
  virtual double transfer(double bytes, double nowPs, Access access) = 0;
  /// Picojoules of reading or writing `bytes` (docs/Energy.md).
  virtual double energyPj(double bytes, Access access) const = 0;
  /// Charges the energy of an access whose time is modelled elsewhere (a
  /// stream's tile in its PMU buffer); returns the picojoules.
  virtual double charge(double bytes, Access access) = 0;
  /// Independent channels its transfers are striped over.
  virtual int64_t getChannels() const = 0;
};

/// The on-chip network between the socket's units.
class NetworkPort {
public:
  virtual ~NetworkPort() = default;
  /// Picoseconds for a tile of `tileBytes` to cross over `lanes` lanes.
  virtual double crossPs(int64_t tileBytes, int64_t lanes) const = 0;
  /// Picoseconds of the mean hop distance alone.
  virtual double hopsPs() const = 0;
  /// Counts a tile handed from one unit to another; returns the
  /// picojoules of its crossing, which the network charges to itself.
  virtual double recordTile(int64_t tileBytes) = 0;
  /// Charges `bytes` crossing the mean distance outside any tile (a bulk
  /// copy's blocks); returns the picojoules.
  virtual double chargeCrossing(double bytes) = 0;
};

/// The ports of one socket.
struct SocketPorts {
  MemoryPort *tiers[3] = {}; ///< by arch::MemoryTier
  NetworkPort *network = nullptr;

  MemoryPort &tier(arch::MemoryTier t) const {
    return *tiers[static_cast<int>(t)];
  }
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_CORE_PORTS_H
