//===- KVOps.h - kv dialect: caches, policies and ops ----------*- C++ -*-===//
//
// Everything the kv dialect declares: the dialect, the policy attributes and
// their interface, the cache types and their interface, and the ops.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_KV_IR_KVOPS_H
#define SNAPFLOW_DIALECT_KV_IR_KVOPS_H

#include "snapflow/Interfaces/CostInterface.h"
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

/// What a policy's prefill selection (its lowering hook) works from: the
/// attention whose prompt overflows the budget.
struct SelectionInputs {
  mlir::Value queries; ///< every prompt query, tensor<B x L x heads*dim>
  mlir::Value keys;    ///< every prompt key (GQA) or latent (MLA)
  mlir::Value keyUp;   ///< MLA: the absorbed key up-projection; else null
  int64_t batch = 0, prompt = 0, heads = 0;
  int64_t groups = 1; ///< one selection per KV-head group (GQA) or layer (MLA)
  int64_t slots = 0;  ///< the budget the cache keeps
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

/// parsePolicy, then resolveFor(contextTokens): the policy with every number
/// fixed for sequences of `contextTokens` tokens.
llvm::Expected<KVPolicyAttrInterface>
resolvePolicy(mlir::MLIRContext *context, llvm::StringRef text,
              int64_t contextTokens);

/// One paragraph per policy: its name and usage, for `snapflow list`.
std::string describePolicies();

/// The budget checks shared by the policies that score prompt tokens:
/// `budget` slots (for a context of `contextTokens` > 0) must not exceed
/// the context and must hold an observation window and one chosen token.
/// Emits the error naming `policy` and returns false otherwise.
bool checkSelectionBudget(llvm::StringRef policy, int64_t contextTokens,
                          int64_t budget,
                          llvm::function_ref<mlir::InFlightDiagnostic()>
                              emitError);

/// The SnapKV selection shared by the policies that score prompt tokens:
/// kv.score of the last `obsWindow` queries against every prompt key,
/// kv.pool of width `kernel`, kv.topk of `slots - sinks - recent` tokens
/// outside the sinks and the recent window. Returns the indices.
mlir::Value buildScoredSelection(mlir::OpBuilder &builder, mlir::Location loc,
                                 const SelectionInputs &inputs,
                                 int64_t obsWindow, int64_t kernel,
                                 PoolKind pool, int64_t sinks, int64_t recent);
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
