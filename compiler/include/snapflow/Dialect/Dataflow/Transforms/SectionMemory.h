//===- SectionMemory.h - What a df section holds in SRAM at once -*- C++
//-*-===//
//
// A section's stages run together, so while it runs a socket holds every
// stream buffer of the section at its depth, and every SRAM tensor whose
// live range (the first to the last section that loads or stores it) spans
// the section. plan-sram fits these to the PMUs; pipeline-loops gives the
// rest to prefetching; the simulator samples the same occupancy
// (SectionController::occupancy).
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_DATAFLOW_TRANSFORMS_SECTIONMEMORY_H
#define SNAPFLOW_DIALECT_DATAFLOW_TRANSFORMS_SECTIONMEMORY_H

#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"

#include "llvm/ADT/SmallVector.h"

namespace snapflow {

/// SRAM a section holds while it runs, per socket.
struct SectionSram {
  df::SectionOp section;
  int64_t streamBytes = 0; ///< every stream of the section at its depth
  int64_t tensorBytes = 0; ///< SRAM tensors live across the section
  /// Those tensors (the non-KV ones plan-sram may spill).
  llvm::SmallVector<df::TensorOp> live;
  int64_t total() const { return streamBytes + tensorBytes; }
};

/// Every section of `program`, in order.
llvm::SmallVector<SectionSram> sectionSram(df::ProgramOp program);

} // namespace snapflow

#endif // SNAPFLOW_DIALECT_DATAFLOW_TRANSFORMS_SECTIONMEMORY_H
