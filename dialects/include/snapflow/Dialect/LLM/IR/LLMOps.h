//===- LLMOps.h - llm dialect: model-level inference ops -------*- C++ -*-===//
//
// The llm dialect, its enum attributes, the workload attribute and its ops.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_LLM_IR_LLMOPS_H
#define SNAPFLOW_DIALECT_LLM_IR_LLMOPS_H

#include "snapflow/Arch/Phase.h"
#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Interfaces/CostInterface.h"
#include "snapflow/Interfaces/TrafficInterface.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "snapflow/Dialect/LLM/IR/LLMEnums.h.inc"

namespace snapflow {
namespace llm {
/// Parses `prefill` or `decode`.
mlir::FailureOr<arch::Phase> parsePhaseKeyword(mlir::AsmParser &parser);
} // namespace llm
} // namespace snapflow

// The attributes come first: the dialect declares typed helpers for its
// discardable attributes, which need the complete attribute classes.
#define GET_ATTRDEF_CLASSES
#include "snapflow/Dialect/LLM/IR/LLMAttrs.h.inc"

#include "snapflow/Dialect/LLM/IR/LLMDialect.h.inc"

#define GET_OP_CLASSES
#include "snapflow/Dialect/LLM/IR/LLMOps.h.inc"

namespace snapflow {
namespace llm {
/// The workload of a phase function or df.program (`llm.workload`), if any.
WorkloadAttr getWorkload(mlir::Operation *op);
void setWorkload(mlir::Operation *op, WorkloadAttr workload);

/// The decoder layer an op belongs to (`llm.layer`). The model builder sets
/// it; passes that insert ops copy it from the op they extend.
std::optional<int64_t> getLayer(mlir::Operation *op);
void setLayer(mlir::Operation *op, int64_t layer);

/// Copies `from`'s layer marker, if any, to `to`.
void copyLayerMarker(mlir::Operation *from, mlir::Operation *to);

/// The TP group size shard-tp recorded on the module holding `op` (1 when
/// the module is not sharded).
int64_t getTensorParallelism(mlir::Operation *op);
void setTensorParallelism(mlir::Operation *module, int64_t tp);

/// The `prefix` of an attention (a chunk of a chunked prefill attends to
/// it besides its own tokens); 0 for any other op.
int64_t getPrefix(mlir::Operation *op);

/// Whether `op` is an attention that writes its new tokens' KV (every
/// attention but a later layer of a cross-layer-attention group,
/// `reuse_kv`); false for any other op.
bool writesKV(mlir::Operation *op);

/// The `window` of a GQA attention (its sliding or chunked span; 0 for a
/// full layer and for any other op).
int64_t getWindow(mlir::Operation *op);

/// The attribute marking a phase function's window cache argument (the
/// ring of its windowed layers, which no KV policy compresses), holding the
/// window in tokens.
constexpr llvm::StringLiteral kWindowCacheAttr = "llm.window";
/// Whether argument `index` of function `fn` is its window cache.
bool isWindowCache(mlir::Operation *fn, unsigned index);

/// Of an attention's FLOPs, those on the `prefix` of a chunked prefill's
/// last chunk (0 for any other op): chunk j of n does j/(n-1) of them.
::snapflow::CheckedInt getPrefixFlops(mlir::Operation *op);

/// Slots of the prompt staging a chunked prefill function keeps in HBM: a
/// prompt longer than its compressing cache is written chunk by chunk to a
/// copy of all its tokens, which the next chunks attend to and the
/// end-of-prefill selection reads (0: none; the chunks write the cache).
int64_t getStagedPromptSlots(mlir::Operation *fn);

/// The model name, config model_type, config fingerprint
/// (ModelConfig::fingerprint) and the weights' dtype ("bf16", "fp8") the
/// builder records on the module.
void setModel(mlir::Operation *module, llvm::StringRef name,
              llvm::StringRef modelType, llvm::StringRef fingerprint,
              llvm::StringRef weightsDtype);
/// The module's llm.model, llm.model_fingerprint and llm.weights_dtype ("" when
/// it has none).
std::string getModelName(mlir::Operation *module);
std::string getModelFingerprint(mlir::Operation *module);
std::string getWeightsDtype(mlir::Operation *module);
} // namespace llm
} // namespace snapflow

#endif // SNAPFLOW_DIALECT_LLM_IR_LLMOPS_H
