//===- Distribution.cpp - Latency distributions and percentiles -----------===//
//
// Percentiles by nearest rank, over values kept as distinct values and
// their counts (Serving.h, Distribution) or over a plain list.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Serving/Serving.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

using namespace snapflow::sim::serving;

namespace {
const double kStep = std::log1p(2 * Distribution::kRelativeError);
} // namespace

int64_t Distribution::gridIndex(double value) {
  return std::llround(std::log(value) / kStep);
}

double Distribution::gridValue(int64_t k) {
  return std::exp(double(k) * kStep);
}

void Distribution::addToGrid(double value, int64_t count) {
  int64_t k = gridIndex(value);
  if (grid.empty()) {
    gridLow = k;
    grid.assign(1, 0);
  } else if (k < gridLow) {
    grid.insert(grid.begin(), size_t(gridLow - k), 0);
    gridLow = k;
  } else if (k >= gridLow + int64_t(grid.size())) {
    grid.resize(size_t(k - gridLow + 1), 0);
  }
  grid[size_t(k - gridLow)] += count;
}

void Distribution::add(double value, int64_t count) {
  if (count <= 0)
    return;
  largest = total ? std::max(largest, value) : value;
  total += count;
  sum += value * double(count);
  bool positive = value > 0 && std::isfinite(value);
  if (coarse && positive) {
    addToGrid(value, count);
    return;
  }
  counts[value] += count;
  if (!coarse && counts.size() > kExactValues) {
    // Too many distinct values to keep: from now on, each positive one to
    // the grid.
    std::unordered_map<double, int64_t> rest;
    for (const auto &[v, n] : counts)
      if (v > 0 && std::isfinite(v))
        addToGrid(v, n);
      else
        rest[v] += n;
    counts = std::move(rest);
    coarse = true;
  }
}

void Distribution::merge(const Distribution &other) {
  if (!other.total)
    return;
  // The counts, mean and largest combine exactly; the values as kept.
  int64_t n = total + other.total;
  double s = sum + other.sum;
  double top = total ? std::max(largest, other.largest) : other.largest;
  for (const auto &[v, c] : other.counts)
    add(v, c);
  for (size_t i = 0; i < other.grid.size(); ++i)
    if (other.grid[i] > 0)
      add(gridValue(other.gridLow + int64_t(i)), other.grid[i]);
  total = n;
  sum = s;
  largest = top;
}

size_t Distribution::distinct() const {
  return counts.size() + size_t(std::count_if(grid.begin(), grid.end(),
                                              [](int64_t n) { return n > 0; }));
}

void Latencies::add(const RequestResult &q) {
  ttft.add(q.ttftS());
  if (q.outputTokens > 1)
    tpot.add(q.tpotS());
  e2e.add(q.finishS - q.arrivalS);
  wait.add(q.prefillStartS - q.arrivalS);
  switchWait.add(q.switchWaitS);
}

void Latencies::merge(const Latencies &o) {
  ttft.merge(o.ttft);
  tpot.merge(o.tpot);
  e2e.merge(o.e2e);
  wait.merge(o.wait);
  switchWait.merge(o.switchWait);
}

double Distribution::percentile(double q) const {
  if (!total)
    return 0;
  // The smallest value with at least q of the samples at or below it: the
  // exact values in order, then (coarse) the grid's, all larger.
  int64_t rank = std::clamp<int64_t>(
      static_cast<int64_t>(std::ceil(q * double(total))), 1, total);
  std::vector<std::pair<double, int64_t>> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end());
  int64_t seen = 0;
  for (const auto &[value, n] : sorted) {
    seen += n;
    if (seen >= rank)
      return value;
  }
  for (size_t i = 0; i < grid.size(); ++i) {
    seen += grid[i];
    if (grid[i] > 0 && seen >= rank)
      return gridValue(gridLow + int64_t(i));
  }
  return largest;
}

double snapflow::sim::serving::percentile(std::vector<double> values,
                                          double q) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(std::ceil(q * double(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}
