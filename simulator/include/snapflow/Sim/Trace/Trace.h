//===- Trace.h - Chrome trace and memory CSV -------------------*- C++ -*-===//
//
// Writes the simulation's events as Chrome Trace Event JSON (Perfetto opens
// it: a track of sections, one per stage, counters of SRAM/HBM/DDR
// occupancy and KV bytes; timestamps in microseconds) and the occupancy as
// CSV. Files are written whole or not at all. Beside the events, a top-level
// "snapflow" object (ignored by trace viewers; read by `snapflow trace`)
// names the chip, its capacity per tier and socket, and every tensor of the
// programs that ran, so a trace explains its own occupancy.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_TRACE_TRACE_H
#define SNAPFLOW_SIM_TRACE_TRACE_H

#include "snapflow/Sim/Core/Simulator.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <array>

namespace snapflow {
namespace sim {

/// One `memory` counter event (`ph: "C"`): SRAM, HBM, DDR and KV bytes per
/// socket at `us` microseconds. `snapflow trace` reads these.
void writeMemoryCounter(llvm::json::OStream &j, double us,
                        const std::array<double, 4> &bytes);

/// The top-level "snapflow" attribute: the chip, its capacity per tier and
/// socket, and every tensor of `programs`.
void writeTraceMetadata(llvm::json::OStream &j,
                        llvm::ArrayRef<const Program *> programs,
                        const arch::ArchModel &chip);

llvm::Error writeChromeTrace(llvm::StringRef path, const SimResult &result,
                             llvm::ArrayRef<const Program *> programs,
                             const arch::ArchModel &chip);
llvm::Error writeMemoryCsv(llvm::StringRef path, const SimResult &result);

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_TRACE_TRACE_H
