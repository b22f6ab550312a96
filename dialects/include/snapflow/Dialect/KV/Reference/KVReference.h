//===- KVReference.h - Executable semantics of the kv ops ------*- C++ -*-===//
//
// A small reference that computes what the kv dialect's ops and the KV
// policies mean, on real numbers: SnapKV's scores, pooling and top-k, the
// gather of a compressed cache, the recent ring, H2O's decode-time
// eviction, ArkVale's page digests and recall, and KIVI-style group
// quantization. It exists to check the methods' invariants on synthetic
// Q/K/V (tests/Unit/KVReferenceTest.cpp): sinks and the recent window are
// always kept, planted heavy hitters survive, the ring keeps its order after
// wrap-around, the page holding a planted key is recalled, dequantization
// stays within its bound. Plain C++ (no MLIR): one sequence (batch 1), f32.
//
// Layouts follow the ops: queries [L][heads * dim], keys [L][groups * dim]
// row-major; scores [groups][L].
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_KV_REFERENCE_KVREFERENCE_H
#define SNAPFLOW_DIALECT_KV_REFERENCE_KVREFERENCE_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace snapflow {
namespace kv {
namespace ref {

/// A row-major matrix of f32.
struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<float> data;
  Matrix() = default;
  Matrix(int64_t rows, int64_t cols)
      : rows(rows), cols(cols), data(std::size_t(rows * cols), 0.0f) {}
  float &at(int64_t r, int64_t c) { return data[std::size_t(r * cols + c)]; }
  float at(int64_t r, int64_t c) const { return data[std::size_t(r * cols + c)]; }
};

/// kv.score: the last `obsWindow` of the L queries attend (softmax in f32,
/// scaled by 1/sqrt(dim), causal inside the window) over all L keys; the
/// probabilities are summed over the window's queries and over the query
/// heads of each of `groups` KV-head groups. Result: [groups][L].
Matrix score(const Matrix &queries, const Matrix &keys, int64_t heads,
             int64_t groups, int64_t obsWindow);

/// kv.pool: 1-D max (or average) pooling of width `kernel` (odd, same
/// padding: the window is cut at the edges) along each row.
Matrix pool(const Matrix &scores, int64_t kernel, bool max);

/// kv.topk: per group, the positions of the `k` highest scores among
/// [sinks, L - recent), ascending; ties go to the earlier position.
std::vector<std::vector<int64_t>> topk(const Matrix &scores, int64_t k,
                                       int64_t sinks, int64_t recent);

/// kv.gather_store: the prompt positions the cache keeps per group, in slot
/// order: the first `sinks`, the selected (per group), the last `recent`.
/// With no selection (StreamingLLM) only sinks and recent.
std::vector<std::vector<int64_t>>
gatherStore(int64_t promptTokens, int64_t groups, int64_t sinks,
            int64_t recent,
            const std::vector<std::vector<int64_t>> &selected = {});

/// SnapStream's decode cache of one group: frozen sinks and selected
/// tokens, and a ring of `recent` slots that kv.append overwrites oldest
/// first. Holds token positions.
class RingCache {
public:
  /// `kept` is gatherStore's slot order; its last `recent` entries are the
  /// ring, the oldest first.
  RingCache(std::vector<int64_t> kept, int64_t recent);
  /// kv.append of the token at `position`: the slot it lands in.
  int64_t append(int64_t position);
  const std::vector<int64_t> &slots() const { return slotTokens; }
  /// The ring's tokens, oldest first.
  std::vector<int64_t> recentInOrder() const;

private:
  std::vector<int64_t> slotTokens;
  int64_t ringStart, recent, next = 0; ///< next: the ring slot to overwrite
};

/// H2O's decode-time eviction of one head (the FlexGen form of the official
/// code): `heavy + recent` slots; each step adds the step's attention
/// probabilities over the slots to their accumulated scores; once full, the
/// new token overwrites the slot with the lowest score among the tokens
/// older than the `recent` newest, and its score starts at 0 (plus its own
/// attention). What one step touches is counted for the byte checks.
class H2OCache {
public:
  H2OCache(int64_t heavy, int64_t recent);
  /// One decode step: the new token at `position` enters; `attention(t)`
  /// is the probability the step's query gives the held token t (the slots
  /// and the new token). Returns the evicted token, or -1 while not full.
  template <typename Fn> int64_t step(int64_t position, Fn attention) {
    std::vector<float> p;
    for (int64_t t : tokens)
      p.push_back(attention(t));
    return insert(position, p, attention(position));
  }
  const std::vector<int64_t> &slots() const { return tokens; }
  const std::vector<float> &scores() const { return accumulated; }
  int64_t budget() const { return heavy + recent; }
  /// Per step: score entries read and written, slots compared for the
  /// victim, K/V slots written.
  struct Touched {
    int64_t scoresRead = 0, scoresWritten = 0, compared = 0, slotsWritten = 0;
  };
  const Touched &lastStep() const { return touched; }

private:
  int64_t insert(int64_t position, const std::vector<float> &probs,
                 float own);
  int64_t heavy, recent;
  std::vector<int64_t> tokens;   ///< token position per slot
  std::vector<float> accumulated; ///< accumulated attention per slot
  Touched touched;
};

/// ArkVale's page digest: per channel, the smallest and largest key value
/// over a page's tokens (a bounding box).
struct PageDigest {
  std::vector<float> lo, hi;
};
/// Digests of consecutive pages of `pageTokens` keys (rows of `keys`, one
/// head's channels); a partial last page is left out (it stays resident).
std::vector<PageDigest> digestPages(const Matrix &keys, int64_t pageTokens);
/// The upper bound of q.k over a page's box: sum of max(q_c lo_c, q_c hi_c).
float pageBound(const PageDigest &page, const std::vector<float> &query);
/// The `count` pages with the highest bound for `query`, best first; ties
/// go to the earlier page.
std::vector<int64_t> recallPages(const std::vector<PageDigest> &pages,
                                 const std::vector<float> &query,
                                 int64_t count);

/// Asymmetric integer quantization of a group (KIVI's per-channel keys and
/// per-token values use it on groups of 32): codes in [0, 2^bits - 1],
/// value = zero + code * scale, scale = (max - min) / (2^bits - 1), zero =
/// min. The error of every element is at most scale / 2.
struct QuantGroup {
  std::vector<uint8_t> codes;
  float scale = 0, zero = 0;
};
QuantGroup quantize(const std::vector<float> &values, int bits);
std::vector<float> dequantize(const QuantGroup &group);

} // namespace ref
} // namespace kv
} // namespace snapflow

#endif // SNAPFLOW_DIALECT_KV_REFERENCE_KVREFERENCE_H
