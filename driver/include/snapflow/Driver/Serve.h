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
//   4. The serving loop (Sim/Serving) replays those costs over the trace,
//      prefill-first or chunked (--schedule): with chunked, every prompt
//      bucket's prefill compiles in chunks of --prefill-chunk tokens and a
//      step carries the decode slots and one chunk.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_SERVE_H
#define SNAPFLOW_DRIVER_SERVE_H

#include "snapflow/Driver/Deployment.h"
#include "snapflow/Driver/OptionValues.h"
#include "snapflow/Driver/Simulate.h"
#include "snapflow/Driver/Workload.h"
#include "snapflow/Sim/Serving/Serving.h"
#include "snapflow/Sim/Serving/Trace.h"

namespace snapflow {
namespace driver {

/// Options of `snapflow run --serve`.
struct ServeOptions {
  std::string requestsPath; ///< --trace-requests; "" to generate
  /// --trace-format (Auto: by its header) and --trace-block-tokens.
  sim::serving::TraceOptions trace;
  /// --model-map: a trace's model names to deployed models, as given
  /// ("ChatGPT=llama-3.1-70b,GPT-4=deepseek-r1"); "" for none.
  std::string modelMap;
  /// --overlong: what becomes of a request longer than a slot holds.
  sim::serving::Overlong overlong = sim::serving::Overlong::Error;
  /// Prefix caching where the trace carries block ids (--no-prefix-cache
  /// turns it off): its tiers ("hbm,ddr" or "hbm") and what a compressing
  /// policy's requests leave for reuse ("full": each prompt's uncompressed
  /// KV; "none").
  /// --slo-ttft, --slo-tpot, --slo-attainment.
  sim::serving::SloOptions slo;
  bool prefixCache = true;
  std::string prefixTiers = "hbm,ddr";
  std::string prefixKeep = "full";
  /// --request-results: every request's result as a CSV row, written as it
  /// completes; "" for none.
  std::string resultsPath;
  /// --write-requests: the requests served (generated or read), as a
  /// snapflow trace with a model column when several models are deployed;
  /// "" for none.
  std::string writeRequestsPath;
  bool generate = false; ///< --rate or --requests given
  /// --schedule: how prefills share the chip with decode steps.
  sim::serving::Schedule schedule = sim::serving::Schedule::PrefillFirst;
  /// Generated requests: the library's generator, whose outputs run 512
  /// tokens by default here (256 in the library).
  sim::serving::GeneratorOptions gen = [] {
    sim::serving::GeneratorOptions g;
    g.outputMean = 512;
    return g;
  }();
  /// Several models: how HBM caches their weights (--model-cache; given or
  /// not: the default is static for one model, on-demand for several), the
  /// forecast window and period (prewarm).
  sim::serving::CacheOptions cache;
  bool cachePolicyGiven = false;
  /// Generated load for several models: each model at --rate requests/s,
  /// following a sine of this period (0: flat Poisson) and amplitude, its
  /// phase the model's position / the models; over durationS seconds (0:
  /// --requests in all).
  double loadPeriodS = 0, loadAmplitude = 0.8, durationS = 0;
  /// The cluster (Sim/Serving/Cluster.h): --nodes replicas of the
  /// deployment behind --router, or --disaggregate P:D prefill and decode
  /// nodes; every node the chip --chip names.
  int64_t nodes = 1;
  /// --batch 1,8,64 or auto: several static decode graphs (one model).
  BatchSet batches;
  sim::serving::Router router = sim::serving::Router::LeastLoaded;
  NodeSplit disaggregate;
  bool cluster() const { return nodes > 1 || disaggregate.given(); }
};

/// The chunk the chunked schedule carries per step when --prefill-chunk is
/// auto: 512 tokens, the smaller token budget Sarathi-Serve evaluates
/// (Agrawal et al., OSDI 2024, arXiv:2403.02310); auto's largest chunk that
/// fits would make a short prompt one chunk, which is prefill-first.
constexpr int64_t kScheduleChunk = 512;

/// p50, p90, p99, the mean and the largest of a latency.
struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0, mean = 0, max = 0;
};
Percentiles summarize(const std::vector<double> &values);
Percentiles summarize(const sim::serving::Distribution &values);

/// One model of a served deployment: what it is, what it cost and how its
/// requests fared.
struct ModelOutcome {
  std::string name, kv;
  int64_t slots = 0, context = 0, requests = 0;
  /// Per socket: the weights a switch moves, what it holds in HBM while
  /// resident.
  double weightBytes = 0, hbmBytes = 0;
  double switchS = 0; ///< a switch alone (SystemC)
  double switchJ = 0; ///< its energy at the wall (docs/Energy.md)
  sim::serving::CostTable costs;
  Percentiles ttft, tpot, tbt, switchWait;
  double throughputTokensPerS = 0;
};

/// A set of static decode graphs --batch auto tried: their slots, the
/// requests per second meeting every SLO, and the share that did.
struct GraphCandidate {
  std::vector<int64_t> sizes;
  double goodputRequestsPerS = 0, sloShare = 0;
};

/// Served this much slower than the requests arrived, with the queue
/// growing, a deployment is over capacity: 10%, past what the last
/// requests' own latency adds to a run that keeps up.
constexpr double kOverloadRatio = 1.1;

/// What a serving run measured.
struct ServeOutcome {
  std::string model, chip, kv, source;
  sim::serving::Schedule schedule = sim::serving::Schedule::PrefillFirst;
  /// The prefill chunk of the compiled prefill graphs: chunked's per-step
  /// chunk, or --prefill-chunk (kPrefillChunkAuto) with prefill-first.
  int64_t prefillChunk = kPrefillChunkAuto;
  int64_t tp = 0, slots = 0, context = 0, requests = 0, graphs = 0;
  /// A trace's rows left out: with 0 tokens (failed requests), and longer
  /// than a slot (--overlong skip); and the ones clipped to fit.
  int64_t emptySkipped = 0, overlongSkipped = 0, overlongClipped = 0;
  sim::serving::Overlong overlong = sim::serving::Overlong::Error;
  /// The offered load against what was served (docs/Serving.md,
  /// "Overload"): requests per second over the arrivals' span, the ratio
  /// of that to requestsPerS, and whether the deployment fell behind (the
  /// ratio past kOverloadRatio and the queue longer at the last arrival
  /// than a tenth of the way in).
  double offeredRequestsPerS = 0, loadRatio = 0;
  bool overloaded = false;
  /// Prefix caching (blockTokens 0: off): the model's cache as planned,
  /// and what it did (ServeResult::prefix).
  sim::serving::PrefixOptions prefix;
  /// The SLOs given, the share of requests meeting each and both, goodput
  /// (requests meeting both per second of makespan), and whether the share
  /// meeting both reaches the attainment target.
  sim::serving::SloOptions slo;
  double sloTtftShare = 0, sloTpotShare = 0, sloShare = 0;
  double goodputRequestsPerS = 0;
  bool sloMet = false;
  sim::serving::CostTable costs;
  sim::serving::ServeResult result;
  Percentiles ttft, tpot, e2e, wait;
  Percentiles tbt; ///< time between tokens (ServeResult::tokenGaps)
  double throughputTokensPerS = 0, requestsPerS = 0;
  double tokensPerStep = 1; ///< accepted per sequence and decode step (MTP)
  /// Tokens a decode step emits per sequence by construction: a Block
  /// Transformer's block (4 for the 1.2B), else 1.
  int64_t blockTokens = 1;
  double kvPeakBytes = 0, kvMeanBytes = 0, kvAllocatedBytes = 0;
  double compileS = 0, simulateS = 0, loopS = 0; ///< wall-clock
  /// Every model of the deployment (one for a single model), and how HBM
  /// cached them.
  std::vector<ModelOutcome> models;
  sim::serving::CachePolicy cachePolicy = sim::serving::CachePolicy::Static;
  /// A cluster (ServeOptions::cluster; one node: `nodes` 1): its shape and
  /// link, and the KV its prefill nodes sent, per request on average, with
  /// each transfer's time (prefill's end to the KV's arrival) and its wait
  /// for the link.
  sim::serving::ClusterOptions cluster;
  double kvSentBytesPerRequest = 0;
  Percentiles transfer, transferWait;
  /// Several static decode graphs (one model): their slots, ascending
  /// (empty: one graph), each one's extra time after another; with --batch
  /// auto, every candidate set served and the one picked.
  std::vector<int64_t> graphSizes;
  std::vector<double> graphSwitchS;
  std::vector<GraphCandidate> graphCandidates;
  int64_t graphPicked = -1;
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
/// Serves a deployment of several models on one chip (every workload names
/// the same chip; each its own KV policy, slots and context): their weights
/// in DDR, HBM caching the ones in use (ServeOptions::cache). A request
/// file's model column names a model of the deployment.
llvm::Expected<ServeOutcome>
serve(const std::vector<DeployedWorkload> &deployment,
      const CompileOptions &compile, const SimulateOptions &simulate,
      const ServeOptions &serve);

} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_SERVE_H
