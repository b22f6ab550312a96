//===- KVDialect.cpp - kv dialect: caches, policies and ops ---------------===//
//
// Verifiers and costs of the kv dialect. A cache's slot count is static; under
// a compressing policy it equals the policy's budget, and the ops that fill it
// (append at decode, gather_store at the end of prefill) check that the tokens
// they write fit the regions the policy defines.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

#include "snapflow/Dialect/KV/IR/KVAttrInterfaces.cpp.inc"
#include "snapflow/Dialect/KV/IR/KVDialect.cpp.inc"
#include "snapflow/Dialect/KV/IR/KVEnums.cpp.inc"
#include "snapflow/Dialect/KV/IR/KVTypeInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "snapflow/Dialect/KV/IR/KVAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "snapflow/Dialect/KV/IR/KVTypes.cpp.inc"
#define GET_OP_CLASSES
#include "snapflow/Dialect/KV/IR/KVOps.cpp.inc"

LogicalResult KVDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name != PolicyAttrHelper::getNameStr() &&
      name != FormatAttrHelper::getNameStr())
    return op->emitError() << "unknown attribute '" << name
                           << "'; the kv dialect declares kv.policy and "
                              "kv.format";
  auto text = dyn_cast<StringAttr>(attr.getValue());
  if (!text || text.empty() || !isa<ModuleOp>(op))
    return op->emitError() << "'" << name
                           << "' must be a non-empty string on the module, "
                              "got "
                           << attr.getValue();
  return success();
}

static KVDialect *dialectOf(Operation *op) {
  return op->getContext()->getOrLoadDialect<KVDialect>();
}

void snapflow::kv::setApplied(Operation *module, StringRef policy,
                              StringRef format) {
  Builder b(module->getContext());
  dialectOf(module)->getPolicyAttrHelper().setAttr(module,
                                                   b.getStringAttr(policy));
  dialectOf(module)->getFormatAttrHelper().setAttr(module,
                                                   b.getStringAttr(format));
}

std::pair<std::string, std::string>
snapflow::kv::getApplied(Operation *module) {
  StringAttr policy = dialectOf(module)->getPolicyAttrHelper().getAttr(module);
  StringAttr format = dialectOf(module)->getFormatAttrHelper().getAttr(module);
  return {policy ? policy.str() : "", format ? format.str() : ""};
}

void KVDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "snapflow/Dialect/KV/IR/KVAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "snapflow/Dialect/KV/IR/KVTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "snapflow/Dialect/KV/IR/KVOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Cache types
//===----------------------------------------------------------------------===//

static LogicalResult
verifyCacheCommon(function_ref<InFlightDiagnostic()> emitError, int64_t layers,
                  int64_t batch, int64_t slots, Type dtype,
                  KVPolicyAttrInterface policy, CheckedInt valuesPerToken,
                  int64_t groups, KVFormatAttrInterface format,
                  const CacheShape &shape, int64_t seqShards = 1) {
  if (layers <= 0 || batch <= 0 || slots <= 0)
    return emitError() << "cache layers, batch and slots must be > 0, got "
                       << layers << ", " << batch << ", " << slots;
  if (!dtype || !dtype.isIntOrFloat())
    return emitError() << "cache dtype must be an integer or float type";
  if (!policy)
    return emitError() << "cache policy must be a kv policy attribute";
  if (!policy.isResolved())
    return emitError() << "cache policy " << policy
                       << " is not resolved; a cache holds a policy with "
                          "every number fixed (kv-compress resolves it for "
                          "the context)";
  if (seqShards < 1)
    return emitError() << "seq_shards must be >= 1, got " << seqShards;
  if (format) {
    if (!format.isResolved())
      return emitError() << "cache format " << format
                         << " is not resolved; a cache holds a format with "
                            "every number fixed";
    if (failed(format.verifyFor(shape, emitError)))
      return failure();
  }
  std::optional<int64_t> checkedTotal = (CheckedInt(slots) * seqShards).get();
  if (!checkedTotal)
    return emitError() << "cache slots x seq_shards exceeds a 64-bit count";
  int64_t total = *checkedTotal;
  // Every byte count of the cache (per token, per sequence, in all) must fit
  // in 64 bits, so the cache interface's totals can be read with value().
  CheckedInt slotBytes = valuesPerToken * getElementBytes(dtype) +
                         policy.getSlotStateBytes(groups);
  if ((slotBytes * total * batch * layers).overflowed())
    return emitError() << "cache of " << layers << " layers x " << batch
                       << " sequences x " << total
                       << " slots exceeds a 64-bit byte count";
  // A page backup (DDR) and its digests (HBM, at most twice a page's keys
  // per page) must fit too.
  if (int64_t backup = policy.getBackupTokens(); backup > 0) {
    if (seqShards > 1)
      return emitError() << "the page backup of " << policy
                         << " is not modelled for a cache split by sequence "
                            "(seq_shards "
                         << seqShards << "); replicate the latent cache";
    if ((valuesPerToken * getElementBytes(dtype) * 2 * backup * batch * layers)
            .overflowed())
      return emitError() << "the page backup of " << layers << " layers x "
                         << batch << " sequences x " << backup
                         << " tokens exceeds a 64-bit byte count";
  }
  if (policy.isCompressing() && policy.getSlotsFor(total) != total)
    return emitError() << "cache has " << total
                       << " slots per sequence but its policy keeps "
                       << policy.getSlotsFor(total)
                       << " tokens; a compressed cache has exactly the "
                          "policy's budget";
  return success();
}

LogicalResult CacheType::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t layers, int64_t batch, int64_t slots,
                                int64_t kvHeads, int64_t headDim, Type dtype,
                                KVPolicyAttrInterface policy,
                                KVFormatAttrInterface format) {
  if (kvHeads <= 0 || headDim <= 0)
    return emitError() << "cache kv_heads and head_dim must be > 0, got "
                       << kvHeads << ", " << headDim;
  CacheShape shape;
  if (dtype && dtype.isIntOrFloat() &&
      !(CheckedInt(kvHeads) * headDim * 2).overflowed())
    shape = {kvHeads * headDim, kvHeads * headDim, headDim, 2 * kvHeads,
             dtype.getIntOrFloatBitWidth()};
  return verifyCacheCommon(emitError, layers, batch, slots, dtype, policy,
                           2 * CheckedInt(kvHeads) * headDim, kvHeads, format,
                           shape);
}
int64_t CacheType::getValuesPerToken() const {
  return 2 * getKvHeads() * getHeadDim();
}

LogicalResult
LatentCacheType::verify(function_ref<InFlightDiagnostic()> emitError,
                        int64_t layers, int64_t batch, int64_t slots,
                        int64_t latentDim, int64_t ropeDim, Type dtype,
                        KVPolicyAttrInterface policy, int64_t seqShards,
                        KVFormatAttrInterface format, int64_t batchShards) {
  if (batchShards < 1)
    return emitError() << "batch_shards must be >= 1, got " << batchShards;
  if (batchShards > 1 && seqShards > 1)
    return emitError() << "a latent cache is split by sequence or by batch, "
                          "not both (seq_shards "
                       << seqShards << ", batch_shards " << batchShards << ")";
  if (latentDim <= 0 || ropeDim < 0)
    return emitError() << "latent cache latent_dim must be > 0 and rope_dim "
                          ">= 0, got "
                       << latentDim << ", " << ropeDim;
  CacheShape shape;
  if (dtype && dtype.isIntOrFloat() &&
      !(CheckedInt(latentDim) + ropeDim).overflowed())
    shape = {latentDim + ropeDim, 0, latentDim, 1,
             dtype.getIntOrFloatBitWidth()};
  return verifyCacheCommon(emitError, layers, batch, slots, dtype, policy,
                           CheckedInt(latentDim) + ropeDim, /*groups=*/1,
                           format, shape, seqShards);
}
int64_t LatentCacheType::getValuesPerToken() const {
  return getLatentDim() + getRopeDim();
}

//===----------------------------------------------------------------------===//
// Op helpers
//===----------------------------------------------------------------------===//

namespace {
/// Width of one per-token tensor stored in the cache, and how many there are:
/// (k, v) of kv_heads*head_dim for GQA, (latent) of latent+rope for MLA.
struct CacheLayout {
  int64_t numValues;
  int64_t width;
};
} // namespace

static CacheLayout getLayout(KVCacheTypeInterface cache) {
  if (auto gqa = dyn_cast<CacheType>(cache))
    return {2, gqa.getKvHeads() * gqa.getHeadDim()};
  auto mla = cast<LatentCacheType>(cache);
  return {1, mla.getLatentDim() + mla.getRopeDim()};
}

/// Checks that `values` are the per-token tensors of `cache`: the right number,
/// each `tensor<batch x tokens x width x dtype>` with the same token count.
/// Returns the token count, or -1 after emitting an error.
static int64_t verifyCacheValues(Operation *op, KVCacheTypeInterface cache,
                                 TypeRange values, StringRef what) {
  CacheLayout layout = getLayout(cache);
  if (static_cast<int64_t>(values.size()) != layout.numValues) {
    op->emitOpError() << "expects " << layout.numValues << " " << what
                      << " tensor(s) for " << cache << ", got "
                      << values.size();
    return -1;
  }
  int64_t tokens = -1;
  for (Type t : values) {
    auto tensor = cast<RankedTensorType>(t);
    if (tensor.getRank() != 3 || !tensor.hasStaticShape()) {
      op->emitOpError() << what << " must be tensor<batch x tokens x "
                        << layout.width << ">, got " << t;
      return -1;
    }
    if (tensor.getDimSize(0) != cache.getBatch() ||
        tensor.getDimSize(2) != layout.width) {
      op->emitOpError() << what << " " << t << " does not match the cache: "
                        << "expected batch " << cache.getBatch()
                        << " and width " << layout.width;
      return -1;
    }
    if (tensor.getElementType() != cache.getDtype()) {
      op->emitOpError() << what << " element type " << tensor.getElementType()
                        << " does not match the cache dtype "
                        << cache.getDtype();
      return -1;
    }
    if (tokens >= 0 && tensor.getDimSize(1) != tokens) {
      op->emitOpError() << what << " tensors disagree on the token count";
      return -1;
    }
    tokens = tensor.getDimSize(1);
  }
  return tokens;
}

static LogicalResult verifyLayer(Operation *op, KVCacheTypeInterface cache,
                                 int64_t layer) {
  if (layer < 0 || layer >= cache.getLayers())
    return op->emitOpError()
           << "layer " << layer << " is out of range for a cache of "
           << cache.getLayers() << " layers";
  return success();
}

//===----------------------------------------------------------------------===//
// AppendOp
//===----------------------------------------------------------------------===//

LogicalResult AppendOp::verify() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  if (failed(verifyLayer(*this, cache, getLayer())))
    return failure();
  int64_t tokens =
      verifyCacheValues(*this, cache, getValues().getTypes(), "appended");
  if (tokens < 0)
    return failure();
  KVPolicyAttrInterface policy = cache.getPolicy();
  int64_t room =
      policy.isCompressing() ? policy.getRecentTokens() : cache.getSlots();
  if (tokens > room)
    return emitOpError() << "appends " << tokens << " tokens but the "
                         << (policy.isCompressing() ? "recent ring" : "cache")
                         << " holds only " << room;
  return success();
}
CheckedInt AppendOp::getFlops() { return 0; }
CheckedInt AppendOp::getBytesRead() { return getTotalBytes(getValues()); }
CheckedInt AppendOp::getBytesWritten() { return getTotalBytes(getValues()); }

//===----------------------------------------------------------------------===//
// ReadOp
//===----------------------------------------------------------------------===//

LogicalResult ReadOp::verify() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  if (failed(verifyLayer(*this, cache, getLayer())))
    return failure();
  int64_t tokens =
      verifyCacheValues(*this, cache, getValues().getTypes(), "result");
  if (tokens < 0)
    return failure();
  if (getStaged() < 0)
    return emitOpError() << "staged must be >= 0, got " << getStaged();
  if (getStaged() > 0) {
    if (tokens != getStaged())
      return emitOpError() << "reads " << tokens << " tokens but "
                           << getStaged() << " are staged";
    return success();
  }
  if (tokens != cache.getSlots())
    return emitOpError() << "reads " << tokens << " tokens but the cache has "
                         << cache.getSlots() << " slots";
  return success();
}
CheckedInt ReadOp::getFlops() { return 0; }
CheckedInt ReadOp::getBytesRead() { return getTotalBytes(getValues()); }
CheckedInt ReadOp::getBytesWritten() { return 0; }

//===----------------------------------------------------------------------===//
// ScoreOp
//===----------------------------------------------------------------------===//

ScoreOp::Dims ScoreOp::getDims() {
  auto q = cast<RankedTensorType>(getQueries().getType());
  auto k = cast<RankedTensorType>(getKeys().getType());
  Dims d{q.getDimSize(2) / getNumHeads(), k.getDimSize(2) / getNumGroups(), 0,
         0};
  if (Value up = getKeyUp()) {
    d.latentDim = cast<RankedTensorType>(up.getType()).getDimSize(1);
    int64_t rope = d.keyDim - d.latentDim;
    d.absorbedDim = d.queryDim - rope;
  }
  return d;
}

LogicalResult ScoreOp::verify() {
  auto q = cast<RankedTensorType>(getQueries().getType());
  auto k = cast<RankedTensorType>(getKeys().getType());
  auto s = cast<RankedTensorType>(getScores().getType());
  int64_t heads = getNumHeads(), groups = getNumGroups();
  if (q.getRank() != 3 || k.getRank() != 3 || s.getRank() != 3)
    return emitOpError("queries, keys and scores must have rank 3");
  if (heads <= 0 || groups <= 0 || heads % groups != 0)
    return emitOpError() << "num_heads (" << heads
                         << ") must be a positive multiple of num_groups ("
                         << groups << ")";
  if (q.getDimSize(2) % heads != 0)
    return emitOpError() << "query width " << q.getDimSize(2)
                         << " is not divisible by num_heads " << heads;
  if (k.getDimSize(2) % groups != 0)
    return emitOpError() << "key width " << k.getDimSize(2)
                         << " is not divisible by num_groups " << groups;
  Dims d = getDims();
  if (Value up = getKeyUp()) {
    auto w = cast<RankedTensorType>(up.getType());
    if (groups != 1)
      return emitOpError("absorbed (MLA) scoring has one group per layer");
    if (w.getRank() != 2 || d.latentDim <= 0 || d.latentDim > d.keyDim ||
        d.absorbedDim <= 0 || w.getDimSize(0) % heads != 0 ||
        w.getDimSize(0) / heads <= d.absorbedDim)
      return emitOpError()
             << "absorb weight " << w << " must be tensor<num_heads*(nope + "
             << "v) x kv_lora_rank> with kv_lora_rank < key width " << d.keyDim
             << " and nope < query width " << d.queryDim;
  } else if (d.queryDim != d.keyDim) {
    return emitOpError() << "query head width " << d.queryDim
                         << " differs from key width " << d.keyDim
                         << "; only absorbed (MLA) scoring may differ";
  }
  if (q.getDimSize(0) != k.getDimSize(0))
    return emitOpError() << "queries have batch " << q.getDimSize(0)
                         << " but keys have batch " << k.getDimSize(0);
  if (k.getDimSize(1) < getObsWindow() || getObsWindow() <= 0)
    return emitOpError() << "prompt of " << k.getDimSize(1)
                         << " tokens is shorter than the observation window ("
                         << getObsWindow() << ")";
  if (q.getDimSize(1) > k.getDimSize(1) || q.getDimSize(1) < getObsWindow())
    return emitOpError() << "queries cover " << q.getDimSize(1)
                         << " tokens but keys cover " << k.getDimSize(1)
                         << "; the queries are the prompt (or its last "
                            "chunk) and at least the observation window";
  if (s.getShape() !=
      ArrayRef<int64_t>{q.getDimSize(0), groups, k.getDimSize(1)})
    return emitOpError() << "scores must be tensor<" << q.getDimSize(0) << "x"
                         << groups << "x" << k.getDimSize(1) << "xf32>";
  if (!s.getElementType().isF32())
    return emitOpError("scores must be f32");
  return success();
}
CheckedInt ScoreOp::getFlops() {
  auto q = cast<RankedTensorType>(getQueries().getType());
  auto k = cast<RankedTensorType>(getKeys().getType());
  CheckedInt b = q.getDimSize(0), w = getObsWindow(), l = k.getDimSize(1);
  Dims d = getDims();
  // The window's queries are the prompt's last w: each sees the l - w keys
  // before the window and, causally, the window's keys up to its own.
  CheckedInt pairs = b * getNumHeads() * (w * (l - w) + w * (w + 1) / 2);
  // Absorption of each window query's non-rotary part into latent space;
  // QK^T (2 per MAC), softmax (max, sub, exp, sum, div: 5) and the sum over
  // window queries and heads (1).
  CheckedInt absorb = 2 * b * w * getNumHeads() * d.absorbedDim * d.latentDim;
  return absorb + pairs * (2 * CheckedInt(d.keyDim) + 6);
}
CheckedInt ScoreOp::getBytesRead() {
  auto q = cast<RankedTensorType>(getQueries().getType());
  CheckedInt windowQueries = CheckedInt(q.getDimSize(0)) * getObsWindow() *
                             q.getDimSize(2) *
                             getElementBytes(q.getElementType());
  CheckedInt bytes = windowQueries + getTensorBytes(getKeys().getType());
  if (Value up = getKeyUp())
    bytes += getTensorBytes(up.getType());
  return bytes;
}
CheckedInt ScoreOp::getBytesWritten() {
  return getTensorBytes(getScores().getType());
}

//===----------------------------------------------------------------------===//
// PoolOp
//===----------------------------------------------------------------------===//

LogicalResult PoolOp::verify() {
  auto s = cast<RankedTensorType>(getScores().getType());
  if (s.getRank() != 3 || !s.getElementType().isF32())
    return emitOpError("scores must be tensor<B x G x L x f32>");
  if (getKernel() <= 0 || getKernel() % 2 == 0)
    return emitOpError() << "kernel must be a positive odd number, got "
                         << getKernel();
  if (getKernel() > s.getDimSize(2))
    return emitOpError() << "kernel " << getKernel() << " is wider than the "
                         << s.getDimSize(2) << " scored tokens";
  return success();
}
CheckedInt PoolOp::getFlops() {
  return getKernel() * snapflow::getNumElements(getScores().getType());
}
CheckedInt PoolOp::getBytesRead() {
  return getTensorBytes(getScores().getType());
}
CheckedInt PoolOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

//===----------------------------------------------------------------------===//
// TopKOp
//===----------------------------------------------------------------------===//

LogicalResult TopKOp::verify() {
  auto s = cast<RankedTensorType>(getScores().getType());
  auto idx = cast<RankedTensorType>(getIndices().getType());
  if (s.getRank() != 3 || !s.getElementType().isF32())
    return emitOpError("scores must be tensor<B x G x L x f32>");
  int64_t k = getK(), sinks = getSinks(), recent = getRecent();
  if (k <= 0 || sinks < 0 || recent < 0)
    return emitOpError() << "k must be > 0 and sinks, recent >= 0";
  int64_t prompt = s.getDimSize(2);
  if (sinks + k + recent > prompt)
    return emitOpError() << "budget sinks + k + recent = " << sinks << " + "
                         << k << " + " << recent << " = " << sinks + k + recent
                         << " exceeds the context of " << prompt
                         << " prompt tokens";
  if (idx.getRank() != 3 || !idx.getElementType().isSignlessInteger(32) ||
      idx.getDimSize(0) != s.getDimSize(0) ||
      idx.getDimSize(1) != s.getDimSize(1) || idx.getDimSize(2) != k)
    return emitOpError() << "indices must be tensor<" << s.getDimSize(0) << "x"
                         << s.getDimSize(1) << "x" << k << "xi32>";
  return success();
}
CheckedInt TopKOp::getFlops() {
  auto s = cast<RankedTensorType>(getScores().getType());
  // A heap selection: about log2(k) comparisons per scored token.
  int64_t logK = static_cast<int64_t>(std::ceil(std::log2(getK() + 1.0)));
  return snapflow::getNumElements(s) * logK;
}
CheckedInt TopKOp::getBytesRead() {
  return getTensorBytes(getScores().getType());
}
CheckedInt TopKOp::getBytesWritten() {
  return getTensorBytes(getIndices().getType());
}

//===----------------------------------------------------------------------===//
// GatherStoreOp
//===----------------------------------------------------------------------===//

LogicalResult GatherStoreOp::verify() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  if (failed(verifyLayer(*this, cache, getLayer())))
    return failure();
  KVPolicyAttrInterface policy = cache.getPolicy();
  if (!policy.isCompressing())
    return emitOpError() << "needs a compressing cache policy, got " << policy;
  int64_t tokens =
      verifyCacheValues(*this, cache, getValues().getTypes(), "prompt");
  if (tokens < 0)
    return failure();
  int64_t budget = cache.getTotalSlots().value();
  if (tokens < budget)
    return emitOpError() << "budget of " << budget
                         << " slots exceeds the context of " << tokens
                         << " prompt tokens; no selection is needed";
  int64_t selected = 0;
  // A paged policy chooses whole pages, one ranking per layer.
  int64_t page = policy.getPageTokens();
  if (Value indices = getIndices()) {
    auto idx = cast<RankedTensorType>(indices.getType());
    int64_t groups = page > 1 ? 1 : getGroups(cache);
    if (idx.getRank() != 3 || !idx.getElementType().isSignlessInteger(32) ||
        idx.getDimSize(0) != cache.getBatch() || idx.getDimSize(1) != groups)
      return emitOpError() << "indices must be tensor<" << cache.getBatch()
                           << "x" << groups << "xKxi32> (one selection per "
                           << (page > 1      ? "layer, in pages"
                               : groups == 1 ? "layer"
                                             : "KV-head group")
                           << ")";
    selected = (CheckedInt(idx.getDimSize(2)) * page).get().value_or(-1);
  }
  CheckedInt kept =
      CheckedInt(policy.getSinkTokens()) + selected + policy.getRecentTokens();
  if (kept.get() != budget)
    return emitOpError() << "sinks + selected + recent = "
                         << kept.get().value_or(-1)
                         << " tokens but the cache has " << budget << " slots";
  bool stateful = policy.getSlotStateBytes(getGroups(cache)) > 0;
  if (stateful && (!getScores() || !getIndices()))
    return emitOpError() << "needs the selection's indices and scores: "
                         << policy << " keeps per-slot state";
  if (!stateful && getScores())
    return emitOpError() << "takes scores only for a policy with per-slot "
                            "state, not "
                         << policy;
  if (Value scores = getScores()) {
    auto t = cast<RankedTensorType>(scores.getType());
    int64_t groups = getGroups(cache);
    if (t.getShape() != ArrayRef<int64_t>{cache.getBatch(), groups, tokens} ||
        !t.getElementType().isF32())
      return emitOpError() << "scores must be tensor<" << cache.getBatch()
                           << "x" << groups << "x" << tokens
                           << "xf32> (one per prompt token and group), got "
                           << t;
  }
  return success();
}
CheckedInt GatherStoreOp::getFlops() {
  // Quantizing the kept tokens, when the cache has a format.
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  return getWriteFlops(cache, cache.getSlots(), /*prefill=*/true);
}
CheckedInt GatherStoreOp::getBytesRead() {
  // The kept tokens' values, at the dtype the prompt computed them in.
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  CheckedInt bytes = cache.getFullBytesPerTokenPerLayer() * cache.getSlots() *
                     cache.getBatch();
  if (Value indices = getIndices())
    bytes += getTensorBytes(indices.getType());
  // The kept tokens' scores, one f32 per slot and group.
  if (getScores())
    bytes +=
        CheckedInt(cache.getBatch()) * getGroups(cache) * cache.getSlots() * 4;
  return bytes;
}
CheckedInt GatherStoreOp::getStateBytesWritten() {
  if (!getScores())
    return 0;
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  return cache.getStateBytesPerSequencePerLayer() * cache.getBatch();
}
CheckedInt GatherStoreOp::getBytesWritten() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  return getWriteBytes(cache, cache.getSlots(), /*prefill=*/true) +
         getStateBytesWritten();
}

//===----------------------------------------------------------------------===//
// EvictOp
//===----------------------------------------------------------------------===//

LogicalResult EvictOp::verify() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  if (failed(verifyLayer(*this, cache, getLayer())))
    return failure();
  KVPolicyAttrInterface policy = cache.getPolicy();
  if (policy.getSlotStateBytes(getGroups(cache)) <= 0)
    return emitOpError() << "needs a policy that evicts by attention (per-"
                            "slot state), got "
                         << policy;
  auto t = cast<RankedTensorType>(getProbs().getType());
  int64_t groups = getGroups(cache);
  if (t.getShape() !=
          ArrayRef<int64_t>{cache.getBatch(), groups, cache.getSlots()} ||
      !t.getElementType().isF32())
    return emitOpError() << "probs must be tensor<" << cache.getBatch() << "x"
                         << groups << "x" << cache.getSlots()
                         << "xf32> (batch x KV-head groups x slots), got " << t;
  return success();
}
StepCost EvictOp::getBatchCost() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  StepCost one = cache.getPolicy().getEvictCost(cache);
  CheckedInt b = cache.getBatch();
  return {(b * one.flops).value(), (b * one.bytesRead).value(),
          (b * one.bytesWritten).value()};
}
CheckedInt EvictOp::getFlops() { return getBatchCost().flops; }
CheckedInt EvictOp::getBytesRead() {
  return getTensorBytes(getProbs().getType()) + getBatchCost().bytesRead;
}
CheckedInt EvictOp::getBytesWritten() { return getBatchCost().bytesWritten; }

//===----------------------------------------------------------------------===//
// Paged backup: PageScoreOp, RecallOp, BackupOp
//===----------------------------------------------------------------------===//

/// Checks that `cache`'s policy keeps a page backup (ArkVale).
static LogicalResult verifyBackedUp(Operation *op, KVCacheTypeInterface cache) {
  if (cache.getPolicy().getBackupTokens() <= 0)
    return op->emitOpError() << "needs a policy that backs pages up (such as "
                                "#kv.arkvale), got "
                             << cache.getPolicy();
  return success();
}

/// Pages of one sequence's backup, per layer.
static int64_t backupPages(KVCacheTypeInterface cache) {
  return cache.getBackupTokensPerSequencePerLayer().value() /
         cache.getPolicy().getPageTokens();
}

LogicalResult PageScoreOp::verify() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  if (failed(verifyLayer(*this, cache, getLayer())) ||
      failed(verifyBackedUp(*this, cache)))
    return failure();
  auto q = cast<RankedTensorType>(getQueries().getType());
  int64_t heads = getNumHeads(), groups = getGroups(cache);
  if (heads <= 0 || heads % groups != 0)
    return emitOpError() << "num_heads (" << heads
                         << ") must be a positive multiple of the cache's "
                         << groups << " KV-head group(s)";
  if (q.getRank() != 3 || q.getDimSize(0) != cache.getBatch() ||
      q.getDimSize(1) < 1 || q.getDimSize(2) % heads != 0)
    return emitOpError() << "queries must be tensor<" << cache.getBatch()
                         << " x T x num_heads*D>, got " << q;
  auto s = cast<RankedTensorType>(getScores().getType());
  int64_t pages = backupPages(cache);
  if (s.getRank() != 3 || s.getDimSize(0) != cache.getBatch() ||
      s.getDimSize(1) != 1 || s.getDimSize(2) < 1 || s.getDimSize(2) > pages ||
      !s.getElementType().isF32())
    return emitOpError() << "scores must be tensor<" << cache.getBatch()
                         << "x1xPxf32> for 1 <= P <= the " << pages
                         << " backed-up pages, got " << s;
  return success();
}
int64_t PageScoreOp::getPages() {
  return cast<RankedTensorType>(getScores().getType()).getDimSize(2);
}
CheckedInt PageScoreOp::getDigestBytesRead() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  return CheckedInt(cache.getBatch()) * getPages() *
         cache.getPolicy().getDigestBytes(cache);
}
CheckedInt PageScoreOp::getFlops() {
  // Per page and query head: q*lo and q*hi (2 Dk), their max (Dk) and the
  // sum (Dk) over the head's Dk key channels; then the mean over heads (one
  // add per head). Dk is a group's key width.
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  int64_t dk = getKeyWidth(cache) / getGroups(cache);
  return CheckedInt(cache.getBatch()) * getPages() * getNumHeads() *
         (CheckedInt(4) * dk + 1);
}
CheckedInt PageScoreOp::getBytesRead() {
  // The last query and every scored digest.
  auto q = cast<RankedTensorType>(getQueries().getType());
  CheckedInt last = CheckedInt(q.getDimSize(0)) * q.getDimSize(2) *
                    getElementBytes(q.getElementType());
  return last + getDigestBytesRead();
}
CheckedInt PageScoreOp::getBytesWritten() {
  return getTensorBytes(getScores().getType());
}

LogicalResult RecallOp::verify() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  if (failed(verifyLayer(*this, cache, getLayer())) ||
      failed(verifyBackedUp(*this, cache)))
    return failure();
  auto idx = cast<RankedTensorType>(getIndices().getType());
  if (idx.getRank() != 3 || idx.getDimSize(0) != cache.getBatch() ||
      idx.getDimSize(1) != 1 || !idx.getElementType().isSignlessInteger(32))
    return emitOpError() << "indices must be tensor<" << cache.getBatch()
                         << "x1xKxi32> (the chosen pages), got " << idx;
  if (getPages() <= 0 || getPages() > idx.getDimSize(2))
    return emitOpError() << "recalls " << getPages()
                         << " pages per step but only " << idx.getDimSize(2)
                         << " are chosen";
  if ((CheckedInt(getPages()) * cache.getPolicy().getPageTokens())
          .get()
          .value_or(INT64_MAX) > cache.getSlots())
    return emitOpError() << "recalls " << getPages()
                         << " pages per step, more than the cache's "
                         << cache.getSlots() << " slots hold";
  return success();
}
CheckedInt RecallOp::getRecalledBytes() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  return CheckedInt(cache.getBatch()) * getPages() *
         cache.getPolicy().getPageTokens() * cache.getBytesPerTokenPerLayer();
}
CheckedInt RecallOp::getFlops() { return 0; }
CheckedInt RecallOp::getBytesRead() {
  return getTensorBytes(getIndices().getType()) + getRecalledBytes();
}
CheckedInt RecallOp::getBytesWritten() { return getRecalledBytes(); }

LogicalResult BackupOp::verify() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  if (failed(verifyLayer(*this, cache, getLayer())) ||
      failed(verifyBackedUp(*this, cache)))
    return failure();
  int64_t tokens =
      verifyCacheValues(*this, cache, getValues().getTypes(), "new token");
  if (tokens < 0)
    return failure();
  if (tokens < 1 || tokens > cache.getBackupTokensPerSequencePerLayer().value())
    return emitOpError() << "backs up " << tokens
                         << " tokens per sequence but the backup holds "
                         << cache.getBackupTokensPerSequencePerLayer().value();
  return success();
}
int64_t BackupOp::getTokens() {
  return cast<RankedTensorType>(getValues().front().getType()).getDimSize(1);
}
CheckedInt BackupOp::getBackupBytesWritten() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  return CheckedInt(cache.getBatch()) * getTokens() *
         cache.getBytesPerTokenPerLayer();
}
CheckedInt BackupOp::getDigestBytesWritten() {
  // B * T / page pages complete per call, on average.
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  return ceilDiv(CheckedInt(cache.getBatch()) * getTokens() *
                     cache.getPolicy().getDigestBytes(cache),
                 cache.getPolicy().getPageTokens());
}
CheckedInt BackupOp::getKeyBytesRead() {
  // A decode step's pages were written over earlier steps: their keys come
  // back from the cache, T tokens' worth per sequence on average. A prefill
  // digests the keys it streams.
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  if (getTokens() >= cache.getPolicy().getPageTokens())
    return 0;
  return CheckedInt(cache.getBatch()) * getTokens() * getKeyWidth(cache) *
         getElementBytes(cache.getDtype());
}
CheckedInt BackupOp::getFlops() {
  // Cuboid-mean per key channel and page of p tokens: max and min (2p),
  // c = (max + min) / 2 (2), |c - k| summed (3p: subtract, abs, add), the
  // mean (1), c - r and c + r (2): 5p + 5. Over B * T tokens that is
  // 5 per token and channel plus 5 per page completed.
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  CheckedInt tokens = CheckedInt(cache.getBatch()) * getTokens();
  CheckedInt pages = ceilDiv(tokens, cache.getPolicy().getPageTokens());
  return CheckedInt(getKeyWidth(cache)) * (tokens * 5 + pages * 5);
}
CheckedInt BackupOp::getBytesRead() {
  return getTotalBytes(getValues()) + getKeyBytesRead();
}
CheckedInt BackupOp::getBytesWritten() {
  return getBackupBytesWritten() + getDigestBytesWritten();
}

//===----------------------------------------------------------------------===//
// Format ops: QuantizeOp, RequantizeOp
//===----------------------------------------------------------------------===//

/// The cache's format, or an error naming the op when it has none.
static KVFormatAttrInterface formatOrError(Operation *op,
                                           KVCacheTypeInterface cache) {
  KVFormatAttrInterface format = cache.getFormat();
  if (!format)
    op->emitOpError() << "needs a cache with a format (#kv.kivi, "
                         "#kv.zipcache, ...), got "
                      << cache;
  return format;
}

LogicalResult QuantizeOp::verify() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  if (failed(verifyLayer(*this, cache, getLayer())) ||
      !formatOrError(*this, cache))
    return failure();
  if (getTokens() <= 0 || getTokens() > cache.getSlots())
    return emitOpError() << "quantizes " << getTokens()
                         << " tokens per sequence; expected 1 to the cache's "
                         << cache.getSlots() << " slots";
  if (getEvery() < 1)
    return emitOpError() << "every must be >= 1 step, got " << getEvery();
  if (Value salient = getSalient()) {
    auto t = cast<RankedTensorType>(salient.getType());
    int64_t groups = getGroups(cache);
    if (t.getRank() != 3 || t.getDimSize(0) != cache.getBatch() ||
        t.getDimSize(1) != groups || t.getDimSize(2) < 1 ||
        t.getDimSize(2) > getTokens())
      return emitOpError() << "salient must be tensor<" << cache.getBatch()
                           << "x" << groups
                           << "xKxi32> with 1 <= K <= " << getTokens()
                           << " (the tokens), got " << t;
    if (getEvery() != 1)
      return emitOpError("a salient set is chosen once, at prefill: every "
                         "must be 1");
  }
  return success();
}
int64_t QuantizeOp::getTokensPerStep() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  return ceilDiv(CheckedInt(cache.getBatch()) * getTokens(), getEvery())
      .value();
}
CheckedInt QuantizeOp::getFlops() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  return CheckedInt(getTokensPerStep()) * cache.getValuesPerToken() *
         cache.getFormat().getQuantizeOps();
}
CheckedInt QuantizeOp::getBytesRead() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  CheckedInt bytes = cache.getFullBytesPerTokenPerLayer() * getTokensPerStep();
  if (Value salient = getSalient())
    bytes += getTensorBytes(salient.getType());
  return bytes;
}
CheckedInt QuantizeOp::getBytesWritten() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  return cache.getBytesPerTokenPerLayer() * getTokensPerStep();
}

LogicalResult RequantizeOp::verify() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  if (failed(verifyLayer(*this, cache, getLayer())) ||
      !formatOrError(*this, cache))
    return failure();
  if (getEvery() < 1)
    return emitOpError() << "every must be >= 1 step, got " << getEvery();
  int64_t heads = getNumHeads(), groups = getGroups(cache);
  if (heads <= 0 || heads % groups != 0)
    return emitOpError() << "num_heads must be a positive multiple of the "
                         << groups << " group(s), got " << heads;
  auto q = cast<RankedTensorType>(getQueries().getType());
  if (q.getRank() != 3 || q.getDimSize(0) != cache.getBatch() ||
      q.getDimSize(1) < 1 || q.getDimSize(2) % heads != 0)
    return emitOpError() << "queries must be tensor<" << cache.getBatch()
                         << " x T x num_heads*D>, got " << q;
  return success();
}
/// ceil(B * x / every): the per-step share of a per-sequence quantity
/// under staggered periods.
static CheckedInt perStep(KVCacheTypeInterface cache, CheckedInt x,
                          int64_t every) {
  return ceilDiv(x * cache.getBatch(), every);
}
CheckedInt RequantizeOp::getStoredBytesRead() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  return perStep(cache,
                 cache.getBytesPerTokenPerLayer() *
                     (cache.getSlots() - cache.getResidualSlots()),
                 getEvery());
}
CheckedInt RequantizeOp::getResidualBytesRead() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  return perStep(
      cache, cache.getFullBytesPerTokenPerLayer() * cache.getResidualSlots(),
      getEvery());
}
CheckedInt RequantizeOp::getStoredBytesWritten() {
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  return perStep(cache, cache.getBytesPerTokenPerLayer() * cache.getSlots(),
                 getEvery());
}
CheckedInt RequantizeOp::getFlops() {
  // Per sequence and period: the last query against every slot's key
  // (q.k at 2 per MAC over a group's Dk channels, softmax 5, the group sum
  // 1, per query head), dequantizing the quantized slots and quantizing
  // every slot again.
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  KVFormatAttrInterface format = cache.getFormat();
  int64_t dk = getKeyWidth(cache) / getGroups(cache);
  int64_t slots = cache.getSlots(), values = cache.getValuesPerToken();
  CheckedInt saliency =
      CheckedInt(getNumHeads()) * slots * (CheckedInt(2) * dk + 6);
  CheckedInt dequant = CheckedInt(slots - cache.getResidualSlots()) * values *
                       format.getDequantizeOps();
  CheckedInt quant = CheckedInt(slots) * values * format.getQuantizeOps();
  return perStep(cache, saliency + dequant + quant, getEvery());
}
CheckedInt RequantizeOp::getBytesRead() {
  // The last query of each sequence re-quantized this step, and its cache.
  auto q = cast<RankedTensorType>(getQueries().getType());
  auto cache = cast<KVCacheTypeInterface>(getCache().getType());
  CheckedInt query = perStep(
      cache, CheckedInt(q.getDimSize(2)) * getElementBytes(q.getElementType()),
      getEvery());
  return query + getStoredBytesRead() + getResidualBytesRead();
}
CheckedInt RequantizeOp::getBytesWritten() { return getStoredBytesWritten(); }

//===----------------------------------------------------------------------===//
// Upkeep: which kv ops are a policy's or format's per-step work
//===----------------------------------------------------------------------===//

// The storage ops (append, read, and gather_store, which writes the tokens a
// selection kept) move K/V any cache moves: no upkeep.
#define KV_STORAGE_OP(Op)                                                      \
  CheckedInt Op::getKVUpkeepFlops() { return 0; }                              \
  CheckedInt Op::getKVUpkeepBytes() { return 0; }
// The ops a policy or format emits (scoring, selection, eviction, recall,
// backup, quantization) are its upkeep, all of their cost.
#define KV_UPKEEP_OP(Op)                                                       \
  CheckedInt Op::getKVUpkeepFlops() { return getFlops(); }                     \
  CheckedInt Op::getKVUpkeepBytes() {                                          \
    return getBytesRead() + getBytesWritten();                                 \
  }
KV_STORAGE_OP(AppendOp)
KV_STORAGE_OP(ReadOp)
KV_STORAGE_OP(GatherStoreOp)
KV_UPKEEP_OP(ScoreOp)
KV_UPKEEP_OP(PoolOp)
KV_UPKEEP_OP(TopKOp)
KV_UPKEEP_OP(EvictOp)
KV_UPKEEP_OP(PageScoreOp)
KV_UPKEEP_OP(RecallOp)
KV_UPKEEP_OP(BackupOp)
KV_UPKEEP_OP(QuantizeOp)
KV_UPKEEP_OP(RequantizeOp)
#undef KV_STORAGE_OP
#undef KV_UPKEEP_OP
