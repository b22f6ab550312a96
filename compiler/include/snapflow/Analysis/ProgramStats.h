//===- ProgramStats.h - What a df program moves and computes ---*- C++ -*-===//
//
// Sums a df program's loads, stores, stage FLOPs and collective bytes per
// decode step (a section's work counted once per `repeat`). Used by the
// compile report and by tests that check the program against the model's
// analytic weights + KV bytes; the simulator's roofline uses the same sums.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_ANALYSIS_PROGRAMSTATS_H
#define SNAPFLOW_ANALYSIS_PROGRAMSTATS_H

#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"

#include <array>
#include <cstdint>

namespace snapflow {

/// Per-step totals of a df program, per socket.
struct ProgramStats {
  /// Bytes loaded from / stored to each tier, indexed by arch::MemoryTier.
  std::array<int64_t, 3> bytesLoaded{}, bytesStored{};
  int64_t flops = 0;
  int64_t collectiveBytes = 0; ///< bytes entering collectives
  int64_t stages = 0, sections = 0;

  int64_t loaded(arch::MemoryTier tier) const {
    return bytesLoaded[static_cast<int>(tier)];
  }
  /// Bytes read from off-chip memory (HBM and DDR).
  int64_t offChipBytesRead() const {
    return loaded(arch::MemoryTier::HBM) + loaded(arch::MemoryTier::DDR);
  }
};

/// The totals of `program`; an error at the program when one exceeds a
/// 64-bit count.
mlir::FailureOr<ProgramStats> computeProgramStats(df::ProgramOp program);

} // namespace snapflow

#endif // SNAPFLOW_ANALYSIS_PROGRAMSTATS_H
