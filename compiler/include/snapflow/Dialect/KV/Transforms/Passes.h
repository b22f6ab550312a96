//===- Passes.h - kv transformation passes ---------------------*- C++ -*-===//

#ifndef SNAPFLOW_DIALECT_KV_TRANSFORMS_PASSES_H
#define SNAPFLOW_DIALECT_KV_TRANSFORMS_PASSES_H

#include "snapflow/Dialect/KV/IR/KVOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace snapflow {
namespace kv {

#define GEN_PASS_DECL
#include "snapflow/Dialect/KV/Transforms/Passes.h.inc"

/// kv-compress with a policy and format the caller has parsed (the
/// driver's, in the module's context), so nothing is parsed again; a null
/// `format` is bf16. The policy is still resolved for `context` tokens.
std::unique_ptr<mlir::Pass> createKVCompress(KVPolicyAttrInterface policy,
                                             KVFormatAttrInterface format,
                                             int64_t context);

#define GEN_PASS_REGISTRATION
#include "snapflow/Dialect/KV/Transforms/Passes.h.inc"

} // namespace kv
} // namespace snapflow

#endif // SNAPFLOW_DIALECT_KV_TRANSFORMS_PASSES_H
