//===- Network.h - The on-chip vector network -------------------*- C++ -*-===//
//
// Tiles cross a mesh of switches between units: a tile takes its bytes over
// the lanes its producer drives, plus the hop latency of the mean distance
// between two units of a rows x cols mesh, (rows + cols) / 3 hops.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_NETWORK_H
#define SNAPFLOW_SIM_COMPONENTS_NETWORK_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Sim/Components/Component.h"
#include "snapflow/Sim/Core/Ports.h"

namespace snapflow {
namespace sim {

class OnChipNetwork final : public Component, public NetworkPort {
public:
  static const ComponentInfo &info();
  enum Stat { Tiles, Bytes, EnergyPj };

  explicit OnChipNetwork(const arch::ArchModel &chip);

  /// Picoseconds for a tile of `tileBytes` to cross over `lanes` lanes.
  double crossPs(int64_t tileBytes, int64_t lanes) const override;
  /// Picoseconds of the mean hop distance alone.
  double hopsPs() const override { return meanHopsPs; }
  /// Counts a tile handed from one unit to another and charges its
  /// crossing: its bits over the mean number of hops.
  double recordTile(int64_t tileBytes) override {
    stats[Tiles] += 1;
    stats[Bytes] += double(tileBytes);
    return chargeCrossing(double(tileBytes));
  }
  double chargeCrossing(double bytes) override {
    double pj = bytes * 8 * pjPerBitCrossing;
    stats[EnergyPj] += pj;
    return pj;
  }

  /// Serves the network port.
  void attach(SocketPorts &ports) override { ports.network = this; }

private:
  double periodPs, laneBytesPerCycle, meanHopsPs;
  /// Picojoules a bit costs over the mean distance (mean_hops hops).
  double pjPerBitCrossing;
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_NETWORK_H
