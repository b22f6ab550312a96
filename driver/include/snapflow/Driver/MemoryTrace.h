//===- MemoryTrace.h - Reading a memory trace back ---------------*- C++
//-*-===//
//
// A trace written by `snapflow simulate|run --trace` (Chrome Trace Event
// JSON) read back: the memory counters per socket, the chip's capacities and
// the tensors it holds, with the peak and the time-weighted mean occupancy
// of each series (a sample holds until the next one; the last until the
// trace ends). `snapflow trace` prints it; drawOccupancy plots it.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_MEMORYTRACE_H
#define SNAPFLOW_DRIVER_MEMORYTRACE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace snapflow {
namespace driver {

/// The series of the memory counter: SRAM, HBM, DDR, KV cache (bytes per
/// socket).
constexpr int kTraceSeries = 4;
extern const char *const kTraceSeriesKeys[kTraceSeries];   ///< "sram_bytes"...
extern const char *const kTraceSeriesLabels[kTraceSeries]; ///< "SRAM"...

struct TraceSample {
  double us = 0;
  std::array<double, kTraceSeries> bytes{};
};

/// A tensor the trace's programs hold (one entry for the same tensor in
/// several programs).
struct TraceTensor {
  std::string name, tier;
  int64_t bytes = 0;
  bool kv = false;
  std::vector<std::string> programs;
};

struct MemoryTrace {
  std::string chip;
  /// What made the trace: its otherData (model, kv, snapflow, ...), by key;
  /// empty for a trace without one.
  std::map<std::string, std::string> provenance;
  /// provenance[key], or "" when the trace does not say.
  std::string made(llvm::StringRef key) const {
    auto it = provenance.find(key.str());
    return it == provenance.end() ? std::string() : it->second;
  }
  std::array<double, 3> capacity{}; ///< SRAM, HBM, DDR bytes per socket
  std::vector<TraceSample> samples; ///< in time order
  double endUs = 0;                 ///< the last event's end
  std::vector<TraceTensor> tensors;
  std::array<double, kTraceSeries> peak{}, mean{};

  /// Simulated microseconds from the first sample to the end.
  double spanUs() const { return endUs - samples.front().us; }
  /// The `n` largest tensors, largest first (ties by name).
  std::vector<const TraceTensor *> largest(size_t n) const;
};

/// Reads a trace; errors are located (`file:line:col` for bad JSON, the
/// event's index for a malformed counter).
llvm::Expected<MemoryTrace> readMemoryTrace(llvm::StringRef path);
/// readMemoryTrace of a file's `text`; errors name `path`.
llvm::Expected<MemoryTrace> parseMemoryTrace(llvm::StringRef text,
                                             llvm::StringRef path);

/// Draws occupancy over time (and the capacity of the tiers in use) into
/// `svg` with gnuplot, titled with `name`.
/// The unit that suits a span of `us` microseconds: its name ("us", "ms",
/// "s", "min", "h") and microseconds per unit. An hour of serving printed
/// as 3599279.186 ms.
struct TimeUnit {
  const char *name;
  double us;
};
TimeUnit timeUnitFor(double us);

llvm::Error drawOccupancy(const MemoryTrace &trace, llvm::StringRef name,
                          llvm::StringRef svg);

} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_MEMORYTRACE_H
