//===- SweepInternal.h - What the parts of a sweep share --------*- C++ -*-===//
//
// A sweep in rooms (Sweep.h for what it guarantees):
//
//   Grid.cpp      the axes' value types, the grid checked, its points
//   Manifest.cpp  DIR/sweep.json, and whether a sweep may continue
//   Rows.cpp      results.csv: its columns, rows read back, a point's row
//                 (with the published accuracy of its KV policy and format)
//   Points.cpp    a point's run options, every point checked before any
//                 runs, each compiled for its process
//   Run.cpp       runSweep (lock, continue, run, order) and mergeSweeps
//   Plots.cpp     the charts (one function each) and summary.md of a
//                 finished sweep, drawn by Chart.{h,cpp}
//
// Internal to the driver.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_SWEEP_SWEEPINTERNAL_H
#define SNAPFLOW_DRIVER_SWEEP_SWEEPINTERNAL_H

#include "../PointRunner.h"

#include "snapflow/Driver/Compile.h"
#include "snapflow/Driver/Sweep.h"
#include "snapflow/Driver/Workload.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <map>
#include <string>
#include <vector>

namespace snapflow {
namespace driver {
namespace sweep {

/// Columns of a row: `index`, the axes, then these two.
constexpr size_t kStatusColumn = 1 + kSweepAxes;
constexpr size_t kReasonColumn = kStatusColumn + 1;

/// The flag of an axis column ("weights_dtype" -> "weights-dtype").
std::string flagOf(llvm::StringRef column);
/// A point's identity as one map key.
std::string identityKey(llvm::ArrayRef<std::string> inputsWithoutIndex);
/// The value at a dotted key of a report, as CSV text.
std::string lookup(const llvm::json::Object &report, llvm::StringRef key);
std::string csvLine(llvm::ArrayRef<std::string> fields);
/// results.csv, whole or not at all.
llvm::Error writeRows(llvm::StringRef path,
                      const std::vector<std::vector<std::string>> &rows);
std::string pathIn(llvm::StringRef dir, llvm::StringRef name);
/// Values as a message lists them ("(default)" for an unset one).
std::string describeValues(const std::vector<std::string> &values);

// Rows.cpp

/// A point being simulated.
struct Running {
  SweepPoint point;
  std::string report, err;
};
/// The row of a point: its inputs, status and reason, its report's values
/// and the published accuracy of its policy and format.
std::vector<std::string> makeRow(const SweepPoint &p, llvm::StringRef status,
                                 llvm::StringRef reason,
                                 const llvm::json::Object &report);
/// The row of a point whose process exited with `status` (waitpid's).
std::vector<std::string> childRow(const Running &c, int status);

/// A serving sweep's points, each served in a process forked from the
/// sweep (ServePoints.cpp), as PointRunner runs a decode sweep's.
class ServeForker {
public:
  /// Starts serving `r.point` with the load `so`, its report to r.report
  /// and its stderr to r.err.
  llvm::Error submit(const Running &r, const ServeOptions &so);
  /// Waits for the next point to end, whichever it is.
  llvm::Expected<PointExit> next();

private:
  std::map<pid_t, int64_t> running;
};

// Points.cpp

/// The workload options of a point (its batch set when it runs).
WorkloadOptions pointWorkload(const SweepPoint &p);
/// The compiler options of a point: `base`, with its axes' values.
CompileOptions pointCompileOptions(const SweepPoint &p, CompileOptions base);
/// Every point's inputs checked as `snapflow run` checks them, before
/// anything is written.
llvm::Error checkPoints(const std::vector<SweepPoint> &points);

/// Everything compiled once and shared by the points of a sweep.
class PointPreparer {
public:
  PointPreparer();

  /// A point's programs, serialized: decode, and (with --prefill) the
  /// prefill of one context-long prompt, or "" when it does not fit (the
  /// row then has no TTFT, as `run` says). Errors are the point's
  /// (ProgramFailure: failed).
  struct Prepared {
    std::string decode, prefill;
  };
  llvm::Expected<Prepared> prepare(const SweepPoint &p, bool withPrefill);

private:
  llvm::Expected<const Workload *> workload(const SweepPoint &p,
                                            const WorkloadOptions &o);

  CompileOptions compile;
  std::map<std::string, Workload> workloads;
  std::map<std::string, int64_t> maxBatches;
};

} // namespace sweep
} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_SWEEP_SWEEPINTERNAL_H
