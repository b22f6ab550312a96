//===- LowerToDF.cpp - Mapped llm/kv IR to df programs --------------------===//
//
// The last compiler step: the mapping decisions recorded as attributes by
// --tile-and-map and --plan-memory become the df program the simulator runs.
// Every byte the program moves appears as a df.load or df.store of a
// declared tensor, so the program's traffic can be checked against the
// model's analytic weights + KV bytes.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Analysis/ModelStats.h"
#include "snapflow/Analysis/OpKinds.h"
#include "snapflow/Conversion/Passes.h"

#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Dialect/LLM/IR/LLMOps.h"
#include "snapflow/Interfaces/CostInterface.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <numeric>

namespace snapflow {
#define GEN_PASS_DEF_LOWERTODF
#include "snapflow/Conversion/Passes.h.inc"
} // namespace snapflow

using namespace mlir;
using namespace snapflow;

namespace {

/// Target bytes of one activation tile.
constexpr int64_t kActivationTileBytes = 256 * 1024;
/// Streams hold two tiles: one being filled, one being drained.
constexpr int64_t kStreamDepth = 2;
/// An activation larger than a stream can hold at the activation tile size
/// (a long prompt's hidden states, a large batch's) never fans out through
/// one stream: see FunctionLowering::findSpills.
constexpr int64_t kFanOutBytes = kStreamDepth * kActivationTileBytes;

/// Bytes of a tensor of verified IR (its costs fit in 64 bits).
int64_t bytesOf(Type t) { return getTensorBytes(t).value(); }

int64_t elementsOf(Type t) {
  return cast<RankedTensorType>(t).getNumElements();
}

/// The divisor of `n` closest to `want` (at least 1): the nearer of the
/// largest divisor at most `want` and the smallest at least `want`, unless
/// the one below is more than twice too few and the one above is off by a
/// smaller factor. A dimension with a large prime factor (a batch of
/// 586 = 2 x 293 cut into about 65 pieces) is then cut into 293 pieces, not
/// 2 of half the dimension each: tiles, and the stream buffers holding
/// them, stay near the size asked for, so what fits in SRAM does not jump
/// with the batch's factors.
int64_t closestDivisor(int64_t n, int64_t want) {
  want = std::clamp<int64_t>(want, 1, n);
  int64_t below = want, above = want;
  while (n % below != 0)
    --below;
  while (n % above != 0)
    ++above;
  bool nearerBelow = want - below <= above - want;
  if (nearerBelow && want > 2 * below &&
      double(above) / double(want) < double(want) / double(below))
    return above;
  return nearerBelow ? below : above;
}

/// A tile of `shape` cut into about `want` equal pieces per layer, splitting
/// outer dimensions first. Dimension 0 is the layer axis (one layer per loop
/// iteration); dimensions 1 .. keep-1 are cut into single units (e.g. one
/// routed expert per tile) and count towards the pieces. Returns the tile
/// shape and the exact piece count per layer.
std::pair<SmallVector<int64_t>, int64_t> cutTile(ArrayRef<int64_t> shape,
                                                 int64_t want, unsigned keep) {
  SmallVector<int64_t> tile(shape);
  int64_t pieces = 1;
  for (unsigned i = 0; i < keep && i < tile.size(); ++i) {
    if (i > 0)
      pieces *= shape[i];
    tile[i] = 1;
  }
  for (unsigned i = keep; i < tile.size() && pieces < want; ++i) {
    int64_t f = closestDivisor(shape[i], (want + pieces - 1) / pieces);
    tile[i] = shape[i] / f;
    pieces *= f;
  }
  return {tile, pieces};
}

/// The tier plan-memory placed the tensor `op` defines in (HBM when the
/// op carries no placement, e.g. in a plan-only test).
arch::MemoryTier tierOf(Operation *op) {
  if (df::PlacementAttr p = op ? df::getPlacement(op) : df::PlacementAttr())
    return p.getTier();
  return arch::MemoryTier::HBM;
}

/// Lowers one phase function.
class FunctionLowering {
public:
  FunctionLowering(func::FuncOp fn, OpBuilder &b, int64_t tp)
      : fn(fn), b(b), tp(tp) {}

  LogicalResult run() {
    ArrayAttr sections = df::getSections(fn);
    if (!sections)
      return fn.emitOpError("has no df.sections; run --tile-and-map first");
    Location loc = fn.getLoc();
    program = b.create<df::ProgramOp>(loc, fn.getSymName(), tp);
    // Keep what the phase computes and how it was mapped and planned.
    llm::WorkloadAttr workload = llm::getWorkload(fn);
    if (workload)
      llm::setWorkload(program, workload);
    prefill = workload && workload.getPhase() == arch::Phase::Prefill;
    if (df::MemoryPlanAttr plan = df::getMemoryPlan(fn))
      df::setMemoryPlan(program, plan);
    // What the KV policy and format add per step, from the cost model of
    // the function (the df program's stages no longer say which op they
    // came from).
    FailureOr<ModelStats> stats = computeModelStats(fn);
    if (failed(stats))
      return failure();
    df::setKVUpkeep(program,
                    df::KVUpkeepAttr::get(fn.getContext(), stats->kvUpkeepFlops,
                                          stats->kvUpkeepBytes));
    df::setSections(program,
                    llvm::to_vector(llvm::map_range(sections, [](Attribute a) {
                      return cast<df::SectionMapAttr>(a);
                    })));
    Block *body = b.createBlock(&program.getBody());
    decls = OpBuilder::atBlockBegin(body);
    OpKindAnalysis kindsOfFn(fn);
    opKinds = &kindsOfFn;
    declareKV();
    findHomes();
    findSpills();

    // Sections in program order: top-level runs and loop bodies, a body of
    // several kernels (tile-and-map's cuts) giving a section per kernel.
    SmallVector<std::pair<int64_t, SmallVector<Operation *>>> order;
    auto place = [&](Operation *op, int64_t s) {
      if (order.empty() || order.back().first != s)
        order.push_back({s, {}});
      order.back().second.push_back(op);
    };
    for (Operation &op : fn.getBody().front()) {
      if (auto loop = dyn_cast<llm::RepeatOp>(op)) {
        int64_t s = sectionOf(&op, loop);
        for (Operation &inner : loop.getBody().front())
          place(&inner, s = df::getSection(&inner).value_or(s));
        continue;
      }
      place(&op, sectionOf(&op, {}));
    }
    OpBuilder sb = OpBuilder::atBlockEnd(body);
    for (auto &[index, ops] : order) {
      if (index < 0 || index >= static_cast<int64_t>(sections.size()))
        return fn.emitOpError()
               << "df.section " << index << " is not one of its "
               << sections.size() << " df.sections";
      auto info = cast<df::SectionMapAttr>(sections[index]);
      auto section = sb.create<df::SectionOp>(
          loc, info.getName(), info.getRepeat(), /*pipelined=*/false,
          info.getLoop().empty() ? StringAttr()
                                 : sb.getStringAttr(info.getLoop()));
      b.setInsertionPointToStart(b.createBlock(&section.getBody()));
      streams.clear();
      taken.clear();
      written.clear();
      sectionAgcus = info.getAgcus();
      for (Operation *op : ops)
        if (failed(lower(op)))
          return failure();
    }
    // Declarations first, in the order they were made.
    SmallVector<Operation *> tensors;
    for (Operation &op : *body)
      if (isa<df::TensorOp>(op))
        tensors.push_back(&op);
    for (Operation *t : llvm::reverse(tensors))
      t->moveBefore(body, body->begin());
    return success();
  }

private:
  int64_t sectionOf(Operation *op, llm::RepeatOp loop) {
    Operation *probe = loop ? &loop.getBody().front().front() : op;
    return df::getSection(probe).value_or(0);
  }

  /// The df.tensor @name, declared once; `kvCache` marks the KV cache.
  void declare(StringRef name, RankedTensorType type, arch::MemoryTier tier,
               bool kvCache = false) {
    if (!declaredTier.try_emplace(name, tier).second)
      return;
    decls.create<df::TensorOp>(fn.getLoc(), name, type,
                               df::TierAttr::get(fn.getContext(), tier),
                               kvCache);
  }

  void declareKV() {
    for (auto [i, t] : llvm::enumerate(fn.getArgumentTypes()))
      if (auto cache = dyn_cast<kv::KVCacheTypeInterface>(t)) {
        // The windowed layers' ring: plain slots, never compressed.
        if (llm::isWindowCache(fn, i)) {
          windowType = RankedTensorType::get(
              {cache.getLayers(), cache.getBatch(), cache.getSlots(),
               cache.getValuesPerToken()},
              cache.getDtype());
          declare("kv_window", windowType, arch::MemoryTier::HBM,
                  /*kvCache=*/true);
          continue;
        }
        kvType =
            RankedTensorType::get({cache.getLayers(), cache.getBatch(),
                                   cache.getSlots(), cache.getValuesPerToken()},
                                  cache.getDtype());
        // A format stores its slots as bytes, and keeps its residual (the
        // newest tokens at the dtype) beside them.
        if (kv::KVFormatAttrInterface format = cache.getFormat()) {
          this->format = format;
          auto i8 = IntegerType::get(fn.getContext(), 8);
          int64_t residual = cache.getResidualSlots();
          kvType = RankedTensorType::get(
              {cache.getLayers(), cache.getBatch(),
               std::max<int64_t>(1, cache.getSlots() - residual),
               cache.getBytesPerTokenPerLayer().value()},
              i8);
          if (residual > 0) {
            residualType = RankedTensorType::get(
                {cache.getLayers(), cache.getBatch(), residual,
                 cache.getFullBytesPerTokenPerLayer().value()},
                i8);
            declare("kv_residual", residualType, arch::MemoryTier::HBM,
                    /*kvCache=*/true);
          }
          // A format that quantizes a prefill's tokens after writing them
          // (ZipCache, by their saliency) holds one layer's at the dtype.
          if (prefill && !format.quantizesOnWrite(/*prefill=*/true)) {
            stagingType =
                RankedTensorType::get({1, cache.getBatch(), cache.getSlots(),
                                       cache.getValuesPerToken()},
                                      cache.getDtype());
            declare("kv_staging", stagingType, arch::MemoryTier::HBM,
                    /*kvCache=*/true);
          }
        }
        declare("kv_cache", kvType, arch::MemoryTier::HBM, /*kvCache=*/true);
        if (int64_t perSlot =
                cache.getPolicy().getSlotStateBytes(kv::getGroups(cache));
            perSlot > 0) {
          stateType = RankedTensorType::get(
              {cache.getLayers(), cache.getBatch(), cache.getSlots(), perSlot},
              IntegerType::get(fn.getContext(), 8));
          declare("kv_state", stateType, arch::MemoryTier::HBM,
                  /*kvCache=*/true);
        }
        // A page backup: every token in DDR, a digest per page in HBM.
        if (int64_t backup = cache.getBackupTokensPerSequencePerLayer().value();
            backup > 0) {
          kv::KVPolicyAttrInterface policy = cache.getPolicy();
          backupType =
              RankedTensorType::get({cache.getLayers(), cache.getBatch(),
                                     backup, cache.getValuesPerToken()},
                                    cache.getDtype());
          declare("kv_backup", backupType, arch::MemoryTier::DDR,
                  /*kvCache=*/true);
          digestType = RankedTensorType::get(
              {cache.getLayers(), cache.getBatch(),
               backup / policy.getPageTokens(), policy.getDigestBytes(cache)},
              IntegerType::get(fn.getContext(), 8));
          declare("kv_digest", digestType, arch::MemoryTier::HBM,
                  /*kvCache=*/true);
        }
        if (int64_t staged = llm::getStagedPromptSlots(fn); staged > 0) {
          promptType =
              RankedTensorType::get({cache.getLayers(), cache.getBatch(),
                                     staged, cache.getValuesPerToken()},
                                    cache.getDtype());
          declare("prompt_kv", promptType, arch::MemoryTier::HBM);
        }
      }
  }

  /// Values that cross a section boundary (or leave the function) get a home
  /// tensor; a loop's carried values share one home per slot.
  void findHomes() {
    int64_t counter = 0;
    auto homeFor = [&](Value v, std::string name) {
      if (!isa<RankedTensorType>(v.getType()) || homes.count(v))
        return;
      homes[v] = name;
    };
    fn.walk([&](llm::RepeatOp loop) {
      for (auto [k, arg] : llvm::enumerate(loop.getBody().getArguments())) {
        std::string name =
            llvm::formatv("{0}_carry{1}", loop.getFirstLayer(), k);
        homeFor(arg, name);
        homeFor(loop.getInits()[k], name);
        homeFor(loop.getResult(k), name);
        homeFor(cast<llm::YieldOp>(loop.getBody().front().getTerminator())
                    .getValues()[k],
                name);
      }
    });
    fn.walk([&](Operation *op) {
      if (isa<llm::ParamOp, llm::RepeatOp>(op) || isStagedRead(op))
        return;
      for (Value r : op->getResults()) {
        // Consumers through views (a reshape, a shard's slice), which are
        // not stages and read their input's stream or home.
        SmallVector<Value> work{r};
        while (!work.empty()) {
          Value x = work.pop_back_val();
          for (Operation *user : x.getUsers()) {
            if (isa<llm::ShardSliceOp, llm::ReshapeOp>(user)) {
              work.push_back(user->getResult(0));
              continue;
            }
            bool crosses = isa<func::ReturnOp>(user) ||
                           df::getSection(user) != df::getSection(op);
            if (crosses)
              homeFor(r, llvm::formatv("act{0}", counter++));
          }
        }
      }
    });
    for (Value arg : fn.getArguments())
      if (isa<RankedTensorType>(arg.getType()))
        homes[arg] = "tokens";
  }

  /// A large activation with more than one consumer in its section is stored
  /// to a home tensor as it is produced; its first consumer takes the stream,
  /// every later one reads the home. Fanning it out through one bounded
  /// stream would deadlock wherever the branches meet again at different
  /// paces: a residual add waits for the attention branch, which (through a
  /// whole-tensor collective or a SnapKV top-k) needs all of the input first,
  /// while the add holds the shared stream full. Hardware spills such skip
  /// edges the same way; small activations (decode) fan out as before.
  void findSpills() {
    // A home is named after the value that spilled: its op and layer
    // (`@spill.rms_norm.l3`, `.r1` for a second result), so "what spills"
    // is answered by the trace and the report (it was `@spillN`).
    llvm::StringSet<> spillNames;
    auto spillName = [&](Operation *op, Value r) {
      std::string name = ("spill." + op->getName().stripDialect()).str();
      if (std::optional<int64_t> layer = llm::getLayer(op))
        name += ".l" + std::to_string(*layer);
      if (op->getNumResults() > 1)
        name += ".r" + std::to_string(cast<OpResult>(r).getResultNumber());
      std::string unique = name;
      for (int n = 2; !spillNames.insert(unique).second; ++n)
        unique = name + "." + std::to_string(n);
      return unique;
    };
    auto consumers = [](Value v) {
      // Views (shard_slice) count as their input's consumers.
      SmallVector<Operation *> out;
      SmallVector<Value> work{v};
      while (!work.empty()) {
        Value x = work.pop_back_val();
        for (Operation *user : x.getUsers()) {
          if (isa<llm::ShardSliceOp, llm::ReshapeOp>(user))
            work.push_back(user->getResult(0));
          else if (!isa<llm::YieldOp, func::ReturnOp>(user))
            out.push_back(user);
        }
      }
      return out;
    };
    fn.walk([&](Operation *op) {
      if (isa<llm::ParamOp, llm::RepeatOp, llm::ShardSliceOp, llm::ReshapeOp>(
              op) ||
          isStagedRead(op))
        return;
      for (Value r : op->getResults()) {
        auto type = dyn_cast<RankedTensorType>(r.getType());
        if (!type)
          continue;
        SmallVector<Operation *> users = consumers(r);
        // A top-k needs every score before its first index, so scores it
        // shares with another consumer (the gather that starts a policy's
        // per-slot state from them, and waits for the indices) fork and
        // join there at any size.
        // Likewise the gather that stores the selection waits for its
        // indices, so what it shares with the ops before the top-k (the
        // prompt's K/V, which the scores or a page backup read) joins
        // there too.
        bool joinsAtTopK = llvm::any_of(users, [](Operation *u) {
          return isa<kv::TopKOp, kv::GatherStoreOp>(u);
        });
        // The K/V a CLA group's first layer makes wait for the group's
        // later layers, a whole layer downstream, and those of a Block
        // Transformer's token-decoder forward for the block's later
        // forwards: they are kept (in SRAM, as small activations are)
        // rather than held in a stream, which would stall their producer
        // after a stream's depth of tiles.
        bool sharedKV = llvm::any_of(users, [](Operation *u) {
          return (isa<llm::AttentionOp, llm::MLAAttentionOp>(u) &&
                  !llm::writesKV(u)) ||
                 isa<llm::LocalAttentionOp>(u);
        });
        if (bytesOf(type) <= kFanOutBytes && !joinsAtTopK && !sharedKV)
          continue;
        int64_t sameSection = llvm::count_if(users, [&](Operation *u) {
          return df::getSection(u) == df::getSection(op);
        });
        if (sameSection < 2)
          continue;
        if (!homes.count(r))
          homes[r] = spillName(op, r);
        fanOut.insert(r);
      }
    });
    // Loop-carried and argument values are loaded, never produced, in the
    // section: give every consumer its own load.
    for (auto &[v, name] : homes) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      if (type && bytesOf(type) > kFanOutBytes)
        fanOut.insert(v);
    }
  }

  /// 1-D tile type of an activation cut into about `want` tiles; sets the
  /// exact count.
  RankedTensorType activationTile(Type type, int64_t want, int64_t &count) {
    auto t = cast<RankedTensorType>(type);
    int64_t n = t.getNumElements();
    count = closestDivisor(n, want);
    return RankedTensorType::get({n / count}, t.getElementType());
  }

  RankedTensorType homeType(Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    return RankedTensorType::get({t.getNumElements()}, t.getElementType());
  }

  df::StreamType streamOf(RankedTensorType tile) {
    return df::StreamType::get(tile.getContext(), tile, kStreamDepth);
  }

  /// The stream carrying `v` into the current section. A consumer that
  /// reads only the last `rows` of `v`'s tokens (the scores' observation
  /// window; 0: all) loads only those when `v` comes from its home.
  Value streamFor(Value v, int64_t wantTiles, int64_t rows = 0) {
    if (auto slice = v.getDefiningOp<llm::ShardSliceOp>())
      return streamFor(slice.getInput(), wantTiles, rows); // a view
    if (auto view = v.getDefiningOp<llm::ReshapeOp>())
      return streamFor(view.getInput(), wantTiles, rows);
    auto it = streams.find(v);
    if (it != streams.end()) {
      // A large value's first consumer takes its stream; later ones reload.
      if (!fanOut.count(v) || taken.insert(v).second)
        return it->second;
    }
    auto home = homes.find(v);
    if (home == homes.end()) {
      fn.emitOpError() << "internal error: value without stream or home: " << v;
      return {};
    }
    // Load the value from its home tensor, in activation tiles (or, for
    // a few rows, tiles of those rows).
    auto type = cast<RankedTensorType>(v.getType());
    int64_t bytes = bytesOf(type);
    int64_t tokens = type.getRank() > 1 ? type.getDimSize(1) : 1;
    bool part = rows > 0 && rows < tokens;
    int64_t tileBytes = kActivationTileBytes;
    if (part)
      tileBytes = std::clamp<int64_t>(bytes / tokens * rows, 1, tileBytes);
    int64_t count = 0;
    RankedTensorType tile =
        activationTile(v.getType(), (bytes + tileBytes - 1) / tileBytes, count);
    Operation *def = v.getDefiningOp();
    declare(home->second, homeType(v),
            def ? tierOf(def) : arch::MemoryTier::SRAM);
    homeNames.insert(home->second);
    // A large activation is read over as many AGCU lanes as it has tiles,
    // up to the section's (one lane would cap a 32 MiB prefill activation
    // at a lane's ~100 GB/s).
    if (part)
      count = std::max<int64_t>(1, (count * rows + tokens - 1) / tokens);
    auto load = b.create<df::LoadOp>(v.getLoc(), streamOf(tile), tag,
                                     home->second, count);
    if (int64_t lanes = std::min(sectionAgcus, count); lanes > 1)
      load.setAgcus(lanes);
    Value s = load;
    if (!part && !streams.count(v)) {
      streams[v] = s;
      taken.insert(v);
    }
    return s;
  }

  /// Streams a weight through a load of its (layer-stacked) tensor.
  /// `perExpert` keeps routed experts whole in their tiles, so the tiles
  /// loaded count touched experts.
  Value loadWeight(llm::ParamOp param, int64_t wantTiles, double fraction,
                   bool perExpert = false) {
    auto type = cast<RankedTensorType>(param.getType());
    int64_t layers = 1;
    if (auto loop = param->getParentOfType<llm::RepeatOp>())
      layers = loop.getCount();
    SmallVector<int64_t> shape{layers};
    shape.append(type.getShape().begin(), type.getShape().end());
    Type element = type.getElementType();
    // A weight stored in another form (MXFP4 experts) moves as its bytes:
    // each row its stored bytes, of i8.
    if (auto format =
            dyn_cast_or_null<StorageFormatAttrInterface>(type.getEncoding())) {
      shape.back() = format.getStorageBytes(shape.back()).value();
      element = IntegerType::get(type.getContext(), 8);
    }
    auto stacked = RankedTensorType::get(shape, element);
    std::string name = param.getName().str();
    declare(name, stacked, tierOf(param));
    auto [tile, pieces] = cutTile(shape, wantTiles, perExpert ? 2 : 1);
    int64_t tiles = std::max<int64_t>(
        1, static_cast<int64_t>(std::llround(pieces * fraction)));
    return b.create<df::LoadOp>(param.getLoc(),
                                streamOf(RankedTensorType::get(tile, element)),
                                tag, name, tiles);
  }

  /// The KV-cache slice one layer's attention reads (every slot of every
  /// sequence), in tiles of about `tileBytes`. With `prefixSlots`, only the
  /// slots a chunked prefill's earlier chunks wrote (the last chunk's
  /// prefix; the load's tiles all scale with the chunk, `prefix_tiles`).
  Value loadKV(Location loc, int64_t tileBytes, int64_t prefixSlots = 0) {
    // Tiles of the tensor read: a chunked prefill's prefix comes from the
    // staged prompt, whose slots the cache's budget need not divide; a
    // windowed layer's from its ring.
    bool staged = prefixSlots > 0 && promptType && !windowedOp;
    RankedTensorType src = windowedOp ? windowType
                           : staged   ? promptType
                                      : kvType;
    int64_t layerBytes = bytesOf(src) / src.getDimSize(0);
    int64_t want =
        std::max<int64_t>(1, layerBytes / std::max<int64_t>(1, tileBytes));
    auto [tile, pieces] = cutTile(src.getShape(), want, /*keep=*/1);
    int64_t slots = src.getDimSize(2);
    int64_t tiles =
        prefixSlots == 0
            ? pieces
            : std::max<int64_t>(1, (pieces * prefixSlots + slots - 1) / slots);
    auto load = b.create<df::LoadOp>(
        loc, streamOf(RankedTensorType::get(tile, src.getElementType())), tag,
        windowedOp ? "kv_window"
        : staged   ? "prompt_kv"
                   : "kv_cache",
        tiles);
    if (prefixSlots > 0)
      load.setPrefixTiles(tiles);
    return load;
  }

  /// Where a prefill's attention writes and reads its prompt's K/V: the
  /// KV cache, or (a chunked prefill under a compressing policy) the
  /// prompt's staging copy the later chunks and the selection read.
  StringRef kvTensor() const {
    return promptType ? StringRef("prompt_kv") : StringRef("kv_cache");
  }

  /// Traffic of a stage to a per-layer tensor beside the KV cache's slots:
  /// bytes it loads from and stores to `tensor` (of `type`).
  struct AuxTraffic {
    StringRef tensor;
    RankedTensorType type;
    int64_t read = 0, written = 0;
  };

  /// What an op reads and writes besides its streams, weights and the
  /// slots it attends: a policy's per-slot state (kv.evict's update, the
  /// state kv.gather_store starts), the page digests kv.page_score reads,
  /// and the backup pages kv.recall brings back and kv.backup writes (with
  /// the digests it builds and, at decode, the page keys it re-reads).
  SmallVector<AuxTraffic> auxTraffic(Operation *op) {
    SmallVector<AuxTraffic> out;
    auto traffic = cast<TrafficOpInterface>(op);
    for (const KVAccess &a : traffic.getKVAccesses()) {
      auto [tensor, type] = tensorOf(a.role);
      // A format without a residual (or a decode without a prefill's
      // staging copy) has none to read.
      if (type)
        out.push_back({tensor, type, a.read, a.written});
    }
    // A decode attention reads the residual beside the stored slots (not
    // a windowed layer's: its ring has no format).
    if (out.empty() && residualType && traffic.readsKVSlots() && !windowedOp)
      out.push_back({"kv_residual", residualType,
                     bytesOf(residualType) / residualType.getDimSize(0), 0});
    return out;
  }

  /// The per-layer tensor of `role` and its type (null: the program has
  /// none).
  std::pair<StringRef, RankedTensorType> tensorOf(KVTensorRole role) const {
    switch (role) {
    case KVTensorRole::Cache:
      return {"kv_cache", kvType};
    case KVTensorRole::State:
      return {"kv_state", stateType};
    case KVTensorRole::Digest:
      return {"kv_digest", digestType};
    case KVTensorRole::Backup:
      return {"kv_backup", backupType};
    case KVTensorRole::Residual:
      return {"kv_residual", residualType};
    case KVTensorRole::QuantizeSource:
      return stagingType ? std::pair(StringRef("kv_staging"), stagingType)
                         : std::pair(StringRef("kv_residual"), residualType);
    }
    llvm_unreachable("unknown KV tensor role");
  }

  /// A piece of a per-layer tensor of `type` of about `tileBytes`, and how
  /// many pieces cover `bytes` (rounded up to whole pieces: a piece is at
  /// most a sixteenth of `bytes` unless one row, its innermost dimension,
  /// is larger, so the rounding stays within about 6%).
  std::pair<RankedTensorType, int64_t>
  auxTiles(RankedTensorType full, int64_t bytes, int64_t tileBytes) {
    int64_t layerBytes = bytesOf(full) / full.getDimSize(0);
    int64_t rowBytes = bytesOf(full) / full.getDimSize(0) / full.getDimSize(1) /
                       full.getDimSize(2);
    int64_t piece = std::max<int64_t>(
        rowBytes, std::min({tileBytes > 0 ? tileBytes : layerBytes, bytes / 16,
                            layerBytes}));
    SmallVector<int64_t> tile =
        cutTile(full.getShape(), std::max<int64_t>(1, layerBytes / piece),
                /*keep=*/1)
            .first;
    auto type = RankedTensorType::get(tile, full.getElementType());
    int64_t count =
        std::max<int64_t>(1, (bytes + bytesOf(type) - 1) / bytesOf(type));
    return {type, count};
  }

  /// One store of new cache tokens: `tiles` tiles of `tile` to `tensor`.
  struct KVWrite {
    StringRef tensor;
    RankedTensorType tile;
    int64_t tiles = 0;
  };

  /// Where an op's `tokens` new cache tokens (whole batch, in runs of
  /// `run`) go. Without a format: the KV cache (or a chunked prefill's
  /// staged prompt) at the dtype. With one: the stored slots in the
  /// format's bytes, the newest of a prefill's tokens to the residual at
  /// the dtype; or all of them at the dtype, to the residual (decode) or
  /// the prefill's staging copy, when the format quantizes later.
  SmallVector<KVWrite, 2> kvWritesOf(Operation *op, int64_t tokens,
                                     int64_t run) {
    StringRef plain = isa<kv::GatherStoreOp, kv::RecallOp>(op)
                          ? StringRef("kv_cache")
                          : kvTensor();
    auto tileOf = [](RankedTensorType t, int64_t n) {
      return RankedTensorType::get({1, 1, n, t.getDimSize(3)},
                                   t.getElementType());
    };
    // A chunked prefill's staged prompt holds its tokens at the dtype
    // whatever the format (the selection quantizes what it keeps).
    // Runs of `run` tokens (a recalled page) in tiles that divide the
    // tensor's slots: a format's residual (ZipCache's 100 tokens) can leave
    // a quantized part that whole pages do not tile.
    auto runs = [&](RankedTensorType t) -> KVWrite {
      int64_t n = std::gcd(run, t.getDimSize(2));
      return {plain, tileOf(t, n), tokens / n};
    };
    if (windowedOp) {
      KVWrite w = runs(windowType);
      w.tensor = "kv_window";
      return {w};
    }
    if (plain == "prompt_kv")
      return {runs(promptType)};
    if (!format || isa<kv::RecallOp>(op))
      return {runs(kvType)};
    if (!format.quantizesOnWrite(prefill)) {
      if (prefill && stagingType)
        return {{"kv_staging", tileOf(stagingType, 1), tokens}};
      if (residualType)
        return {{"kv_residual", tileOf(residualType, 1), tokens}};
      return {{plain, tileOf(kvType, 1), tokens}};
    }
    int64_t batch = kvType.getDimSize(1);
    int64_t perSequence = tokens / std::max<int64_t>(1, batch);
    int64_t residual =
        residualType ? std::min(residualType.getDimSize(2), perSequence) : 0;
    SmallVector<KVWrite, 2> out;
    if (perSequence > residual)
      out.push_back(
          {"kv_cache", tileOf(kvType, 1), (perSequence - residual) * batch});
    if (residual > 0)
      out.push_back({"kv_residual", tileOf(residualType, 1), residual * batch});
    return out;
  }

  /// Lowers `op`; every load, store and stage it makes is tagged with the
  /// model operator `op` works for (a run's profile charges them to it).
  LogicalResult lower(Operation *op) {
    windowedOp = llm::getWindow(op) > 0;
    arch::OpKind kind = opKinds->lookup(op);
    tag = arch::isTaggedOpKind(kind)
              ? df::OpKindAttr::get(op->getContext(), kind)
              : df::OpKindAttr();
    return lowerOne(op);
  }

  LogicalResult lowerOne(Operation *op) {
    if (isa<llm::ParamOp, llm::YieldOp, func::ReturnOp, llm::ShardSliceOp,
            llm::ReshapeOp>(op) ||
        isStagedRead(op))
      return success();
    if (auto ar = dyn_cast<llm::AllReduceOp>(op))
      return collective(op, arch::CollectiveKind::AllReduce, ar.getGroupSize());
    if (auto ag = dyn_cast<llm::AllGatherOp>(op))
      return collective(op, arch::CollectiveKind::AllGather, ag.getGroupSize());
    if (auto aa = dyn_cast<llm::AllToAllOp>(op))
      return collective(op, arch::CollectiveKind::AllToAll, aa.getGroupSize());
    df::StageMapAttr map = df::getStageMap(op);
    if (!map) {
      if (isa<CostOpInterface>(op))
        return op->emitOpError("has no df.stage; run --tile-and-map first");
      return success(); // not a stage (e.g. a repeat already split)
    }
    return stage(op, map);
  }

  /// A read of the prompt a chunked prefill staged: a view of `prompt_kv`.
  static bool isStagedRead(Operation *op) {
    auto read = dyn_cast_or_null<kv::ReadOp>(op);
    return read && read.getStaged() > 0;
  }

  /// The part of `prompt_kv` a selection op reads through operand `v` of a
  /// staged read: every staged token for the scores, the kept ones (the
  /// cache's slots) for the gather; only `v`'s share of each token's values.
  Value loadStaged(Operation *op, Value v, int64_t tileBytes) {
    RankedTensorType stagedType = promptType;
    int64_t layerBytes = bytesOf(stagedType) / stagedType.getDimSize(0);
    auto t = cast<RankedTensorType>(v.getType());
    int64_t tokens = t.getDimSize(1);
    if (isa<kv::GatherStoreOp>(op))
      tokens = cast<kv::KVCacheTypeInterface>(op->getOperand(0).getType())
                   .getSlots();
    double share = double(tokens) / double(stagedType.getDimSize(2)) *
                   double(t.getDimSize(2)) / double(stagedType.getDimSize(3));
    // Tiles of the stage's size, but never below an activation tile (a
    // selection stage streams no weights) unless the read is smaller: a
    // gather of a few kept tokens loads those, not a whole tile.
    int64_t cap = std::max(tileBytes, kActivationTileBytes);
    int64_t need = std::max<int64_t>(
        1, static_cast<int64_t>(std::ceil(share * double(layerBytes))));
    int64_t want = std::max<int64_t>(1, layerBytes / std::min(cap, need));
    auto [tile, pieces] = cutTile(stagedType.getShape(), want, /*keep=*/1);
    int64_t tiles = std::max<int64_t>(
        1, static_cast<int64_t>(std::ceil(double(pieces) * share)));
    return b.create<df::LoadOp>(
        op->getLoc(),
        streamOf(RankedTensorType::get(tile, stagedType.getElementType())), tag,
        "prompt_kv", tiles);
  }

  LogicalResult stage(Operation *op, df::StageMapAttr map) {
    Block *block = b.getInsertionBlock();
    Operation *before = block->empty() ? nullptr : &block->back();
    if (failed(stageBody(op, map)))
      return failure();
    // The end-of-prefill selection: a chunked prefill runs it in its last
    // chunk only, and every prefill's report gives its share of the TTFT.
    if (prefill && cast<TrafficOpInterface>(op).isKVSelection())
      for (Operation *o = before ? before->getNextNode() : &block->front(); o;
           o = o->getNextNode()) {
        if (auto load = dyn_cast<df::LoadOp>(o))
          load.setLastChunk(true);
        else if (auto st = dyn_cast<df::StageOp>(o))
          st.setLastChunk(true);
      }
    return success();
  }

  LogicalResult stageBody(Operation *op, df::StageMapAttr map) {
    arch::StageKind kind = map.getKind();
    int64_t tiles = map.getTiles();
    int64_t tileBytes = map.getTileBytes();
    int64_t pcus = map.getPcus();
    auto cost = cast<CostOpInterface>(op);

    // Weights stream in proportion to their bytes; routed experts only as
    // far as the batch is expected to touch them.
    int64_t weightBytes = 0;
    for (Value v : op->getOperands())
      if (v.getDefiningOp<llm::ParamOp>())
        weightBytes += bytesOf(v.getType());
    SmallVector<Value> inputs;
    for (Value v : op->getOperands()) {
      if (isa<kv::KVCacheTypeInterface>(v.getType())) {
        // An op that reads what a recall or backup just wrote waits for
        // it: the attention for the recalled pages, a prefill's page
        // scores for the digests. It takes that stream beside its load.
        if (auto it = written.find(v);
            it != written.end() &&
            isa<llm::AttentionOp, llm::MLAAttentionOp, kv::PageScoreOp>(op))
          inputs.push_back(it->second);
        continue;
      }
      if (auto param = v.getDefiningOp<llm::ParamOp>()) {
        double fraction = 1.0;
        bool routed = false;
        if (auto moe = dyn_cast<llm::MoEOp>(op))
          if (v == moe.getGate() || v == moe.getUp() || v == moe.getDown()) {
            fraction = moe.getActiveExperts() / moe.getNumExperts();
            routed = true;
          }
        int64_t want =
            std::max<int64_t>(1, tiles * bytesOf(v.getType()) /
                                     std::max<int64_t>(1, weightBytes));
        // The embedding reads only the rows it looks up.
        if (auto embed = dyn_cast<llm::EmbedOp>(op)) {
          int64_t rows = elementsOf(embed.getTokens().getType());
          auto type = cast<RankedTensorType>(v.getType());
          declare(
              param.getName().str(),
              RankedTensorType::get({1, type.getDimSize(0), type.getDimSize(1)},
                                    type.getElementType()),
              tierOf(param));
          inputs.push_back(b.create<df::LoadOp>(
              op->getLoc(),
              streamOf(RankedTensorType::get({1, 1, type.getDimSize(1)},
                                             type.getElementType())),
              tag, param.getName().str(), rows));
          continue;
        }
        inputs.push_back(loadWeight(param, want, fraction, routed));
        continue;
      }
      if (!isa<RankedTensorType>(v.getType()))
        continue;
      if (isStagedRead(v.getDefiningOp())) {
        inputs.push_back(loadStaged(op, v, tileBytes));
        continue;
      }
      // The scores read only the observation window's queries.
      int64_t rows = 0;
      if (auto score = dyn_cast<kv::ScoreOp>(op);
          score && v == score.getQueries())
        rows = score.getObsWindow();
      Value s = streamFor(v, tiles, rows);
      if (!s)
        return failure();
      inputs.push_back(s);
    }
    auto traffic = cast<TrafficOpInterface>(op);
    if (traffic.readsKVSlots())
      inputs.push_back(loadKV(op->getLoc(), tileBytes));
    SmallVector<AuxTraffic> aux = auxTraffic(op);
    for (const AuxTraffic &a : aux)
      if (a.read > 0) {
        auto [tile, count] = auxTiles(a.type, a.read, tileBytes);
        inputs.push_back(b.create<df::LoadOp>(op->getLoc(), streamOf(tile), tag,
                                              a.tensor, count));
      }
    // A chunk of a chunked prefill reads back what earlier chunks wrote.
    int64_t prefix = llm::getPrefix(op);
    if (prefix > 0)
      inputs.push_back(loadKV(op->getLoc(), tileBytes, prefix));
    // The stage's AGCUs go to its weight and KV loads in proportion to
    // their bytes (what tile-and-map shared them by). An activation read
    // back from a home off chip keeps its own lanes (one per tile, up to
    // the section's): a compute-bound stage with few weight bytes would
    // otherwise read a prefill's hidden states over one lane.
    if (int64_t agcus = map.getAgcus()) {
      SmallVector<df::LoadOp> loads;
      int64_t total = 0;
      auto offChip = [&](df::LoadOp load) {
        // By the tier it was declared with: a symbol lookup scans the
        // program, quadratic over an unfused model's loads (R12).
        auto it = declaredTier.find(load.getSrc());
        return it != declaredTier.end() && it->second != arch::MemoryTier::SRAM;
      };
      for (Value in : inputs)
        if (auto load = in.getDefiningOp<df::LoadOp>())
          if (load->getParentOp() == b.getInsertionBlock()->getParentOp() &&
              offChip(load) && !homeNames.contains(load.getSrc())) {
            loads.push_back(load);
            total +=
                load.getTiles() * load.getResult().getType().getTileBytes();
          }
      for (df::LoadOp load : loads) {
        int64_t bytes =
            load.getTiles() * load.getResult().getType().getTileBytes();
        load.setAgcus(
            std::max<int64_t>(1, agcus * bytes / std::max<int64_t>(1, total)));
      }
    }

    // Outputs: tensor results that are used, then new KV tokens. A stage
    // fires often enough that no output tile exceeds the activation tile:
    // tile-and-map counts tiles by the bytes streamed from memory, and a
    // prefill RMSNorm streams a few KiB of weights but emits the whole
    // prompt's activations. (Weights above keep tile-and-map's count; a
    // stage consumes each input in proportion to its firings.)
    // Only outputs too large for a stream are re-cut: they never fan out
    // through a stream (findSpills), so finer tiles cannot unbalance a
    // fork and join.
    for (Value r : op->getResults())
      if (isa<RankedTensorType>(r.getType()) && !r.use_empty() &&
          bytesOf(r.getType()) > kFanOutBytes)
        tiles =
            std::max(tiles, (bytesOf(r.getType()) + kActivationTileBytes - 1) /
                                kActivationTileBytes);
    SmallVector<Type> outTypes;
    SmallVector<int64_t> outCounts;
    SmallVector<Value> outValues;
    for (Value r : op->getResults()) {
      if (!isa<RankedTensorType>(r.getType()) || r.use_empty())
        continue;
      int64_t count = 0;
      RankedTensorType tile = activationTile(r.getType(), tiles, count);
      outTypes.push_back(streamOf(tile));
      outCounts.push_back(count);
      outValues.push_back(r);
    }
    int64_t kvTokens = traffic.getKVTokensWritten();
    SmallVector<KVWrite, 2> kvWrites;
    if (kvTokens > 0) {
      // One token per tile, or a recalled page (whole pages move).
      kvWrites = kvWritesOf(op, kvTokens, traffic.getKVWriteRun());
      for (const KVWrite &w : kvWrites) {
        outTypes.push_back(streamOf(w.tile));
        outCounts.push_back(w.tiles);
      }
    }
    for (const AuxTraffic &a : aux)
      if (a.written > 0) {
        auto [tile, count] = auxTiles(a.type, a.written, tileBytes);
        outTypes.push_back(streamOf(tile));
        outCounts.push_back(count);
      }
    int64_t flops = cost.getFlops().value();
    // The work on earlier chunks' tokens is its share of the steps (it
    // scales with the chunk), the chunk's own work the rest: at least one
    // step each, so even the first chunk emits its outputs.
    int64_t prefixFlops = llm::getPrefixFlops(op).value();
    int64_t prefixTiles = 0;
    if (prefixFlops > 0) {
      int64_t fixedTiles = std::max<int64_t>(
          1, std::llround(double(tiles) * double(flops - prefixFlops) /
                          double(flops)));
      tiles = std::max(tiles, fixedTiles + 1);
      prefixTiles = tiles - fixedTiles;
    }
    int64_t flopsPerTile =
        ceilDiv(CheckedInt(flops), std::max<int64_t>(1, tiles)).value();
    auto st = b.create<df::StageOp>(
        op->getLoc(), outTypes, tag,
        df::StageKindAttr::get(op->getContext(), kind), inputs,
        b.getI64IntegerAttr(pcus), b.getI64IntegerAttr(flopsPerTile),
        b.getI64IntegerAttr(tiles), b.getDenseI64ArrayAttr(outCounts),
        b.getI64IntegerAttr(prefixTiles), /*last_chunk=*/nullptr,
        /*rows=*/nullptr);
    if (int64_t rows = cost.getGemmRows();
        rows > 0 && kind == arch::StageKind::Gemm)
      st.setRowsAttr(b.getI64IntegerAttr(rows));
    for (auto [k, v] : llvm::enumerate(outValues)) {
      streams[v] = st.getResult(k);
      storeIfHomed(v, st.getResult(k));
    }
    size_t next = outValues.size();
    if (kvTokens > 0 && isa<kv::RecallOp>(op))
      written[op->getResult(0)] = st.getOutputs()[next];
    for (const KVWrite &w : kvWrites)
      b.create<df::StoreOp>(op->getLoc(), tag, st.getOutputs()[next++],
                            w.tensor);
    for (const AuxTraffic &a : aux)
      if (a.written > 0) {
        if (isa<kv::BackupOp>(op) && a.tensor == "kv_digest")
          written[op->getResult(0)] = st.getOutputs()[next];
        b.create<df::StoreOp>(op->getLoc(), tag, st.getOutputs()[next++],
                              a.tensor);
      }
    return success();
  }

  LogicalResult collective(Operation *op, arch::CollectiveKind kind,
                           int64_t group) {
    Value in = streamFor(op->getOperand(0), 1);
    if (!in)
      return failure();
    auto tile = cast<df::StreamType>(in.getType()).getTile();
    if (kind == arch::CollectiveKind::AllGather) {
      SmallVector<int64_t> shape(tile.getShape());
      shape[0] *= group;
      tile = RankedTensorType::get(shape, tile.getElementType());
    }
    auto c = b.create<df::CollectiveOp>(
        op->getLoc(), streamOf(tile),
        df::CollectiveKindAttr::get(op->getContext(), kind), in,
        b.getI64IntegerAttr(group), /*algorithm=*/nullptr);
    streams[op->getResult(0)] = c.getResult();
    storeIfHomed(op->getResult(0), c.getResult());
    return success();
  }

  /// A value that lives on past its section goes to its home tensor.
  void storeIfHomed(Value v, Value stream) {
    auto home = homes.find(v);
    if (home == homes.end() || home->second == "tokens")
      return;
    auto tile = cast<df::StreamType>(stream.getType()).getTile();
    int64_t n = elementsOf(v.getType());
    // The home is 1-D over the whole value; the tile must divide it.
    auto homeTy = RankedTensorType::get({n}, tile.getElementType());
    if (n % tile.getNumElements() != 0 || tile.getRank() != 1) {
      // An all-gathered tile is 2-D: store its flattened form instead.
      homeTy = RankedTensorType::get(
          {n / tile.getNumElements(), tile.getNumElements()},
          tile.getElementType());
      homeTy =
          RankedTensorType::get({homeTy.getDimSize(0) * tile.getDimSize(0),
                                 tile.getNumElements() / tile.getDimSize(0)},
                                tile.getElementType());
    }
    Operation *def = v.getDefiningOp();
    declare(home->second, homeTy, def ? tierOf(def) : arch::MemoryTier::SRAM);
    homeNames.insert(home->second);
    b.create<df::StoreOp>(v.getLoc(), tag, stream, home->second);
  }

  func::FuncOp fn;
  OpBuilder &b;
  OpBuilder decls{fn.getContext()};
  /// The model operator of every op of `fn`, for the nodes' tags.
  const OpKindAnalysis *opKinds = nullptr;
  /// The tag of the op being lowered (null for an untagged one).
  df::OpKindAttr tag;
  int64_t tp;
  int64_t sectionAgcus = 1; ///< the AGCU lanes of the section being lowered
  /// A prefill phase: its selection ops run in the last chunk only.
  bool prefill = false;
  df::ProgramOp program;
  RankedTensorType kvType;
  /// The windowed layers' ring (kv_window; null without), and whether the
  /// op being lowered is a windowed layer's attention.
  RankedTensorType windowType;
  bool windowedOp = false;
  /// A chunked prefill under a compressing policy keeps the whole prompt's
  /// K/V in `prompt_kv` of this type (its own slots) until the selection
  /// fills the cache; null otherwise.
  RankedTensorType promptType;
  /// The per-slot state of a policy that evicts by attention (H2O's
  /// scores, Scissorhands' history) in `kv_state`, bytes per slot as i8;
  /// null for a policy without state.
  RankedTensorType stateType;
  /// A policy's page backup (ArkVale): every token of the context in
  /// `kv_backup` (DDR), a digest per page in `kv_digest` (HBM, bytes per
  /// page as i8); null for a policy without one.
  RankedTensorType backupType, digestType;
  /// A cache format (null: the dtype): its residual of the newest tokens
  /// at the dtype in `kv_residual` (bytes per token as i8), and a prefill's
  /// tokens held at the dtype in `kv_staging` until the format quantizes
  /// them (ZipCache); null types when absent. `kvType` is then the stored
  /// slots, bytes per token as i8.
  kv::KVFormatAttrInterface format;
  RankedTensorType residualType, stagingType;
  /// Each declared tensor's tier.
  llvm::StringMap<arch::MemoryTier> declaredTier;
  DenseMap<Value, std::string> homes;
  /// The tensors that are activations' homes.
  llvm::StringSet<> homeNames;
  DenseMap<Value, Value> streams;
  /// What a kv.recall (the pages it brings back) or kv.backup (the digests
  /// it builds) writes, by its cache result, in the current section.
  DenseMap<Value, Value> written;
  /// Large values that reach several consumers through their home tensor.
  DenseSet<Value> fanOut;
  /// Fan-out values whose stream a consumer has taken (per section).
  DenseSet<Value> taken;
};

struct LowerToDFPass : public snapflow::impl::LowerToDFBase<LowerToDFPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!df::getTarget(module)) {
      module.emitError("lower-to-df: the module has no df.target; run "
                       "--assign-target, --tile-and-map and --plan-memory "
                       "first");
      return signalPassFailure();
    }
    int64_t tp = llm::getTensorParallelism(module);
    SmallVector<func::FuncOp> fns(module.getOps<func::FuncOp>());
    for (func::FuncOp fn : fns) {
      OpBuilder b(fn);
      FunctionLowering lowering(fn, b, tp);
      if (failed(lowering.run()))
        return signalPassFailure();
      fn.erase();
    }
  }
};

} // namespace
