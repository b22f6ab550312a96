//===- Distribution.cpp - Latency distributions and percentiles -----------===//
//
// Percentiles by nearest rank, over values kept as distinct values and
// their counts (Serving.h, Distribution) or over a plain list.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Serving/Serving.h"

#include <algorithm>
#include <cmath>

using namespace snapflow::sim::serving;

void Distribution::add(double value, int64_t count) {
  if (count <= 0)
    return;
  counts[value] += count;
  total += count;
  sum += value * double(count);
}

double Distribution::percentile(double q) const {
  if (!total)
    return 0;
  // The smallest value with at least q of the samples at or below it.
  int64_t rank = std::clamp<int64_t>(
      static_cast<int64_t>(std::ceil(q * double(total))), 1, total);
  int64_t seen = 0;
  for (const auto &[value, n] : counts) {
    seen += n;
    if (seen >= rank)
      return value;
  }
  return counts.rbegin()->first;
}

double snapflow::sim::serving::percentile(std::vector<double> values,
                                          double q) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(std::ceil(q * double(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}
