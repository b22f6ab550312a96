//===- Runtime.cpp - State of a running program ---------------------------===//

#include "snapflow/Sim/Core/Runtime.h"

#include <algorithm>

using namespace snapflow;
using namespace snapflow::sim;

void SectionRun::awaitCarried(int node, int64_t k) {
  if (k == 0 || carriedFrom.empty())
    return;
  for (int store : carriedFrom[node]) {
    while (nodes[store].iterationsDone < k) {
      nodes[node].wait = {"await the previous iteration's store to", -1};
      sc_core::wait(iterationDone);
    }
    // The carry's chain continues here.
    if (nodes[store].iterationPath.at > nodes[node].path.at)
      nodes[node].path = nodes[store].iterationPath;
  }
  nodes[node].wait = {};
}

void SectionRun::finishIteration(int node, int64_t k) {
  nodes[node].iterationsDone = k + 1;
  nodes[node].iterationPath = nodes[node].path;
  iterationDone.notify(sc_core::SC_ZERO_TIME);
  if (!watched || k + 1 <= completed)
    return;
  int64_t least = k + 1;
  for (const NodeRun &n : nodes)
    least = std::min(least, n.iterationsDone);
  if (least > completed) {
    completed = least;
    progress.notify(sc_core::SC_ZERO_TIME);
  }
}

void SectionRun::spend(int node, double ps) {
  NodeRun &nr = nodes[node];
  // Past the horizon the kernel's wait stops the run.
  if (nr.decoupled && nr.localPs + ps <= kHorizonPs)
    nr.localPs += ps > 0 ? ps : 0;
  else {
    sync(node);
    waitFor(ps);
    nr.localPs = nowPs();
  }
}

void SectionRun::reach(int node, double ps) {
  NodeRun &nr = nodes[node];
  if (nr.decoupled)
    nr.localPs = std::max(nr.localPs, ps);
  else
    waitUntil(ps);
}

void SectionRun::sync(int node) {
  NodeRun &nr = nodes[node];
  if (nr.decoupled) {
    waitUntil(nr.localPs);
    nr.localPs = nowPs();
  }
}

void SectionRun::charge(int node, PathPart part, double now) {
  NodeRun &nr = nodes[node];
  PathStamp &p = nr.path;
  if (now > p.at) {
    double span = now - p.at;
    segments.push_back({p.segment, node, part, span});
    p.segment = static_cast<int32_t>(segments.size() - 1);
    p.at = now;
    nr.busyPs += span;
  }
}

void SectionRun::pop(int node, int stream) {
  NodeRun &nr = nodes[node];
  const Stream &st = section->streams[stream];
  int slot = 0;
  for (size_t i = 0; i < st.consumers.size(); ++i)
    if (st.consumers[i] == node)
      slot = static_cast<int>(i);
  nr.wait = {"pop from", stream};
  double at = streams[stream]->pop(slot, nr.path, nr.now());
  reach(node, at);
  nr.wait = {};
  nr.touch();
  // The tile is read from the stream's PMU buffer.
  nr.energy[EnergyAction::SRAM] +=
      ports->tier(arch::MemoryTier::SRAM)
          .charge(double(st.tileBytes), Access::Read);
}

void SectionRun::push(int node, int stream, int64_t lanes, double atPs) {
  NodeRun &nr = nodes[node];
  int64_t tileBytes = section->streams[stream].tileBytes;
  if (lanes > 0) {
    double net = ports->network->crossPs(tileBytes, lanes);
    spend(node, net);
    charge(node, PathPart::Network);
    atPs = std::max(atPs, nr.now());
  }
  nr.wait = {"push to", stream};
  double at = streams[stream]->push(nr.path, atPs);
  reach(node, at);
  nr.wait = {};
  nr.touch();
  // It crosses the mesh into the stream's PMU buffer.
  nr.energy[EnergyAction::Network] += ports->network->recordTile(tileBytes);
  nr.energy[EnergyAction::SRAM] +=
      ports->tier(arch::MemoryTier::SRAM)
          .charge(double(tileBytes), Access::Write);
}
