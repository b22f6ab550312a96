//===- MoERouting.cpp - Expected touched experts from a seeded model ------===//
//
// Replaces the uniform-routing assumption of llm.moe's cost with the mean of
// seeded routing draws, optionally with skewed expert popularity. The result
// depends only on the seed, the trial count and the op's shape.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/LLM/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace snapflow {
namespace llm {
#define GEN_PASS_DEF_MOEROUTING
#include "snapflow/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace llm
} // namespace snapflow

using namespace mlir;
using namespace snapflow;
using namespace snapflow::llm;

namespace {

/// Mean number of the first `local` experts (of `global`) that `tokens`
/// tokens touch, each choosing `topK` distinct experts.
double sampleTouched(int64_t global, int64_t local, int64_t topK,
                     int64_t tokens, int64_t trials, double skew,
                     uint64_t seed) {
  std::mt19937_64 rng(seed);
  // Popularity: Zipf over a random ranking, so the local experts are not
  // systematically the popular ones.
  std::vector<int64_t> rank(global);
  std::iota(rank.begin(), rank.end(), 1);
  std::shuffle(rank.begin(), rank.end(), rng);
  std::vector<double> weight(global);
  for (int64_t e = 0; e < global; ++e)
    weight[e] = std::pow(static_cast<double>(rank[e]), -skew);
  double total = 0;
  for (int64_t t = 0; t < trials; ++t) {
    std::vector<char> touched(global, 0);
    for (int64_t n = 0; n < tokens; ++n) {
      // Top-k distinct by weighted sampling without replacement
      // (exponential keys: key = u^(1/w), keep the k largest).
      std::vector<std::pair<double, int64_t>> keys(global);
      std::uniform_real_distribution<double> u(1e-12, 1.0);
      for (int64_t e = 0; e < global; ++e)
        keys[e] = {std::log(u(rng)) / weight[e], e};
      std::partial_sort(keys.begin(), keys.begin() + topK, keys.end(),
                        [](auto a, auto b) { return a.first > b.first; });
      for (int64_t i = 0; i < topK; ++i)
        touched[keys[i].second] = 1;
    }
    total += std::count(touched.begin(), touched.begin() + local, 1);
  }
  return total / static_cast<double>(trials);
}

struct MoERoutingPass : public llm::impl::MoERoutingBase<MoERoutingPass> {
  using MoERoutingBase::MoERoutingBase;

  void runOnOperation() override {
    if (trials < 1 || !(skew >= 0) ||
        !std::isfinite(static_cast<double>(skew))) {
      getOperation().emitError() << "moe-routing: trials must be >= 1 and skew "
                                    "a finite number >= 0, got "
                                 << static_cast<int64_t>(trials) << " and "
                                 << static_cast<double>(skew);
      return signalPassFailure();
    }
    // One draw per distinct shape: a static graph repeats the same layers.
    std::map<std::tuple<int64_t, int64_t, int64_t, int64_t>, double> memo;
    getOperation().walk([&](MoEOp op) {
      auto type = cast<RankedTensorType>(op.getInput().getType());
      int64_t tokens = type.getNumElements() / type.getShape().back();
      int64_t local = op.getNumExperts();
      int64_t global = local * op.getExpertShards();
      auto key = std::make_tuple(global, local, op.getTopK(), tokens);
      auto it = memo.find(key);
      if (it == memo.end())
        it = memo.emplace(key, sampleTouched(global, local, op.getTopK(),
                                             tokens, trials, skew, seed))
                 .first;
      op.setExpectedActiveExpertsAttr(
          Builder(op).getF64FloatAttr(std::max(it->second, 1e-9)));
    });
  }
};

} // namespace
