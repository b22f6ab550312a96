//===- ProgramStats.cpp - What a df program moves and computes ------------===//

#include "snapflow/Analysis/ProgramStats.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace snapflow;

ProgramStats snapflow::computeProgramStats(df::ProgramOp program) {
  ProgramStats s;
  auto tierOf = [&](FlatSymbolRefAttr ref) {
    auto t = SymbolTable::lookupNearestSymbolFrom<df::TensorOp>(program, ref);
    return static_cast<int>(t ? t.getTier() : df::Tier::hbm);
  };
  for (auto section : program.getBody().front().getOps<df::SectionOp>()) {
    int64_t times = section.getRepeat();
    ++s.sections;
    for (Operation &op : section.getBody().front()) {
      if (auto load = dyn_cast<df::LoadOp>(op)) {
        s.bytesLoaded[tierOf(load.getSrcAttr())] +=
            times * load.getTiles() * load.getResult().getType().getTileBytes();
      } else if (auto store = dyn_cast<df::StoreOp>(op)) {
        s.bytesStored[tierOf(store.getDstAttr())] +=
            times * df::getStreamTileCount(store.getInput()) *
            store.getInput().getType().getTileBytes();
      } else if (auto stage = dyn_cast<df::StageOp>(op)) {
        s.flops += times * stage.getTiles() * stage.getFlopsPerTile();
        ++s.stages;
      } else if (auto c = dyn_cast<df::CollectiveOp>(op)) {
        s.collectiveBytes += times * df::getStreamTileCount(c.getInput()) *
                             c.getInput().getType().getTileBytes();
      }
    }
  }
  return s;
}
