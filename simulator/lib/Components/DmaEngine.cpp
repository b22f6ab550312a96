//===- DmaEngine.cpp - Loads and stores through the AGCUs -----------------===//

#include "snapflow/Sim/Components/DmaEngine.h"

#include <deque>

using namespace snapflow;
using namespace snapflow::sim;

const ComponentInfo &DmaEngine::info() {
  static const ParamInfo params[] = {
      {"agcus", "AGCUs", "socket.agcu_count",
       "AGCUs of the socket, a pool the section's loads share"},
      {"lane_bytes_per_cycle", "bytes/cycle",
       "socket.agcu_bytes_per_cycle, socket.noc_stream_bytes_per_cycle",
       "one AGCU lane: the smaller of the AGCU port and a network stream"},
      {"period", "ps", "socket.clock_hz", "one clock cycle"},
  };
  static const StatInfo stats[] = {
      {"bytes_loaded", "bytes", "bytes df.load read from a memory tier"},
      {"bytes_stored", "bytes", "bytes df.store wrote to a memory tier"},
      {"agcu_busy", "AGCU-ps", "AGCU pool time spent moving tiles"},
      {"bytes_copied", "bytes",
       "bytes a tier-to-tier copy (a model switched in) wrote"},
  };
  static const NodeKind runs[] = {NodeKind::Load, NodeKind::Store};
  static const ComponentInfo info{
      "DMA/AGCU engine",
      "df.load and df.store: tier reads and writes through the AGCUs; "
      "copies between tiers",
      params,
      stats,
      runs,
      /*copies=*/true};
  return info;
}

namespace {
double periodPsOf(const arch::ArchModel &chip) {
  return 1e12 / chip.socket().clockHz;
}
double laneBytesPerCycleOf(const arch::ArchModel &chip) {
  return double(std::min(chip.socket().agcuBytesPerCycle,
                         chip.socket().nocStreamBytesPerCycle));
}
} // namespace

static ComponentRegistration
    registration({&DmaEngine::info, [](const BuildContext &ctx) {
                    return single(std::make_unique<DmaEngine>(ctx.chip));
                  }});

DmaEngine::DmaEngine(const arch::ArchModel &chip)
    : Component(info()), periodPs(periodPsOf(chip)),
      laneBytesPerCycle(laneBytesPerCycleOf(chip)),
      pool(double(chip.socket().agcuCount) * laneBytesPerCycle / periodPs,
           chip.socket().agcuCount, 0) {}

void DmaEngine::run(SectionRun &r, int index) {
  if (r.section->nodes[index].kind == NodeKind::Load)
    runLoad(r, index);
  else
    runStore(r, index);
}

namespace {
arch::MemoryTier tierOfNode(const SectionRun &r, const Node &n) {
  return n.tensor >= 0 ? r.program->tensors[n.tensor].tier
                       : arch::MemoryTier::HBM;
}
EnergyAction actionOfTier(arch::MemoryTier t) {
  return t == arch::MemoryTier::SRAM  ? EnergyAction::SRAM
         : t == arch::MemoryTier::HBM ? EnergyAction::HBM
                                      : EnergyAction::DDR;
}
EnergyAction actionOf(const SectionRun &r, const Node &n) {
  return actionOfTier(tierOfNode(r, n));
}
} // namespace

MemoryPort &DmaEngine::tierOf(SectionRun &r, const Node &n) {
  return r.ports->tier(tierOfNode(r, n));
}

void DmaEngine::runLoad(SectionRun &r, int index) {
  const Node &n = r.section->nodes[index];
  const Stream &out = r.section->streams[n.outputs[0]];
  MemoryPort &tier = tierOf(r, n);
  EnergyAction action = actionOf(r, n);
  bool onChip = n.tensor >= 0 &&
                r.program->tensors[n.tensor].tier == arch::MemoryTier::SRAM;
  // The load's own lanes: a server of its own for this run.
  BandwidthServer lanes(double(std::max<int64_t>(1, n.agcus)) *
                            laneBytesPerCycle / periodPs,
                        1, 0);
  double hops = r.ports->network->hopsPs();
  std::deque<double> inFlight;
  // A tile lands when it has arrived and the load is there (it may have
  // waited past that for a slot); it goes in once its slot is free too,
  // one wait for both (SectionRun::push).
  auto land = [&] {
    double at = reachedPs(inFlight.front());
    r.charge(index, PathPart::Memory, at);
    inFlight.pop_front();
    r.push(index, n.outputs[0], /*lanes=*/0, at); // it crossed already
  };
  for (int64_t tile = 0, tiles = r.nodeTiles(index); tile < tiles; ++tile) {
    while (static_cast<int64_t>(inFlight.size()) >= out.depth)
      land();
    double read = tier.transfer(double(out.tileBytes), nowPs(), Access::Read);
    stats[BytesLoaded] += double(out.tileBytes);
    r.nodes[index].bytes += double(out.tileBytes);
    r.nodes[index].energy[action] +=
        tier.energyPj(double(out.tileBytes), Access::Read);
    // The load's own lanes and the socket's AGCUs, shared by every load
    // running at the time, both have to carry the tile.
    double own = lanes.reserve(double(out.tileBytes), read);
    // An on-chip tensor (an activation home in the PMUs) streams from its
    // PMUs over the mesh; only off-chip tiers pass the AGCU portals.
    double shared = own;
    if (!onChip) {
      double poolBefore = pool.getBusyPs();
      shared = pool.reserve(double(out.tileBytes), read);
      stats[AgcuBusyPs] += pool.getBusyPs() - poolBefore;
    }
    inFlight.push_back(std::max(own, shared) + hops);
  }
  while (!inFlight.empty())
    land();
}

void DmaEngine::runStore(SectionRun &r, int index) {
  const Node &n = r.section->nodes[index];
  const Stream &in = r.section->streams[n.inputs[0]];
  MemoryPort &tier = tierOf(r, n);
  EnergyAction action = actionOf(r, n);
  double last = nowPs();
  for (int64_t tile = 0, tiles = r.streamTiles(n.inputs[0]); tile < tiles;
       ++tile) {
    r.pop(index, n.inputs[0]);
    last = std::max(
        last, tier.transfer(double(in.tileBytes), nowPs(), Access::Write));
    stats[BytesStored] += double(in.tileBytes);
    r.nodes[index].bytes += double(in.tileBytes);
    r.nodes[index].energy[action] +=
        tier.energyPj(double(in.tileBytes), Access::Write);
  }
  waitUntil(last); // the section ends when its writes have landed
  r.charge(index, PathPart::Memory);
}

void DmaEngine::runCopy(const SocketPorts &s, CopyRun &c) {
  MemoryPort &from = s.tier(c.from), &to = s.tier(c.to);
  double hops = s.network->hopsPs();
  // Each block goes through three reservations, each made when the block
  // reaches it (a reservation made ahead of time would hold the server for
  // a future instant and keep earlier requests out): the source read
  // (issued as soon as fewer than kCopyBlocksInFlight blocks are on their
  // way), the AGCU pool and the mesh once the read has arrived, the
  // destination write once it has crossed.
  do {
    int64_t left = c.bytes;
    std::deque<std::pair<double, double>> reads, crossings; // ready, bytes
    double last = nowPs();
    while (true) {
      while (left > 0 && !c.stop &&
             static_cast<int64_t>(reads.size() + crossings.size()) <
                 kCopyBlocksInFlight) {
        double bytes = double(std::min(left, kCopyBlockBytes));
        reads.push_back({from.transfer(bytes, nowPs(), Access::Read), bytes});
        c.energy[actionOfTier(c.from)] += from.energyPj(bytes, Access::Read);
        left -= static_cast<int64_t>(bytes);
      }
      if (reads.empty() && crossings.empty())
        break;
      bool write =
          !crossings.empty() &&
          (reads.empty() || crossings.front().first <= reads.front().first);
      auto &next = write ? crossings : reads;
      waitUntil(next.front().first);
      double bytes = next.front().second;
      next.pop_front();
      if (!write) {
        // In through the source tier's AGCU, across the mesh, out through
        // the destination's: the pool carries the block twice.
        double poolBefore = pool.getBusyPs();
        crossings.push_back({pool.reserve(2 * bytes, nowPs()) + hops, bytes});
        c.energy[EnergyAction::Network] += s.network->chargeCrossing(bytes);
        stats[AgcuBusyPs] += pool.getBusyPs() - poolBefore;
        continue;
      }
      last = std::max(last, to.transfer(bytes, nowPs(), Access::Write));
      c.energy[actionOfTier(c.to)] += to.energyPj(bytes, Access::Write);
      stats[BytesCopied] += bytes;
      c.moved += bytes;
    }
    waitUntil(last);
  } while (c.background && !c.stop);
}
