//===- MemoryTier.cpp - SRAM, HBM and DDR as shared servers ---------------===//

#include "snapflow/Sim/Components/MemoryTier.h"

using namespace snapflow;
using namespace snapflow::sim;

const ComponentInfo &MemoryTierServer::info() {
  static const ParamInfo params[] = {
      {"bandwidth", "bytes/s",
       "socket.hbm_bytes_per_s, socket.ddr_bytes_per_s; SRAM: "
       "socket.pmu_count x socket.pmu_bytes_per_cycle x socket.clock_hz",
       "the tier's bandwidth per socket"},
      {"channels", "channels",
       "socket.hbm_channels, socket.ddr_channels; SRAM: socket.pmu_count",
       "independent channels; transfers are striped over all of them"},
      {"latency", "cycles",
       "socket.hbm_latency_cycles, socket.ddr_latency_cycles; SRAM: 0",
       "added to every access"},
  };
  static const StatInfo stats[] = {
      {"bytes", "bytes", "bytes read and written", StatRole::TierBytes},
      {"busy", "channel-ps", "channel time spent transferring",
       StatRole::TierBusy},
  };
  static const ComponentInfo info{
      "memory tier", "SRAM, HBM or DDR of one socket, a shared server", params,
      stats};
  return info;
}

namespace {
int64_t channelsOf(const arch::ArchModel &chip, arch::MemoryTier tier) {
  const arch::SocketParams &s = chip.socket();
  switch (tier) {
  case arch::MemoryTier::SRAM:
    return s.pmuCount;
  case arch::MemoryTier::HBM:
    return s.hbmChannels;
  case arch::MemoryTier::DDR:
    return s.ddrChannels;
  }
  return 1;
}
int64_t latencyCyclesOf(const arch::ArchModel &chip, arch::MemoryTier tier) {
  const arch::SocketParams &s = chip.socket();
  return tier == arch::MemoryTier::HBM   ? s.hbmLatencyCycles
         : tier == arch::MemoryTier::DDR ? s.ddrLatencyCycles
                                         : 0;
}
} // namespace

MemoryTierServer::MemoryTierServer(const arch::ArchModel &chip,
                                   arch::MemoryTier tier)
    : Component(info(), tier),
      server(chip.tierBytesPerS(tier) / 1e12, channelsOf(chip, tier),
             double(latencyCyclesOf(chip, tier)) *
                 (1e12 / chip.socket().clockHz)) {}

static ComponentRegistration registration(
    {&MemoryTierServer::info, [](const BuildContext &ctx) {
       // One server per tier, the same kind.
       std::vector<std::unique_ptr<Component>> out;
       for (arch::MemoryTier t : arch::kAllTiers)
         out.push_back(std::make_unique<MemoryTierServer>(ctx.chip, t));
       return out;
     }});

void MemoryTierServer::attach(SocketPorts &ports) {
  ports.tiers[static_cast<int>(*stats.getTier())] = this;
}

double MemoryTierServer::transfer(double bytes, double nowPs) {
  double busyBefore = server.getBusyPs();
  double arrives = server.reserve(bytes, nowPs);
  stats[Bytes] += bytes;
  stats[BusyPs] += server.getBusyPs() - busyBefore;
  return arrives;
}
