//===- BandwidthServer.h - A shared memory tier or link --------*- C++ -*-===//
//
// HBM, DDR, SRAM and peer links are shared bandwidth servers: `channels`
// independent channels of `bytes per ps / channels` each, plus a fixed
// latency. Addresses are interleaved, so a transfer is striped over every
// channel and arrives when its last stripe does; each channel serves stripes
// first come, first served, so concurrent streams contend. Time is in
// picoseconds; the server reserves, the caller waits.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_BANDWIDTHSERVER_H
#define SNAPFLOW_SIM_COMPONENTS_BANDWIDTHSERVER_H

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace snapflow {
namespace sim {

class BandwidthServer {
public:
  /// Parameters, declared once (gem5 style), with their units.
  struct Params {
    std::string name;
    double bytesPerPs = 0; ///< total bandwidth, bytes per picosecond
    int64_t channels = 1;  ///< independent channels sharing it
    double latencyPs = 0;  ///< added to every transfer
  };
  /// Statistics, with their units.
  struct Stats {
    double bytes = 0;  ///< bytes transferred
    double busyPs = 0; ///< channel-picoseconds spent transferring
    int64_t transfers = 0;
  };

  explicit BandwidthServer(Params p)
      : params(std::move(p)),
        freeAt(static_cast<size_t>(std::max<int64_t>(1, params.channels)),
               0.0) {}

  /// Reserves a transfer of `bytes` starting no earlier than `nowPs`;
  /// returns the picosecond at which the data has arrived.
  double reserve(double bytes, double nowPs) {
    double n = static_cast<double>(freeAt.size());
    double perChannel = params.bytesPerPs / n;
    double stripe = perChannel > 0 ? bytes / n / perChannel : 0;
    double done = nowPs;
    for (double &free : freeAt) {
      free = std::max(nowPs, free) + stripe;
      done = std::max(done, free);
    }
    stats.bytes += bytes;
    stats.busyPs += stripe * n;
    ++stats.transfers;
    return done + params.latencyPs;
  }

  /// Fraction of the server's capacity used over `elapsedPs`.
  double utilization(double elapsedPs) const {
    return elapsedPs > 0
               ? stats.busyPs / (elapsedPs * static_cast<double>(freeAt.size()))
               : 0;
  }

  const Params params;
  Stats stats;

private:
  std::vector<double> freeAt;
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_BANDWIDTHSERVER_H
