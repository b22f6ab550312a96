//===- Costs.cpp - The step costs, measured in one SystemC run ------------===//
//
// The third phase of a serving run (Phases.h): one SystemC run times every
// graph of every model (a prefill once, a decode two steps so the second is
// steady state). With a model cache that switches, every graph runs again
// beside a switch (the copy contends for the tiers) and each model's switch
// alone. The serving loop replays these costs.
//
//===----------------------------------------------------------------------===//

#include "Phases.h"

#include "snapflow/Driver/Errors.h"
#include "snapflow/Sim/Engine/Simulator.h"
#include "snapflow/Sim/Stats/Energy.h"

#include <chrono>

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::driver::phases;
using namespace snapflow::sim::serving;

namespace {

/// The jobs of the run and where each group starts.
struct CostJobs {
  std::vector<sim::Job> jobs;
  size_t contendedBase = 0, switchBase = 0, prefixBase = 0, profileBase = 0;
  size_t graphBase = 0, probeBase = 0;
};

/// A model's static graph `g` at its full-context bucket.
const sim::Program &fullOf(const Prepared &m, size_t g) {
  return g + 1 == m.graphSizes.size()
             ? m.full()
             : m.graphProgram(g, m.buckets.decode.size() - 1);
}

/// The bytes a prefix cache's tier move is timed on: 64 blocks, a prompt
/// of 32K tokens in 512-token blocks (the time of a move scales with its
/// bytes at the rate measured).
constexpr int64_t kPrefixMoveBlocks = 64;

/// KV bytes per cached token per socket: the full-context graph's KV
/// allocation over its slots' tokens.
double kvBytesPerToken(const Prepared &m) {
  return double(m.full().kvBytes) /
         double(m.cfg().slots * m.cfg().kvTokensPerSlot);
}

/// A prefix block's KV per socket.
double prefixBlockBytes(const Prepared &m) {
  return kvBytesPerToken(m) * double(m.prefixBlockTokens);
}

CostJobs costJobs(const Models &models, bool switching) {
  CostJobs out;
  int64_t largestWeights = 0;
  for (const auto &m : models)
    largestWeights = std::max(largestWeights, m->full().weightBytes);
  for (const auto &m : models)
    for (size_t i = 0; i < m->programs.size(); ++i)
      out.jobs.push_back({&m->programs[i], m->shapes[i].first ? 1 : 2});
  out.contendedBase = out.jobs.size();
  if (switching)
    for (const auto &m : models)
      for (size_t i = 0; i < m->programs.size(); ++i) {
        sim::Job j(&m->programs[i], m->shapes[i].first ? 1 : 2);
        j.copy = sim::Copy{std::max<int64_t>(1, largestWeights),
                           arch::MemoryTier::DDR, arch::MemoryTier::HBM};
        out.jobs.push_back(j);
      }
  out.switchBase = out.jobs.size();
  if (switching)
    for (const auto &m : models) {
      sim::Job j;
      j.copy = sim::Copy{m->full().weightBytes, arch::MemoryTier::DDR,
                         arch::MemoryTier::HBM};
      out.jobs.push_back(j);
    }
  // The prefills' cost profiles (prefix caching, prefill-first).
  out.profileBase = out.jobs.size();
  for (const auto &m : models)
    for (const sim::Program &p : m->profiles)
      out.jobs.push_back({&p, 1});
  // Each prefix cache's moves, DDR to HBM and back, each alone.
  out.prefixBase = out.jobs.size();
  for (const auto &m : models)
    if (m->prefixBlockTokens > 0) {
      int64_t bytes = std::max<int64_t>(
          1, static_cast<int64_t>(kPrefixMoveBlocks * prefixBlockBytes(*m)));
      sim::Job up, down;
      up.copy = sim::Copy{bytes, arch::MemoryTier::DDR, arch::MemoryTier::HBM};
      down.copy =
          sim::Copy{bytes, arch::MemoryTier::HBM, arch::MemoryTier::DDR};
      out.jobs.push_back(up);
      out.jobs.push_back(down);
    }
  // Several static graphs: the smaller ones' decode steps; then each
  // graph's step run right after another graph's (at the full context),
  // the switch between them.
  out.graphBase = out.jobs.size();
  for (const auto &m : models)
    for (const sim::Program &p : m->graphPrograms)
      out.jobs.push_back({&p, 2});
  out.probeBase = out.jobs.size();
  for (const auto &m : models)
    for (size_t g = 0; g < m->graphSizes.size(); ++g) {
      size_t other = g + 1 < m->graphSizes.size() ? g + 1 : g - 1;
      out.jobs.push_back({&fullOf(*m, other), 1});
      out.jobs.push_back({&fullOf(*m, g), 1});
    }
  return out;
}

/// Adds shape `i` of `m`, timed by `jr`, to `costs`; with a switch beside
/// it, the bytes per second the copy moved.
/// The node's dynamic power while `jr`'s step runs: its sockets' charged
/// actions over the step's time (docs/Energy.md).
double dynamicW(const sim::JobResult &jr) {
  int64_t tp = jr.program ? jr.program->tp : 1;
  return jr.stepPs > 0
             ? sim::stepEnergy(jr).total() * double(tp) / jr.stepPs // pJ/ps
             : 0;
}

void fill(const Prepared &m, CostTable &costs, const sim::JobResult &jr,
          size_t i, std::vector<double> *prefillBps,
          std::vector<double> *decodeBps) {
  double seconds = jr.stepPs * 1e-12;
  double bps = jr.stepPs > 0 ? jr.copyBytes / (jr.stepPs * 1e-12) : 0;
  if (m.shapes[i].first) {
    costs.prefillBuckets.push_back(m.shapes[i].second);
    costs.prefillS.push_back(seconds);
    costs.prefillW.push_back(dynamicW(jr));
    std::vector<double> chunks;
    for (double ps : jr.chunkPs)
      chunks.push_back(ps * 1e-12);
    costs.prefillChunkS.push_back(std::move(chunks));
    if (prefillBps)
      prefillBps->push_back(bps);
  } else {
    costs.decodeBuckets.push_back(m.shapes[i].second);
    costs.decodeStepS.push_back(seconds);
    costs.decodeW.push_back(dynamicW(jr));
    if (decodeBps)
      decodeBps->push_back(bps);
  }
}

/// Several static graphs: each one's step per decode bucket, and what a
/// step after another graph adds (never below 0: a section the other
/// graph left loaded may even save a load).
void fillGraphs(Models &models, const sim::SimResult &sim, const CostJobs &cj) {
  size_t job = cj.graphBase, probe = cj.probeBase;
  for (auto &mp : models) {
    Prepared &m = *mp;
    if (m.graphSizes.empty())
      continue;
    CostTable &costs = m.deployed.costs;
    costs.graphSlots = m.graphSizes;
    costs.graphStepS.clear();
    costs.graphW.clear();
    size_t buckets = m.buckets.decode.size();
    for (size_t g = 0; g + 1 < m.graphSizes.size(); ++g) {
      std::vector<double> steps, watts;
      for (size_t b = 0; b < buckets; ++b) {
        watts.push_back(dynamicW(sim.jobs[job]));
        steps.push_back(sim.jobs[job++].stepPs * 1e-12);
      }
      costs.graphStepS.push_back(std::move(steps));
      costs.graphW.push_back(std::move(watts));
    }
    costs.graphStepS.push_back(costs.decodeStepS);
    costs.graphW.push_back(costs.decodeW);
    costs.graphSwitchS.clear();
    for (size_t g = 0; g < m.graphSizes.size(); ++g) {
      ++probe; // the other graph's step
      double after = sim.jobs[probe++].stepPs * 1e-12;
      costs.graphSwitchS.push_back(
          std::max(0.0, after - costs.graphStepS[g].back()));
    }
  }
}

} // namespace

llvm::Expected<double> phases::measureCosts(Models &models,
                                            const arch::ArchModel &chip,
                                            const SimulateOptions &s,
                                            const CacheOptions &cache,
                                            Schedule schedule) {
  const bool switching = cache.policy != CachePolicy::Static;
  CostJobs cj = costJobs(models, switching);
  sim::SimOptions simOptions;
  simOptions.fastForward = s.fastForward;
  simOptions.allSockets = s.allSockets;
  simOptions.trace = false;
  auto start = std::chrono::steady_clock::now();
  sim::SimResult sim = sim::simulate(cj.jobs, chip, simOptions);
  double simS =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!sim.failure.empty())
    return llvm::make_error<ProgramFailure>("serving step costs: " +
                                            sim.failure);
  size_t job = 0, contendedJob = cj.contendedBase, switchJob = cj.switchBase,
         prefixJob = cj.prefixBase, profileJob = cj.profileBase;
  for (auto &mp : models) {
    Prepared &m = *mp;
    DeployedModel &d = m.deployed;
    for (size_t i = 0; i < m.programs.size(); ++i)
      fill(m, d.costs, sim.jobs[job++], i, nullptr, nullptr);
    if (switching) {
      for (size_t i = 0; i < m.programs.size(); ++i)
        fill(m, d.contended, sim.jobs[contendedJob++], i, &d.prefillCopyBps,
             &d.decodeCopyBps);
      // The copy runs on each socket of the model's TP group.
      const sim::JobResult &copy = sim.jobs[switchJob++];
      d.switchS = copy.stepPs * 1e-12;
      d.switchJ = sim::stepEnergy(copy).total() * 1e-12 * double(m.full().tp);
    }
    const sim::Program &full = m.full();
    m.cfg().idleW = sim::idlePowerW(chip);
    m.cfg().wallPowerFactor = chip.system().wallPowerFactor;
    m.cfg().kvAllocatedBytes = double(full.kvBytes);
    // With MTP every decode graph verifies the same draft depth: its
    // expected accepted tokens per sequence and step.
    m.cfg().tokensPerStep = full.tokensPerStep;
    m.cfg().schedule = schedule;
    m.cfg().kvBytesPerToken = kvBytesPerToken(m);
    m.cfg().weightBytes = double(full.weightBytes);
    // The chunk sizes the prefill graphs and their profiles were built in.
    if (m.prefillChunk != kPrefillChunkAuto)
      d.costs.prefillChunkTokens = m.prefillChunk;
    if (!m.profiles.empty())
      d.costs.prefillProfileTokens =
          std::max(kScheduleChunk, m.prefixBlockTokens);
    for (size_t i = 0; i < m.profiles.size(); ++i) {
      std::vector<double> chunks;
      for (double ps : sim.jobs[profileJob++].chunkPs)
        chunks.push_back(ps * 1e-12);
      d.costs.prefillProfileS.push_back(std::move(chunks));
    }
    if (m.prefixBlockTokens > 0) {
      // The tiers hold what the plan leaves free of HBM and DDR.
      PrefixOptions &p = d.prefix;
      p.blockBytes = prefixBlockBytes(m);
      double hbmFree =
          double(chip.tierBytesPerSocket(arch::MemoryTier::HBM)) - d.hbmBytes;
      double ddrFree =
          double(chip.tierBytesPerSocket(arch::MemoryTier::DDR)) - m.ddrBytes;
      p.hbmBlocks =
          p.blockBytes > 0
              ? static_cast<int64_t>(std::max(0.0, hbmFree) / p.blockBytes)
              : 0;
      p.ddrBlocks =
          m.prefixDdr && p.blockBytes > 0
              ? static_cast<int64_t>(std::max(0.0, ddrFree) / p.blockBytes)
              : 0;
      for (double *bps : {&p.promoteBps, &p.demoteBps}) {
        const sim::JobResult &jr = sim.jobs[prefixJob++];
        *bps = jr.stepPs > 0 ? jr.copyBytes / (jr.stepPs * 1e-12) : 0;
      }
    }
  }
  fillGraphs(models, sim, cj);
  return simS;
}
