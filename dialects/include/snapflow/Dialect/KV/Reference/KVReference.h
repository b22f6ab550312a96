//===- KVReference.h - Executable semantics of the kv ops ------*- C++ -*-===//
//
// A small reference that computes what the kv dialect's ops and the KV
// policies mean, on real numbers: SnapKV's scores, pooling and top-k, the
// gather of a compressed cache, the recent ring, H2O's decode-time
// eviction, ArkVale's page digests and its decode-time backup and recall,
// and the KV element formats (KVFormats.td): KIVI-style group quantization
// and KIVI's decode-time residual bookkeeping (#kv.kivi), fp8 e4m3 with a
// per-tensor scale (#kv.fp8), QuaRot's Hadamard rotation before per-(token,
// head) quantization (#kv.quarot), and ZipCache's normalized saliency and
// mixed-precision quantization (#kv.zipcache). It exists to check the
// methods' invariants on synthetic Q/K/V (tests/Unit/KVReferenceTest.cpp):
// sinks and the recent window are always kept, planted heavy hitters
// survive, the ring keeps its order after wrap-around, the page holding a
// planted key is recalled (also after it was evicted), dequantization stays
// within its bound, KIVI quantizes one key and one value token per step on
// average, fp8 rounds to nearest within half an ulp, the rotation spreads
// an outlier channel, salient tokens get the high precision. Plain C++ (no
// MLIR): one sequence (batch 1), f32.
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
  float at(int64_t r, int64_t c) const {
    return data[std::size_t(r * cols + c)];
  }
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
gatherStore(int64_t promptTokens, int64_t groups, int64_t sinks, int64_t recent,
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
  int64_t insert(int64_t position, const std::vector<float> &probs, float own);
  int64_t heavy, recent;
  std::vector<int64_t> tokens;    ///< token position per slot
  std::vector<float> accumulated; ///< accumulated attention per slot
  Touched touched;
};

/// ArkVale's page digest: per channel an interval [lo, hi] standing for the
/// key values of a page's tokens.
struct PageDigest {
  std::vector<float> lo, hi;
};
/// How a page's keys are summarized per channel. Box: the smallest and
/// largest value (lo = min, hi = max), so pageBound is a true upper bound.
/// CuboidMean, the official code's (`_summarize_keys`): c = (max + min) / 2,
/// r = mean over the page's tokens of |c - k|, lo = c - r, hi = c + r; the
/// interval lies inside the box (r <= (max - min) / 2), so its pageBound is
/// at most the box's and is an estimate, not a bound.
enum class DigestKind { Box, CuboidMean };
/// Digests of consecutive pages of `pageTokens` keys (rows of `keys`, one
/// head's channels); a partial last page is left out (it stays resident).
std::vector<PageDigest> digestPages(const Matrix &keys, int64_t pageTokens,
                                    DigestKind kind = DigestKind::CuboidMean);
/// ArkVale's page score (`estimate_scores`): sum of max(q_c lo_c, q_c hi_c).
/// Over a Box digest the upper bound of q.k over the page's keys.
float pageBound(const PageDigest &page, const std::vector<float> &query);
/// The `count` pages with the highest bound for `query`, best first; ties
/// go to the earlier page.
std::vector<int64_t> recallPages(const std::vector<PageDigest> &pages,
                                 const std::vector<float> &query,
                                 int64_t count);

/// ArkVale's decode-time state of one KV-head group (the official code's
/// form), in pages of `pageTokens` tokens numbered from 0. Pages 0 ..
/// fullPages() - 1 are full; page fullPages() is the partial page, which
/// takes the appended tokens (it is empty right after a page fills) and is
/// always resident. Protected pages: the sinks (the first `sinkPages` full
/// pages) and the window (the last `windowPages` pages: the partial page
/// and the `windowPages - 1` full pages before it, as the official code's
/// `n_win_pages` and the compiler's ring of `window x page` tokens); they
/// are always resident. The other full pages are
/// candidates: each step chooses `topk` of them and recalls at most
/// `recall` of those not resident (the rate a static program provisions).
///
/// Residency. At most `budgetPages` pages are resident, the partial page
/// counted as one. While fullPages() < budgetPages every page is resident
/// (fullPages() + 1 <= budgetPages). The append that completes a page and
/// makes fullPages() >= budgetPages evicts one page, so from then on exactly
/// `budgetPages` are resident: the resident candidate with the lowest bound
/// from the latest step that scored it (a page never scored counts as
/// -infinity), the earlier page on a tie. Requires sinkPages + windowPages
/// + topk <= budgetPages (the policy's verifier rule), so every chosen page
/// fits beside the protected ones and a recall always finds a victim.
/// Deterministic: ties go to the earlier page everywhere.
class ArkValeCache {
public:
  ArkValeCache(int64_t pageTokens, int64_t budgetPages, int64_t sinkPages,
               int64_t windowPages, int64_t topk, int64_t recall);
  /// kv.backup of the token at `position` (positions run 0, 1, ...) with its
  /// `key` (one head's channels): the token goes to the partial page and is
  /// backed up; when the page fills it gets its cuboid-mean digest, a new
  /// partial page begins, and once the cache is full a page is evicted.
  void append(int64_t position, const std::vector<float> &key);
  /// kv.page_score, kv.topk and kv.recall for one decode query: scores every
  /// full page's digest with pageBound, chooses the `topk` candidates with
  /// the highest bound (the earlier page on a tie), and recalls the chosen
  /// pages not resident in rank order, at most `recall`, each replacing the
  /// resident candidate with the lowest bound that was not chosen (the
  /// earlier page on a tie). Returns the pages recalled, in rank order.
  std::vector<int64_t> step(const std::vector<float> &query);
  /// Pages completed (and digested) so far; also the partial page's index.
  int64_t fullPages() const { return int64_t(digestList.size()); }
  /// The resident pages, ascending; the partial page is the last.
  std::vector<int64_t> residentPages() const;
  bool isResident(int64_t page) const;
  /// The last step's chosen pages, best first.
  const std::vector<int64_t> &chosen() const { return chosenPages; }
  /// The full pages' digests (cuboid-mean), by page.
  const std::vector<PageDigest> &digests() const { return digestList; }
  /// What the last step touched: digests scored and pages recalled by the
  /// step, tokens backed up and pages digested by the appends since the
  /// step before it.
  struct Touched {
    int64_t digestsRead = 0, pagesRecalled = 0, tokensBackedUp = 0,
            pagesDigested = 0;
  };
  const Touched &lastStep() const { return touched; }

private:
  /// The resident candidate with the lowest bound that is not in `keep`
  /// (the earlier page on a tie), or -1 if there is none.
  int64_t lowestCandidate(const std::vector<int64_t> &keep) const;
  int64_t pageTokens, budgetPages, sinkPages, windowPages, topk, recall;
  int64_t tokens = 0, dim = 0;
  std::vector<std::vector<float>> pageKeys; ///< the partial page's keys
  std::vector<PageDigest> digestList;       ///< per full page
  std::vector<float> bounds;  ///< per full page, from its latest scoring
  std::vector<bool> resident; ///< per page, the partial page included
  std::vector<int64_t> chosenPages;
  Touched touched, pending; ///< pending: the appends since the last step
};

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

/// KIVI's decode-time cache of one sequence (one layer, the KV heads
/// concatenated), as the official code's decode path (jy-yuan/KIVI,
/// models/llama_kivi.py) keeps it, starting empty. `residual` R is a
/// multiple of `group` G, and `valueWidth` a multiple of G.
///
/// Keys wait at full precision until R have gathered; the append that
/// brings them to R quantizes the R together, per channel in groups of G
/// tokens (`quantize` per channel per G-token group), and appends them to
/// the quantized keys: after every append 0 <= fullKeys() <= R - 1 (it is
/// appended() mod R). Values keep the R newest at full precision; each
/// append beyond R quantizes the oldest one, per token in groups of G
/// channels: fullValues() = min(R, appended()). Token positions run 0, 1,
/// ... in append order. The official decode step attends before it
/// quantizes (over R keys and R + 1 values at full precision); read() shows
/// the state after the append. The state after n appends is the split the
/// official prefill of n tokens leaves (keys: all but n mod R quantized;
/// values: all but the last R).
class KIVICache {
public:
  KIVICache(int64_t residual, int64_t group, int64_t keyWidth,
            int64_t valueWidth, int bits);
  /// What one append quantized: key tokens (0 or R), value tokens (0 or 1)
  /// and elements (keyTokens * keyWidth + valueTokens * valueWidth).
  struct Touched {
    int64_t keyTokens = 0, valueTokens = 0, elements = 0;
  };
  /// Appends the next token's `key` (keyWidth) and `value` (valueWidth);
  /// returns what the append quantized.
  Touched append(const std::vector<float> &key,
                 const std::vector<float> &value);
  /// Tokens appended so far.
  int64_t appended() const { return int64_t(history.size()); }
  /// Tokens whose key (value) is held at full precision.
  int64_t fullKeys() const { return int64_t(fullKeyRows.size()); }
  int64_t fullValues() const { return int64_t(fullValueRows.size()); }
  /// Tokens whose key (value) is held quantized.
  int64_t quantizedKeys() const { return int64_t(keyBlocks.size()) * residual; }
  int64_t quantizedValues() const { return int64_t(valueTokens.size()); }
  /// The token positions the cache holds keys (values) for, as stored: the
  /// quantized ones, then the full-precision ones, oldest first.
  std::vector<int64_t> keyPositions() const;
  std::vector<int64_t> valuePositions() const;
  /// Token t's key and value as attention sees them: dequantized, or as
  /// appended while at full precision.
  struct TokenKV {
    std::vector<float> key, value;
  };
  TokenKV read(int64_t t) const;
  /// The scale of the quantization group holding channel c of token t's
  /// key (value); 0 while it is at full precision. read() is within half
  /// of it of the appended element.
  float keyScale(int64_t t, int64_t c) const;
  float valueScale(int64_t t, int64_t c) const;
  /// Steps before every window of R consecutive appends quantizes exactly
  /// R key and R value tokens: R (the first R appends quantize no value).
  int64_t warmupSteps() const { return residual; }
  /// Average per step of what the appends of tokens [first, last)
  /// quantized. Over any R consecutive steps from warmupSteps() on it is
  /// exactly 1 key token, 1 value token and keyWidth + valueWidth elements:
  /// what the compiled `kv.quantize {tokens = 1, every = 1}` charges per
  /// sequence and step (CostModelTest compares the bytes).
  struct Rate {
    double keyTokens = 0, valueTokens = 0, elements = 0;
  };
  Rate averagePerStep(int64_t first, int64_t last) const;
  /// What the append of token `step` quantized.
  const Touched &touchedAt(int64_t step) const { return history[size_t(step)]; }

private:
  /// A token kept at full precision.
  struct Row {
    int64_t position;
    std::vector<float> data;
  };
  /// R keys quantized together: groups[c * (R / G) + i] holds channel c of
  /// tokens first + i * G .. first + i * G + G - 1.
  struct KeyBlock {
    int64_t first;
    std::vector<QuantGroup> groups;
  };
  /// One token's value: groups[i] holds channels i * G .. i * G + G - 1.
  struct ValueToken {
    int64_t position;
    std::vector<QuantGroup> groups;
  };
  int64_t residual, group, keyWidth, valueWidth;
  int bits;
  std::vector<Row> fullKeyRows, fullValueRows; ///< oldest first
  std::vector<KeyBlock> keyBlocks;
  std::vector<ValueToken> valueTokens;
  std::vector<Touched> history; ///< per append
};

/// The largest finite fp8 e4m3 value (the "fn" variant: no infinities, the
/// all-ones code is NaN): 1.75 * 2^8.
constexpr float kFp8E4M3Max = 448.0f;
/// `x` rounded to the nearest fp8 e4m3 value (1 sign bit, 4 exponent bits
/// with bias 7, 3 mantissa bits; subnormals m / 8 * 2^-6 below 2^-6, the
/// smallest 2^-9), ties to the even mantissa. Values beyond +-448
/// (infinities included) saturate to +-448, as vLLM's scaled conversion
/// clamps before converting; NaN stays NaN. Returned as the f32 of that
/// value.
float fp8e4m3(float x);
/// A tensor stored as fp8 e4m3 with one scale (#kv.fp8, vLLM's
/// kv_cache_dtype=fp8): element i stands for values[i] * scale.
struct Fp8Tensor {
  std::vector<float> values; ///< each an e4m3 value, held as f32
  float scale = 1;
};
/// Per-tensor scaled quantization: scale = amax / 448 (1 for an all-zero
/// tensor), values[i] = fp8e4m3(x[i] / scale).
Fp8Tensor fp8Quantize(const std::vector<float> &x);
/// values[i] * scale.
std::vector<float> fp8Dequantize(const Fp8Tensor &t);

/// The normalized fast Walsh-Hadamard transform, in place: x <- H x / sqrt(n)
/// with H the n x n Sylvester Hadamard matrix (H[i][j] = (-1)^popcount(i &
/// j)), n = x.size() a power of 2; n log2 n additions. Orthogonal and
/// symmetric, so it is its own inverse and keeps the L2 norm and the dot
/// products: QuaRot rotates queries and keys alike, and q.k is unchanged.
void hadamard(std::vector<float> &x);
/// QuaRot's stored form of one (token, head) of keys (#kv.quarot): the
/// head's channels rotated by `hadamard`, then quantized as one asymmetric
/// group of head_dim elements at `bits`.
QuantGroup quarotQuantize(std::vector<float> head, int bits);
/// The head back in its own basis: dequantized, then rotated back (attention
/// itself reads the rotated keys with a rotated query). Since the rotation
/// is orthogonal, ||head - result||_2 <= sqrt(n) * scale / 2.
std::vector<float> quarotDequantize(const QuantGroup &group);

/// ZipCache's mixed-precision storage of a cache's tokens (#kv.zipcache):
/// one group per token at its precision.
struct MixedQuant {
  std::vector<QuantGroup> groups; ///< per token
  std::vector<bool> salient;      ///< per token: stored at the high bits
  std::vector<int> bits;          ///< per token
};
/// Quantizes the rows of `tokens` (one token each) by saliency: the
/// ceil(n * salientPercent / 100) tokens with the highest `saliency` (the
/// earlier token on a tie) at `high` bits, the others at `low` bits; i.e.
/// the floor(n * (100 - salientPercent) / 100) lowest are the unimportant
/// ones, as the official code's k/v_unimportant_ratio. Simplification: a
/// token's elements form one asymmetric group (token-wise) for keys and
/// values alike, where ZipCache quantizes keys channel-wise within each
/// precision set and values token-wise after a per-channel normalizer.
MixedQuant zipcacheQuantize(const Matrix &tokens,
                            const std::vector<float> &saliency,
                            int64_t salientPercent, int high, int low);
/// The tokens back, one row each.
Matrix zipcacheDequantize(const MixedQuant &q);
/// ZipCache's normalized attention score: `probs` holds the causal
/// attention probabilities of its rows' queries over the n keys of a
/// sequence (probs.cols == n; ZipCache's probes are a tenth of the queries);
/// key j's column sum is divided by n - j, the number of queries of the
/// sequence that can see it, which removes the accumulated score's bias
/// toward early tokens.
std::vector<float> normalizedSaliency(const Matrix &probs, int64_t n);

} // namespace ref
} // namespace kv
} // namespace snapflow

#endif // SNAPFLOW_DIALECT_KV_REFERENCE_KVREFERENCE_H
