//===- ReportSchema.h - Every key of the simulation report ------*- C++ -*-===//
//
// The one declaration of the report's keys: the report writer (makeReport)
// writes exactly these (a unit test checks), the sweep's CSV has a column
// for each that every report carries, `snapflow list --report-keys` prints
// them, and a lit test checks docs/Simulator.md documents each. A dotted key
// is a nested object.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_STATS_REPORTSCHEMA_H
#define SNAPFLOW_SIM_STATS_REPORTSCHEMA_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

namespace snapflow {
namespace sim {

/// When a report carries a key.
enum class ReportPresence {
  Always,      ///< every report
  Prefill,     ///< a report whose program is a prefill
  WhatIf,      ///< a report of a program simulated on another chip
  WithPrefill, ///< a report of a run that simulated a prefill (a TTFT)
};

struct ReportKey {
  const char *key; ///< dotted: "memory.peak_bytes.hbm"
  const char *unit;
  const char *description;
  ReportPresence presence = ReportPresence::Always;
  bool wallClock = false; ///< depends on the machine, not the model
  /// An array (of strings, or of one object per op): not a sweep column;
  /// the report and docs/Simulator.md describe its items.
  bool list = false;
};

/// Every key, sorted by name.
llvm::ArrayRef<ReportKey> reportSchema();

/// One line per key: name, unit, when present, description.
void describeReportKeys(llvm::raw_ostream &os);

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_STATS_REPORTSCHEMA_H
