//===- MemoryFootprint.h - Weights and KV per socket under TP --*- C++ -*-===//
//
// A first-order placement of weights and KV cache on the sockets of a tensor-
// parallel group: weights split evenly, a GQA cache split by KV heads as far
// as the head count allows (gcd(kv_heads, tp) shards, the rest replicated), an
// MLA latent cache replicated on every socket (it has no head axis). The
// `--plan-memory` pass refines this per tensor; `snapflow info` reports it.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_ANALYSIS_MEMORYFOOTPRINT_H
#define SNAPFLOW_ANALYSIS_MEMORYFOOTPRINT_H

#include "snapflow/Analysis/ModelStats.h"
#include "snapflow/Arch/ArchModel.h"

#include <array>

namespace snapflow {

/// Bytes one socket holds, and whether they fit each tier.
struct SocketFootprint {
  int64_t tp = 1;
  int64_t weightBytes = 0; ///< per socket
  int64_t kvBytes = 0;     ///< per socket
  int64_t kvShards = 1;    ///< ways the cache is split (1: replicated)
  int64_t needBytes() const { return weightBytes + kvBytes; }
  /// Capacity of each tier per socket, indexed like arch::kAllTiers.
  std::array<int64_t, 3> capacityBytes{};
  bool fits(arch::MemoryTier tier) const {
    return needBytes() <= capacityBytes[static_cast<int>(tier)];
  }
};

/// Places `totalWeightBytes` and `totalKvBytes` on one socket of a TP group of
/// `tp` sockets of `chip`. `kvHeads` is 0 for an MLA latent cache.
SocketFootprint estimateSocketFootprint(const arch::ArchModel &chip, int64_t tp,
                                        int64_t totalWeightBytes,
                                        int64_t totalKvBytes, int64_t kvHeads);

} // namespace snapflow

#endif // SNAPFLOW_ANALYSIS_MEMORYFOOTPRINT_H
