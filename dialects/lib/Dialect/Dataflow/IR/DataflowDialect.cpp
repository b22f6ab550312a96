//===- DataflowDialect.cpp - df dialect: verifiers -------------------------===//
//
// Structural rules of dataflow programs: streams carry tiles of one type from
// one producer, loads and stores name declared tensors of matching element
// type, every stage has PCUs and every stream a consumer. Sections are graph
// regions, so streams may form cycles (a deadlock is the simulator's finding,
// not a verifier error).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace snapflow::df;

#include "snapflow/Dialect/Dataflow/IR/DataflowDialect.cpp.inc"
#include "snapflow/Dialect/Dataflow/IR/DataflowEnums.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "snapflow/Dialect/Dataflow/IR/DataflowTypes.cpp.inc"
#define GET_OP_CLASSES
#include "snapflow/Dialect/Dataflow/IR/DataflowOps.cpp.inc"

void DFDialect::initialize() {
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
static LogicalResult verifyTensorRef(Operation *op, FlatSymbolRefAttr ref,
                                     StreamType stream) {
  auto program = op->getParentOfType<ProgramOp>();
  auto tensor = program ? SymbolTable::lookupNearestSymbolFrom<TensorOp>(
                              program, ref.getAttr())
                        : TensorOp();
  if (!tensor)
    return op->emitOpError() << "names " << ref
                             << ", which is not a df.tensor of the program";
  auto type = cast<RankedTensorType>(tensor.getType());
  RankedTensorType tile = stream.getTile();
  if (tile.getElementType() != type.getElementType())
    return op->emitOpError() << "stream tile element type "
                             << tile.getElementType()
                             << " does not match tensor " << ref << " of type "
                             << type;
  if (tile.getRank() != type.getRank())
    return op->emitOpError() << "stream tile " << tile
                             << " does not have the rank of tensor " << ref
                             << " (" << type << ")";
  for (auto [t, d] : llvm::zip(tile.getShape(), type.getShape()))
    if (t <= 0 || d % t != 0)
      return op->emitOpError() << "stream tile " << tile
                               << " does not tile tensor " << ref << " ("
                               << type << ") evenly";
  return success();
}

//===----------------------------------------------------------------------===//
// ProgramOp, SectionOp
//===----------------------------------------------------------------------===//

LogicalResult ProgramOp::verify() {
  if (getTp() < 1)
    return emitOpError() << "tp must be >= 1, got " << getTp();
  if (getChip().empty())
    return emitOpError("needs the name of the chip it was mapped for");
  for (Operation &op : getBody().front())
    if (!isa<TensorOp, SectionOp>(op))
      return op.emitOpError("is not allowed directly in a df.program; only "
                            "df.tensor and df.section are");
  return success();
}

RegionKind SectionOp::getRegionKind(unsigned) { return RegionKind::Graph; }

LogicalResult SectionOp::verify() {
  if (getRepeat() < 1)
    return emitOpError() << "repeat must be >= 1, got " << getRepeat();
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp, StoreOp
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  if (getTiles() < 1)
    return emitOpError() << "tiles must be >= 1, got " << getTiles();
  if (failed(verifyTensorRef(*this, getSrcAttr(), getResult().getType())))
    return failure();
  return verifyConsumed(*this);
}

LogicalResult StoreOp::verify() {
  return verifyTensorRef(*this, getDstAttr(), getInput().getType());
}

//===----------------------------------------------------------------------===//
// StageOp
//===----------------------------------------------------------------------===//

LogicalResult StageOp::verify() {
  if (getPcus() < 1)
    return emitOpError() << "has " << getPcus()
                         << " PCUs; every stage needs at least one";
  if (getTiles() < 1)
    return emitOpError() << "tiles must be >= 1, got " << getTiles();
  if (getFlopsPerTile() < 0)
    return emitOpError("flops_per_tile must be >= 0");
  if (getInputs().empty() && getOutputs().empty())
    return emitOpError("needs at least one input or output stream");
  if (auto counts = getOutputTiles()) {
    if (counts->size() != getOutputs().size())
      return emitOpError() << "has " << getOutputs().size()
                           << " outputs but output_tiles lists "
                           << counts->size();
    for (int64_t n : *counts)
      if (n < 1)
        return emitOpError() << "output_tiles must be >= 1, got " << n;
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
  if (getKind() == CollectiveKind::all_gather) {
    if (in.getRank() < 1)
      return emitOpError("all_gather needs tiles of rank >= 1");
    SmallVector<int64_t> shape(in.getShape());
    shape[0] *= getGroupSize();
    expected = RankedTensorType::get(shape, in.getElementType());
  }
  if (out != expected)
    return emitOpError() << "result tile type " << out << " is not the "
                         << stringifyCollectiveKind(getKind())
                         << " of its producer's tile type " << in
                         << "; expected " << expected;
  return verifyConsumed(*this);
}
