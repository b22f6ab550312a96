//===- ProgramStats.cpp - What a df program moves and computes ------------===//

#include "snapflow/Analysis/ProgramStats.h"

#include "snapflow/Support/CheckedInt.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace snapflow;

FailureOr<ProgramStats> snapflow::computeProgramStats(df::ProgramOp program) {
  std::array<CheckedInt, 3> loaded{}, stored{};
  CheckedInt flops = 0, collective = 0;
  ProgramStats s;
  // One table for the program: a lookup without it scans the program, which
  // was quadratic over an unfused model's loads (R12).
  SymbolTable symbols(program);
  auto tierOf = [&](FlatSymbolRefAttr ref) {
    auto t = symbols.lookup<df::TensorOp>(ref.getAttr());
    return static_cast<int>(t ? t.getTier().getValue() : arch::MemoryTier::HBM);
  };
  auto streamBytes = [](Value stream) {
    return CheckedInt(df::getStreamTileCount(stream)) *
           cast<df::StreamType>(stream.getType()).getTileBytes();
  };
  for (auto section : program.getBody().front().getOps<df::SectionOp>()) {
    CheckedInt times = section.getRepeat();
    ++s.sections;
    for (Operation &op : section.getBody().front()) {
      if (auto load = dyn_cast<df::LoadOp>(op)) {
        loaded[tierOf(load.getSrcAttr())] +=
            times * streamBytes(load.getResult());
      } else if (auto store = dyn_cast<df::StoreOp>(op)) {
        stored[tierOf(store.getDstAttr())] +=
            times * streamBytes(store.getInput());
      } else if (auto stage = dyn_cast<df::StageOp>(op)) {
        flops += times * stage.getTiles() * stage.getFlopsPerTile();
        ++s.stages;
      } else if (auto c = dyn_cast<df::CollectiveOp>(op)) {
        collective += times * streamBytes(c.getInput());
      }
    }
  }
  CheckedInt all = flops + collective;
  for (int t = 0; t < 3; ++t)
    all += loaded[t] + stored[t];
  if (all.overflowed())
    return program.emitOpError("per-step totals (bytes moved, FLOPs) exceed "
                               "a 64-bit count");
  for (int t = 0; t < 3; ++t) {
    s.bytesLoaded[t] = loaded[t].value();
    s.bytesStored[t] = stored[t].value();
  }
  s.flops = flops.value();
  s.collectiveBytes = collective.value();
  return s;
}
