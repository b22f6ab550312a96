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
#include <limits>
#include <numeric>
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
    auto kept =
        gatherStore(64, 2, /*sinks=*/4, /*recent=*/8, topk(p, /*k=*/20, 4, 8));
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
  Matrix q = randomMatrix(L, 2 * dim, rng, 0.1f),
         k = randomMatrix(L, dim, rng, 0.1f);
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

// KIVI-2 with R = 32, G = 8 and 16-channel keys and values, over 1000
// seeded appends. After each: the full-precision keys are the appended
// count mod R (so between 0 and R - 1) and the full-precision values
// min(R, appended); every token's key and value is held exactly once, in
// position order; every element read back is within half its group's scale
// of the appended one (exact at full precision, scale 0); the R newest
// values are at full precision and exact.
TEST(KVReference, KIVIKeepsTheResidualAndItsBounds) {
  std::mt19937_64 rng(8);
  const int64_t R = 32, G = 8, width = 16;
  KIVICache cache(R, G, width, width, /*bits=*/2);
  std::vector<std::vector<float>> keys, values;
  int64_t outOfBound = 0, inexact = 0;
  for (int64_t n = 1; n <= 1000; ++n) {
    keys.push_back(randomVector(width, rng));
    values.push_back(randomVector(width, rng));
    cache.append(keys.back(), values.back());
    ASSERT_EQ(cache.appended(), n);
    EXPECT_GE(cache.fullKeys(), 0);
    EXPECT_LE(cache.fullKeys(), R - 1);
    EXPECT_EQ(cache.fullKeys(), n % R) << "step " << n;
    EXPECT_EQ(cache.fullValues(), std::min(R, n)) << "step " << n;
    EXPECT_EQ(cache.quantizedKeys() + cache.fullKeys(), n);
    EXPECT_EQ(cache.quantizedValues() + cache.fullValues(), n);
    std::vector<int64_t> all(static_cast<size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(cache.keyPositions(), all) << "step " << n;
    EXPECT_EQ(cache.valuePositions(), all) << "step " << n;
    for (int64_t t = 0; t < n; ++t) {
      KIVICache::TokenKV kv = cache.read(t);
      for (int64_t c = 0; c < width; ++c) {
        float ks = cache.keyScale(t, c), vs = cache.valueScale(t, c);
        float ke = std::fabs(kv.key[size_t(c)] - keys[size_t(t)][size_t(c)]);
        float ve =
            std::fabs(kv.value[size_t(c)] - values[size_t(t)][size_t(c)]);
        outOfBound += ke > (ks > 0 ? ks / 2 + 1e-6f : 0.0f);
        outOfBound += ve > (vs > 0 ? vs / 2 + 1e-6f : 0.0f);
        inexact += (ke > 0) + (ve > 0);
      }
    }
    for (int64_t t = std::max<int64_t>(0, n - R); t < n; ++t) {
      EXPECT_EQ(cache.read(t).value, values[size_t(t)]) << t << ", " << n;
      EXPECT_EQ(cache.valueScale(t, 0), 0.0f);
    }
  }
  EXPECT_EQ(outOfBound, 0);
  EXPECT_GT(inexact, 0) << "2-bit groups of random data are not exact";
}

// What each KIVI append quantizes, R = 32, G = 8, 12-channel keys and
// 24-channel values, 1000 appends: the append that brings the keys to R
// quantizes R key tokens (every R-th), each append beyond R one value
// token. So over any R consecutive steps after the R warm-up steps exactly
// R key tokens and R value tokens are quantized, on average one token of K
// and one of V (12 + 24 elements) per step: what the compiled `kv.quantize
// {tokens = 1, every = 1}` charges per sequence and step (CostModelTest
// compares the bytes with averagePerStep). A window that starts one step
// earlier has a step without a value quantized.
TEST(KVReference, KIVIQuantizesOneTokenOfKAndVPerStep) {
  std::mt19937_64 rng(9);
  const int64_t R = 32, G = 8, kw = 12, vw = 24, steps = 1000;
  KIVICache cache(R, G, kw, vw, /*bits=*/2);
  for (int64_t n = 1; n <= steps; ++n) {
    KIVICache::Touched t =
        cache.append(randomVector(kw, rng), randomVector(vw, rng));
    EXPECT_EQ(t.keyTokens, n % R == 0 ? R : 0) << "step " << n;
    EXPECT_EQ(t.valueTokens, n > R ? 1 : 0) << "step " << n;
    EXPECT_EQ(t.elements, t.keyTokens * kw + t.valueTokens * vw);
    EXPECT_EQ(cache.touchedAt(n - 1).elements, t.elements);
  }
  ASSERT_EQ(cache.warmupSteps(), R);
  for (int64_t first = cache.warmupSteps(); first + R <= steps; ++first) {
    int64_t keys = 0, values = 0;
    for (int64_t s = first; s < first + R; ++s) {
      keys += cache.touchedAt(s).keyTokens;
      values += cache.touchedAt(s).valueTokens;
    }
    EXPECT_EQ(keys, R) << "window from " << first;
    EXPECT_EQ(values, R) << "window from " << first;
    KIVICache::Rate rate = cache.averagePerStep(first, first + R);
    EXPECT_EQ(rate.keyTokens, 1.0);
    EXPECT_EQ(rate.valueTokens, 1.0);
    EXPECT_EQ(rate.elements, double(kw + vw));
  }
  EXPECT_EQ(cache.averagePerStep(R - 1, 2 * R - 1).valueTokens,
            double(R - 1) / double(R));
}

// The non-negative finite fp8 e4m3 values in code order (code = exponent
// field * 8 + mantissa): subnormals m / 8 * 2^-6, then (1 + m / 8) *
// 2^(E - 7) for E = 1..15, without the NaN code (E = 15, m = 7).
std::vector<float> e4m3Values() {
  std::vector<float> out;
  for (int e = 0; e < 16; ++e)
    for (int m = 0; m < 8; ++m) {
      if (e == 15 && m == 7)
        continue;
      out.push_back(e == 0 ? std::ldexp(float(m) / 8, -6)
                           : std::ldexp(1 + float(m) / 8, e - 7));
    }
  return out;
}

// fp8e4m3 rounds to the nearest e4m3 value: all 127 non-negative values
// (1, 1.125, 448, 2^-9 among them) and their negatives come back exactly;
// just below (above) the midpoint of two neighbours goes to the lower
// (upper) one and the midpoint itself to the even code. Random normal
// values (2^-6 <= |x| < 448) land on an e4m3 value with relative error at
// most 2^-4, half an ulp of a 3-bit mantissa. Beyond 448 saturates to
// +-448 (infinities too); below half the smallest subnormal goes to 0.
TEST(KVReference, Fp8RoundsToNearestAndSaturates) {
  std::vector<float> values = e4m3Values();
  ASSERT_EQ(values.size(), 127u);
  ASSERT_TRUE(std::is_sorted(values.begin(), values.end()));
  EXPECT_EQ(values[1], 0x1p-9f);
  EXPECT_EQ(values.back(), kFp8E4M3Max);
  for (float v : {1.0f, 1.125f, 448.0f, 0x1p-9f, 0x1p-6f, 240.0f})
    EXPECT_TRUE(std::binary_search(values.begin(), values.end(), v)) << v;
  for (float v : values) {
    EXPECT_EQ(fp8e4m3(v), v);
    EXPECT_EQ(fp8e4m3(-v), -v);
  }
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    float lo = values[i], hi = values[i + 1], mid = (lo + hi) / 2;
    EXPECT_EQ(fp8e4m3(mid), i % 2 == 0 ? lo : hi) << mid;
    EXPECT_EQ(fp8e4m3(std::nextafter(mid, 0.0f)), lo) << mid;
    EXPECT_EQ(fp8e4m3(std::nextafter(mid, 1000.0f)), hi) << mid;
  }
  std::mt19937_64 rng(10);
  std::uniform_real_distribution<float> exponent(-6.0f, std::log2(448.0f));
  for (int i = 0; i < 10000; ++i) {
    float x = std::exp2(exponent(rng)) * (i % 2 ? -1.0f : 1.0f);
    float r = fp8e4m3(x);
    EXPECT_TRUE(std::binary_search(values.begin(), values.end(), std::fabs(r)))
        << x;
    EXPECT_LE(std::fabs(r - x), 0x1p-4f * std::fabs(x)) << x;
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {449.0f, 464.0f, 1e6f, inf}) {
    EXPECT_EQ(fp8e4m3(x), 448.0f) << x;
    EXPECT_EQ(fp8e4m3(-x), -448.0f) << x;
  }
  EXPECT_EQ(fp8e4m3(0x1p-11f), 0.0f);
  EXPECT_EQ(fp8e4m3(0x1p-10f), 0.0f); // the tie goes to the even code 0
  EXPECT_EQ(fp8e4m3(std::nextafter(0x1p-10f, 1.0f)), 0x1p-9f);
  EXPECT_TRUE(std::isnan(fp8e4m3(std::numeric_limits<float>::quiet_NaN())));
}

// Per-tensor scaled fp8 (#kv.fp8) on seeded data with one large element:
// every stored value is an e4m3 value, the largest magnitude maps to 448,
// and every element comes back within half an ulp: relative 2^-4 where x /
// scale is normal, absolute 2^-10 * scale (half the subnormal step) below.
// An all-zero tensor comes back as zeros.
TEST(KVReference, Fp8ScaledQuantizationStaysWithinHalfAnUlp) {
  std::mt19937_64 rng(11);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> x(512);
  for (float &v : x)
    v = normal(rng);
  x[100] = -57.0f;
  // A few tiny ones, subnormal after scaling.
  x[200] = 1e-3f;
  x[201] = -3e-4f;
  Fp8Tensor t = fp8Quantize(x);
  std::vector<float> values = e4m3Values();
  float top = 0;
  for (float v : t.values) {
    EXPECT_TRUE(std::binary_search(values.begin(), values.end(), std::fabs(v)));
    top = std::max(top, std::fabs(v));
  }
  EXPECT_EQ(top, kFp8E4M3Max);
  EXPECT_EQ(t.values[100], -kFp8E4M3Max);
  std::vector<float> back = fp8Dequantize(t);
  int64_t subnormal = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    float err = std::fabs(back[i] - x[i]);
    if (std::fabs(x[i] / t.scale) >= 0x1p-6f) {
      EXPECT_LE(err, (0x1p-4f + 1e-6f) * std::fabs(x[i])) << i;
    } else {
      ++subnormal;
      EXPECT_LE(err, 0x1p-10f * t.scale * (1 + 1e-5f)) << i;
    }
  }
  EXPECT_GE(subnormal, 2);
  std::vector<float> zeros(8, 0.0f);
  EXPECT_EQ(fp8Dequantize(fp8Quantize(zeros)), zeros);
}

// The transform is the normalized Sylvester Hadamard matrix (checked
// against H[i][j] = (-1)^popcount(i & j) / sqrt(8) on the unit vectors); on
// seeded 128-wide heads it is its own inverse and keeps the L2 norm (1e-5
// relative) and q.k, so rotating queries and keys alike leaves attention
// logits unchanged.
TEST(KVReference, HadamardIsAnOrthogonalInvolution) {
  for (int64_t j = 0; j < 8; ++j) {
    std::vector<float> e(8, 0.0f);
    e[size_t(j)] = 1.0f;
    hadamard(e);
    for (int64_t i = 0; i < 8; ++i) {
      float sign = __builtin_popcountll(uint64_t(i & j)) % 2 ? -1.0f : 1.0f;
      EXPECT_NEAR(e[size_t(i)], sign / std::sqrt(8.0f), 1e-6f) << i << j;
    }
  }
  std::mt19937_64 rng(12);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<float> x = randomVector(128, rng), q = randomVector(128, rng);
    std::vector<float> hx = x, hq = q;
    hadamard(hx);
    hadamard(hq);
    double n0 = 0, n1 = 0, d0 = 0, d1 = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      n0 += double(x[i]) * x[i];
      n1 += double(hx[i]) * hx[i];
      d0 += double(q[i]) * x[i];
      d1 += double(hq[i]) * hx[i];
    }
    EXPECT_NEAR(std::sqrt(n1), std::sqrt(n0), 1e-5 * std::sqrt(n0));
    EXPECT_NEAR(d1, d0, 1e-5 * std::sqrt(n0));
    std::vector<float> back = hx;
    hadamard(back);
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_NEAR(back[i], x[i], 1e-5f * std::sqrt(float(n0)));
  }
}

// QuaRot on 64 seeded heads of 128 channels (N(0, 1)) with channel 17
// carrying an outlier of about 20: quantized per (token, head) at 4 bits,
// the outlier stretches every unrotated group's range, while the rotation
// spreads it over all channels (20 / sqrt(128) each). The rotated group's
// scale is smaller for every token, and the largest error after rotating
// back is smaller than without the rotation (seed 13: 0.62 against 0.84).
// Either way the error vector is bounded: ||x - x_hat||_2 <= sqrt(n) *
// scale / 2 (each of the n rotated elements within scale / 2, and the
// rotation keeps the norm).
TEST(KVReference, QuaRotRotationShrinksTheOutlierError) {
  std::mt19937_64 rng(13);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int64_t n = 128;
  float maxPlain = 0, maxRotated = 0;
  for (int64_t token = 0; token < 64; ++token) {
    std::vector<float> x(static_cast<size_t>(n));
    for (float &v : x)
      v = normal(rng);
    x[17] += 20.0f;
    QuantGroup plain = quantize(x, 4), rotated = quarotQuantize(x, 4);
    EXPECT_LT(rotated.scale, plain.scale) << "token " << token;
    std::vector<float> plainBack = dequantize(plain),
                       rotatedBack = quarotDequantize(rotated);
    double plainNorm = 0, rotatedNorm = 0;
    for (int64_t c = 0; c < n; ++c) {
      float pe = std::fabs(plainBack[size_t(c)] - x[size_t(c)]);
      float re = std::fabs(rotatedBack[size_t(c)] - x[size_t(c)]);
      maxPlain = std::max(maxPlain, pe);
      maxRotated = std::max(maxRotated, re);
      plainNorm += double(pe) * pe;
      rotatedNorm += double(re) * re;
    }
    EXPECT_LE(std::sqrt(plainNorm),
              std::sqrt(double(n)) * plain.scale / 2 * (1 + 1e-5));
    EXPECT_LE(std::sqrt(rotatedNorm),
              std::sqrt(double(n)) * rotated.scale / 2 * (1 + 1e-5));
  }
  EXPECT_LT(maxRotated, maxPlain);
}

// Causal softmax attention of one head: row i over keys 0..i, scaled by
// 1 / sqrt(dim); zero above the diagonal.
Matrix causalAttention(const Matrix &q, const Matrix &k) {
  Matrix p(q.rows, k.rows);
  float scale = 1.0f / std::sqrt(float(k.cols));
  for (int64_t i = 0; i < q.rows; ++i) {
    float top = -std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j <= i; ++j) {
      float dot = 0;
      for (int64_t c = 0; c < k.cols; ++c)
        dot += q.at(i, c) * k.at(j, c);
      p.at(i, j) = dot * scale;
      top = std::max(top, p.at(i, j));
    }
    float sum = 0;
    for (int64_t j = 0; j <= i; ++j)
      sum += (p.at(i, j) = std::exp(p.at(i, j) - top));
    for (int64_t j = 0; j <= i; ++j)
      p.at(i, j) /= sum;
  }
  return p;
}

// ZipCache: 64 tokens whose queries all lean along one direction, and key
// 20 planted along it, so every query from 20 on gives it most of its
// attention. Its normalized saliency is the highest, and with 10% salient
// (ceil(6.4) = 7 tokens) it is stored at the high 4 bits.
TEST(KVReference, ZipCacheKeepsAPlantedSalientTokenAtHighBits) {
  std::mt19937_64 rng(14);
  const int64_t n = 64, dim = 16;
  std::vector<float> dir(dim);
  for (float &x : dir)
    x = std::normal_distribution<float>()(rng);
  Matrix q = randomMatrix(n, dim, rng, 0.1f),
         k = randomMatrix(n, dim, rng, 0.1f);
  for (int64_t t = 0; t < n; ++t)
    for (int64_t c = 0; c < dim; ++c)
      q.at(t, c) += dir[size_t(c)];
  for (int64_t c = 0; c < dim; ++c)
    k.at(20, c) = 3.0f * dir[size_t(c)];
  std::vector<float> s = normalizedSaliency(causalAttention(q, k), n);
  EXPECT_EQ(std::max_element(s.begin(), s.end()) - s.begin(), 20);
  MixedQuant mq =
      zipcacheQuantize(randomMatrix(n, 32, rng), s, /*salientPercent=*/10,
                       /*high=*/4, /*low=*/2);
  EXPECT_TRUE(mq.salient[20]);
  EXPECT_EQ(mq.bits[20], 4);
  EXPECT_EQ(std::count(mq.salient.begin(), mq.salient.end(), true),
            int64_t(std::ceil(n * 0.1)));
}

// ZipCache's default split (60% at 4 bits, 40% at 2) on 200 seeded tokens
// of 64 channels with random saliency: the salient set is the top 120 by
// saliency, each token's codes fit its bits, every element is within its
// own token's scale / 2, and the salient tokens' mean error is below the
// others' (seed 15: 0.063 against 0.31; the scales differ by 15 / 3).
TEST(KVReference, ZipCacheMixedPrecisionErrors) {
  std::mt19937_64 rng(15);
  const int64_t n = 200, width = 64;
  Matrix tokens = randomMatrix(n, width, rng, 2.0f);
  std::vector<float> saliency = randomVector(n, rng);
  MixedQuant mq = zipcacheQuantize(tokens, saliency, 60, 4, 2);
  ASSERT_EQ(std::count(mq.salient.begin(), mq.salient.end(), true), 120);
  float lowestSalient = 1e9f, highestOther = -1e9f;
  for (int64_t t = 0; t < n; ++t) {
    if (mq.salient[size_t(t)])
      lowestSalient = std::min(lowestSalient, saliency[size_t(t)]);
    else
      highestOther = std::max(highestOther, saliency[size_t(t)]);
  }
  EXPECT_GT(lowestSalient, highestOther);
  Matrix back = zipcacheDequantize(mq);
  double highErr = 0, lowErr = 0;
  int64_t highCount = 0, lowCount = 0;
  for (int64_t t = 0; t < n; ++t) {
    const QuantGroup &g = mq.groups[size_t(t)];
    EXPECT_EQ(mq.bits[size_t(t)], mq.salient[size_t(t)] ? 4 : 2);
    for (int64_t c = 0; c < width; ++c) {
      EXPECT_LE(g.codes[size_t(c)], (1 << mq.bits[size_t(t)]) - 1);
      float err = std::fabs(back.at(t, c) - tokens.at(t, c));
      EXPECT_LE(err, g.scale / 2 + 1e-6f) << t << ", " << c;
      (mq.salient[size_t(t)] ? highErr : lowErr) += err;
      ++(mq.salient[size_t(t)] ? highCount : lowCount);
    }
  }
  EXPECT_LT(highErr / double(highCount), lowErr / double(lowCount));
}

// The causal bias and its removal, 64 tokens. A causal attention whose
// every visible entry is equal (each query gives each key it sees the same
// weight, 0.5): the raw column sum 0.5 (n - j) falls with j, the normalized
// saliency is flat (0.5 for every key). Row-normalized uniform attention
// (1 / (i + 1) per visible key) cannot be flat after normalization, as
// earlier rows spread over fewer keys; the normalization still shrinks the
// first-to-last ratio from n H_n (raw) to H_n, H_n the n-th harmonic
// number.
TEST(KVReference, NormalizedSaliencyRemovesTheCausalBias) {
  const int64_t n = 64;
  Matrix equal(n, n), uniform(n, n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) {
      equal.at(i, j) = 0.5f;
      uniform.at(i, j) = 1.0f / float(i + 1);
    }
  std::vector<float> flat = normalizedSaliency(equal, n);
  for (int64_t j = 0; j < n; ++j)
    EXPECT_FLOAT_EQ(flat[size_t(j)], 0.5f) << j;
  std::vector<float> raw(static_cast<size_t>(n), 0.0f);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      raw[size_t(j)] += equal.at(i, j);
  for (int64_t j = 0; j + 1 < n; ++j)
    EXPECT_GT(raw[size_t(j)], raw[size_t(j + 1)]) << j;
  double harmonic = 0;
  for (int64_t i = 1; i <= n; ++i)
    harmonic += 1.0 / double(i);
  std::vector<float> normalized = normalizedSaliency(uniform, n);
  std::vector<float> rawUniform(static_cast<size_t>(n), 0.0f);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      rawUniform[size_t(j)] += uniform.at(i, j);
  EXPECT_NEAR(rawUniform[0] / rawUniform[n - 1], double(n) * harmonic,
              1e-4 * double(n) * harmonic);
  EXPECT_NEAR(normalized[0] / normalized[n - 1], harmonic, 1e-4 * harmonic);
}

} // namespace
