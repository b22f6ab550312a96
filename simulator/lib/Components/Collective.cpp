//===- Collective.cpp - Collectives over the peer links -------------------===//

#include "snapflow/Sim/Components/Collective.h"

#include <cmath>
#include <deque>

using namespace snapflow;
using namespace snapflow::sim;

const ComponentInfo &CollectiveUnit::info() {
  static const ParamInfo params[] = {
      {"algorithm", "-",
       "the df.collective's, else system.collective_algorithm",
       "the compiler's choice per collective: rounds, hops and link load "
       "(arch/Collectives.h)"},
      {"link_bandwidth", "bytes/s", "system.link_bytes_per_s",
       "one peer link, one direction; the busiest link of each round binds"},
      {"topology", "-", "system.topology, system.links_per_socket",
       "hops per send and how many sends share a link"},
      {"hop_latency", "ns", "system.link_latency_ns",
       "paid by every sequential hop"},
      {"launch", "ns", "system.collective_launch_ns",
       "fixed cost before a collective sends"},
      {"link_energy", "pJ/bit", "system.link_pj_per_bit",
       "energy of a bit over one peer link; a routed-through send pays each "
       "link it crosses"},
  };
  static const StatInfo stats[] = {
      {"link_bytes", "bytes", "bytes this socket sent over its peer link",
       StatRole::LinkBytes},
      {"link_busy", "ps", "peer link time spent sending", StatRole::LinkBusy},
      {"collectives", "collectives", "collectives run"},
      {"energy", "pJ", "dynamic energy of the links its sends crossed",
       StatRole::Energy},
  };
  static const NodeKind runs[] = {NodeKind::Collective};
  static const ComponentInfo info{"collective",
                                  "a df.collective over the socket's peer link",
                                  params, stats, runs};
  return info;
}

static ComponentRegistration registration(
    {&CollectiveUnit::info, [](const BuildContext &ctx) {
       return single(std::make_unique<CollectiveUnit>(ctx.chip, ctx.groups));
     }});

double CollectiveGroups::meet(int job, int section, int node, int64_t tile,
                              double done) {
  Group &group = groups[{job, section, node, tile}];
  group.completion = std::max(group.completion, done);
  if (++group.arrived == sockets) {
    // The last socket in: publish the latest completion and start afresh
    // for the next run of this tile.
    group.arrived = 0;
    group.result = group.completion;
    group.completion = 0;
    ++group.generation;
    group.ready.notify(sc_core::SC_ZERO_TIME);
    return group.result;
  }
  // No socket can arrive at this tile again before this one has left.
  uint64_t generation = group.generation;
  while (group.generation == generation)
    sc_core::wait(group.ready);
  return group.result;
}

CollectiveUnit::CollectiveUnit(const arch::ArchModel &chip,
                               CollectiveGroups *groups)
    : Component(info()), system(chip.system()),
      hopPs(chip.system().linkLatencyNs * 1000.0),
      launchPs(chip.system().collectiveLaunchNs * 1000.0),
      linkPjPerBit(chip.system().linkPjPerBit),
      outputLanes(chip.socket().agcuCount),
      link(chip.system().linkBytesPerS / 1e12, 1, 0), groups(groups) {}

arch::CollectiveCost CollectiveUnit::costOf(const Node &n, double bytes) const {
  return arch::chooseCollective(
      n.collective, bytes, std::max<int64_t>(2, n.group), system, n.algorithm);
}

void CollectiveUnit::run(SectionRun &r, int index) {
  const Node &n = r.section->nodes[index];
  const Stream &in = r.section->streams[n.inputs[0]];
  int64_t tilesIn = r.streamTiles(n.inputs[0]);
  int64_t tilesOut = r.streamTiles(n.outputs[0]);
  int64_t inTiles = std::max<int64_t>(1, tilesIn);
  double message = double(tilesIn) * double(in.tileBytes);
  arch::CollectiveCost cost = costOf(n, message);
  auto key = std::make_tuple(r.job, r.index, index);
  auto [it, fresh] = recordIndex.try_emplace(key, recordList.size());
  if (fresh) {
    CollectiveRecord rec;
    rec.job = r.job;
    rec.section = r.index;
    rec.node = index;
    rec.algorithm = cost.algorithm;
    rec.bytes = message;
    rec.cost = cost;
    recordList.push_back(rec);
  }
  // An index, not a reference: other collectives add records while this
  // one waits.
  size_t recordAt = it->second;
  // The peer traffic enters and leaves through the AGCUs, which spread it
  // over their lanes of the on-chip network.
  int64_t lanes = outputLanes;
  double tileLink = cost.linkBytesPerByte * double(in.tileBytes);
  double tileSent = cost.sentPerByte * double(in.tileBytes);
  double tilePj = cost.crossedPerByte * double(in.tileBytes) * 8 * linkPjPerBit;
  double tileLatency = double(cost.hops) * hopPs;
  std::deque<double> inFlight;
  int64_t pushed = 0;
  double first = -1, lastInput = 0, start = 0;
  auto release = [&](int64_t landed) {
    // Output tiles in proportion to the input tiles that have landed.
    int64_t target = landed * tilesOut / inTiles;
    while (pushed < target) {
      r.push(index, n.outputs[0], lanes);
      ++pushed;
    }
  };
  int64_t landed = 0;
  auto land = [&] {
    waitUntil(inFlight.front());
    r.charge(index, PathPart::Collective);
    inFlight.pop_front();
    release(++landed);
  };
  for (int64_t tile = 0; tile < tilesIn; ++tile) {
    r.pop(index, n.inputs[0]);
    double now = nowPs();
    if (first < 0) {
      first = now;
      start = now + launchPs; // armed once per run
      stats[Collectives] += 1;
    }
    lastInput = now;
    double busyBefore = link.getBusyPs();
    double sent = link.reserve(tileLink, std::max(now, start));
    stats[LinkBusyPs] += link.getBusyPs() - busyBefore;
    stats[LinkBytes] += tileSent;
    r.nodes[index].linkBytes += tileSent;
    stats[EnergyPj] += tilePj;
    r.nodes[index].energy[EnergyAction::Link] += tilePj;
    double done = sent + tileLatency;
    if (groups) // every socket has sent this tile: it lands with the last
      done = groups->meet(r.job, r.index, index, tile, done);
    inFlight.push_back(done);
    // Hand on what has landed meanwhile, without waiting for it.
    while (!inFlight.empty() && inFlight.front() <= nowPs())
      land();
  }
  while (!inFlight.empty())
    land();
  release(inTiles);
  double end = nowPs();
  if (first >= 0) {
    CollectiveRecord &rec = recordList[recordAt];
    rec.runs += 1;
    rec.spanPs += end - first;
    rec.exposedPs += end - lastInput;
  }
}

std::vector<double> CollectiveUnit::tallies() const {
  std::vector<double> out;
  for (const CollectiveRecord &rec : recordList) {
    out.push_back(double(rec.runs));
    out.push_back(rec.spanPs);
    out.push_back(rec.exposedPs);
  }
  return out;
}

void CollectiveUnit::addTallies(llvm::ArrayRef<double> delta, double times) {
  for (size_t k = 0; k < recordList.size() && 3 * k + 2 < delta.size(); ++k) {
    CollectiveRecord &rec = recordList[k];
    rec.runs += static_cast<int64_t>(std::llround(delta[3 * k] * times));
    rec.spanPs += delta[3 * k + 1] * times;
    rec.exposedPs += delta[3 * k + 2] * times;
  }
}
