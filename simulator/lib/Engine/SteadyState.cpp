//===- SteadyState.cpp - A pipelined loop's periodic state ----------------===//

#include "snapflow/Sim/Engine/SteadyState.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>

using namespace snapflow;
using namespace snapflow::sim;

namespace {

/// The state of the run when `completed` iterations had ended everywhere.
struct Mark {
  int64_t completed = 0;
  double at = 0;
  std::vector<StatsSnapshot> stats; ///< per socket
  std::vector<Tallies> tallies;     ///< per socket
  std::vector<NodeRun> nodes;       ///< socket 0's
};

/// What every component of `s` tallies (Component::tallies).
Tallies talliesOf(const Socket &s) {
  Tallies out;
  for (const std::unique_ptr<Component> &c : s.components)
    out.push_back(c->tallies());
  return out;
}

/// `b - a`, or nothing when the tallies changed shape (a record appeared).
std::optional<Tallies> growth(const Tallies &a, const Tallies &b) {
  if (a.size() != b.size())
    return std::nullopt;
  Tallies d = b;
  for (size_t c = 0; c < a.size(); ++c) {
    if (a[c].size() != b[c].size())
      return std::nullopt;
    for (size_t v = 0; v < a[c].size(); ++v)
      d[c][v] -= a[c][v];
  }
  return d;
}

/// What one node did, as a vector: the work the profile reads.
std::vector<double> workOf(const NodeRun &n) {
  std::vector<double> v = {n.busyPs, n.flops, n.bytes, n.linkBytes};
  v.insert(v.end(), n.energy.pj.begin(), n.energy.pj.end());
  return v;
}

/// Whether two amounts of one period agree: as closely as the loop
/// fast-forward's step times (1e-9), or both within rounding of zero.
bool same(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)) ||
         std::fabs(a - b) < 1e-6;
}

/// Whether the periods from marks[k - 1] to marks[k] all agree with the
/// last one: in length, every socket's every statistic, every node's work.
bool periodic(const std::deque<Mark> &marks) {
  size_t last = marks.size() - 1;
  double period = marks[last].at - marks[last - 1].at;
  if (period <= 0)
    return false;
  for (size_t k = 1; k < last; ++k) {
    const Mark &a0 = marks[k - 1], &a1 = marks[k];
    const Mark &b0 = marks[last - 1], &b1 = marks[last];
    if (!same(a1.at - a0.at, period))
      return false;
    for (size_t s = 0; s < a1.stats.size(); ++s)
      for (size_t b = 0; b < a1.stats[s].size(); ++b)
        for (size_t v = 0; v < a1.stats[s][b].size(); ++v)
          if (!same(a1.stats[s][b][v] - a0.stats[s][b][v],
                    b1.stats[s][b][v] - b0.stats[s][b][v]))
            return false;
    for (size_t s = 0; s < a1.tallies.size(); ++s) {
      std::optional<Tallies> x = growth(a0.tallies[s], a1.tallies[s]);
      std::optional<Tallies> y = growth(b0.tallies[s], b1.tallies[s]);
      if (!x || !y || x->size() != y->size())
        return false;
      for (size_t c = 0; c < x->size(); ++c) {
        if ((*x)[c].size() != (*y)[c].size())
          return false;
        for (size_t v = 0; v < (*x)[c].size(); ++v)
          if (!same((*x)[c][v], (*y)[c][v]))
            return false;
      }
    }
    for (size_t n = 0; n < a1.nodes.size(); ++n) {
      std::vector<double> x0 = workOf(a0.nodes[n]), x1 = workOf(a1.nodes[n]);
      std::vector<double> y0 = workOf(b0.nodes[n]), y1 = workOf(b1.nodes[n]);
      for (size_t v = 0; v < x0.size(); ++v)
        if (!same(x1[v] - x0[v], y1[v] - y0[v]))
          return false;
    }
  }
  return true;
}

/// The cut's amounts: the last period's.
LoopCut cutFrom(const std::deque<Mark> &marks, int64_t skipped) {
  const Mark &b0 = marks[marks.size() - 2], &b1 = marks.back();
  LoopCut cut;
  cut.skipped = skipped;
  cut.windowStartPs = b0.at;
  cut.windowEndPs = b1.at;
  cut.periodPs = b1.at - b0.at;
  cut.statsDelta = b1.stats;
  for (size_t s = 0; s < b1.stats.size(); ++s)
    for (size_t b = 0; b < b1.stats[s].size(); ++b)
      for (size_t v = 0; v < b1.stats[s][b].size(); ++v)
        cut.statsDelta[s][b][v] -= b0.stats[s][b][v];
  for (size_t s = 0; s < b1.tallies.size(); ++s)
    cut.talliesDelta.push_back(*growth(b0.tallies[s], b1.tallies[s]));
  for (size_t n = 0; n < b1.nodes.size(); ++n) {
    NodeRun d;
    d.busyPs = b1.nodes[n].busyPs - b0.nodes[n].busyPs;
    d.flops = b1.nodes[n].flops - b0.nodes[n].flops;
    d.bytes = b1.nodes[n].bytes - b0.nodes[n].bytes;
    d.linkBytes = b1.nodes[n].linkBytes - b0.nodes[n].linkBytes;
    d.energy = b1.nodes[n].energy;
    d.energy.add(b0.nodes[n].energy, -1);
    cut.nodeDelta.push_back(d);
  }
  return cut;
}

} // namespace

LoopCut snapflow::sim::watchPipelinedLoop(std::vector<Socket> &sockets, int job,
                                          int section, int64_t iterations) {
  std::vector<SectionRun *> runs;
  sc_core::sc_event_or_list events;
  for (Socket &s : sockets) {
    SectionRun *r = s.runs[job][section].get();
    r->watched = true;
    runs.push_back(r);
    events |= r->progress;
    events |= r->done;
  }
  auto finish = [&](LoopCut cut) {
    for (SectionRun *r : runs)
      r->watched = false;
    return cut;
  };
  std::deque<Mark> marks;
  while (true) {
    sc_core::wait(events);
    int64_t completed = iterations;
    bool anyDone = false;
    for (SectionRun *r : runs) {
      completed = std::min(completed, r->completed);
      anyDone |= r->doneCount == static_cast<int>(r->nodes.size());
    }
    if (anyDone)
      return finish({}); // ran to its end: nothing to account
    if (!marks.empty() && completed == marks.back().completed)
      continue; // another socket's progress; this iteration is marked
    // Marks one iteration apart (two ending in one delta cycle are not).
    if (!marks.empty() && completed != marks.back().completed + 1)
      marks.clear();
    Mark m;
    m.completed = completed;
    m.at = nowPs();
    for (const Socket &s : sockets) {
      m.stats.push_back(snapshot(s));
      m.tallies.push_back(talliesOf(s));
    }
    m.nodes = runs[0]->nodes;
    marks.push_back(std::move(m));
    if (marks.size() > kSteadyPeriods + 1)
      marks.pop_front();
    if (marks.size() < kSteadyPeriods + 1 || !periodic(marks))
      continue;
    // No node starts an iteration past the furthest one under way.
    int64_t keep = 0;
    for (SectionRun *r : runs)
      for (const NodeRun &n : r->nodes)
        keep = std::max(keep, n.iterationsDone + 1);
    if (keep >= iterations)
      return finish({});
    for (SectionRun *r : runs)
      r->iterations = keep;
    return finish(cutFrom(marks, iterations - keep));
  }
}
