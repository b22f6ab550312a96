//===- ProgramBuilder.h - Hand-built programs on the tiny chip -*- C++ -*-===//
//
// What the simulator's golden cases share: the tiny chip
// (arch/chips/tiny.yaml), a builder of one-section programs, and a run of
// one step.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_TESTS_UNIT_PROGRAMBUILDER_H
#define SNAPFLOW_TESTS_UNIT_PROGRAMBUILDER_H

#include "snapflow/Sim/Engine/Simulator.h"

#include "gtest/gtest.h"

#include <string>
#include <utility>
#include <vector>

namespace snapflow {
namespace sim {
namespace test {

inline arch::ArchModel tiny() {
  auto m = arch::ArchModel::load("tiny");
  EXPECT_TRUE(static_cast<bool>(m));
  return std::move(*m);
}

/// Builds one-section programs.
struct Builder {
  Program p;
  Section &sec() { return p.sections.back(); }

  Builder() {
    p.name = "decode";
    p.phase = arch::Phase::Decode;
    p.target = tiny();
    p.sections.emplace_back();
    sec().name = "s";
  }
  int tensor(arch::MemoryTier tier, int64_t bytes) {
    p.tensors.push_back(
        {"t" + std::to_string(p.tensors.size()), bytes, tier, false});
    return static_cast<int>(p.tensors.size()) - 1;
  }
  int stream(int64_t tileBytes, int64_t tiles, int64_t depth = 2) {
    Stream s;
    s.tileBytes = tileBytes;
    s.tiles = tiles;
    s.depth = depth;
    sec().streams.push_back(s);
    return static_cast<int>(sec().streams.size()) - 1;
  }
  int add(Node n) {
    int index = static_cast<int>(sec().nodes.size());
    for (int in : n.inputs)
      sec().streams[in].consumers.push_back(index);
    for (int out : n.outputs)
      sec().streams[out].producer = index;
    n.label = "node" + std::to_string(index);
    sec().nodes.push_back(n);
    return index;
  }
  int store(int in, int tensor) {
    Node n;
    n.kind = NodeKind::Store;
    n.tensor = tensor;
    n.inputs = {in};
    return add(n);
  }
  int load(int tensor, int out, int64_t tiles, int64_t agcus = 1) {
    Node n;
    n.kind = NodeKind::Load;
    n.tensor = tensor;
    n.tiles = tiles;
    n.agcus = agcus;
    n.outputs = {out};
    return add(n);
  }
  int stage(StageKind kind, std::vector<int> in, std::vector<int> out,
            int64_t tiles, int64_t flops, int64_t pcus = 1) {
    Node n;
    n.kind = NodeKind::Stage;
    n.stageKind = kind;
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    for (int o : n.outputs)
      n.outputTiles.push_back(sec().streams[o].tiles);
    n.tiles = tiles;
    n.flopsPerTile = flops;
    n.pcus = pcus;
    return add(n);
  }
  int collective(
      CollectiveKind kind, int in, int out, int64_t group,
      arch::CollectiveAlgorithm algorithm = arch::CollectiveAlgorithm::Auto) {
    Node n;
    n.kind = NodeKind::Collective;
    n.collective = kind;
    n.algorithm = algorithm;
    n.inputs = {in};
    n.outputs = {out};
    n.group = group;
    return add(n);
  }
};

inline SimResult run(const Program &p, bool allSockets = false) {
  arch::ArchModel chip = tiny();
  SimOptions o;
  o.allSockets = allSockets;
  return simulate({{&p, 1}}, chip, o);
}

/// Cycles from the end of the reconfiguration to the end of the run.
inline double sectionCycles(const SimResult &r) { return r.cycles - 1000; }

/// A stage makes `tiles` tiles of 4096 / tiles B, an all-reduce over
/// `group` sockets sums them with `algorithm`, a stage takes the result.
inline Program allReduce(
    int64_t group, int64_t tiles = 1,
    arch::CollectiveAlgorithm algorithm = arch::CollectiveAlgorithm::Auto) {
  Builder b;
  b.p.tp = group;
  int a = b.stream(4096 / tiles, tiles), c = b.stream(4096 / tiles, tiles);
  b.stage(StageKind::Gemm, {}, {a}, tiles, 0);
  b.collective(CollectiveKind::AllReduce, a, c, group, algorithm);
  b.stage(StageKind::Elementwise, {c}, {}, tiles, 0);
  return b.p;
}

} // namespace test
} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_TESTS_UNIT_PROGRAMBUILDER_H
