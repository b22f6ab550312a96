//===- OpKinds.h - Which model operator each op works for -------*- C++ -*-===//
//
// Names the model operator (arch::OpKind) every op of a phase function of
// llm/kv IR works for, so that lower-to-df can tag each df node it emits
// and a run's profile can say "the routed experts' loads" rather than
// "some gemm". Most ops name themselves (an attention, a router, an
// embedding); a projection is named by where it stands: an llm.linear (or
// rope, or a norm between two linears) that feeds an attention's query,
// keys, values or latent is the QKV projection, the first llm.linear after
// an attention's result the output projection, and an MLP whose result is
// added to an MoE's is the MoE's shared experts.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_ANALYSIS_OPKINDS_H
#define SNAPFLOW_ANALYSIS_OPKINDS_H

#include "snapflow/Arch/OpKind.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

namespace snapflow {

class OpKindAnalysis {
public:
  /// Names every op of `fn`, loop bodies included.
  explicit OpKindAnalysis(mlir::func::FuncOp fn);

  /// The operator `op` works for; OpKind::Other for an op nothing names (a
  /// stand-alone linear, say).
  arch::OpKind lookup(mlir::Operation *op) const;

private:
  llvm::DenseMap<mlir::Operation *, arch::OpKind> kinds;
};

} // namespace snapflow

#endif // SNAPFLOW_ANALYSIS_OPKINDS_H
