//===- Scissorhands.cpp - #kv.scissorhands: persistence of importance
//------===//
//
// Scissorhands (Liu et al., NeurIPS 2023). No official code was found; the
// mechanism follows the paper's Algorithm 2 as cold-compress implements it
// (AnswerDotAI/cold-compress, cache.py, KVCacheHeavyHitter): per slot a
// history of whether each of the last `history` steps gave it at least the
// uniform attention (`attn_thresholding`: one bit), the average over the
// window as importance, sinks and the `recent` newest protected, one
// eviction per step once full, the victim's history cleared. Defaults: the
// paper's w = 400 and r = 10 (cited in cold-compress), 4 sinks
// (StreamingLLM's).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

static constexpr int64_t kDefaultSinks = 4;
static constexpr int64_t kDefaultRecent = 10;
static constexpr int64_t kDefaultHistory = 400;
/// The longest history: 2^27 steps, the longest context a model config may
/// declare (ModelConfig's bound on max_position_embeddings).
static constexpr int64_t kMaxHistory = int64_t(1) << 27;
/// The slot the next token overwrites, one i32 per group.
static constexpr int64_t kVictimBytes = 4;

LogicalResult ScissorhandsPolicyAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, std::optional<int64_t> budget,
    std::optional<int64_t> ratio, std::optional<int64_t> sinks,
    std::optional<int64_t> recent, std::optional<int64_t> history) {
  if (failed(verifyBudgetKeys(emitError, "scissorhands", budget, ratio)))
    return failure();
  if (sinks && *sinks < 0)
    return emitError() << "scissorhands sinks must be >= 0, got " << *sinks;
  if (recent && *recent <= 0)
    return emitError() << "scissorhands recent must be > 0, got " << *recent;
  // A history longer than any context means nothing, and its bits per
  // slot overflowed the state's size into 0, which kv.evict then refused
  // as a stateless policy (R17).
  if (history && (*history <= 0 || *history > kMaxHistory))
    return emitError() << "scissorhands history must be from 1 to "
                       << kMaxHistory
                       << " steps (the longest context a model declares), "
                          "got "
                       << *history;
  if (budget && sinks && recent &&
      (CheckedInt(*sinks) + *recent).get().value_or(INT64_MAX) >= *budget)
    return emitError() << "scissorhands sinks + recent (" << *sinks << " + "
                       << *recent << ") must be smaller than the budget ("
                       << *budget << "): at least one slot is chosen";
  return success();
}

int64_t ScissorhandsPolicyAttr::getSlotsFor(int64_t contextTokens) const {
  return budgetSlots(getBudget(), getRatio(), contextTokens);
}
bool ScissorhandsPolicyAttr::isCompressing() const { return true; }
int64_t ScissorhandsPolicyAttr::getSinkTokens() const {
  return getSinks().value_or(kDefaultSinks);
}
int64_t ScissorhandsPolicyAttr::getRecentTokens() const {
  return getRecent().value_or(kDefaultRecent);
}
bool ScissorhandsPolicyAttr::isResolved() const {
  return getBudget() && !getRatio() && getSinks() && getRecent() &&
         getHistory();
}
bool ScissorhandsPolicyAttr::selectsAtPrefill() const { return true; }

KVPolicyAttrInterface ScissorhandsPolicyAttr::resolveFor(
    int64_t contextTokens, function_ref<InFlightDiagnostic()> emitError) const {
  int64_t budget = getSlotsFor(contextTokens);
  if (!checkSelectionBudget("scissorhands", contextTokens, budget, emitError))
    return {};
  return getChecked(
      emitError, getContext(), std::optional<int64_t>(budget),
      std::optional<int64_t>(), std::optional<int64_t>(getSinkTokens()),
      std::optional<int64_t>(getRecentTokens()),
      std::optional<int64_t>(getHistory().value_or(kDefaultHistory)));
}

Selection ScissorhandsPolicyAttr::buildPrefillSelection(
    OpBuilder &builder, Location loc, const SelectionInputs &inputs) const {
  // The attention of the last `history` prompt queries (the window the
  // decode history covers), unpooled.
  int64_t queries =
      llvm::cast<RankedTensorType>(inputs.queries.getType()).getDimSize(1);
  return buildScoredSelection(builder, loc, inputs,
                              std::min(*getHistory(), queries), /*kernel=*/1,
                              PoolKind::max, *getSinks(), *getRecent());
}

int64_t ScissorhandsPolicyAttr::getSlotStateBytes(int64_t groups) const {
  // `history` bits per slot and group.
  return (CheckedInt(groups) * ceilDiv(CheckedInt(*getHistory()), 8))
      .get()
      .value_or(0);
}

Value ScissorhandsPolicyAttr::buildDecodeUpkeep(
    OpBuilder &builder, Location loc, const UpkeepInputs &inputs) const {
  return buildEvict(builder, loc, inputs);
}

StepCost ScissorhandsPolicyAttr::getEvictCost(Type cache) const {
  // Per layer and sequence, G groups of S slots with w-bit histories kept
  // as w columns of S bits (a ring over steps): compare each slot's
  // probability with 1/S (G*S) and write that column (G * ceil(S/8)
  // bytes); read every history to count it (G*S*ceil(w/8) bytes, G*S*w
  // adds); the argmin over the S - sinks - recent candidates; clear the
  // victim's history (G * ceil(w/8) bytes) and record the victim slot.
  auto c = llvm::cast<KVCacheTypeInterface>(cache);
  CheckedInt g = getGroups(cache), s = c.getSlots(), w = *getHistory();
  CheckedInt historyBytes = ceilDiv(w, 8);
  StepCost cost;
  cost.bytesRead = (g * s * historyBytes).value();
  cost.bytesWritten =
      (g * ceilDiv(s, 8) + g * historyBytes + g * kVictimBytes).value();
  cost.flops =
      (g * s + g * s * w + g * (s - *getSinks() - *getRecent())).value();
  return cost;
}

StringRef ScissorhandsPolicyAttr::getUsage() {
  return "Scissorhands: evict the token least often important over a "
         "history window\n"
         "keys: budget | ratio, sinks (4), recent (10), history (400)";
}
