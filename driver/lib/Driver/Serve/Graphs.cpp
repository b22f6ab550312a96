//===- Graphs.cpp - Several static decode graphs, and picking them --------===//
//
// A static-graph deployment may compile its decode step at several batch
// sizes (--batch 1,8,64); each step then runs the smallest graph that holds
// the slots decoding (Sim/Serving, CostTable::graphSlots), so a lightly
// loaded deployment does not pay for every slot at every step. --batch
// auto compiles a ladder of them and serves the load with each candidate
// set, keeping the one that serves the most requests per second within
// the SLOs (docs/Serving.md, "Static graphs").
//
//===----------------------------------------------------------------------===//

#include "Phases.h"

#include "snapflow/Driver/Errors.h"

#include "snapflow/Sim/Serving/Cluster.h"

#include <algorithm>

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::driver::phases;
using namespace snapflow::sim::serving;

std::vector<int64_t> phases::graphSizes(const BatchSet &batches,
                                        int64_t slots) {
  std::vector<int64_t> sizes;
  if (batches.autoPick) {
    for (int64_t b = 1; b < slots; b *= 2)
      sizes.push_back(b);
    sizes.push_back(slots);
    return sizes;
  }
  for (int64_t b : batches.sizes)
    sizes.push_back(b == kBatchMax ? slots : b);
  llvm::sort(sizes);
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

namespace {

constexpr double kGoodputTie = 1e-3;

/// The model's deployment with only the graphs `keep` (indices into its
/// graphs, ascending): slots the largest's, decode steps its.
DeployedModel restrict(const DeployedModel &all,
                       const std::vector<size_t> &keep) {
  DeployedModel d = all;
  CostTable &c = d.costs;
  c.graphSlots.clear();
  c.graphStepS.clear();
  c.graphSwitchS.clear();
  for (size_t g : keep) {
    c.graphSlots.push_back(all.costs.graphSlots[g]);
    c.graphStepS.push_back(all.costs.graphStepS[g]);
    c.graphSwitchS.push_back(all.costs.graphSwitchS[g]);
  }
  d.config.slots = c.graphSlots.back();
  // The KV allocation holds the slots of the largest graph kept.
  d.config.kvAllocatedBytes = all.config.kvAllocatedBytes *
                              double(d.config.slots) / double(all.config.slots);
  c.decodeStepS = c.graphStepS.back();
  if (keep.size() == 1) { // one graph: the plain loop
    c.graphSlots.clear();
    c.graphStepS.clear();
    c.graphSwitchS.clear();
  }
  return d;
}

} // namespace

llvm::Expected<GraphChoice> phases::chooseGraphs(Load &load, Models &models,
                                                 const arch::ArchModel &chip,
                                                 const CacheOptions &cache,
                                                 const ServeOptions &so) {
  GraphChoice choice;
  Prepared &m = *models[0];
  if (!so.batches.autoPick || m.graphSizes.empty())
    return choice;
  const DeployedModel all = m.deployed;
  std::vector<std::vector<size_t>> sets;
  for (size_t top = 0; top < m.graphSizes.size(); ++top) {
    sets.push_back({top});
    if (top > 0) {
      std::vector<size_t> ladder(top + 1);
      for (size_t g = 0; g <= top; ++g)
        ladder[g] = g;
      sets.push_back(std::move(ladder));
    }
  }
  std::vector<DeployedModel> deployed{all};
  auto cluster = clusterOptions(so, chip, models, deployed);
  if (!cluster)
    return cluster.takeError();
  const ServeConfig sends = deployed[0].config; // what crosses the link
  for (const std::vector<size_t> &set : sets) {
    deployed[0] = restrict(all, set);
    deployed[0].config.kvSendBytesPerToken = sends.kvSendBytesPerToken;
    deployed[0].config.kvSendFixedBytes = sends.kvSendFixedBytes;
    SloResult slo;
    auto onFinish = [&](const RequestResult &q) { slo.add(so.slo, q); };
    auto input = admitted(load, models, so);
    if (!input)
      return input.takeError();
    auto r = so.cluster()
                 ? serveCluster(**input, load.served, deployed, cache, *cluster,
                                onFinish)
                 : serveStream(**input, load.served, deployed, cache, onFinish);
    if (!r)
      return r.takeError();
    GraphCandidate c;
    for (size_t g : set)
      c.sizes.push_back(m.graphSizes[g]);
    c.goodputRequestsPerS =
        r->makespanS > 0 ? double(slo.both) / r->makespanS : 0;
    c.sloShare = load.served > 0 ? double(slo.both) / double(load.served) : 0;
    choice.candidates.push_back(std::move(c));
  }
  // The most goodput; goodput within kGoodputTie of the most is a tie (the
  // time the last requests take moves the makespan, and with it goodput,
  // by about that much between sets that serve alike), broken by fewer
  // slots, then fewer graphs.
  double best = 0;
  for (const GraphCandidate &c : choice.candidates)
    best = std::max(best, c.goodputRequestsPerS);
  bool found = false;
  for (size_t k = 0; k < choice.candidates.size(); ++k) {
    const GraphCandidate &c = choice.candidates[k];
    if (c.goodputRequestsPerS < best * (1 - kGoodputTie))
      continue;
    const GraphCandidate &p = choice.candidates[choice.picked];
    if (!found || std::make_pair(c.sizes.back(), c.sizes.size()) <
                      std::make_pair(p.sizes.back(), p.sizes.size()))
      choice.picked = k;
    found = true;
  }
  DeployedModel kept = restrict(all, sets[choice.picked]);
  m.deployed = kept;
  m.graphSizes = choice.candidates[choice.picked].sizes;
  if (m.graphSizes.size() < 2)
    m.graphSizes.clear();
  return choice;
}

llvm::json::Value phases::graphsJson(const ServeOutcome &out,
                                     const ServeResult &r) {
  if (out.graphSizes.empty() && out.graphCandidates.empty())
    return nullptr;
  llvm::json::Array candidates;
  for (const GraphCandidate &c : out.graphCandidates)
    candidates.push_back(
        llvm::json::Object{{"slots", llvm::json::Array(c.sizes)},
                           {"goodput_requests_per_s", c.goodputRequestsPerS},
                           {"slo_attainment", c.sloShare}});
  // --batch auto may pick one graph: the plain loop's.
  const bool one = out.graphSizes.empty();
  return llvm::json::Object{
      {"slots",
       one ? llvm::json::Array{out.slots} : llvm::json::Array(out.graphSizes)},
      {"switch_s",
       one ? llvm::json::Array{0.0} : llvm::json::Array(out.graphSwitchS)},
      {"decode_steps", one ? llvm::json::Array{r.decodeSteps}
                           : llvm::json::Array(r.graphSteps)},
      {"switches", r.graphSwitches},
      {"switching_s", r.graphSwitchS},
      {"picked_by", out.graphPicked >= 0 ? "auto" : "given"},
      {"candidates", std::move(candidates)},
  };
}
