//===- SteadyState.h - A pipelined loop's periodic state --------*- C++ -*-===//
//
// A pipelined loop (kernel looping: every iteration of a section in one
// run, each overlapping the next) settles into a periodic state: each
// iteration ends the same span after the one before, and the statistics of
// every component grow by the same amounts in each such span. The watch
// detects that state from the simulated timestamps while the loop runs (it
// assumes nothing about the program), and once kSteadyPeriods consecutive
// periods agree it cuts the run short: no node starts another iteration,
// the ones under way finish and the loop drains as its last iteration
// would. The iterations not simulated are then accounted as whole periods:
// time, every component's statistics and every node's work grow by the
// measured period's share times their number (SectionController).
//
// Exact when the loop is periodic from the detected point on: the full run
// is the simulated prefix, the periods cut out, and the same drain. A loop
// that never settles (a period of two iterations, say) is simulated whole.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_ENGINE_STEADYSTATE_H
#define SNAPFLOW_SIM_ENGINE_STEADYSTATE_H

#include "snapflow/Sim/Engine/Socket.h"

#include <cstdint>
#include <vector>

namespace snapflow {
namespace sim {

/// Consecutive periods of a pipelined loop that must agree (in length and
/// in every statistic) before the rest of its iterations are accounted.
constexpr int kSteadyPeriods = 3;

/// Every component's tallies on one socket (Component::tallies).
using Tallies = std::vector<std::vector<double>>;

/// What a watched run leaves to account: `skipped` iterations (0: the run
/// was simulated whole) of `periodPs` each; the period that was measured,
/// [windowStartPs, windowEndPs] of the simulated run; each socket's
/// statistics and tallies, and socket 0's nodes' work over it.
struct LoopCut {
  int64_t skipped = 0;
  double periodPs = 0;
  double windowStartPs = 0, windowEndPs = 0;
  std::vector<StatsSnapshot> statsDelta; ///< [socket][block][statistic]
  std::vector<Tallies> talliesDelta;     ///< [socket][component][value]
  std::vector<NodeRun> nodeDelta;        ///< socket 0's nodes: work only
};

/// Watches the run of section `section` of job `job`, started on every
/// socket for `iterations` iterations, from the section controller's
/// process; returns when every socket's run is done, or once it has cut
/// the run short (its nodes still draining: the caller waits for them).
LoopCut watchPipelinedLoop(std::vector<Socket> &sockets, int job, int section,
                           int64_t iterations);

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_ENGINE_STEADYSTATE_H
