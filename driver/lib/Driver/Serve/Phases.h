//===- Phases.h - The phases of a serving run -------------------*- C++ -*-===//
//
// `serve()` (Serve.cpp) runs these in order, each in a file of its own:
//
//   Requests.cpp     the deployment's models and cache flags, and the
//                    requests (read or generated), each given its model
//   Buckets.cpp      per model: slots, prompt and context buckets, one graph
//                    per bucket; whether the deployment fits DDR and HBM
//   Costs.cpp        one SystemC run that times every graph (and, with a
//                    model cache, every graph beside a switch and each
//                    switch alone)
//   Loop.cpp         the serving loop, per-request results streamed to CSV
//   ServeReport.cpp  the outcome (latencies), the report, the occupancy CSV
//                    and the trace
//
// Internal to the driver; tests/Unit/ServePhasesTest.cpp tests each phase.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_SERVE_PHASES_H
#define SNAPFLOW_DRIVER_SERVE_PHASES_H

#include "snapflow/Driver/Serve.h"

#include "llvm/Support/Error.h"

#include <array>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace snapflow {
namespace driver {
namespace phases {

using sim::serving::Request;

/// Resident bytes per tier of a program, and apart from them the bytes per
/// tier of its KV tensors (the cache and a policy's state, digests and DDR
/// backup), which are counted in proportion to the live tokens.
struct Residency {
  std::array<double, 3> bytes{};
  std::array<double, 3> kv{};
};
Residency residency(const sim::Program &p);

/// One model of the deployment while it is prepared.
struct Prepared {
  WorkloadOptions o;
  bool maxBatch = false; ///< slots: the most that fit at o.context
  Workload w;
  std::vector<size_t> requests; ///< indices of its requests
  /// Its graphs: prefill buckets, then decode buckets (the last at the
  /// full context). Reserved before the first is built: jobs point at them.
  std::vector<sim::Program> programs;
  std::vector<std::pair<bool, int64_t>> shapes; ///< (prefill, tokens)
  int64_t prefillChunk = kPrefillChunkAuto;
  sim::serving::DeployedModel deployed;
  sim::serving::ServeConfig &cfg() { return deployed.config; }
  const sim::serving::ServeConfig &cfg() const { return deployed.config; }
  Residency res;
  double ddrBytes = 0; ///< per socket: weights and every DDR tensor
  const sim::Program &full() const { return programs.back(); }
};
using Models = std::vector<std::unique_ptr<Prepared>>;

// Requests.cpp

/// The cache options of the deployment (the policy's default by the model
/// count), the forecast window and period checked.
llvm::Expected<sim::serving::CacheOptions> resolveCache(const ServeOptions &so,
                                                        bool several);
/// Each deployed model resolved, named (a config file by its file's name),
/// no name twice.
llvm::Expected<Models>
prepareModels(const std::vector<DeployedWorkload> &workloads);
/// The requests to serve and where they came from.
struct Load {
  std::vector<Request> requests;
  std::string source;
  std::string path;      ///< the trace read; "" when generated
  bool hasModel = false; ///< a read trace with a model column
  /// Tokens per block of the requests' prefix hashes (0: none given).
  int64_t blockTokens = 0;
  /// A public trace's rows with 0 tokens, left out; requests longer than
  /// their slot, left out and clipped (--overlong).
  int64_t emptySkipped = 0, overlongSkipped = 0, overlongClipped = 0;
};
/// Reads --trace-requests or generates the load (every flag in range).
llvm::Expected<Load> loadRequests(const ServeOptions &so, size_t models);
/// Gives each request its model by the trace's model column: a deployed
/// model as given to --model, by its config's name or its file's stem,
/// after --model-map's renaming ("ChatGPT=llama-3.1-70b,...").
llvm::Error assignModels(Load &load, const Models &models, llvm::StringRef path,
                         llvm::StringRef modelMap = "");
/// --write-requests: the load as a trace `--trace-requests` reads back.
llvm::Error writeRequests(llvm::StringRef path, const Load &load,
                          const Models &models);
/// Fits every request to its model's slots as --overlong says (an error,
/// or skipped and clipped requests counted in the load), then hands each
/// model its requests.
llvm::Error
distribute(Load &load, Models &models,
           sim::serving::Overlong overlong = sim::serving::Overlong::Error);

// Buckets.cpp

/// The prompt and decode-context buckets of a model's requests: powers of
/// two from 128 up to `context`, the full context always among the decode
/// ones (it fixes the KV allocation).
struct Buckets {
  std::set<int64_t> prefill, decode;
};
Buckets bucketsOf(const std::vector<Request> &requests,
                  const std::vector<size_t> &mine, int64_t context);
/// Every model's slots and graphs, one per bucket; returns the wall time.
llvm::Expected<double> buildGraphs(Models &models,
                                   const std::vector<Request> &requests,
                                   const CompileOptions &c,
                                   sim::serving::Schedule schedule);
/// Several models: every model's weights fit DDR and, with a static cache,
/// every resident model fits HBM. Sets the cache's HBM capacity.
llvm::Error checkPlacement(const Models &models, const arch::ArchModel &chip,
                           sim::serving::CacheOptions &cache);

// Costs.cpp

/// Times every graph in one SystemC run and fills each model's cost tables
/// and serving configuration; returns the wall time.
llvm::Expected<double> measureCosts(Models &models, const arch::ArchModel &chip,
                                    const SimulateOptions &s,
                                    const sim::serving::CacheOptions &cache,
                                    sim::serving::Schedule schedule);

// Loop.cpp

/// Runs the serving loop, each request's result streamed to
/// --request-results (whole or absent).
llvm::Expected<sim::serving::ServeResult>
runLoop(const Load &load, const Models &models, const arch::ArchModel &chip,
        const sim::serving::CacheOptions &cache, const ServeOptions &so);

// ServeReport.cpp

/// Wall-clock seconds of each phase.
struct WallTimes {
  double compile = 0, simulate = 0, loop = 0;
};
/// The outcome: latencies over every request and per model.
ServeOutcome summarizeOutcome(const sim::serving::ServeResult &r,
                              const Load &load, const Models &models,
                              const arch::ArchModel &chip,
                              const sim::serving::CacheOptions &cache,
                              const ServeOptions &so, const WallTimes &wall);
/// Every option of the load and the schedule that changes a result.
std::string serveOptionsText(const ServeOutcome &out, const ServeOptions &so,
                             const sim::serving::CacheOptions &cache,
                             bool several);
/// Writes the report, the occupancy CSV and the trace `s` asks for.
llvm::Error writeServeOutputs(const ServeOutcome &out,
                              const sim::serving::ServeResult &r,
                              const Load &load, const Models &models,
                              const arch::ArchModel &chip,
                              const sim::serving::CacheOptions &cache,
                              const ServeOptions &so, const SimulateOptions &s,
                              const WallTimes &wall);
/// Occupancy samples to write: all when few, else every k-th plus every
/// change of the active slots, so a long trace stays small.
std::vector<const sim::serving::Sample *>
thin(const std::vector<sim::serving::Sample> &samples, size_t target = 20000);

} // namespace phases
} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_SERVE_PHASES_H
