//===- SnapKV.cpp - #kv.snapkv: one selection at the end of prefill
//--------===//
//
// SnapKV (Li et al.): the last obs_window queries score every prompt key; the
// pooled top tokens per KV-head group fill the budget with the observation
// window. As a static graph, decode then keeps the budget fixed, the window
// acting as the recent region. Defaults follow the paper's LongBench
// configuration (observation window 32, max-pooling of width 7).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

#include "../Published.h"

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

static constexpr int64_t kDefaultObsWindow = 32;
static constexpr int64_t kDefaultKernel = 7;

LogicalResult SnapKVPolicyAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, std::optional<int64_t> budget,
    std::optional<int64_t> ratio, std::optional<int64_t> obsWindow,
    std::optional<int64_t> kernel, std::optional<PoolKind>) {
  if (failed(verifyBudgetKeys(emitError, "snapkv", budget, ratio)))
    return failure();
  if (obsWindow && *obsWindow <= 0)
    return emitError() << "snapkv obs_window must be > 0, got " << *obsWindow;
  if (kernel && (*kernel <= 0 || *kernel % 2 == 0))
    return emitError() << "snapkv pooling kernel must be a positive odd "
                          "number, got "
                       << *kernel;
  if (budget && obsWindow && *obsWindow >= *budget)
    return emitError() << "snapkv obs_window (" << *obsWindow
                       << ") must be smaller than the budget (" << *budget
                       << ")";
  return success();
}

int64_t SnapKVPolicyAttr::getSlotsFor(int64_t contextTokens) const {
  return budgetSlots(getBudget(), getRatio(), contextTokens);
}
bool SnapKVPolicyAttr::isCompressing() const { return true; }
int64_t SnapKVPolicyAttr::getSinkTokens() const { return 0; }
int64_t SnapKVPolicyAttr::getRecentTokens() const {
  return getObsWindow().value_or(0);
}
bool SnapKVPolicyAttr::isResolved() const {
  return getBudget() && !getRatio() && getObsWindow() && getKernel() &&
         getPool();
}
bool SnapKVPolicyAttr::selectsAtPrefill() const { return true; }
int64_t SnapKVPolicyAttr::getObservedQueries() const {
  return getObsWindow().value_or(0);
}

KVPolicyAttrInterface SnapKVPolicyAttr::resolveFor(
    int64_t contextTokens, function_ref<InFlightDiagnostic()> emitError) const {
  int64_t budget = getSlotsFor(contextTokens);
  if (!checkSelectionBudget("snapkv", contextTokens, budget, emitError))
    return {};
  int64_t obs =
      getObsWindow().value_or(std::min(kDefaultObsWindow, budget / 2));
  int64_t kernel = resolvePoolKernel("snapkv", getKernel(), kDefaultKernel,
                                     budget, emitError);
  if (kernel < 0)
    return {};
  return getChecked(emitError, getContext(), std::optional<int64_t>(budget),
                    std::optional<int64_t>(), std::optional<int64_t>(obs),
                    std::optional<int64_t>(kernel),
                    std::optional<PoolKind>(getPool().value_or(PoolKind::max)));
}

Selection
SnapKVPolicyAttr::buildPrefillSelection(OpBuilder &builder, Location loc,
                                        const SelectionInputs &inputs) const {
  // The observation window is the recent region; no sinks.
  // No per-slot state: the scores only choose.
  return {buildScoredSelection(builder, loc, inputs, *getObsWindow(),
                               *getKernel(), *getPool(), /*sinks=*/0,
                               /*recent=*/*getObsWindow())
              .indices,
          {}};
}

StringRef SnapKVPolicyAttr::getUsage() {
  return "SnapKV selection at the end of prefill\n"
         "keys: budget | ratio (budget = context/ratio), obs_window "
         "(min(32, budget/2)), kernel (min(7, budget)), pool (max|avg, max)";
}

/// SnapKV (the prefill selection SnapStream also makes)'s published accuracy
/// (SEED-SYSTEMS.md section 9).
ArrayRef<PublishedAccuracy> SnapKVPolicyAttr::getPublishedAccuracy() {
  static const PublishedAccuracy rows[] = {
      {published::kRuler4K, "Llama-3.1-8B-Instruct",
       "10% removed, question-agnostic", 96.0, 87.6, published::kRulerKvpress},
      {published::kRuler4K, "Llama-3.1-8B-Instruct",
       "25% removed, question-agnostic", 96.0, 82.0, published::kRulerKvpress},
      {published::kRuler4K, "Llama-3.1-8B-Instruct",
       "50% removed, question-agnostic", 96.0, 69.7, published::kRulerKvpress},
      {published::kRuler4K, "Llama-3.1-8B-Instruct",
       "10% removed, question in the compressed part", 96.0, 95.7,
       published::kRulerKvpress},
      {published::kRuler4K, "Llama-3.1-8B-Instruct",
       "25% removed, question in the compressed part", 96.0, 94.6,
       published::kRulerKvpress},
      {published::kRuler4K, "Llama-3.1-8B-Instruct",
       "50% removed, question in the compressed part", 96.0, 88.9,
       published::kRulerKvpress},
      {published::kLongBench16, "Llama-3-8B-Instruct", "budget 128 tokens",
       41.46, 35.5, published::kLongBenchPyramidKV},
      {published::kLongBench16, "Llama-3-8B-Instruct", "budget 2048 tokens",
       41.46, 41.35, published::kLongBenchPyramidKV},
      {published::kLongBench16, "Mistral-7B-Instruct", "budget 128 tokens",
       39.75, 34.96, published::kLongBenchPyramidKV},
      {published::kLongBench16, "Mistral-7B-Instruct", "budget 2048 tokens",
       39.75, 40.55, published::kLongBenchPyramidKV},
      {published::kLongBench16, "LongChat-7B-v1.5-32k", "budget 1024 tokens",
       36.36, 34.41, published::kLongBenchSnapKV},
      {published::kLongBench16, "LongChat-7B-v1.5-32k", "budget 2048 tokens",
       36.36, 35.4, published::kLongBenchSnapKV},
      {published::kLongBench16, "LongChat-7B-v1.5-32k", "budget 4096 tokens",
       36.36, 35.89, published::kLongBenchSnapKV},
      {published::kLongBench16, "Mistral-7B-Instruct-v0.2",
       "budget 1024 tokens", 42.56, 41.45, published::kLongBenchSnapKV},
      {published::kLongBench16, "Mistral-7B-Instruct-v0.2",
       "budget 2048 tokens", 42.56, 41.99, published::kLongBenchSnapKV},
      {published::kLongBench16, "Mistral-7B-Instruct-v0.2",
       "budget 4096 tokens", 42.56, 42.38, published::kLongBenchSnapKV},
  };
  return rows;
}
