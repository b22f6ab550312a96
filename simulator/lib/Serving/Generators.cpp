//===- Generators.cpp - Seeded synthetic request loads --------------------===//
//
// The generators --rate and --requests use when no trace is given: Poisson
// arrivals, and periodic multi-model load. Traces read: Trace.cpp.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Serving/Serving.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace snapflow;
using namespace snapflow::sim::serving;

std::vector<Request>
snapflow::sim::serving::generateRequests(const GeneratorOptions &o) {
  std::mt19937_64 rng(o.seed);
  // 53 random bits -> [0, 1): the same sequence on every platform (the
  // standard distributions are not specified bit for bit).
  auto uniform = [&] { return double(rng() >> 11) * 0x1.0p-53; };
  auto length = [&](int64_t mean) {
    double lo = double(mean) * (1 - o.spread),
           hi = double(mean) * (1 + o.spread);
    return std::max<int64_t>(1, std::llround(lo + (hi - lo) * uniform()));
  };
  std::vector<Request> out;
  double t = 0;
  for (int64_t i = 0; i < o.count; ++i) {
    t += -std::log1p(-uniform()) / o.rate;
    Request r;
    r.id = i;
    r.arrivalS = t;
    r.promptTokens = length(o.promptMean);
    r.outputTokens = length(o.outputMean);
    out.push_back(r);
  }
  return out;
}

std::vector<Request>
snapflow::sim::serving::generatePeriodic(llvm::ArrayRef<PeriodicLoad> loads,
                                         double durationS, uint64_t seed) {
  std::vector<Request> out;
  for (size_t m = 0; m < loads.size(); ++m) {
    const PeriodicLoad &l = loads[m];
    // Each model its own stream of the seed.
    std::mt19937_64 rng(seed ^ (0x9E3779B97F4A7C15ULL * (m + 1)));
    auto uniform = [&] { return double(rng() >> 11) * 0x1.0p-53; };
    auto length = [&](int64_t mean) {
      double lo = double(mean) * (1 - l.spread),
             hi = double(mean) * (1 + l.spread);
      return std::max<int64_t>(1, std::llround(lo + (hi - lo) * uniform()));
    };
    // Thinning: candidates at the peak rate, each kept with probability
    // rate(t) / peak.
    double peak = l.rate * (1 + l.amplitude);
    if (peak <= 0)
      continue;
    double t = 0;
    while (true) {
      t += -std::log1p(-uniform()) / peak;
      if (t >= durationS)
        break;
      double rate =
          l.rate *
          (1 + l.amplitude * std::sin(2 * M_PI * (t / l.periodS + l.phase)));
      double keep = uniform();
      if (keep * peak >= rate)
        continue;
      Request r;
      r.arrivalS = t;
      r.model = static_cast<int>(m);
      r.promptTokens = length(l.promptMean);
      r.outputTokens = length(l.outputMean);
      out.push_back(r);
    }
  }
  std::sort(out.begin(), out.end(), [](const Request &a, const Request &b) {
    return std::make_pair(a.arrivalS, a.model) <
           std::make_pair(b.arrivalS, b.model);
  });
  for (size_t i = 0; i < out.size(); ++i)
    out[i].id = static_cast<int64_t>(i);
  return out;
}
