//===- ChooseCollectives.cpp - The algorithm of every df.collective -------===//
//
// Decides, once and in the IR, how each collective moves its data: the
// simulator runs what is recorded here, and the report and trace show it.
// The cost model is arch/Collectives.h, the one the simulator times with.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Mapping/Passes.h"

#include "snapflow/Arch/Collectives.h"

namespace snapflow {
#define GEN_PASS_DEF_CHOOSECOLLECTIVES
#include "snapflow/Mapping/Passes.h.inc"
} // namespace snapflow

using namespace mlir;
using namespace snapflow;

namespace {

arch::CollectiveKind convert(df::CollectiveKind kind) {
  switch (kind) {
  case df::CollectiveKind::all_reduce:
    return arch::CollectiveKind::AllReduce;
  case df::CollectiveKind::all_gather:
    return arch::CollectiveKind::AllGather;
  case df::CollectiveKind::all_to_all:
    return arch::CollectiveKind::AllToAll;
  }
  llvm_unreachable("unknown collective kind");
}

struct ChooseCollectivesPass
    : public snapflow::impl::ChooseCollectivesBase<ChooseCollectivesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    df::TargetAttr target = df::getTarget(module);
    bool any = false;
    module.walk([&](df::CollectiveOp c) { any |= !c.getAlgorithm(); });
    if (!any)
      return;
    if (!target) {
      module.emitError("choose-collectives: the module has no df.target; run "
                       "--assign-target first");
      return signalPassFailure();
    }
    arch::ArchModel chip = target.getArchModel();
    module.walk([&](df::CollectiveOp c) {
      if (c.getAlgorithm())
        return;
      double bytes = double(df::getStreamTileCount(c.getInput())) *
                     double(c.getInput().getType().getTileBytes());
      arch::CollectiveCost cost = arch::chooseCollective(
          convert(c.getKind()), bytes, c.getGroupSize(), chip.system());
      std::optional<df::CollectiveAlgorithm> algorithm =
          df::symbolizeCollectiveAlgorithm(
              arch::collectiveAlgorithmName(cost.algorithm));
      assert(algorithm && "df and arch name the same algorithms");
      c.setAlgorithm(*algorithm);
    });
  }
};

} // namespace
