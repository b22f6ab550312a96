//===- Serve.h - A serving deployment --------------------------*- C++ -*-===//
//
// Serving a request trace on a deployment: --batch static slots of --context
// tokens each, with the KV policy resolved once for --context.
//
//   1. Requests: read (--trace-requests) or generated (--rate, --requests);
//      each must fit a slot.
//   2. Shapes: prompt lengths round up to power-of-two buckets (at least 128,
//      at most --context) and so do decode contexts, as a static-graph
//      deployment keeps one compiled graph per bucket. Each bucket is
//      compiled; a bucket within the KV budget keeps every token (full),
//      a larger one uses the policy with its budget fixed for --context.
//   3. Costs: one SystemC run times every bucket's graph (prefill once,
//      decode two steps so the second is steady state).
//   4. The serving loop (Sim/Serving) replays those costs over the trace.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_SERVE_H
#define SNAPFLOW_DRIVER_SERVE_H

#include "snapflow/Driver/Simulate.h"
#include "snapflow/Driver/Workload.h"
#include "snapflow/Sim/Serving/Serving.h"

namespace snapflow {
namespace driver {

/// Options of `snapflow run --serve`.
struct ServeOptions {
  std::string requestsPath; ///< --trace-requests; "" to generate
  /// --trace-format: the file's format, or Auto (by its header).
  sim::serving::TraceFormat traceFormat = sim::serving::TraceFormat::Auto;
  /// --request-results: every request's result as a CSV row, written as it
  /// completes; "" for none.
  std::string resultsPath;
  bool generate = false;    ///< --rate or --requests given
  sim::serving::GeneratorOptions gen;
};

/// p50, p90, p99 and the mean of a latency.
struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0, mean = 0;
};
Percentiles summarize(const std::vector<double> &values);

/// What a serving run measured.
struct ServeOutcome {
  std::string model, chip, kv, source;
  int64_t tp = 0, slots = 0, context = 0, requests = 0, graphs = 0;
  sim::serving::CostTable costs;
  sim::serving::ServeResult result;
  Percentiles ttft, tpot, e2e, wait;
  double throughputTokensPerS = 0, requestsPerS = 0;
  double tokensPerStep = 1; ///< accepted per sequence and decode step (MTP)
  double kvPeakBytes = 0, kvMeanBytes = 0, kvAllocatedBytes = 0;
  double compileS = 0, simulateS = 0, loopS = 0; ///< wall-clock
};

/// The power-of-two bucket (at least 128 tokens) a request of `tokens`
/// tokens runs in, capped at `cap`; checked, so a huge length cannot loop.
int64_t bucketFor(int64_t tokens, int64_t cap);

/// Serves the requests; writes the report, trace and CSV `simulate` asks
/// for.
llvm::Expected<ServeOutcome> serve(const WorkloadOptions &workload,
                                   bool maxBatch, const CompileOptions &compile,
                                   const SimulateOptions &simulate,
                                   const ServeOptions &serve);

} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_SERVE_H
