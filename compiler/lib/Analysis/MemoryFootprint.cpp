//===- MemoryFootprint.cpp - Weights and KV per socket under TP -----------===//

#include "snapflow/Analysis/MemoryFootprint.h"

#include <numeric>

using namespace snapflow;

SocketFootprint snapflow::estimateSocketFootprint(const arch::ArchModel &chip,
                                                  int64_t tp,
                                                  int64_t totalWeightBytes,
                                                  int64_t totalKvBytes,
                                                  int64_t kvHeads) {
  SocketFootprint f;
  f.tp = tp;
  f.weightBytes = (totalWeightBytes + tp - 1) / tp;
  f.kvShards = kvHeads > 0 ? std::gcd(kvHeads, tp) : 1;
  f.kvBytes = (totalKvBytes + f.kvShards - 1) / f.kvShards;
  for (arch::MemoryTier tier : arch::kAllTiers)
    f.capacityBytes[static_cast<int>(tier)] = chip.tierBytesPerSocket(tier);
  return f;
}
