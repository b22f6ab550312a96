//===- Loop.h - The serving loop's state ------------------------*- C++ -*-===//
//
// Private to the serving library: the loop of Serving.h (serveStream) as a
// class, its slots, models and requests in flight. Serving.cpp runs it;
// LoopCaches.cpp keeps its two caches, models in HBM and prompt blocks.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_SERVING_LOOP_H
#define SNAPFLOW_SIM_SERVING_LOOP_H

#include "snapflow/Sim/Serving/PrefixCache.h"
#include "snapflow/Sim/Serving/Serving.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace snapflow {
namespace sim {
namespace serving {
namespace loop {

/// A slot of a model's static graph.
struct Slot {
  int64_t request = -1; ///< index into the requests
  int64_t context = 0;  ///< tokens in context (prompt + generated)
  int64_t generated = 0;
  double accepted = 0; ///< tokens accepted so far, fractional with MTP
  int bucket = -1;     ///< its prompt's prefill bucket
  int64_t chunk = -1;  ///< next prefill chunk; -1 once decoding
  double lastTokenS = 0;
};

/// One model of the deployment as the loop runs it.
struct ModelState {
  const DeployedModel *spec = nullptr;
  std::vector<Slot> slots;
  std::deque<size_t> waiting;
  int64_t active = 0;      ///< slots holding a request
  int64_t prefilling = -1; ///< the slot whose prefill is under way (chunked)
  /// Tokens a decode step appends to every live sequence (with MTP up to
  /// its accepted tokens).
  int64_t grow = 1;
  bool chunked = false;
  int lastGraph = -1; ///< the static graph of its last decode step
  enum class Residency { Out, SwitchingIn, In } residency = Residency::Out;
  bool draining = false; ///< admits nothing new; evicted once empty
  bool demanded = false, prewarmQueued = false;
  double lastUseS = -1e300;
  double outSinceS = 0; ///< when it last left HBM (or the start)
  double utilization = 0, decodeS = 0;
  double hbmIntegral = 0, lastHbm = 0;
  /// Its prefix cache, when the trace carries block ids.
  std::shared_ptr<PrefixCache> prefix;

  const CostTable &costs() const { return spec->costs; }
  const ServeConfig &config() const { return spec->config; }
  bool idle() const { return active == 0 && waiting.empty(); }
  bool canAdmit() const {
    if (waiting.empty() || prefilling >= 0 || draining)
      return false;
    return std::any_of(slots.begin(), slots.end(),
                       [](const Slot &s) { return s.request < 0; });
  }
  bool hasWork() const {
    return residency == Residency::In && (active > 0 || canAdmit());
  }
};

/// The chunks of a prefill bucket: its chunk times, or the whole prefill.
inline llvm::ArrayRef<double> chunksOf(const CostTable &costs, int b) {
  if (size_t(b) < costs.prefillChunkS.size() && !costs.prefillChunkS[b].empty())
    return costs.prefillChunkS[b];
  return costs.prefillS[b];
}

/// A request between its arrival and its finish: what the loop holds of
/// it. `seq` counts arrivals, for ties.
struct Flight {
  Request r;
  RequestResult rr;
  int64_t seq = 0;
  /// Prefill-first with a prefix hit: the share of its prefill graph's time
  /// it still costs.
  double prefillShare = 1;
  /// Prefilled on another node (a decode node's request): it takes a slot
  /// decoding, its first token already out.
  bool prefilled = false;
};

/// The serving loop over a deployment (serveModels).
class Loop {
public:
  Loop(llvm::ArrayRef<DeployedModel> models, const CacheOptions &cache,
       llvm::function_ref<void(const RequestResult &)> onFinish,
       NodeRole role = NodeRole::Both, int node = 0)
      : cache(cache), onFinish(onFinish), role(role), node(node),
        forecast(static_cast<int>(models.size()), cache.windowS, cache.periodS,
                 0) {
    for (const DeployedModel &d : models) {
      ModelState m;
      m.spec = &d;
      m.slots.resize(static_cast<size_t>(std::max<int64_t>(0, d.config.slots)));
      m.chunked = d.config.schedule == Schedule::Chunked;
      m.grow = std::max<int64_t>(
          1, static_cast<int64_t>(std::ceil(d.config.tokensPerStep - 1e-9)));
      if (d.prefix.blockTokens > 0 && d.prefix.reuse)
        m.prefix = std::make_shared<PrefixCache>(d.prefix.hbmBlocks,
                                                 d.prefix.ddrBlocks);
      this->models.push_back(std::move(m));
    }
  }

  /// Serves `source`'s requests (`total` of them, 0 when not known) from
  /// the first arrival to the last finish: serveStream.
  llvm::Expected<ServeResult> run(RequestSource &source, int64_t total);

  // The loop driven from outside, as a node of a cluster (Cluster.cpp):
  // begin at the first arrival, advance to each arrival and hand it over,
  // drain, end. `run` is these over one source.
  llvm::Error begin(double startS);
  /// Runs turns (and idles) while the clock is before `untilS`, the next
  /// arrival's time; a turn under way at `untilS` ends first.
  llvm::Error advanceTo(double untilS) { return advance(untilS, true); }
  /// A request arriving now (at or after the previous one).
  void arrive(Request r);
  /// A request prefilled on another node whose KV arrived now: `rr` its
  /// result so far (first token included); it waits for a slot to decode.
  void arrivePrefilled(Request r, const RequestResult &rr);
  /// Runs until every request boarded has finished (or left, on a prefill
  /// node).
  llvm::Error drain() { return advance(0, false); }
  /// The result, the clock run idle to `endS` when that is later.
  ServeResult end(double endS = 0);
  /// A prefill node hands each request over when its prefill ends (its
  /// first token out, the slot free): `handoff(r, rr)` at rr.firstTokenS.
  void onHandoff(std::function<void(Request, const RequestResult &)> f) {
    handoff = std::move(f);
  }

  double now() const { return t; }
  /// Requests boarded and not finished (waiting or in a slot).
  int64_t inFlight() const { return live; }
  int64_t waitingNow() const {
    int64_t n = 0;
    for (const ModelState &m : models)
      n += static_cast<int64_t>(m.waiting.size());
    return n;
  }
  /// Leading blocks of `ids` held in model `m`'s prefix cache (0 without
  /// one).
  int64_t cachedBlocks(int m, llvm::ArrayRef<int64_t> ids) const {
    const ModelState &s = models[size_t(m)];
    return s.prefix ? s.prefix->held(ids) : 0;
  }

private:
  using Residency = ModelState::Residency;

  double hbmOf(const ModelState &m) const {
    return m.residency == Residency::Out ? 0 : m.spec->hbmBytes;
  }
  double hbmUsed() const {
    double used = 0;
    for (const ModelState &m : models)
      used += hbmOf(m);
    return used;
  }
  void sample();
  /// Turns and idling until `untilS` while `more` arrivals come, or until
  /// nothing is in flight.
  llvm::Error advance(double untilS, bool more);
  /// Frees a slot whose request left (finished, or handed over).
  void release(ModelState &m, Slot &s);
  void span(Span sp) {
    sp.node = node;
    if (res.spans.size() < ServeResult::kMaxSpans)
      res.spans.push_back(sp);
    else
      ++res.spansDropped;
  }
  void finish(ModelState &m, Slot &s, int64_t slotIndex);
  /// A request's prompt looked up in its model's prefix cache as its
  /// prefill starts: the hit recorded, its DDR blocks moved up (time
  /// spent), and the first chunk of bucket `b` its prefill must run.
  int64_t prefixStart(ModelState &m, Flight &f, int b);
  /// Blocks moved down since `demotedBefore`, their time spent.
  void prefixDemoted(ModelState &m, int64_t demotedBefore);
  void prefilled(ModelState &m, Slot &s, int64_t slotIndex);
  /// Runs a graph from `startS` that costs `alone` seconds alone and
  /// `contended` beside a switch, which moves `bps` bytes per second
  /// meanwhile; returns its time and moves the switch on.
  double graph(double startS, double alone, double contended, double bps);
  /// One turn of model `m`: a prefill, or a step.
  llvm::Error turn(int m);
  /// The decode step a turn of model `m` runs over `decoding` slots: its
  /// context bucket, the static graph's slots, its time alone (a switch
  /// from another graph included) and its work's dynamic energy; counts
  /// the graph's step and switch.
  struct DecodeStep {
    int bucket = -1;
    int64_t graphSlots = 0;
    double aloneS = 0, workJ = 0;
  };
  llvm::Expected<DecodeStep> decodeStep(ModelState &m, int64_t decoding);
  /// Charges a step of model `m`'s graphs: `workJ` of dynamic energy (its
  /// power times its own time) to the run, and returns each of the
  /// `requests` it served its share of that and of the node's idle power
  /// over `seconds` (its time on the chip).
  double charge(const ModelState &m, int64_t requests, double workJ,
                double seconds);
  /// The head waiting request of model `m` into a free slot, its prefix
  /// looked up; prefill-first runs its whole prefill (true), chunked leaves
  /// its first chunk to the step (false).
  llvm::Expected<bool> admit(int m);
  /// The cache policy: evictions, drains, prewarms, the next switch.
  void manageCache();
  void evict(int m);
  void startSwitch(int m, bool prewarm, std::vector<int> evicted);
  void completeSwitch(double atS);
  double switchRateAlone() const {
    const DeployedModel &d = *models[switching].spec;
    return d.switchS > 0 ? d.weightBytes / d.switchS : 0;
  }

  /// A flight for `r`, its index in `flights`.
  size_t board(Request r);

  int64_t arrived = 0;
  double startS = 0;
  /// Requests in flight (waiting or in a slot), by index; free ones reused.
  std::vector<Flight> flights;
  std::vector<size_t> freeFlights;
  int64_t live = 0;
  const CacheOptions &cache;
  llvm::function_ref<void(const RequestResult &)> onFinish;
  NodeRole role;
  int node; ///< its index in a cluster
  std::function<void(Request, const RequestResult &)> handoff;
  size_t rr = 0; ///< the next model to take a turn
  std::vector<ModelState> models;
  ServeResult res;
  Forecast forecast;
  double t = 0;
  // The switch under way.
  int switching = -1;
  double switchLeft = 0;  ///< bytes still to move
  double switchEndS = -1; ///< set when it ended during the current turn
  std::deque<int> demand, prewarms;
  /// Models evicted once drained, for the next switch.
  std::vector<int> drained;
  double nextTickS = 0;
  /// The models the latest forecast wants resident (prewarm).
  std::vector<bool> target;
  // Samples: every event updates the KV figures; the kept samples thin out
  // as they grow (the stride doubles each time the cap is reached).
  size_t stride = 1, sinceKept = 0;
  Sample skipped;
  bool haveSkipped = false; ///< the latest event was not kept
  double lastKvTime = 0, lastKv = 0, kvIntegral = 0;
  int64_t lastWaiting = 0;
  double waitingIntegral = 0;
  double lastPrefixHbm = 0, lastPrefixDdr = 0, prefixHbmIntegral = 0,
         prefixDdrIntegral = 0;
};

} // namespace loop
} // namespace serving
} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_SERVING_LOOP_H
