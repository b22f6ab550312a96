//===- LLMDialect.cpp - llm dialect: verifiers and costs ------------------===//
//
// Shape rules and the FLOPs/bytes model of every llm op. Conventions (also in
// docs/Dialects/LLM.md): a multiply-accumulate is 2 FLOPs; softmax is 5 FLOPs
// per score; SiLU-and-gate is 5 FLOPs per intermediate element; weights are
// read once per execution; intermediates inside a block (attention scores, the
// MLP's hidden activation) stay on chip and cost no memory traffic.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/LLM/IR/LLMOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace snapflow;
using namespace snapflow::llm;

#include "snapflow/Dialect/LLM/IR/LLMDialect.cpp.inc"
#include "snapflow/Dialect/LLM/IR/LLMEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "snapflow/Dialect/LLM/IR/LLMAttrs.cpp.inc"
#define GET_OP_CLASSES
#include "snapflow/Dialect/LLM/IR/LLMOps.cpp.inc"

void LLMDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "snapflow/Dialect/LLM/IR/LLMAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "snapflow/Dialect/LLM/IR/LLMOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

FailureOr<arch::Phase> snapflow::llm::parsePhaseKeyword(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  if (std::optional<arch::Phase> phase = arch::parsePhase(keyword))
    return *phase;
  return parser.emitError(loc)
         << "unknown phase '" << keyword << "'; expected prefill or decode";
}

LogicalResult WorkloadAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   arch::Phase phase, int64_t batch,
                                   int64_t tokens, int64_t mtpDepth,
                                   llvm::APFloat mtpAcceptance, int64_t chunks,
                                   int64_t blockTokens) {
  double p = mtpAcceptance.convertToDouble();
  if (blockTokens < 1)
    return emitError() << "llm.workload block_tokens must be >= 1, got "
                       << blockTokens;
  if (blockTokens > 1 && phase != arch::Phase::Decode)
    return emitError() << "llm.workload: block_tokens (" << blockTokens
                       << ") applies to decode only";
  if (batch < 1 || tokens < 1)
    return emitError() << "llm.workload batch and tokens must be >= 1, got "
                       << batch << " and " << tokens;
  if (mtpDepth < 0)
    return emitError() << "llm.workload mtp_depth must be >= 0, got "
                       << mtpDepth;
  if (mtpDepth > 0 && phase != arch::Phase::Decode)
    return emitError() << "llm.workload: MTP speculation (mtp_depth "
                       << mtpDepth << ") applies to decode only";
  if (!(p >= 0.0 && p <= 1.0))
    return emitError() << "llm.workload mtp_acceptance must be in [0, 1], got "
                       << p;
  if (chunks < 1)
    return emitError() << "llm.workload chunks must be >= 1, got " << chunks;
  if (chunks > 1 && phase != arch::Phase::Prefill)
    return emitError() << "llm.workload: chunks (" << chunks
                       << ") applies to prefill only";
  if (chunks > tokens)
    return emitError() << "llm.workload: " << chunks
                       << " chunks of a prompt of " << tokens
                       << " tokens leave a chunk empty";
  return success();
}

double WorkloadAttr::getTokensPerStep() const {
  double p = getMtpAcceptance().convertToDouble(), tokens = 0, term = 1;
  for (int64_t i = 0; i <= getMtpDepth(); ++i, term *= p)
    tokens += term;
  return tokens * static_cast<double>(getBlockTokens());
}

LogicalResult LLMDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  Attribute value = attr.getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitError() << "'" << name << "' must be " << what << ", got "
                           << value;
  };
  auto i64 = [&](int64_t min) {
    auto i = dyn_cast<IntegerAttr>(value);
    return i && i.getType().isInteger(64) && i.getInt() >= min;
  };
  if (name == WorkloadAttrHelper::getNameStr())
    return expect(isa<WorkloadAttr>(value), "a #llm.workload");
  if (name == ModelAttrHelper::getNameStr() ||
      name == ModelTypeAttrHelper::getNameStr() ||
      name == ModelFingerprintAttrHelper::getNameStr())
    return expect(isa<StringAttr>(value) && isa<ModuleOp>(op),
                  "a string on the module");
  if (name == WeightsDtypeAttrHelper::getNameStr()) {
    auto s = dyn_cast<StringAttr>(value);
    return expect(s && (s.getValue() == "bf16" || s.getValue() == "fp8") &&
                      isa<ModuleOp>(op),
                  "\"bf16\" or \"fp8\" on the module");
  }
  if (name == TpAttrHelper::getNameStr())
    return expect(i64(1) && isa<ModuleOp>(op),
                  "a group size >= 1 (i64) on the module");
  if (name == LayerAttrHelper::getNameStr())
    return expect(i64(0), "a layer index >= 0 (i64)");
  return op->emitError() << "unknown attribute '" << name
                         << "'; the llm dialect declares llm.workload, "
                            "llm.model, llm.model_type, llm.model_fingerprint, "
                            "llm.weights_dtype, llm.tp and llm.layer";
}

static LLMDialect *dialectOf(Operation *op) {
  return op->getContext()->getOrLoadDialect<LLMDialect>();
}

WorkloadAttr snapflow::llm::getWorkload(Operation *op) {
  return dialectOf(op)->getWorkloadAttrHelper().getAttr(op);
}
void snapflow::llm::setWorkload(Operation *op, WorkloadAttr workload) {
  dialectOf(op)->getWorkloadAttrHelper().setAttr(op, workload);
}
std::optional<int64_t> snapflow::llm::getLayer(Operation *op) {
  if (IntegerAttr a = dialectOf(op)->getLayerAttrHelper().getAttr(op))
    return a.getInt();
  return std::nullopt;
}
void snapflow::llm::setLayer(Operation *op, int64_t layer) {
  dialectOf(op)->getLayerAttrHelper().setAttr(
      op, Builder(op->getContext()).getI64IntegerAttr(layer));
}
void snapflow::llm::copyLayerMarker(Operation *from, Operation *to) {
  if (std::optional<int64_t> layer = getLayer(from))
    setLayer(to, *layer);
}
int64_t snapflow::llm::getTensorParallelism(Operation *op) {
  ModuleOp module =
      isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  if (!module)
    return 1;
  IntegerAttr tp = dialectOf(module)->getTpAttrHelper().getAttr(module);
  return tp ? tp.getInt() : 1;
}
/// Calls `f` with `op` as a GQA or MLA attention, if it is one.
template <typename F> static void withAttention(Operation *op, F &&f) {
  if (auto a = dyn_cast<AttentionOp>(op))
    f(a);
  else if (auto a = dyn_cast<MLAAttentionOp>(op))
    f(a);
}

int64_t snapflow::llm::getPrefix(Operation *op) {
  int64_t prefix = 0;
  withAttention(op, [&](auto a) { prefix = a.getPrefix(); });
  return prefix;
}

bool snapflow::llm::writesKV(Operation *op) {
  bool writes = false;
  withAttention(op, [&](auto a) { writes = !a.getReuseKv(); });
  return writes;
}

CheckedInt snapflow::llm::getPrefixFlops(Operation *op) {
  CheckedInt flops = 0;
  withAttention(op, [&](auto a) { flops = a.getPrefixFlops(); });
  return flops;
}

int64_t snapflow::llm::getStagedPromptSlots(Operation *fn) {
  WorkloadAttr w = getWorkload(fn);
  if (!w || w.getChunks() <= 1)
    return 0;
  int64_t chunkTokens = 0;
  kv::KVCacheTypeInterface cache;
  fn->walk([&](Operation *op) {
    withAttention(op, [&](auto a) {
      chunkTokens =
          cast<RankedTensorType>(a.getQuery().getType()).getDimSize(1);
      cache = cast<kv::KVCacheTypeInterface>(a.getCache().getType());
    });
  });
  if (!cache || !cache.getPolicy().isCompressing() ||
      w.getTokens() <= cache.getTotalSlots().value())
    return 0;
  // Each socket of a sequence-split cache stages its share of the tokens.
  return w.getChunks() * chunkTokens / cache.getSeqShards();
}

void snapflow::llm::setTensorParallelism(Operation *module, int64_t tp) {
  dialectOf(module)->getTpAttrHelper().setAttr(
      module, Builder(module->getContext()).getI64IntegerAttr(tp));
}
void snapflow::llm::setModel(Operation *module, StringRef name,
                             StringRef modelType, StringRef fingerprint,
                             StringRef weightsDtype) {
  Builder b(module->getContext());
  LLMDialect *d = dialectOf(module);
  d->getModelAttrHelper().setAttr(module, b.getStringAttr(name));
  d->getModelTypeAttrHelper().setAttr(module, b.getStringAttr(modelType));
  d->getModelFingerprintAttrHelper().setAttr(module,
                                             b.getStringAttr(fingerprint));
  d->getWeightsDtypeAttrHelper().setAttr(module, b.getStringAttr(weightsDtype));
}

std::string snapflow::llm::getModelName(Operation *module) {
  StringAttr a = dialectOf(module)->getModelAttrHelper().getAttr(module);
  return a ? a.str() : std::string();
}

std::string snapflow::llm::getModelFingerprint(Operation *module) {
  StringAttr a =
      dialectOf(module)->getModelFingerprintAttrHelper().getAttr(module);
  return a ? a.str() : std::string();
}

std::string snapflow::llm::getWeightsDtype(Operation *module) {
  StringAttr a = dialectOf(module)->getWeightsDtypeAttrHelper().getAttr(module);
  return a ? a.str() : std::string();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static RankedTensorType tensorOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static int64_t lastDim(Value v) {
  RankedTensorType t = tensorOf(v);
  return t.getRank() == 0 ? 1 : t.getDimSize(t.getRank() - 1);
}

/// Elements of a value, checked.
static CheckedInt numElements(Value v) {
  return snapflow::getNumElements(v.getType());
}

/// Rows of an activation: every dimension but the last (B*T), checked.
static CheckedInt rows(Value v) {
  RankedTensorType t = tensorOf(v);
  return t.getRank() == 0 ? CheckedInt(1)
                          : checkedProduct(t.getShape().drop_back());
}

/// Rows of an activation as a GEMM's M (verified shapes fit in 64 bits).
static int64_t gemmRows(Value v) { return rows(v).get().value_or(0); }

static LogicalResult verifyStatic(Operation *op) {
  for (Type t : op->getOperandTypes())
    if (auto s = dyn_cast<ShapedType>(t); s && !s.hasStaticShape())
      return op->emitOpError()
             << "operand type " << t << " must have a static shape";
  for (Type t : op->getResultTypes())
    if (auto s = dyn_cast<ShapedType>(t); s && !s.hasStaticShape())
      return op->emitOpError()
             << "result type " << t << " must have a static shape";
  return success();
}

/// Checks `type` is `tensor<batch x tokens x width>`.
static LogicalResult expectBTW(Operation *op, StringRef what, Value v,
                               int64_t batch, int64_t tokens, int64_t width) {
  RankedTensorType t = tensorOf(v);
  if (t.getRank() != 3 || t.getDimSize(0) != batch ||
      t.getDimSize(1) != tokens || t.getDimSize(2) != width)
    return op->emitOpError()
           << what << " must be tensor<" << batch << "x" << tokens << "x"
           << width << "xT>, got " << v.getType();
  return success();
}

static LogicalResult expectShape(Operation *op, StringRef what, Value v,
                                 ArrayRef<int64_t> shape) {
  if (tensorOf(v).getShape() != shape) {
    std::string dims;
    for (int64_t d : shape)
      dims += std::to_string(d) + "x";
    return op->emitOpError()
           << what << " must be tensor<" << dims << "T>, got " << v.getType();
  }
  return success();
}

static LogicalResult verifyLayerIndex(Operation *op, int64_t layer,
                                      int64_t layers) {
  if (layer < 0 || layer >= layers)
    return op->emitOpError()
           << "layer " << layer << " is out of range for a cache of " << layers
           << " layers";
  return success();
}

/// Whether an attention writes its `tokens` new tokens to HBM itself:
/// always in decode, and in prefill unless a whole prompt overflows a
/// compressed cache (then kv.gather_store writes what is kept). A chunk of a
/// chunked prefill (`prefix` > 0) always does: into the cache, or into the
/// prompt's staging copy the later chunks and the selection read.
static bool writesCache(arch::Phase phase, kv::KVCacheTypeInterface cache,
                        int64_t tokens, int64_t prefix) {
  return phase == arch::Phase::Decode || !cache.getPolicy().isCompressing() ||
         prefix > 0 || tokens <= cache.getTotalSlots().value();
}

/// What an attention over a cache with an element format adds: quantizing
/// the tokens it writes (when the format quantizes on write), dequantizing
/// the stored tokens it reads (the decode's slots, a chunk's prefix) and the
/// format's rotations per query token. 0 without a format.
static CheckedInt formatFlops(Type cacheType, arch::Phase phase, int64_t batch,
                              int64_t tokens, int64_t prefix, int64_t heads,
                              bool writes) {
  auto cache = cast<kv::KVCacheTypeInterface>(cacheType);
  kv::KVFormatAttrInterface format = cache.getFormat();
  if (!format)
    return 0;
  bool prefill = phase == arch::Phase::Prefill;
  CheckedInt flops = CheckedInt(batch) * tokens *
                     format.getRotationFlops(kv::getCacheShape(cache), heads);
  if (writes)
    flops += kv::getWriteFlops(cache, tokens, prefill);
  if (!prefill)
    flops += kv::getReadFlops(cache, cache.getSlots());
  if (prefix > 0)
    flops += kv::getReadFlops(cache, prefix / cache.getSeqShards());
  return flops;
}

/// Causal (query, key) pairs of a prompt of `t` tokens.
static CheckedInt causalPairs(CheckedInt t) { return t * (t + 1) / 2; }

/// A decode attention's optional probabilities: tensor<B x groups x slots x
/// f32>, the softmax over the slots summed over each group's query heads
/// (and the step's queries).
static LogicalResult verifyProbs(Operation *op, Value probs, arch::Phase phase,
                                 int64_t batch, int64_t groups, int64_t slots) {
  if (!probs)
    return success();
  if (phase != arch::Phase::Decode)
    return op->emitOpError()
           << "returns attention probabilities only in decode (a prefill's "
              "scores are kv.score's)";
  auto t = cast<RankedTensorType>(probs.getType());
  if (t.getShape() != ArrayRef<int64_t>{batch, groups, slots} ||
      !t.getElementType().isF32())
    return op->emitOpError() << "probs must be tensor<" << batch << "x"
                             << groups << "x" << slots << "xf32> (batch x "
                             << "KV-head groups x cache slots), got " << t;
  return success();
}

/// Summing the probabilities of `heads` query heads (and `t` queries) per
/// group: one add per head, query and slot.
static CheckedInt probsFlops(Value probs, RankedTensorType q, int64_t heads,
                             int64_t slots) {
  if (!probs)
    return 0;
  return CheckedInt(q.getDimSize(0)) * q.getDimSize(1) * heads * slots;
}

/// A prefix (earlier chunks' tokens) is a prefill's, and not negative.
static LogicalResult verifyPrefix(Operation *op, int64_t prefix,
                                  arch::Phase phase) {
  if (prefix < 0)
    return op->emitOpError() << "prefix must be >= 0, got " << prefix;
  if (prefix > 0 && phase != arch::Phase::Prefill)
    return op->emitOpError() << "a prefix (" << prefix
                             << " tokens of earlier chunks) applies to a "
                                "chunked prefill only";
  return success();
}

//===----------------------------------------------------------------------===//
// ParamOp
//===----------------------------------------------------------------------===//

LogicalResult ParamOp::verify() {
  if (getName().empty())
    return emitOpError("needs a non-empty parameter name");
  return verifyStatic(*this);
}
CheckedInt ParamOp::getFlops() { return 0; }
CheckedInt ParamOp::getBytesRead() { return 0; }
CheckedInt ParamOp::getBytesWritten() { return 0; }

//===----------------------------------------------------------------------===//
// EmbedOp
//===----------------------------------------------------------------------===//

LogicalResult EmbedOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType tokens = tensorOf(getTokens()), table = tensorOf(getTable());
  if (tokens.getRank() != 2)
    return emitOpError() << "tokens must be tensor<batch x tokens>, got "
                         << tokens;
  if (table.getRank() != 2)
    return emitOpError() << "table must be tensor<vocab x hidden>, got "
                         << table;
  if (tensorOf(getResult()).getElementType() != table.getElementType())
    return emitOpError() << "result element type "
                         << tensorOf(getResult()).getElementType()
                         << " does not match the table's "
                         << table.getElementType();
  int64_t g = getTokensPerRow(), t = tokens.getDimSize(1);
  if (g < 1 || t % g != 0)
    return emitOpError() << "tokens_per_row " << g
                         << " must be >= 1 and divide the " << t << " tokens";
  return expectBTW(*this, "result", getResult(), tokens.getDimSize(0), t / g,
                   g * table.getDimSize(1));
}
CheckedInt EmbedOp::getFlops() { return 0; }
CheckedInt EmbedOp::getBytesRead() {
  return numElements(getTokens()) * lastDim(getTable()) *
             getElementBytes(tensorOf(getTable()).getElementType()) +
         getTensorBytes(getTokens().getType());
}
CheckedInt EmbedOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

//===----------------------------------------------------------------------===//
// RMSNormOp, AddOp, RopeOp
//===----------------------------------------------------------------------===//

LogicalResult RMSNormOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  if (tensorOf(getWeight()).getRank() != 1 ||
      lastDim(getWeight()) != lastDim(getInput()))
    return emitOpError() << "weight must be tensor<" << lastDim(getInput())
                         << "xT>, got " << getWeight().getType();
  if (getEps().convertToDouble() <= 0)
    return emitOpError("eps must be > 0");
  return success();
}
CheckedInt RMSNormOp::getFlops() { return 4 * numElements(getInput()); }
CheckedInt RMSNormOp::getBytesRead() {
  return getTensorBytes(getInput().getType()) +
         getTensorBytes(getWeight().getType());
}
CheckedInt RMSNormOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

LogicalResult LayerNormOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  for (auto [what, w] : {std::pair<StringRef, Value>{"weight", getWeight()},
                         {"bias", getBias()}})
    if (tensorOf(w).getRank() != 1 || lastDim(w) != lastDim(getInput()))
      return emitOpError() << what << " must be tensor<" << lastDim(getInput())
                           << "xT>, got " << w.getType();
  if (getEps().convertToDouble() <= 0)
    return emitOpError("eps must be > 0");
  return success();
}
// Per element: the mean's add, the variance's subtract, square and add,
// normalising (subtract, multiply by the reciprocal root) and the affine
// multiply and add: 8.
CheckedInt LayerNormOp::getFlops() { return 8 * numElements(getInput()); }
CheckedInt LayerNormOp::getBytesRead() {
  return getTotalBytes(ValueRange{getInput(), getWeight(), getBias()});
}
CheckedInt LayerNormOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

CheckedInt AddOp::getFlops() { return numElements(getResult()); }
CheckedInt AddOp::getBytesRead() {
  return 2 * getTensorBytes(getResult().getType());
}
CheckedInt AddOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

LogicalResult RopeOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t heads = getNumHeads(), headDim = getHeadDim(), rot = getRotaryDim();
  if (heads <= 0 || headDim <= 0)
    return emitOpError("num_heads and head_dim must be > 0");
  if (lastDim(getInput()) != heads * headDim)
    return emitOpError() << "input width " << lastDim(getInput())
                         << " must be num_heads x head_dim = " << heads << " x "
                         << headDim;
  if (rot <= 0 || rot > headDim || rot % 2 != 0)
    return emitOpError() << "rotary_dim " << rot
                         << " must be even and in (0, head_dim = " << headDim
                         << "]";
  return success();
}
CheckedInt RopeOp::getFlops() {
  // Each rotated pair: 4 multiplies and 2 adds, i.e. 3 FLOPs per element.
  return 3 * rows(getInput()) * getNumHeads() * getRotaryDim();
}
CheckedInt RopeOp::getBytesRead() {
  return getTensorBytes(getInput().getType());
}
CheckedInt RopeOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

//===----------------------------------------------------------------------===//
// LinearOp, MLPOp, MoEOp
//===----------------------------------------------------------------------===//

LogicalResult LinearOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType w = tensorOf(getWeight());
  if (w.getRank() != 2)
    return emitOpError() << "weight must be tensor<out x in>, got " << w;
  if (w.getDimSize(1) != lastDim(getInput()))
    return emitOpError() << "weight " << w << " does not take inputs of width "
                         << lastDim(getInput());
  RankedTensorType in = tensorOf(getInput()), out = tensorOf(getResult());
  if (out.getRank() != in.getRank() ||
      out.getShape().drop_back() != in.getShape().drop_back() ||
      lastDim(getResult()) != w.getDimSize(0))
    return emitOpError() << "result must be the input shape with width "
                         << w.getDimSize(0) << ", got " << out;
  if (Value bias = getBias())
    if (failed(expectShape(*this, "bias", bias, {w.getDimSize(0)})))
      return failure();
  return success();
}
CheckedInt LinearOp::getFlops() {
  CheckedInt flops =
      2 * rows(getInput()) * lastDim(getInput()) * lastDim(getResult());
  if (getBias())
    flops += numElements(getResult());
  return flops;
}
int64_t LinearOp::getGemmRows() { return gemmRows(getInput()); }
CheckedInt LinearOp::getBytesRead() {
  CheckedInt bytes = getTensorBytes(getInput().getType()) +
                     getTensorBytes(getWeight().getType());
  if (Value bias = getBias())
    bytes += getTensorBytes(bias.getType());
  return bytes;
}
CheckedInt LinearOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

LogicalResult MLPOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t h = lastDim(getInput());
  RankedTensorType g = tensorOf(getGate());
  if (g.getRank() != 2 || g.getDimSize(1) != h)
    return emitOpError() << "gate must be tensor<I x " << h << ">, got " << g;
  int64_t i = g.getDimSize(0);
  return failure(failed(expectShape(*this, "up", getUp(), {i, h})) ||
                 failed(expectShape(*this, "down", getDown(), {h, i})));
}
CheckedInt MLPOp::getFlops() {
  CheckedInt m = rows(getInput()), h = lastDim(getInput()),
             i = tensorOf(getGate()).getDimSize(0);
  return m * (6 * h * i + 5 * i);
}
int64_t MLPOp::getGemmRows() { return gemmRows(getInput()); }
CheckedInt MLPOp::getBytesRead() {
  return getTensorBytes(getInput().getType()) +
         getTotalBytes(ValueRange{getGate(), getUp(), getDown()});
}
CheckedInt MLPOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

LogicalResult GeluMLPOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t h = lastDim(getInput());
  RankedTensorType up = tensorOf(getUp());
  if (up.getRank() != 2 || up.getDimSize(1) != h)
    return emitOpError() << "up must be tensor<I x " << h << ">, got " << up;
  int64_t i = up.getDimSize(0);
  return failure(failed(expectShape(*this, "up_bias", getUpBias(), {i})) ||
                 failed(expectShape(*this, "down", getDown(), {h, i})) ||
                 failed(expectShape(*this, "down_bias", getDownBias(), {h})));
}
// Per token: the two products (2 x 2 x H x I), the biases (I + H) and GELU,
// counted as 8 FLOPs an element (an erf or tanh polynomial) over I.
CheckedInt GeluMLPOp::getFlops() {
  CheckedInt m = rows(getInput()), h = lastDim(getInput()),
             i = tensorOf(getUp()).getDimSize(0);
  return m * (4 * h * i + 9 * i + h);
}
int64_t GeluMLPOp::getGemmRows() { return gemmRows(getInput()); }
CheckedInt GeluMLPOp::getBytesRead() {
  return getTensorBytes(getInput().getType()) +
         getTotalBytes(
             ValueRange{getUp(), getUpBias(), getDown(), getDownBias()});
}
CheckedInt GeluMLPOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

LogicalResult RouteOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType x = tensorOf(getInput()), w = tensorOf(getRouter());
  int64_t k = getTopK();
  if (x.getRank() != 3)
    return emitOpError() << "input must be tensor<B x T x H>, got " << x;
  if (w.getRank() != 2 || w.getDimSize(1) != x.getDimSize(2))
    return emitOpError() << "router must be tensor<E x " << x.getDimSize(2)
                         << ">, got " << w;
  int64_t e = w.getDimSize(0);
  if (k <= 0 || k > e)
    return emitOpError() << "top_k (" << k << ") must be in [1, " << e
                         << "], the experts the router scores";
  RankedTensorType r = tensorOf(getExperts());
  if (r.getShape() != ArrayRef<int64_t>{x.getDimSize(0), x.getDimSize(1), k})
    return emitOpError() << "experts must be tensor<" << x.getDimSize(0)
                         << " x " << x.getDimSize(1) << " x " << k
                         << " x i32>, got " << r;
  return success();
}
CheckedInt RouteOp::getFlops() {
  CheckedInt m = rows(getInput()), h = lastDim(getInput());
  CheckedInt e = tensorOf(getRouter()).getDimSize(0);
  // The router GEMM, then per token a score function and a top-k pass
  // over the E scores (about two operations per expert).
  return 2 * m * h * e + 2 * m * e;
}
int64_t RouteOp::getGemmRows() { return gemmRows(getInput()); }
CheckedInt RouteOp::getBytesRead() {
  return getTensorBytes(getInput().getType()) +
         getTensorBytes(getRouter().getType());
}
CheckedInt RouteOp::getBytesWritten() {
  return getTensorBytes(getExperts().getType());
}

LogicalResult MoEOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t h = lastDim(getInput()), e = getNumExperts(), k = getTopK();
  if (e <= 0)
    return emitOpError("num_experts must be > 0");
  int64_t shards = getExpertShards();
  if (shards < 1)
    return emitOpError() << "expert_shards must be >= 1, got " << shards;
  if (k <= 0 || k > e * shards)
    return emitOpError() << "top_k (" << k
                         << ") must be in [1, num_experts x expert_shards = "
                         << e * shards << "]";
  RankedTensorType x = tensorOf(getInput()), r = tensorOf(getRouting());
  if (x.getRank() != 3 ||
      r.getShape() != ArrayRef<int64_t>{x.getDimSize(0), x.getDimSize(1), k})
    return emitOpError() << "routing must be tensor<"
                         << (x.getRank() == 3 ? x.getDimSize(0) : 0) << " x "
                         << (x.getRank() == 3 ? x.getDimSize(1) : 0) << " x "
                         << k << " x i32> (the router's top_k per token), got "
                         << r;
  RankedTensorType g = tensorOf(getGate());
  if (g.getRank() != 3 || g.getDimSize(0) != e || g.getDimSize(2) != h)
    return emitOpError() << "gate must be tensor<" << e << " x I x " << h
                         << ">, got " << g;
  int64_t i = g.getDimSize(1);
  if (failed(expectShape(*this, "up", getUp(), {e, i, h})) ||
      failed(expectShape(*this, "down", getDown(), {e, h, i})))
    return failure();
  if (FloatAttr active = getExpectedActiveExpertsAttr())
    if (active.getValueAsDouble() <= 0 ||
        active.getValueAsDouble() > static_cast<double>(e))
      return emitOpError() << "expected_active_experts must be in (0, " << e
                           << "], got " << active.getValueAsDouble();
  return success();
}
double MoEOp::getActiveExperts() {
  if (FloatAttr active = getExpectedActiveExpertsAttr())
    return active.getValueAsDouble();
  double e = static_cast<double>(getNumExperts());
  double p = static_cast<double>(getTopK()) / (e * getExpertShards());
  // Tokens routed: B*T (a verified op's shapes fit in 64 bits).
  double tokens = static_cast<double>(rows(getInput()).get().value_or(0));
  return e * (1.0 - std::pow(1.0 - p, tokens));
}
CheckedInt MoEOp::getFlops() {
  CheckedInt m = rows(getInput()), h = lastDim(getInput());
  CheckedInt i = tensorOf(getGate()).getDimSize(1);
  // Each token runs top_k / expert_shards of its experts on this socket on
  // average.
  return m * getTopK() * (6 * h * i + 5 * i) / getExpertShards();
}
// The tokens each active expert of this socket takes: the step's
// assignments to its experts over the experts they touch.
int64_t MoEOp::getGemmRows() {
  double assignments =
      static_cast<double>(gemmRows(getInput())) * getTopK() / getExpertShards();
  return std::max<int64_t>(
      1, std::llround(assignments / std::max(1.0, getActiveExperts())));
}
CheckedInt MoEOp::getBytesRead() {
  std::optional<int64_t> experts =
      getTotalBytes(ValueRange{getGate(), getUp(), getDown()}).get();
  if (!experts)
    return CheckedInt::overflow();
  CheckedInt touched = CheckedInt::fromDouble(
      double(*experts) * getActiveExperts() / getNumExperts());
  return getTensorBytes(getInput().getType()) +
         getTensorBytes(getRouting().getType()) + touched;
}
CheckedInt MoEOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

/// Head counts of a grouped-query attention: positive, and the query heads
/// a multiple of the KV heads.
static LogicalResult verifyHeads(Operation *op, int64_t hq, int64_t hkv,
                                 int64_t d) {
  if (hq <= 0 || hkv <= 0 || d <= 0)
    return op->emitOpError("num_heads, num_kv_heads and head_dim must be > 0");
  if (hq % hkv != 0)
    return op->emitOpError()
           << "num_heads (" << hq << ") is not a multiple of num_kv_heads ("
           << hkv << ")";
  return success();
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t hq = getNumHeads(), hkv = getNumKvHeads(), d = getHeadDim();
  if (failed(verifyHeads(*this, hq, hkv, d)))
    return failure();
  auto cache = cast<kv::CacheType>(getCache().getType());
  if (cache.getKvHeads() != hkv)
    return emitOpError() << "GQA group mismatch: the cache holds "
                         << cache.getKvHeads() << " KV heads but the op has "
                         << hkv;
  if (cache.getHeadDim() != d)
    return emitOpError() << "cache head_dim " << cache.getHeadDim()
                         << " does not match head_dim " << d;
  if (failed(verifyLayerIndex(*this, getLayer(), cache.getLayers())))
    return failure();
  RankedTensorType q = tensorOf(getQuery());
  if (q.getRank() != 3)
    return emitOpError() << "query must be tensor<B x T x " << hq * d
                         << ">, got " << q;
  int64_t b = q.getDimSize(0), t = q.getDimSize(1);
  if (b != cache.getBatch())
    return emitOpError() << "batch " << b << " does not match the cache batch "
                         << cache.getBatch();
  if (failed(expectBTW(*this, "query", getQuery(), b, t, hq * d)) ||
      failed(expectBTW(*this, "key", getKey(), b, t, hkv * d)) ||
      failed(expectBTW(*this, "value", getValue(), b, t, hkv * d)))
    return failure();
  if (getResult().getType() != getQuery().getType())
    return emitOpError("result type must equal the query type");
  for (Value kv : {getKey(), getValue()})
    if (tensorOf(kv).getElementType() != cache.getDtype())
      return emitOpError() << "key and value element type "
                           << tensorOf(kv).getElementType()
                           << " does not match the cache dtype "
                           << cache.getDtype();
  bool compressing = cache.getPolicy().isCompressing();
  if (failed(verifyPrefix(*this, getPrefix(), getPhase())))
    return failure();
  if (getPhase() == arch::Phase::Decode && t > cache.getSlots())
    return emitOpError() << "decodes " << t << " tokens but the cache has "
                         << cache.getSlots() << " slots";
  if (getPhase() == arch::Phase::Prefill && !compressing &&
      t + getPrefix() > cache.getSlots())
    return emitOpError() << "prefill of " << t + getPrefix()
                         << " tokens does not fit a full cache of "
                         << cache.getSlots() << " slots";
  return verifyProbs(*this, getProbs(), getPhase(), b, hkv, cache.getSlots());
}
CheckedInt AttentionOp::getFlops() {
  RankedTensorType q = tensorOf(getQuery());
  CheckedInt b = q.getDimSize(0), t = q.getDimSize(1);
  CheckedInt pairs =
      getPhase() == arch::Phase::Prefill
          ? causalPairs(t)
          : t * cast<kv::CacheType>(getCache().getType()).getSlots();
  // QK^T and PV (2 x 2 FLOPs per MAC) plus softmax per score, and what a
  // policy or format adds.
  return b * getNumHeads() * pairs * (4 * getHeadDim() + 5) + getPrefixFlops() +
         getKVUpkeepFlops();
}
// Each KV head's keys serve its query heads for each of the step's tokens.
int64_t AttentionOp::getGemmRows() {
  return tensorOf(getQuery()).getDimSize(1) * getNumHeads() /
         std::max<int64_t>(1, getNumKvHeads());
}
CheckedInt AttentionOp::getKVUpkeepFlops() {
  RankedTensorType q = tensorOf(getQuery());
  auto cache = cast<kv::CacheType>(getCache().getType());
  int64_t tk = tensorOf(getKey()).getDimSize(1);
  return probsFlops(getProbs(), q, getNumHeads(), cache.getSlots()) +
         formatFlops(
             cache, getPhase(), q.getDimSize(0), tk, getPrefix(), getNumHeads(),
             !getReuseKv() && writesCache(getPhase(), cache, tk, getPrefix()));
}
CheckedInt AttentionOp::getKVUpkeepBytes() {
  return getProbs() ? getTensorBytes(getProbs().getType()) : CheckedInt(0);
}
CheckedInt AttentionOp::getPrefixFlops() {
  RankedTensorType q = tensorOf(getQuery());
  CheckedInt pairs = CheckedInt(q.getDimSize(1)) * getPrefix();
  return q.getDimSize(0) * getNumHeads() * pairs * (4 * getHeadDim() + 5);
}
CheckedInt AttentionOp::getBytesRead() {
  // A CLA layer's decode finds the step's key and value in the cache it
  // reads; its prefill attends over the group's keys and values as given.
  bool inCache = getReuseKv() && getPhase() == arch::Phase::Decode;
  CheckedInt bytes =
      inCache ? getTensorBytes(getQuery().getType())
              : getTotalBytes(ValueRange{getQuery(), getKey(), getValue()});
  auto cache = cast<kv::KVCacheTypeInterface>(getCache().getType());
  if (getPhase() == arch::Phase::Decode)
    bytes += cache.getBytesPerSequencePerLayer() * cache.getBatch();
  bytes += cache.getBytesPerTokenPerLayer() * getPrefix() * cache.getBatch();
  return bytes;
}
CheckedInt AttentionOp::getBytesWritten() {
  CheckedInt bytes = getTensorBytes(getResult().getType());
  if (Value probs = getProbs())
    bytes += getTensorBytes(probs.getType());
  auto cache = cast<kv::CacheType>(getCache().getType());
  // New tokens go to the cache, except in a prefill longer than a compressed
  // cache, where kv.gather_store writes the tokens kept instead.
  int64_t t = tensorOf(getKey()).getDimSize(1);
  if (!getReuseKv() && writesCache(getPhase(), cache, t, getPrefix()))
    bytes += kv::getWriteBytes(cache, t, getPhase() == arch::Phase::Prefill);
  return bytes;
}

//===----------------------------------------------------------------------===//
// MLAAttentionOp
//===----------------------------------------------------------------------===//

LogicalResult MLAAttentionOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t h = getNumHeads(), nope = getQkNopeHeadDim(),
          rope = getQkRopeHeadDim(), v = getVHeadDim(), r = getKvLoraRank();
  if (h <= 0 || nope <= 0 || rope < 0 || v <= 0 || r <= 0)
    return emitOpError("num_heads, qk_nope_head_dim, v_head_dim and "
                       "kv_lora_rank must be > 0 and qk_rope_head_dim >= 0");
  auto cache = cast<kv::LatentCacheType>(getCache().getType());
  if (cache.getLatentDim() != r || cache.getRopeDim() != rope)
    return emitOpError() << "latent cache (latent_dim " << cache.getLatentDim()
                         << ", rope_dim " << cache.getRopeDim()
                         << ") does not match kv_lora_rank " << r
                         << " and qk_rope_head_dim " << rope;
  if (failed(verifyLayerIndex(*this, getLayer(), cache.getLayers())))
    return failure();
  RankedTensorType q = tensorOf(getQuery());
  if (q.getRank() != 3)
    return emitOpError() << "query must be tensor<B x T x " << h * (nope + rope)
                         << ">, got " << q;
  int64_t b = q.getDimSize(0), t = q.getDimSize(1);
  if (b != cache.getBatch())
    return emitOpError() << "batch " << b << " does not match the cache batch "
                         << cache.getBatch();
  if (failed(expectBTW(*this, "query", getQuery(), b, t, h * (nope + rope))) ||
      failed(expectBTW(*this, "latent", getLatent(), b, t, r + rope)) ||
      failed(expectShape(*this, "kv_up", getKvUp(), {h * (nope + v), r})) ||
      failed(expectShape(*this, "latent_norm", getLatentNorm(), {r})) ||
      failed(expectBTW(*this, "result", getResult(), b, t, h * v)))
    return failure();
  if (tensorOf(getLatent()).getElementType() != cache.getDtype())
    return emitOpError() << "latent element type "
                         << tensorOf(getLatent()).getElementType()
                         << " does not match the cache dtype "
                         << cache.getDtype();
  if (getPhase() == arch::Phase::Decode && t > cache.getSlots())
    return emitOpError() << "decodes " << t << " tokens but the cache has "
                         << cache.getSlots() << " slots";
  if (failed(verifyPrefix(*this, getPrefix(), getPhase())))
    return failure();
  if (getPhase() == arch::Phase::Prefill &&
      !cache.getPolicy().isCompressing() &&
      t + getPrefix() > cache.getSlots() * cache.getSeqShards())
    return emitOpError() << "prefill of " << t + getPrefix()
                         << " tokens does not fit a full cache of "
                         << cache.getSlots() * cache.getSeqShards() << " slots";
  return verifyProbs(*this, getProbs(), getPhase(), b, 1, cache.getSlots());
}
CheckedInt MLAAttentionOp::getFlops() {
  RankedTensorType q = tensorOf(getQuery());
  CheckedInt b = q.getDimSize(0), t = q.getDimSize(1);
  CheckedInt h = getNumHeads(), nope = getQkNopeHeadDim(),
             rope = getQkRopeHeadDim(), v = getVHeadDim(), r = getKvLoraRank();
  // Norm of the new latents and rotation of their rotary part (done by the
  // group's first layer for a CLA layer).
  CheckedInt prep = getReuseKv() ? CheckedInt(0) : b * t * (4 * r + 3 * rope);
  if (getPhase() == arch::Phase::Decode) {
    // Absorbed: q_nope -> latent space, scores and PV against the latent
    // cache, latent -> v_head output.
    CheckedInt s = cast<kv::LatentCacheType>(getCache().getType()).getSlots();
    CheckedInt perQuery = 2 * h * nope * r + 2 * h * s * (r + rope) +
                          2 * h * s * r + 2 * h * r * v + 5 * h * s;
    return prep + b * t * perQuery + getKVUpkeepFlops();
  }
  // Prefill: decompress the prompt's K and V, then causal attention; a cache
  // split by sequence gives each socket 1/seq_shards of the keys.
  auto cache = cast<kv::LatentCacheType>(getCache().getType());
  CheckedInt pairs = causalPairs(t) / cache.getSeqShards();
  // Each socket decompresses only the tokens it holds.
  return prep +
         b * (2 * t * r * h * (nope + v) / cache.getSeqShards() +
              2 * h * pairs * (nope + rope) + 2 * h * pairs * v +
              5 * h * pairs) +
         getPrefixFlops() + getKVUpkeepFlops();
}
// Decode attends the latent cache absorbed: every head of every token of
// the step shares each cached latent. Prefill decompresses keys and values
// per head, and each serves the prompt's tokens.
int64_t MLAAttentionOp::getGemmRows() {
  int64_t t = tensorOf(getQuery()).getDimSize(1);
  return getPhase() == arch::Phase::Decode ? t * getNumHeads() : t;
}
CheckedInt MLAAttentionOp::getKVUpkeepFlops() {
  RankedTensorType q = tensorOf(getQuery());
  auto cache = cast<kv::LatentCacheType>(getCache().getType());
  int64_t t = q.getDimSize(1);
  return probsFlops(getProbs(), q, getNumHeads(), cache.getSlots()) +
         formatFlops(
             cache, getPhase(), q.getDimSize(0), t, getPrefix(), getNumHeads(),
             !getReuseKv() && writesCache(getPhase(), cache, t, getPrefix()));
}
CheckedInt MLAAttentionOp::getKVUpkeepBytes() {
  return getProbs() ? getTensorBytes(getProbs().getType()) : CheckedInt(0);
}
CheckedInt MLAAttentionOp::getPrefixFlops() {
  RankedTensorType q = tensorOf(getQuery());
  CheckedInt b = q.getDimSize(0), t = q.getDimSize(1);
  CheckedInt h = getNumHeads(), nope = getQkNopeHeadDim(),
             rope = getQkRopeHeadDim(), v = getVHeadDim(), r = getKvLoraRank();
  auto cache = cast<kv::LatentCacheType>(getCache().getType());
  // The prefix tokens this socket holds: decompressed again, then every
  // query attends to them fully.
  CheckedInt p = CheckedInt(getPrefix()) / cache.getSeqShards();
  CheckedInt pairs = t * p;
  return b * (2 * p * r * h * (nope + v) + 2 * h * pairs * (nope + rope) +
              2 * h * pairs * v + 5 * h * pairs);
}
CheckedInt MLAAttentionOp::getBytesRead() {
  // A CLA layer neither normalises the latents (no norm weight) nor, in a
  // decode, takes the step's latent (it is in the cache it reads).
  CheckedInt bytes =
      !getReuseKv() ? getTotalBytes(ValueRange{getQuery(), getLatent(),
                                               getKvUp(), getLatentNorm()})
      : getPhase() == arch::Phase::Decode
          ? getTotalBytes(ValueRange{getQuery(), getKvUp()})
          : getTotalBytes(ValueRange{getQuery(), getLatent(), getKvUp()});
  auto cache = cast<kv::LatentCacheType>(getCache().getType());
  if (getPhase() == arch::Phase::Decode)
    bytes += cache.getBytesPerSequencePerLayer() * cache.getBatch();
  bytes += cache.getBytesPerTokenPerLayer() * getPrefix() /
           cache.getSeqShards() * cache.getBatch();
  return bytes;
}
CheckedInt MLAAttentionOp::getBytesWritten() {
  CheckedInt bytes = getTensorBytes(getResult().getType());
  if (Value probs = getProbs())
    bytes += getTensorBytes(probs.getType());
  auto cache = cast<kv::LatentCacheType>(getCache().getType());
  int64_t t = tensorOf(getLatent()).getDimSize(1);
  if (!getReuseKv() && writesCache(getPhase(), cache, t, getPrefix()))
    bytes += kv::getWriteBytes(cache, t, getPhase() == arch::Phase::Prefill);
  return bytes;
}

//===----------------------------------------------------------------------===//
// LocalAttentionOp, ReshapeOp, SampleOp
//===----------------------------------------------------------------------===//

LogicalResult LocalAttentionOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t hq = getNumHeads(), hkv = getNumKvHeads(), d = getHeadDim();
  if (failed(verifyHeads(*this, hq, hkv, d)))
    return failure();
  RankedTensorType q = tensorOf(getQuery());
  if (q.getRank() != 3)
    return emitOpError() << "query must be tensor<B x T x " << hq * d
                         << ">, got " << q;
  int64_t b = q.getDimSize(0), t = q.getDimSize(1);
  if (failed(expectBTW(*this, "query", getQuery(), b, t, hq * d)))
    return failure();
  if (getKv().empty() || getKv().size() % 2 != 0)
    return emitOpError() << "kv must be pairs of keys and values, got "
                         << getKv().size() << " values";
  for (auto [i, v] : llvm::enumerate(getKv())) {
    RankedTensorType kv = tensorOf(v);
    bool own = i + 2 >= getKv().size();
    if (kv.getRank() != 3 || kv.getDimSize(0) != b ||
        kv.getDimSize(2) != hkv * d || (own && kv.getDimSize(1) != t))
      return emitOpError() << (i % 2 ? "value " : "key ") << i / 2
                           << " must be tensor<" << b << "x"
                           << (own ? std::to_string(t) : "T") << "x" << hkv * d
                           << "xT>, got " << v.getType();
  }
  if (getResult().getType() != getQuery().getType())
    return emitOpError("result type must equal the query type");
  return success();
}
int64_t LocalAttentionOp::getEarlierKeys() {
  int64_t keys = 0;
  for (size_t i = 0; i + 2 < getKv().size(); i += 2)
    keys += tensorOf(getKv()[i]).getDimSize(1);
  return keys;
}
CheckedInt LocalAttentionOp::getFlops() {
  RankedTensorType q = tensorOf(getQuery());
  CheckedInt t = q.getDimSize(1);
  // Every query row sees the earlier keys and, causally, its own rows.
  CheckedInt pairs = t * getEarlierKeys() + causalPairs(t);
  return q.getDimSize(0) * getNumHeads() * pairs * (4 * getHeadDim() + 5);
}
int64_t LocalAttentionOp::getGemmRows() {
  return tensorOf(getQuery()).getDimSize(1) * getNumHeads() /
         std::max<int64_t>(1, getNumKvHeads());
}
CheckedInt LocalAttentionOp::getBytesRead() {
  return getTensorBytes(getQuery().getType()) + getTotalBytes(getKv());
}
CheckedInt LocalAttentionOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

LogicalResult ReshapeOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType in = tensorOf(getInput()), out = tensorOf(getResult());
  if (in.getNumElements() != out.getNumElements() ||
      in.getElementType() != out.getElementType())
    return emitOpError() << "result " << out
                         << " must hold the input's elements, " << in;
  return success();
}
CheckedInt ReshapeOp::getFlops() { return 0; }
CheckedInt ReshapeOp::getBytesRead() { return 0; }
CheckedInt ReshapeOp::getBytesWritten() { return 0; }

LogicalResult SampleOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType logits = tensorOf(getLogits()),
                   tokens = tensorOf(getTokens());
  if (logits.getRank() != 3 || tokens.getRank() != 2 ||
      logits.getShape().drop_back() != tokens.getShape())
    return emitOpError() << "tokens must be tensor<"
                         << (logits.getRank() == 3
                                 ? std::to_string(logits.getDimSize(0)) + "x" +
                                       std::to_string(logits.getDimSize(1))
                                 : std::string("B x T"))
                         << "xi32> for logits " << logits;
  return success();
}
CheckedInt SampleOp::getFlops() { return numElements(getLogits()); }
CheckedInt SampleOp::getBytesRead() {
  return getTensorBytes(getLogits().getType());
}
CheckedInt SampleOp::getBytesWritten() {
  return getTensorBytes(getTokens().getType());
}

//===----------------------------------------------------------------------===//
// LMHeadOp, MTPOp
//===----------------------------------------------------------------------===//

LogicalResult LMHeadOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType in = tensorOf(getInput()), w = tensorOf(getWeight());
  if (in.getRank() != 3)
    return emitOpError() << "input must be tensor<B x T x H>, got " << in;
  if (w.getRank() != 2 || w.getDimSize(1) != in.getDimSize(2))
    return emitOpError() << "weight must be tensor<V x " << in.getDimSize(2)
                         << ">, got " << w;
  int64_t t = getLastTokenOnly() ? 1 : in.getDimSize(1);
  return expectBTW(*this, "result", getResult(), in.getDimSize(0), t,
                   w.getDimSize(0));
}
CheckedInt LMHeadOp::getFlops() {
  return 2 * rows(getResult()) * lastDim(getInput()) * lastDim(getResult());
}
int64_t LMHeadOp::getGemmRows() { return gemmRows(getResult()); }
CheckedInt LMHeadOp::getBytesRead() {
  return getTensorBytes(getWeight().getType()) +
         rows(getResult()) * lastDim(getInput()) *
             getElementBytes(tensorOf(getInput()).getElementType());
}
CheckedInt LMHeadOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

LogicalResult MTPOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  if (getDepth() < 1)
    return emitOpError("depth must be >= 1");
  if (getHidden().getType() != getEmbedded().getType() ||
      getResult().getType() != getHidden().getType())
    return emitOpError("hidden, embedded and result must have one type");
  int64_t h = lastDim(getHidden());
  return expectShape(*this, "eh_proj", getEhProj(), {h, 2 * h});
}
CheckedInt MTPOp::getFlops() {
  CheckedInt m = rows(getHidden()), h = lastDim(getHidden());
  return 2 * m * 2 * h * h + 2 * 4 * m * h; // projection + two RMS norms
}
int64_t MTPOp::getGemmRows() { return gemmRows(getHidden()); }
CheckedInt MTPOp::getBytesRead() {
  return getTotalBytes(ValueRange{getHidden(), getEmbedded(), getEhProj()});
}
CheckedInt MTPOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

//===----------------------------------------------------------------------===//
// RepeatOp
//===----------------------------------------------------------------------===//

LogicalResult RepeatOp::verify() {
  if (getCount() < 1)
    return emitOpError() << "count must be >= 1, got " << getCount();
  if (getFirstLayer() < 0)
    return emitOpError() << "first_layer must be >= 0, got " << getFirstLayer();
  if (getStride() && *getStride() < 1)
    return emitOpError() << "stride must be >= 1, got " << *getStride();
  Block &body = getBody().front();
  TypeRange inits = getInits().getTypes();
  if (body.getArgumentTypes() != inits)
    return emitOpError("body arguments must have the types of the inits");
  if (getResultTypes() != inits)
    return emitOpError("results must have the types of the inits");
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with llm.yield");
  if (yield.getValues().getTypes() != inits)
    return emitOpError("llm.yield must pass values of the inits' types");
  return success();
}

//===----------------------------------------------------------------------===//
// ShardSliceOp
//===----------------------------------------------------------------------===//

LogicalResult ShardSliceOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType in = tensorOf(getInput()), out = tensorOf(getResult());
  int64_t dim = getDim(), shards = getShards();
  if (dim < 0 || dim >= in.getRank())
    return emitOpError() << "dim " << dim << " is out of range for " << in;
  if (shards < 1)
    return emitOpError() << "shards must be >= 1, got " << shards;
  SmallVector<int64_t> expected(in.getShape());
  expected[dim] = (expected[dim] + shards - 1) / shards;
  if (out.getShape() != ArrayRef<int64_t>(expected) ||
      out.getElementType() != in.getElementType())
    return emitOpError() << "result must be the input with dim " << dim
                         << " split into " << shards << " shards of "
                         << expected[dim] << ", got " << out;
  return success();
}
CheckedInt ShardSliceOp::getFlops() { return 0; }
CheckedInt ShardSliceOp::getBytesRead() { return 0; }
CheckedInt ShardSliceOp::getBytesWritten() { return 0; }

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

static LogicalResult verifyGroup(Operation *op, int64_t group) {
  if (group < 2)
    return op->emitOpError() << "group_size must be >= 2, got " << group;
  return success();
}

/// The share of a tensor each socket must send in a bandwidth-optimal
/// collective over `group` sockets: (group - 1) / group of it.
static CheckedInt sentShare(CheckedInt bytes, int64_t group) {
  return bytes * (group - 1) / group;
}

LogicalResult AllReduceOp::verify() {
  return failed(verifyStatic(*this)) ? failure()
                                     : verifyGroup(*this, getGroupSize());
}
CheckedInt AllReduceOp::getFlops() {
  return numElements(getInput()) * (getGroupSize() - 1) / getGroupSize();
}
CheckedInt AllReduceOp::getBytesRead() {
  return getTensorBytes(getInput().getType());
}
CheckedInt AllReduceOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}
CheckedInt AllReduceOp::getLinkBytes() {
  // Reduce-scatter then all-gather.
  return 2 * sentShare(getTensorBytes(getInput().getType()), getGroupSize());
}

LogicalResult AllGatherOp::verify() {
  if (failed(verifyStatic(*this)) || failed(verifyGroup(*this, getGroupSize())))
    return failure();
  RankedTensorType in = tensorOf(getInput()), out = tensorOf(getResult());
  int64_t dim = getDim();
  if (dim < 0 || dim >= in.getRank())
    return emitOpError() << "dim " << dim << " is out of range for " << in;
  SmallVector<int64_t> expected(in.getShape());
  expected[dim] *= getGroupSize();
  if (out.getShape() != ArrayRef<int64_t>(expected) ||
      out.getElementType() != in.getElementType())
    return emitOpError() << "result must be the input with dim " << dim
                         << " multiplied by group_size " << getGroupSize()
                         << ", got " << out;
  return success();
}
CheckedInt AllGatherOp::getFlops() { return 0; }
CheckedInt AllGatherOp::getBytesRead() {
  return getTensorBytes(getInput().getType());
}
CheckedInt AllGatherOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}
CheckedInt AllGatherOp::getLinkBytes() {
  return sentShare(getTensorBytes(getResult().getType()), getGroupSize());
}

LogicalResult AllToAllOp::verify() {
  if (failed(verifyStatic(*this)) || failed(verifyGroup(*this, getGroupSize())))
    return failure();
  RankedTensorType in = tensorOf(getInput()), out = tensorOf(getResult());
  int64_t g = getGroupSize();
  std::optional<int64_t> split = getSplitDim(), concat = getConcatDim();
  if (split.has_value() != concat.has_value())
    return emitOpError("takes split_dim and concat_dim together");
  if (!split || *split == *concat) {
    if (in != out)
      return emitOpError() << "result must be the input's type " << in
                           << " when no layout changes, got " << out;
    if (in.getRank() < 1 || in.getDimSize(0) % g != 0)
      return emitOpError() << "leading dimension of " << in
                           << " must split into group_size " << g
                           << " equal parts";
    return success();
  }
  int64_t rank = in.getRank();
  if (*split < 0 || *split >= rank || *concat < 0 || *concat >= rank)
    return emitOpError() << "split_dim " << *split << " and concat_dim "
                         << *concat << " must be dimensions of " << in;
  if (out.getRank() != rank || out.getElementType() != in.getElementType())
    return emitOpError() << "result must be a tensor of rank " << rank
                         << " and element type " << in.getElementType()
                         << ", got " << out;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t want = in.getDimSize(d), got = out.getDimSize(d);
    bool ok = d == *split    ? got == (want + g - 1) / g
              : d == *concat ? got <= want * g && got > (want - 1) * g
                             : got == want;
    if (!ok)
      return emitOpError() << "result " << out << " is not " << in
                           << " split along dim " << *split
                           << " and stacked along dim " << *concat << " over "
                           << g << " sockets";
  }
  return success();
}
CheckedInt AllToAllOp::getFlops() { return 0; }
CheckedInt AllToAllOp::getBytesRead() {
  return getTensorBytes(getInput().getType());
}
CheckedInt AllToAllOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}
CheckedInt AllToAllOp::getLinkBytes() {
  return sentShare(getTensorBytes(getInput().getType()), getGroupSize());
}
