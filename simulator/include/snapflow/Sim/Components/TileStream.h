//===- TileStream.h - Bounded multi-consumer FIFO of tiles -----*- C++ -*-===//
//
// The channel between a producer and its consumers: the producer blocks when
// the slowest consumer is `depth` tiles behind (back-pressure); a consumer
// blocks until the tile it wants exists. Tiles carry no data, only their
// count: the simulator is about time, bytes and occupancy.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_TILESTREAM_H
#define SNAPFLOW_SIM_COMPONENTS_TILESTREAM_H

#include <systemc>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace snapflow {
namespace sim {

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
  }

  /// Appends one tile, waiting while the slowest consumer is `depth` behind.
  void push() {
    while (produced - minConsumed() >= depth)
      sc_core::wait(changed);
    ++produced;
    changed.notify(sc_core::SC_ZERO_TIME);
  }

  /// Takes the next tile for consumer `c`, waiting until it exists.
  void pop(int c) {
    while (consumed[c] >= produced)
      sc_core::wait(changed);
    ++consumed[c];
    changed.notify(sc_core::SC_ZERO_TIME);
  }

  /// Tiles in flight (produced, not yet taken by every consumer).
  int64_t occupancy() const { return produced - minConsumed(); }

private:
  int64_t minConsumed() const {
    return consumed.empty()
               ? produced
               : *std::min_element(consumed.begin(), consumed.end());
  }

  int64_t depth;
  int64_t produced = 0;
  std::vector<int64_t> consumed;
  sc_core::sc_event changed;
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_TILESTREAM_H
