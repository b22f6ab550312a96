//===- KVReferenceTest.cpp - Invariants of the KV methods on real numbers -===//
//
// The reference (snapflow/Dialect/KV/Reference) runs the kv ops' semantics on
// synthetic, seeded Q/K/V; these tests check what each method promises.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/Reference/KVReference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

using namespace snapflow::kv::ref;

namespace {

Matrix randomMatrix(int64_t rows, int64_t cols, std::mt19937_64 &rng,
                    float spread = 1.0f) {
  std::uniform_real_distribution<float> u(-spread, spread);
  Matrix m(rows, cols);
  for (float &x : m.data)
    x = u(rng);
  return m;
}

// Every window query's probabilities over the keys it sees sum to 1 in each
// head, so a group's scores sum to obs_window x the heads it has (4 / 2).
TEST(KVReference, ScoresAreSummedProbabilities) {
  std::mt19937_64 rng(1);
  Matrix q = randomMatrix(64, 4 * 8, rng), k = randomMatrix(64, 2 * 8, rng);
  Matrix s = score(q, k, /*heads=*/4, /*groups=*/2, /*obsWindow=*/8);
  for (int64_t g = 0; g < 2; ++g) {
    float sum = 0;
    for (int64_t t = 0; t < 64; ++t)
      sum += s.at(g, t);
    EXPECT_NEAR(sum, 8.0f * 2.0f, 1e-4f);
  }
  // Causal inside the window: only the last query sees the last key, so
  // its score is at most one probability per head of the group.
  EXPECT_LE(s.at(0, 63), 2.0f);
}

// Whatever the scores, the cache keeps the first `sinks` and the last
// `recent` prompt tokens, plus k selected, all distinct.
TEST(KVReference, SinksAndRecentAreAlwaysKept) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 20; ++trial) {
    Matrix q = randomMatrix(64, 4 * 8, rng, 3.0f),
           k = randomMatrix(64, 2 * 8, rng, 3.0f);
    Matrix p = pool(score(q, k, 4, 2, 8), 7, /*max=*/true);
    auto kept = gatherStore(64, 2, /*sinks=*/4, /*recent=*/8,
                            topk(p, /*k=*/20, 4, 8));
    for (const auto &group : kept) {
      ASSERT_EQ(group.size(), 32u);
      std::set<int64_t> unique(group.begin(), group.end());
      EXPECT_EQ(unique.size(), group.size());
      for (int64_t t = 0; t < 4; ++t)
        EXPECT_TRUE(unique.count(t)) << "sink " << t;
      for (int64_t t = 56; t < 64; ++t)
        EXPECT_TRUE(unique.count(t)) << "recent " << t;
    }
  }
}

// Keys planted along the window queries' direction draw their attention
// and survive selection at the budget. With pooling their neighbours come
// along (SnapKV's clustering): a width-7 max pool gives 7 tokens around
// each planted one the same pooled score.
TEST(KVReference, PlantedHeavyHittersSurviveSelection) {
  std::mt19937_64 rng(3);
  const int64_t L = 128, dim = 16;
  std::vector<float> dir(dim);
  for (float &x : dir)
    x = std::normal_distribution<float>()(rng);
  Matrix q = randomMatrix(L, 2 * dim, rng, 0.1f), k = randomMatrix(L, dim, rng, 0.1f);
  for (int64_t t = L - 8; t < L; ++t) // the observation window
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t c = 0; c < dim; ++c)
        q.at(t, h * dim + c) += dir[size_t(c)];
  const std::vector<int64_t> planted = {20, 50, 90};
  for (int64_t t : planted)
    for (int64_t c = 0; c < dim; ++c)
      k.at(t, c) = 3.0f * dir[size_t(c)];
  Matrix s = score(q, k, 2, 1, 8);
  auto chosen = topk(s, /*k=*/3, /*sinks=*/4, /*recent=*/8)[0];
  EXPECT_EQ(chosen, planted);
  auto clustered = topk(pool(s, 7, true), 21, 4, 8)[0];
  for (int64_t t : planted)
    for (int64_t u = t - 3; u <= t + 3; ++u)
      EXPECT_TRUE(std::count(clustered.begin(), clustered.end(), u))
          << "neighbour " << u << " of " << t;
}

// SnapStream's ring: 4 sinks, 4 selected, 8 recent; 20 appends wrap the
// ring 2.5 times. The frozen slots never change, the ring holds the 8
// newest tokens, and the slot an append writes cycles through the ring.
TEST(KVReference, RingKeepsOrderAfterWrapAround) {
  auto kept = gatherStore(32, 1, 4, 8, {{10, 12, 14, 16}})[0];
  RingCache ring(kept, 8);
  for (int64_t i = 0; i < 20; ++i)
    EXPECT_EQ(ring.append(32 + i), 8 + i % 8);
  std::vector<int64_t> frozen(ring.slots().begin(), ring.slots().begin() + 8);
  EXPECT_EQ(frozen, (std::vector<int64_t>{0, 1, 2, 3, 10, 12, 14, 16}));
  EXPECT_EQ(ring.recentInOrder(),
            (std::vector<int64_t>{44, 45, 46, 47, 48, 49, 50, 51}));
}

// H2O, 4 heavy + 4 recent slots, 100 decode steps. Tokens 2 and 5 get 0.3
// of every query's attention, the others 0.01: the two accumulate the
// highest scores and are never evicted; the 4 newest are always held; the
// evicted token is the lowest-scored of the older ones. Once full, a step
// reads and writes 8 scores, compares 4 and writes one K/V slot.
TEST(KVReference, H2OKeepsHeavyHittersAndRecent) {
  H2OCache cache(4, 4);
  auto attention = [](int64_t t) { return t == 2 || t == 5 ? 0.3f : 0.01f; };
  for (int64_t pos = 0; pos < 100; ++pos) {
    std::vector<int64_t> before = cache.slots();
    std::vector<float> scores = cache.scores();
    int64_t evicted = cache.step(pos, attention);
    if (pos < 8) {
      EXPECT_EQ(evicted, -1);
      continue;
    }
    // The expected victim: the lowest score after this step's update among
    // all but the 4 newest held.
    std::vector<int64_t> older = before;
    std::sort(older.begin(), older.end());
    older.resize(older.size() - 4);
    int64_t expect = -1;
    float best = 0;
    for (size_t s = 0; s < before.size(); ++s) {
      if (!std::count(older.begin(), older.end(), before[s]))
        continue;
      float v = scores[s] + attention(before[s]);
      if (expect < 0 || v < best) {
        expect = before[s];
        best = v;
      }
    }
    EXPECT_EQ(evicted, expect) << "step " << pos;
    EXPECT_NE(evicted, 2);
    EXPECT_NE(evicted, 5);
    EXPECT_EQ(cache.lastStep().scoresRead, 8);
    EXPECT_EQ(cache.lastStep().compared, 4);
    EXPECT_EQ(cache.lastStep().slotsWritten, 1);
  }
  std::set<int64_t> held(cache.slots().begin(), cache.slots().end());
  EXPECT_EQ(held.size(), 8u);
  for (int64_t t : {2, 5, 96, 97, 98, 99})
    EXPECT_TRUE(held.count(t)) << t;
}

// ArkVale: 256 keys in 8 pages of 32; the key planted at token 170 along
// the query makes page 5 the one recalled first. A page's bound is never
// below the true q.k of any key in it (the box contains them).
TEST(KVReference, ArkValeRecallsThePlantedPage) {
  std::mt19937_64 rng(4);
  const int64_t dim = 16;
  Matrix keys = randomMatrix(256, dim, rng);
  std::vector<float> query(dim);
  for (float &x : query)
    x = std::normal_distribution<float>()(rng);
  for (int64_t c = 0; c < dim; ++c)
    keys.at(170, c) = 4.0f * query[size_t(c)];
  auto pages = digestPages(keys, 32);
  ASSERT_EQ(pages.size(), 8u);
  EXPECT_EQ(recallPages(pages, query, 1), std::vector<int64_t>{5});
  for (int64_t t = 0; t < 256; ++t) {
    float dot = 0;
    for (int64_t c = 0; c < dim; ++c)
      dot += query[size_t(c)] * keys.at(t, c);
    EXPECT_LE(dot, pageBound(pages[size_t(t / 32)], query) + 1e-4f);
  }
  // A partial last page stays out of the digests.
  EXPECT_EQ(digestPages(randomMatrix(70, dim, rng), 32).size(), 2u);
}

// Group quantization at 2 and 4 bits: every element within scale / 2 of
// its value; values on the grid and constant groups come back exactly.
TEST(KVReference, DequantizationStaysWithinItsBound) {
  std::mt19937_64 rng(5);
  for (int bits : {2, 4}) {
    for (int trial = 0; trial < 50; ++trial) {
      Matrix m = randomMatrix(1, 32, rng, 2.0f);
      QuantGroup g = quantize(m.data, bits);
      std::vector<float> back = dequantize(g);
      for (size_t i = 0; i < back.size(); ++i) {
        EXPECT_LE(std::fabs(back[i] - m.data[i]), g.scale / 2 + 1e-6f);
        EXPECT_LE(g.codes[i], (1 << bits) - 1);
      }
    }
    std::vector<float> grid;
    for (int c = 0; c < (1 << bits); ++c)
      grid.push_back(-1.0f + 0.5f * float(c));
    EXPECT_EQ(dequantize(quantize(grid, bits)), grid);
  }
  std::vector<float> flat(32, 0.75f);
  EXPECT_EQ(dequantize(quantize(flat, 2)), flat);
}

} // namespace
