//===- Context.h - The driver's one MLIR context ----------------*- C++ -*-===//
//
// Every command of a snapflow process compiles in one MLIR context: the
// workload's KV policy and format are parsed into it once (resolveWorkload)
// and travel as its attributes into every compile of that workload (its
// buckets, its largest-batch search, a sweep point's decode and prefill),
// never re-parsed from their labels. Built on first use, single-threaded
// (a sweep's parallelism is its worker processes), alive until the process
// ends.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_CONTEXT_H
#define SNAPFLOW_DRIVER_CONTEXT_H

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace snapflow {
namespace driver {

/// The process's MLIR context for compiling workloads.
mlir::MLIRContext &driverContext();

} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_CONTEXT_H
