//===- Roofline.h - Lower bound on a step's time ---------------*- C++ -*-===//
//
// From the same ArchModel and program the simulator runs: the time a step
// cannot beat, whatever the schedule: bytes over bandwidth per tier, FLOPs
// over peak, link bytes over link bandwidth (the busiest link direction).
// The largest of these is the bound. What binds the step is the largest of
// them and of the collective latency chain (every collective's whole
// latency, launch + hops + its transfer, in series: decode's collectives
// each feed the next layer), which is not a resource and so not part of
// the bound.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_STATS_ROOFLINE_H
#define SNAPFLOW_SIM_STATS_ROOFLINE_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Sim/Core/Program.h"

#include <array>
#include <string>

namespace snapflow {
namespace sim {

struct Roofline {
  std::array<double, 3> bytes{};       ///< per tier per step
  std::array<double, 3> tierSeconds{}; ///< bytes / bandwidth
  double systolicFlops = 0, simdFlops = 0;
  double computeSeconds = 0;             ///< systolic / peak + SIMD / peak
  double linkBytes = 0, linkSeconds = 0; ///< on the busiest link direction
  double collectiveLatencySeconds = 0;   ///< every collective, in series
  double lowerBoundSeconds = 0;
  /// "compute", "hbm", "ddr", "sram", "link" or "collective_latency".
  std::string binding;
};

/// The roofline of one step of `program` on one socket of `chip`.
Roofline computeRoofline(const Program &program, const arch::ArchModel &chip);

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_STATS_ROOFLINE_H
