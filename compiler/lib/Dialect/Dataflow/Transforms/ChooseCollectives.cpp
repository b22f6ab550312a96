//===- ChooseCollectives.cpp - The algorithm of every df.collective -------===//
//
// Decides, once and in the IR, how each collective moves its data: the
// simulator runs what is recorded here, and the report and trace show it.
// The cost model is arch/Collectives.h, the one the simulator times with.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/Dataflow/Transforms/Passes.h"

#include "snapflow/Arch/Collectives.h"

namespace snapflow {
namespace df {
#define GEN_PASS_DEF_CHOOSECOLLECTIVES
#include "snapflow/Dialect/Dataflow/Transforms/Passes.h.inc"
} // namespace df
} // namespace snapflow

using namespace mlir;
using namespace snapflow;

namespace {

struct ChooseCollectivesPass
    : public snapflow::df::impl::ChooseCollectivesBase<ChooseCollectivesPass> {
  void runOnOperation() override {
    (void)df::forEachProgram(getOperation(), [&](df::ProgramOp program,
                                                 const arch::ArchModel &chip) {
      choose(program, chip);
      return success();
    });
  }

  /// Every collective of `program` without an algorithm gets `chip`'s.
  static void choose(df::ProgramOp program, const arch::ArchModel &chip) {
    program.walk([&](df::CollectiveOp c) {
      if (c.getAlgorithm())
        return;
      double bytes = double(df::getStreamTileCount(c.getInput())) *
                     double(c.getInput().getType().getTileBytes());
      arch::CollectiveCost cost = arch::chooseCollective(
          c.getKind(), bytes, c.getGroupSize(), chip.system());
      c.setAlgorithm(cost.algorithm);
    });
  }
};

} // namespace
