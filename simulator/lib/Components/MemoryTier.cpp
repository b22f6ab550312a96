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
      {"read_energy, write_energy", "pJ/bit",
       "socket.sram_read_pj_per_bit, socket.sram_write_pj_per_bit; "
       "socket.hbm_pj_per_bit; socket.ddr_pj_per_bit",
       "energy of a bit read or written"},
  };
  static const StatInfo stats[] = {
      {"bytes", "bytes", "bytes read and written", StatRole::TierBytes},
      {"busy", "channel-ps", "channel time spent transferring",
       StatRole::TierBusy},
      {"energy", "pJ",
       "dynamic energy of its reads and writes (SRAM: streams' tiles in "
       "their PMU buffers too)",
       StatRole::Energy},
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
/// Picojoules a bit read (write = false) or written costs in `tier`.
double pjPerBitOf(const arch::ArchModel &chip, arch::MemoryTier tier,
                  bool write) {
  const arch::SocketParams &s = chip.socket();
  switch (tier) {
  case arch::MemoryTier::SRAM:
    return write ? s.sramWritePjPerBit : s.sramReadPjPerBit;
  case arch::MemoryTier::HBM:
    return s.hbmPjPerBit;
  case arch::MemoryTier::DDR:
    return s.ddrPjPerBit;
  }
  return 0;
}
} // namespace

MemoryTierServer::MemoryTierServer(const arch::ArchModel &chip,
                                   arch::MemoryTier tier)
    : Component(info(), tier),
      server(chip.tierBytesPerS(tier) / 1e12, channelsOf(chip, tier),
             double(latencyCyclesOf(chip, tier)) *
                 (1e12 / chip.socket().clockHz)),
      readPjPerBit(pjPerBitOf(chip, tier, false)),
      writePjPerBit(pjPerBitOf(chip, tier, true)) {}

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

double MemoryTierServer::transfer(double bytes, double nowPs, Access access) {
  double busyBefore = server.getBusyPs();
  double arrives = server.reserve(bytes, nowPs);
  stats[Bytes] += bytes;
  stats[BusyPs] += server.getBusyPs() - busyBefore;
  charge(bytes, access);
  return arrives;
}
