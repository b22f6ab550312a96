//===- Collective.cpp - Collectives over the peer links -------------------===//

#include "snapflow/Sim/Components/Collective.h"

using namespace snapflow;
using namespace snapflow::sim;

const ComponentInfo &CollectiveUnit::info() {
  static const ParamInfo params[] = {
      {"algorithm", "-", "system.collective_algorithm",
       "ring, tree or one_shot: hops in sequence and bytes per hop"},
      {"link_bandwidth", "bytes/s", "system.link_bytes_per_s",
       "one peer link, one direction"},
      {"hop_latency", "ns", "system.link_latency_ns",
       "paid by every sequential hop"},
      {"launch", "ns", "system.collective_launch_ns",
       "fixed cost before a collective sends"},
  };
  static const StatInfo stats[] = {
      {"link_bytes", "bytes", "bytes this socket sent over its peer link"},
      {"link_busy", "ps", "peer link time spent sending"},
      {"collectives", "collectives", "collectives run"},
  };
  static const ComponentInfo info{
      "collective", "a df.collective over the socket's peer link", params,
      stats};
  return info;
}

double CollectiveGroups::meet(int job, int section, int node, double done) {
  Group &group = groups[{job, section, node}];
  group.completion = std::max(group.completion, done);
  if (++group.arrived == sockets) {
    group.arrived = 0;
    group.ready.notify(sc_core::SC_ZERO_TIME);
  } else {
    while (group.arrived != 0)
      sc_core::wait(group.ready);
  }
  return group.completion;
}

void CollectiveGroups::leave(int job, int section, int node) {
  Group &group = groups[{job, section, node}];
  if (nowPs() >= group.completion)
    group.completion = 0;
}

CollectiveUnit::CollectiveUnit(const arch::ArchModel &chip,
                               CollectiveGroups *groups)
    : algorithm(chip.system().collectiveAlgorithm),
      hopPs(chip.system().linkLatencyNs * 1000.0),
      launchPs(chip.system().collectiveLaunchNs * 1000.0),
      link(chip.system().linkBytesPerS / 1e12, 1,
           chip.system().linkLatencyNs * 1000.0),
      groups(groups) {}

void CollectiveUnit::run(SectionRun &r, int index) {
  const Node &n = r.section->nodes[index];
  const Stream &in = r.section->streams[n.inputs[0]];
  const Stream &out = r.section->streams[n.outputs[0]];
  for (int64_t tile = 0; tile < in.tiles; ++tile)
    r.pop(index, n.inputs[0]);
  double g = double(std::max<int64_t>(2, n.group));
  CollectiveTraffic traffic = collectiveTraffic(
      n.collective, algorithm, double(in.tiles) * double(in.tileBytes), g);
  double bytes = traffic.steps * traffic.bytesPerStep;
  double busyBefore = link.getBusyPs();
  double sent = link.reserve(bytes, nowPs() + launchPs);
  stats[LinkBusyPs] += link.getBusyPs() - busyBefore;
  stats[LinkBytes] += bytes;
  stats[Collectives] += 1;
  // Every step pays a hop; the reservation paid one.
  double done = sent + (traffic.steps - 1) * hopPs;
  if (groups)
    done = groups->meet(r.job, r.index, index, done);
  double began = nowPs();
  waitUntil(done);
  r.nodes[index].collectivePs += nowPs() - began;
  if (groups)
    groups->leave(r.job, r.index, index);
  for (int64_t tile = 0; tile < out.tiles; ++tile)
    r.push(index, n.outputs[0], int64_t(1));
}
