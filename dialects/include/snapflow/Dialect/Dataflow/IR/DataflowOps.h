//===- DataflowOps.h - df dialect: tiled dataflow programs -----*- C++ -*-===//
//
// The df dialect: its stream type, the typed attributes that carry
// the compiler-simulator contract (target chip, stage mapping, sections,
// placement, memory plan) and the ops.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_DATAFLOW_IR_DATAFLOWOPS_H
#define SNAPFLOW_DIALECT_DATAFLOW_IR_DATAFLOWOPS_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Arch/Collectives.h"
#include "snapflow/Arch/OpKind.h"
#include "snapflow/Arch/StageKind.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <mutex>

namespace snapflow {
namespace df {
/// Parses `sram`, `hbm` or `ddr`.
mlir::FailureOr<arch::MemoryTier> parseTierKeyword(mlir::AsmParser &parser);
/// Parses an operator kind a node may be tagged with (`qkv_projection`, ...).
mlir::FailureOr<arch::OpKind> parseOpKindKeyword(mlir::AsmParser &parser);
/// Parses a stage kind (`gemm`, ...).
mlir::FailureOr<arch::StageKind> parseStageKindKeyword(mlir::AsmParser &parser);
/// Parses a collective kind (`all_reduce`, ...).
mlir::FailureOr<arch::CollectiveKind>
parseCollectiveKindKeyword(mlir::AsmParser &parser);
/// Parses a concrete collective algorithm (`ring`, ...; not `auto`).
mlir::FailureOr<arch::CollectiveAlgorithm>
parseCollectiveAlgorithmKeyword(mlir::AsmParser &parser);
} // namespace df
} // namespace snapflow

// The attributes come first: the dialect declares typed helpers for its
// discardable attributes, which need the complete attribute classes.
#define GET_ATTRDEF_CLASSES
#include "snapflow/Dialect/Dataflow/IR/DataflowAttrs.h.inc"

#include "snapflow/Dialect/Dataflow/IR/DataflowDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "snapflow/Dialect/Dataflow/IR/DataflowTypes.h.inc"

#define GET_OP_CLASSES
#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h.inc"

namespace snapflow {
namespace df {
/// What the verifier accepts of a program (docs/Dialects/Dataflow.md,
/// "Limits"): a load's or stage's `tiles` and `output_tiles` up to 2^24, a
/// section's `repeat` up to 2^20. A compiled 128K-token DeepSeek-R1 prefill
/// on sn40l-16 moves at most 32768 tiles per op and repeats a section 96
/// times; the simulator spends an event per tile, so the bounds bound its
/// work per step.
constexpr int64_t kMaxTiles = int64_t(1) << 24;
constexpr int64_t kMaxRepeat = int64_t(1) << 20;

/// Tiles a stream carries in one run of its section: a load's `tiles`, a
/// stage output's `output_tiles` entry (or `tiles`), a buffer's input times
/// `reads`, a collective's input count.
int64_t getStreamTileCount(mlir::Value stream);

/// A collective's recorded algorithm (`via`); without `via`, Auto.
arch::CollectiveAlgorithm getArchAlgorithm(CollectiveOp op);

/// Runs `fn` on each df.program of `module` with the chip of the module's
/// df.target, stopping at the first failure. A module without a target has
/// no df.program (the df verifier), so nothing runs.
mlir::LogicalResult forEachProgram(
    mlir::ModuleOp module,
    llvm::function_ref<mlir::LogicalResult(ProgramOp, const arch::ArchModel &)>
        fn);

/// The operator a load, store or stage works for (its `for` tag), or
/// nullopt for an untagged node or another op.
std::optional<arch::OpKind> getOpKind(mlir::Operation *op);

/// The target chip of the module holding `op` (its `df.target`), or null.
TargetAttr getTarget(mlir::Operation *op);

/// The typed discardable attributes, read and written through the
/// dialect's generated helpers (declared in DataflowDialect.td).
StageMapAttr getStageMap(mlir::Operation *op);
void setStageMap(mlir::Operation *op, StageMapAttr value);
/// The section index tile-and-map gave `op`, if any.
std::optional<int64_t> getSection(mlir::Operation *op);
void setSection(mlir::Operation *op, int64_t section);
/// The SectionMapAttr list of a mapped function or program.
mlir::ArrayAttr getSections(mlir::Operation *op);
void setSections(mlir::Operation *op, llvm::ArrayRef<SectionMapAttr> sections);
PlacementAttr getPlacement(mlir::Operation *op);
void setPlacement(mlir::Operation *op, PlacementAttr value);
MemoryPlanAttr getMemoryPlan(mlir::Operation *op);
void setMemoryPlan(mlir::Operation *op, MemoryPlanAttr value);
KVUpkeepAttr getKVUpkeep(mlir::Operation *op);
void setKVUpkeep(mlir::Operation *op, KVUpkeepAttr value);
void setTarget(mlir::Operation *module, TargetAttr value);
/// What compiled the module (record-provenance): string values by key.
mlir::DictionaryAttr getProvenance(mlir::Operation *module);
void setProvenance(mlir::Operation *module, mlir::DictionaryAttr value);
} // namespace df
} // namespace snapflow

#endif // SNAPFLOW_DIALECT_DATAFLOW_IR_DATAFLOWOPS_H
