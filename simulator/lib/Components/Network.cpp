//===- Network.cpp - The on-chip vector network ---------------------------===//

#include "snapflow/Sim/Components/Network.h"

#include <algorithm>

using namespace snapflow;
using namespace snapflow::sim;

const ComponentInfo &OnChipNetwork::info() {
  static const ParamInfo params[] = {
      {"lane_bytes_per_cycle", "bytes/cycle",
       "socket.noc_stream_bytes_per_cycle",
       "bytes one lane of the vector network carries per cycle"},
      {"mean_hops", "hops", "socket.mesh_rows, socket.mesh_cols",
       "mean distance between two units of the mesh, (rows + cols) / 3"},
      {"hop_latency", "cycles", "socket.noc_hop_latency_cycles",
       "latency of one switch hop"},
      {"period", "ps", "socket.clock_hz", "one clock cycle"},
      {"hop_energy", "pJ/bit/hop", "socket.noc_pj_per_bit_hop",
       "energy of a bit crossing one hop; a crossing takes mean_hops"},
  };
  static const StatInfo stats[] = {
      {"tiles", "tiles", "tiles handed from one unit to another",
       StatRole::Tiles},
      {"bytes", "bytes", "bytes of those tiles"},
      {"energy", "pJ", "dynamic energy of the crossings (tiles and copies)",
       StatRole::Energy},
  };
  static const ComponentInfo info{
      "on-chip network",
      "tiles cross the switch mesh over their producer's lanes, plus the mean "
      "hop latency",
      params, stats};
  return info;
}

static ComponentRegistration
    registration({&OnChipNetwork::info, [](const BuildContext &ctx) {
                    return single(std::make_unique<OnChipNetwork>(ctx.chip));
                  }});

OnChipNetwork::OnChipNetwork(const arch::ArchModel &chip) : Component(info()) {
  const arch::SocketParams &s = chip.socket();
  periodPs = 1e12 / s.clockHz;
  laneBytesPerCycle = double(s.nocStreamBytesPerCycle);
  meanHopsPs = chip.meanMeshHops() * double(s.nocHopLatencyCycles) * periodPs;
  pjPerBitCrossing = chip.meanMeshHops() * s.nocPjPerBitHop;
}

double OnChipNetwork::crossPs(int64_t tileBytes, int64_t lanes) const {
  return double(tileBytes) /
             (laneBytesPerCycle * double(std::max<int64_t>(1, lanes))) *
             periodPs +
         meanHopsPs;
}
