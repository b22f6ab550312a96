//===- Serving.cpp - Continuous batching over static slots ----------------===//

#include "snapflow/Sim/Serving/Serving.h"
#include "snapflow/Sim/Serving/PrefixCache.h"

#include "snapflow/Support/Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <numeric>

using namespace snapflow;
using namespace snapflow::sim::serving;
using llvm::Error;
using llvm::StringRef;

StringRef snapflow::sim::serving::scheduleName(Schedule schedule) {
  return schedule == Schedule::Chunked ? "chunked" : "prefill-first";
}

std::optional<Schedule> snapflow::sim::serving::parseSchedule(StringRef name) {
  if (name == "prefill-first")
    return Schedule::PrefillFirst;
  if (name == "chunked")
    return Schedule::Chunked;
  return std::nullopt;
}

int CostTable::bucketOf(llvm::ArrayRef<int64_t> buckets, int64_t tokens) {
  auto it = std::lower_bound(buckets.begin(), buckets.end(), tokens);
  return it == buckets.end() ? -1 : static_cast<int>(it - buckets.begin());
}

namespace {

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
llvm::ArrayRef<double> chunksOf(const CostTable &costs, int b) {
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
};

/// The serving loop over a deployment (serveModels).
class Loop {
public:
  Loop(RequestSource &source, int64_t total,
       llvm::ArrayRef<DeployedModel> models, const CacheOptions &cache,
       llvm::function_ref<void(const RequestResult &)> onFinish)
      : source(source), total(total), cache(cache), onFinish(onFinish),
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

  llvm::Expected<ServeResult> run();

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
  int64_t waitingNow() const {
    int64_t n = 0;
    for (const ModelState &m : models)
      n += static_cast<int64_t>(m.waiting.size());
    return n;
  }
  void span(const Span &sp) {
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
  Error turn(int m);
  /// The cache policy: evictions, drains, prewarms, the next switch.
  void manageCache();
  void evict(int m);
  void startSwitch(int m, bool prewarm, std::vector<int> evicted);
  void completeSwitch(double atS);
  double switchRateAlone() const {
    const DeployedModel &d = *models[switching].spec;
    return d.switchS > 0 ? d.weightBytes / d.switchS : 0;
  }

  /// The next request from the source into `ahead` (none at its end),
  /// checked: in arrival order, for a model of the deployment.
  Error fetch();
  /// A flight for `r`, its index in `flights`.
  size_t board(Request r);

  RequestSource &source;
  int64_t total; ///< requests the source yields (0: not known)
  std::optional<Request> ahead;
  bool fetched = false;
  double lastArrivalS = 0;
  int64_t arrived = 0;
  /// Requests in flight (waiting or in a slot), by index; free ones reused.
  std::vector<Flight> flights;
  std::vector<size_t> freeFlights;
  int64_t live = 0;
  const CacheOptions &cache;
  llvm::function_ref<void(const RequestResult &)> onFinish;
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
  double lastPrefixHbm = 0, lastPrefixDdr = 0, prefixHbmIntegral = 0,
         prefixDdrIntegral = 0;
};

void Loop::sample() {
  double kv = 0;
  int64_t active = 0, waiting = 0;
  for (ModelState &m : models) {
    double tokens = 0;
    for (const Slot &s : m.slots)
      if (s.request >= 0)
        tokens += double(std::min(s.context, m.config().kvTokensPerSlot));
    kv += tokens * m.config().kvBytesPerToken;
    active += m.active;
    waiting += static_cast<int64_t>(m.waiting.size());
  }
  kvIntegral += lastKv * (t - lastKvTime);
  prefixHbmIntegral += lastPrefixHbm * (t - lastKvTime);
  prefixDdrIntegral += lastPrefixDdr * (t - lastKvTime);
  for (size_t k = 0; k < models.size(); ++k) {
    ModelState &m = models[k];
    m.hbmIntegral += m.lastHbm * (t - lastKvTime);
    m.lastHbm = hbmOf(m);
    res.models[k].hbmPeakBytes =
        std::max(res.models[k].hbmPeakBytes, m.lastHbm);
  }
  lastKvTime = t;
  lastKv = kv;
  res.kvPeakBytes = std::max(res.kvPeakBytes, kv);
  Sample smp{t, active, waiting, kv, {}, 0, 0};
  for (const ModelState &m : models)
    if (m.prefix) {
      smp.prefixHbmBytes += double(m.prefix->hbmBlocks()) *
                            m.spec->prefix.blockBytes;
      smp.prefixDdrBytes += double(m.prefix->ddrBlocks()) *
                            m.spec->prefix.blockBytes;
    }
  lastPrefixHbm = smp.prefixHbmBytes;
  lastPrefixDdr = smp.prefixDdrBytes;
  if (models.size() > 1)
    for (const ModelState &m : models)
      smp.hbmByModel.push_back(m.lastHbm);
  if (res.samples.empty() || ++sinceKept >= stride) {
    sinceKept = 0;
    res.samples.push_back(std::move(smp));
    if (res.samples.size() >= ServeResult::kMaxSamples) {
      // Keep every other one, then append every 2 x stride-th. The first
      // stays where it is (moving it onto itself would empty it).
      size_t out = 1;
      for (size_t i = 2; i < res.samples.size(); i += 2)
        res.samples[out++] = std::move(res.samples[i]);
      res.samples.resize(out);
      stride *= 2;
    }
    haveSkipped = false;
    return;
  }
  skipped = std::move(smp);
  haveSkipped = true;
}

void Loop::finish(ModelState &m, Slot &s, int64_t slotIndex) {
  RequestResult &rr = flights[s.request].rr;
  rr.finishS = t;
  span({rr.model, slotIndex, rr.id, false, rr.firstTokenS, t});
  res.latencies.add(rr);
  res.models[rr.model].latencies.add(rr);
  if (onFinish)
    onFinish(rr);
  // Its flight is free for the next arrival.
  flights[s.request].r.blocks = {};
  freeFlights.push_back(static_cast<size_t>(s.request));
  --live;
  s.request = -1;
  --m.active;
}

size_t Loop::board(Request r) {
  size_t i;
  if (!freeFlights.empty()) {
    i = freeFlights.back();
    freeFlights.pop_back();
  } else {
    i = flights.size();
    flights.emplace_back();
  }
  Flight &f = flights[i];
  f.rr = RequestResult();
  f.prefillShare = 1;
  f.rr.id = r.id;
  f.rr.model = r.model;
  f.rr.arrivalS = r.arrivalS;
  f.rr.promptTokens = r.promptTokens;
  f.rr.outputTokens = r.outputTokens;
  f.seq = arrived;
  f.r = std::move(r);
  ++live;
  return i;
}

Error Loop::fetch() {
  auto next = source.next();
  if (!next)
    return next.takeError();
  if (*next) {
    const Request &r = **next;
    if (r.model < 0 || size_t(r.model) >= models.size())
      return makeError(llvm::formatv("request {0} asks for model {1}; the "
                                     "deployment has {2}",
                                     r.id, r.model, models.size()));
    if (fetched && r.arrivalS < lastArrivalS)
      return makeError(llvm::formatv("request {0} arrives at {1} s, before "
                                     "the one before it at {2} s; requests "
                                     "are served in arrival order",
                                     r.id, r.arrivalS, lastArrivalS));
    fetched = true;
    lastArrivalS = r.arrivalS;
  }
  ahead = std::move(*next);
  return Error::success();
}

int64_t Loop::prefixStart(ModelState &m, Flight &f, int b) {
  PrefixResult &pr = res.prefix;
  pr.queriedTokens += f.r.promptTokens;
  if (!m.prefix || f.r.blocks.empty())
    return 0;
  const PrefixOptions &po = m.spec->prefix;
  int64_t demotedBefore = m.prefix->demoted();
  PrefixCache::Hit hit = m.prefix->lookup(f.r.blocks);
  // The last prompt token is always computed: its logits give the first
  // output token (vLLM caps a hit the same way).
  int64_t tokens =
      std::min(hit.blocks * po.blockTokens, f.r.promptTokens - 1);
  f.rr.prefixHitTokens = tokens;
  pr.hitTokens += tokens;
  pr.hitBlocks += hit.blocks;
  pr.ddrHitBlocks += hit.fromDdr;
  pr.reusedBytes += double(tokens) / double(po.blockTokens) * po.blockBytes;
  double up = double(hit.fromDdr) * po.blockBytes;
  if (up > 0 && po.promoteBps > 0) {
    double s = up / po.promoteBps;
    t += s;
    pr.moveS += s;
  }
  pr.promotedBytes += up;
  prefixDemoted(m, demotedBefore);
  // The prefill starts at the chunk holding the first token not cached:
  // chunked, one of its own chunks; prefill-first, its graph costs the
  // share of the block-sized profile's chunks left (f.prefillShare).
  const CostTable &costs = m.costs();
  bool profile = !m.chunked && size_t(b) < costs.prefillProfileS.size() &&
                 !costs.prefillProfileS[b].empty();
  llvm::ArrayRef<double> chunks =
      profile ? llvm::ArrayRef<double>(costs.prefillProfileS[b])
              : chunksOf(costs, b);
  int64_t n = static_cast<int64_t>(chunks.size());
  int64_t chunkTokens = std::max<int64_t>(1, costs.prefillBuckets[b] / n);
  int64_t skip = std::min(n - 1, tokens / chunkTokens);
  if (!profile) {
    for (int64_t k = 0; k < skip; ++k)
      pr.prefillSavedS += chunks[k];
    return skip;
  }
  double all = 0, left = 0;
  for (int64_t k = 0; k < n; ++k)
    (k < skip ? all : left) += chunks[k];
  all += left;
  f.prefillShare = all > 0 ? left / all : 1;
  pr.prefillSavedS += costs.prefillS[b] * (1 - f.prefillShare);
  return 0;
}

void Loop::prefixDemoted(ModelState &m, int64_t demotedBefore) {
  PrefixResult &pr = res.prefix;
  const PrefixOptions &po = m.spec->prefix;
  double down = double(m.prefix->demoted() - demotedBefore) * po.blockBytes;
  pr.demotedBytes += down;
  if (down > 0 && po.demoteBps > 0) {
    double s = down / po.demoteBps;
    t += s;
    pr.moveS += s;
  }
  pr.peakHbmBlocks = std::max(pr.peakHbmBlocks, m.prefix->hbmBlocks());
  pr.peakDdrBlocks = std::max(pr.peakDdrBlocks, m.prefix->ddrBlocks());
}

void Loop::prefilled(ModelState &m, Slot &s, int64_t slotIndex) {
  const Request &r = flights[s.request].r;
  RequestResult &rr = flights[s.request].rr;
  if (m.prefix && !r.blocks.empty()) {
    // Its prompt's blocks, for the requests after it.
    int64_t demotedBefore = m.prefix->demoted();
    res.prefix.insertedBlocks += m.prefix->insert(r.blocks);
    prefixDemoted(m, demotedBefore);
  }
  rr.firstTokenS = t;
  span({rr.model, slotIndex, r.id, true, rr.prefillStartS, t});
  s.chunk = -1;
  s.lastTokenS = t;
  s.context = r.promptTokens + 1;
  s.generated = 1;
  s.accepted = 1;
  ModelResult &mr = res.models[r.model];
  ++res.prefills;
  ++res.outputTokens;
  ++mr.prefills;
  ++mr.outputTokens;
  if (r.outputTokens == 1)
    finish(m, s, slotIndex);
}

double Loop::graph(double startS, double alone, double contended, double bps) {
  if (switching < 0 || switchEndS >= 0)
    return alone;
  double moves = bps * contended;
  if (moves < switchLeft) {
    switchLeft -= moves;
    return contended;
  }
  // The switch ends partway: the rest of the graph runs at its own pace.
  double f = bps > 0 ? switchLeft / bps : 0;
  switchLeft = 0;
  switchEndS = startS + f;
  return f + (1 - f / contended) * alone;
}

void Loop::evict(int m) {
  ModelState &s = models[m];
  s.residency = Residency::Out;
  s.draining = false;
  s.outSinceS = t;
  ++res.models[m].evictions;
}

void Loop::startSwitch(int m, bool prewarm, std::vector<int> evicted) {
  ModelState &s = models[m];
  s.residency = Residency::SwitchingIn;
  s.demanded = s.prewarmQueued = false;
  switching = m;
  switchLeft = s.spec->weightBytes;
  switchEndS = -1;
  ++res.models[m].switches;
  if (prewarm)
    ++res.models[m].prewarms;
  // Models drained for it come first: they were chosen before the others.
  drained.insert(drained.end(), evicted.begin(), evicted.end());
  res.switches.push_back({m, t, t, prewarm, std::move(drained)});
  drained.clear();
  if (switchLeft <= 0 || s.spec->switchS <= 0)
    completeSwitch(t);
}

void Loop::completeSwitch(double atS) {
  ModelState &s = models[switching];
  s.residency = Residency::In;
  s.lastUseS = atS;
  for (size_t i : s.waiting)
    flights[i].rr.switchWaitS +=
        std::max(0.0, atS - std::max(flights[i].r.arrivalS, s.outSinceS));
  Switch &sw = res.switches.back();
  sw.endS = atS;
  res.models[switching].switchS += atS - sw.startS;
  switching = -1;
  switchLeft = 0;
  switchEndS = -1;
}

void Loop::manageCache() {
  if (cache.policy == CachePolicy::Static)
    return;
  bool prewarm = cache.policy == CachePolicy::Prewarm;
  std::vector<double> expected;
  // A draining model is evicted once its slots are empty, for the switch
  // that drained it.
  for (size_t k = 0; k < models.size(); ++k)
    if (models[k].draining && models[k].active == 0 &&
        models[k].residency == Residency::In) {
      evict(static_cast<int>(k));
      drained.push_back(static_cast<int>(k));
    }
  // Demand: a model that is out with requests waiting, by its first one.
  std::vector<int> wanted;
  for (size_t k = 0; k < models.size(); ++k) {
    ModelState &m = models[k];
    if (m.residency == Residency::Out && !m.waiting.empty() && !m.demanded)
      wanted.push_back(static_cast<int>(k));
  }
  std::sort(wanted.begin(), wanted.end(), [&](int a, int b) {
    const Flight &fa = flights[models[a].waiting.front()],
                 &fb = flights[models[b].waiting.front()];
    return std::make_pair(fa.r.arrivalS, fa.seq) <
           std::make_pair(fb.r.arrivalS, fb.seq);
  });
  for (int k : wanted) {
    models[k].demanded = true;
    demand.push_back(k);
  }
  // Prewarm: at each window's start, the models the forecast expects to be
  // busiest, as many as fit.
  if (target.size() != models.size())
    target.assign(models.size(), false);
  if (prewarm && t >= nextTickS) {
    target.assign(models.size(), false);
    while (nextTickS <= t)
      nextTickS += cache.windowS;
    expected = forecast.predict(t);
    std::vector<int> order(models.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      return expected[a] != expected[b] ? expected[a] > expected[b] : a < b;
    });
    double room = cache.hbmBytes;
    for (int k : order) {
      if (expected[k] <= 0 || models[k].spec->hbmBytes > room)
        continue;
      room -= models[k].spec->hbmBytes;
      target[k] = true;
      if (models[k].residency == Residency::Out && !models[k].demanded &&
          !models[k].prewarmQueued) {
        models[k].prewarmQueued = true;
        prewarms.push_back(k);
      }
    }
  }
  if (switching >= 0)
    return;
  // The next switch: demand first, then prewarms.
  while (!demand.empty() || !prewarms.empty()) {
    bool isPrewarm = demand.empty();
    int next = isPrewarm ? prewarms.front() : demand.front();
    ModelState &n = models[next];
    if (n.residency != Residency::Out) { // already in, or on its way
      (isPrewarm ? prewarms : demand).pop_front();
      n.demanded = n.prewarmQueued = false;
      continue;
    }
    double need = n.spec->hbmBytes - (cache.hbmBytes - hbmUsed());
    if (need > 1e-6) {
      if (prewarm && expected.empty())
        expected = forecast.predict(t);
      std::vector<int> idle, busy;
      for (size_t k = 0; k < models.size(); ++k) {
        const ModelState &m = models[k];
        if (m.residency != Residency::In || (isPrewarm && target[k]))
          continue;
        // A prewarm evicts only what the forecast values less.
        if (isPrewarm && expected[k] >= expected[next])
          continue;
        // A model with requests waiting and none in its slots is about to
        // serve them (it was just brought in for them): not a victim.
        if (m.idle())
          idle.push_back(static_cast<int>(k));
        else if (m.active > 0)
          busy.push_back(static_cast<int>(k));
      }
      std::vector<double> lastUse;
      for (const ModelState &m : models)
        lastUse.push_back(m.lastUseS);
      llvm::ArrayRef<double> by =
          prewarm ? llvm::ArrayRef<double>(expected) : llvm::ArrayRef<double>();
      std::vector<int> victims, drains;
      double freed = 0;
      for (int k : evictionOrder(idle, lastUse, by))
        if (freed < need) {
          victims.push_back(k);
          freed += models[k].spec->hbmBytes;
        }
      if (freed < need && !isPrewarm)
        for (int k : evictionOrder(busy, lastUse, by)) {
          if (freed >= need)
            break;
          drains.push_back(k);
          freed += models[k].spec->hbmBytes;
        }
      if (freed < need - 1e-6) {
        // Nothing can make room: a prewarm is dropped; a demand waits.
        if (isPrewarm) {
          prewarms.pop_front();
          n.prewarmQueued = false;
          continue;
        }
        return;
      }
      if (!drains.empty()) {
        // Room comes once the draining models empty: the idle victims are
        // evicted then, with them.
        for (int k : drains)
          models[k].draining = true;
        return;
      }
      for (int k : victims)
        evict(k);
      (isPrewarm ? prewarms : demand).pop_front();
      startSwitch(next, isPrewarm, victims);
      return;
    }
    (isPrewarm ? prewarms : demand).pop_front();
    startSwitch(next, isPrewarm, {});
    if (switching >= 0)
      return;
  }
}

Error Loop::turn(int mi) {
  ModelState &m = models[mi];
  const CostTable &costs = m.costs();
  const CostTable &slow = m.spec->contended;
  const ServeConfig &cfg = m.config();
  ModelResult &mr = res.models[mi];
  auto contendedOr = [](const std::vector<double> &v, int b, double alone) {
    return size_t(b) < v.size() ? v[b] : alone;
  };
  if (m.canAdmit()) {
    auto freeSlot = std::find_if(m.slots.begin(), m.slots.end(),
                                 [](const Slot &s) { return s.request < 0; });
    size_t i = m.waiting.front();
    m.waiting.pop_front();
    const Request &r = flights[i].r;
    int b = CostTable::bucketOf(costs.prefillBuckets, r.promptTokens);
    if (b < 0)
      return makeError(llvm::formatv("no prefill cost for a {0}-token prompt",
                                     r.promptTokens));
    int64_t slotIndex = freeSlot - m.slots.begin();
    RequestResult &rr = flights[i].rr;
    rr.slot = slotIndex;
    rr.prefillStartS = t;
    int64_t first = prefixStart(m, flights[i], b);
    int64_t chunkCount = static_cast<int64_t>(chunksOf(costs, b).size());
    *freeSlot = Slot{static_cast<int64_t>(i),
                     r.promptTokens * first / chunkCount,
                     0,
                     0,
                     b,
                     first,
                     t};
    ++m.active;
    if (m.chunked) {
      // Its first chunk rides on the step below.
      m.prefilling = slotIndex;
    } else {
      // Prefill-first: the whole prompt (from its first chunk not cached),
      // nothing else on the chip.
      llvm::ArrayRef<double> chunks = chunksOf(costs, b);
      double alone = 0;
      for (size_t k = size_t(first); k < chunks.size(); ++k)
        alone += chunks[k];
      alone *= flights[i].prefillShare;
      double full = costs.prefillS[b];
      double slowFull = contendedOr(slow.prefillS, b, full);
      double cost = graph(t, alone, full > 0 ? slowFull * alone / full : 0,
                          contendedOr(m.spec->prefillCopyBps, b, 0));
      t += cost;
      res.prefillS += cost;
      mr.chipS += cost;
      res.prefillChunks += chunkCount - first;
      prefilled(m, *freeSlot, slotIndex);
      m.lastUseS = t;
      return Error::success();
    }
  }
  int64_t decoding = m.active - (m.prefilling >= 0 ? 1 : 0);
  // One step: the decode graph over every slot (when any decodes), then
  // the chunk of the prefill under way (chunked schedule).
  double decodeCost = 0, chunkCost = 0;
  if (decoding > 0) {
    // The longest context the step reaches: a slot grows by up to `grow`
    // tokens, but never past its request (a Block Transformer's 4-token
    // step on a request 3 tokens from its end looked for a context past
    // --context, R16).
    int64_t longest = 0;
    for (const Slot &s : m.slots)
      if (s.request >= 0 && s.chunk < 0) {
        const Request &r = flights[s.request].r;
        longest = std::max(longest, std::min(s.context + m.grow,
                                             r.promptTokens + r.outputTokens));
      }
    int b = CostTable::bucketOf(costs.decodeBuckets, longest);
    if (b < 0)
      return makeError(llvm::formatv("no decode cost for a context of {0} "
                                     "tokens",
                                     longest));
    decodeCost = graph(t, costs.decodeStepS[b],
                       contendedOr(slow.decodeStepS, b, costs.decodeStepS[b]),
                       contendedOr(m.spec->decodeCopyBps, b, 0));
    double share = decodeCost * double(decoding) / double(cfg.slots);
    res.decodeSlotUtilization += share;
    m.utilization += share;
    m.decodeS += decodeCost;
    res.decodeS += decodeCost;
    ++res.decodeSteps;
    ++mr.decodeSteps;
  }
  if (m.prefilling >= 0) {
    const Slot &p = m.slots[m.prefilling];
    double alone = chunksOf(costs, p.bucket)[p.chunk];
    double slowChunk = alone;
    if (size_t(p.bucket) < slow.prefillS.size())
      slowChunk = chunksOf(slow, p.bucket)[p.chunk];
    chunkCost = graph(t + decodeCost, alone, slowChunk,
                      contendedOr(m.spec->prefillCopyBps, p.bucket, 0));
    res.prefillS += chunkCost;
    ++res.prefillChunks;
    if (decoding > 0)
      ++res.mixedSteps;
  }
  t += decodeCost + chunkCost;
  mr.chipS += decodeCost + chunkCost;
  // The step's gaps between tokens take few values (most slots last
  // emitted at the previous step's end): counted in runs before they go to
  // the distributions.
  double runValue = 0;
  int64_t runCount = 0;
  auto flush = [&] {
    res.tokenGaps.add(runValue, runCount);
    mr.tokenGaps.add(runValue, runCount);
  };
  auto gap = [&](double value, int64_t count) {
    if (count <= 0)
      return;
    if (runCount > 0 && value != runValue) {
      flush();
      runCount = 0;
    }
    runValue = value;
    runCount += count;
  };
  for (size_t k = 0; k < m.slots.size() && decoding > 0; ++k) {
    Slot &s = m.slots[k];
    if (s.request < 0 || s.chunk >= 0)
      continue;
    // One token a step, or with MTP the expected accepted tokens, emitted
    // as they add up to whole ones.
    int64_t want = flights[s.request].r.outputTokens;
    s.accepted += cfg.tokensPerStep;
    int64_t now = std::min<int64_t>(
        want, std::max<int64_t>(s.generated + 1,
                                static_cast<int64_t>(s.accepted + 1e-9)));
    s.context += now - s.generated;
    res.outputTokens += now - s.generated;
    mr.outputTokens += now - s.generated;
    gap(t - s.lastTokenS, 1);
    gap(0, now - s.generated - 1);
    s.lastTokenS = t;
    s.generated = now;
    if (s.generated >= want)
      finish(m, s, static_cast<int64_t>(k));
  }
  flush();
  if (m.prefilling >= 0) {
    Slot &p = m.slots[m.prefilling];
    int64_t chunks = static_cast<int64_t>(chunksOf(costs, p.bucket).size());
    ++p.chunk;
    // The prompt's KV written so far (the chunks pad to the bucket).
    p.context = flights[p.request].r.promptTokens * p.chunk / chunks;
    if (p.chunk == chunks) {
      int64_t slotIndex = m.prefilling;
      m.prefilling = -1;
      prefilled(m, p, slotIndex);
    }
  }
  m.lastUseS = t;
  return Error::success();
}

llvm::Expected<ServeResult> Loop::run() {
  for (const ModelState &m : models)
    if (m.config().slots < 1)
      return makeError("serving needs at least one slot");
  res.models.resize(models.size());
  if (Error e = fetch())
    return std::move(e);
  t = ahead ? ahead->arrivalS : 0;
  double start = t;
  res.firstArrivalS = start;
  forecast = Forecast(static_cast<int>(models.size()), cache.windowS,
                      cache.periodS, start);
  lastKvTime = t;
  nextTickS = start + cache.windowS;
  // At the start HBM holds every model (static), or the models in
  // deployment order while they fit, as a deployment loads them before
  // traffic.
  double room = cache.hbmBytes;
  for (ModelState &m : models) {
    if (cache.policy == CachePolicy::Static || m.spec->hbmBytes <= room) {
      m.residency = Residency::In;
      room -= m.spec->hbmBytes;
    }
    m.outSinceS = start;
  }
  size_t rr = 0; // the next model to take a turn
  const bool prewarm = cache.policy == CachePolicy::Prewarm;
  while (ahead || live > 0) {
    while (ahead && ahead->arrivalS <= t) {
      int model = ahead->model;
      double at = ahead->arrivalS;
      ++arrived;
      size_t i = board(std::move(*ahead));
      models[model].waiting.push_back(i);
      // The forecast needs the arrivals only where it prewarms.
      if (prewarm)
        forecast.arrive(model, at);
      if (Error e = fetch())
        return std::move(e);
      // The queue early in the arrivals and at their end (overload).
      if (total > 0 && arrived == (total + 9) / 10)
        res.waitingEarly = waitingNow();
      if (!ahead) {
        res.waitingAtLastArrival = waitingNow();
        res.lastArrivalS = at;
      }
    }
    if (res.samples.empty())
      sample(); // the start: nothing held, the first arrivals waiting
    manageCache();
    int next = -1;
    for (size_t k = 0; k < models.size() && next < 0; ++k) {
      size_t m = (rr + k) % models.size();
      if (models[m].hasWork())
        next = static_cast<int>(m);
    }
    if (next >= 0) {
      rr = size_t(next) + 1;
      if (Error e = turn(next))
        return std::move(e);
      if (switchEndS >= 0)
        completeSwitch(switchEndS);
      sample();
      continue;
    }
    // Idle until the next arrival, the switch's end or the next window.
    double until = 1e300;
    if (ahead)
      until = ahead->arrivalS;
    double switchEnd = 1e300;
    if (switching >= 0) {
      double rate = switchRateAlone();
      switchEnd = rate > 0 ? t + switchLeft / rate : t;
      until = std::min(until, switchEnd);
    }
    if (prewarm && ahead)
      until = std::min(until, nextTickS);
    if (until >= 1e300)
      return makeError(llvm::formatv(
          "serving stalled at {0} s: {1} requests wait for models that "
          "cannot be brought into HBM",
          t, live));
    res.idleS += until - t;
    if (switching >= 0) {
      if (until >= switchEnd) {
        t = switchEnd;
        completeSwitch(switchEnd);
        sample();
        continue;
      }
      switchLeft -= switchRateAlone() * (until - t);
    }
    t = until;
  }
  if (haveSkipped) // the end state is always kept
    res.samples.push_back(std::move(skipped));
  res.makespanS = t - start;
  for (const ModelState &m : models)
    if (m.prefix)
      res.prefix.droppedBlocks += m.prefix->dropped(),
          res.prefix.demotedBlocks += m.prefix->demoted();
  kvIntegral += lastKv * (t - lastKvTime);
  prefixHbmIntegral += lastPrefixHbm * (t - lastKvTime);
  prefixDdrIntegral += lastPrefixDdr * (t - lastKvTime);
  if (res.makespanS > 0) {
    res.prefix.hbmMeanBytes = prefixHbmIntegral / res.makespanS;
    res.prefix.ddrMeanBytes = prefixDdrIntegral / res.makespanS;
  }
  res.kvMeanBytes =
      res.makespanS > 0 ? kvIntegral / res.makespanS : res.kvPeakBytes;
  res.decodeSlotUtilization =
      res.decodeS > 0 ? res.decodeSlotUtilization / res.decodeS : 0;
  for (size_t k = 0; k < models.size(); ++k) {
    ModelState &m = models[k];
    ModelResult &mr = res.models[k];
    m.hbmIntegral += m.lastHbm * (t - lastKvTime);
    mr.hbmMeanBytes =
        res.makespanS > 0 ? m.hbmIntegral / res.makespanS : mr.hbmPeakBytes;
    mr.decodeSlotUtilization = m.decodeS > 0 ? m.utilization / m.decodeS : 0;
  }
  return std::move(res);
}

} // namespace

llvm::Expected<ServeResult> snapflow::sim::serving::serveStream(
    RequestSource &source, int64_t total, llvm::ArrayRef<DeployedModel> models,
    const CacheOptions &cache,
    llvm::function_ref<void(const RequestResult &)> onFinish) {
  if (models.empty())
    return makeError("a deployment needs at least one model");
  Loop loop(source, total, models, cache, onFinish);
  return loop.run();
}
