//===- TileStream.h - Bounded multi-consumer FIFO of tiles -----*- C++ -*-===//
//
// The channel between a producer and its consumers: the producer blocks when
// the slowest consumer is `depth` tiles behind (back-pressure); a consumer
// blocks until the tile it wants exists. Tiles carry no data, only their
// count, the time they are ready and the critical path that made them (a
// PathStamp), so the section controller can tell which chain of waits set a
// section's time.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_TILESTREAM_H
#define SNAPFLOW_SIM_COMPONENTS_TILESTREAM_H

#include <systemc>

#include <algorithm>
#include <array>
#include <cstdint>
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

/// Tiles are stamped with simulated times, so a node that touches no
/// shared resource (a PCU stage, a buffer: NodeRun::decoupled) can run
/// ahead of SystemC's clock on its own: a tile is ready at the time its
/// producer pushed it, a consumer takes it at the later of its own time and
/// that, and a slot is free again at the time the last consumer took its
/// tile. The calling process blocks only while the tile it wants, or the
/// slot, does not exist yet; the caller then waits until the returned time
/// or, decoupled, moves its own clock to it. Every time is the one the
/// same exchange would have had with every node waiting in SystemC.
class TileStream {
public:
  TileStream(int64_t depth, int consumers)
      : depth(depth), consumed(consumers, 0) {}

  /// Starts a new section run.
  void reset() {
    produced = 0;
    std::fill(consumed.begin(), consumed.end(), 0);
    slots.clear();
  }

  /// Appends one tile made along `path` at `atPs`, once the slowest
  /// consumer is less than `depth` tiles behind; returns the time it was
  /// appended: `atPs`, or the later time the slot was freed, and then
  /// `path` becomes the path of the consumer that freed it (the
  /// back-pressure is its chain).
  double push(PathStamp &path, double atPs) {
    while (produced - minConsumed() >= depth)
      await(freed, producerWaiting);
    double t = atPs;
    size_t at = slotOf(produced);
    if (produced >= depth && !consumed.empty()) {
      // The slot of the tile `depth` earlier, freed when all had it.
      const Taken &freedBy = slots[at].taken;
      if (freedBy.atPs > atPs) {
        t = freedBy.atPs;
        if (freedBy.path.at > path.at)
          path = freedBy.path;
      }
    }
    Slot tile{path, t, {}};
    if (at < slots.size())
      slots[at] = tile;
    else
      slots.push_back(tile);
    ++produced;
    if (consumersWaiting > 0)
      added.notify(sc_core::SC_ZERO_TIME);
    return t;
  }

  /// Takes the next tile for consumer `c` at `atPs`, waiting until it
  /// exists; returns the time it was taken (`atPs`, or the later time the
  /// tile was ready). `path` becomes the tile's if that goes further: the
  /// producer's chain held it up.
  double pop(int c, PathStamp &path, double atPs) {
    while (consumed[c] >= produced)
      await(added, consumersWaiting);
    Slot &tile = slots[slotOf(consumed[c])];
    double t = std::max(atPs, tile.readyPs);
    if (tile.path.at > path.at)
      path = tile.path;
    // The slot is free once the last consumer, in time, has the tile; of
    // consumers taking it at the same time, the one whose path goes
    // furthest, then the first (not whichever the kernel ran last).
    Taken &last = tile.taken;
    if (t > last.atPs ||
        (t == last.atPs && (path.at > last.path.at ||
                            (path.at == last.path.at && c < last.consumer))))
      last = {t, path, c};
    ++consumed[c];
    if (producerWaiting > 0 && produced - minConsumed() < depth)
      freed.notify(sc_core::SC_ZERO_TIME);
    return t;
  }

  /// Tiles in flight (produced, not yet taken by every consumer).
  int64_t occupancy() const { return produced - minConsumed(); }

private:
  /// When a tile was taken, and along which path, by which consumer.
  struct Taken {
    double atPs = -1;
    PathStamp path;
    int consumer = -1;
  };
  /// Tile k is held in slots[k % depth] from its push until tile k + depth
  /// is pushed, which first reads when the last consumer took it: no more
  /// than `depth` tiles are ever in flight, so nothing is allocated per
  /// tile once the ring is full.
  struct Slot {
    PathStamp path;
    double readyPs;
    Taken taken; ///< by the consumer that took it last, in time
  };
  size_t slotOf(int64_t tile) const {
    return static_cast<size_t>(tile % depth);
  }

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
  std::vector<Slot> slots; ///< a ring of up to `depth` tiles (slotOf)
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_TILESTREAM_H
