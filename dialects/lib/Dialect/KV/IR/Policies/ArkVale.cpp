//===- ArkVale.cpp - #kv.arkvale: recallable pages backed up to DDR -------===//
//
// ArkVale (Chen et al., NeurIPS 2024) in the form of its official code
// (pku-liang/ArkVale): pages of `page` tokens; every page is backed up to
// the external tier as it fills (`decode_backup_1_page`: host memory on a
// GPU, DDR here) with a digest kept on the device (`_summarize_keys`,
// cuboid-mean: c = (max + min) / 2, r = mean |c - k|, [c - r, c + r] per
// channel). Each decode step, before attention, every digest is scored
// with the query (`estimate_scores`: sum_c max(q lo, q hi), averaged over
// the query heads), the top pages are chosen (sinks and window pages always
// kept), the ones evicted are recalled, and attention runs over the whole
// resident budget (`use_sparse_attn` is off). A prefill keeps sinks,
// window and the top pages by the last query's scores
// (`prefill_evict_extra_pages`).
//
// Defaults follow the official benchmark scripts (longbench_pred.py,
// performance.py): page 32, 1 sink page, 2 window pages, page_topks 32,
// which the code reduces internally by n_sink + (n_win - 1): 30 pages are
// chosen outside the sinks and window. The recall rate has no knob in the
// code (it depends on the text); the default is the paper's measured bound,
// "fewer than 10 pages per decode step".
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

static constexpr int64_t kDefaultPage = 32;
static constexpr int64_t kDefaultSinks = 1;
static constexpr int64_t kDefaultWindow = 2;
static constexpr int64_t kDefaultTopK = 32; ///< page_topks, before reduction
static constexpr int64_t kDefaultRecall = 10;

LogicalResult ArkValePolicyAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, std::optional<int64_t> budget,
    std::optional<int64_t> ratio, std::optional<int64_t> page,
    std::optional<int64_t> sinks, std::optional<int64_t> window,
    std::optional<int64_t> topk, std::optional<int64_t> recall,
    std::optional<int64_t> tokens) {
  if (failed(verifyBudgetKeys(emitError, "arkvale", budget, ratio)))
    return failure();
  // A page of one token would be a token-level selection, which the paged
  // lowering (indices in pages, one ranking per layer) does not make; it
  // failed in kv.gather_store's verifier (R17).
  if (page && *page < 2)
    return emitError() << "arkvale page must be >= 2 tokens (a one-token "
                          "page is a token-level selection: snapkv, h2o), "
                          "got "
                       << *page;
  if (sinks && *sinks < 0)
    return emitError() << "arkvale sinks must be >= 0 pages, got " << *sinks;
  if (window && *window <= 0)
    return emitError() << "arkvale window must be > 0 pages, got " << *window;
  if (topk && *topk <= 0)
    return emitError() << "arkvale topk must be > 0 pages, got " << *topk;
  if (recall && *recall <= 0)
    return emitError() << "arkvale recall must be > 0 pages per step, got "
                       << *recall;
  if (topk && recall && *recall > *topk)
    return emitError() << "arkvale recall (" << *recall
                       << " pages per step) exceeds topk (" << *topk
                       << "): only chosen pages are recalled";
  int64_t p = page.value_or(kDefaultPage);
  if (budget && *budget % p != 0)
    return emitError() << "arkvale budget (" << *budget
                       << " tokens) must be a whole number of " << p
                       << "-token pages";
  if (budget && sinks && window && topk &&
      (CheckedInt(*sinks) + *window + *topk).get().value_or(INT64_MAX) >
          *budget / p)
    return emitError() << "arkvale sinks + window + topk (" << *sinks << " + "
                       << *window << " + " << *topk
                       << " pages) exceed the budget of " << *budget / p
                       << " pages";
  if (tokens && *tokens <= 0)
    return emitError() << "arkvale tokens (the context) must be > 0, got "
                       << *tokens;
  if (budget && tokens && *budget > *tokens)
    return emitError() << "arkvale budget (" << *budget
                       << " tokens) exceeds the context (" << *tokens << ")";
  return success();
}

int64_t ArkValePolicyAttr::getSlotsFor(int64_t contextTokens) const {
  int64_t slots = budgetSlots(getBudget(), getRatio(), contextTokens);
  int64_t page = getPageTokens();
  // A budget from a ratio rounds up to whole pages.
  return (ceilDiv(CheckedInt(slots), page) * page).get().value_or(0);
}
bool ArkValePolicyAttr::isCompressing() const { return true; }
int64_t ArkValePolicyAttr::getSinkTokens() const {
  return getSinks().value_or(kDefaultSinks) * getPageTokens();
}
int64_t ArkValePolicyAttr::getRecentTokens() const {
  return getWindow().value_or(kDefaultWindow) * getPageTokens();
}
bool ArkValePolicyAttr::isResolved() const {
  return getBudget() && !getRatio() && getPage() && getSinks() && getWindow() &&
         getTopk() && getRecall() && getTokens();
}
bool ArkValePolicyAttr::selectsAtPrefill() const { return true; }
int64_t ArkValePolicyAttr::getPageTokens() const {
  return getPage().value_or(kDefaultPage);
}
int64_t ArkValePolicyAttr::getBackupTokens() const {
  if (!getTokens())
    return 0;
  int64_t page = getPageTokens();
  return (ceilDiv(CheckedInt(*getTokens()), page) * page).get().value_or(0);
}
int64_t ArkValePolicyAttr::getDigestBytes(Type cache) const {
  // Two vectors (c - r, c + r) of the page's key channels, in the cache's
  // element type (the official digests share the K/V pool's dtype).
  auto c = llvm::cast<KVCacheTypeInterface>(cache);
  int64_t elementBytes = (c.getDtype().getIntOrFloatBitWidth() + 7) / 8;
  return (CheckedInt(2) * getKeyWidth(cache) * elementBytes).get().value_or(0);
}

/// kv.page_score of the first `pages` digests of layer `layer` with the
/// last of `query`'s tokens, then kv.topk of `k` pages outside the policy's
/// sinks and window: the chosen pages, tensor<batch x 1 x k x i32>.
static Value choosePages(ArkValePolicyAttr policy, OpBuilder &b, Location loc,
                         Value query, Value cache, int64_t layer, int64_t heads,
                         int64_t batch, int64_t pages, int64_t k) {
  auto scoreType = RankedTensorType::get({batch, 1, pages}, b.getF32Type());
  Value scores = b.create<PageScoreOp>(loc, scoreType, query, cache,
                                       b.getI64IntegerAttr(layer),
                                       b.getI64IntegerAttr(heads));
  auto indexType = RankedTensorType::get({batch, 1, k}, b.getI32Type());
  return b.create<TopKOp>(loc, indexType, scores, b.getI64IntegerAttr(k),
                          b.getI64IntegerAttr(*policy.getSinks()),
                          b.getI64IntegerAttr(*policy.getWindow()));
}

KVPolicyAttrInterface ArkValePolicyAttr::resolveFor(
    int64_t contextTokens, function_ref<InFlightDiagnostic()> emitError) const {
  if (contextTokens <= 0) {
    emitError() << "context must be > 0 tokens, got " << contextTokens;
    return {};
  }
  int64_t page = getPageTokens();
  int64_t budget = getSlotsFor(contextTokens);
  if (budget > contextTokens) {
    emitError() << "KV budget of " << budget << " tokens exceeds the context "
                << "of " << contextTokens
                << " tokens; use --kv full for contexts that fit";
    return {};
  }
  int64_t pages = budget / page;
  int64_t sinks = getSinks().value_or(kDefaultSinks);
  int64_t window = getWindow().value_or(kDefaultWindow);
  // page_topks counts the sinks and all but one window page; at most the
  // budget's pages outside the sinks and window.
  int64_t topk = getTopk().value_or(
      std::clamp<int64_t>(kDefaultTopK - sinks - (window - 1), 1,
                          std::max<int64_t>(1, pages - sinks - window)));
  int64_t recall = getRecall().value_or(std::min(kDefaultRecall, topk));
  auto some = [](int64_t v) { return std::optional<int64_t>(v); };
  return getChecked(emitError, getContext(), some(budget),
                    std::optional<int64_t>(), some(page), some(sinks),
                    some(window), some(topk), some(recall),
                    some(contextTokens));
}

Selection
ArkValePolicyAttr::buildPrefillSelection(OpBuilder &b, Location loc,
                                         const SelectionInputs &in) const {
  // The prompt's full pages, scored by their digests with the last prompt
  // query; the budget's pages outside sinks and window are the best.
  int64_t page = getPageTokens();
  int64_t k = in.slots / page - *getSinks() - *getWindow();
  return {choosePages(*this, b, loc, in.queries, in.cache, in.layer, in.heads,
                      in.batch, in.prompt / page, k),
          Value()};
}

Value ArkValePolicyAttr::buildDecodeRecall(OpBuilder &b, Location loc,
                                           const RecallInputs &in) const {
  // Score every backed-up page, choose the top pages (sinks and window
  // kept), recall the provisioned share of them from DDR.
  auto cache = llvm::cast<KVCacheTypeInterface>(in.cache.getType());
  Value indices = choosePages(*this, b, loc, in.query, in.cache, in.layer,
                              in.heads, cache.getBatch(),
                              getBackupTokens() / getPageTokens(), *getTopk());
  return b.create<RecallOp>(loc, in.cache.getType(), in.cache, indices,
                            b.getI64IntegerAttr(in.layer),
                            b.getI64IntegerAttr(*getRecall()));
}

StringRef ArkValePolicyAttr::getUsage() {
  return "ArkVale: pages backed up to DDR, recalled by digest score\n"
         "keys: budget | ratio, page (32), sinks (1), window (2), topk (30), "
         "recall (min(10, topk)), tokens (the context)";
}
