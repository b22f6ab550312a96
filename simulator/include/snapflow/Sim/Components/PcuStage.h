//===- PcuStage.h - A pipeline stage on a group of PCUs ---------*- C++ -*-===//
//
// A df.stage: it takes its inputs in proportion to its progress, computes
// ceil(FLOPs per tile / (PCUs x rate)) cycles per step (systolic rate for
// gemm, times the share of the array its rows fill; SIMD otherwise; the
// pipeline fill once per run; slowed by the
// section's oversubscription), and pushes its outputs in the same
// proportion over its PCUs' network lanes.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_PCUSTAGE_H
#define SNAPFLOW_SIM_COMPONENTS_PCUSTAGE_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Sim/Components/Component.h"
#include "snapflow/Sim/Core/Runtime.h"

namespace snapflow {
namespace sim {

class PcuStage final : public Component {
public:
  static const ComponentInfo &info();
  enum Stat { BusyPcuPs, Flops, Steps, EnergyPj };

  explicit PcuStage(const arch::ArchModel &chip);

  /// The process of stage node `index` for one run of its section.
  void run(SectionRun &r, int index) override;

private:
  const arch::ArchModel &chip;
  double periodPs, systolicPerCycle, simdPerCycle, fillCycles;
  double systolicPj, simdPj; ///< per FLOP
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_PCUSTAGE_H
