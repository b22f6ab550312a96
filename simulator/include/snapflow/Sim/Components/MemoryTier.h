//===- MemoryTier.h - SRAM, HBM and DDR as shared servers -------*- C++ -*-===//
//
// A memory tier of one socket: its bandwidth, shared by every concurrent
// load and store (they contend first come, first served), its channel count
// and its access latency, all from the chip file.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_MEMORYTIER_H
#define SNAPFLOW_SIM_COMPONENTS_MEMORYTIER_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Sim/Components/Component.h"
#include "snapflow/Sim/Core/BandwidthServer.h"
#include "snapflow/Sim/Core/Ports.h"

namespace snapflow {
namespace sim {

class MemoryTierServer final : public Component, public MemoryPort {
public:
  static const ComponentInfo &info();
  enum Stat { Bytes, BusyPs, EnergyPj };

  MemoryTierServer(const arch::ArchModel &chip, arch::MemoryTier tier);

  /// Moves `bytes` starting no earlier than `nowPs`; returns the picosecond
  /// the data has arrived (latency included).
  double transfer(double bytes, double nowPs, Access access) override;
  double energyPj(double bytes, Access access) const override {
    return bytes * 8 * (access == Access::Read ? readPjPerBit : writePjPerBit);
  }
  double charge(double bytes, Access access) override {
    double pj = energyPj(bytes, access);
    stats[EnergyPj] += pj;
    return pj;
  }
  int64_t getChannels() const override { return server.getChannels(); }
  /// Serves its tier's port.
  void attach(SocketPorts &ports) override;

private:
  BandwidthServer server;
  double readPjPerBit, writePjPerBit;
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_MEMORYTIER_H
