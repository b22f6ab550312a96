//===- KVReference.cpp - Executable semantics of the kv ops ---------------===//

#include "snapflow/Dialect/KV/Reference/KVReference.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>

using namespace snapflow::kv::ref;

Matrix snapflow::kv::ref::score(const Matrix &queries, const Matrix &keys,
                                int64_t heads, int64_t groups,
                                int64_t obsWindow) {
  int64_t L = keys.rows;
  int64_t dim = keys.cols / groups;
  assert(queries.cols == heads * dim && heads % groups == 0);
  int64_t perGroup = heads / groups;
  int64_t W = std::min(obsWindow, queries.rows);
  Matrix out(groups, L);
  float scale = 1.0f / std::sqrt(float(dim));
  std::vector<float> logits(size_t(L), 0.0f);
  for (int64_t w = 0; w < W; ++w) {
    // The window's w-th query sits at prompt position L - W + w and sees
    // the keys up to it.
    int64_t qRow = queries.rows - W + w, seen = L - W + w + 1;
    for (int64_t h = 0; h < heads; ++h) {
      int64_t g = h / perGroup;
      float top = -std::numeric_limits<float>::infinity();
      for (int64_t t = 0; t < seen; ++t) {
        float dot = 0;
        for (int64_t c = 0; c < dim; ++c)
          dot += queries.at(qRow, h * dim + c) * keys.at(t, g * dim + c);
        logits[size_t(t)] = dot * scale;
        top = std::max(top, logits[size_t(t)]);
      }
      float sum = 0;
      for (int64_t t = 0; t < seen; ++t)
        sum += (logits[size_t(t)] = std::exp(logits[size_t(t)] - top));
      for (int64_t t = 0; t < seen; ++t)
        out.at(g, t) += logits[size_t(t)] / sum;
    }
  }
  return out;
}

Matrix snapflow::kv::ref::pool(const Matrix &scores, int64_t kernel, bool max) {
  Matrix out(scores.rows, scores.cols);
  int64_t half = kernel / 2;
  for (int64_t r = 0; r < scores.rows; ++r)
    for (int64_t t = 0; t < scores.cols; ++t) {
      int64_t lo = std::max<int64_t>(0, t - half),
              hi = std::min(scores.cols - 1, t + half);
      float acc = max ? -std::numeric_limits<float>::infinity() : 0.0f;
      for (int64_t u = lo; u <= hi; ++u)
        acc = max ? std::max(acc, scores.at(r, u)) : acc + scores.at(r, u);
      // Average pooling divides by the kernel (same padding counts zeros).
      out.at(r, t) = max ? acc : acc / float(kernel);
    }
  return out;
}

std::vector<std::vector<int64_t>> snapflow::kv::ref::topk(const Matrix &scores,
                                                          int64_t k,
                                                          int64_t sinks,
                                                          int64_t recent) {
  std::vector<std::vector<int64_t>> out;
  for (int64_t g = 0; g < scores.rows; ++g) {
    std::vector<int64_t> candidates;
    for (int64_t t = sinks; t < scores.cols - recent; ++t)
      candidates.push_back(t);
    assert(int64_t(candidates.size()) >= k);
    std::sort(candidates.begin(), candidates.end(), [&](int64_t a, int64_t b) {
      float sa = scores.at(g, a), sb = scores.at(g, b);
      return sa > sb || (sa == sb && a < b);
    });
    candidates.resize(size_t(k));
    std::sort(candidates.begin(), candidates.end());
    out.push_back(std::move(candidates));
  }
  return out;
}

std::vector<std::vector<int64_t>> snapflow::kv::ref::gatherStore(
    int64_t promptTokens, int64_t groups, int64_t sinks, int64_t recent,
    const std::vector<std::vector<int64_t>> &selected) {
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(groups));
  for (int64_t g = 0; g < groups; ++g) {
    std::vector<int64_t> &kept = out[size_t(g)];
    for (int64_t t = 0; t < sinks; ++t)
      kept.push_back(t);
    if (!selected.empty())
      kept.insert(kept.end(), selected[size_t(g)].begin(),
                  selected[size_t(g)].end());
    for (int64_t t = promptTokens - recent; t < promptTokens; ++t)
      kept.push_back(t);
  }
  return out;
}

RingCache::RingCache(std::vector<int64_t> kept, int64_t recent)
    : slotTokens(std::move(kept)),
      ringStart(int64_t(slotTokens.size()) - recent), recent(recent) {
  assert(ringStart >= 0);
}

int64_t RingCache::append(int64_t position) {
  int64_t slot = ringStart + next;
  slotTokens[size_t(slot)] = position;
  next = (next + 1) % recent;
  return slot;
}

std::vector<int64_t> RingCache::recentInOrder() const {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < recent; ++i)
    out.push_back(slotTokens[size_t(ringStart + (next + i) % recent)]);
  return out;
}

H2OCache::H2OCache(int64_t heavy, int64_t recent)
    : heavy(heavy), recent(recent) {}

int64_t H2OCache::insert(int64_t position, const std::vector<float> &probs,
                         float own) {
  touched = {};
  // Every held token's score gains this step's attention.
  for (size_t s = 0; s < tokens.size(); ++s)
    accumulated[s] += probs[s];
  touched.scoresRead = touched.scoresWritten = int64_t(tokens.size());
  if (int64_t(tokens.size()) < budget()) {
    tokens.push_back(position);
    accumulated.push_back(own);
    touched.scoresWritten += 1;
    touched.slotsWritten = 1;
    return -1;
  }
  // The `recent` newest tokens are protected; the victim is the lowest
  // accumulated score among the others (the earliest slot on a tie).
  std::vector<int64_t> byAge(tokens.size());
  std::iota(byAge.begin(), byAge.end(), 0);
  std::sort(byAge.begin(), byAge.end(), [&](int64_t a, int64_t b) {
    return tokens[size_t(a)] < tokens[size_t(b)];
  });
  int64_t victim = -1;
  for (int64_t i = 0; i < int64_t(byAge.size()) - recent; ++i) {
    int64_t s = byAge[size_t(i)];
    ++touched.compared;
    if (victim < 0 || accumulated[size_t(s)] < accumulated[size_t(victim)] ||
        (accumulated[size_t(s)] == accumulated[size_t(victim)] && s < victim))
      victim = s;
  }
  int64_t evicted = tokens[size_t(victim)];
  // FlexGen's cache_replace: the new K/V goes into the victim's slot.
  tokens[size_t(victim)] = position;
  accumulated[size_t(victim)] = own;
  touched.slotsWritten = 1;
  return evicted;
}

std::vector<PageDigest> snapflow::kv::ref::digestPages(const Matrix &keys,
                                                       int64_t pageTokens,
                                                       DigestKind kind) {
  std::vector<PageDigest> pages;
  for (int64_t start = 0; start + pageTokens <= keys.rows;
       start += pageTokens) {
    PageDigest d;
    d.lo.assign(size_t(keys.cols), std::numeric_limits<float>::infinity());
    d.hi.assign(size_t(keys.cols), -std::numeric_limits<float>::infinity());
    for (int64_t t = start; t < start + pageTokens; ++t)
      for (int64_t c = 0; c < keys.cols; ++c) {
        d.lo[size_t(c)] = std::min(d.lo[size_t(c)], keys.at(t, c));
        d.hi[size_t(c)] = std::max(d.hi[size_t(c)], keys.at(t, c));
      }
    if (kind == DigestKind::CuboidMean)
      // The box's center, and the mean distance of the keys from it.
      for (int64_t c = 0; c < keys.cols; ++c) {
        float center = (d.lo[size_t(c)] + d.hi[size_t(c)]) / 2, r = 0;
        for (int64_t t = start; t < start + pageTokens; ++t)
          r += std::fabs(center - keys.at(t, c));
        r /= float(pageTokens);
        d.lo[size_t(c)] = center - r;
        d.hi[size_t(c)] = center + r;
      }
    pages.push_back(std::move(d));
  }
  return pages;
}

float snapflow::kv::ref::pageBound(const PageDigest &page,
                                   const std::vector<float> &query) {
  float bound = 0;
  for (size_t c = 0; c < query.size(); ++c)
    bound += std::max(query[c] * page.lo[c], query[c] * page.hi[c]);
  return bound;
}

std::vector<int64_t>
snapflow::kv::ref::recallPages(const std::vector<PageDigest> &pages,
                               const std::vector<float> &query, int64_t count) {
  std::vector<int64_t> order(pages.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<float> bound;
  for (const PageDigest &p : pages)
    bound.push_back(pageBound(p, query));
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    float ba = bound[size_t(a)], bb = bound[size_t(b)];
    return ba > bb || (ba == bb && a < b);
  });
  order.resize(std::min<size_t>(order.size(), size_t(count)));
  return order;
}

ArkValeCache::ArkValeCache(int64_t pageTokens, int64_t budgetPages,
                           int64_t sinkPages, int64_t windowPages, int64_t topk,
                           int64_t recall)
    : pageTokens(pageTokens), budgetPages(budgetPages), sinkPages(sinkPages),
      windowPages(windowPages), topk(topk), recall(recall) {
  assert(pageTokens > 0 && sinkPages >= 0 && windowPages > 0 && topk > 0);
  assert(recall > 0 && recall <= topk);
  assert(sinkPages + windowPages + topk <= budgetPages);
  resident.push_back(true); // the partial page 0
}

void ArkValeCache::append(int64_t position, const std::vector<float> &key) {
  assert(position == tokens && "tokens are appended in order");
  if (tokens == 0)
    dim = int64_t(key.size());
  assert(int64_t(key.size()) == dim);
  ++tokens;
  ++pending.tokensBackedUp; // kv.backup copies every token to DDR
  pageKeys.push_back(key);
  if (int64_t(pageKeys.size()) < pageTokens)
    return;
  // The partial page is full: digest it; a new (empty) partial page begins.
  Matrix page(pageTokens, dim);
  for (int64_t t = 0; t < pageTokens; ++t)
    for (int64_t c = 0; c < dim; ++c)
      page.at(t, c) = pageKeys[size_t(t)][size_t(c)];
  pageKeys.clear();
  digestList.push_back(digestPages(page, pageTokens)[0]);
  bounds.push_back(-std::numeric_limits<float>::infinity());
  resident.push_back(true);
  ++pending.pagesDigested;
  // fullPages() + 1 pages now; over the budget, one candidate leaves.
  if (fullPages() < budgetPages)
    return;
  int64_t victim = lowestCandidate({});
  assert(victim >= 0);
  resident[size_t(victim)] = false;
}

std::vector<int64_t> ArkValeCache::step(const std::vector<float> &query) {
  touched = pending;
  pending = {};
  int64_t full = fullPages();
  for (int64_t p = 0; p < full; ++p)
    bounds[size_t(p)] = pageBound(digestList[size_t(p)], query);
  touched.digestsRead = full;
  // The candidates: full pages outside the sinks and the window (the
  // partial page and the last windowPages - 1 full pages).
  chosenPages.clear();
  for (int64_t p = sinkPages; p < full - (windowPages - 1); ++p)
    chosenPages.push_back(p);
  std::sort(chosenPages.begin(), chosenPages.end(), [&](int64_t a, int64_t b) {
    float ba = bounds[size_t(a)], bb = bounds[size_t(b)];
    return ba > bb || (ba == bb && a < b);
  });
  chosenPages.resize(std::min<size_t>(chosenPages.size(), size_t(topk)));
  // Recall the chosen pages not resident, best first, into the slots of the
  // lowest-bound resident candidates not chosen.
  std::vector<int64_t> recalled;
  for (int64_t p : chosenPages) {
    if (resident[size_t(p)])
      continue;
    if (int64_t(recalled.size()) == recall)
      break;
    int64_t victim = lowestCandidate(chosenPages);
    assert(victim >= 0 && "the budget fits the protected and chosen pages");
    resident[size_t(victim)] = false;
    resident[size_t(p)] = true;
    recalled.push_back(p);
  }
  touched.pagesRecalled = int64_t(recalled.size());
  return recalled;
}

std::vector<int64_t> ArkValeCache::residentPages() const {
  std::vector<int64_t> out;
  for (size_t p = 0; p < resident.size(); ++p)
    if (resident[p])
      out.push_back(int64_t(p));
  return out;
}

bool ArkValeCache::isResident(int64_t page) const {
  return page >= 0 && page < int64_t(resident.size()) && resident[size_t(page)];
}

int64_t ArkValeCache::lowestCandidate(const std::vector<int64_t> &keep) const {
  int64_t victim = -1;
  for (int64_t p = sinkPages; p < fullPages() - (windowPages - 1); ++p) {
    if (!resident[size_t(p)] || std::count(keep.begin(), keep.end(), p))
      continue;
    if (victim < 0 || bounds[size_t(p)] < bounds[size_t(victim)])
      victim = p;
  }
  return victim;
}

QuantGroup snapflow::kv::ref::quantize(const std::vector<float> &values,
                                       int bits) {
  assert(bits >= 1 && bits <= 8 && !values.empty());
  QuantGroup g;
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  float levels = float((1 << bits) - 1);
  g.zero = *lo;
  g.scale = (*hi - *lo) / levels;
  for (float v : values) {
    float code = g.scale > 0 ? std::round((v - g.zero) / g.scale) : 0.0f;
    g.codes.push_back(uint8_t(std::clamp(code, 0.0f, levels)));
  }
  return g;
}

std::vector<float> snapflow::kv::ref::dequantize(const QuantGroup &g) {
  std::vector<float> out;
  for (uint8_t c : g.codes)
    out.push_back(g.zero + float(c) * g.scale);
  return out;
}

KIVICache::KIVICache(int64_t residual, int64_t group, int64_t keyWidth,
                     int64_t valueWidth, int bits)
    : residual(residual), group(group), keyWidth(keyWidth),
      valueWidth(valueWidth), bits(bits) {
  assert(group > 0 && residual % group == 0 && valueWidth % group == 0);
}

KIVICache::Touched KIVICache::append(const std::vector<float> &key,
                                     const std::vector<float> &value) {
  assert(int64_t(key.size()) == keyWidth &&
         int64_t(value.size()) == valueWidth);
  int64_t position = appended();
  Touched touched;
  fullKeyRows.push_back({position, key});
  fullValueRows.push_back({position, value});
  // Keys: once R have gathered, quantize them per channel in groups of G
  // tokens and start a new full-precision block.
  if (fullKeys() == residual) {
    KeyBlock block{fullKeyRows.front().position, {}};
    for (int64_t c = 0; c < keyWidth; ++c)
      for (int64_t i = 0; i < residual / group; ++i) {
        std::vector<float> channel;
        for (int64_t t = i * group; t < (i + 1) * group; ++t)
          channel.push_back(fullKeyRows[size_t(t)].data[size_t(c)]);
        block.groups.push_back(quantize(channel, bits));
      }
    keyBlocks.push_back(std::move(block));
    fullKeyRows.clear();
    touched.keyTokens = residual;
  }
  // Values: beyond R at full precision, the oldest is quantized per token in
  // groups of G channels.
  if (fullValues() > residual) {
    const Row &oldest = fullValueRows.front();
    ValueToken token{oldest.position, {}};
    for (int64_t i = 0; i < valueWidth / group; ++i)
      token.groups.push_back(
          quantize(std::vector<float>(oldest.data.begin() + i * group,
                                      oldest.data.begin() + (i + 1) * group),
                   bits));
    valueTokens.push_back(std::move(token));
    fullValueRows.erase(fullValueRows.begin());
    touched.valueTokens = 1;
  }
  touched.elements =
      touched.keyTokens * keyWidth + touched.valueTokens * valueWidth;
  history.push_back(touched);
  return touched;
}

std::vector<int64_t> KIVICache::keyPositions() const {
  std::vector<int64_t> out;
  for (const KeyBlock &b : keyBlocks)
    for (int64_t i = 0; i < residual; ++i)
      out.push_back(b.first + i);
  for (const Row &r : fullKeyRows)
    out.push_back(r.position);
  return out;
}

std::vector<int64_t> KIVICache::valuePositions() const {
  std::vector<int64_t> out;
  for (const ValueToken &v : valueTokens)
    out.push_back(v.position);
  for (const Row &r : fullValueRows)
    out.push_back(r.position);
  return out;
}

KIVICache::TokenKV KIVICache::read(int64_t t) const {
  assert(t >= 0 && t < appended());
  TokenKV out;
  if (t < quantizedKeys()) {
    const KeyBlock &b = keyBlocks[size_t(t / residual)];
    assert(b.first == t - t % residual);
    int64_t i = (t - b.first) / group, within = (t - b.first) % group;
    for (int64_t c = 0; c < keyWidth; ++c) {
      const QuantGroup &g = b.groups[size_t(c * (residual / group) + i)];
      out.key.push_back(g.zero + float(g.codes[size_t(within)]) * g.scale);
    }
  } else {
    const Row &r = fullKeyRows[size_t(t - quantizedKeys())];
    assert(r.position == t);
    out.key = r.data;
  }
  if (t < quantizedValues()) {
    const ValueToken &v = valueTokens[size_t(t)];
    assert(v.position == t);
    for (const QuantGroup &g : v.groups)
      for (float x : dequantize(g))
        out.value.push_back(x);
  } else {
    const Row &r = fullValueRows[size_t(t - quantizedValues())];
    assert(r.position == t);
    out.value = r.data;
  }
  return out;
}

float KIVICache::keyScale(int64_t t, int64_t c) const {
  if (t >= quantizedKeys())
    return 0;
  const KeyBlock &b = keyBlocks[size_t(t / residual)];
  return b.groups[size_t(c * (residual / group) + (t - b.first) / group)].scale;
}

float KIVICache::valueScale(int64_t t, int64_t c) const {
  if (t >= quantizedValues())
    return 0;
  return valueTokens[size_t(t)].groups[size_t(c / group)].scale;
}

KIVICache::Rate KIVICache::averagePerStep(int64_t first, int64_t last) const {
  assert(0 <= first && first < last && last <= appended());
  int64_t keys = 0, values = 0, elements = 0;
  for (int64_t s = first; s < last; ++s) {
    keys += history[size_t(s)].keyTokens;
    values += history[size_t(s)].valueTokens;
    elements += history[size_t(s)].elements;
  }
  double steps = double(last - first);
  return {double(keys) / steps, double(values) / steps,
          double(elements) / steps};
}

float snapflow::kv::ref::fp8e4m3(float x) {
  if (std::isnan(x))
    return x;
  float a = std::fabs(x), r;
  if (a >= kFp8E4M3Max) {
    r = kFp8E4M3Max;
  } else if (a < 0x1p-6f) {
    // Subnormals: multiples of 2^-9 (scaling by a power of 2 is exact).
    r = std::nearbyint(a * 0x1p9f) * 0x1p-9f;
  } else {
    // a in [2^(e-1), 2^e): 3 mantissa bits, an ulp of 2^(e-4). nearbyint
    // rounds half to even under the default rounding mode. Below 448 the
    // result is at most 448 (a / 32 < 14 in the top binade).
    int e;
    std::frexp(a, &e);
    float ulp = std::ldexp(1.0f, e - 4);
    r = std::nearbyint(a / ulp) * ulp;
  }
  return std::copysign(r, x);
}

Fp8Tensor snapflow::kv::ref::fp8Quantize(const std::vector<float> &x) {
  float amax = 0;
  for (float v : x)
    amax = std::max(amax, std::fabs(v));
  Fp8Tensor t;
  t.scale = amax > 0 ? amax / kFp8E4M3Max : 1.0f;
  for (float v : x)
    t.values.push_back(fp8e4m3(v / t.scale));
  return t;
}

std::vector<float> snapflow::kv::ref::fp8Dequantize(const Fp8Tensor &t) {
  std::vector<float> out;
  for (float v : t.values)
    out.push_back(v * t.scale);
  return out;
}

void snapflow::kv::ref::hadamard(std::vector<float> &x) {
  size_t n = x.size();
  assert(n > 0 && (n & (n - 1)) == 0);
  for (size_t h = 1; h < n; h *= 2)
    for (size_t i = 0; i < n; i += 2 * h)
      for (size_t j = i; j < i + h; ++j) {
        float a = x[j], b = x[j + h];
        x[j] = a + b;
        x[j + h] = a - b;
      }
  float norm = 1.0f / std::sqrt(float(n));
  for (float &v : x)
    v *= norm;
}

QuantGroup snapflow::kv::ref::quarotQuantize(std::vector<float> head,
                                             int bits) {
  hadamard(head);
  return quantize(head, bits);
}

std::vector<float> snapflow::kv::ref::quarotDequantize(const QuantGroup &g) {
  std::vector<float> head = dequantize(g);
  hadamard(head);
  return head;
}

MixedQuant
snapflow::kv::ref::zipcacheQuantize(const Matrix &tokens,
                                    const std::vector<float> &saliency,
                                    int64_t salientPercent, int high, int low) {
  int64_t n = tokens.rows;
  assert(int64_t(saliency.size()) == n && salientPercent >= 0 &&
         salientPercent <= 100);
  int64_t salientCount = (n * salientPercent + 99) / 100;
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    float sa = saliency[size_t(a)], sb = saliency[size_t(b)];
    return sa > sb || (sa == sb && a < b);
  });
  MixedQuant q;
  q.salient.assign(size_t(n), false);
  for (int64_t i = 0; i < salientCount; ++i)
    q.salient[size_t(order[size_t(i)])] = true;
  for (int64_t t = 0; t < n; ++t) {
    int b = q.salient[size_t(t)] ? high : low;
    q.bits.push_back(b);
    auto row = tokens.data.begin() + t * tokens.cols;
    q.groups.push_back(quantize(std::vector<float>(row, row + tokens.cols), b));
  }
  return q;
}

Matrix snapflow::kv::ref::zipcacheDequantize(const MixedQuant &q) {
  int64_t n = int64_t(q.groups.size());
  Matrix out(n, n ? int64_t(q.groups[0].codes.size()) : 0);
  for (int64_t t = 0; t < n; ++t) {
    std::vector<float> row = dequantize(q.groups[size_t(t)]);
    std::copy(row.begin(), row.end(), out.data.begin() + t * out.cols);
  }
  return out;
}

std::vector<float> snapflow::kv::ref::normalizedSaliency(const Matrix &probs,
                                                         int64_t n) {
  assert(probs.cols == n);
  std::vector<float> out(static_cast<size_t>(n), 0.0f);
  for (int64_t j = 0; j < n; ++j) {
    float sum = 0;
    for (int64_t i = 0; i < probs.rows; ++i)
      sum += probs.at(i, j);
    out[size_t(j)] = sum / float(n - j);
  }
  return out;
}
