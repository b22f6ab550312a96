//===- ClusterMerge.cpp - A cluster's result from its nodes' --------------===//

#include "ClusterMerge.h"

#include <algorithm>
#include <tuple>

using namespace snapflow::sim::serving;

llvm::StringRef snapflow::sim::serving::nodeRoleName(NodeRole role) {
  switch (role) {
  case NodeRole::Both:
    return "both";
  case NodeRole::Prefill:
    return "prefill";
  case NodeRole::Decode:
    return "decode";
  }
  return "both";
}

NodeResult cluster::nodeResult(const ServeResult &n, NodeRole role) {
  NodeResult r;
  r.role = role;
  r.prefillS = n.prefillS;
  r.decodeS = n.decodeS;
  r.moveS = n.prefix.moveS;
  r.idleS = n.idleS;
  r.prefills = n.prefills;
  r.decodeSteps = n.decodeSteps;
  r.outputTokens = n.outputTokens;
  r.decodeSlotUtilization = n.decodeSlotUtilization;
  r.waitingPeak = n.waitingPeak;
  r.waitingMean = n.waitingMean;
  r.kvPeakBytes = n.kvPeakBytes;
  r.kvMeanBytes = n.kvMeanBytes;
  return r;
}

namespace {

void mergePrefix(PrefixResult &to, const PrefixResult &p) {
  to.queriedTokens += p.queriedTokens;
  to.hitTokens += p.hitTokens;
  to.hitBlocks += p.hitBlocks;
  to.ddrHitBlocks += p.ddrHitBlocks;
  to.insertedBlocks += p.insertedBlocks;
  to.demotedBlocks += p.demotedBlocks;
  to.droppedBlocks += p.droppedBlocks;
  to.reusedBytes += p.reusedBytes;
  to.promotedBytes += p.promotedBytes;
  to.demotedBytes += p.demotedBytes;
  to.moveS += p.moveS;
  to.prefillSavedS += p.prefillSavedS;
  to.peakHbmBlocks = std::max(to.peakHbmBlocks, p.peakHbmBlocks);
  to.peakDdrBlocks = std::max(to.peakDdrBlocks, p.peakDdrBlocks);
  to.hbmMeanBytes = std::max(to.hbmMeanBytes, p.hbmMeanBytes);
  to.ddrMeanBytes = std::max(to.ddrMeanBytes, p.ddrMeanBytes);
}

void mergeModel(ModelResult &to, const ModelResult &m) {
  // Slot use weighted by decode steps (a node's share of them).
  int64_t steps = to.decodeSteps + m.decodeSteps;
  if (steps > 0)
    to.decodeSlotUtilization =
        (to.decodeSlotUtilization * double(to.decodeSteps) +
         m.decodeSlotUtilization * double(m.decodeSteps)) /
        double(steps);
  to.switches += m.switches;
  to.prewarms += m.prewarms;
  to.evictions += m.evictions;
  to.switchS += m.switchS;
  to.switchJ += m.switchJ;
  to.chipS += m.chipS;
  to.prefills += m.prefills;
  to.decodeSteps += m.decodeSteps;
  to.outputTokens += m.outputTokens;
  to.tokenGaps.merge(m.tokenGaps);
  to.latencies.merge(m.latencies);
  to.hbmPeakBytes = std::max(to.hbmPeakBytes, m.hbmPeakBytes);
  to.hbmMeanBytes = std::max(to.hbmMeanBytes, m.hbmMeanBytes);
}

/// The nodes' occupancy at every event: each node's latest sample held
/// until its next; slots and queues summed, bytes the fullest node's.
std::vector<Sample> mergeSamples(const std::vector<ServeResult> &nodes) {
  std::vector<std::tuple<double, size_t, size_t>> events;
  for (size_t n = 0; n < nodes.size(); ++n)
    for (size_t i = 0; i < nodes[n].samples.size(); ++i)
      events.emplace_back(nodes[n].samples[i].timeS, n, i);
  std::sort(events.begin(), events.end());
  std::vector<const Sample *> now(nodes.size(), nullptr);
  std::vector<Sample> out;
  // At most kMaxSamples, evenly (the last always).
  size_t stride = events.size() / ServeResult::kMaxSamples + 1;
  for (size_t e = 0; e < events.size(); ++e) {
    auto [time, n, i] = events[e];
    now[n] = &nodes[n].samples[i];
    if (e % stride != 0 && e + 1 != events.size())
      continue;
    Sample s;
    s.timeS = time;
    for (const Sample *p : now) {
      if (!p)
        continue;
      s.activeSlots += p->activeSlots;
      s.waiting += p->waiting;
      s.kvLiveBytes = std::max(s.kvLiveBytes, p->kvLiveBytes);
      s.prefixHbmBytes = std::max(s.prefixHbmBytes, p->prefixHbmBytes);
      s.prefixDdrBytes = std::max(s.prefixDdrBytes, p->prefixDdrBytes);
      if (s.hbmByModel.size() < p->hbmByModel.size())
        s.hbmByModel.resize(p->hbmByModel.size(), 0);
      for (size_t k = 0; k < p->hbmByModel.size(); ++k)
        s.hbmByModel[k] = std::max(s.hbmByModel[k], p->hbmByModel[k]);
    }
    out.push_back(std::move(s));
  }
  return out;
}

} // namespace

ServeResult cluster::merge(std::vector<ServeResult> &nodes) {
  ServeResult r;
  r.samples = mergeSamples(nodes);
  double kvMean = 0, waitingMean = 0, slotWeighted = 0;
  for (size_t n = 0; n < nodes.size(); ++n) {
    ServeResult &p = nodes[n];
    for (Span &s : p.spans) {
      if (r.spans.size() < ServeResult::kMaxSpans)
        r.spans.push_back(s);
      else
        ++r.spansDropped;
    }
    r.spansDropped += p.spansDropped;
    r.kvPeakBytes = std::max(r.kvPeakBytes, p.kvPeakBytes);
    kvMean += p.kvMeanBytes / double(nodes.size());
    r.makespanS = std::max(r.makespanS, p.makespanS);
    r.prefillS += p.prefillS;
    r.decodeS += p.decodeS;
    r.idleS += p.idleS;
    r.energy.dynamicJ += p.energy.dynamicJ;
    r.energy.staticJ += p.energy.staticJ;
    r.energy.idleJ += p.energy.idleJ;
    r.energy.switchJ += p.energy.switchJ;
    r.prefills += p.prefills;
    r.decodeSteps += p.decodeSteps;
    r.outputTokens += p.outputTokens;
    r.prefillChunks += p.prefillChunks;
    r.mixedSteps += p.mixedSteps;
    slotWeighted += p.decodeSlotUtilization * p.decodeS;
    r.peakActiveSlots = std::max(r.peakActiveSlots, p.peakActiveSlots);
    if (r.graphSteps.size() < p.graphSteps.size())
      r.graphSteps.resize(p.graphSteps.size());
    for (size_t g = 0; g < p.graphSteps.size(); ++g)
      r.graphSteps[g] += p.graphSteps[g];
    r.graphSwitches += p.graphSwitches;
    r.graphSwitchS += p.graphSwitchS;
    r.waitingPeak += p.waitingPeak;
    waitingMean += p.waitingMean;
    r.tokenGaps.merge(p.tokenGaps);
    r.latencies.merge(p.latencies);
    mergePrefix(r.prefix, p.prefix);
    if (r.models.size() < p.models.size())
      r.models.resize(p.models.size());
    for (size_t k = 0; k < p.models.size(); ++k)
      mergeModel(r.models[k], p.models[k]);
    for (Switch &s : p.switches)
      r.switches.push_back(std::move(s));
  }
  r.kvMeanBytes = kvMean;
  r.waitingMean = waitingMean;
  r.decodeSlotUtilization = r.decodeS > 0 ? slotWeighted / r.decodeS : 0;
  std::sort(r.switches.begin(), r.switches.end(),
            [](const Switch &a, const Switch &b) {
              return std::tie(a.startS, a.model) < std::tie(b.startS, b.model);
            });
  return r;
}
