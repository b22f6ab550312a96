//===- Buffer.cpp - A PMU buffer between a producer and consumers ---------===//

#include "snapflow/Sim/Components/Buffer.h"

using namespace snapflow;
using namespace snapflow::sim;

const ComponentInfo &Buffer::info() {
  // Its PMUs, bytes and banks come from the program (df.buffer); its timing
  // from the on-chip network the tiles cross; its energy is its streams'
  // (each tile taken and handed on is read from and written to PMUs).
  static const StatInfo stats[] = {
      {"tiles_in", "tiles", "tiles taken from the producer"},
      {"tiles_out", "tiles", "tiles handed on (x reads)"},
  };
  static const NodeKind runs[] = {NodeKind::Buffer};
  static const ComponentInfo info{
      "PMU buffer",
      "a df.buffer: tiles staged in PMUs, re-read `reads` times",
      {},
      stats,
      runs,
      /*copies=*/false,
      /*ownClock=*/true};
  return info;
}

static ComponentRegistration
    registration({&Buffer::info, [](const BuildContext &) {
                    return single(std::make_unique<Buffer>());
                  }});

void Buffer::run(SectionRun &r, int index) {
  const Node &n = r.section->nodes[index];
  int64_t tiles = r.streamTiles(n.inputs[0]);

  for (int64_t pass = 0; pass < n.reads; ++pass)
    for (int64_t tile = 0; tile < tiles; ++tile) {
      if (pass == 0) {
        r.pop(index, n.inputs[0]);
        stats[TilesIn] += 1;
      }
      r.push(index, n.outputs[0], n.pmus);
      stats[TilesOut] += 1;
    }
}
