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
#include "llvm/Support/JSON.h"

#include <array>
#include <climits>
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

/// The prompt and decode-context buckets of a model's requests, gathered
/// as they pass (add), then closed: powers of two from 128 up to
/// `context`, the full context always among the decode ones (it fixes the
/// KV allocation).
struct Buckets {
  std::set<int64_t> prefill, decode;
  /// The shortest context a decode step starts from, the longest reached.
  int64_t shortest = INT64_MAX, longest = 0;
  void add(const Request &r, int64_t context);
  void close(int64_t context);
};

/// One model of the deployment while it is prepared.
struct Prepared {
  WorkloadOptions o;
  bool maxBatch = false; ///< slots: the most that fit at o.context
  Workload w;
  int64_t requests = 0; ///< requests it serves (scan)
  Buckets buckets;      ///< its requests' shapes (scan)
  /// Tokens a block of its prefix cache; 0: no prefix caching (scan).
  int64_t prefixBlockTokens = 0;
  bool prefixDdr = true; ///< the cache's second tier (--prefix-tiers)
  /// Prefix caching, prefill-first: each prompt bucket's prefill in
  /// block-sized chunks, timed for the shape of its cost. Reserved before
  /// the first is built: jobs point at them.
  std::vector<sim::Program> profiles;
  /// Its graphs: prefill buckets, then decode buckets (the last at the
  /// full context). Reserved before the first is built: jobs point at them.
  std::vector<sim::Program> programs;
  std::vector<std::pair<bool, int64_t>> shapes; ///< (prefill, tokens)
  /// Several static decode graphs (--batch 1,8,64 or auto): every graph's
  /// slots ascending, the last the model's slots; and the smaller graphs'
  /// decode programs, graph by graph, each decode bucket in order.
  /// Reserved before the first is built: jobs point at them.
  std::vector<int64_t> graphSizes;
  std::vector<sim::Program> graphPrograms;
  /// graphPrograms' program of graph `g` (not the last) at decode bucket
  /// `b`; the last graph's are `programs`'.
  const sim::Program &graphProgram(size_t g, size_t b) const {
    return graphPrograms[g * buckets.decode.size() + b];
  }
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
/// The requests to serve and where they came from: a trace read a row at a
/// time or a generator (`stream`), or a list (`requests`, as tests give
/// them). Every pass over them (scan, then the loop) starts again from the
/// first.
struct Load {
  std::unique_ptr<sim::serving::RequestSource> stream;
  sim::serving::TraceReader *trace = nullptr; ///< `stream`, when a trace
  std::vector<Request> requests;
  std::string source;
  std::string path;      ///< the trace read; "" when generated
  bool hasModel = false; ///< a read trace with a model column
  /// Tokens per block of the requests' prefix hashes (0: none given).
  int64_t blockTokens = 0;
  /// Counted by the scan: the requests to serve; a public trace's rows with
  /// 0 tokens, left out; requests longer than their slot, left out and
  /// clipped (--overlong).
  int64_t served = 0;
  int64_t emptySkipped = 0, overlongSkipped = 0, overlongClipped = 0;
  /// The stream, or the list.
  sim::serving::RequestSource &input();

private:
  std::unique_ptr<sim::serving::ListSource> list;
  const Request *listData = nullptr;
  size_t listSize = 0;
};
/// Opens --trace-requests (its header read) or sets up the generator
/// (every flag in range).
llvm::Expected<Load> loadRequests(const ServeOptions &so, size_t models);
/// A pass over the requests as served, from the first: each given its
/// model by the trace's model column (a deployed model as given to
/// --model, by its config's name or its file's stem, after --model-map's
/// renaming, "ChatGPT=llama-3.1-70b,...") and fitted to its model's slots
/// as --overlong says (an error, or left out, or clipped).
llvm::Expected<std::unique_ptr<sim::serving::RequestSource>>
admitted(Load &load, const Models &models, const ServeOptions &so);
/// The first pass: every model's slot context set, every request admitted,
/// counted and its shapes put in its model's buckets, the load's counts
/// set, and --write-requests written (the requests served, as a trace
/// --trace-requests reads back, with a model column when several models
/// are deployed).
llvm::Error scan(Load &load, Models &models, const ServeOptions &so);

// Buckets.cpp

/// Every model's slots and graphs, one per bucket (and per static graph of
/// `batches`); returns the wall time.
llvm::Expected<double> buildGraphs(Models &models, const CompileOptions &c,
                                   sim::serving::Schedule schedule,
                                   const BatchSet &batches);
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

// Graphs.cpp

/// The static graphs --batch names for a model of `slots` slots: the
/// sizes given (max: `slots`), or for auto every power of two below
/// `slots` and `slots`; ascending.
std::vector<int64_t> graphSizes(const BatchSet &batches, int64_t slots);
/// --batch auto: what each candidate set of graphs served, and the one
/// picked (the most goodput; ties: fewer slots, then fewer graphs).
struct GraphChoice {
  std::vector<GraphCandidate> candidates;
  size_t picked = 0;
};
/// Serves the load with each candidate set of the model's graphs (each
/// largest graph alone, and with every smaller one), keeps the best in
/// the model's costs and slots, and says what each did.
llvm::Expected<GraphChoice>
chooseGraphs(Load &load, Models &models, const arch::ArchModel &chip,
             const sim::serving::CacheOptions &cache, const ServeOptions &so);

/// The report's `static_graphs`: null with one graph; else their slots,
/// switch costs, steps each ran, and --batch auto's candidates.
llvm::json::Value graphsJson(const ServeOutcome &out,
                             const sim::serving::ServeResult &r);

// Loop.cpp

/// Runs the serving loop over a second pass of the requests, each result
/// streamed as it completes to --request-results (whole or absent) and,
/// when `resultLines` names a file, as a JSON object a line there (the
/// report's per-request results, spliced in by writeServeOutputs: memory
/// does not grow with the trace).
llvm::Expected<sim::serving::ServeResult>
runLoop(Load &load, const Models &models, const arch::ArchModel &chip,
        const sim::serving::CacheOptions &cache, const ServeOptions &so,
        llvm::StringRef resultLines = "");

// Cluster.cpp

/// The cluster `so` names, its link the chip's node ports; with
/// disaggregated serving, each of `deployed`'s models given the KV it
/// sends (ServeConfig::kvSendBytesPerToken, kvSendFixedBytes).
llvm::Expected<sim::serving::ClusterOptions>
clusterOptions(const ServeOptions &so, const arch::ArchModel &chip,
               const Models &models,
               std::vector<sim::serving::DeployedModel> &deployed);
/// The outcome's cluster figures (ServeOutcome::cluster and after).
void summarizeCluster(ServeOutcome &out, const sim::serving::ServeResult &r,
                      const ServeOptions &so, const arch::ArchModel &chip);
/// The report's `cluster`: null on one node; else its shape, link, each
/// node's load and the KV transfers.
llvm::json::Value clusterJson(const ServeOutcome &out,
                              const sim::serving::ServeResult &r);

// ServeReport.cpp

/// p50, p90, p99, mean and max as the report lists a latency.
llvm::json::Object toJson(const Percentiles &p);

/// Wall-clock seconds of each phase.
struct WallTimes {
  double compile = 0, simulate = 0, loop = 0;
};
/// The outcome: latencies over every request and per model.
ServeOutcome summarizeOutcome(const sim::serving::ServeResult &r,
                              const Load &load, const Models &models,
                              const arch::ArchModel &chip,
                              const sim::serving::CacheOptions &cache,
                              const ServeOptions &so, const WallTimes &wall,
                              const GraphChoice &graphs);
/// Every option of the load and the schedule that changes a result.
std::string serveOptionsText(const ServeOutcome &out, const ServeOptions &so,
                             const sim::serving::CacheOptions &cache,
                             bool several);
/// Writes the report (its per-request results from `resultLines`, as
/// runLoop wrote them), the occupancy CSV and the trace `s` asks for.
llvm::Error writeServeOutputs(const ServeOutcome &out,
                              const sim::serving::ServeResult &r,
                              const Load &load, const Models &models,
                              const arch::ArchModel &chip,
                              const sim::serving::CacheOptions &cache,
                              const ServeOptions &so, const SimulateOptions &s,
                              const WallTimes &wall,
                              llvm::StringRef resultLines = "");
/// Occupancy samples to write: all when few, else every k-th plus every
/// change of the active slots, so a long trace stays small.
std::vector<const sim::serving::Sample *>
thin(const std::vector<sim::serving::Sample> &samples, size_t target = 20000);

} // namespace phases
} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_SERVE_PHASES_H
