//===- ModelCache.cpp - HBM as a cache of model weights -------------------===//

#include "snapflow/Sim/Serving/ModelCache.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace snapflow;
using namespace snapflow::sim::serving;

llvm::StringRef snapflow::sim::serving::cachePolicyName(CachePolicy policy) {
  switch (policy) {
  case CachePolicy::Static:
    return "static";
  case CachePolicy::OnDemand:
    return "on-demand";
  case CachePolicy::Prewarm:
    return "prewarm";
  }
  return "static";
}

std::optional<CachePolicy>
snapflow::sim::serving::parseCachePolicy(llvm::StringRef name) {
  for (CachePolicy p :
       {CachePolicy::Static, CachePolicy::OnDemand, CachePolicy::Prewarm})
    if (name == cachePolicyName(p))
      return p;
  return std::nullopt;
}

Forecast::Forecast(int models, double windowS, double periodS, double startS)
    : windowS(windowS), periodS(periodS), startS(startS),
      arrivals(static_cast<size_t>(models)) {}

void Forecast::arrive(int model, double timeS) {
  arrivals[static_cast<size_t>(model)].push_back(timeS);
}

double Forecast::count(int model, double lo, double hi) const {
  const std::vector<double> &a = arrivals[static_cast<size_t>(model)];
  return double(std::lower_bound(a.begin(), a.end(), hi) -
                std::lower_bound(a.begin(), a.end(), lo));
}

std::vector<double> Forecast::predict(double t) const {
  std::vector<double> out(arrivals.size(), 0.0);
  for (size_t m = 0; m < arrivals.size(); ++m) {
    int model = static_cast<int>(m);
    // Seasonal: the same window of each earlier period wholly in the past.
    if (periodS > 0) {
      double sum = 0;
      int periods = 0;
      for (double lo = t - periodS;
           lo >= startS && lo + windowS <= t && periods < kSeasonalPeriods;
           lo -= periodS) {
        sum += count(model, lo, lo + windowS);
        ++periods;
      }
      if (periods > 0) {
        out[m] = sum / double(periods);
        continue;
      }
    }
    // Otherwise the past windows, the latest weighted 1/2, the one before
    // 1/4, ... (the oldest keeps the remaining weight).
    double weight = 1, value = 0;
    int64_t windows = static_cast<int64_t>(std::floor((t - startS) / windowS));
    if (windows <= 0)
      continue;
    for (int64_t k = 1; k <= windows; ++k) {
      double hi = t - double(k - 1) * windowS, lo = hi - windowS;
      double w = k == windows ? weight : weight / 2;
      value += w * count(model, lo, hi);
      weight -= w;
      if (weight <= 1e-6)
        break;
    }
    out[m] = value;
  }
  return out;
}

std::vector<int>
snapflow::sim::serving::evictionOrder(llvm::ArrayRef<int> candidates,
                                      llvm::ArrayRef<double> lastUseS,
                                      llvm::ArrayRef<double> forecast) {
  std::vector<int> order(candidates.begin(), candidates.end());
  // Ties keep the candidates' order (std::stable_sort's buffer is
  // deprecated in this libstdc++).
  std::vector<size_t> rank(lastUseS.size(), 0);
  for (size_t i = 0; i < order.size(); ++i)
    rank[order[i]] = i;
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    if (!forecast.empty() && forecast[a] != forecast[b])
      return forecast[a] < forecast[b];
    if (lastUseS[a] != lastUseS[b])
      return lastUseS[a] < lastUseS[b];
    return rank[a] < rank[b];
  });
  return order;
}
