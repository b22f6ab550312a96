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

namespace {
/// 53 random bits -> [0, 1): the same sequence on every platform (the
/// standard distributions are not specified bit for bit).
double uniform(std::mt19937_64 &rng) { return double(rng() >> 11) * 0x1.0p-53; }

/// A length uniform in mean * (1 -+ spread), at least 1.
int64_t length(std::mt19937_64 &rng, int64_t mean, double spread) {
  double lo = double(mean) * (1 - spread), hi = double(mean) * (1 + spread);
  return std::max<int64_t>(1, std::llround(lo + (hi - lo) * uniform(rng)));
}
} // namespace

PoissonSource::PoissonSource(const GeneratorOptions &options)
    : o(options), rng(options.seed) {}

llvm::Expected<std::optional<Request>> PoissonSource::next() {
  if (i >= o.count)
    return std::optional<Request>();
  t += -std::log1p(-uniform(rng)) / o.rate;
  Request r;
  r.id = i++;
  r.arrivalS = t;
  r.promptTokens = length(rng, o.promptMean, o.spread);
  r.outputTokens = length(rng, o.outputMean, o.spread);
  return std::optional<Request>(std::move(r));
}

llvm::Error PoissonSource::rewind() {
  rng.seed(o.seed);
  t = 0;
  i = 0;
  return llvm::Error::success();
}

PeriodicSource::PeriodicSource(std::vector<PeriodicLoad> loads,
                               double durationS, uint64_t seed)
    : loads(std::move(loads)), durationS(durationS), seed(seed) {
  (void)rewind();
}

void PeriodicSource::draw(size_t m) {
  const PeriodicLoad &l = loads[m];
  Stream &st = streams[m];
  st.pending.reset();
  // Thinning: candidates at the peak rate, each kept with probability
  // rate(t) / peak.
  double peak = l.rate * (1 + l.amplitude);
  if (peak <= 0)
    return;
  while (true) {
    st.t += -std::log1p(-uniform(st.rng)) / peak;
    if (st.t >= durationS)
      return;
    double rate =
        l.rate *
        (1 + l.amplitude * std::sin(2 * M_PI * (st.t / l.periodS + l.phase)));
    if (uniform(st.rng) * peak >= rate)
      continue;
    Request r;
    r.arrivalS = st.t;
    r.model = static_cast<int>(m);
    r.promptTokens = length(st.rng, l.promptMean, l.spread);
    r.outputTokens = length(st.rng, l.outputMean, l.spread);
    st.pending = std::move(r);
    return;
  }
}

llvm::Expected<std::optional<Request>> PeriodicSource::next() {
  // The earliest of the models' next requests (ties: the lower model).
  int best = -1;
  for (size_t m = 0; m < streams.size(); ++m)
    if (streams[m].pending && (best < 0 || streams[m].pending->arrivalS <
                                               streams[best].pending->arrivalS))
      best = static_cast<int>(m);
  if (best < 0)
    return std::optional<Request>();
  Request r = std::move(*streams[best].pending);
  r.id = id++;
  draw(static_cast<size_t>(best));
  return std::optional<Request>(std::move(r));
}

llvm::Error PeriodicSource::rewind() {
  streams.assign(loads.size(), Stream());
  for (size_t m = 0; m < loads.size(); ++m) {
    // Each model its own stream of the seed, so adding a model leaves the
    // others' requests unchanged.
    streams[m].rng.seed(seed ^ (0x9E3779B97F4A7C15ULL * (m + 1)));
    draw(m);
  }
  id = 0;
  return llvm::Error::success();
}

namespace {
std::vector<Request> collect(RequestSource &source) {
  std::vector<Request> out;
  for (;;) {
    auto r = source.next(); // a generator cannot fail
    if (!r || !*r) {
      llvm::consumeError(r.takeError());
      return out;
    }
    out.push_back(std::move(**r));
  }
}
} // namespace

std::vector<Request>
snapflow::sim::serving::generateRequests(const GeneratorOptions &o) {
  PoissonSource source(o);
  return collect(source);
}

std::vector<Request>
snapflow::sim::serving::generatePeriodic(llvm::ArrayRef<PeriodicLoad> loads,
                                         double durationS, uint64_t seed) {
  PeriodicSource source(loads.vec(), durationS, seed);
  return collect(source);
}
