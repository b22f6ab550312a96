//===- SectionController.cpp - Sections, kernel loops, steps --------------===//

#include "snapflow/Sim/Engine/SectionController.h"

#include "snapflow/Sim/Components/Collective.h"

#include <cassert>
#include <climits>
#include <cmath>

using namespace snapflow;
using namespace snapflow::sim;

const ComponentInfo &SectionController::info() {
  static const ParamInfo params[] = {
      {"reconfiguration", "cycles", "socket.reconfig_cycles",
       "program load: loading a section other than the one that just ran"},
      {"launch", "cycles", "socket.kernel_launch_cycles",
       "argument load and execute of every kernel call"},
      {"period", "ps", "socket.clock_hz", "one clock cycle"},
  };
  static const StatInfo stats[] = {
      {"reconfigurations", "sections", "sections loaded (program loads)"},
      {"calls", "calls",
       "kernel calls (section runs; a pipelined loop is one)"},
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
                                    : std::vector<TierBytes>());
    carriedOf.push_back(j.program ? occupancy(*j.program, /*carried=*/true)
                                  : std::vector<TierBytes>());
  }
}

SectionController::Totals
SectionController::Totals::operator-(const Totals &o) const {
  Totals d;
  for (int r = 0; r < kNumStatRoles; ++r)
    for (int t = 0; t < 3; ++t)
      d.byRole[r][t] = byRole[r][t] - o.byRole[r][t];
  return d;
}

SectionController::Totals SectionController::totals() const {
  Totals t;
  for (const Socket &s : sockets)
    for (const Stats *block : s.stats())
      for (size_t i = 0; i < block->getValues().size(); ++i) {
        StatRole r = block->getInfo().stats[i].role;
        bool byTier = r == StatRole::TierBusy || r == StatRole::TierBytes;
        int tier = byTier && block->getTier()
                       ? static_cast<int>(*block->getTier())
                       : 0;
        int role = static_cast<int>(r);
        t.byRole[role][tier] += (*block)[i];
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

std::vector<TierBytes> SectionController::occupancy(const Program &p,
                                                    bool carried) {
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
  std::vector<TierBytes> out(p.sections.size());
  for (size_t i = 0; i < p.sections.size(); ++i) {
    TierBytes &v = out[i];
    int here = static_cast<int>(i);
    for (size_t k = 0; k < p.tensors.size(); ++k) {
      const Tensor &t = p.tensors[k];
      if (t.tier == arch::MemoryTier::SRAM &&
          (here < live[k].first || here > live[k].second ||
           (carried && here == live[k].second)))
        continue;
      v[t.tier] += double(t.bytes);
      if (t.isKV)
        v.kv += double(t.bytes);
    }
    if (!carried)
      for (const Stream &st : p.sections[i].streams)
        v.sram += double(st.depth * st.tileBytes);
  }
  return out;
}

TraceEvent SectionController::event(TraceEvent::Kind kind, int j) const {
  TraceEvent e;
  e.kind = kind;
  e.program = jobs[j].program;
  e.job = j;
  return e;
}

void SectionController::sample(const TierBytes &bytes) {
  if (!tracing)
    return;
  auto now = static_cast<int64_t>(nowPs());
  if (lastSample < result.trace.size()) {
    TraceEvent &last = result.trace[lastSample];
    if (last.memory == bytes)
      return;
    if (last.startPs == now) {
      last.memory = bytes;
      return;
    }
  }
  if (samples >= kMaxMemorySamples)
    return;
  TraceEvent e;
  e.kind = TraceEvent::Counter;
  e.startPs = e.endPs = now;
  e.memory = bytes;
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

namespace {
/// What a node's own wait of kind `part` held: its PCUs, its tensor's
/// tier, the on-chip network or the peer link.
Resource resourceOf(const Program &p, const Node &n, PathPart part) {
  switch (part) {
  case PathPart::Compute:
    return Resource::PCU;
  case PathPart::Memory: {
    arch::MemoryTier t =
        n.tensor >= 0 ? p.tensors[n.tensor].tier : arch::MemoryTier::HBM;
    return t == arch::MemoryTier::SRAM  ? Resource::SRAM
           : t == arch::MemoryTier::DDR ? Resource::DDR
                                        : Resource::HBM;
  }
  case PathPart::Network:
    return Resource::NoC;
  case PathPart::Collective:
    return Resource::Link;
  }
  return Resource::PCU;
}
} // namespace

void SectionController::chargeLaunch(int j, int i, double ps,
                                     Profile &profile) {
  int k = static_cast<int>(arch::OpKind::KernelLaunch);
  profile.ops[k].criticalPs[static_cast<int>(Resource::Launch)] += ps;
  profile.ops[k].busyPs += ps;
  if (profile.sections.size() < jobs[j].program->sections.size())
    profile.sections.resize(jobs[j].program->sections.size());
  profile.sections[i].criticalPs[k] += ps;
  profile.sections[i].ps += ps;
  if (!tracing || ps <= 0)
    return;
  TraceEvent e = event(TraceEvent::Critical, j);
  e.section = i;
  e.node = -1;
  e.chunk = chunk;
  e.resource = static_cast<int>(Resource::Launch);
  e.criticalPs[static_cast<int>(Resource::Launch)] = ps;
  e.endPs = static_cast<int64_t>(nowPs());
  e.startPs = e.endPs - static_cast<int64_t>(ps);
  result.trace.push_back(e);
}

double SectionController::runIteration(int j, int i, Profile &profile,
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
    r.segments.clear();
    r.doneCount = 0;
    r.completed = 0;
    r.iterations = iterations;
    r.running = true;
    for (auto &start : r.starts)
      start->notify(sc_core::SC_ZERO_TIME);
  }
  // A pipelined loop is watched for its periodic state (SteadyState.h);
  // a background copy would run alone through the periods cut out.
  LoopCut cut;
  if (iterations > 1 && options.fastForward && !copying)
    cut = watchPipelinedLoop(sockets, j, i, iterations);
  for (Socket &s : sockets) {
    // Another socket may have finished while we waited for this one.
    SectionRun &r = *s.runs[j][i];
    while (r.doneCount < static_cast<int>(r.section->nodes.size()))
      sc_core::wait(r.done);
    r.running = false;
  }
  double elapsed = nowPs() - t0;
  lastSkipped = cut.skipped;
  stats[IterationsSimulated] += double(iterations - cut.skipped);
  SectionRun &r = *sockets[0].runs[j][i];
  // The periods cut out did the measured period's work, node by node.
  for (size_t k = 0; cut.skipped > 0 && k < r.nodes.size(); ++k) {
    NodeRun &nr = r.nodes[k];
    const NodeRun &d = cut.nodeDelta[k];
    double times = double(cut.skipped);
    nr.busyPs += d.busyPs * times;
    nr.flops += d.flops * times;
    nr.bytes += d.bytes * times;
    nr.linkBytes += d.linkBytes * times;
    nr.energy.add(d.energy, times);
  }
  attribute(j, i, profile, t0, elapsed, cut, firstIteration, iterations);
  if (cut.skipped > 0) {
    double rest = double(cut.skipped);
    waitFor(cut.periodPs * rest);
    for (size_t k = 0; k < sockets.size(); ++k) {
      std::vector<Stats *> blocks = sockets[k].stats();
      for (size_t b = 0; b < blocks.size(); ++b)
        blocks[b]->accumulate(cut.statsDelta[k][b], rest);
      for (size_t c = 0; c < sockets[k].components.size(); ++c)
        sockets[k].components[c]->addTallies(cut.talliesDelta[k][c], rest);
    }
    accountIterations(j, i, firstIteration + iterations - cut.skipped,
                      cut.periodPs, rest);
  }
  return nowPs() - t0;
}

double SectionController::attribute(int j, int i, Profile &profile, double t0,
                                    double elapsed, const LoopCut &cut,
                                    int64_t firstIteration,
                                    int64_t iterations) {
  // Attribute the run along its critical path: the chain of waits that
  // ends at the node finishing last (each node's path follows the
  // producer, consumer or carry that held it up; TileStream.h), so its
  // spans add up to the elapsed time. Each span is charged to the operator
  // its node works for and the resource it waited on. The periods a cut
  // left out are charged as the measured period's stretch of the path.
  const Program &p = *jobs[j].program;
  SectionRun &r = *sockets[0].runs[j][i];
  const Section &sec = *r.section;
  if (profile.sections.size() < p.sections.size())
    profile.sections.resize(p.sections.size());
  Profile::SectionShare &share = profile.sections[i];
  double extra = cut.periodPs * double(cut.skipped);
  share.ps += elapsed + extra;
  share.calls += 1;
  int last = -1;
  for (size_t k = 0; k < r.nodes.size(); ++k)
    if (last < 0 || r.nodes[k].path.at > r.nodes[last].path.at)
      last = static_cast<int>(k);
  double onPath = 0;
  // The path's spans, last first, merged for the trace where one operator
  // waits several times in a row (on any resources).
  std::vector<PathSpan> spans;
  double cursor = last >= 0 ? r.nodes[last].path.at : t0;
  for (int32_t seg = last >= 0 ? r.nodes[last].path.segment : -1; seg >= 0;
       seg = r.segments[seg].parent) {
    const PathSegment &g = r.segments[seg];
    const Node &n = sec.nodes[g.node];
    Resource res = resourceOf(p, n, g.part);
    int kind = static_cast<int>(n.opKind);
    double ps = g.ps;
    if (cut.skipped > 0) {
      double overlap = std::min(cursor, cut.windowEndPs) -
                       std::max(cursor - g.ps, cut.windowStartPs);
      if (overlap > 0)
        ps += overlap * double(cut.skipped);
    }
    profile.ops[kind].criticalPs[static_cast<int>(res)] += ps;
    share.criticalPs[kind] += ps;
    onPath += ps;
    if (tracing) {
      if (spans.empty() || spans.back().kind != n.opKind)
        spans.push_back({n.opKind, g.node, cursor, 0, {}});
      spans.back().ps += g.ps;
      spans.back().byResource[static_cast<int>(res)] += g.ps;
    }
    cursor -= g.ps;
  }
  // A socket other than 0 finishing later (with --all-sockets) or a node
  // ending on a zero-time step leaves a remainder; it is the collective
  // rendezvous or nothing.
  if (double rest = elapsed + extra - onPath; rest > 0) {
    int kind = last >= 0 ? static_cast<int>(sec.nodes[last].opKind)
                         : static_cast<int>(arch::OpKind::Other);
    profile.ops[kind].criticalPs[static_cast<int>(Resource::Link)] += rest;
    share.criticalPs[kind] += rest;
  }
  // Every node's own work, on the path or not, and the energy its actions
  // were charged.
  double runPj = 0;
  for (size_t k = 0; k < sec.nodes.size(); ++k) {
    const Node &n = sec.nodes[k];
    const NodeRun &nr = r.nodes[k];
    OperatorProfile &op = profile.ops[static_cast<int>(n.opKind)];
    op.busyPs += nr.busyPs;
    op.flops += nr.flops;
    if (n.kind == NodeKind::Stage && n.stageKind != StageKind::Gemm)
      op.simdFlops += nr.flops;
    op.energy.add(nr.energy);
    runPj += nr.energy.total();
    op.linkBytes += nr.linkBytes;
    if (nr.bytes > 0 && n.tensor >= 0)
      op.bytes[static_cast<int>(p.tensors[n.tensor].tier)] += nr.bytes;
  }
  share.energyPj += runPj;
  if (tracing) {
    // The slice spans the simulated iterations: their energy only (the
    // trace's power divides it by the slice's span).
    double simulatedPj = runPj;
    for (const NodeRun &d : cut.nodeDelta)
      simulatedPj -= d.energy.total() * double(cut.skipped);
    traceRun(j, i, t0, firstIteration, iterations - cut.skipped, simulatedPj,
             spans);
  }
  return runPj;
}

void SectionController::traceRun(int j, int i, double t0,
                                 int64_t firstIteration, int64_t iterations,
                                 double runPj,
                                 const std::vector<PathSpan> &spans) {
  const SectionRun &r = *sockets[0].runs[j][i];
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
  s.energyPj = runPj;
  result.trace.push_back(s);
  for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
    TraceEvent c = s;
    c.kind = TraceEvent::Critical;
    c.node = it->node;
    c.criticalPs = it->byResource;
    c.resource = static_cast<int>(
        std::max_element(it->byResource.begin(), it->byResource.end()) -
        it->byResource.begin());
    c.endPs = static_cast<int64_t>(it->endPs);
    c.startPs = static_cast<int64_t>(it->endPs - it->ps);
    result.trace.push_back(c);
  }
  const std::vector<CollectiveRecord> &collectives =
      sockets[0].get<CollectiveUnit>().records();
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
          n.bytes = c.bytes;
        }
    result.trace.push_back(n);
  }
}

double SectionController::runStep(int j, JobResult &jr) {
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
  jr.chunkProfiles.clear();
  jr.profile = Profile();
  jr.profile.sections.resize(p.sections.size());
  for (int64_t chunk = first; chunk < p.chunks; ++chunk) {
    if (p.chunks > 1 || !selection)
      for (Socket &s : sockets)
        for (auto &run : s.runs[j])
          run->setChunk(chunk, selection);
    double c0 = nowPs();
    this->chunk = chunk;
    Profile chunkProfile;
    chunkProfile.sections.resize(p.sections.size());
    runChunk(j, jr, chunkProfile);
    jr.chunkPs.push_back(nowPs() - c0);
    jr.profile.add(chunkProfile);
    jr.chunkProfiles.push_back(std::move(chunkProfile));
  }
  jr.breakdown = jr.profile.breakdown();
  return nowPs() - t0;
}

double SectionController::launch(int j, int i, Profile &profile) {
  const Section &sec = jobs[j].program->sections[i];
  double ps = double(chip.socket().kernelLaunchCycles) * periodPs;
  // Program load: a new configuration, unless the same one just ran.
  if (lastSection != &sec) {
    ps += double(chip.socket().reconfigCycles) * periodPs;
    stats[Reconfigurations] += 1;
    lastSection = &sec;
  }
  stats[Calls] += 1;
  waitFor(ps);
  chargeLaunch(j, i, ps, profile);
  return ps;
}

void SectionController::accountIterations(int j, int i, int64_t index, double t,
                                          double rest) {
  stats[IterationsAccounted] += rest;
  if (!tracing)
    return;
  TraceEvent e = event(TraceEvent::IterationsAccounted, j);
  e.section = i;
  e.index = index;
  e.count = static_cast<int64_t>(rest);
  e.chunk = chunk;
  e.endPs = static_cast<int64_t>(nowPs());
  e.startPs = e.endPs - static_cast<int64_t>(t) * e.count;
  result.trace.push_back(e);
}

void SectionController::loadSample(int j, int i) {
  const TierBytes &occ = occupancyOf[j][i];
  for (arch::MemoryTier t : arch::kAllTiers)
    result.peakBytes[static_cast<int>(t)] =
        std::max(result.peakBytes[static_cast<int>(t)], occ[t]);
  sample(occ);
}

void SectionController::runChunk(int j, JobResult &jr, Profile &profile) {
  const Program &p = *jobs[j].program;
  for (size_t i = 0; i < p.sections.size();) {
    // The kernels of one loop run in turn, iteration by iteration.
    size_t end = i + 1;
    if (!p.sections[i].loop.empty())
      while (end < p.sections.size() &&
             p.sections[end].loop == p.sections[i].loop)
        ++end;
    if (end - i > 1)
      runKernelLoop(j, static_cast<int>(i), static_cast<int>(end), jr, profile);
    else
      runSection(j, static_cast<int>(i), jr, profile);
    i = end;
  }
}

void SectionController::runSection(int j, int i, JobResult &jr,
                                   Profile &profile) {
  const Section &sec = jobs[j].program->sections[i];
  if (sec.pipelined && sec.repeat > 1) {
    // Kernel looping: one call, every iteration running, overlapping the
    // next.
    launch(j, i, profile);
    loadSample(j, i);
    runIteration(j, i, profile, sec.repeat);
    jr.iterationsSimulated += sec.repeat - lastSkipped;
    jr.iterationsFastForwarded += lastSkipped;
    sample(carriedOf[j][i]);
    return;
  }
  // Without it, every iteration is a call of its own: its launch (the
  // program load only before the first), and its pipeline's fill and drain.
  Profile iteration;
  int64_t index = 0;
  repeat(
      sec.repeat,
      [&] {
        iteration = Profile();
        double t0 = nowPs();
        launch(j, i, iteration);
        if (index == 0)
          loadSample(j, i);
        runIteration(j, i, iteration, 1, index++);
        profile.add(iteration);
        ++jr.iterationsSimulated;
        return nowPs() - t0;
      },
      [&](double t, double rest) {
        profile.add(iteration, rest);
        jr.iterationsFastForwarded += static_cast<int64_t>(rest);
        accountIterations(j, i, index, t, rest);
      });
  sample(carriedOf[j][i]);
}

void SectionController::runKernelLoop(int j, int first, int end, JobResult &jr,
                                      Profile &profile) {
  // A loop whose body is several kernels (an MoE layer: the attention and
  // the router, then the experts the router chose): each iteration calls
  // them in turn, each call paying its launch, with its program load (the
  // kernel before it was another), and its fill and drain.
  const Program &p = *jobs[j].program;
  Profile iteration;
  int64_t index = 0;
  repeat(
      p.sections[first].repeat,
      [&] {
        iteration = Profile();
        double t0 = nowPs();
        for (int k = first; k < end; ++k) {
          launch(j, k, iteration);
          loadSample(j, k);
          runIteration(j, k, iteration, 1, index);
          ++jr.iterationsSimulated;
          sample(carriedOf[j][k]);
        }
        ++index;
        profile.add(iteration);
        return nowPs() - t0;
      },
      [&](double t, double rest) {
        profile.add(iteration, rest);
        jr.iterationsFastForwarded +=
            static_cast<int64_t>(rest) * (end - first);
        accountIterations(j, first, index, t, rest);
      });
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
    jr.program = jobs[j].program;
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
          ActionEnergy copyEnergy = sockets[0].copy->energy;
          stepEvents = result.trace.size();
          double s0 = nowPs();
          double t = runStep(static_cast<int>(j), jr);
          if (tracing) {
            TraceEvent e = event(TraceEvent::Step, static_cast<int>(j));
            e.index = jr.stepsSimulated;
            e.count = 1;
            e.startPs = static_cast<int64_t>(s0);
            e.endPs = static_cast<int64_t>(nowPs());
            result.trace.push_back(e);
          }
          jr.copyBytes = sockets[0].copy->moved - copied;
          jr.copyEnergy = sockets[0].copy->energy;
          jr.copyEnergy.add(copyEnergy, -1);
          Totals delta = totals() - before;
          ++jr.stepsSimulated;
          if (options.onStep)
            options.onStep(jr.stepsSimulated, jobs[j].steps);
          jr.stepPs = t;
          jr.totalPs += t;
          jr.flops = delta.get(StatRole::Flops) / n;
          for (arch::MemoryTier k : arch::kAllTiers)
            jr.bytes[static_cast<int>(k)] =
                delta.get(StatRole::TierBytes, k) / n;
          jr.linkBytes = delta.get(StatRole::LinkBytes) / n;
          jr.energyPj = delta.get(StatRole::Energy) / n;
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
          TraceEvent e = event(TraceEvent::StepsAccounted, static_cast<int>(j));
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
    c.energy = {};
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
  jr.steps = jr.stepsSimulated = 1;
  Totals start = totals();
  double t0 = nowPs();
  for (Socket &s : sockets)
    while (s.copy->running)
      sc_core::wait(s.copy->done);
  double span = nowPs() - t0;
  jr.stepPs = jr.totalPs = span;
  jr.copyBytes = sockets[0].copy->moved;
  jr.copyEnergy = sockets[0].copy->energy;
  if (tracing) {
    TraceEvent e;
    e.kind = TraceEvent::Copy;
    e.job = static_cast<int>(result.jobs.size());
    e.startPs = static_cast<int64_t>(t0);
    e.endPs = static_cast<int64_t>(nowPs());
    e.bytes = jr.copyBytes;
    result.trace.push_back(e);
  }
  jr.breakdown.memoryPs = span;
  Totals d = totals() - start;
  for (arch::MemoryTier k : arch::kAllTiers)
    jr.bytes[static_cast<int>(k)] =
        d.get(StatRole::TierBytes, k) / double(sockets.size());
  jr.energyPj = d.get(StatRole::Energy) / double(sockets.size());
  setUtilization(jr, d, span);
  return jr;
}

SectionController::Utilization
SectionController::utilization(const Totals &d, double spanPs) const {
  double n = double(sockets.size());
  double span = std::max(1.0, spanPs);
  auto tier = [&](arch::MemoryTier t) {
    return d.get(StatRole::TierBusy, t) / n /
           (span * double(sockets[0].ports->tier(t).getChannels()));
  };
  Utilization u;
  u.pcu =
      d.get(StatRole::PcuBusy) / n / (span * double(chip.socket().pcuCount));
  u.hbm = tier(arch::MemoryTier::HBM);
  u.ddr = tier(arch::MemoryTier::DDR);
  u.link = d.get(StatRole::LinkBusy) / n / span;
  return u;
}

void SectionController::setUtilization(JobResult &jr, const Totals &d,
                                       double spanPs) const {
  Utilization u = utilization(d, spanPs);
  jr.pcuUtilization = u.pcu;
  jr.hbmUtilization = u.hbm;
  jr.ddrUtilization = u.ddr;
  jr.linkUtilization = u.link;
}

double SectionController::realEndPs() const {
  return whatIf ? whatIfStartPs : nowPs();
}

SectionController::Totals SectionController::realTotals() const {
  return whatIf ? whatIfStart : totals();
}
