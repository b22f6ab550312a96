//===- KVOps.h - kv dialect: caches, policies and ops ----------*- C++ -*-===//
//
// Everything the kv dialect declares: the dialect, the policy attributes and
// their interface, the cache types and their interface, and the ops.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_KV_IR_KVOPS_H
#define SNAPFLOW_DIALECT_KV_IR_KVOPS_H

#include "snapflow/Interfaces/CostInterface.h"
#include "snapflow/Interfaces/TrafficInterface.h"
#include "snapflow/Support/CheckedInt.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/Error.h"

#include "snapflow/Dialect/KV/IR/KVDialect.h.inc"
#include "snapflow/Dialect/KV/IR/KVEnums.h.inc"

namespace snapflow {
namespace kv {
class KVPolicyAttrInterface;
class KVFormatAttrInterface;

/// The widths of a cache a format's layout depends on.
struct CacheShape {
  int64_t keyWidth = 0;   ///< key elements per token (GQA) or the latent
  int64_t valueWidth = 0; ///< value elements per token (0 for a latent)
  /// Elements of one head's key: head_dim (GQA), or the latent's width
  /// without its rotary part (MLA), what a Hadamard transform rotates.
  int64_t headWidth = 0;
  int64_t groupsPerToken = 1; ///< heads a token's K and V split into
  int64_t dtypeBits = 16;
};

/// What a policy's prefill selection (its lowering hook) works from: the
/// attention whose prompt overflows the budget.
struct SelectionInputs {
  mlir::Value queries; ///< every prompt query, tensor<B x L x heads*dim>
  mlir::Value keys;    ///< every prompt key (GQA) or latent (MLA)
  mlir::Value keyUp;   ///< MLA: the absorbed key up-projection; else null
  int64_t batch = 0, prompt = 0, heads = 0;
  int64_t groups = 1; ///< one selection per KV-head group (GQA) or layer (MLA)
  int64_t slots = 0;  ///< the budget the cache keeps
  /// The cache after the attention (and, for a policy with a backup, after
  /// kv.backup digested the prompt's pages), and its layer.
  mlir::Value cache;
  int64_t layer = 0;
};

/// What a prefill selection returns: the kept tokens' indices, and for a
/// policy with per-slot state the per-token scores that state starts from.
struct Selection {
  mlir::Value indices; ///< tensor<B x groups x k x i32>, or null
  mlir::Value scores;  ///< tensor<B x groups x prompt x f32>, or null
};

/// What a policy's decode upkeep (its decode-time lowering hook) works
/// from: the cache after one decode attention and that attention's
/// probabilities over the cache's slots, summed per KV-head group.
struct UpkeepInputs {
  mlir::Value cache; ///< the cache the attention wrote
  mlir::Value probs; ///< tensor<B x groups x slots x f32>
  int64_t layer = 0;
};

/// What a policy's decode recall (its hook before a decode attention)
/// works from: the cache the attention would read and the step's query.
struct RecallInputs {
  mlir::Value cache; ///< the cache before the attention
  mlir::Value query; ///< tensor<B x T x heads*dim>, the attention's query
  int64_t heads = 0; ///< query heads
  int64_t layer = 0;
};

/// A published accuracy effect of a method, quoted (never simulated) by
/// `snapflow list --kv` and docs/KVMethods.md: a benchmark's score with the
/// method and without compression, in the source's own setting. The
/// figures come from ../shared/reference/SEED-SYSTEMS.md, section 9 (and
/// KIVI's LongBench table, section 5).
struct PublishedAccuracy {
  const char *benchmark; ///< "RULER 4K average", "LongBench v1, 16 tasks"
  const char *model;     ///< the model evaluated
  const char *setting;   ///< the method's setting, in the source's terms
  double full = 0;       ///< the score without compression
  double score = 0;      ///< the score with the method
  const char *source;    ///< where the figures are, and how they were read
};

/// Work per decode step, per layer and sequence.
struct StepCost {
  int64_t flops = 0, bytesRead = 0, bytesWritten = 0;
};

/// The policy as written on the command line: `#kv.snapstream<budget = 8,
/// sinks = 2>` is `snapstream:budget=8,sinks=2`.
std::string policyLabel(mlir::Attribute policy);

/// Parses a policy as written on the command line, `name[:key=value,...]`,
/// into its `#kv.name<key = value, ...>` attribute (any policy the dialect
/// defines, resolved or not). Errors name the string and what is wrong.
llvm::Expected<KVPolicyAttrInterface> parsePolicy(mlir::MLIRContext *context,
                                                  llvm::StringRef text);

namespace detail {
/// What parsePolicy and parseFormat share: `name[:key=value,...]` as the
/// attribute `#kv.name<key = value, ...>` through MLIR's attribute parser.
/// `what` names the kind in errors ("KV policy"), `names` are the valid
/// mnemonics, `usageOf(name)` the keys a name takes ("keys: ...", or
/// nullopt for an unknown name).
llvm::Expected<mlir::Attribute> parseSpelling(
    mlir::MLIRContext *context, llvm::StringRef text, llvm::StringRef what,
    llvm::ArrayRef<std::string> names,
    llvm::function_ref<std::optional<std::string>(llvm::StringRef)> usageOf);
} // namespace detail

/// parsePolicy, then resolveFor(contextTokens): the policy with every number
/// fixed for sequences of `contextTokens` tokens.
llvm::Expected<KVPolicyAttrInterface> resolvePolicy(mlir::MLIRContext *context,
                                                    llvm::StringRef text,
                                                    int64_t contextTokens);

/// The shape of a cache type, for its format.
CacheShape getCacheShape(mlir::Type cache);

/// Parses a format as written on the command line: a shorthand (`bf16`:
/// none, `fp8`, `kivi2`, `kivi4`, `quarot4`, `zipcache`) or
/// `name[:key=value,...]` as for policies, resolved (defaults filled).
/// `bf16` returns a null format. Errors name the string.
llvm::Expected<KVFormatAttrInterface> parseFormat(mlir::MLIRContext *context,
                                                  llvm::StringRef text);

/// Records on the module the policy and format kv-compress applied (their
/// resolved labels; kv.policy and kv.format).
void setApplied(mlir::Operation *module, llvm::StringRef policy,
                llvm::StringRef format);
/// The module's kv.policy and kv.format ("" for one it has not).
std::pair<std::string, std::string> getApplied(mlir::Operation *module);

/// One paragraph per format, for `snapflow list`.
std::string describeFormats();

/// Bytes `tokens` new tokens per sequence take as an op writes them into
/// one layer of `cache` (for the whole batch): quantized, the newest
/// residual ones at the dtype, when the format quantizes on this write;
/// else at the dtype.
CheckedInt getWriteBytes(mlir::Type cache, int64_t tokens, bool prefill);
/// FLOPs of quantizing what getWriteBytes writes (0 at the dtype).
CheckedInt getWriteFlops(mlir::Type cache, int64_t tokens, bool prefill);
/// FLOPs of dequantizing `tokens` stored tokens per sequence read from
/// one layer, for the whole batch (the residual ones need none).
CheckedInt getReadFlops(mlir::Type cache, int64_t tokens);

/// The selection groups of a cache: its KV heads (GQA), or 1 for a latent
/// cache shared by every head (MLA).
int64_t getGroups(mlir::Type cache);

/// Elements of one token's keys per layer in a cache: kv_heads * head_dim
/// (GQA), or the whole latent and rotary key (MLA, whose latent is both).
int64_t getKeyWidth(mlir::Type cache);

/// The decode upkeep of a policy that evicts by attention: one kv.evict
/// over the attention's probabilities (its cost is the policy's
/// getEvictCost). Returns the cache after it.
mlir::Value buildEvict(mlir::OpBuilder &builder, mlir::Location loc,
                       const UpkeepInputs &inputs);

/// One paragraph per policy: its name and usage, for `snapflow list`.
std::string describePolicies();

/// The published accuracy effects of every policy and format
/// (getPublishedAccuracy), one line each with its source, and "no
/// published reference" for those without; for `snapflow list --kv`.
std::string describePublishedAccuracy();

/// The budget keys shared by the policies with a token budget: exactly one
/// of `budget` (> 0) and `ratio` (>= 1). Emits the error naming `policy`.
mlir::LogicalResult
verifyBudgetKeys(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                 llvm::StringRef policy, std::optional<int64_t> budget,
                 std::optional<int64_t> ratio);

/// The slots of a budget policy for `contextTokens`: `budget`, or
/// ceil(context / ratio) (0 if that overflows).
int64_t budgetSlots(std::optional<int64_t> budget, std::optional<int64_t> ratio,
                    int64_t contextTokens);

/// The budget checks shared by the policies that score prompt tokens:
/// `budget` slots (for a context of `contextTokens` > 0) must not exceed
/// the context and must hold an observation window and one chosen token.
/// Emits the error naming `policy` and returns false otherwise.
bool checkSelectionBudget(
    llvm::StringRef policy, int64_t contextTokens, int64_t budget,
    llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// The pooling kernel of a policy that pools prompt scores over a prompt
/// of at least `budget` tokens: `kernel` as given, which must fit the
/// budget, or `defaultKernel` narrowed to the widest odd width that does
/// (a 3-token context pooled 7 wide failed in kv.pool's verifier, R17).
/// -1 after an error naming `policy` and its `kernel` key.
int64_t
resolvePoolKernel(llvm::StringRef policy, std::optional<int64_t> kernel,
                  int64_t defaultKernel, int64_t budget,
                  llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// The SnapKV selection shared by the policies that score prompt tokens:
/// kv.score of the last `obsWindow` queries against every prompt key,
/// kv.pool of width `kernel`, kv.topk of `slots - sinks - recent` tokens
/// outside the sinks and the recent window. Returns the indices.
/// `kernel` 1 pools nothing (no kv.pool). Returns the indices and the
/// scores they were chosen by.
Selection buildScoredSelection(mlir::OpBuilder &builder, mlir::Location loc,
                               const SelectionInputs &inputs, int64_t obsWindow,
                               int64_t kernel, PoolKind pool, int64_t sinks,
                               int64_t recent);
} // namespace kv
} // namespace snapflow

#include "snapflow/Dialect/KV/IR/KVAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "snapflow/Dialect/KV/IR/KVAttrs.h.inc"

#include "snapflow/Dialect/KV/IR/KVTypeInterfaces.h.inc"

#define GET_TYPEDEF_CLASSES
#include "snapflow/Dialect/KV/IR/KVTypes.h.inc"

#define GET_OP_CLASSES
#include "snapflow/Dialect/KV/IR/KVOps.h.inc"

#endif // SNAPFLOW_DIALECT_KV_IR_KVOPS_H
