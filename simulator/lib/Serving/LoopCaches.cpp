//===- LoopCaches.cpp - The serving loop's caches -------------------------===//
//
// The two caches of the serving loop (Loop.h): models in HBM (ModelCache.h:
// evictions, drains, prewarms, switches and their contention), and prompt
// blocks (PrefixCache.h: a prompt looked up as its prefill starts, blocks
// moved between HBM and DDR at the measured rates).
//
//===----------------------------------------------------------------------===//

#include "Loop.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <numeric>

using namespace snapflow::sim::serving;
using namespace snapflow::sim::serving::loop;

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
  // The copy's energy, charged when it starts (a switch runs to its end).
  double switchJ = s.spec->switchJ * s.config().wallPowerFactor;
  res.models[m].switchJ += switchJ;
  res.energy.switchJ += switchJ;
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
  int64_t tokens = std::min(hit.blocks * po.blockTokens, f.r.promptTokens - 1);
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
  // Chunks of C tokens, the last one shorter where C does not divide the
  // bucket.
  int64_t chunkTokens =
      profile ? costs.prefillProfileTokens
              : (costs.prefillChunkTokens > 0 ? costs.prefillChunkTokens
                                              : costs.prefillBuckets[b] / n);
  chunkTokens = std::max<int64_t>(1, chunkTokens);
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
