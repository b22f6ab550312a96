//===- TileAndMap.cpp - Tiles and units for every stage -------------------===//
//
// Maps each section of a phase function onto one chip configuration. Every
// compute op is a pipeline stage; the section's PCUs are shared so that
// stages take about the same time (a pipeline runs at its slowest stage),
// its AGCUs in proportion to the bytes each stage streams from memory, and
// PMUs hold double-buffered tiles. Everything is recorded as attributes for
// --lower-to-df; nothing here counts cycles (that is the simulator's job).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Mapping/Passes.h"

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Interfaces/CostInterface.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

namespace snapflow {
#define GEN_PASS_DEF_TILEANDMAP
#include "snapflow/Mapping/Passes.h.inc"
} // namespace snapflow

using namespace mlir;
using namespace snapflow;

namespace {

/// The smallest weight/KV tile streamed, so short tensors are not cut into
/// many tiny transfers.
constexpr int64_t kMinTileBytes = 64 * 1024;

/// What a stage computes; gemm runs PCUs as systolic arrays, the rest SIMD.
/// Ops that are not stages (params, views, collectives, loops) have none:
/// each op that can be one says so itself (TrafficOpInterface).
std::optional<arch::StageKind> stageKind(Operation *op) {
  if (auto traffic = dyn_cast<TrafficOpInterface>(op))
    return traffic.getStageKind();
  return std::nullopt;
}

/// Bytes a stage streams from memory (weights and KV), as opposed to
/// activations that arrive on streams.
int64_t streamedBytes(Operation *op) {
  auto cost = dyn_cast<CostOpInterface>(op);
  if (!cost)
    return 0;
  CheckedInt activations = 0;
  for (Value v : op->getOperands())
    if (isa<RankedTensorType>(v.getType()) && !v.getDefiningOp<llm::ParamOp>())
      activations += getTensorBytes(v.getType());
  // A verified op's bytes read fit in 64 bits and include its activations.
  return std::max<int64_t>(
      0, (cost.getBytesRead() - activations).get().value_or(0));
}

/// Splits `total` units over `weights` (>= 0), at least `floor` each, by
/// largest remainder; deterministic.
SmallVector<int64_t> share(int64_t total, ArrayRef<double> weights,
                           int64_t floor) {
  size_t n = weights.size();
  SmallVector<int64_t> out(n, floor);
  int64_t left = total - floor * static_cast<int64_t>(n);
  double sum = 0;
  for (double w : weights)
    sum += w;
  if (left <= 0 || sum <= 0)
    return out;
  SmallVector<std::pair<double, size_t>> remainders;
  int64_t given = 0;
  for (size_t i = 0; i < n; ++i) {
    double exact = left * weights[i] / sum;
    int64_t whole = static_cast<int64_t>(std::floor(exact));
    out[i] += whole;
    given += whole;
    remainders.push_back({exact - whole, i});
  }
  llvm::sort(remainders, [](auto a, auto b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (int64_t k = 0; k < left - given; ++k)
    out[remainders[k % n].second] += 1;
  return out;
}

struct TileAndMapPass : public snapflow::impl::TileAndMapBase<TileAndMapPass> {
  using TileAndMapBase::TileAndMapBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    df::TargetAttr target = df::getTarget(module);
    if (!target) {
      module.emitError("tile-and-map: the module has no df.target; run "
                       "--assign-target{chip=...} first");
      return signalPassFailure();
    }
    if (maxTiles < 1) {
      module.emitError() << "tile-and-map: max-tiles must be >= 1, got "
                         << static_cast<int64_t>(maxTiles);
      return signalPassFailure();
    }
    const arch::ArchModel &chip = target.getArchModel();
    for (auto fn : module.getOps<func::FuncOp>())
      mapFunction(fn, chip);
  }

private:
  void mapFunction(func::FuncOp fn, const arch::ArchModel &chip) {
    // Sections: each loop body, and each run of ops between loops; a run
    // that spans decoder layers (layers not folded into a loop) gets a
    // section per layer, as each layer is then a kernel call of its own and
    // one configuration could not hold them all. A body or run is cut
    // again before every op that starts a kernel (startsKernel): a loop
    // whose body is cut so is a loop of several kernels.
    struct Group {
      std::string name;
      int64_t repeat = 1;
      bool loop = false;
      SmallVector<Operation *> ops;
    };
    SmallVector<Group> groups;
    bool inRun = false;
    std::optional<int64_t> runLayer;
    for (Operation &op : fn.getBody().front()) {
      std::optional<int64_t> layer = llm::getLayer(&op);
      if (inRun && layer && runLayer && *layer != *runLayer)
        inRun = false;
      if (layer)
        runLayer = layer;
      if (auto loop = dyn_cast<llm::RepeatOp>(op)) {
        Group g;
        g.name = llvm::formatv(
            "layers_{0}_{1}", loop.getFirstLayer(),
            loop.getFirstLayer() +
                loop.getCount() * loop.getLayersPerIteration() - 1);
        g.repeat = loop.getCount();
        g.loop = true;
        for (Operation &inner : loop.getBody().front())
          g.ops.push_back(&inner);
        groups.push_back(std::move(g));
        inRun = false;
        continue;
      }
      if (!inRun) {
        groups.push_back(Group());
        inRun = true;
      }
      groups.back().ops.push_back(&op);
    }

    SmallVector<df::SectionMapAttr> summaries;
    for (Group &g : groups) {
      // The kernels of the group: cut before each op that starts one.
      // A body of several layers (fuse-layers, cross-layer attention) may
      // cut twice for one reason: the second kernel is `<why>_2`, and so on.
      SmallVector<std::pair<std::string, SmallVector<Operation *>>> kernels;
      llvm::StringMap<int> seen;
      kernels.push_back({"", {}});
      for (Operation *op : g.ops) {
        if (std::optional<StringRef> why = startsKernel(op);
            why && !kernels.back().second.empty()) {
          int n = ++seen[*why];
          kernels.push_back(
              {n == 1 ? why->str() : llvm::formatv("{0}_{1}", *why, n).str(),
               {}});
        }
        kernels.back().second.push_back(op);
      }
      bool several = kernels.size() > 1;
      for (auto &[suffix, ops] : kernels) {
        int64_t index = static_cast<int64_t>(summaries.size());
        std::string name = !g.loop ? llvm::formatv("part_{0}", index).str()
                           : suffix.empty() ? g.name
                                            : g.name + "_" + suffix;
        summaries.push_back(mapSection(name, g.repeat, ops, index, chip,
                                       g.loop && several ? g.name : ""));
      }
    }
    df::setSections(fn, summaries);
  }

  /// Whether `op` starts a kernel, and a word for why: it reads memory at
  /// addresses computed in the same step, which the kernel that computes
  /// them cannot stream (a kernel's loads are set up at its launch, from
  /// its arguments): the routed experts the router chose ("experts"), the
  /// prompt tokens a selection kept ("select"), the pages a paged policy
  /// recalls ("recall"). SnapStream's DeepSeek decode is two kernels per
  /// layer for this reason: attention with the router GEMM, then the
  /// experts (docs/Lowering.md, "Kernels").
  static std::optional<StringRef> startsKernel(Operation *op) {
    if (isa<llm::MoEOp>(op))
      return StringRef("experts");
    if (isa<kv::RecallOp>(op))
      return StringRef("recall");
    if (auto gather = dyn_cast<kv::GatherStoreOp>(op);
        gather && gather.getIndices())
      return StringRef("select");
    return std::nullopt;
  }

  df::SectionMapAttr mapSection(StringRef name, int64_t repeat,
                                ArrayRef<Operation *> ops, int64_t index,
                                const arch::ArchModel &chip, StringRef loop) {
    const arch::SocketParams &s = chip.socket();
    SmallVector<Operation *> stages;
    SmallVector<arch::StageKind> kinds;
    SmallVector<double> computeTime, bytes, flops;
    SmallVector<int64_t> tileBytes, tiles, streams;
    for (Operation *op : ops) {
      df::setSection(op, index);
      std::optional<arch::StageKind> kind = stageKind(op);
      if (!kind)
        continue;
      auto cost = cast<CostOpInterface>(op);
      double rate = *kind == arch::StageKind::Gemm ? s.pcuSystolicFlopsPerCycle
                                                   : s.pcuSimdFlopsPerCycle;
      int64_t streamed = streamedBytes(op);
      int64_t tile =
          std::max(kMinTileBytes,
                   ceilDiv(CheckedInt(streamed), static_cast<int64_t>(maxTiles))
                       .value());
      int64_t count = streamed > 0
                          ? std::max<int64_t>(
                                1, ceilDiv(CheckedInt(streamed), tile).value())
                          : 1;
      // A chunked prefill's one graph serves every chunk: PCUs are shared
      // for the mean chunk, which does half the last chunk's prefix work.
      double opFlops =
          static_cast<double>(cost.getFlops().value()) -
          0.5 * static_cast<double>(llm::getPrefixFlops(op).value());
      // A GEMM of few rows leaves part of the systolic arrays idle.
      if (*kind == arch::StageKind::Gemm)
        rate *=
            chip.systolicUtilization(static_cast<double>(cost.getGemmRows()));
      // A stage's time on p PCUs is its compute and the crossing of its
      // results over their p network lanes, both / p: PCUs go by the sum,
      // so an add over a long prompt is not left pushing gigabytes through
      // one lane.
      double written = static_cast<double>(cost.getBytesWritten().value());
      stages.push_back(op);
      computeTime.push_back(opFlops / rate +
                            written / s.nocStreamBytesPerCycle);
      flops.push_back(opFlops);
      bytes.push_back(static_cast<double>(streamed));
      tileBytes.push_back(streamed > 0 ? std::min(tile, streamed) : 0);
      tiles.push_back(count);
      streams.push_back(op->getNumOperands() + op->getNumResults());
      kinds.push_back(*kind);
    }
    int64_t n = static_cast<int64_t>(stages.size());
    bool oversubscribed = n > s.pcuCount;
    SmallVector<int64_t> pcus =
        oversubscribed ? SmallVector<int64_t>(n, 1)
                       : share(s.pcuCount, computeTime, /*floor=*/1);
    // AGCUs only for stages that stream from memory, at least one each.
    SmallVector<double> loadWeights;
    SmallVector<int64_t> loaderIndex;
    for (int64_t i = 0; i < n; ++i)
      if (bytes[i] > 0) {
        loadWeights.push_back(bytes[i]);
        loaderIndex.push_back(i);
      }
    SmallVector<int64_t> agcus(n, 0);
    SmallVector<int64_t> loaderShare =
        share(std::max<int64_t>(s.agcuCount, loadWeights.size()), loadWeights,
              /*floor=*/1);
    // The AGCUs are a pool the loads of a section share in time (the
    // simulator arbitrates it). A memory-bound stage, whose FLOPs per
    // streamed byte are below the chip's ridge point, may use all of them:
    // it is waiting on memory, so the pool should serve it at full rate.
    // A compute-bound stage needs only its share, by bytes.
    double ridge = chip.peakSystolicFlopsPerS() / chip.socket().hbmBytesPerS;
    for (auto [k, i] : llvm::enumerate(loaderIndex)) {
      double intensity = flops[i] / std::max(1.0, bytes[i]);
      agcus[i] = intensity < ridge ? s.agcuCount : loaderShare[k];
    }
    int64_t pcuSum = 0, pmuSum = 0, agcuSum = 0;
    for (int64_t i = 0; i < n; ++i) {
      Operation *op = stages[i];
      // Double-buffered tiles, plus one PMU per stream end.
      int64_t pmus =
          2 * ((tileBytes[i] + s.sramBytesPerPmu - 1) / s.sramBytesPerPmu) +
          streams[i];
      df::setStageMap(op, df::StageMapAttr::get(op->getContext(), kinds[i],
                                                tiles[i], tileBytes[i], pcus[i],
                                                pmus, agcus[i]));
      pcuSum += pcus[i];
      pmuSum += pmus;
      agcuSum = std::max(agcuSum, agcus[i]); // lanes of the busiest stage
    }
    double ratio = 1.0;
    if (oversubscribed || pmuSum > s.pmuCount)
      ratio = std::max(
          {1.0, double(pcuSum) / s.pcuCount, double(pmuSum) / s.pmuCount});
    return df::SectionMapAttr::get(&getContext(), name, repeat, n, pcuSum,
                                   pmuSum, agcuSum, llvm::APFloat(ratio), loop);
  }
};

} // namespace
