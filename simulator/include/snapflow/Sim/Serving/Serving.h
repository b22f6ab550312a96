//===- Serving.h - Continuous batching over static slots -------*- C++ -*-===//
//
// The serving loop: requests arrive, wait for one of B static slots, run
// their prefill (batch 1; SnapKV selection is part of the prefill graph when
// the prompt exceeds the KV budget), then take part in decode steps of the
// whole B-slot graph until their output is complete; a finished slot is
// refilled by the next waiting request. A static graph costs the same every
// time it runs with the same shapes, so the loop replays step costs the
// SystemC model measured once per shape (CostTable) instead of simulating
// every step again: this is what makes 1,000 requests take seconds.
//
// Two schedules (Schedule), one event at a time on one chip.
//
// Prefill-first (vLLM's default):
//   1. a waiting request that has arrived and a free slot: run its whole
//      prefill (first come, first served; prefill before decode);
//   2. else, with any slot decoding: one decode step, with the graph of the
//      smallest context bucket that holds the longest live sequence;
//   3. else: idle until the next arrival.
//
// Chunked (stall-free, as Sarathi-Serve mixes): a step carries the decode
// slots and at most one chunk of one request's prefill. The head waiting
// request takes a free slot when no other prefill is under way; each step
// then runs the decode graph (when any slot decodes) and the next chunk of
// that prompt's chunked prefill graph. The two are separate static graphs
// that run one after the other on the chip, so a mixed step costs the
// decode step plus the chunk's time, each as the SystemC model timed it
// with its own configuration load. The request's first token comes at the
// end of the step that carries its last chunk.
//
// Every decoding slot gains one token per step (with MTP its accepted
// tokens); a request's first token comes from its prefill.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_SERVING_SERVING_H
#define SNAPFLOW_SIM_SERVING_SERVING_H

#include "snapflow/Sim/Serving/ModelCache.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace snapflow {
namespace sim {
namespace serving {

/// What snapflow accepts of a load (docs/Serving.md, "Limits"), checked
/// where a request is read or a generator flag given:
/// - arrivals in [0, kMaxArrivalS]: 1e8 s (about 3 years), where a double
///   still resolves an event time to 15 ns, far below any step;
/// - prompt and output tokens in [1, kMaxTokens], the longest context a
///   model config may declare (max_position_embeddings up to 2^27);
/// - any number of requests: a trace is streamed and the loop holds only
///   the requests in flight;
/// - a generated rate in [kMinRate, kMaxRate] requests/s;
/// - at most kMaxColumns columns in a request file: the published traces
///   have 3 to 7, and every row is split into that many fields;
/// - at most kMaxNodes nodes in a cluster (Cluster.h), past the 278 nodes
///   of DeepSeek's own peak deployment.
namespace limits {
constexpr int64_t kMaxNodes = 1024;
constexpr double kMaxArrivalS = 1e8;
constexpr int64_t kMaxTokens = int64_t(1) << 27;
constexpr double kMinRate = 1e-6, kMaxRate = 1e6;
constexpr int64_t kMaxColumns = 1024;
} // namespace limits

struct Request {
  int64_t id = 0;
  double arrivalS = 0;
  int64_t promptTokens = 0, outputTokens = 0;
  int64_t line = 0; ///< line of the request file (0: generated)
  /// The model it asks for: its index in the deployment, and its name as
  /// the trace gave it ("" when the trace has no model column).
  int model = 0;
  std::string modelName;
  /// Prefix block hashes as the trace gives them (Mooncake's hash_ids):
  /// requests whose first k ids are equal share their first k blocks of
  /// the trace's block size (TraceInfo::blockTokens); empty: none given.
  std::vector<int64_t> blocks;
};

/// Requests in arrival order, one at a time: a trace streamed from its file
/// (Trace.h), a generator, or a list. The loop holds only the requests in
/// flight, so a trace of any length is served in bounded memory.
class RequestSource {
public:
  virtual ~RequestSource() = default;
  /// The next request; std::nullopt at the end.
  virtual llvm::Expected<std::optional<Request>> next() = 0;
  /// Starts again at the first request (a second pass).
  virtual llvm::Error rewind() = 0;
};

/// A list's requests as they are (in arrival order; not owned).
class ListSource : public RequestSource {
public:
  explicit ListSource(llvm::ArrayRef<Request> requests) : requests(requests) {}
  llvm::Expected<std::optional<Request>> next() override {
    if (at >= requests.size())
      return std::optional<Request>();
    return std::optional<Request>(requests[at++]);
  }
  llvm::Error rewind() override {
    at = 0;
    return llvm::Error::success();
  }

private:
  llvm::ArrayRef<Request> requests;
  size_t at = 0;
};

/// A seeded synthetic workload: Poisson arrivals at `rate` per second;
/// prompt and output lengths uniform in mean*(1 -+ spread), at least 1.
/// Reproducible across platforms (mt19937_64 and explicit transforms).
struct GeneratorOptions {
  double rate = 1.0;
  int64_t count = 100;
  uint64_t seed = 1;
  int64_t promptMean = 4096, outputMean = 256;
  double spread = 0.5;
};
std::vector<Request> generateRequests(const GeneratorOptions &options);
/// generateRequests's requests, drawn one at a time.
class PoissonSource : public RequestSource {
public:
  explicit PoissonSource(const GeneratorOptions &options);
  llvm::Expected<std::optional<Request>> next() override;
  llvm::Error rewind() override;

private:
  GeneratorOptions o;
  std::mt19937_64 rng;
  double t = 0;
  int64_t i = 0;
};

/// One model's load in a periodic multi-model workload: Poisson arrivals at
/// rate(t) = rate x (1 + amplitude x sin(2 pi (t / period + phase))), drawn
/// by thinning (Lewis and Shedler), lengths as GeneratorOptions draws them.
struct PeriodicLoad {
  double rate = 1;      ///< mean requests per second
  double amplitude = 0; ///< in [0, 1]
  double periodS = 600;
  double phase = 0; ///< fraction of a period
  int64_t promptMean = 1024, outputMean = 256;
  double spread = 0.5;
};
/// Requests of every model (Request::model its index in `loads`) over
/// [0, durationS), in arrival order; each model draws from its own stream
/// of the seed, so adding a model leaves the others' requests unchanged.
std::vector<Request> generatePeriodic(llvm::ArrayRef<PeriodicLoad> loads,
                                      double durationS, uint64_t seed);
/// generatePeriodic's requests, drawn one at a time: each model's next
/// request held, the earliest given.
class PeriodicSource : public RequestSource {
public:
  PeriodicSource(std::vector<PeriodicLoad> loads, double durationS,
                 uint64_t seed);
  llvm::Expected<std::optional<Request>> next() override;
  llvm::Error rewind() override;

private:
  struct Stream {
    std::mt19937_64 rng;
    double t = 0;
    std::optional<Request> pending;
  };
  void draw(size_t model);
  std::vector<PeriodicLoad> loads;
  double durationS;
  uint64_t seed;
  std::vector<Stream> streams;
  int64_t id = 0;
};

/// What becomes of a request whose prompt and output exceed a slot's
/// context: an error at its line, left out, or clipped to fit (the prompt
/// shortened first, to one token at least, then the output), as Vidur's
/// replay trims prefill tokens.
enum class Overlong { Error, Skip, Clip };
/// "error", "skip", "clip".
llvm::StringRef overlongName(Overlong overlong);
std::optional<Overlong> parseOverlong(llvm::StringRef name);

/// How prefills and decode steps share the chip (see the file comment).
enum class Schedule { PrefillFirst, Chunked };
/// "prefill-first", "chunked".
llvm::StringRef scheduleName(Schedule schedule);
std::optional<Schedule> parseSchedule(llvm::StringRef name);

/// Seconds of one run of a graph, per shape. Buckets are sorted; a shape
/// uses the smallest bucket that holds it.
struct CostTable {
  std::vector<int64_t> prefillBuckets; ///< prompt tokens
  std::vector<double> prefillS;
  /// Per prefill bucket, each chunk's seconds in order (they add up to
  /// prefillS): what the chunked schedule charges the step that carries
  /// that chunk. Empty (or an empty entry): the prefill is one chunk.
  std::vector<std::vector<double>> prefillChunkS;
  /// With prefix caching, prefill-first: per prefill bucket, its prefill's
  /// chunk times when run in block-sized chunks, the shape of its cost over
  /// the prompt. A prefill whose first k such chunks are cached costs the
  /// other chunks' share of prefillS. Empty: the bucket's own chunks.
  std::vector<std::vector<double>> prefillProfileS;
  /// Tokens a chunk of prefillChunkS and of prefillProfileS (0: not
  /// known; the bucket over its chunks).
  int64_t prefillChunkTokens = 0, prefillProfileTokens = 0;
  std::vector<int64_t> decodeBuckets; ///< context tokens of the longest slot
  std::vector<double> decodeStepS;
  /// Several static decode graphs (--batch 1,8,64): their slots, ascending,
  /// the last the deployment's (ServeConfig::slots); per graph its step
  /// per decode bucket (the last graph's are decodeStepS); and per graph
  /// the extra time of a step that follows another graph's (SystemC: the
  /// step run right after the other graph, less its step after itself).
  /// A decode step runs the smallest graph that holds the slots decoding.
  /// Empty: one graph, of every slot.
  std::vector<int64_t> graphSlots;
  std::vector<std::vector<double>> graphStepS;
  std::vector<double> graphSwitchS;
  /// The node's dynamic power while a step runs (watts, its acting
  /// sockets' charged actions over the step's time, before the wall's
  /// losses; docs/Energy.md): per prefill bucket, per decode bucket, and
  /// per static graph and decode bucket (parallel to graphStepS). Empty:
  /// no energy is charged.
  std::vector<double> prefillW, decodeW;
  std::vector<std::vector<double>> graphW;

  /// Index of the smallest bucket >= tokens, or -1.
  static int bucketOf(llvm::ArrayRef<int64_t> buckets, int64_t tokens);
};

struct ServeConfig {
  int64_t slots = 1;
  int64_t maxContext = 0; ///< prompt + output tokens allowed per request
  /// Where maxContext was given, for errors ("--context").
  std::string maxContextFrom = "--context";
  /// KV tokens a slot keeps (the policy's budget; maxContext for full KV).
  int64_t kvTokensPerSlot = 0;
  double kvBytesPerToken = 0; ///< per socket
  /// The KV a prefill node sends a decode node (Cluster.h), every socket's
  /// once (a cache replicated on every socket crosses once): bytes per
  /// token kept, and bytes per request whatever its length (windowed
  /// layers' rings, whole).
  double kvSendBytesPerToken = 0, kvSendFixedBytes = 0;
  double weightBytes = 0;      ///< per socket, resident
  double kvAllocatedBytes = 0; ///< per socket, the static KV allocation
  /// Tokens a decode step accepts per sequence: 1, or with MTP speculation
  /// its expected value from the acceptance rate; a sequence accumulates
  /// them and emits the whole tokens.
  double tokensPerStep = 1;
  Schedule schedule = Schedule::PrefillFirst;
  /// The node's power with nothing running, at the wall (its sockets'
  /// static power and the host's, with the wall's losses), and the wall's
  /// factor on what steps add (system.wall_power_factor). A node's models
  /// share one chip: the loop reads its first model's.
  double idleW = 0, wallPowerFactor = 1;
};

/// What happened to one request (seconds).
struct RequestResult {
  int64_t id = 0, slot = -1;
  int model = 0;
  /// Time it waited for its model to be switched into HBM (part of TTFT).
  double switchWaitS = 0;
  double arrivalS = 0, prefillStartS = 0, firstTokenS = 0, finishS = 0;
  int64_t promptTokens = 0, outputTokens = 0;
  /// Prompt tokens whose KV came from the prefix cache (PrefixCache.h).
  int64_t prefixHitTokens = 0;
  /// The node that took it (a cluster's, Cluster.h; 0 on one node); with
  /// disaggregated serving the prefill node, and the decode node its KV
  /// went to (-1: none).
  int node = 0, decodeNode = -1;
  /// Disaggregated: its KV's bytes over the link (every socket's), and the
  /// time from its prefill's end to their arrival, the wait for the link
  /// included (part of its TTFT: firstTokenS is that arrival).
  double kvSentBytes = 0, transferS = 0;
  /// Its energy at the wall (docs/Energy.md): its prefill's and its share
  /// of each decode step's dynamic energy (the step's split over the
  /// requests decoding), and of the node's idle power over those steps.
  double energyJ = 0;
  double ttftS() const { return firstTokenS - arrivalS; }
  /// Time per output token after the first; 0 for one-token outputs.
  double tpotS() const {
    return outputTokens > 1 ? (finishS - firstTokenS) / double(outputTokens - 1)
                            : 0;
  }
};

/// Prefix caching of a model (PrefixCache.h, docs/Serving.md "Prefix
/// caching"): off while blockTokens is 0.
struct PrefixOptions {
  int64_t blockTokens = 0; ///< tokens a block, the trace's
  double blockBytes = 0;   ///< a block's KV per socket
  /// Capacities in blocks: the HBM the plan leaves free, and DDR's (0: no
  /// DDR tier).
  int64_t hbmBlocks = 0, ddrBlocks = 0;
  /// Bytes per second of a move DDR to HBM and HBM to DDR, as the SystemC
  /// model timed a copy of each alone.
  double promoteBps = 0, demoteBps = 0;
  /// Whether a request reuses and leaves its prompt's blocks: false where
  /// a compressing policy's requests reuse nothing (--prefix-keep none).
  bool reuse = true;
};

/// What prefix caching did over a run.
struct PrefixResult {
  /// Prompt tokens looked up and found (vLLM's hit rate: hit / queried).
  int64_t queriedTokens = 0, hitTokens = 0;
  /// Blocks found, of them in DDR (moved up); blocks put in, moved down to
  /// DDR, and dropped from the last tier.
  int64_t hitBlocks = 0, ddrHitBlocks = 0, insertedBlocks = 0,
          demotedBlocks = 0, droppedBlocks = 0;
  /// Bytes per socket: reused (the hits' KV), moved up and moved down.
  double reusedBytes = 0, promotedBytes = 0, demotedBytes = 0;
  /// Time moving blocks between tiers (on the chip's timeline, before a
  /// prefill that needs them and after one that pushed blocks down), and
  /// prefill time not spent (the chunks the hits skipped).
  double moveS = 0, prefillSavedS = 0;
  /// Blocks held per tier at the peak, and bytes per socket held per tier
  /// on average over the makespan.
  int64_t peakHbmBlocks = 0, peakDdrBlocks = 0;
  double hbmMeanBytes = 0, ddrMeanBytes = 0;
};

/// Occupancy after an event.
struct Sample {
  double timeS = 0;
  int64_t activeSlots = 0, waiting = 0;
  double kvLiveBytes = 0; ///< per socket: tokens held, capped per slot
  /// Several models: the HBM each holds per socket (its weights, KV
  /// allocation and other HBM tensors while resident or being switched in;
  /// 0 otherwise). Empty with one model.
  std::vector<double> hbmByModel;
  /// With prefix caching: the blocks' KV held per tier, per socket.
  double prefixHbmBytes = 0, prefixDdrBytes = 0;
};

/// A span on a slot's timeline (prefill of a request, or its decoding).
struct Span {
  int model = 0;
  int64_t slot = 0, request = 0;
  bool prefill = true;
  double startS = 0, endS = 0;
  int node = 0; ///< a cluster's node (Cluster.h)
};

/// A distribution kept as its distinct values and their counts, so that
/// percentiles over billions of samples that take few distinct values are
/// exact in little memory (the gaps between tokens are sums of a few step
/// costs). Past kExactValues distinct values (latencies over a long trace
/// take a new value per request) every value is kept to kRelativeError of
/// itself instead, on a logarithmic grid, so memory stays bounded; the
/// mean and the largest value stay exact.
class Distribution {
public:
  static constexpr size_t kExactValues = size_t(1) << 16;
  static constexpr double kRelativeError = 1e-4;
  void add(double value, int64_t count = 1);
  int64_t count() const { return total; }
  /// Adds every value of `other` (a cluster's nodes into one; values kept
  /// to kRelativeError stay so).
  void merge(const Distribution &other);
  /// Nearest rank, as `percentile`; 0 when empty.
  double percentile(double q) const;
  double mean() const { return total ? sum / double(total) : 0; }
  double max() const { return total ? largest : 0; }
  size_t distinct() const;
  /// Whether the values are kept to kRelativeError (past kExactValues).
  bool approximate() const { return coarse; }

private:
  /// Coarse: the grid point k of a positive value, (1 + 2e)^k lying within
  /// e of it.
  static int64_t gridIndex(double value);
  static double gridValue(int64_t k);
  void addToGrid(double value, int64_t count);
  /// Counts by value, hashed; ordered when asked. Coarse, only the values
  /// that are not positive.
  std::unordered_map<double, int64_t> counts;
  /// Coarse: counts of grid points gridLow, gridLow + 1, ..., a dense run
  /// (a hashed or ordered map took most of a million-request loop's time).
  std::vector<int64_t> grid;
  int64_t gridLow = 0;
  int64_t total = 0;
  double sum = 0, largest = 0;
  bool coarse = false;
};

/// Latencies of served requests (seconds), as Distributions: TTFT, TPOT
/// (outputs of more than one token), end to end, the wait for a slot and
/// the wait for a model switch.
struct Latencies {
  Distribution ttft, tpot, e2e, wait, switchWait;
  void add(const RequestResult &q);
  /// Every distribution of `other` into this one's (Distribution::merge).
  void merge(const Latencies &other);
};

/// A model brought into HBM.
struct Switch {
  int model = 0;
  double startS = 0, endS = 0;
  bool prewarm = false;     ///< by the forecast, not by a request
  std::vector<int> evicted; ///< models evicted to make room, in order
};

/// What happened to one model of a deployment.
struct ModelResult {
  int64_t switches = 0; ///< times brought in (prewarms included)
  int64_t prewarms = 0, evictions = 0;
  double switchS = 0; ///< time spent being switched in
  double switchJ = 0; ///< the copies' energy at the wall
  double chipS = 0;   ///< chip time in its graphs
  int64_t prefills = 0, decodeSteps = 0, outputTokens = 0;
  double decodeSlotUtilization = 0;
  Distribution tokenGaps;
  Latencies latencies; ///< of its requests
  /// HBM it held per socket: peak and mean over the makespan.
  double hbmPeakBytes = 0, hbmMeanBytes = 0;
};

/// Service-level objectives (docs/Serving.md, "SLOs and goodput"): a
/// request meets the TTFT SLO when its TTFT is at most ttftS, the TPOT SLO
/// when its TPOT is (0: no such SLO); goodput is the requests per second
/// meeting every SLO given, as vLLM's benchmark and DistServe count them;
/// the deployment meets its SLOs when at least `attainment` of its
/// requests do (DistServe's 90%).
struct SloOptions {
  double ttftS = 0, tpotS = 0;
  double attainment = 0.9;
  bool any() const { return ttftS > 0 || tpotS > 0; }
  bool meetsTtft(const RequestResult &q) const {
    return !(ttftS > 0) || q.ttftS() <= ttftS;
  }
  bool meetsTpot(const RequestResult &q) const {
    return !(tpotS > 0) || q.tpotS() <= tpotS;
  }
};

/// Requests meeting each SLO and both.
struct SloResult {
  int64_t ttft = 0, tpot = 0, both = 0;
  void add(const SloOptions &o, const RequestResult &q) {
    bool t = o.meetsTtft(q), p = o.meetsTpot(q);
    ttft += t;
    tpot += p;
    both += t && p;
  }
};

/// What a node of a cluster does (Cluster.h): both phases (a replica of the
/// deployment), or one of them (disaggregated serving).
enum class NodeRole { Both, Prefill, Decode };
/// "both", "prefill", "decode".
llvm::StringRef nodeRoleName(NodeRole role);

/// One node of a cluster over the run (the cluster's makespan).
struct NodeResult {
  NodeRole role = NodeRole::Both;
  /// Requests routed to it (a decode node: whose KV it received).
  int64_t requests = 0;
  /// Chip time in prefill and decode graphs, moving prefix blocks, idle;
  /// they add up to the cluster's makespan.
  double prefillS = 0, decodeS = 0, moveS = 0, idleS = 0;
  int64_t prefills = 0, decodeSteps = 0, outputTokens = 0;
  double decodeSlotUtilization = 0;
  /// Requests waiting for a slot: the most at once, and the mean over time.
  int64_t waitingPeak = 0;
  double waitingMean = 0;
  /// KV per socket: peak and mean.
  double kvPeakBytes = 0, kvMeanBytes = 0;
  /// Disaggregated: KV bytes it sent (a prefill node) or received (a
  /// decode node), and the time its link port carried them.
  double linkBytes = 0, linkBusyS = 0;
  double busyShare(double makespanS) const {
    return makespanS > 0 ? (prefillS + decodeS + moveS) / makespanS : 0;
  }
};

/// KV moved from prefill to decode nodes (disaggregated serving).
struct TransferResult {
  int64_t count = 0;
  double bytes = 0; ///< every socket's
  /// Per request: prefill's end to the KV's arrival (the wait for the link
  /// included), and the wait alone.
  Distribution seconds, waitS;
};

struct ServeResult {
  /// The SLOs' counts (filled by the caller that knows the SLOs).
  SloResult slo;
  /// In request order (serveModels and serve; serveStream leaves it empty).
  std::vector<RequestResult> requests;
  /// Occupancy after events, for plots and traces: every one while there
  /// are at most kMaxSamples, then thinned evenly (every 2nd, 4th, ... kept,
  /// the latest always), so a million requests keep bounded memory. The KV
  /// figures below come from every event, not from these.
  std::vector<Sample> samples;
  /// Slot timelines for the trace: the first kMaxSpans (a trace of more is
  /// too large to open); spansDropped counts the rest.
  std::vector<Span> spans;
  int64_t spansDropped = 0;
  static constexpr size_t kMaxSamples = 100000, kMaxSpans = 200000;
  /// KV held per socket over every event: peak, and mean over the makespan.
  double kvPeakBytes = 0, kvMeanBytes = 0;
  double makespanS = 0; ///< first arrival to last finish
  /// The load against what was served (docs/Serving.md, "Overload"): the
  /// first and last arrivals, and the requests waiting for a slot just
  /// after the arrival a tenth of the way through them (by count) and just
  /// after the last.
  double firstArrivalS = 0, lastArrivalS = 0;
  int64_t waitingEarly = 0, waitingAtLastArrival = 0;
  /// Chip time in prefill graphs, in decode graphs, and idle; with
  /// prefix.moveS (blocks moved between tiers) they add up to the makespan
  /// (a mixed step counts its chunk as prefill time).
  double prefillS = 0, decodeS = 0, idleS = 0;
  int64_t prefills = 0, decodeSteps = 0, outputTokens = 0;
  /// Prefill chunks run, and the steps that carried a chunk and decode
  /// slots (mixed; chunked schedule only).
  int64_t prefillChunks = 0, mixedSteps = 0;
  /// Sum over decode steps of active/slots, weighted by step time.
  double decodeSlotUtilization = 0;
  /// The most slots that held a request at once (every model's; a
  /// cluster: on one node).
  int64_t peakActiveSlots = 0;
  /// Several static graphs (CostTable::graphSlots): decode steps each ran,
  /// and the steps that followed another graph, with their extra time.
  std::vector<int64_t> graphSteps;
  int64_t graphSwitches = 0;
  double graphSwitchS = 0;
  /// Requests waiting for a slot: the most at once, the mean over the
  /// makespan (a cluster: over every node).
  int64_t waitingPeak = 0;
  double waitingMean = 0;
  /// Time between tokens: for every output token after a request's first,
  /// the time since that request's previous token (a step that emits
  /// several tokens with MTP: its first after the gap, the others 0). A
  /// prefill that runs while a request decodes stretches its gap; this is
  /// what the chunked schedule bounds.
  Distribution tokenGaps;
  Latencies latencies; ///< of every request, as each finished
  /// Prefix caching, over every model.
  PrefixResult prefix;
  /// Per model of the deployment, and the switches in start order.
  std::vector<ModelResult> models;
  std::vector<Switch> switches;
  /// A cluster (Cluster.h): each node, and the KV its prefill nodes sent;
  /// empty on one node. Chip times, counts and latencies above are the
  /// nodes' sums; KV held is the busiest node's peak and the nodes' mean.
  std::vector<NodeResult> nodes;
  TransferResult transfers;
  /// Energy at the wall (docs/Energy.md): the steps' dynamic energy, the
  /// node's idle power over the makespan (of it, idleJ while nothing ran),
  /// the switches' copies, and the KV sent between nodes; a cluster's are
  /// its nodes' sums.
  struct Energy {
    double dynamicJ = 0, staticJ = 0, idleJ = 0, switchJ = 0, kvTransferJ = 0;
    double totalJ() const { return dynamicJ + staticJ + switchJ + kvTransferJ; }
  } energy;
};

/// One model of a deployment, as the loop replays it.
struct DeployedModel {
  std::string name;
  CostTable costs;
  ServeConfig config;
  double weightBytes = 0; ///< per socket: what a switch moves
  /// Per socket, what it holds in HBM while resident: its weights, KV
  /// allocation and every other HBM tensor of its graphs.
  double hbmBytes = 0;
  /// A switch alone, from DDR to HBM (SystemC, Job::copy), and its
  /// copies' dynamic energy on the node's sockets (before the wall's
  /// losses).
  double switchS = 0, switchJ = 0;
  /// Its graphs while a switch runs in the background (SystemC, the same
  /// buckets as `costs`), and the switch's bytes per second meanwhile.
  /// Empty when the policy never switches.
  CostTable contended;
  std::vector<double> prefillCopyBps, decodeCopyBps;
  PrefixOptions prefix;
};

/// Serves the requests of `source` (in arrival order; `total` of them, 0
/// when not known, for the overload check's early queue) as serveModels
/// does, holding only those in flight: each result goes to `onFinish` the
/// moment it completes, and ServeResult::requests stays empty.
llvm::Expected<ServeResult>
serveStream(RequestSource &source, int64_t total,
            llvm::ArrayRef<DeployedModel> models, const CacheOptions &cache,
            llvm::function_ref<void(const RequestResult &)> onFinish = nullptr);

/// Serves the requests (Request::model indexes `models`) on one chip: one
/// graph at a time, resident models with work taking turns (a prefill or a
/// step each, round robin), switches running beside them (ModelCache.h).
/// A graph that runs while a switch does costs its contended time, and the
/// switch moves at the rate measured beside that graph; when the switch
/// ends partway, the rest of the graph runs at its own pace. The chip idle,
/// a switch moves at its rate alone.
llvm::Expected<ServeResult>
serveModels(llvm::ArrayRef<Request> requests,
            llvm::ArrayRef<DeployedModel> models, const CacheOptions &cache,
            llvm::function_ref<void(const RequestResult &)> onFinish = nullptr);

/// Runs the loop. Requests must fit (`validate`) and every shape needs a
/// bucket; a shape without one is an error naming it. `onFinish`, if given,
/// sees each request's result the moment it completes (to stream it out).
llvm::Expected<ServeResult>
serve(llvm::ArrayRef<Request> requests, const CostTable &costs,
      const ServeConfig &config,
      llvm::function_ref<void(const RequestResult &)> onFinish = nullptr);

/// Whether a request fits a slot of `config` (prompt + output within its
/// context), and if not, what `overlong` makes of it: left out, or clipped
/// (`r` changed). Overlong::Error, or a request no clip makes fit, is an
/// error naming its line (or index when generated).
enum class Fit { Fits, Clipped, Skipped };
llvm::Expected<Fit> fit(Request &r, const ServeConfig &config,
                        Overlong overlong, llvm::StringRef source);

/// Errors on the first request that cannot be served under `config`,
/// naming its line (or index when generated).
llvm::Error validate(llvm::ArrayRef<Request> requests,
                     const ServeConfig &config, llvm::StringRef source);

/// Nearest-rank percentile: the smallest value with at least q of the values
/// at or below it. 0 for no values.
double percentile(std::vector<double> values, double q);

} // namespace serving
} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_SERVING_SERVING_H
