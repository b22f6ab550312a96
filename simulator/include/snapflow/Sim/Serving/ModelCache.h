//===- ModelCache.h - HBM as a cache of model weights -----------*- C++ -*-===//
//
// A deployment of several models keeps every model's weights in DDR and the
// weights (with the KV allocation and other HBM tensors) of the models it
// currently serves in HBM. A switch brings a model in: its weight bytes move
// from DDR to HBM through the DMA engine and the AGCUs, timed by the
// SystemC model (Job::copy), while other models keep running. The policy
// decides which models to bring in, when, and which to evict for them:
//
//   static     every model is resident from the start; none is switched.
//              The partition baseline: all models' HBM must fit at once.
//   on-demand  a request for a model that is not resident brings it in;
//              the least recently used resident model that is idle (no
//              request in its slots or queue) is evicted for it, and when
//              idle models do not free enough HBM the least recently used
//              busy one drains (admits nothing new) and is evicted once its
//              slots are empty.
//   prewarm    WarmServe-style: on-demand, and at the start of every
//              forecast window the models the forecast expects to be busiest
//              in that window are brought in ahead of their requests, as
//              many as fit; victims are chosen evict-aware, the resident
//              model with the smallest forecast first (then the least
//              recently used), never one the forecast wants and never a busy
//              one for a prewarm.
//
// The forecast of a model's requests in the window [t, t + W) uses only the
// arrivals before t: with a known period P, the mean of its arrivals in the
// same window of the earlier periods ([t - kP, t - kP + W), 1 <= k <= 64,
// each wholly in the past: the latest 64, so a forecast costs the same late
// in a long run as early); before a whole period has passed, or without one, an
// exponentially weighted mean of its past windows (weight 1/2 on the last).
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_SERVING_MODELCACHE_H
#define SNAPFLOW_SIM_SERVING_MODELCACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace snapflow {
namespace sim {
namespace serving {

enum class CachePolicy { Static, OnDemand, Prewarm };
/// "static", "on-demand", "prewarm".
llvm::StringRef cachePolicyName(CachePolicy policy);
std::optional<CachePolicy> parseCachePolicy(llvm::StringRef name);

/// How the deployment's HBM is shared (ServeModels).
struct CacheOptions {
  CachePolicy policy = CachePolicy::Static;
  /// HBM per socket the models may hold (the chip's).
  double hbmBytes = 0;
  /// prewarm: the forecast window, seconds.
  double windowS = 60;
  /// prewarm: the load's period in seconds (0: none known, so the forecast
  /// is the weighted mean of past windows).
  double periodS = 0;
};

/// Requests per model in the next window, from the arrivals seen so far.
class Forecast {
public:
  /// The earlier periods a seasonal forecast averages at most.
  static constexpr int kSeasonalPeriods = 64;
  Forecast(int models, double windowS, double periodS, double startS);
  /// Records an arrival of `model` at `timeS` (in time order).
  void arrive(int model, double timeS);
  /// The expected requests of each model in [t, t + window) from the
  /// arrivals before t (ModelCache.h, the file comment).
  std::vector<double> predict(double t) const;

private:
  double windowS, periodS, startS;
  std::vector<std::vector<double>> arrivals; ///< per model, in order
  /// Arrivals in [lo, hi) of `model`.
  double count(int model, double lo, double hi) const;
};

/// The order in which resident models are evicted: least recently used
/// first (on-demand), or smallest forecast first then least recently used
/// (prewarm). `candidates` are model indices.
std::vector<int> evictionOrder(llvm::ArrayRef<int> candidates,
                               llvm::ArrayRef<double> lastUseS,
                               llvm::ArrayRef<double> forecast);

} // namespace serving
} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_SERVING_MODELCACHE_H
