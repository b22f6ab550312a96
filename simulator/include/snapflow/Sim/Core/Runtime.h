//===- Runtime.h - State of a running program ------------------*- C++ -*-===//
//
// What the engine wires and the components act on: the run of one section
// on one socket (its streams and per-node activity), a bulk copy, and
// simulated time. Components reach the rest of their socket only through
// the run's ports (Ports.h).
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_CORE_RUNTIME_H
#define SNAPFLOW_SIM_CORE_RUNTIME_H

#include "snapflow/Sim/Core/Ports.h"
#include "snapflow/Sim/Core/Program.h"
#include "snapflow/Sim/Core/Results.h"
#include "snapflow/Sim/Core/TileStream.h"

#include <systemc>

#include <memory>
#include <vector>

namespace snapflow {
namespace sim {

/// Simulated time in picoseconds (the time resolution), exact.
inline double nowPs() { return double(sc_core::sc_time_stamp().value()); }

/// Whether a wait asked for time past kHorizonPs in this run.
inline bool &horizonPassed() {
  static bool passed = false;
  return passed;
}
/// Waits `ps` picoseconds; a span of 0 still yields for one delta cycle,
/// so processes that compute nothing still take turns. A wait past
/// kHorizonPs stops the run instead.
inline void waitFor(double ps) {
  if (!(nowPs() + ps <= kHorizonPs)) {
    // Paused, not stopped: the engine then unwinds the blocked processes.
    horizonPassed() = true;
    sc_core::sc_pause();
    ps = 0;
  }
  // sc_time(ps, SC_PS) at the 1 ps resolution, without its floating-point
  // scaling per call: the value rounds as SystemC's constructor rounds.
  sc_core::wait(sc_core::sc_time::from_value(
      ps > 0 ? static_cast<sc_dt::uint64>(static_cast<int64_t>(ps + 0.5)) : 0));
}
/// The time waitUntil(ps) reaches: `ps` rounded to SystemC's picosecond,
/// or now if that has passed; past kHorizonPs, `ps` itself (the wait for
/// it stops the run).
inline double reachedPs(double ps) {
  double now = nowPs();
  if (!(ps > now))
    return now;
  if (!(ps <= kHorizonPs))
    return ps;
  return now + double(static_cast<int64_t>(ps - now + 0.5));
}
/// Waits until simulated time `ps`, if it is still ahead.
inline void waitUntil(double ps) {
  double now = nowPs();
  if (ps > now)
    waitFor(ps - now);
}

/// What one node of a section did in the current run.
struct NodeRun {
  WaitState wait;
  double firstPs = -1, lastPs = 0; ///< first and last activity
  int64_t iterationsDone = 0;      ///< of a pipelined loop, this start
  /// The node's critical path since its section started (PathStamp).
  PathStamp path;
  PathStamp iterationPath; ///< its path when it last finished an iteration
  /// Its own work in this run, for the profile: time waiting on its own
  /// compute, memory transfers, crossings and collective tiles (what it
  /// charged, on the critical path or not), FLOPs, bytes it moved to or
  /// from its tensor's tier, bytes it sent over the peer link.
  double busyPs = 0, flops = 0, bytes = 0, linkBytes = 0;
  /// The dynamic energy its actions were charged (by the components that
  /// did them, at the chip's prices).
  ActionEnergy energy;
  /// A node that touches no shared resource (a PCU stage, a buffer: it
  /// only computes, crosses the mesh and exchanges tiles) keeps its own
  /// clock, `localPs`, ahead of SystemC's or level with it while it runs
  /// (stale while it waits for a tile or slot: nothing reads it then; the
  /// time it gets back moves it on), and meets the
  /// kernel only when a tile or a slot it needs does not exist yet
  /// (TileStream.h) and at the end of each iteration. The others are at
  /// SystemC's time.
  bool decoupled = false;
  double localPs = 0;
  /// The node's time: its own clock, or SystemC's.
  double now() const { return decoupled ? localPs : nowPs(); }
  void touch() {
    double t = now();
    if (firstPs < 0)
      firstPs = t;
    lastPs = t;
  }
};

/// One span of a critical path: node `node` waited `ps` on its own work of
/// kind `part`, after the path that `parent` ends (-1: the section's start).
struct PathSegment {
  int32_t parent = -1;
  int32_t node = 0;
  PathPart part = PathPart::Compute;
  double ps = 0;
};

/// One section of one program on one socket: its streams and nodes, started
/// by the section controller once per loop iteration.
struct SectionRun {
  const Program *program = nullptr;
  const Section *section = nullptr;
  SocketPorts *ports = nullptr; ///< its socket's memory tiers and network
  int job = 0, index = 0, socketIndex = 0;
  std::vector<std::unique_ptr<TileStream>> streams;
  std::vector<NodeRun> nodes;
  /// Every span charged in this run, a tree whose paths the nodes' stamps
  /// end (cleared at each start: a run's paths begin with its section).
  std::vector<PathSegment> segments;
  /// One start event per node, notified in node order, so the nodes of
  /// every run begin in the same order whatever order the last run ended in
  /// (one shared event would wake them in their last run's finishing order,
  /// and FCFS servers would see different orders from run to run).
  std::vector<std::unique_ptr<sc_core::sc_event>> starts;
  sc_core::sc_event done;
  int doneCount = 0;
  /// Loop iterations each node runs for this start: 1, or the section's
  /// repeat when the loop is pipelined (nodes then move on to the next
  /// iteration on their own).
  int64_t iterations = 1;
  /// Per node of a pipelined loop: the stores its iteration i+1 waits for
  /// (a load of a tensor the section also stores, but the KV cache).
  std::vector<std::vector<int>> carriedFrom;
  sc_core::sc_event iterationDone;
  /// Iterations every node of a pipelined loop has finished; while
  /// `watched` (SteadyState.h), `progress` is notified each time it grows.
  int64_t completed = 0;
  bool watched = false;
  sc_core::sc_event progress;
  /// Stages share PCUs in time when the section needs more than the chip has.
  double oversubscription = 1;
  bool running = false;
  /// Tiles of every node and stream in the chunk of a chunked prefill being
  /// run (the section's own counts otherwise).
  Section::ChunkTiles chunk;

  /// Sets the chunk the next starts run (of the program's chunks), with or
  /// without the end-of-prefill selection.
  void setChunk(int64_t index, bool selection = true) {
    chunk = section->tilesInChunk(index, program->chunks, selection);
  }
  int64_t nodeTiles(int node) const { return chunk.nodes[node]; }
  int64_t streamTiles(int stream) const { return chunk.streams[stream]; }

  /// Runs before iteration `k` of node `node`: waits until the stores it
  /// depends on have finished iteration k - 1.
  void awaitCarried(int node, int64_t k);
  /// Marks iteration `k` of node `node` done.
  void finishIteration(int node, int64_t k);
  /// Charges the time since node `node`'s path last moved to `part` (the
  /// node just waited on its own work of that kind), up to its time now or
  /// to `atPs`, a time it will wait for (a load's landing: DmaEngine).
  void charge(int node, PathPart part) {
    charge(node, part, nodes[node].now());
  }
  void charge(int node, PathPart part, double atPs);
  /// Node `node` spends `ps` on its own work: its clock moves, or it waits.
  void spend(int node, double ps);
  /// Node `node` is at time `ps` (no earlier than its time now).
  void reach(int node, double ps);
  /// A decoupled node's clock, and SystemC's, meet: the kernel waits until
  /// the node's time (the end of an iteration, of a run).
  void sync(int node);

  /// Takes the next tile of `stream` for node `node`, waiting until it
  /// exists; the node is charged the tile's read from the stream's PMU
  /// buffer.
  void pop(int node, int stream);
  /// Pushes a tile of `stream` from node `node`; unless it already crossed
  /// the network (a DMA, `lanes` 0) it first crosses `lanes` lanes of it.
  /// The node is charged the crossing (the mean hops) and the write into
  /// the stream's PMU buffer.
  void push(int node, int stream, int64_t lanes) {
    push(node, stream, lanes, nodes[node].now());
  }
  /// The same for a tile that is ready at `atPs`, at or after the node's
  /// time: the node then waits once, until the tile is in (at `atPs` or
  /// when its slot was freed), not first for `atPs` and again for the slot.
  void push(int node, int stream, int64_t lanes, double atPs);
};

/// A bulk copy on one socket (Job::copy), run by its DMA engine's copy
/// process: the section controller sets it up, notifies `start` and waits
/// for `done`.
struct CopyRun {
  int64_t bytes = 0;
  arch::MemoryTier from = arch::MemoryTier::DDR, to = arch::MemoryTier::HBM;
  /// Start over each time it ends, until `stop`.
  bool background = false;
  /// Issue no further reads; the copy ends when those in flight land.
  bool stop = false;
  bool running = false;
  double moved = 0;    ///< bytes written so far (all starts)
  ActionEnergy energy; ///< charged so far (all starts)
  sc_core::sc_event start, done;
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_CORE_RUNTIME_H
