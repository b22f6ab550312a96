//===- PipelineLoops.cpp - Kernel loops as pipelined outer loops ----------===//
//
// Kernel looping (Koeplinger et al., arXiv 2410.23668) turns consecutive
// calls of the decoder-layer kernel into one kernel with a pipelined outer
// loop; a layer loop of several kernels (an MoE layer) has no consecutive
// calls of one kernel and stays as it is. What that overlaps is inferred
// (docs/Simulator.md): the next layer's weights and KV stream in while this
// layer's tail drains. This pass marks the loops and gives their off-chip loads
// the SRAM to run ahead into; the simulator does the overlapping.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/Dataflow/Transforms/Passes.h"
#include "snapflow/Dialect/Dataflow/Transforms/SectionMemory.h"

#include "snapflow/Arch/ArchModel.h"

#include <cmath>

namespace snapflow {
namespace df {
#define GEN_PASS_DEF_PIPELINELOOPS
#include "snapflow/Dialect/Dataflow/Transforms/Passes.h.inc"
} // namespace df
} // namespace snapflow

using namespace mlir;
using namespace snapflow;

namespace {

struct PipelineLoopsPass
    : public snapflow::df::impl::PipelineLoopsBase<PipelineLoopsPass> {
  using PipelineLoopsBase::PipelineLoopsBase;

  void runOnOperation() override {
    if (!overlap)
      return;
    (void)df::forEachProgram(getOperation(), [&](df::ProgramOp program,
                                                 const arch::ArchModel &chip) {
      run(program, chip);
      return success();
    });
  }

  void run(df::ProgramOp program, const arch::ArchModel &chip) {
    int64_t capacity = chip.tierBytesPerSocket(arch::MemoryTier::SRAM);
    df::MemoryPlanAttr plan = df::getMemoryPlan(program);
    llvm::StringMap<arch::MemoryTier> tierOf;
    for (df::TensorOp t : program.getBody().front().getOps<df::TensorOp>())
      tierOf[t.getSymName()] = t.getTier().getValue();

    // The plan's SRAM becomes the busiest section, its prefetch included.
    int64_t prefetch = 0, peak = 0;
    for (const SectionSram &held : sectionSram(program)) {
      df::SectionOp sec = held.section;
      peak = std::max(peak, held.total());
      // A loop of several kernels calls each in turn: no call is followed
      // by one of the same kernel, so nothing can be looped.
      if (sec.getRepeat() <= 1 || sec.getLoop())
        continue;
      sec.setPipelined(true);
      // The loads that may run a whole iteration ahead, and their bytes.
      SmallVector<df::LoadOp> loads;
      double wanted = 0;
      for (df::LoadOp load : sec.getBody().front().getOps<df::LoadOp>()) {
        auto tier = tierOf.find(load.getSrc());
        if (tier == tierOf.end() || tier->second == arch::MemoryTier::SRAM)
          continue;
        loads.push_back(load);
        wanted += double(load.getTiles()) *
                  double(load.getResult().getType().getTileBytes());
      }
      double spare = double(std::max<int64_t>(0, capacity - held.total()));
      double scale = wanted > 0 ? std::min(1.0, spare / wanted) : 0;
      int64_t bytes = 0;
      for (df::LoadOp load : loads) {
        auto type = load.getResult().getType();
        auto extra =
            static_cast<int64_t>(std::floor(double(load.getTiles()) * scale));
        if (extra <= 0)
          continue;
        load.getResult().setType(df::StreamType::get(
            type.getContext(), type.getTile(), type.getDepth() + extra));
        bytes += extra * type.getTileBytes();
      }
      prefetch = std::max(prefetch, bytes);
      peak = std::max(peak, held.total() + bytes);
    }
    if (plan && prefetch > 0)
      df::setMemoryPlan(
          program, df::MemoryPlanAttr::get(
                       program.getContext(), plan.getWeightsBytes(),
                       plan.getKvBytes(), plan.getActivationBytes(), peak,
                       plan.getHbmBytes(), plan.getDdrBytes(),
                       plan.getMaxBatch(), prefetch, plan.getDiagnostic()));
  }
};

} // namespace
