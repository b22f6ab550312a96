//===- SnapStream.cpp - #kv.snapstream: SnapKV + StreamingLLM
//--------------===//
//
// SnapStream (SambaNova): SnapKV selection at the end of prefill fills a
// fixed budget with sinks, the best-scored prompt tokens and a recent
// window; at decode the sinks and selected tokens are frozen and the recent
// window is a ring buffer, so every shape is static. Defaults: 4 sinks
// (StreamingLLM), observation window 32 and max-pooling of width 7 (SnapKV),
// a recent ring of max(obs_window, min(4096, budget / 4)).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

static constexpr int64_t kDefaultSinks = 4;
static constexpr int64_t kDefaultObsWindow = 32;
static constexpr int64_t kDefaultKernel = 7;
static constexpr int64_t kDefaultRecentCap = 4096;

LogicalResult SnapStreamPolicyAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, std::optional<int64_t> budget,
    std::optional<int64_t> ratio, std::optional<int64_t> sinks,
    std::optional<int64_t> recent, std::optional<int64_t> obsWindow,
    std::optional<int64_t> kernel, std::optional<PoolKind>) {
  if (failed(verifyBudgetKeys(emitError, "snapstream", budget, ratio)))
    return failure();
  if (sinks && *sinks < 0)
    return emitError() << "snapstream sinks must be >= 0, got " << *sinks;
  if (recent && *recent <= 0)
    return emitError() << "snapstream recent must be > 0, got " << *recent;
  if (obsWindow && *obsWindow <= 0)
    return emitError() << "snapstream obs_window must be > 0, got "
                       << *obsWindow;
  if (kernel && (*kernel <= 0 || *kernel % 2 == 0))
    return emitError() << "snapstream pooling kernel must be a positive odd "
                          "number, got "
                       << *kernel;
  if (budget && sinks && recent &&
      (CheckedInt(*sinks) + *recent).get().value_or(INT64_MAX) > *budget)
    return emitError() << "snapstream sinks + recent (" << *sinks << " + "
                       << *recent << ") exceeds the budget (" << *budget << ")";
  if (obsWindow && recent && *obsWindow > *recent)
    return emitError() << "snapstream obs_window (" << *obsWindow
                       << ") must not exceed recent (" << *recent
                       << "): the observation window is part of the recent "
                          "tokens";
  return success();
}

int64_t SnapStreamPolicyAttr::getSlotsFor(int64_t contextTokens) const {
  return budgetSlots(getBudget(), getRatio(), contextTokens);
}
bool SnapStreamPolicyAttr::isCompressing() const { return true; }
int64_t SnapStreamPolicyAttr::getSinkTokens() const {
  return getSinks().value_or(kDefaultSinks);
}
int64_t SnapStreamPolicyAttr::getRecentTokens() const {
  return getRecent().value_or(0);
}
bool SnapStreamPolicyAttr::isResolved() const {
  return getBudget() && !getRatio() && getSinks() && getRecent() &&
         getObsWindow() && getKernel() && getPool();
}
bool SnapStreamPolicyAttr::selectsAtPrefill() const { return true; }
int64_t SnapStreamPolicyAttr::getObservedQueries() const {
  return getObsWindow().value_or(0);
}

KVPolicyAttrInterface SnapStreamPolicyAttr::resolveFor(
    int64_t contextTokens, function_ref<InFlightDiagnostic()> emitError) const {
  int64_t budget = getSlotsFor(contextTokens);
  if (!checkSelectionBudget("snapstream", contextTokens, budget, emitError))
    return {};
  int64_t obs =
      getObsWindow().value_or(std::min(kDefaultObsWindow, budget / 2));
  int64_t recent = getRecent().value_or(
      std::max(obs, std::min(kDefaultRecentCap, budget / 4)));
  int64_t kernel = resolvePoolKernel("snapstream", getKernel(), kDefaultKernel,
                                     budget, emitError);
  if (kernel < 0)
    return {};
  return getChecked(emitError, getContext(), std::optional<int64_t>(budget),
                    std::optional<int64_t>(),
                    std::optional<int64_t>(getSinkTokens()),
                    std::optional<int64_t>(recent), std::optional<int64_t>(obs),
                    std::optional<int64_t>(kernel),
                    std::optional<PoolKind>(getPool().value_or(PoolKind::max)));
}

Selection SnapStreamPolicyAttr::buildPrefillSelection(
    OpBuilder &builder, Location loc, const SelectionInputs &inputs) const {
  // No per-slot state: the scores only choose.
  return {buildScoredSelection(builder, loc, inputs, *getObsWindow(),
                               *getKernel(), *getPool(), *getSinks(),
                               *getRecent())
              .indices,
          {}};
}

StringRef SnapStreamPolicyAttr::getUsage() {
  return "SnapKV at prefill + sinks and a ring buffer at decode\n"
         "keys: budget | ratio, sinks (4), recent (max(obs_window, min(4096, "
         "budget/4))), obs_window (min(32, budget/2)), kernel (min(7, "
         "budget)), pool (max)";
}
