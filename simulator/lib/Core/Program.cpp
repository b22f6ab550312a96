//===- Program.cpp - The df program as plain C++ --------------------------===//

#include "snapflow/Sim/Core/Program.h"

#include <functional>

using namespace snapflow::sim;

int64_t Program::tensorBytes(arch::MemoryTier tier) const {
  int64_t bytes = 0;
  for (const Tensor &t : tensors)
    if (t.tier == tier)
      bytes += t.bytes;
  return bytes;
}

bool Program::hasSelection() const {
  for (const Section &sec : sections)
    for (const Node &n : sec.nodes)
      if (n.lastChunk)
        return true;
  return false;
}

int64_t snapflow::sim::tilesInChunk(int64_t tiles, int64_t prefixTiles,
                                    int64_t chunk, int64_t chunks) {
  if (prefixTiles <= 0 || chunks <= 1 || chunk >= chunks - 1)
    return tiles;
  return tiles - prefixTiles +
         (prefixTiles * chunk + chunks - 2) / (chunks - 1);
}

Section::ChunkTiles Section::tilesInChunk(int64_t chunk, int64_t chunks,
                                          bool selection) const {
  ChunkTiles out;
  out.nodes.reserve(nodes.size());
  // Whether the selection (lastChunk nodes) runs in this chunk.
  bool selects = chunk >= chunks - 1 && selection;
  for (const Node &n : nodes)
    out.nodes.push_back(
        n.lastChunk && !selects
            ? 0
            : sim::tilesInChunk(n.tiles, n.prefixTiles, chunk, chunks));
  // A stream carries what its producer emits: a load's tiles this chunk, a
  // stage's fixed output count, what a buffer or collective passes on.
  out.streams.assign(streams.size(), -1);
  std::function<int64_t(int)> of = [&](int s) -> int64_t {
    int64_t &t = out.streams[s];
    if (t >= 0)
      return t;
    const Stream &st = streams[s];
    t = st.tiles;
    if (st.producer < 0)
      return t;
    const Node &p = nodes[st.producer];
    switch (p.kind) {
    case NodeKind::Load:
      t = out.nodes[st.producer];
      break;
    case NodeKind::Buffer:
      t = of(p.inputs[0]) * p.reads;
      break;
    case NodeKind::Collective:
      t = of(p.inputs[0]);
      break;
    case NodeKind::Stage:
      if (p.lastChunk && !selects)
        t = 0;
      break;
    case NodeKind::Store:
      break;
    }
    return t;
  };
  for (size_t s = 0; s < streams.size(); ++s)
    of(static_cast<int>(s));
  return out;
}
