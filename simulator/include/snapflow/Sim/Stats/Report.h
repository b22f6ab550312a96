//===- Report.h - The simulation report ------------------------*- C++ -*-===//
//
// Turns a simulation result into the documented report (JSON, keys sorted, a
// dotted name is a nested object) and a human summary. Every key but
// `wall_time_s` and `tiles_per_wall_second` is deterministic.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_STATS_REPORT_H
#define SNAPFLOW_SIM_STATS_REPORT_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Sim/Core/Results.h"
#include "snapflow/Sim/Stats/Roofline.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace snapflow {
namespace sim {

/// The report of a run (every key of reportSchema(), ReportSchema.h):
/// `decode` is the program whose steps set throughput; `prefill` (may be
/// null) sets the time to first token; `chip` is the chip simulated (a
/// what-if when it is not the program's target); `producer` names the
/// snapflow build and `simulateOptions` the options of the simulation
/// ("steps=64 fast-forward=true all-sockets=false"); the program's
/// provenance names the model, KV policy and compile options.
/// The prefill a report describes: run's `prefill`, or `decode` itself when
/// the simulated program is a prefill (null otherwise). Its selection's
/// what-if job (Job::withoutSelection) gives ttft_breakdown.selection_s.
const Program *reportedPrefill(const Program &decode, const Program *prefill);

llvm::json::Object makeReport(const SimResult &result, const Program &decode,
                              const Program *prefill,
                              const arch::ArchModel &chip, double wallSeconds,
                              llvm::StringRef producer,
                              llvm::StringRef simulateOptions);

/// A few lines for a person.
void printSummary(llvm::raw_ostream &os, const llvm::json::Object &report);

/// The report's profiles as tables (`--profile`): the step's critical path
/// by operator and resource, with each operator's busy time, FLOPs, bytes
/// and SRAM held; and the prefill's, with its chunks, when it has one.
void printProfile(llvm::raw_ostream &os, const llvm::json::Object &report);

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_STATS_REPORT_H
