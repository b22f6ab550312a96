//===- Trace.h - Chrome trace and memory CSV -------------------*- C++ -*-===//
//
// Writes the simulation's events as Chrome Trace Event JSON (Perfetto opens
// it: a track of sections, one per stage, counters of SRAM/HBM/DDR
// occupancy and KV bytes; timestamps in microseconds) and the occupancy as
// CSV. Files are written whole or not at all.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_TRACE_TRACE_H
#define SNAPFLOW_SIM_TRACE_TRACE_H

#include "snapflow/Sim/Core/Simulator.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace snapflow {
namespace sim {

llvm::Error writeChromeTrace(llvm::StringRef path, const SimResult &result);
llvm::Error writeMemoryCsv(llvm::StringRef path, const SimResult &result);

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_TRACE_TRACE_H
