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

std::vector<float> randomVector(int64_t dim, std::mt19937_64 &rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(dim));
  for (float &x : v)
    x = u(rng);
  return v;
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
// the query makes page 5 the one recalled first, under both digests. Only
// the Box digest is a bound: a page's bound is never below the true q.k of
// any key in it (the box contains them). The cuboid-mean interval [c - r,
// c + r] lies inside the box (each |c - k| is at most (max - min) / 2, so r
// is too), so its score is at most the box's but can fall below a key's
// q.k (ArkValeCuboidMeanDigest has one).
TEST(KVReference, ArkValeRecallsThePlantedPage) {
  std::mt19937_64 rng(4);
  const int64_t dim = 16;
  Matrix keys = randomMatrix(256, dim, rng);
  std::vector<float> query(dim);
  for (float &x : query)
    x = std::normal_distribution<float>()(rng);
  for (int64_t c = 0; c < dim; ++c)
    keys.at(170, c) = 4.0f * query[size_t(c)];
  auto boxes = digestPages(keys, 32, DigestKind::Box);
  auto cuboids = digestPages(keys, 32);
  ASSERT_EQ(boxes.size(), 8u);
  ASSERT_EQ(cuboids.size(), 8u);
  EXPECT_EQ(recallPages(boxes, query, 1), std::vector<int64_t>{5});
  EXPECT_EQ(recallPages(cuboids, query, 1), std::vector<int64_t>{5});
  for (int64_t t = 0; t < 256; ++t) {
    float dot = 0;
    for (int64_t c = 0; c < dim; ++c)
      dot += query[size_t(c)] * keys.at(t, c);
    EXPECT_LE(dot, pageBound(boxes[size_t(t / 32)], query) + 1e-4f);
  }
  for (size_t p = 0; p < 8; ++p)
    EXPECT_LE(pageBound(cuboids[p], query), pageBound(boxes[p], query) + 1e-4f);
  // A partial last page stays out of the digests.
  EXPECT_EQ(digestPages(randomMatrix(70, dim, rng), 32).size(), 2u);
}

// The cuboid-mean digest of one 4-token page, by hand (all exact in f32).
// Channel 0 holds {0, 1, 2, 5}: max 5, min 0, c = 2.5, |c - k| = {2.5, 1.5,
// 0.5, 2.5}, mean r = 1.75: [0.75, 4.25]. Channel 1 holds {-2, 2, 0, 0}:
// c = 0, |c - k| = {2, 2, 0, 0}, r = 1: [-1, 1]. The box is [0, 5] x
// [-2, 2]. For q = (0, 1) the cuboid score is 1 while token 1 has q.k = 2:
// not a bound; the box's score is 2.
TEST(KVReference, ArkValeCuboidMeanDigest) {
  Matrix keys(4, 2);
  const float values[4][2] = {{0, -2}, {1, 2}, {2, 0}, {5, 0}};
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t c = 0; c < 2; ++c)
      keys.at(t, c) = values[t][c];
  auto cuboids = digestPages(keys, 4, DigestKind::CuboidMean);
  ASSERT_EQ(cuboids.size(), 1u);
  EXPECT_EQ(cuboids[0].lo, (std::vector<float>{0.75f, -1.0f}));
  EXPECT_EQ(cuboids[0].hi, (std::vector<float>{4.25f, 1.0f}));
  auto boxes = digestPages(keys, 4, DigestKind::Box);
  EXPECT_EQ(boxes[0].lo, (std::vector<float>{0.0f, -2.0f}));
  EXPECT_EQ(boxes[0].hi, (std::vector<float>{5.0f, 2.0f}));
  EXPECT_EQ(pageBound(cuboids[0], {0.0f, 1.0f}), 1.0f);
  EXPECT_EQ(pageBound(boxes[0], {0.0f, 1.0f}), 2.0f);
  // q = (1, -1): max(0.75, 4.25) + max(1, -1) = 5.25.
  EXPECT_EQ(pageBound(cuboids[0], {1.0f, -1.0f}), 5.25f);
}

// ArkVale's decode cache, pages of 4 tokens, a budget of 8 pages: 1 sink and
// 3 window pages (the partial page and the 2 full pages before it)
// protected, topk 4 (1 + 3 + 4 = 8:
// every chosen page fits), recall 2. 400 random tokens (100 pages), a step
// after each. Until 8 pages are full every page is resident; after every
// step at most 8 are, the sink, the window and the partial page among them;
// the pages recalled are the first 2 (or fewer) chosen ones that were not
// resident, best first, and they replace as many pages, none of them chosen
// and resident before. Random queries change the choice often, so recalls
// happen.
TEST(KVReference, ArkValeKeepsSinksAndWindow) {
  std::mt19937_64 rng(6);
  const int64_t dim = 8, budget = 8;
  ArkValeCache cache(/*pageTokens=*/4, budget, /*sinkPages=*/1,
                     /*windowPages=*/3, /*topk=*/4, /*recall=*/2);
  int64_t totalRecalled = 0;
  for (int64_t pos = 0; pos < 400; ++pos) {
    cache.append(pos, randomVector(dim, rng));
    std::vector<int64_t> before = cache.residentPages();
    std::vector<int64_t> recalled = cache.step(randomVector(dim, rng));
    std::vector<int64_t> held = cache.residentPages();
    int64_t full = cache.fullPages();
    if (full < budget) {
      std::vector<int64_t> all(size_t(full + 1));
      for (int64_t p = 0; p <= full; ++p)
        all[size_t(p)] = p;
      EXPECT_EQ(held, all) << "position " << pos;
    }
    EXPECT_LE(int64_t(held.size()), budget) << "position " << pos;
    EXPECT_TRUE(cache.isResident(0)) << "sink, position " << pos;
    for (int64_t p = std::max<int64_t>(0, full - 2); p <= full; ++p)
      EXPECT_TRUE(cache.isResident(p)) << "window " << p << ", " << pos;
    EXPECT_EQ(held.size(), before.size()) << "one out per page recalled";
    std::vector<int64_t> expect;
    for (int64_t p : cache.chosen()) {
      bool wasResident = std::count(before.begin(), before.end(), p);
      if (!wasResident && expect.size() < 2)
        expect.push_back(p);
      if (wasResident)
        EXPECT_TRUE(cache.isResident(p)) << "chosen " << p << " evicted";
    }
    EXPECT_EQ(recalled, expect) << "position " << pos;
    for (int64_t p : recalled)
      EXPECT_TRUE(cache.isResident(p));
    totalRecalled += int64_t(recalled.size());
  }
  EXPECT_EQ(cache.fullPages(), 100);
  EXPECT_GT(totalRecalled, 0);
}

// Pages of 4, a budget of 6 pages, 1 sink, 2 window pages (the partial page
// and the last full one), topk 2, recall 2;
// keys of 2 channels. Token t's key is (0, t), except the planted token 9
// (page 2): (4, 9). Each of tokens 0..27 is appended and followed by a step
// with q = (0, 1), which reads the recency channel: page j's channel 1 holds
// {4j, .., 4j + 3}, c = 4j + 1.5, r = 1, so its score is 4j + 2.5 and older
// pages score lower. Token 23 completes page 5 (6 full pages + the partial
// one: over the budget) and evicts the lowest candidate, page 1; token 27
// completes page 6 and evicts page 2 (candidates 2..5, page 6 now the
// window). The steps in between choose the newest candidates, all resident.
// Now q = (1, 0.125): page 2's channel 0 holds {0, 4, 0, 0}, c = 2, r = 2,
// [0, 4], so it scores 4 + 0.125 * 10.5 = 5.3125; the other pages' channel
// 0 is 0, so page j scores 0.125 * (4j + 2.5): among the candidates 1..5
// the top 2 are page 2 and page 5 (2.8125). Page 2 alone is not resident:
// it is recalled, into the slot of the lowest resident candidate not
// chosen, page 3 (1.8125; page 4 has 2.3125).
TEST(KVReference, ArkValeRecallsAPlantedKeyAfterEviction) {
  ArkValeCache cache(/*pageTokens=*/4, /*budgetPages=*/6, /*sinkPages=*/1,
                     /*windowPages=*/2, /*topk=*/2, /*recall=*/2);
  for (int64_t pos = 0; pos < 28; ++pos) {
    cache.append(pos, {pos == 9 ? 4.0f : 0.0f, float(pos)});
    EXPECT_TRUE(cache.step({0.0f, 1.0f}).empty()) << "position " << pos;
    if (pos == 23)
      EXPECT_EQ(cache.residentPages(),
                (std::vector<int64_t>{0, 2, 3, 4, 5, 6}));
  }
  EXPECT_EQ(cache.residentPages(), (std::vector<int64_t>{0, 3, 4, 5, 6, 7}));
  EXPECT_EQ(cache.step({1.0f, 0.125f}), std::vector<int64_t>{2});
  EXPECT_EQ(cache.chosen(), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(cache.lastStep().pagesRecalled, 1);
  EXPECT_EQ(cache.residentPages(), (std::vector<int64_t>{0, 2, 4, 5, 6, 7}));
}

// What a decode step touches, in steady state: pages of 4, a budget of 8
// pages (1 sink, 3 window, topk 3, recall 2), 96 random tokens first (24
// full pages, past the budget). Then each step after one append scores
// every full page's digest (digestsRead = fullPages), backs up the one
// token, and digests one page exactly when that token completes one
// (position % 4 == 3); it recalls at most 2 pages. A step with no append
// backs up and digests nothing; four appends before a step back up 4
// tokens and complete exactly one page.
TEST(KVReference, ArkValeStepTouches) {
  std::mt19937_64 rng(7);
  const int64_t dim = 8;
  ArkValeCache cache(/*pageTokens=*/4, /*budgetPages=*/8, /*sinkPages=*/1,
                     /*windowPages=*/3, /*topk=*/3, /*recall=*/2);
  int64_t pos = 0;
  for (; pos < 96; ++pos) {
    cache.append(pos, randomVector(dim, rng));
    cache.step(randomVector(dim, rng));
  }
  for (; pos < 160; ++pos) {
    cache.append(pos, randomVector(dim, rng));
    std::vector<int64_t> recalled = cache.step(randomVector(dim, rng));
    const ArkValeCache::Touched &t = cache.lastStep();
    EXPECT_EQ(t.digestsRead, (pos + 1) / 4) << "position " << pos;
    EXPECT_EQ(t.digestsRead, cache.fullPages());
    EXPECT_EQ(t.tokensBackedUp, 1);
    EXPECT_EQ(t.pagesDigested, pos % 4 == 3 ? 1 : 0) << "position " << pos;
    EXPECT_EQ(t.pagesRecalled, int64_t(recalled.size()));
    EXPECT_LE(t.pagesRecalled, 2);
  }
  cache.step(randomVector(dim, rng));
  EXPECT_EQ(cache.lastStep().tokensBackedUp, 0);
  EXPECT_EQ(cache.lastStep().pagesDigested, 0);
  EXPECT_EQ(cache.lastStep().digestsRead, 40);
  for (int64_t i = 0; i < 4; ++i, ++pos)
    cache.append(pos, randomVector(dim, rng));
  cache.step(randomVector(dim, rng));
  EXPECT_EQ(cache.lastStep().tokensBackedUp, 4);
  EXPECT_EQ(cache.lastStep().pagesDigested, 1);
  EXPECT_EQ(cache.lastStep().digestsRead, 41);
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
