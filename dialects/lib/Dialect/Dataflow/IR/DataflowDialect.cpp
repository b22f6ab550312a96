//===- DataflowDialect.cpp - df dialect: verifiers
//-------------------------===//
//
// Structural rules of dataflow programs: streams carry tiles of one type from
// one producer, loads and stores name declared tensors of matching element
// type, every stage has PCUs and every stream a consumer. Sections are graph
// regions, so streams may form cycles (a deadlock is the simulator's finding,
// not a verifier error).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"

#include "snapflow/Dialect/EnumKeyword.h"
#include "snapflow/Interfaces/CostInterface.h"
#include "snapflow/Support/CheckedInt.h"
#include "snapflow/Support/Number.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include "llvm/ADT/StringSet.h"

#include <charconv>
#include <cmath>

using namespace mlir;
using namespace snapflow;
using namespace snapflow::df;

#include "snapflow/Dialect/Dataflow/IR/DataflowDialect.cpp.inc"

// The custom<...> directives of df.tensor (tier), df.load, df.store and
// df.stage (the operator after `for`, the stage kind) and df.collective
// (kind, algorithm after `via`): the bare keyword.
static ParseResult parseTier(OpAsmParser &parser, TierAttr &tier) {
  return parseKeywordAttr(parser, tier, parseTierKeyword);
}
static void printTier(OpAsmPrinter &printer, Operation *, TierAttr tier) {
  printer << arch::tierName(tier.getValue());
}
static ParseResult parseOpKind(OpAsmParser &parser, OpKindAttr &kind) {
  return parseKeywordAttr(parser, kind, parseOpKindKeyword);
}
static void printOpKind(OpAsmPrinter &printer, Operation *, OpKindAttr kind) {
  printer << arch::opKindName(kind.getValue());
}
static ParseResult parseStageKind(OpAsmParser &parser, StageKindAttr &kind) {
  return parseKeywordAttr(parser, kind, parseStageKindKeyword);
}
static void printStageKind(OpAsmPrinter &printer, Operation *,
                           StageKindAttr kind) {
  printer << arch::stageKindName(kind.getValue());
}
static ParseResult parseCollectiveKind(OpAsmParser &parser,
                                       CollectiveKindAttr &kind) {
  return parseKeywordAttr(parser, kind, parseCollectiveKindKeyword);
}
static void printCollectiveKind(OpAsmPrinter &printer, Operation *,
                                CollectiveKindAttr kind) {
  printer << arch::collectiveKindName(kind.getValue());
}
static ParseResult parseCollectiveAlgorithm(OpAsmParser &parser,
                                            CollectiveAlgorithmAttr &a) {
  return parseKeywordAttr(parser, a, parseCollectiveAlgorithmKeyword);
}
static void printCollectiveAlgorithm(OpAsmPrinter &printer, Operation *,
                                     CollectiveAlgorithmAttr a) {
  printer << arch::collectiveAlgorithmName(a.getValue());
}

#define GET_ATTRDEF_CLASSES
#include "snapflow/Dialect/Dataflow/IR/DataflowAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "snapflow/Dialect/Dataflow/IR/DataflowTypes.cpp.inc"
#define GET_OP_CLASSES
#include "snapflow/Dialect/Dataflow/IR/DataflowOps.cpp.inc"

void DFDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "snapflow/Dialect/Dataflow/IR/DataflowAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "snapflow/Dialect/Dataflow/IR/DataflowTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "snapflow/Dialect/Dataflow/IR/DataflowOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

FailureOr<arch::MemoryTier> snapflow::df::parseTierKeyword(AsmParser &parser) {
  return parseEnumKeyword<arch::MemoryTier>(
      parser, "memory tier", arch::parseTierName,
      [] { return std::string("sram, hbm or ddr"); });
}

FailureOr<arch::StageKind>
snapflow::df::parseStageKindKeyword(AsmParser &parser) {
  return parseEnumKeyword<arch::StageKind>(
      parser, "stage kind", arch::parseStageKind,
      [] { return "one of " + arch::stageKindNames(", "); });
}

FailureOr<arch::CollectiveKind>
snapflow::df::parseCollectiveKindKeyword(AsmParser &parser) {
  return parseEnumKeyword<arch::CollectiveKind>(
      parser, "collective kind", arch::parseCollectiveKind,
      [] { return "one of " + arch::collectiveKindNames(", "); });
}

// The IR records a concrete algorithm, never `auto`.
FailureOr<arch::CollectiveAlgorithm>
snapflow::df::parseCollectiveAlgorithmKeyword(AsmParser &parser) {
  return parseEnumKeyword<arch::CollectiveAlgorithm>(
      parser, "collective algorithm",
      [](StringRef keyword) {
        std::optional<arch::CollectiveAlgorithm> a =
            arch::parseCollectiveAlgorithm(keyword);
        return a == arch::CollectiveAlgorithm::Auto ? std::nullopt : a;
      },
      [] {
        std::string known;
        for (arch::CollectiveAlgorithm a : arch::kConcreteCollectiveAlgorithms)
          known += (known.empty() ? "" : ", ") +
                   arch::collectiveAlgorithmName(a).str();
        return "one of " + known;
      });
}

// Only the kinds the compiler tags nodes with (not kernel_launch, other).
FailureOr<arch::OpKind> snapflow::df::parseOpKindKeyword(AsmParser &parser) {
  return parseEnumKeyword<arch::OpKind>(
      parser, "operator kind",
      [](StringRef keyword) {
        std::optional<arch::OpKind> kind = arch::parseOpKind(keyword);
        return kind && arch::isTaggedOpKind(*kind) ? kind : std::nullopt;
      },
      [] {
        std::string known;
        for (int k = 0; k < arch::kNumOpKinds; ++k)
          if (arch::isTaggedOpKind(static_cast<arch::OpKind>(k)))
            known += (known.empty() ? "" : ", ") +
                     arch::opKindName(static_cast<arch::OpKind>(k)).str();
        return "one of " + known;
      });
}

std::optional<arch::OpKind> snapflow::df::getOpKind(Operation *op) {
  OpKindAttr kind;
  if (auto load = dyn_cast<LoadOp>(op))
    kind = load.getOpKindAttr();
  else if (auto store = dyn_cast<StoreOp>(op))
    kind = store.getOpKindAttr();
  else if (auto stage = dyn_cast<StageOp>(op))
    kind = stage.getOpKindAttr();
  if (!kind)
    return std::nullopt;
  return kind.getValue();
}

/// The parameter texts of a target, keyed "socket.clock_hz", as
/// ArchModel::fromValues reads them.
static std::vector<std::pair<std::string, std::string>>
targetValues(DictionaryAttr socket, DictionaryAttr system) {
  std::vector<std::pair<std::string, std::string>> values;
  for (auto [section, dict] :
       {std::pair<StringRef, DictionaryAttr>{"socket", socket},
        {"system", system}})
    for (NamedAttribute entry : dict) {
      std::string text;
      if (auto i = dyn_cast<IntegerAttr>(entry.getValue())) {
        text = std::to_string(i.getValue().getSExtValue());
      } else if (auto f = dyn_cast<FloatAttr>(entry.getValue())) {
        text = shortestText(f.getValueAsDouble());
      } else if (auto str = dyn_cast<StringAttr>(entry.getValue())) {
        text = str.str();
      } else {
        text = "<not a number or name>";
      }
      values.push_back(
          {(section + "." + entry.getName().strref()).str(), text});
    }
  return values;
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringAttr name, DictionaryAttr socket,
                                 DictionaryAttr system) {
  if (!name || name.empty())
    return emitError() << "df.target needs the chip's name";
  auto chip = arch::ArchModel::fromValues(
      name.strref(), "", targetValues(socket, system), "df.target");
  if (chip)
    return success();
  // One line per problem, each "df.target: error: ..."; join them.
  std::string text = llvm::toString(chip.takeError());
  SmallVector<StringRef> lines;
  StringRef(text).split(lines, '\n');
  InFlightDiagnostic diag = emitError();
  diag << "df.target '" << name.strref() << "' is not a valid chip: ";
  for (auto [i, line] : llvm::enumerate(lines)) {
    line.consume_front("df.target: error: ");
    diag << (i ? "; " : "") << line;
  }
  return diag;
}

TargetAttr TargetAttr::get(MLIRContext *context, const arch::ArchModel &chip) {
  Builder b(context);
  SmallVector<NamedAttribute> socket, system;
  for (const arch::ArchParamInfo &p : arch::ArchModel::paramInfos()) {
    std::string text = chip.getValueText(p);
    Attribute value;
    switch (p.kind) {
    case arch::ArchParamInfo::Kind::Integer: {
      int64_t i = 0;
      (void)StringRef(text).getAsInteger(10, i);
      value = b.getI64IntegerAttr(i);
      break;
    }
    case arch::ArchParamInfo::Kind::Real: {
      double d = 0;
      (void)StringRef(text).getAsDouble(d);
      value = b.getF64FloatAttr(d);
      break;
    }
    case arch::ArchParamInfo::Kind::Choice:
      value = b.getStringAttr(text);
      break;
    }
    (StringRef(p.section) == "socket" ? socket : system)
        .push_back(b.getNamedAttr(p.key, value));
  }
  return get(context, b.getStringAttr(chip.getName()),
             b.getDictionaryAttr(socket), b.getDictionaryAttr(system));
}

const arch::ArchModel &TargetAttr::getArchModel() const {
  return getContext()->getLoadedDialect<DFDialect>()->chipOf(*this);
}

const arch::ArchModel &DFDialect::chipOf(TargetAttr target) {
  std::lock_guard<std::mutex> lock(chipsMutex);
  std::unique_ptr<arch::ArchModel> &slot = chips[target];
  if (!slot) {
    auto chip = arch::ArchModel::fromValues(
        target.getName().strref(), "",
        targetValues(target.getSocket(), target.getSystem()), "df.target");
    assert(chip && "df.target was verified");
    slot = std::make_unique<arch::ArchModel>(std::move(*chip));
  }
  return *slot;
}

int64_t TargetAttr::getSockets() const {
  auto sockets = getSystem().getAs<IntegerAttr>("sockets");
  return sockets ? sockets.getInt() : 1;
}

int64_t TargetAttr::getSocketInteger(StringRef key) const {
  auto value = getSocket().getAs<IntegerAttr>(key);
  assert(value && "df.target was verified: every integer key is present");
  return value.getInt();
}

Attribute TargetAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  std::string name;
  if (parser.parseLess() || parser.parseString(&name))
    return {};
  MLIRContext *ctx = parser.getContext();
  // A built-in chip's name alone stands for its full parameter set.
  if (succeeded(parser.parseOptionalGreater())) {
    std::vector<std::string> builtins = arch::ArchModel::builtinNames();
    if (llvm::find(builtins, name) == builtins.end()) {
      parser.emitError(loc) << "'" << name
                            << "' is not a built-in chip; a df.target of "
                               "another chip lists its socket and system "
                               "parameters";
      return {};
    }
    auto chip = arch::ArchModel::load(name);
    if (!chip) {
      parser.emitError(loc) << llvm::toString(chip.takeError());
      return {};
    }
    return TargetAttr::get(ctx, *chip);
  }
  DictionaryAttr socket, system;
  if (parser.parseComma() || parser.parseKeyword("socket") ||
      parser.parseEqual() || parser.parseAttribute(socket) ||
      parser.parseComma() || parser.parseKeyword("system") ||
      parser.parseEqual() || parser.parseAttribute(system) ||
      parser.parseGreater())
    return {};
  TargetAttr target =
      TargetAttr::getChecked([&] { return parser.emitError(loc); }, ctx,
                             StringAttr::get(ctx, name), socket, system);
  // One spelling per chip: values as the chip model types them (an integer
  // written as 4.0 reads back as 4 : i64), so equal chips are equal
  // attributes.
  return target ? TargetAttr::get(ctx, target.getArchModel()) : target;
}

void TargetAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printString(getName().strref());
  printer << ", socket = ";
  printer.printAttribute(getSocket());
  printer << ", system = ";
  printer.printAttribute(getSystem());
  printer << ">";
}

// The enum attributes: `<` keyword `>`.
template <typename AttrT, typename Enum>
static Attribute parseEnumAttr(AsmParser &parser,
                               FailureOr<Enum> (*keyword)(AsmParser &)) {
  if (parser.parseLess())
    return {};
  FailureOr<Enum> value = keyword(parser);
  if (failed(value) || parser.parseGreater())
    return {};
  return AttrT::get(parser.getContext(), *value);
}
Attribute StageKindAttr::parse(AsmParser &parser, Type) {
  return parseEnumAttr<StageKindAttr>(parser, parseStageKindKeyword);
}
void StageKindAttr::print(AsmPrinter &printer) const {
  printer << "<" << arch::stageKindName(getValue()) << ">";
}
Attribute CollectiveKindAttr::parse(AsmParser &parser, Type) {
  return parseEnumAttr<CollectiveKindAttr>(parser, parseCollectiveKindKeyword);
}
void CollectiveKindAttr::print(AsmPrinter &printer) const {
  printer << "<" << arch::collectiveKindName(getValue()) << ">";
}
Attribute CollectiveAlgorithmAttr::parse(AsmParser &parser, Type) {
  return parseEnumAttr<CollectiveAlgorithmAttr>(
      parser, parseCollectiveAlgorithmKeyword);
}
void CollectiveAlgorithmAttr::print(AsmPrinter &printer) const {
  printer << "<" << arch::collectiveAlgorithmName(getValue()) << ">";
}

LogicalResult StageMapAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   arch::StageKind kind, int64_t tiles,
                                   int64_t tileBytes, int64_t pcus,
                                   int64_t pmus, int64_t agcus) {
  if (tiles < 1 || pcus < 1 || pmus < 0 || agcus < 0 || tileBytes < 0)
    return emitError() << "df.stage needs tiles >= 1, pcus >= 1 and "
                          "tile_bytes, pmus, agcus >= 0; got tiles = "
                       << tiles << ", tile_bytes = " << tileBytes
                       << ", pcus = " << pcus << ", pmus = " << pmus
                       << ", agcus = " << agcus;
  return success();
}

LogicalResult
SectionMapAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       StringRef name, int64_t repeat, int64_t stages,
                       int64_t pcus, int64_t pmus, int64_t agcus,
                       llvm::APFloat oversubscribedValue, StringRef) {
  double oversubscribed = oversubscribedValue.convertToDouble();
  if (name.empty())
    return emitError() << "df.section needs a name";
  if (repeat < 1 || stages < 0 || pcus < 0 || pmus < 0 || agcus < 0)
    return emitError() << "df.section '" << name
                       << "' needs repeat >= 1 and stages, pcus, pmus, agcus "
                          ">= 0";
  if (!(oversubscribed >= 1.0) || !std::isfinite(oversubscribed))
    return emitError() << "df.section '" << name
                       << "' oversubscribed must be a finite ratio >= 1, got "
                       << oversubscribed;
  return success();
}

LogicalResult
PlacementAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      arch::MemoryTier, ArrayRef<int64_t> live) {
  if (!live.empty() && (live.size() != 2 || live[0] < 0 || live[1] < live[0]))
    return emitError() << "df.placement live range must be [first, last] "
                          "with 0 <= first <= last";
  return success();
}

LogicalResult
MemoryPlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t weights, int64_t kv, int64_t activations,
                       int64_t sram, int64_t hbm, int64_t ddr, int64_t maxBatch,
                       int64_t prefetch, StringRef) {
  for (int64_t v :
       {weights, kv, activations, sram, hbm, ddr, maxBatch, prefetch})
    if (v < 0)
      return emitError() << "df.memory_plan byte counts and max_batch must "
                            "be >= 0";
  return success();
}

LogicalResult KVUpkeepAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t flops, int64_t bytes) {
  if (flops < 0 || bytes < 0)
    return emitError() << "df.kv_upkeep flops and bytes must be >= 0";
  return success();
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

static DFDialect *dialectOf(Operation *op);

LogicalResult DFDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  Attribute value = attr.getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitError() << "'" << name << "' must be " << what << ", got "
                           << value;
  };
  if (name == TargetAttrHelper::getNameStr())
    return failure(failed(expect(isa<TargetAttr>(value), "a #df.target")) ||
                   failed(expect(isa<ModuleOp>(op), "on a module")));
  if (name == SectionAttrHelper::getNameStr()) {
    auto i = dyn_cast<IntegerAttr>(value);
    return expect(i && i.getType().isInteger(64) && i.getInt() >= 0,
                  "a section index >= 0 (i64)");
  }
  if (name == StageAttrHelper::getNameStr())
    return expect(isa<StageMapAttr>(value), "a #df.stage");
  if (name == SectionsAttrHelper::getNameStr()) {
    auto list = dyn_cast<ArrayAttr>(value);
    return expect(
        list && llvm::all_of(
                    list, [](Attribute a) { return isa<SectionMapAttr>(a); }),
        "a list of #df.section");
  }
  if (name == PlacementAttrHelper::getNameStr())
    return expect(isa<PlacementAttr>(value), "a #df.placement");
  if (name == MemoryPlanAttrHelper::getNameStr())
    return expect(isa<MemoryPlanAttr>(value), "a #df.memory_plan");
  if (name == KvUpkeepAttrHelper::getNameStr())
    return failure(
        failed(expect(isa<KVUpkeepAttr>(value), "a #df.kv_upkeep")) ||
        failed(expect(isa<ProgramOp>(op), "on a df.program")));
  if (name == ProvenanceAttrHelper::getNameStr()) {
    auto dict = dyn_cast<DictionaryAttr>(value);
    return failure(failed(expect(dict && llvm::all_of(dict,
                                                      [](NamedAttribute a) {
                                                        return isa<StringAttr>(
                                                            a.getValue());
                                                      }),
                                 "a dictionary of strings")) ||
                   failed(expect(isa<ModuleOp>(op), "on a module")));
  }
  return op->emitError() << "unknown attribute '" << name
                         << "'; the df dialect declares df.target, "
                            "df.section, df.stage, df.sections, "
                            "df.placement, df.memory_plan, df.kv_upkeep and "
                            "df.provenance";
}

DictionaryAttr snapflow::df::getProvenance(Operation *module) {
  return dialectOf(module)->getProvenanceAttrHelper().getAttr(module);
}
void snapflow::df::setProvenance(Operation *module, DictionaryAttr value) {
  dialectOf(module)->getProvenanceAttrHelper().setAttr(module, value);
}

static DFDialect *dialectOf(Operation *op) {
  return op->getContext()->getOrLoadDialect<DFDialect>();
}

TargetAttr snapflow::df::getTarget(Operation *op) {
  ModuleOp module =
      isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  return module ? dialectOf(module)->getTargetAttrHelper().getAttr(module)
                : TargetAttr();
}
void snapflow::df::setTarget(Operation *module, TargetAttr value) {
  dialectOf(module)->getTargetAttrHelper().setAttr(module, value);
}
StageMapAttr snapflow::df::getStageMap(Operation *op) {
  return dialectOf(op)->getStageAttrHelper().getAttr(op);
}
void snapflow::df::setStageMap(Operation *op, StageMapAttr value) {
  dialectOf(op)->getStageAttrHelper().setAttr(op, value);
}
std::optional<int64_t> snapflow::df::getSection(Operation *op) {
  if (IntegerAttr a = dialectOf(op)->getSectionAttrHelper().getAttr(op))
    return a.getInt();
  return std::nullopt;
}
void snapflow::df::setSection(Operation *op, int64_t section) {
  dialectOf(op)->getSectionAttrHelper().setAttr(
      op, Builder(op->getContext()).getI64IntegerAttr(section));
}
ArrayAttr snapflow::df::getSections(Operation *op) {
  return dialectOf(op)->getSectionsAttrHelper().getAttr(op);
}
void snapflow::df::setSections(Operation *op,
                               ArrayRef<SectionMapAttr> sections) {
  SmallVector<Attribute> list(sections.begin(), sections.end());
  dialectOf(op)->getSectionsAttrHelper().setAttr(
      op, ArrayAttr::get(op->getContext(), list));
}
PlacementAttr snapflow::df::getPlacement(Operation *op) {
  return dialectOf(op)->getPlacementAttrHelper().getAttr(op);
}
void snapflow::df::setPlacement(Operation *op, PlacementAttr value) {
  dialectOf(op)->getPlacementAttrHelper().setAttr(op, value);
}
MemoryPlanAttr snapflow::df::getMemoryPlan(Operation *op) {
  return dialectOf(op)->getMemoryPlanAttrHelper().getAttr(op);
}
void snapflow::df::setMemoryPlan(Operation *op, MemoryPlanAttr value) {
  dialectOf(op)->getMemoryPlanAttrHelper().setAttr(op, value);
}
KVUpkeepAttr snapflow::df::getKVUpkeep(Operation *op) {
  return dialectOf(op)->getKvUpkeepAttrHelper().getAttr(op);
}
void snapflow::df::setKVUpkeep(Operation *op, KVUpkeepAttr value) {
  dialectOf(op)->getKvUpkeepAttrHelper().setAttr(op, value);
}

//===----------------------------------------------------------------------===//
// StreamType
//===----------------------------------------------------------------------===//

LogicalResult StreamType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 RankedTensorType tile, int64_t depth) {
  if (!tile.hasStaticShape())
    return emitError() << "stream tile " << tile << " must have a static shape";
  if (!tile.getElementType().isIntOrFloat())
    return emitError() << "stream tile " << tile
                       << " must have an integer or float element type";
  if (depth < 1)
    return emitError() << "stream depth must be >= 1, got " << depth;
  if ((checkedProduct(tile.getShape()) *
       ((tile.getElementType().getIntOrFloatBitWidth() + 7) / 8) * depth)
          .overflowed())
    return emitError() << "stream of " << depth << " tiles of " << tile
                       << " exceeds a 64-bit byte count";
  return success();
}

int64_t StreamType::getTileBytes() const {
  RankedTensorType tile = getTile();
  return tile.getNumElements() *
         ((tile.getElementType().getIntOrFloatBitWidth() + 7) / 8);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

LogicalResult snapflow::df::forEachProgram(
    ModuleOp module,
    function_ref<LogicalResult(ProgramOp, const arch::ArchModel &)> fn) {
  TargetAttr target = getTarget(module);
  if (!target)
    return success();
  const arch::ArchModel &chip = target.getArchModel();
  for (ProgramOp program : module.getOps<ProgramOp>())
    if (failed(fn(program, chip)))
      return failure();
  return success();
}

arch::CollectiveAlgorithm snapflow::df::getArchAlgorithm(CollectiveOp op) {
  return op.getAlgorithm().value_or(arch::CollectiveAlgorithm::Auto);
}

int64_t snapflow::df::getStreamTileCount(Value stream) {
  Operation *def = stream.getDefiningOp();
  if (auto load = dyn_cast_or_null<LoadOp>(def))
    return load.getTiles();
  if (auto stage = dyn_cast_or_null<StageOp>(def)) {
    if (auto counts = stage.getOutputTiles())
      return (*counts)[cast<OpResult>(stream).getResultNumber()];
    return stage.getTiles();
  }
  if (auto buffer = dyn_cast_or_null<BufferOp>(def))
    return getStreamTileCount(buffer.getInput()) * buffer.getReads();
  if (auto collective = dyn_cast_or_null<CollectiveOp>(def))
    return getStreamTileCount(collective.getInput());
  return 0;
}

/// Every stream a section op produces must be consumed, or its producer would
/// stall forever once the stream fills.
static LogicalResult verifyConsumed(Operation *op) {
  for (OpResult r : op->getResults())
    if (isa<StreamType>(r.getType()) && r.use_empty())
      return op->emitOpError() << "produces stream #" << r.getResultNumber()
                               << " that nothing consumes";
  return success();
}

/// Finds the `df.tensor` a load or store names and checks the tile against it.
/// Checks that `ref` names a df.tensor of the program that `stream` tiles.
/// Called from verifySymbolUses, with the symbol tables the verifier
/// shares: a lookup without them scans the program, so verifying every
/// load and store of an unfused 2048-layer program was quadratic (R12).
static LogicalResult verifyTensorRef(Operation *op, FlatSymbolRefAttr ref,
                                     StreamType stream,
                                     SymbolTableCollection &symbols) {
  auto program = op->getParentOfType<ProgramOp>();
  auto tensor =
      program
          ? symbols.lookupNearestSymbolFrom<TensorOp>(program, ref.getAttr())
          : TensorOp();
  if (!tensor)
    return op->emitOpError()
           << "names " << ref << ", which is not a df.tensor of the program";
  auto type = cast<RankedTensorType>(tensor.getType());
  RankedTensorType tile = stream.getTile();
  if (tile.getElementType() != type.getElementType())
    return op->emitOpError()
           << "stream tile element type " << tile.getElementType()
           << " does not match tensor " << ref << " of type " << type;
  if (tile.getRank() != type.getRank())
    return op->emitOpError()
           << "stream tile " << tile << " does not have the rank of tensor "
           << ref << " (" << type << ")";
  for (auto [t, d] : llvm::zip(tile.getShape(), type.getShape()))
    if (t <= 0 || d % t != 0)
      return op->emitOpError()
             << "stream tile " << tile << " does not tile tensor " << ref
             << " (" << type << ") evenly";
  return success();
}

//===----------------------------------------------------------------------===//
// ProgramOp, SectionOp
//===----------------------------------------------------------------------===//

LogicalResult ProgramOp::verify() {
  if (getTp() < 1)
    return emitOpError() << "tp must be >= 1, got " << getTp();
  TargetAttr target = getTarget(*this);
  if (!target)
    return emitOpError("needs the chip it was mapped for: the enclosing "
                       "module has no df.target attribute");
  if (getTp() > target.getSockets())
    return emitOpError() << "spans tp = " << getTp() << " sockets but its "
                         << "target '" << target.getName().strref() << "' has "
                         << target.getSockets();
  for (Operation &op : getBody().front())
    if (!isa<TensorOp, SectionOp>(op))
      return op.emitOpError("is not allowed directly in a df.program; only "
                            "df.tensor and df.section are");
  // The kernels of one loop are consecutive sections with its repeat; a
  // loop of several kernels is never one call with a pipelined outer loop.
  SectionOp previous;
  llvm::StringSet<> ended;
  for (auto section : getBody().front().getOps<SectionOp>()) {
    std::optional<StringRef> loop = section.getLoop();
    std::optional<StringRef> before =
        previous ? previous.getLoop() : std::nullopt;
    if (before && loop != before)
      ended.insert(*before);
    if (loop) {
      if (ended.contains(*loop))
        return section.emitOpError()
               << "is in loop \"" << *loop
               << "\", whose other kernels are not next to it; a loop's "
                  "sections are consecutive";
      if (section.getPipelined())
        return section.emitOpError()
               << "is one of the kernels of loop \"" << *loop
               << "\" and cannot be pipelined: consecutive calls are of "
                  "different kernels";
      if (before && *before == *loop &&
          previous.getRepeat() != section.getRepeat())
        return section.emitOpError()
               << "repeats " << section.getRepeat() << " times, but the "
               << "kernel before it in loop \"" << *loop << "\" "
               << previous.getRepeat() << "; a loop's kernels share its count";
    }
    previous = section;
  }
  return success();
}

RegionKind SectionOp::getRegionKind(unsigned) { return RegionKind::Graph; }

LogicalResult SectionOp::verify() {
  if (getRepeat() < 1 || getRepeat() > kMaxRepeat)
    return emitOpError() << "repeat must be from 1 to " << kMaxRepeat
                         << ", got " << getRepeat();
  return success();
}

LogicalResult TensorOp::verify() {
  CheckedInt bytes = getTensorBytes(getType());
  if (bytes.overflowed())
    return emitOpError("byte size exceeds a 64-bit count");
  if (*bytes.get() < 1)
    return emitOpError() << "holds no bytes (" << getType()
                         << "); a program's tensor has at least one element";
  return success();
}

/// `tiles` in [1, kMaxTiles].
static LogicalResult verifyTiles(Operation *op, StringRef name, int64_t tiles) {
  if (tiles < 1 || tiles > kMaxTiles)
    return op->emitOpError()
           << name << " must be from 1 to " << kMaxTiles << ", got " << tiles;
  return success();
}

/// `count` units of the chip's `key` (pcus of pcu_count, agcus of
/// agcu_count): at least 1 and at most what a socket of the target has.
static LogicalResult verifyUnits(Operation *op, StringRef name, int64_t count,
                                 StringRef key) {
  if (count < 1)
    return op->emitOpError()
           << "has " << count << " " << name << "; it needs at least one";
  TargetAttr target = getTarget(op);
  if (!target)
    return success(); // the program's verifier names the missing target
  int64_t perSocket = target.getSocketInteger(key);
  if (count > perSocket)
    return op->emitOpError()
           << "uses " << count << " " << name << " but a socket of its target '"
           << target.getName().strref() << "' has " << perSocket << " (socket."
           << key << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp, StoreOp
//===----------------------------------------------------------------------===//

/// `prefix_tiles` is a part of `tiles`.
static LogicalResult verifyPrefixTiles(Operation *op, int64_t prefix,
                                       int64_t tiles) {
  if (prefix < 0 || prefix > tiles)
    return op->emitOpError() << "prefix_tiles must be in [0, tiles = " << tiles
                             << "], got " << prefix;
  return success();
}

LogicalResult LoadOp::verify() {
  if (failed(verifyTiles(*this, "tiles", getTiles())) ||
      failed(verifyUnits(*this, "AGCUs", getAgcus(), "agcu_count")))
    return failure();
  if (failed(verifyPrefixTiles(*this, getPrefixTiles(), getTiles())))
    return failure();
  return verifyConsumed(*this);
}

LogicalResult LoadOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyTensorRef(*this, getSrcAttr(), getResult().getType(), symbols);
}

LogicalResult StoreOp::verifySymbolUses(SymbolTableCollection &symbols) {
  return verifyTensorRef(*this, getDstAttr(), getInput().getType(), symbols);
}

//===----------------------------------------------------------------------===//
// StageOp
//===----------------------------------------------------------------------===//

LogicalResult StageOp::verify() {
  if (failed(verifyUnits(*this, "PCUs", getPcus(), "pcu_count")) ||
      failed(verifyTiles(*this, "tiles", getTiles())))
    return failure();
  if (failed(verifyPrefixTiles(*this, getPrefixTiles(), getTiles())))
    return failure();
  if (getFlopsPerTile() < 0)
    return emitOpError("flops_per_tile must be >= 0");
  // The FLOPs of a step (per tile x tiles x the section's repeat) are
  // summed in 64 bits by the simulator and the roofline.
  auto section = (*this)->getParentOfType<SectionOp>();
  if ((CheckedInt(getFlopsPerTile()) * getTiles() *
       (section ? section.getRepeat() : 1))
          .overflowed())
    return emitOpError("does more FLOPs per step than a 64-bit count holds "
                       "(flops_per_tile x tiles x repeat)");
  if (getInputs().empty() && getOutputs().empty())
    return emitOpError("needs at least one input or output stream");
  if (std::optional<int64_t> rows = getRows()) {
    if (getKind() != arch::StageKind::Gemm)
      return emitOpError() << "has rows = " << *rows << " but is a "
                           << arch::stageKindName(getKind())
                           << " stage; rows are a gemm's (its systolic "
                              "arrays' M)";
    if (*rows < 1)
      return emitOpError() << "rows must be >= 1, got " << *rows;
  }
  if (auto counts = getOutputTiles()) {
    if (counts->size() != getOutputs().size())
      return emitOpError() << "has " << getOutputs().size()
                           << " outputs but output_tiles lists "
                           << counts->size();
    for (int64_t n : *counts)
      if (failed(verifyTiles(*this, "output_tiles", n)))
        return failure();
  }
  return verifyConsumed(*this);
}

//===----------------------------------------------------------------------===//
// BufferOp
//===----------------------------------------------------------------------===//

LogicalResult BufferOp::verify() {
  StreamType in = getInput().getType(), out = getResult().getType();
  if (in.getTile() != out.getTile())
    return emitOpError() << "stream tile type " << out.getTile()
                         << " does not match its producer's tile type "
                         << in.getTile();
  if (getPmus() < 1 || getBanks() < 1)
    return emitOpError("pmus and banks must be >= 1");
  if (getReads() < 1)
    return emitOpError() << "reads must be >= 1, got " << getReads();
  if (getReads() > 1) {
    // Re-reading needs every input tile held at once.
    int64_t whole = getStreamTileCount(getInput()) * in.getTileBytes();
    if (getBytes() < whole)
      return emitOpError() << "re-reads its input but holds " << getBytes()
                           << " bytes of the " << whole << " it needs";
  }
  // A double-buffered buffer holds two halves of `depth` tiles each.
  int64_t halves = getDoubleBuffered() ? 2 : 1;
  int64_t need = out.getTileBytes() * out.getDepth() * halves;
  if (getBytes() < need)
    return emitOpError() << "holds " << getBytes() << " bytes but "
                         << halves * out.getDepth() << " tiles of "
                         << out.getTileBytes() << " bytes need " << need;
  return verifyConsumed(*this);
}

//===----------------------------------------------------------------------===//
// CollectiveOp
//===----------------------------------------------------------------------===//

LogicalResult CollectiveOp::verify() {
  if (getGroupSize() < 2)
    return emitOpError() << "group_size must be >= 2, got " << getGroupSize();
  auto program = (*this)->getParentOfType<ProgramOp>();
  if (program && (getGroupSize() > program.getTp() ||
                  program.getTp() % getGroupSize() != 0))
    return emitOpError() << "group_size " << getGroupSize()
                         << " does not divide the program's tp "
                         << program.getTp();
  RankedTensorType in = getInput().getType().getTile();
  RankedTensorType out = getResult().getType().getTile();
  RankedTensorType expected = in;
  if (getKind() == arch::CollectiveKind::AllGather) {
    if (in.getRank() < 1)
      return emitOpError("all_gather needs tiles of rank >= 1");
    SmallVector<int64_t> shape(in.getShape());
    shape[0] *= getGroupSize();
    expected = RankedTensorType::get(shape, in.getElementType());
  }
  if (out != expected)
    return emitOpError() << "result tile type " << out << " is not the "
                         << arch::collectiveKindName(getKind())
                         << " of its producer's tile type " << in
                         << "; expected " << expected;
  return verifyConsumed(*this);
}
