//===- H2O.cpp - #kv.h2o: heavy hitters by accumulated attention
//-----------===//
//
// H2O (Zhang et al., NeurIPS 2023) in the fixed-slot form of its official
// FlexGen code (FMInference/H2O, h2o_flexgen/flexgen/pytorch_backend.py):
// `budget` slots of heavy hitters and recent tokens, one accumulated
// attention score per slot and KV-head group; each decode step adds the
// step's probabilities, takes the argmin outside the recent tokens and
// writes the new token into that slot (cache_replace: no compaction).
// Defaults: equal heavy and recent shares, as the official scripts'
// `--heavy_ratio 0.1 --recent_ratio 0.1`.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

/// One accumulated score per slot and group, in f32 (the official HF code
/// accumulates fp32 softmax outputs; FlexGen's CPU workspace is fp32).
static constexpr int64_t kScoreBytes = 4;
/// The slot the next token overwrites, one i32 per group.
static constexpr int64_t kVictimBytes = 4;

LogicalResult H2OPolicyAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, std::optional<int64_t> budget,
    std::optional<int64_t> ratio, std::optional<int64_t> recent) {
  if (failed(verifyBudgetKeys(emitError, "h2o", budget, ratio)))
    return failure();
  if (recent && *recent <= 0)
    return emitError() << "h2o recent must be > 0, got " << *recent;
  if (budget && recent && *recent >= *budget)
    return emitError() << "h2o recent (" << *recent
                       << ") must be smaller than the budget (" << *budget
                       << "): the rest are the heavy hitters";
  return success();
}

int64_t H2OPolicyAttr::getSlotsFor(int64_t contextTokens) const {
  return budgetSlots(getBudget(), getRatio(), contextTokens);
}
bool H2OPolicyAttr::isCompressing() const { return true; }
int64_t H2OPolicyAttr::getSinkTokens() const { return 0; }
int64_t H2OPolicyAttr::getRecentTokens() const {
  return getRecent().value_or(0);
}
bool H2OPolicyAttr::isResolved() const {
  return getBudget() && !getRatio() && getRecent();
}
bool H2OPolicyAttr::selectsAtPrefill() const { return true; }

KVPolicyAttrInterface
H2OPolicyAttr::resolveFor(int64_t contextTokens,
                          function_ref<InFlightDiagnostic()> emitError) const {
  int64_t budget = getSlotsFor(contextTokens);
  if (!checkSelectionBudget("h2o", contextTokens, budget, emitError))
    return {};
  int64_t recent = getRecent().value_or(std::max<int64_t>(1, budget / 2));
  return getChecked(emitError, getContext(), std::optional<int64_t>(budget),
                    std::optional<int64_t>(), std::optional<int64_t>(recent));
}

Selection
H2OPolicyAttr::buildPrefillSelection(OpBuilder &builder, Location loc,
                                     const SelectionInputs &inputs) const {
  // Every prompt query's attention, accumulated per token (the official
  // code's prefill score update over the full attention matrix); no
  // pooling. A chunked prefill scores with its last chunk's queries.
  int64_t queries =
      llvm::cast<RankedTensorType>(inputs.queries.getType()).getDimSize(1);
  return buildScoredSelection(builder, loc, inputs, queries, /*kernel=*/1,
                              PoolKind::max, /*sinks=*/0, *getRecent());
}

int64_t H2OPolicyAttr::getSlotStateBytes(int64_t groups) const {
  return (CheckedInt(groups) * kScoreBytes).get().value_or(0);
}

Value H2OPolicyAttr::buildDecodeUpkeep(OpBuilder &builder, Location loc,
                                       const UpkeepInputs &inputs) const {
  return buildEvict(builder, loc, inputs);
}

StepCost H2OPolicyAttr::getEvictCost(Type cache) const {
  // Per layer and sequence, G groups of S slots: read and write every
  // score (G*S f32), one add per score, compare the S - recent older
  // slots for the argmin, and record the victim slot per group.
  auto c = llvm::cast<KVCacheTypeInterface>(cache);
  CheckedInt g = getGroups(cache), s = c.getSlots();
  StepCost cost;
  cost.bytesRead = (g * s * kScoreBytes).value();
  cost.bytesWritten = (g * s * kScoreBytes + g * kVictimBytes).value();
  cost.flops = (g * s + g * (s - *getRecent())).value();
  return cost;
}

StringRef H2OPolicyAttr::getUsage() {
  return "H2O: heavy hitters by accumulated attention + recent tokens\n"
         "keys: budget | ratio, recent (budget/2)";
}
