//===- Roofline.h - Lower bound on a step's time ---------------*- C++ -*-===//
//
// From the same ArchModel and program the simulator runs: the time a step
// cannot beat, whatever the schedule: bytes over bandwidth per tier, FLOPs
// over peak, link bytes over link bandwidth. The largest of these is the
// bound and names the binding resource.
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
  double computeSeconds = 0; ///< systolic / peak + SIMD / peak
  double linkBytes = 0, linkSeconds = 0;
  double lowerBoundSeconds = 0;
  std::string binding; ///< "compute", "hbm", "ddr", "sram" or "link"
};

/// The roofline of one step of `program` on one socket of `chip`.
Roofline computeRoofline(const Program &program, const arch::ArchModel &chip);

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_STATS_ROOFLINE_H
