//===- LLMDialect.cpp - llm dialect: attributes and module helpers --------===//
//
// The dialect, its attributes and the module-level records (workload,
// layer, TP, model); the ops' shape rules and costs are in LLMOps.cpp and
// LLMAttention.cpp, what they share in OpHelpers.h. The cost conventions
// (also in docs/Dialects/LLM.md): a multiply-accumulate is 2 FLOPs; softmax is
// 5 FLOPs per score; SiLU-and-gate is 5 FLOPs per intermediate element; weights
// are read once per execution; intermediates inside a block (attention scores,
// the MLP's hidden activation) stay on chip and cost no memory traffic.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/LLM/IR/LLMOps.h"

#include "snapflow/Dialect/EnumKeyword.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

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
  return parseEnumKeyword<arch::Phase>(parser, "phase", arch::parsePhase, [] {
    return std::string("prefill or decode");
  });
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

LogicalResult LLMDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned region,
                                                   unsigned index,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name != kWindowCacheAttr)
    return op->emitError() << "unknown argument attribute '" << name
                           << "'; the llm dialect declares "
                           << kWindowCacheAttr;
  // The window in tokens, on a KV cache argument.
  auto w = dyn_cast<IntegerAttr>(attr.getValue());
  Region &r = op->getRegion(region);
  bool onCache = !r.empty() && index < r.getNumArguments() &&
                 isa<kv::KVCacheTypeInterface>(r.getArgument(index).getType());
  if (!w || !w.getType().isInteger(64) || w.getInt() < 1 || !onCache)
    return op->emitError() << "'" << name
                           << "' must be a window >= 1 (i64) on a KV cache "
                              "argument, got "
                           << attr.getValue() << " on argument " << index;
  return success();
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

//===----------------------------------------------------------------------===//
// BlockScaledAttr
//===----------------------------------------------------------------------===//

LogicalResult
BlockScaledAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                        int64_t elementBits, int64_t block, int64_t scaleBits) {
  if (elementBits < 1 || elementBits > 16)
    return emitError() << "element_bits must be in [1, 16], got "
                       << elementBits;
  if (block < 1)
    return emitError() << "block must be >= 1, got " << block;
  if (scaleBits < 0 || scaleBits > 32)
    return emitError() << "scale_bits must be in [0, 32], got " << scaleBits;
  return success();
}

CheckedInt BlockScaledAttr::getStorageBytes(CheckedInt elements) const {
  // The values, then one scale per block (a partial last block has one).
  std::optional<int64_t> n = elements.get();
  if (!n)
    return CheckedInt::overflow();
  CheckedInt blocks = (*n + getBlock() - 1) / getBlock();
  return (elements * getElementBits() + blocks * getScaleBits() + 7) / 8;
}

std::string BlockScaledAttr::getLabel() const {
  if (getElementBits() == 4 && getBlock() == 32 && getScaleBits() == 8)
    return "mxfp4";
  return llvm::formatv("block_scaled<{0},{1},{2}>", getElementBits(),
                       getBlock(), getScaleBits())
      .str();
}

int64_t snapflow::llm::getWindow(Operation *op) {
  if (auto a = dyn_cast<AttentionOp>(op))
    return a.getWindow();
  return 0;
}

bool snapflow::llm::isWindowCache(Operation *fn, unsigned index) {
  auto f = dyn_cast<FunctionOpInterface>(fn);
  return f && index < f.getNumArguments() &&
         f.getArgAttr(index, kWindowCacheAttr);
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
    if (getWindow(op) > 0) // a window's ring is never compressed
      return;
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
