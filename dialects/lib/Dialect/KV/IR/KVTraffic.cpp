//===- KVTraffic.cpp - What each kv op moves as a stage -------------------===//
//
// The TrafficOpInterface of the kv ops (TrafficInterface.td): the mode each
// runs its PCUs in, the cache tokens it writes, and the per-layer tensors of
// a policy or format it reads and writes. tile-and-map and lower-to-df read
// these instead of knowing each op by name.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"

using namespace mlir;
using namespace snapflow;
using namespace snapflow::kv;

using arch::StageKind;

namespace {
KVCacheTypeInterface cacheOf(Value cache) {
  return cast<KVCacheTypeInterface>(cache.getType());
}
} // namespace

std::optional<StageKind> AppendOp::getStageKind() { return StageKind::Gather; }
int64_t AppendOp::getKVTokensWritten() {
  return cacheOf(getCache()).getBatch() *
         cast<RankedTensorType>(getValues()[0].getType()).getDimSize(1);
}

std::optional<StageKind> ReadOp::getStageKind() {
  // A read of the prompt a chunked prefill staged is a view its consumers
  // load from, not a stage.
  if (getStaged() > 0)
    return std::nullopt;
  return StageKind::Gather;
}
bool ReadOp::readsKVSlots() { return true; }

std::optional<StageKind> ScoreOp::getStageKind() { return StageKind::Gemm; }
bool ScoreOp::isKVSelection() { return true; }

std::optional<StageKind> PoolOp::getStageKind() {
  return StageKind::Elementwise;
}
bool PoolOp::isKVSelection() { return true; }

std::optional<StageKind> TopKOp::getStageKind() { return StageKind::TopK; }
bool TopKOp::isKVSelection() { return true; }

std::optional<StageKind> GatherStoreOp::getStageKind() {
  return StageKind::Gather;
}
int64_t GatherStoreOp::getKVTokensWritten() {
  KVCacheTypeInterface c = cacheOf(getCache());
  return c.getBatch() * c.getSlots();
}
SmallVector<KVAccess, 3> GatherStoreOp::getKVAccesses() {
  // The policy's per-slot state it starts.
  if (int64_t w = getStateBytesWritten().value(); w > 0)
    return {{KVTensorRole::State, 0, w}};
  return {};
}
bool GatherStoreOp::isKVSelection() { return true; }

std::optional<StageKind> EvictOp::getStageKind() { return StageKind::TopK; }
SmallVector<KVAccess, 3> EvictOp::getKVAccesses() {
  StepCost cost = getBatchCost();
  return {{KVTensorRole::State, cost.bytesRead, cost.bytesWritten}};
}

std::optional<StageKind> PageScoreOp::getStageKind() {
  return StageKind::Reduce;
}
SmallVector<KVAccess, 3> PageScoreOp::getKVAccesses() {
  return {{KVTensorRole::Digest, getDigestBytesRead().value(), 0}};
}
bool PageScoreOp::isKVSelection() { return true; }

std::optional<StageKind> RecallOp::getStageKind() { return StageKind::Gather; }
int64_t RecallOp::getKVTokensWritten() {
  KVCacheTypeInterface c = cacheOf(getCache());
  return c.getBatch() * getPages() * c.getPolicy().getPageTokens();
}
int64_t RecallOp::getKVWriteRun() {
  return cacheOf(getCache()).getPolicy().getPageTokens();
}
SmallVector<KVAccess, 3> RecallOp::getKVAccesses() {
  return {{KVTensorRole::Backup, getRecalledBytes().value(), 0}};
}

std::optional<StageKind> BackupOp::getStageKind() { return StageKind::Reduce; }
SmallVector<KVAccess, 3> BackupOp::getKVAccesses() {
  // The backup pages and their digests; at decode, the page keys re-read.
  SmallVector<KVAccess, 3> out = {
      {KVTensorRole::Backup, 0, getBackupBytesWritten().value()},
      {KVTensorRole::Digest, 0, getDigestBytesWritten().value()}};
  if (int64_t keys = getKeyBytesRead().value(); keys > 0)
    out.push_back({KVTensorRole::Cache, keys, 0});
  return out;
}

std::optional<StageKind> QuantizeOp::getStageKind() {
  return StageKind::Elementwise;
}
SmallVector<KVAccess, 3> QuantizeOp::getKVAccesses() {
  // From the residual at decode, or the prefill's tokens at the dtype (the
  // salient channels arrive on a stream); into the stored slots.
  int64_t read = getBytesRead().value();
  if (Value salient = getSalient())
    read -= getTensorBytes(salient.getType()).value();
  return {{KVTensorRole::QuantizeSource, read, 0},
          {KVTensorRole::Cache, 0, getBytesWritten().value()}};
}

std::optional<StageKind> RequantizeOp::getStageKind() {
  return StageKind::Reduce;
}
SmallVector<KVAccess, 3> RequantizeOp::getKVAccesses() {
  return {{KVTensorRole::Cache, getStoredBytesRead().value(),
           getStoredBytesWritten().value()},
          {KVTensorRole::Residual, getResidualBytesRead().value(), 0}};
}
