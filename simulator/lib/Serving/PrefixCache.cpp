//===- PrefixCache.cpp - Prompt blocks kept for reuse, HBM then DDR -------===//

#include "snapflow/Sim/Serving/PrefixCache.h"

using namespace snapflow::sim::serving;

PrefixCache::PrefixCache(int64_t hbmBlocks, int64_t ddrBlocks)
    : hbmCapacity(hbmBlocks > 0 ? hbmBlocks : 0),
      ddrCapacity(ddrBlocks > 0 ? ddrBlocks : 0) {}

uint64_t PrefixCache::chain(uint64_t parent, int64_t id) {
  // splitmix64 of the parent mixed with the id: equal ids after different
  // prefixes get different keys.
  uint64_t x = parent ^ (static_cast<uint64_t>(id) * 0x9E3779B97F4A7C15ULL +
                         0x632BE59BD9B4E019ULL);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

void PrefixCache::makeRoom(Tier tier) {
  if (tier == Tier::Ddr) {
    while (!ddr.empty() && int64_t(ddr.size()) >= ddrCapacity) {
      where.erase(ddr.back());
      ddr.pop_back();
      ++droppedBlocks;
    }
    return;
  }
  while (!hbm.empty() && int64_t(hbm.size()) >= hbmCapacity) {
    uint64_t key = hbm.back();
    hbm.pop_back();
    if (ddrCapacity == 0) {
      where.erase(key);
      ++droppedBlocks;
      continue;
    }
    // Down a tier, as its most recently used block.
    makeRoom(Tier::Ddr);
    ddr.push_front(key);
    where[key] = {Tier::Ddr, ddr.begin()};
    ++demotedBlocks;
  }
}

void PrefixCache::toHbm(uint64_t key, bool computed) {
  auto it = where.find(key);
  if (it != where.end()) {
    if (it->second.tier == Tier::Hbm) {
      hbm.splice(hbm.begin(), hbm, it->second.at);
      return;
    }
    if (hbmCapacity == 0) { // DDR only: it stays, now most recent there
      ddr.splice(ddr.begin(), ddr, it->second.at);
      return;
    }
    ddr.erase(it->second.at);
    where.erase(it);
  }
  if (hbmCapacity == 0) {
    if (ddrCapacity == 0)
      return;
    makeRoom(Tier::Ddr);
    ddr.push_front(key);
    where[key] = {Tier::Ddr, ddr.begin()};
    // A block just computed (in HBM) written down to DDR.
    demotedBlocks += computed;
    return;
  }
  makeRoom(Tier::Hbm);
  hbm.push_front(key);
  where[key] = {Tier::Hbm, hbm.begin()};
}

int64_t PrefixCache::held(llvm::ArrayRef<int64_t> ids) const {
  int64_t n = 0;
  uint64_t key = 0;
  for (int64_t id : ids) {
    key = chain(key, id);
    if (where.find(key) == where.end())
      break;
    ++n;
  }
  return n;
}

PrefixCache::Hit PrefixCache::lookup(llvm::ArrayRef<int64_t> ids) {
  Hit hit;
  uint64_t key = 0;
  // The run first, then its blocks moved up: moving one must not push out
  // a later block of the same run before it is counted.
  std::vector<uint64_t> run;
  for (int64_t id : ids) {
    key = chain(key, id);
    auto it = where.find(key);
    if (it == where.end())
      break;
    run.push_back(key);
    hit.fromDdr += it->second.tier == Tier::Ddr;
  }
  hit.blocks = static_cast<int64_t>(run.size());
  // Last block first: a prompt's head ends most recently used, so LRU
  // evicts a run from its tail (as vLLM frees a request's blocks), never
  // leaving blocks no lookup can reach.
  for (auto k = run.rbegin(); k != run.rend(); ++k)
    toHbm(*k, false);
  return hit;
}

int64_t PrefixCache::insert(llvm::ArrayRef<int64_t> ids) {
  int64_t fresh = 0;
  uint64_t key = 0;
  std::vector<uint64_t> keys;
  for (int64_t id : ids) {
    key = chain(key, id);
    fresh += where.find(key) == where.end();
    keys.push_back(key);
  }
  for (auto k = keys.rbegin(); k != keys.rend(); ++k)
    toHbm(*k, true);
  return fresh;
}
