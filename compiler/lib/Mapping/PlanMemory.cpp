//===- PlanMemory.cpp - Memory tier of every tensor -----------------------===//
//
// Decides, for one socket, where each tensor of a phase function lives and
// whether the whole fits: weights and KV are persistent, activations live from
// definition to last use and stay on chip (PMU SRAM) while their peak fits.
// The plan is recorded as attributes; --lower-to-df and `snapflow compile`
// read them back through getMemoryPlan.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Mapping/Passes.h"

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Interfaces/CostInterface.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace snapflow {
#define GEN_PASS_DEF_PLANMEMORY
#include "snapflow/Mapping/Passes.h.inc"
} // namespace snapflow

using namespace mlir;
using namespace snapflow;

namespace {

double gib(int64_t bytes) { return static_cast<double>(bytes) / (1LL << 30); }

/// A tensor the plan places.
struct Tensor {
  Operation *owner = nullptr; ///< defining op (param, activation) or null (KV)
  int64_t bytes = 0;
  double readFraction = 1.0;   ///< share of the bytes one step reads
  int64_t first = 0, last = 0; ///< live range (activations)
  arch::MemoryTier tier = arch::MemoryTier::HBM;
};

struct PlanMemoryPass : public snapflow::impl::PlanMemoryBase<PlanMemoryPass> {
  using PlanMemoryBase::PlanMemoryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    df::TargetAttr target = df::getTarget(module);
    if (!target) {
      module.emitError("plan-memory: the module has no df.target; run "
                       "--assign-target{chip=...} first");
      return signalPassFailure();
    }
    const arch::ArchModel &chip = target.getArchModel();
    for (auto fn : module.getOps<func::FuncOp>())
      if (failed(plan(fn, chip)))
        return signalPassFailure();
  }

private:
  LogicalResult plan(func::FuncOp fn, const arch::ArchModel &chip) {
    // Number ops in program order; a region's ops end where their parent does.
    DenseMap<Operation *, int64_t> index, endIndex;
    int64_t counter = 0;
    fn.walk<WalkOrder::PreOrder>([&](Operation *op) { index[op] = counter++; });
    fn.walk<WalkOrder::PostOrder>([&](Operation *op) {
      int64_t end = index[op];
      for (Region &r : op->getRegions())
        for (Block &b : r)
          for (Operation &child : b)
            end = std::max(end, endIndex[&child]);
      endIndex[op] = end;
    });

    SmallVector<Tensor> weights, activations;
    int64_t batch = 0, context = 0;
    // Every total below is checked: a model, batch or context too large for
    // 64-bit byte counts is an error, never a wrapped "fits".
    CheckedInt kvTotal = 0, backupTotal = 0, overflowProbe = 0;
    std::string policy = "full";
    for (auto [i, t] : llvm::enumerate(fn.getArgumentTypes()))
      if (auto cache = dyn_cast<kv::KVCacheTypeInterface>(t)) {
        kvTotal += cache.getTotalBytes();
        backupTotal += cache.getBackupBytes();
        batch = cache.getBatch();
        // The windowed layers' ring has neither the context nor the policy.
        if (llm::isWindowCache(fn, i))
          continue;
        context = cache.getTotalSlots().value();
        policy = cache.getPolicy().getLabel();
      }
    llm::WorkloadAttr workload = llm::getWorkload(fn);
    if (workload) {
      context = workload.getTokens();
      batch = workload.getBatch();
    }
    // A chunked prefill under a compressing policy also holds the whole
    // prompt's K/V in HBM until the selection (lower-to-df's prompt_kv).
    if (int64_t staged = llm::getStagedPromptSlots(fn))
      for (Type t : fn.getArgumentTypes())
        if (auto cache = dyn_cast<kv::KVCacheTypeInterface>(t))
          kvTotal += cache.getBytesPerTokenPerLayer() * staged *
                     cache.getLayers() * cache.getBatch();

    // A format that quantizes a prefill's tokens only once they are all
    // written (ZipCache) holds one layer's at the dtype until then
    // (lower-to-df's kv_staging).
    if (workload && workload.getPhase() == arch::Phase::Prefill)
      for (Type t : fn.getArgumentTypes())
        if (auto cache = dyn_cast<kv::KVCacheTypeInterface>(t))
          if (auto format = cache.getFormat();
              format && !format.quantizesOnWrite(/*prefill=*/true))
            kvTotal += cache.getFullBytesPerTokenPerLayer() * cache.getSlots() *
                       cache.getBatch();

    llvm::StringSet<> seenParams;
    fn.walk([&](Operation *op) {
      if (auto param = dyn_cast<llm::ParamOp>(op)) {
        // A weight named twice (MTP depths reusing the module) is stored once.
        if (!seenParams.insert(param.getName()).second) {
          df::setPlacement(op, df::PlacementAttr::get(op->getContext(),
                                                      arch::MemoryTier::HBM,
                                                      ArrayRef<int64_t>()));
          return;
        }
        CheckedInt times = 1;
        for (auto r = op->getParentOfType<llm::RepeatOp>(); r;
             r = r->getParentOfType<llm::RepeatOp>())
          times *= r.getCount();
        Tensor t;
        t.owner = op;
        CheckedInt bytes = times * getTensorBytes(param.getType());
        overflowProbe += bytes;
        t.bytes = bytes.get().value_or(0);
        for (Operation *user : param->getUsers())
          if (auto moe = dyn_cast<llm::MoEOp>(user))
            if (param.getResult() == moe.getGate() ||
                param.getResult() == moe.getUp() ||
                param.getResult() == moe.getDown())
              t.readFraction = moe.getActiveExperts() / moe.getNumExperts();
        weights.push_back(t);
        return;
      }
      if (isa<llm::RepeatOp, llm::YieldOp, func::ReturnOp, func::FuncOp>(op))
        return;
      // A staged read names the prompt's K/V already counted in HBM.
      if (auto read = dyn_cast<kv::ReadOp>(op); read && read.getStaged() > 0)
        return;
      for (Value r : op->getResults()) {
        auto type = dyn_cast<RankedTensorType>(r.getType());
        if (!type)
          continue;
        Tensor t;
        t.owner = op;
        t.bytes = getTensorBytes(type).value(); // a verified op's result
        overflowProbe += t.bytes;
        t.first = index[op];
        t.last = t.first;
        for (Operation *user : r.getUsers()) {
          Operation *at = op->getBlock()->findAncestorOpInBlock(*user);
          t.last = std::max(t.last, endIndex[at ? at : user]);
        }
        t.tier = arch::MemoryTier::SRAM;
        activations.push_back(t);
      }
    });

    // The sum of every tensor bounds every total below (peaks, tiers, KV).
    if ((overflowProbe + kvTotal + backupTotal).overflowed())
      return fn.emitOpError()
             << "plan-memory: the byte totals of the phase exceed a 64-bit "
                "count; the model, batch or context is too large";
    int64_t kvBytes = kvTotal.value();
    // A policy's page backup (ArkVale) lives in DDR.
    int64_t backupBytes = backupTotal.value();

    // Activations: on chip while the peak fits, the largest spilled first.
    int64_t sramCap = chip.tierBytesPerSocket(arch::MemoryTier::SRAM);
    int64_t hbmCap = chip.tierBytesPerSocket(arch::MemoryTier::HBM);
    int64_t ddrCap = chip.tierBytesPerSocket(arch::MemoryTier::DDR);
    int64_t activationPeak = peak(activations, /*onlySram=*/false);
    SmallVector<Tensor *> bySize;
    for (Tensor &t : activations)
      bySize.push_back(&t);
    // Ties break by program order (the tensors sit in one vector).
    llvm::sort(bySize, [](Tensor *a, Tensor *b) {
      return a->bytes != b->bytes ? a->bytes > b->bytes : a < b;
    });
    int64_t spilled = 0;
    for (Tensor *t : bySize) {
      if (peak(activations, /*onlySram=*/true) <= sramCap)
        break;
      t->tier = arch::MemoryTier::HBM;
      spilled += t->bytes;
    }
    int64_t sramPeak = peak(activations, /*onlySram=*/true);

    // Weights and KV in HBM; with allow-ddr the least-read bytes overflow.
    int64_t weightBytes = 0;
    for (const Tensor &t : weights)
      weightBytes += t.bytes;
    int64_t hbm = weightBytes + kvBytes + spilled, ddr = backupBytes;
    if (hbm > hbmCap && allowDdr) {
      SmallVector<Tensor *> order;
      for (Tensor &t : weights)
        order.push_back(&t);
      llvm::sort(order, [](Tensor *a, Tensor *b) {
        if (a->readFraction != b->readFraction)
          return a->readFraction < b->readFraction;
        return a->bytes != b->bytes ? a->bytes > b->bytes : a < b;
      });
      for (Tensor *t : order) {
        if (hbm <= hbmCap)
          break;
        t->tier = arch::MemoryTier::DDR;
        hbm -= t->bytes;
        ddr += t->bytes;
      }
    }
    StringRef phase =
        workload ? arch::phaseName(workload.getPhase()) : "decode";
    auto describe = [&](StringRef tier, int64_t need, int64_t cap) {
      return llvm::formatv(
                 "{0} batch {1} context {2} kv={3} needs {4:f1} GiB {5} per "
                 "socket; {6} has {7:f1} GiB (weights {8:f1} GiB, KV {9:f1} "
                 "GiB, spilled activations {10:f1} GiB{11})",
                 phase, batch, context, policy, gib(need), tier, chip.getName(),
                 gib(cap), gib(weightBytes), gib(kvBytes), gib(spilled),
                 backupBytes > 0
                     ? llvm::formatv(", KV backup in DDR {0:f1} GiB",
                                     gib(backupBytes))
                           .str()
                     : std::string())
          .str();
    };
    std::string misfit;
    if (hbm > hbmCap)
      misfit = describe("HBM", hbm, hbmCap);
    else if (ddr > ddrCap)
      misfit = describe("DDR", ddr, ddrCap);
    if (!misfit.empty() && requireFit)
      return fn.emitOpError() << misfit;

    // The largest batch whose KV and activations (which scale with the
    // batch) fit next to the weights, spilling activations beyond SRAM.
    int64_t maxBatch = 0;
    // A cache split by batch (--mla-cache batch) holds ceil(batch / shards)
    // sequences here: a sequence of the batch costs this socket 1 / shards
    // of one it holds, and a batch is whole multiples of the shards.
    int64_t shards = 1, held = batch;
    for (Type t : fn.getArgumentTypes())
      if (auto cache = dyn_cast<kv::KVCacheTypeInterface>(t))
        if (cache.getBatchShards() > 1) {
          shards = cache.getBatchShards();
          held = cache.getBatch();
        }
    if (batch > 0) {
      double kvSeq = static_cast<double>(kvBytes) / (double(held) * shards);
      // With weights overflowing to DDR, HBM and DDR are one room that the
      // page backup shares too.
      if (allowDdr)
        kvSeq += static_cast<double>(backupBytes) / batch;
      double actSeq = static_cast<double>(activationPeak) / batch;
      double room = static_cast<double>(allowDdr ? hbmCap + ddrCap : hbmCap) -
                    static_cast<double>(weightBytes);
      if (room > 0) {
        double onChip = actSeq > 0 ? sramCap / actSeq : 1e18;
        double b1 = kvSeq > 0 ? room / kvSeq : 1e18;
        double b = b1 <= onChip ? b1 : (room + sramCap) / (kvSeq + actSeq);
        // The page backup bounds it in DDR, beside any weights there.
        if (backupBytes > 0 && !allowDdr)
          b = std::min(b, static_cast<double>(ddrCap) /
                              (static_cast<double>(backupBytes) / batch));
        maxBatch = static_cast<int64_t>(std::min(b, 1e15));
        maxBatch -= maxBatch % shards;
      }
    }

    // Record the plan.
    MLIRContext *ctx = fn.getContext();
    for (const Tensor &t : weights)
      df::setPlacement(t.owner, df::PlacementAttr::get(ctx, t.tier, {}));
    for (const Tensor &t : activations)
      df::setPlacement(t.owner,
                       df::PlacementAttr::get(ctx, t.tier, {t.first, t.last}));
    df::setMemoryPlan(
        fn, df::MemoryPlanAttr::get(ctx, weightBytes, kvBytes, activationPeak,
                                    sramPeak, hbm, ddr, maxBatch,
                                    /*prefetch_bytes=*/0, misfit));
    return success();
  }

  /// Peak of the summed live ranges (of the SRAM-resident ones only).
  static int64_t peak(ArrayRef<Tensor> tensors, bool onlySram) {
    SmallVector<std::pair<int64_t, int64_t>> events;
    for (const Tensor &t : tensors) {
      if (onlySram && t.tier != arch::MemoryTier::SRAM)
        continue;
      events.push_back({t.first, t.bytes});
      events.push_back({t.last + 1, -t.bytes});
    }
    llvm::sort(events, [](auto a, auto b) {
      return a.first != b.first ? a.first < b.first : a.second < b.second;
    });
    int64_t live = 0, best = 0;
    for (auto [at, delta] : events) {
      live += delta;
      best = std::max(best, live);
    }
    return best;
  }
};

} // namespace
