//===- Serve.cpp - A serving deployment -----------------------------------===//
//
// The deployment of `snapflow run --serve` (Serve.h): its phases, each in a
// file of Serve/ (Phases.h), run in order.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Driver/Serve.h"

#include "Serve/Phases.h"

#include "snapflow/Driver/Errors.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <chrono>
#include <cmath>

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::sim::serving;
using llvm::Error;

namespace {
constexpr int64_t kMinBucket = 128;
} // namespace

int64_t snapflow::driver::bucketFor(int64_t tokens, int64_t cap) {
  int64_t b = kMinBucket;
  while (b < tokens && b < cap) {
    if (b > cap / 2) // the next doubling passes the cap (or 64 bits)
      return cap;
    b *= 2;
  }
  return std::min(b, cap);
}

Percentiles snapflow::driver::summarize(const std::vector<double> &v) {
  Percentiles p;
  p.p50 = percentile(v, 0.50);
  p.p90 = percentile(v, 0.90);
  p.p99 = percentile(v, 0.99);
  for (double x : v) {
    p.mean += x;
    p.max = std::max(p.max, x);
  }
  p.mean = v.empty() ? 0 : p.mean / double(v.size());
  return p;
}

Percentiles snapflow::driver::summarize(const Distribution &d) {
  return {d.percentile(0.50), d.percentile(0.90), d.percentile(0.99), d.mean(),
          d.max()};
}

llvm::Expected<ServeOutcome> snapflow::driver::serve(const WorkloadOptions &o,
                                                     bool maxBatch,
                                                     const CompileOptions &c,
                                                     const SimulateOptions &s,
                                                     const ServeOptions &so) {
  return serve(std::vector<DeployedWorkload>{{o, maxBatch}}, c, s, so);
}

llvm::Expected<ServeOutcome>
snapflow::driver::serve(const std::vector<DeployedWorkload> &workloads,
                        const CompileOptions &c, const SimulateOptions &s,
                        const ServeOptions &so) {
  using namespace phases;
  if (workloads.empty())
    return makeError("--serve needs at least one model");
  const bool several = workloads.size() > 1;
  auto cache = resolveCache(so, several);
  if (!cache)
    return cache.takeError();
  auto models = prepareModels(workloads);
  if (!models)
    return models.takeError();
  const arch::ArchModel &chip = (*models)[0]->w.chip;
  // 1. Requests: opened or set up, then a first pass (each given its
  // model, fitted, counted, its shapes gathered).
  auto load = loadRequests(so, models->size());
  if (!load)
    return load.takeError();
  if (Error e = scan(*load, *models, so))
    return std::move(e);
  // 2. Per model: slots, buckets and their graphs; the placement.
  WallTimes wall;
  auto compiled = buildGraphs(*models, c, so.schedule, so.batches);
  if (!compiled)
    return compiled.takeError();
  wall.compile = *compiled;
  if (Error e = checkPlacement(*models, chip, *cache))
    return std::move(e);
  // 3. One SystemC run for the step costs.
  auto simulated = measureCosts(*models, chip, s, *cache, so.schedule);
  if (!simulated)
    return simulated.takeError();
  wall.simulate = *simulated;
  // --batch auto: the set of static graphs that serves the load best.
  auto graphs = chooseGraphs(*load, *models, chip, *cache, so);
  if (!graphs)
    return graphs.takeError();
  // 4. The loop, a second pass over the requests; the report's per-request
  // results go a line at a time to a temporary file, removed at the end.
  llvm::SmallString<128> resultLines;
  if (!s.reportPath.empty()) {
    int fd;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "snapflow-results", "jsonl", fd, resultLines))
      return makeError("--report: a temporary file for the requests' "
                       "results: " +
                       ec.message());
    (void)llvm::sys::fs::closeFile(fd);
  }
  auto removeLines = llvm::make_scope_exit([&] {
    if (!resultLines.empty())
      (void)llvm::sys::fs::remove(resultLines);
  });
  auto start = std::chrono::steady_clock::now();
  auto served = runLoop(*load, *models, chip, *cache, so, resultLines);
  if (!served)
    return served.takeError();
  wall.loop =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  // 5. The outcome and the files.
  ServeOutcome out = summarizeOutcome(*served, *load, *models, chip, *cache, so,
                                      wall, *graphs);
  if (Error e = writeServeOutputs(out, *served, *load, *models, chip, *cache,
                                  so, s, wall, resultLines))
    return std::move(e);
  out.result = std::move(*served);
  return std::move(out);
}
