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

#include "../Published.h"

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

/// H2O's published accuracy (SEED-SYSTEMS.md section 9).
ArrayRef<PublishedAccuracy> H2OPolicyAttr::getPublishedAccuracy() {
  static const PublishedAccuracy rows[] = {
      {published::kRuler4K, "Llama-3.1-8B-Instruct",
       "10% removed, H2O-style prefill scores (ObservedAttention)", 96.0, 86.0,
       published::kRulerKvpress},
      {published::kRuler4K, "Llama-3.1-8B-Instruct",
       "25% removed, H2O-style prefill scores (ObservedAttention)", 96.0, 75.1,
       published::kRulerKvpress},
      {published::kRuler4K, "Llama-3.1-8B-Instruct",
       "50% removed, H2O-style prefill scores (ObservedAttention)", 96.0, 54.6,
       published::kRulerKvpress},
      {published::kLongBench16, "Llama-3-8B-Instruct", "budget 128 tokens",
       41.46, 35.37, published::kLongBenchPyramidKV},
      {published::kLongBench16, "Llama-3-8B-Instruct", "budget 2048 tokens",
       41.46, 39.35, published::kLongBenchPyramidKV},
      {published::kLongBench16, "Mistral-7B-Instruct", "budget 128 tokens",
       39.75, 34.73, published::kLongBenchPyramidKV},
      {published::kLongBench16, "Mistral-7B-Instruct", "budget 2048 tokens",
       39.75, 39.95, published::kLongBenchPyramidKV},
      {published::kLongBench16, "LongChat-7B-v1.5-32k", "budget 4096 tokens",
       36.36, 33.9, published::kLongBenchSnapKV},
      {published::kLongBench16, "Mistral-7B-Instruct-v0.2",
       "budget 4096 tokens", 42.56, 40.45, published::kLongBenchSnapKV},
      {published::kLongBench6, "Llama-3-8B-Instruct", "2x", 48.13, 47.68,
       published::kLongBenchYuan},
      {published::kLongBench6, "Llama-3-8B-Instruct", "4x", 48.13, 46.96,
       published::kLongBenchYuan},
      {published::kLongBench6, "Llama-3-8B-Instruct", "8x", 48.13, 46.37,
       published::kLongBenchYuan},
      {published::kLongBench6, "Mistral-7B-Instruct-v0.2", "2x", 49.12, 49.59,
       published::kLongBenchYuan},
      {published::kLongBench6, "Mistral-7B-Instruct-v0.2", "4x", 49.12, 48.61,
       published::kLongBenchYuan},
      {published::kLongBench6, "Mistral-7B-Instruct-v0.2", "8x", 49.12, 47.9,
       published::kLongBenchYuan},
  };
  return rows;
}
