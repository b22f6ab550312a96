//===- TileStream.h - Bounded multi-consumer FIFO of tiles -----*- C++ -*-===//
//
// The channel between a producer and its consumers: the producer blocks when
// the slowest consumer is `depth` tiles behind (back-pressure); a consumer
// blocks until the tile it wants exists. Tiles carry no data, only their
// count and the critical path that made them (a PathStamp), so the section
// controller can tell which chain of waits set a section's time.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_TILESTREAM_H
#define SNAPFLOW_SIM_COMPONENTS_TILESTREAM_H

#include <systemc>

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace snapflow {
namespace sim {

/// What the critical path of a section is made of, by kind of wait.
enum class PathPart { Compute, Memory, Network, Collective };
constexpr int kNumPathParts = static_cast<int>(PathPart::Collective) + 1;

/// A node's critical path so far: the time it reaches, and the last of the
/// segments (SectionRun::segments) that lead there from the section's
/// start, each a span one node waited on its own work. Following `segment`
/// and each segment's parent back adds up to `at` minus the section's start.
struct PathStamp {
  double at = 0;
  int32_t segment = -1; ///< -1: nothing charged yet
};

/// What a blocked process is waiting for, for deadlock reports.
struct WaitState {
  const char *what = nullptr; ///< "push to" / "pop from" / nullptr
  int stream = -1;
};

class TileStream {
public:
  TileStream(int64_t depth, int consumers)
      : depth(depth), consumed(consumers, 0) {}

  /// Starts a new section run.
  void reset() {
    produced = 0;
    std::fill(consumed.begin(), consumed.end(), 0);
    stamps.clear();
    base = 0;
    lastPop = PathStamp();
  }

  /// Appends one tile made along `path`, waiting while the slowest consumer
  /// is `depth` behind. Returns whether it waited; then `path` becomes the
  /// consumer's that made room (the back-pressure is its chain).
  bool push(PathStamp &path) {
    bool waited = false;
    while (produced - minConsumed() >= depth) {
      await(freed, producerWaiting);
      waited = true;
    }
    if (waited && lastPop.at > path.at)
      path = lastPop;
    ++produced;
    stamps.push_back(path);
    if (consumersWaiting > 0)
      added.notify(sc_core::SC_ZERO_TIME);
    return waited;
  }

  /// Takes the next tile for consumer `c`, waiting until it exists. When it
  /// waited, `path` becomes the tile's: the producer's chain held it up.
  void pop(int c, PathStamp &path) {
    while (consumed[c] >= produced)
      await(added, consumersWaiting);
    const PathStamp &tile = stamps[static_cast<size_t>(consumed[c] - base)];
    if (tile.at > path.at)
      path = tile;
    ++consumed[c];
    lastPop = path;
    // Forget the tiles every consumer has taken.
    int64_t low = minConsumed();
    while (base < low && !stamps.empty()) {
      stamps.pop_front();
      ++base;
    }
    if (producerWaiting > 0 && produced - low < depth)
      freed.notify(sc_core::SC_ZERO_TIME);
  }

  /// Tiles in flight (produced, not yet taken by every consumer).
  int64_t occupancy() const { return produced - minConsumed(); }

private:
  /// Waits for `e`, counted in `waiting`. Consumers wait for a tile to be
  /// added, the producer for room to be freed, and each is woken only when
  /// what it waits for happened and it waits (a change nobody waits for
  /// schedules no delta cycle, and no consumer wakes to find another's pop;
  /// such wake-ups only made a process look again).
  static void await(sc_core::sc_event &e, int &waiting) {
    ++waiting;
    sc_core::wait(e);
    --waiting;
  }

  int64_t minConsumed() const {
    return consumed.empty()
               ? produced
               : *std::min_element(consumed.begin(), consumed.end());
  }

  int64_t depth;
  int64_t produced = 0;
  std::vector<int64_t> consumed;
  sc_core::sc_event added, freed;
  int consumersWaiting = 0, producerWaiting = 0;
  std::deque<PathStamp> stamps; ///< of tiles base, base + 1, ...
  int64_t base = 0;
  PathStamp lastPop;
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_TILESTREAM_H
