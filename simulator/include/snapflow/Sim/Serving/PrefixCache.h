//===- PrefixCache.h - Prompt blocks kept for reuse, HBM then DDR -*- C++
//-*-===//
//
// A prefix cache of prompt KV blocks, as vLLM's automatic prefix caching,
// SGLang's radix cache and Mooncake's store keep them (docs/Serving.md,
// "Prefix caching"): a block is a run of B tokens of a prompt, named by the
// trace's block id chained to the ids before it (equal ids after different
// prefixes are different blocks). Two tiers, each least recently used
// first: HBM, the HBM a deployment's plan leaves free, and DDR, the
// SN40L's 1.5 TB a socket. A block evicted from HBM moves to DDR (when
// there is a DDR tier); one evicted from DDR is gone. A lookup finds the
// longest run of a prompt's leading blocks held in either tier; its DDR
// blocks move up to HBM to be used.
//
// The cache counts blocks; the loop (Serving.cpp) turns them into bytes and
// into time from the copy rates the SystemC model measured.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_SERVING_PREFIXCACHE_H
#define SNAPFLOW_SIM_SERVING_PREFIXCACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <list>
#include <vector>

namespace snapflow {
namespace sim {
namespace serving {

class PrefixCache {
public:
  /// Capacities in blocks per tier (0: no such tier).
  PrefixCache(int64_t hbmBlocks, int64_t ddrBlocks);

  /// A lookup's outcome: the leading blocks held, and how many of them were
  /// in DDR (now moved to HBM).
  struct Hit {
    int64_t blocks = 0, fromDdr = 0;
  };
  /// The longest run of `ids`' leading blocks held; each becomes the most
  /// recently used of HBM, those from DDR moving up (what they push out of
  /// HBM counted in `demoted`, `dropped`).
  Hit lookup(llvm::ArrayRef<int64_t> ids);
  /// The longest run of `ids`' leading blocks held, nothing moved (what a
  /// prefix-aware router asks).
  int64_t held(llvm::ArrayRef<int64_t> ids) const;
  /// Puts every block of `ids` in HBM as the most recently used (a prompt
  /// just prefilled; with no HBM tier, written down to DDR); returns how
  /// many blocks were new.
  int64_t insert(llvm::ArrayRef<int64_t> ids);

  /// Blocks moved from HBM to DDR (written down, with no HBM tier), and
  /// dropped from the last tier, so far.
  int64_t demoted() const { return demotedBlocks; }
  int64_t dropped() const { return droppedBlocks; }
  int64_t hbmBlocks() const { return static_cast<int64_t>(hbm.size()); }
  int64_t ddrBlocks() const { return static_cast<int64_t>(ddr.size()); }

  /// The key of block `id` after the block keyed `parent` (0 for the
  /// first): a chained hash, as the engines key their blocks.
  static uint64_t chain(uint64_t parent, int64_t id);

private:
  enum class Tier { Hbm, Ddr };
  struct Entry {
    Tier tier;
    std::list<uint64_t>::iterator at;
  };
  /// Makes `key` the most recently used block of HBM (from DDR, or new);
  /// with no HBM tier, of DDR. `computed`: its KV was just computed in HBM
  /// (an insertion), so writing it to DDR is a move down.
  void toHbm(uint64_t key, bool computed);
  /// Makes room in HBM and DDR for one more block each, as LRU says.
  void makeRoom(Tier tier);

  int64_t hbmCapacity, ddrCapacity;
  std::list<uint64_t> hbm, ddr; ///< most recently used first
  llvm::DenseMap<uint64_t, Entry> where;
  int64_t demotedBlocks = 0, droppedBlocks = 0;
};

} // namespace serving
} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_SERVING_PREFIXCACHE_H
