//===- PlanSram.cpp - The memory plan, section by section
//------------------===//
//
// plan-memory places activations by their live ranges in the phase function,
// before there are streams. Once lower-to-df has built the sections, this
// pass checks what each really holds at once (SectionMemory.h): all its
// stages run together, so every stream buffer at its depth, plus the SRAM
// tensors live across it. While a section over-commits the PMUs it moves the
// largest SRAM tensor live there to HBM; a section whose stream buffers alone
// exceed SRAM cannot run, and the plan says so. The plan's `sram_bytes`
// becomes the busiest section's occupancy.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/Dataflow/Transforms/Passes.h"
#include "snapflow/Dialect/Dataflow/Transforms/SectionMemory.h"

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Interfaces/CostInterface.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace snapflow {
namespace df {
#define GEN_PASS_DEF_PLANSRAM
#include "snapflow/Dialect/Dataflow/Transforms/Passes.h.inc"
} // namespace df
} // namespace snapflow

using namespace mlir;
using namespace snapflow;

static int64_t tensorBytes(df::TensorOp t) {
  return getTensorBytes(t.getType()).get().value_or(0);
}

SmallVector<SectionSram> snapflow::sectionSram(df::ProgramOp program) {
  Block &body = program.getBody().front();
  SmallVector<SectionSram> out;
  llvm::StringMap<std::pair<int, int>> liveRange;
  for (df::SectionOp sec : body.getOps<df::SectionOp>()) {
    SectionSram s;
    s.section = sec;
    int here = static_cast<int>(out.size());
    auto touch = [&](StringRef name) {
      auto [it, fresh] = liveRange.try_emplace(name, here, here);
      if (!fresh)
        it->second.second = here;
    };
    for (Operation &op : sec.getBody().front()) {
      for (Value r : op.getResults())
        if (auto st = dyn_cast<df::StreamType>(r.getType()))
          s.streamBytes += st.getDepth() * st.getTileBytes();
      if (auto load = dyn_cast<df::LoadOp>(op))
        touch(load.getSrc());
      else if (auto store = dyn_cast<df::StoreOp>(op))
        touch(store.getDst());
    }
    out.push_back(std::move(s));
  }
  for (df::TensorOp t : body.getOps<df::TensorOp>()) {
    if (t.getTier().getValue() != arch::MemoryTier::SRAM)
      continue;
    auto range = liveRange.find(t.getSymName());
    if (range == liveRange.end())
      continue;
    for (int i = range->second.first; i <= range->second.second; ++i) {
      out[i].tensorBytes += tensorBytes(t);
      if (!t.getKvCache())
        out[i].live.push_back(t);
    }
  }
  return out;
}

namespace {

double mb(int64_t bytes) { return double(bytes) / 1e6; }

struct PlanSramPass : public snapflow::df::impl::PlanSramBase<PlanSramPass> {
  using PlanSramBase::PlanSramBase;

  void runOnOperation() override {
    if (failed(df::forEachProgram(
            getOperation(),
            [&](df::ProgramOp program, const arch::ArchModel &chip) {
              return plan(program, chip);
            })))
      signalPassFailure();
  }

  LogicalResult plan(df::ProgramOp program, const arch::ArchModel &chip) {
    int64_t cap = chip.tierBytesPerSocket(arch::MemoryTier::SRAM);
    int64_t spilled = 0;
    SmallVector<SectionSram> sections = sectionSram(program);
    auto busiest = [&] {
      return std::max_element(sections.begin(), sections.end(),
                              [](const SectionSram &a, const SectionSram &b) {
                                return a.total() < b.total();
                              });
    };
    std::string misfit;
    while (!sections.empty() && busiest()->total() > cap) {
      SectionSram &worst = *busiest();
      if (worst.live.empty()) {
        misfit = llvm::formatv(
            "{0}: section {1} holds {2:f1} MB of stream buffers at once (its "
            "stages run together); a socket of {3} has {4:f1} MB of SRAM",
            program.getSymName(), worst.section.getSymName(),
            mb(worst.streamBytes), chip.getName(), mb(cap));
        break;
      }
      // The largest tensor live there moves to HBM (ties: declared first).
      df::TensorOp victim =
          *std::max_element(worst.live.begin(), worst.live.end(),
                            [](df::TensorOp a, df::TensorOp b) {
                              return tensorBytes(a) < tensorBytes(b);
                            });
      victim.setTierAttr(
          df::TierAttr::get(program.getContext(), arch::MemoryTier::HBM));
      int64_t bytes = tensorBytes(victim);
      spilled += bytes;
      // It leaves every section it was live across.
      for (SectionSram &s : sections)
        if (llvm::is_contained(s.live, victim)) {
          s.tensorBytes -= bytes;
          llvm::erase(s.live, victim);
        }
    }
    int64_t peak = sections.empty() ? 0 : busiest()->total();

    df::MemoryPlanAttr plan = df::getMemoryPlan(program);
    if (!plan)
      return success();
    int64_t hbm = plan.getHbmBytes() + spilled;
    int64_t hbmCap = chip.tierBytesPerSocket(arch::MemoryTier::HBM);
    if (misfit.empty() && spilled > 0 && hbm > hbmCap)
      misfit = llvm::formatv(
          "{0}: moving {1:f1} MB of activations out of SRAM (sections hold "
          "their stream buffers and live tensors at once) needs {2:f1} GiB "
          "HBM per socket; {3} has {4:f1} GiB",
          program.getSymName(), mb(spilled), double(hbm) / (1LL << 30),
          chip.getName(), double(hbmCap) / (1LL << 30));
    if (!misfit.empty() && requireFit)
      return program.emitOpError() << misfit;
    // A misfit plan-memory found stays the plan's first word.
    StringRef diagnostic = plan.getDiagnostic();
    std::string why = diagnostic.empty() ? misfit : diagnostic.str();
    df::setMemoryPlan(program,
                      df::MemoryPlanAttr::get(
                          program.getContext(), plan.getWeightsBytes(),
                          plan.getKvBytes(), plan.getActivationBytes(), peak,
                          hbm, plan.getDdrBytes(), plan.getMaxBatch(),
                          plan.getPrefetchBytes(), why));
    return success();
  }
};

} // namespace
