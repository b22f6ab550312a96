//===- SectionController.cpp - Sections, kernel loops, steps --------------===//

#include "snapflow/Sim/Components/SectionController.h"

#include "snapflow/Sim/Components/Collective.h"
#include "snapflow/Sim/Components/DmaEngine.h"
#include "snapflow/Sim/Components/MemoryTier.h"
#include "snapflow/Sim/Components/Network.h"
#include "snapflow/Sim/Components/PcuStage.h"

#include <cassert>
#include <climits>
#include <cmath>

using namespace snapflow;
using namespace snapflow::sim;

const ComponentInfo &SectionController::info() {
  static const ParamInfo params[] = {
      {"reconfiguration", "cycles", "socket.reconfig_cycles",
       "loading a section other than the one that just ran"},
      {"period", "ps", "socket.clock_hz", "one clock cycle"},
  };
  static const StatInfo stats[] = {
      {"reconfigurations", "sections", "sections loaded"},
      {"iterations_simulated", "iterations", "loop iterations simulated"},
      {"iterations_accounted", "iterations",
       "identical loop iterations fast-forwarded"},
  };
  static const ComponentInfo info{
      "section controller",
      "loads sections, runs kernel loops and steps, fast-forwards steady "
      "repetitions",
      params, stats};
  return info;
}

SectionController::SectionController(const std::vector<Job> &jobs,
                                     const arch::ArchModel &chip,
                                     const SimOptions &options,
                                     std::vector<Socket> &sockets,
                                     SimResult &result)
    : jobs(jobs), chip(chip), options(options), sockets(sockets),
      result(result), periodPs(1e12 / chip.socket().clockHz) {
  tracing = options.trace;
  for (const Job &j : jobs) {
    occupancyOf.push_back(j.program ? occupancy(*j.program)
                                    : std::vector<std::array<double, 4>>());
    carriedOf.push_back(j.program ? occupancy(*j.program, /*carried=*/true)
                                  : std::vector<std::array<double, 4>>());
  }
}

SectionController::Totals
SectionController::Totals::operator-(const Totals &o) const {
  Totals d;
  d.pcuBusyPs = pcuBusyPs - o.pcuBusyPs;
  d.flops = flops - o.flops;
  d.linkBusyPs = linkBusyPs - o.linkBusyPs;
  d.linkBytes = linkBytes - o.linkBytes;
  d.tiles = tiles - o.tiles;
  for (int t = 0; t < 3; ++t) {
    d.tierBusyPs[t] = tierBusyPs[t] - o.tierBusyPs[t];
    d.tierBytes[t] = tierBytes[t] - o.tierBytes[t];
  }
  return d;
}

SectionController::Totals SectionController::totals() const {
  Totals t;
  for (const Socket &s : sockets) {
    t.pcuBusyPs += s.pcus->stats[PcuStage::BusyPcuPs];
    t.flops += s.pcus->stats[PcuStage::Flops];
    t.linkBusyPs += s.collectives->stats[CollectiveUnit::LinkBusyPs];
    t.linkBytes += s.collectives->stats[CollectiveUnit::LinkBytes];
    t.tiles += s.network->stats[OnChipNetwork::Tiles];
    for (int k = 0; k < 3; ++k) {
      t.tierBusyPs[k] += s.tiers[k]->stats[MemoryTierServer::BusyPs];
      t.tierBytes[k] += s.tiers[k]->stats[MemoryTierServer::Bytes];
    }
  }
  return t;
}

void SectionController::repeat(
    int64_t count, llvm::function_ref<double()> once,
    llvm::function_ref<void(double t, double rest)> accounted) {
  double previous = -1;
  for (int64_t i = 0; i < count; ++i) {
    std::vector<StatsSnapshot> before;
    for (Socket &s : sockets)
      before.push_back(snapshot(s));
    double t = once();
    // A background copy would run alone through a skipped span.
    bool steady = options.fastForward && !copying && previous >= 0 &&
                  std::fabs(t - previous) <= 1e-9 * t;
    previous = t;
    if (!steady || i + 1 >= count)
      continue;
    double rest = double(count - i - 1);
    waitFor(t * rest);
    for (size_t k = 0; k < sockets.size(); ++k) {
      std::vector<Stats *> blocks = sockets[k].stats();
      for (size_t b = 0; b < blocks.size(); ++b) {
        std::vector<double> delta(blocks[b]->getValues().begin(),
                                  blocks[b]->getValues().end());
        for (size_t v = 0; v < delta.size(); ++v)
          delta[v] -= before[k][b][v];
        blocks[b]->accumulate(delta, rest);
      }
    }
    accounted(t, rest);
    return;
  }
}

std::vector<std::array<double, 4>>
SectionController::occupancy(const Program &p, bool carried) {
  // Off-chip tensors (weights, the KV cache, homes) stay allocated for the
  // whole run; an SRAM tensor only from the first section that loads or
  // stores it to the last, as plan-memory places on-chip activations by
  // their live ranges. Stream buffers count while their section runs; once
  // it ends (during the next one's reconfiguration) only the SRAM tensors
  // a later section uses remain.
  std::vector<std::pair<int, int>> live(p.tensors.size(), {INT_MAX, -1});
  for (size_t i = 0; i < p.sections.size(); ++i)
    for (const Node &n : p.sections[i].nodes)
      if (n.tensor >= 0) {
        auto &range = live[n.tensor];
        range.first = std::min(range.first, static_cast<int>(i));
        range.second = std::max(range.second, static_cast<int>(i));
      }
  std::vector<std::array<double, 4>> out(p.sections.size());
  for (size_t i = 0; i < p.sections.size(); ++i) {
    std::array<double, 4> &v = out[i];
    int here = static_cast<int>(i);
    for (size_t k = 0; k < p.tensors.size(); ++k) {
      const Tensor &t = p.tensors[k];
      if (t.tier == arch::MemoryTier::SRAM &&
          (here < live[k].first || here > live[k].second ||
           (carried && here == live[k].second)))
        continue;
      v[static_cast<int>(t.tier)] += double(t.bytes);
      if (t.isKV)
        v[3] += double(t.bytes);
    }
    if (!carried)
      for (const Stream &st : p.sections[i].streams)
        v[0] += double(st.depth * st.tileBytes);
  }
  return out;
}

void SectionController::sample(const std::array<double, 4> &bytes) {
  if (!tracing)
    return;
  auto now = static_cast<int64_t>(nowPs());
  if (lastSample < result.trace.size()) {
    TraceEvent &last = result.trace[lastSample];
    if (last.values == bytes)
      return;
    if (last.startPs == now) {
      last.values = bytes;
      return;
    }
  }
  if (samples >= kMaxMemorySamples)
    return;
  TraceEvent e;
  e.kind = TraceEvent::Counter;
  e.startPs = e.endPs = now;
  e.values = bytes;
  lastSample = result.trace.size();
  ++samples;
  result.trace.push_back(e);
}

void SectionController::repeatSamples(size_t from, int64_t stepPs,
                                      int64_t times) {
  std::vector<TraceEvent> step;
  for (size_t k = from; k < result.trace.size(); ++k)
    if (result.trace[k].kind == TraceEvent::Counter)
      step.push_back(result.trace[k]);
  int64_t done = 0;
  for (; done < times && !step.empty() &&
         samples + step.size() <= kMaxMemorySamples;
       ++done)
    for (TraceEvent e : step) {
      e.startPs = e.endPs = e.startPs + stepPs * (done + 1);
      lastSample = result.trace.size();
      ++samples;
      result.trace.push_back(e);
    }
  result.stepsUnsampled += times - done;
}

static void addBreakdown(Breakdown &into, const Breakdown &b, double times) {
  into.computePs += b.computePs * times;
  into.memoryPs += b.memoryPs * times;
  into.networkPs += b.networkPs * times;
  into.collectivePs += b.collectivePs * times;
  into.reconfigPs += b.reconfigPs * times;
}

double SectionController::runIteration(int j, int i, Breakdown &bd,
                                       int64_t iterations,
                                       int64_t firstIteration) {
  double t0 = nowPs();
  for (Socket &s : sockets) {
    SectionRun &r = *s.runs[j][i];
    for (auto &st : r.streams)
      st->reset();
    for (NodeRun &nr : r.nodes) {
      nr = NodeRun();
      nr.path.at = t0; // every path starts with the section
    }
    r.doneCount = 0;
    r.iterations = iterations;
    r.running = true;
    for (auto &start : r.starts)
      start->notify(sc_core::SC_ZERO_TIME);
  }
  for (Socket &s : sockets) {
    // Another socket may have finished while we waited for this one.
    SectionRun &r = *s.runs[j][i];
    while (r.doneCount < static_cast<int>(r.section->nodes.size()))
      sc_core::wait(r.done);
    r.running = false;
  }
  double elapsed = nowPs() - t0;
  stats[IterationsSimulated] += double(iterations);
  // Attribute the iteration along its critical path: the chain of waits
  // that ends at the node finishing last (each node's path follows the
  // producer, consumer or carry that held it up; TileStream.h), so the
  // parts add up to the elapsed time.
  SectionRun &r = *sockets[0].runs[j][i];
  const PathStamp *last = nullptr;
  for (const NodeRun &nr : r.nodes)
    if (!last || nr.path.at > last->at)
      last = &nr.path;
  std::array<double, kNumPathParts> parts{};
  if (last)
    parts = last->parts;
  double onPath = 0;
  for (double p : parts)
    onPath += p;
  // A socket other than 0 finishing later (with --all-sockets) or a node
  // ending on a zero-time step leaves a remainder; it is the collective
  // rendezvous or nothing.
  parts[static_cast<int>(PathPart::Collective)] +=
      std::max(0.0, elapsed - onPath);
  bd.computePs += parts[static_cast<int>(PathPart::Compute)];
  bd.memoryPs += parts[static_cast<int>(PathPart::Memory)];
  bd.networkPs += parts[static_cast<int>(PathPart::Network)];
  bd.collectivePs += parts[static_cast<int>(PathPart::Collective)];
  if (tracing) {
    const Section &sec = *r.section;
    TraceEvent s;
    s.kind = TraceEvent::Section;
    s.program = jobs[j].program;
    s.job = j;
    s.section = i;
    s.index = firstIteration;
    s.count = iterations;
    s.chunk = chunk;
    s.startPs = static_cast<int64_t>(t0);
    s.endPs = static_cast<int64_t>(nowPs());
    result.trace.push_back(s);
    const std::vector<CollectiveRecord> &collectives =
        sockets[0].collectives->records();
    for (size_t k = 0; k < sec.nodes.size(); ++k) {
      const NodeRun &nr = r.nodes[k];
      if (nr.firstPs < 0)
        continue;
      TraceEvent n = s;
      n.kind = TraceEvent::Node;
      n.node = static_cast<int>(k);
      n.startPs = static_cast<int64_t>(nr.firstPs);
      n.endPs = std::max(n.startPs, static_cast<int64_t>(nr.lastPs));
      if (sec.nodes[k].kind == NodeKind::Collective)
        for (const CollectiveRecord &c : collectives)
          if (c.job == j && c.section == i && c.node == n.node) {
            n.algorithm = c.algorithm;
            n.values[0] = c.bytes;
          }
      result.trace.push_back(n);
    }
  }
  return elapsed;
}

double SectionController::runStep(int j, JobResult &jr, Breakdown &bd) {
  const Program &p = *jobs[j].program;
  double t0 = nowPs();
  // A chunked prefill runs its sections once per chunk: one step is the
  // whole prompt. The what-if without the selection runs the last chunk
  // alone, as if the chunk before had just run (its last section loaded).
  bool selection = !jobs[j].withoutSelection;
  int64_t first = 0;
  if (!selection) {
    first = p.chunks - 1;
    lastSection = p.chunks > 1 ? &p.sections.back() : nullptr;
  }
  jr.chunkPs.clear();
  for (int64_t chunk = first; chunk < p.chunks; ++chunk) {
    if (p.chunks > 1 || !selection)
      for (Socket &s : sockets)
        for (auto &run : s.runs[j])
          run->setChunk(chunk, selection);
    double c0 = nowPs();
    this->chunk = chunk;
    runChunk(j, jr, bd);
    jr.chunkPs.push_back(nowPs() - c0);
  }
  return nowPs() - t0;
}

void SectionController::runChunk(int j, JobResult &jr, Breakdown &bd) {
  const Program &p = *jobs[j].program;
  for (size_t i = 0; i < p.sections.size(); ++i) {
    const Section &sec = p.sections[i];
    // A new configuration is loaded unless the same one just ran.
    if (lastSection != &sec) {
      double reconfig = chip.socket().reconfigCycles * periodPs;
      waitFor(reconfig);
      bd.reconfigPs += reconfig;
      stats[Reconfigurations] += 1;
      lastSection = &sec;
    }
    const std::array<double, 4> &occ = occupancyOf[j][i];
    for (int t = 0; t < 3; ++t)
      result.peakBytes[t] = std::max(result.peakBytes[t], occ[t]);
    sample(occ);
    Breakdown iterBd;
    if (sec.pipelined && sec.repeat > 1) {
      // A pipelined loop: every iteration runs, overlapping the next.
      runIteration(j, static_cast<int>(i), bd, sec.repeat);
      jr.iterationsSimulated += sec.repeat;
      sample(carriedOf[j][i]);
      continue;
    }
    int64_t iteration = 0;
    repeat(
        sec.repeat,
        [&] {
          iterBd = Breakdown();
          double t =
              runIteration(j, static_cast<int>(i), iterBd, 1, iteration++);
          addBreakdown(bd, iterBd, 1.0);
          ++jr.iterationsSimulated;
          return t;
        },
        [&](double t, double rest) {
          addBreakdown(bd, iterBd, rest);
          jr.iterationsFastForwarded += static_cast<int64_t>(rest);
          stats[IterationsAccounted] += rest;
          if (tracing) {
            TraceEvent e;
            e.kind = TraceEvent::IterationsAccounted;
            e.program = jobs[j].program;
            e.job = j;
            e.section = static_cast<int>(i);
            e.index = iteration;
            e.count = static_cast<int64_t>(rest);
            e.chunk = chunk;
            e.endPs = static_cast<int64_t>(nowPs());
            e.startPs = e.endPs - static_cast<int64_t>(t) * e.count;
            result.trace.push_back(e);
          }
        });
    sample(carriedOf[j][i]);
  }
}

void SectionController::run() {
  sc_core::wait(sc_core::SC_ZERO_TIME); // let every node reach its wait
  double n = double(sockets.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    assert((!whatIf || jobs[j].withoutSelection) &&
           "what-if jobs run after every other job");
    if (jobs[j].withoutSelection && !whatIf) {
      whatIf = true;
      whatIfStartPs = nowPs();
      whatIfStart = totals();
      tracing = false;
    }
    const Job &job = jobs[j];
    if (job.copy)
      startCopies(*job.copy, /*background=*/job.program != nullptr);
    if (!job.program) {
      result.jobs.push_back(runCopyAlone());
      continue;
    }
    JobResult jr;
    jr.phase = jobs[j].program->phase;
    size_t stepEvents = result.trace.size(); // the last simulated step's
    jr.withoutSelection = jobs[j].withoutSelection;
    jr.steps = jobs[j].steps;
    Totals jobStart = totals();
    double jobT0 = nowPs();
    repeat(
        jobs[j].steps,
        [&] {
          Totals before = totals();
          double copied = sockets[0].copy->moved;
          Breakdown bd;
          stepEvents = result.trace.size();
          double s0 = nowPs();
          double t = runStep(static_cast<int>(j), jr, bd);
          if (tracing) {
            TraceEvent e;
            e.kind = TraceEvent::Step;
            e.program = job.program;
            e.job = static_cast<int>(j);
            e.index = jr.stepsSimulated;
            e.count = 1;
            e.startPs = static_cast<int64_t>(s0);
            e.endPs = static_cast<int64_t>(nowPs());
            result.trace.push_back(e);
          }
          jr.copyBytes = sockets[0].copy->moved - copied;
          Totals delta = totals() - before;
          ++jr.stepsSimulated;
          jr.stepPs = t;
          jr.breakdown = bd;
          jr.totalPs += t;
          jr.flops = delta.flops / n;
          for (int k = 0; k < 3; ++k)
            jr.bytes[k] = delta.tierBytes[k] / n;
          jr.linkBytes = delta.linkBytes / n;
          return t;
        },
        [&](double t, double rest) {
          jr.totalPs += t * rest;
          if (!tracing)
            return;
          // Accounted steps repeat the last one exactly: so do their
          // memory samples, as many as fit.
          auto stepPs = static_cast<int64_t>(t);
          auto times = static_cast<int64_t>(rest);
          repeatSamples(stepEvents, stepPs, times);
          TraceEvent e;
          e.kind = TraceEvent::StepsAccounted;
          e.program = job.program;
          e.job = static_cast<int>(j);
          e.index = jr.stepsSimulated;
          e.count = times;
          e.endPs = static_cast<int64_t>(nowPs());
          e.startPs = e.endPs - stepPs * times;
          result.trace.push_back(e);
        });
    // Utilization of this job alone: a run's prefill does not blur its
    // decode figures.
    setUtilization(jr, totals() - jobStart, nowPs() - jobT0);
    result.jobs.push_back(jr);
    if (job.copy)
      stopCopies();
  }
  finished = true;
}

void SectionController::startCopies(const Copy &copy, bool background) {
  for (Socket &s : sockets) {
    CopyRun &c = *s.copy;
    c.bytes = copy.bytes;
    c.from = copy.from;
    c.to = copy.to;
    c.background = background;
    c.stop = false;
    c.running = true;
    c.moved = 0;
    c.start.notify(sc_core::SC_ZERO_TIME);
  }
  copying = background;
  // Let the copy processes take their start before any node does.
  sc_core::wait(sc_core::SC_ZERO_TIME);
}

void SectionController::stopCopies() {
  for (Socket &s : sockets)
    s.copy->stop = true;
  for (Socket &s : sockets)
    while (s.copy->running)
      sc_core::wait(s.copy->done);
  copying = false;
}

JobResult SectionController::runCopyAlone() {
  JobResult jr;
  jr.phase = "copy";
  jr.steps = jr.stepsSimulated = 1;
  Totals start = totals();
  double t0 = nowPs();
  for (Socket &s : sockets)
    while (s.copy->running)
      sc_core::wait(s.copy->done);
  double span = nowPs() - t0;
  jr.stepPs = jr.totalPs = span;
  jr.copyBytes = sockets[0].copy->moved;
  if (tracing) {
    TraceEvent e;
    e.kind = TraceEvent::Copy;
    e.job = static_cast<int>(result.jobs.size());
    e.startPs = static_cast<int64_t>(t0);
    e.endPs = static_cast<int64_t>(nowPs());
    e.values[0] = jr.copyBytes;
    result.trace.push_back(e);
  }
  jr.breakdown.memoryPs = span;
  Totals d = totals() - start;
  for (int k = 0; k < 3; ++k)
    jr.bytes[k] = d.tierBytes[k] / double(sockets.size());
  setUtilization(jr, d, span);
  return jr;
}

void SectionController::setUtilization(JobResult &jr, const Totals &d,
                                       double spanPs) const {
  double n = double(sockets.size());
  double span = std::max(1.0, spanPs);
  jr.pcuUtilization = d.pcuBusyPs / n / (span * double(chip.socket().pcuCount));
  auto tier = [&](arch::MemoryTier t) {
    int k = static_cast<int>(t);
    return d.tierBusyPs[k] / n /
           (span * double(sockets[0].tiers[k]->getChannels()));
  };
  jr.hbmUtilization = tier(arch::MemoryTier::HBM);
  jr.ddrUtilization = tier(arch::MemoryTier::DDR);
  jr.linkUtilization = d.linkBusyPs / n / span;
}

double SectionController::realEndPs() const {
  return whatIf ? whatIfStartPs : nowPs();
}

SectionController::Totals SectionController::realTotals() const {
  return whatIf ? whatIfStart : totals();
}
