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

#define GEN_PASS_REGISTRATION
#include "snapflow/Dialect/KV/Transforms/Passes.h.inc"

} // namespace kv
} // namespace snapflow

#endif // SNAPFLOW_DIALECT_KV_TRANSFORMS_PASSES_H
