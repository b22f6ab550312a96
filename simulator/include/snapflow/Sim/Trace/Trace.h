//===- Trace.h - Chrome trace and memory CSV -------------------*- C++ -*-===//
//
// Writes the simulation's events as Chrome Trace Event JSON (Perfetto and
// chrome://tracing open it) and the memory occupancy as CSV. A trace has a
// track of steps, a track of sections, one track per node named after its
// section (the layers it runs) and op, slices that carry their details
// (tensor, bytes, tiles, FLOPs, PCUs, a collective's algorithm) as `args`,
// a `memory` counter of SRAM/HBM/DDR occupancy and KV bytes, and a `power`
// counter of one socket's watts: its static power, plus its actions' energy
// over each section run's time.
//
// Times are exact: the simulator's integer picoseconds become integer
// nanoseconds, written as decimal microseconds with at most three digits
// after the point, and each slice's `dur` is chosen so that ts + dur, added
// in doubles as JavaScript viewers do, is exactly the next boundary's ts
// (and rounds to the integer nanoseconds Perfetto keeps). Slices on one
// track therefore never overlap by rounding.
//
// Beside the events, the top-level "otherData" object (the format's
// metadata slot) says what made the programs (their provenance), and a
// "snapflow" object (ignored by viewers; read by `snapflow trace`) names
// the chip, its capacity per tier and socket, and every tensor of the
// programs that ran, so a trace explains its own occupancy. Files are
// written whole or not at all.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_TRACE_TRACE_H
#define SNAPFLOW_SIM_TRACE_TRACE_H

#include "snapflow/Sim/Core/Results.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <cstdint>
#include <string>

namespace snapflow {
namespace sim {

/// Simulated picoseconds as the trace's integer nanoseconds (to nearest).
int64_t traceNs(int64_t ps);
/// Seconds (the serving clock) as the trace's integer nanoseconds.
int64_t traceNsOfSeconds(double seconds);
/// `ns` as exact decimal microseconds ("12.345", "7").
std::string traceMicroseconds(int64_t ns);

/// Writes a slice's "ts" at `beginNs` and its "dur" to `endNs` (exact, as
/// the file comment says).
void writeSliceTime(llvm::json::OStream &j, int64_t beginNs, int64_t endNs);
/// Writes an instant's or a counter's "ts".
void writeTraceTs(llvm::json::OStream &j, int64_t ns);

/// One `memory` counter event (`ph: "C"`, pid 0): SRAM, HBM, DDR and KV
/// bytes per socket at `ns`. `snapflow trace` reads these.
void writeMemoryCounter(llvm::json::OStream &j, int64_t ns,
                        const TierBytes &bytes);

/// Names process `pid` (`process_name` metadata).
void writeProcessName(llvm::json::OStream &j, int pid, llvm::StringRef name);
/// Names track `tid` of process `pid` and places it `tid`-th
/// (`thread_name` and `thread_sort_index` metadata).
void writeTrackName(llvm::json::OStream &j, int pid, int64_t tid,
                    llvm::StringRef name);

/// The top-level "otherData" attribute, what made the trace (strings): the
/// snapflow that simulated, the chip simulated and its fingerprint, and the
/// first program's provenance (model, KV policy, compile options; none for
/// a hand-written program).
void writeTraceProvenance(llvm::json::OStream &j,
                          llvm::ArrayRef<const Program *> programs,
                          const arch::ArchModel &chip);

/// The top-level "snapflow" attribute: the chip, its capacity per tier and
/// socket, and every tensor of `programs`.
void writeTraceMetadata(llvm::json::OStream &j,
                        llvm::ArrayRef<const Program *> programs,
                        const arch::ArchModel &chip);

/// Writes `result`'s trace to `path`. `programs` are the jobs' programs;
/// the first one's provenance becomes "otherData".
llvm::Error writeChromeTrace(llvm::StringRef path, const SimResult &result,
                             llvm::ArrayRef<const Program *> programs,
                             const arch::ArchModel &chip);
/// Writes one row per memory sample to `path`, `extraHeader` appended to
/// the header and `extraCells` to every row (the driver's provenance
/// columns: ",model,chip,kv,snapflow" and their values).
llvm::Error writeMemoryCsv(llvm::StringRef path, const SimResult &result,
                           llvm::StringRef extraHeader = "",
                           llvm::StringRef extraCells = "");

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_TRACE_TRACE_H
