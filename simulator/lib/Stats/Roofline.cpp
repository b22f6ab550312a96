//===- Roofline.cpp - Lower bound on a step's time ------------------------===//

#include "snapflow/Sim/Stats/Roofline.h"

#include "snapflow/Arch/Collectives.h"

#include <algorithm>

using namespace snapflow;
using namespace snapflow::sim;

Roofline snapflow::sim::computeRoofline(const Program &p,
                                        const arch::ArchModel &chip) {
  Roofline r;
  // A chunked prefill counts every chunk, its prefix work growing.
  for (int64_t chunk = 0; chunk < p.chunks; ++chunk)
    for (const Section &sec : p.sections) {
      double times = double(sec.repeat);
      Section::ChunkTiles tiles = sec.tilesInChunk(chunk, p.chunks);
      for (size_t k = 0; k < sec.nodes.size(); ++k) {
        const Node &n = sec.nodes[k];
        switch (n.kind) {
        case NodeKind::Load: {
          int t = static_cast<int>(p.tensors[n.tensor].tier);
          r.bytes[t] += times * double(tiles.nodes[k]) *
                        double(sec.streams[n.outputs[0]].tileBytes);
          break;
        }
        case NodeKind::Store: {
          const Stream &in = sec.streams[n.inputs[0]];
          int t = static_cast<int>(p.tensors[n.tensor].tier);
          r.bytes[t] +=
              times * double(tiles.streams[n.inputs[0]]) * double(in.tileBytes);
          break;
        }
        case NodeKind::Stage:
          (n.stageKind == StageKind::Gemm ? r.systolicFlops : r.simdFlops) +=
              times * double(tiles.nodes[k]) * double(n.flopsPerTile);
          break;
        case NodeKind::Collective: {
          const Stream &in = sec.streams[n.inputs[0]];
          // The algorithm the node runs with, on the simulated chip.
          double bytes =
              double(tiles.streams[n.inputs[0]]) * double(in.tileBytes);
          arch::CollectiveCost c = arch::chooseCollective(
              n.collective, bytes, std::max<int64_t>(2, n.group), chip.system(),
              n.algorithm);
          r.linkBytes += times * c.linkBytesPerByte * bytes;
          r.collectiveLatencySeconds += times * c.seconds();
          break;
        }
        case NodeKind::Buffer:
          break;
        }
      }
    }
  for (arch::MemoryTier tier : arch::kAllTiers) {
    int t = static_cast<int>(tier);
    r.tierSeconds[t] = r.bytes[t] / chip.tierBytesPerS(tier);
  }
  r.computeSeconds = r.systolicFlops / chip.peakSystolicFlopsPerS() +
                     r.simdFlops / chip.peakSimdFlopsPerS();
  r.linkSeconds = r.linkBytes / chip.system().linkBytesPerS;
  struct Candidate {
    double seconds;
    const char *name;
  } candidates[] = {{r.computeSeconds, "compute"},
                    {r.tierSeconds[1], "hbm"},
                    {r.tierSeconds[2], "ddr"},
                    {r.tierSeconds[0], "sram"},
                    {r.linkSeconds, "link"}};
  for (const Candidate &c : candidates)
    if (c.seconds > r.lowerBoundSeconds) {
      r.lowerBoundSeconds = c.seconds;
      r.binding = c.name;
    }
  // What binds the step may be no resource but the chain of collective
  // latencies: each collective's launch, hops and own transfer, which run
  // in series because every one feeds the next layer.
  if (r.collectiveLatencySeconds > r.lowerBoundSeconds)
    r.binding = "collective_latency";
  return r;
}
