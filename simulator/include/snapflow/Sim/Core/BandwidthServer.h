//===- BandwidthServer.h - A shared pipe of fixed bandwidth -----*- C++ -*-===//
//
// The primitive under the memory tiers, the AGCU pool, a DMA's own lanes and
// the peer links: `channels` independent channels of `bytes per ps /
// channels` each, plus a fixed latency. Addresses are interleaved, so a
// transfer is striped over every channel and arrives when its last stripe
// does; channels serve stripes first come, first served, so concurrent
// transfers contend. Striped in lockstep, every channel is always as busy as
// every other, so the server keeps one free time for all of them (the same
// result as one per channel, in O(1)); the channel count scales utilization
// only. Time is in picoseconds; the server reserves, the caller waits.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_BANDWIDTHSERVER_H
#define SNAPFLOW_SIM_COMPONENTS_BANDWIDTHSERVER_H

#include <algorithm>
#include <cstdint>

namespace snapflow {
namespace sim {

class BandwidthServer {
public:
  /// Total bandwidth in bytes per picosecond, channels sharing it, and the
  /// latency added to every transfer in picoseconds.
  BandwidthServer(double bytesPerPs, int64_t channels, double latencyPs)
      : bytesPerPs(bytesPerPs), channels(std::max<int64_t>(1, channels)),
        latencyPs(latencyPs) {}

  /// Reserves a transfer of `bytes` starting no earlier than `nowPs`;
  /// returns the picosecond at which the data has arrived.
  double reserve(double bytes, double nowPs) {
    // Each channel carries bytes / n at its share of the bandwidth.
    double n = double(channels), perChannel = bytesPerPs / n;
    double stripe = perChannel > 0 ? bytes / n / perChannel : 0;
    freeAt = std::max(nowPs, freeAt) + stripe;
    bytesMoved += bytes;
    busyPs += stripe * double(channels);
    return freeAt + latencyPs;
  }

  /// Bytes moved and channel-picoseconds spent so far.
  double getBytes() const { return bytesMoved; }
  double getBusyPs() const { return busyPs; }
  int64_t getChannels() const { return channels; }

private:
  double bytesPerPs;
  int64_t channels;
  double latencyPs;
  double freeAt = 0, bytesMoved = 0, busyPs = 0;
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_BANDWIDTHSERVER_H
