//===- Serving.cpp - Continuous batching over static slots ----------------===//
//
// The serving loop (Loop.h): requests boarded as they arrive, turns of a
// prefill or a step, results as requests finish. Its caches of models and
// of prompt blocks: LoopCaches.cpp.
//
//===----------------------------------------------------------------------===//

#include "Loop.h"

#include "snapflow/Support/Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

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

using namespace snapflow::sim::serving::loop;

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
  res.peakActiveSlots = std::max(res.peakActiveSlots, active);
  kvIntegral += lastKv * (t - lastKvTime);
  waitingIntegral += double(lastWaiting) * (t - lastKvTime);
  lastWaiting = waiting;
  res.waitingPeak = std::max(res.waitingPeak, waiting);
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
      smp.prefixHbmBytes +=
          double(m.prefix->hbmBlocks()) * m.spec->prefix.blockBytes;
      smp.prefixDdrBytes +=
          double(m.prefix->ddrBlocks()) * m.spec->prefix.blockBytes;
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

/// The power of bucket `b` in `watts` (0 when the table has none).
static double powerOf(const std::vector<double> &watts, int b) {
  return b >= 0 && size_t(b) < watts.size() ? watts[b] : 0;
}

void Loop::finish(ModelState &m, Slot &s, int64_t slotIndex) {
  RequestResult &rr = flights[s.request].rr;
  rr.finishS = t;
  span({rr.model, slotIndex, rr.id, false, rr.firstTokenS, t});
  res.latencies.add(rr);
  res.models[rr.model].latencies.add(rr);
  if (onFinish)
    onFinish(rr);
  release(m, s);
}

void Loop::release(ModelState &m, Slot &s) {
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
  f.prefilled = false;
  f.rr.id = r.id;
  f.rr.model = r.model;
  f.rr.node = node;
  f.rr.arrivalS = r.arrivalS;
  f.rr.promptTokens = r.promptTokens;
  f.rr.outputTokens = r.outputTokens;
  f.seq = arrived;
  f.r = std::move(r);
  ++live;
  return i;
}

void Loop::prefilled(ModelState &m, Slot &s, int64_t slotIndex) {
  const Request &r = flights[s.request].r;
  RequestResult &rr = flights[s.request].rr;
  rr.firstTokenS = t;
  if (m.prefix && !r.blocks.empty()) {
    // Its prompt's blocks, for the requests after it (what that pushes
    // down to DDR moves after its first token).
    int64_t demotedBefore = m.prefix->demoted();
    res.prefix.insertedBlocks += m.prefix->insert(r.blocks);
    prefixDemoted(m, demotedBefore);
  }
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
  if (r.outputTokens == 1) {
    finish(m, s, slotIndex);
  } else if (role == NodeRole::Prefill) {
    // Its KV goes to a decode node; the slot takes the next prompt.
    Flight &f = flights[s.request];
    if (handoff)
      handoff(std::move(f.r), f.rr);
    release(m, s);
  }
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

llvm::Expected<bool> Loop::admit(int mi) {
  ModelState &m = models[mi];
  const CostTable &costs = m.costs();
  const CostTable &slow = m.spec->contended;
  ModelResult &mr = res.models[mi];
  auto contendedOr = [](const std::vector<double> &v, int b, double alone) {
    return size_t(b) < v.size() ? v[b] : alone;
  };
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
  if (flights[i].prefilled) {
    // Its KV came from a prefill node: it decodes from the next step, its
    // first token's time the KV's arrival.
    *freeSlot = Slot{static_cast<int64_t>(i), r.promptTokens + 1, 1, 1, b, -1,
                     rr.firstTokenS};
    ++m.active;
    return false;
  }
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
    rr.energyJ += charge(m, 1, alone * powerOf(costs.prefillW, b), cost);
    t += cost;
    res.prefillS += cost;
    mr.chipS += cost;
    res.prefillChunks += chunkCount - first;
    prefilled(m, *freeSlot, slotIndex);
    m.lastUseS = t;
    return true;
  }
  return false;
}

double Loop::charge(const ModelState &m, int64_t requests, double workJ,
                    double seconds) {
  const ServeConfig &cfg = m.config();
  double dynamic = workJ * cfg.wallPowerFactor;
  res.energy.dynamicJ += dynamic;
  // The step's dynamic energy and the node's idle power over it, split
  // evenly over the requests it served.
  return requests > 0 ? (dynamic + cfg.idleW * seconds) / double(requests) : 0;
}

llvm::Expected<Loop::DecodeStep> Loop::decodeStep(ModelState &m,
                                                  int64_t decoding) {
  const CostTable &costs = m.costs();
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
  DecodeStep step;
  int b = step.bucket = CostTable::bucketOf(costs.decodeBuckets, longest);
  if (b < 0)
    return makeError(llvm::formatv("no decode cost for a context of {0} "
                                   "tokens",
                                   longest));
  // The smallest static graph that holds the slots decoding, and what
  // moving to it from another costs.
  step.graphSlots = m.config().slots;
  step.aloneS = costs.decodeStepS[b];
  double watts = powerOf(costs.decodeW, b);
  double own = step.aloneS;
  if (!costs.graphSlots.empty()) {
    int g = CostTable::bucketOf(costs.graphSlots, decoding);
    if (g < 0)
      g = static_cast<int>(costs.graphSlots.size()) - 1;
    step.graphSlots = costs.graphSlots[g];
    step.aloneS = own = costs.graphStepS[g][b];
    if (size_t(g) < costs.graphW.size())
      watts = powerOf(costs.graphW[g], b);
    if (res.graphSteps.size() < costs.graphSlots.size())
      res.graphSteps.resize(costs.graphSlots.size());
    ++res.graphSteps[g];
    if (m.lastGraph >= 0 && m.lastGraph != g) {
      ++res.graphSwitches;
      res.graphSwitchS += costs.graphSwitchS[g];
      step.aloneS += costs.graphSwitchS[g];
    }
    m.lastGraph = g;
  }
  // The step's work: the graph's own step (a switch between graphs loads
  // configurations, which the step's power does not hold).
  step.workJ = watts * own;
  return step;
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
  // Requests prefilled elsewhere take every free slot they can; one of
  // this node's own prefills at most.
  while (m.canAdmit()) {
    bool elsewhere = flights[m.waiting.front()].prefilled;
    auto admitted = admit(mi);
    if (!admitted)
      return admitted.takeError();
    if (*admitted)
      return Error::success(); // a whole prefill was this turn
    if (!elsewhere)
      break;
  }
  int64_t decoding = m.active - (m.prefilling >= 0 ? 1 : 0);
  // One step: the decode graph over every slot (when any decodes), then
  // the chunk of the prefill under way (chunked schedule).
  double decodeCost = 0, chunkCost = 0, decodeShareJ = 0;
  if (decoding > 0) {
    auto step = decodeStep(m, decoding);
    if (!step)
      return step.takeError();
    int b = step->bucket;
    double alone = step->aloneS;
    int64_t graphSlots = step->graphSlots;
    decodeCost = graph(t, alone, contendedOr(slow.decodeStepS, b, alone),
                       contendedOr(m.spec->decodeCopyBps, b, 0));
    // Each decoding slot's share, added as its tokens are (below).
    decodeShareJ = charge(m, decoding, step->workJ, decodeCost);
    double share = decodeCost * double(decoding) / double(graphSlots);
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
    flights[p.request].rr.energyJ +=
        charge(m, 1, alone * powerOf(costs.prefillW, p.bucket), chunkCost);
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
    flights[s.request].rr.energyJ += decodeShareJ;
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

Error Loop::begin(double start) {
  for (const ModelState &m : models)
    if (m.config().slots < 1)
      return makeError("serving needs at least one slot");
  res.models.resize(models.size());
  t = startS = start;
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
  return Error::success();
}

void Loop::arrive(Request r) {
  int model = r.model;
  double at = r.arrivalS;
  ++arrived;
  size_t i = board(std::move(r));
  models[model].waiting.push_back(i);
  // The forecast needs the arrivals only where it prewarms.
  if (cache.policy == CachePolicy::Prewarm)
    forecast.arrive(model, at);
}

void Loop::arrivePrefilled(Request r, const RequestResult &rr) {
  int model = r.model;
  ++arrived;
  size_t i = board(std::move(r));
  Flight &f = flights[i];
  f.rr = rr;
  f.rr.slot = -1;
  f.rr.decodeNode = node;
  f.prefilled = true;
  models[model].waiting.push_back(i);
}

Error Loop::advance(double untilS, bool more) {
  const bool prewarm = cache.policy == CachePolicy::Prewarm;
  while (more ? t < untilS : live > 0) {
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
        return e;
      if (switchEndS >= 0)
        completeSwitch(switchEndS);
      sample();
      continue;
    }
    // Idle until the next arrival, the switch's end or the next window.
    double until = more ? untilS : 1e300;
    double switchEnd = 1e300;
    if (switching >= 0) {
      double rate = switchRateAlone();
      switchEnd = rate > 0 ? t + switchLeft / rate : t;
      until = std::min(until, switchEnd);
    }
    if (prewarm && more)
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
  return Error::success();
}

ServeResult Loop::end(double endS) {
  if (endS > t) {
    // Idle to the cluster's end, so every node's times add up to it.
    res.idleS += endS - t;
    t = endS;
  }
  if (haveSkipped) // the end state is always kept
    res.samples.push_back(std::move(skipped));
  res.makespanS = t - startS;
  // The node's idle power over the whole makespan (busy steps included);
  // of it, what the time nothing ran drew.
  double idleW = models.empty() ? 0 : models.front().config().idleW;
  res.energy.staticJ = idleW * res.makespanS;
  res.energy.idleJ = idleW * res.idleS;
  for (const ModelState &m : models)
    if (m.prefix)
      res.prefix.droppedBlocks += m.prefix->dropped(),
          res.prefix.demotedBlocks += m.prefix->demoted();
  kvIntegral += lastKv * (t - lastKvTime);
  waitingIntegral += double(lastWaiting) * (t - lastKvTime);
  prefixHbmIntegral += lastPrefixHbm * (t - lastKvTime);
  prefixDdrIntegral += lastPrefixDdr * (t - lastKvTime);
  if (res.makespanS > 0) {
    res.prefix.hbmMeanBytes = prefixHbmIntegral / res.makespanS;
    res.prefix.ddrMeanBytes = prefixDdrIntegral / res.makespanS;
    res.waitingMean = waitingIntegral / res.makespanS;
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

llvm::Expected<ServeResult> Loop::run(RequestSource &source, int64_t total) {
  // The next request, checked: in arrival order, for a model of the
  // deployment.
  std::optional<Request> ahead;
  bool fetched = false;
  double lastArrivalS = 0;
  auto fetch = [&]() -> Error {
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
        return makeError(llvm::formatv("request {0} arrives at {1} s, "
                                       "before the one before it at {2} s; "
                                       "requests are served in arrival order",
                                       r.id, r.arrivalS, lastArrivalS));
      fetched = true;
      lastArrivalS = r.arrivalS;
    }
    ahead = std::move(*next);
    return Error::success();
  };
  if (Error e = fetch())
    return std::move(e);
  if (Error e = begin(ahead ? ahead->arrivalS : 0))
    return std::move(e);
  while (ahead) {
    if (Error e = advanceTo(ahead->arrivalS))
      return std::move(e);
    double at = ahead->arrivalS;
    arrive(std::move(*ahead));
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
  if (Error e = drain())
    return std::move(e);
  return end();
}

llvm::Expected<ServeResult> snapflow::sim::serving::serveStream(
    RequestSource &source, int64_t total, llvm::ArrayRef<DeployedModel> models,
    const CacheOptions &cache,
    llvm::function_ref<void(const RequestResult &)> onFinish) {
  if (models.empty())
    return makeError("a deployment needs at least one model");
  Loop loop(models, cache, onFinish);
  return loop.run(source, total);
}
