//===- FuseLayers.cpp - Kernel looping of identical decoder layers --------===//
//
// A decoder layer is the run of ops marked with the same `llm.layer`. Two
// layers are identical when their ops match one for one in name, types and
// attributes, ignoring the layer index and the parameter names; a run of
// identical layers whose outputs feed the next layer's inputs the same way in
// every step becomes an llm.repeat of the first layer's body.
//
// The unit that repeats may be a group of consecutive layers (a stride): in
// a model with cross-layer attention, the first layer of each group computes
// and caches K/V and the others read them, so no two neighbours match but
// every group does. At each layer the pass takes the stride whose run covers
// the most layers (the smallest on a tie), so models without such groups
// fuse exactly as with single layers.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/LLM/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SetVector.h"

#include <map>

namespace snapflow {
namespace llm {
#define GEN_PASS_DEF_FUSELAYERS
#include "snapflow/Dialect/LLM/Transforms/Passes.h.inc"
} // namespace llm
} // namespace snapflow

using namespace mlir;
using namespace snapflow;
using namespace snapflow::llm;

namespace {

/// One decoder layer: its ops in order, the values it takes from before it
/// (ordered by first use) and the values it gives to later ops (ordered by
/// position in the layer).
struct Layer {
  int64_t index = 0;
  SmallVector<Operation *> ops;
  SmallVector<Value> inputs, outputs;
};

/// Fills `l.inputs` and `l.outputs` from its ops.
void linkLayer(Layer &l) {
  llvm::SmallPtrSet<Operation *, 32> inside(l.ops.begin(), l.ops.end());
  llvm::SetVector<Value> inputs;
  for (Operation *op : l.ops)
    for (Value v : op->getOperands())
      if (!inside.contains(v.getDefiningOp()))
        inputs.insert(v);
  l.inputs.assign(inputs.begin(), inputs.end());
  l.outputs.clear();
  for (Operation *op : l.ops)
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(),
                       [&](Operation *user) { return !inside.contains(user); }))
        l.outputs.push_back(r);
}

/// A run of identical units found at some layer: where it starts (in
/// units), how many units, the layers per unit and how the loop carries.
struct Run {
  size_t start = 0, count = 0, stride = 1;
  SmallVector<size_t> perm;
};

/// Attributes that may differ between identical layers.
bool isLayerSpecific(StringRef name) {
  return name == LLMDialect::LayerAttrHelper::getNameStr() || name == "layer" ||
         name == "name";
}

bool sameShape(Operation *a, Operation *b) {
  if (a->getName() != b->getName() ||
      a->getOperandTypes() != b->getOperandTypes() ||
      a->getResultTypes() != b->getResultTypes() ||
      a->getNumRegions() != b->getNumRegions() || a->getNumRegions() != 0)
    return false;
  SmallVector<NamedAttribute> x, y;
  for (NamedAttribute n : a->getAttrs())
    if (!isLayerSpecific(n.getName()))
      x.push_back(n);
  for (NamedAttribute n : b->getAttrs())
    if (!isLayerSpecific(n.getName()))
      y.push_back(n);
  return x == y;
}

/// Whether `b` is `a` with other parameters and layer indices, operand for
/// operand: an operand defined inside the layer must come from the op at the
/// same position, one defined outside from the same input slot.
bool sameLayer(const Layer &a, const Layer &b) {
  if (a.ops.size() != b.ops.size() || a.inputs.size() != b.inputs.size())
    return false;
  DenseMap<Operation *, size_t> posA, posB;
  for (size_t i = 0; i < a.ops.size(); ++i) {
    posA[a.ops[i]] = i;
    posB[b.ops[i]] = i;
  }
  auto slot = [](const Layer &l, const DenseMap<Operation *, size_t> &pos,
                 Value v) -> std::pair<int64_t, int64_t> {
    if (Operation *def = v.getDefiningOp()) {
      auto it = pos.find(def);
      if (it != pos.end())
        return {static_cast<int64_t>(it->second),
                cast<OpResult>(v).getResultNumber()};
    }
    auto it = llvm::find(l.inputs, v);
    return {-1, it - l.inputs.begin()};
  };
  for (size_t i = 0; i < a.ops.size(); ++i) {
    if (!sameShape(a.ops[i], b.ops[i]))
      return false;
    for (auto [va, vb] :
         llvm::zip(a.ops[i]->getOperands(), b.ops[i]->getOperands()))
      if (slot(a, posA, va) != slot(b, posB, vb))
        return false;
  }
  return true;
}

/// How `next`'s inputs come from `prev`'s outputs: perm[k] is the output
/// feeding input k, or nothing when some input comes from elsewhere.
std::optional<SmallVector<size_t>> carried(const Layer &prev,
                                           const Layer &next) {
  if (prev.outputs.size() != next.inputs.size())
    return std::nullopt;
  SmallVector<size_t> perm;
  for (Value in : next.inputs) {
    auto it = llvm::find(prev.outputs, in);
    if (it == prev.outputs.end())
      return std::nullopt;
    perm.push_back(it - prev.outputs.begin());
  }
  return perm;
}

/// Whether every value `l` gives to later ops goes to `next` alone: only then
/// can `l` be an iteration of a loop whose next iteration is `next`. (A value
/// that also escapes, e.g. to the return, exists only in the last iteration
/// of a loop.)
bool onlyFeeds(const Layer &l, const Layer &next) {
  llvm::SmallPtrSet<Operation *, 32> inNext(next.ops.begin(), next.ops.end());
  return llvm::all_of(l.outputs, [&](Value v) {
    return llvm::all_of(v.getUsers(),
                        [&](Operation *user) { return inNext.contains(user); });
  });
}

/// Where `v` is made in layer `l`: (op index, result number).
std::pair<size_t, unsigned> positionIn(const Layer &l, Value v) {
  auto result = cast<OpResult>(v);
  size_t op = llvm::find(l.ops, result.getOwner()) - l.ops.begin();
  return {op, result.getResultNumber()};
}

/// The value `other` makes where `first` makes `v` (identical layers).
Value atPosition(const Layer &other, const Layer &first, Value v) {
  auto [op, result] = positionIn(first, v);
  return other.ops[op]->getResult(result);
}

/// Whether every value the last layer of a run gives to later ops is one
/// the loop carries (a loop's results are exactly its carried values).
/// Outputs are compared by their position in the layer: which of a layer's
/// values reach later ops differs between layers.
bool allCarried(const Layer &first, const Layer &last, ArrayRef<size_t> perm) {
  llvm::SmallDenseSet<std::pair<size_t, unsigned>> carriedAt;
  for (size_t k : perm)
    carriedAt.insert(positionIn(first, first.outputs[k]));
  return llvm::all_of(last.outputs, [&](Value v) {
    return carriedAt.contains(positionIn(last, v));
  });
}

/// A hash of what sameLayer compares, so that only layers with equal
/// hashes are compared.
llvm::hash_code shapeHash(const Layer &l) {
  llvm::hash_code h = llvm::hash_value(l.ops.size());
  for (Operation *op : l.ops) {
    h = llvm::hash_combine(h, op->getName().getAsOpaquePointer());
    for (Type t : op->getOperandTypes())
      h = llvm::hash_combine(h, t.getAsOpaquePointer());
    for (Type t : op->getResultTypes())
      h = llvm::hash_combine(h, t.getAsOpaquePointer());
    for (NamedAttribute n : op->getAttrs())
      if (!isLayerSpecific(n.getName()))
        h = llvm::hash_combine(h, n.getName().getAsOpaquePointer(),
                               n.getValue().getAsOpaquePointer());
  }
  return h;
}

struct FuseLayersPass : public llm::impl::FuseLayersBase<FuseLayersPass> {
  void runOnOperation() override {
    Block &block = getOperation().getBody().front();
    layers = collect(block);
    units.clear();
    classify();
    // Find every run first and fuse the last run first: fusing rewrites the
    // uses of a run's outputs, which the layers before it do not depend on.
    //
    // The search is linear in the layers for the models that have a period
    // (every layer alike, or a pattern of a few): a stride is tried only
    // when it could cover more layers than the best run so far, and only
    // when the layers one stride apart are alike (their classes), before
    // any unit of several layers is built. Trying every stride built units
    // of every width: 73 s and 1.8 GB at 4096 layers (R12).
    SmallVector<Run> runs;
    size_t i = 0;
    while (i < layers.size()) {
      std::optional<Run> best;
      size_t left = layers.size() - i, bestCover = 0;
      for (size_t stride = 1; i + 2 * stride <= layers.size(); ++stride) {
        if (bestCover == left)
          break; // nothing covers more
        if (left / stride * stride <= bestCover)
          continue;
        bool periodic = true;
        for (size_t k = 0; k < stride && periodic; ++k)
          periodic = kind[i + k] == kind[i + stride + k];
        if (!periodic)
          continue;
        std::optional<Run> run = runAt(i, stride);
        if (run && run->count * run->stride > bestCover) {
          bestCover = run->count * run->stride;
          best = run;
        }
      }
      if (!best) {
        ++i;
        continue;
      }
      i += best->count * best->stride;
      runs.push_back(std::move(*best));
    }
    for (const Run &run : llvm::reverse(runs)) {
      SmallVector<Layer> loop;
      for (size_t k = 0; k < run.count; ++k)
        loop.push_back(*unit(run.start + k * run.stride, run.stride));
      fuse(loop, run.perm, run.stride);
    }
  }

private:
  /// The layers from `start` taken `stride` at a time as one unit, if they
  /// are consecutive in the block (built once per start and stride).
  const Layer *unit(size_t start, size_t stride) {
    if (start + stride > layers.size())
      return nullptr;
    if (stride == 1)
      return &layers[start];
    auto key = std::make_pair(start, stride);
    auto it = units.find(key);
    if (it != units.end())
      return it->second ? &*it->second : nullptr;
    std::optional<Layer> u(std::in_place);
    u->index = layers[start].index;
    for (size_t k = start; k < start + stride; ++k) {
      if (k > start &&
          layers[k - 1].ops.back()->getNextNode() != layers[k].ops.front()) {
        u.reset();
        break;
      }
      u->ops.append(layers[k].ops.begin(), layers[k].ops.end());
    }
    if (u)
      linkLayer(*u);
    auto &slot = units[key];
    slot = std::move(u);
    return slot ? &*slot : nullptr;
  }

  /// The longest run of identical units of `stride` layers from layer
  /// `start`, each fed by its predecessor the same way (none: under 2).
  std::optional<Run> runAt(size_t start, size_t stride) {
    const Layer *first = unit(start, stride);
    if (!first)
      return std::nullopt;
    size_t count = 1;
    std::optional<SmallVector<size_t>> perm;
    const Layer *prev = first;
    while (const Layer *next = unit(start + count * stride, stride)) {
      if (!sameLayer(*first, *next))
        break;
      auto p = carried(*prev, *next);
      if (!p || (perm && *p != *perm) || !onlyFeeds(*prev, *next))
        break;
      perm = p;
      prev = next;
      ++count;
    }
    // The loop's results are its carried values: a last unit with other
    // values used later stays outside the loop.
    while (
        count >= 2 &&
        !allCarried(*first, *unit(start + (count - 1) * stride, stride), *perm))
      --count;
    if (count < 2)
      return std::nullopt;
    return Run{start, count, stride, *perm};
  }

  /// kind[i]: the first layer identical to layer i (sameLayer), so a
  /// layer compares with others by an index.
  void classify() {
    kind.assign(layers.size(), 0);
    llvm::DenseMap<size_t, SmallVector<size_t>> byHash;
    for (size_t i = 0; i < layers.size(); ++i) {
      SmallVector<size_t> &same =
          byHash[static_cast<size_t>(shapeHash(layers[i]))];
      kind[i] = i;
      for (size_t first : same)
        if (sameLayer(layers[first], layers[i])) {
          kind[i] = first;
          break;
        }
      if (kind[i] == i)
        same.push_back(i);
    }
  }

  SmallVector<Layer> collect(Block &block) {
    SmallVector<Layer> layers;
    for (Operation &op : block) {
      std::optional<int64_t> layer = getLayer(&op);
      if (!layer)
        continue;
      if (layers.empty() || layers.back().index != *layer ||
          layers.back().ops.back()->getNextNode() != &op) {
        layers.emplace_back();
        layers.back().index = *layer;
      }
      layers.back().ops.push_back(&op);
    }
    for (Layer &l : layers)
      linkLayer(l);
    return layers;
  }

  /// Replaces `run` by an llm.repeat of its first unit (of `stride`
  /// layers).
  void fuse(ArrayRef<Layer> run, ArrayRef<size_t> perm, size_t stride) {
    const Layer &first = run.front(), &last = run.back();
    // The loop carries inputs[k] <- outputs[perm[k]].
    OpBuilder b(first.ops.front());
    Location loc = first.ops.front()->getLoc();
    SmallVector<Type> types;
    for (Value v : first.inputs)
      types.push_back(v.getType());
    auto repeat = b.create<RepeatOp>(
        loc, types, first.inputs, static_cast<int64_t>(run.size()), first.index,
        stride > 1 ? b.getI64IntegerAttr(static_cast<int64_t>(stride))
                   : IntegerAttr());
    Block *body = b.createBlock(&repeat.getBody());
    IRMapping map;
    for (Value in : first.inputs)
      map.map(in, body->addArgument(in.getType(), in.getLoc()));
    for (Operation *op : first.ops) {
      Operation *clone = b.clone(*op, map);
      clone->removeAttr(LLMDialect::LayerAttrHelper::getNameStr());
    }
    SmallVector<Value> yielded;
    for (size_t k = 0; k < perm.size(); ++k)
      yielded.push_back(map.lookup(first.outputs[perm[k]]));
    b.create<YieldOp>(loc, yielded);
    setLayer(repeat, first.index);
    // The last layer's carried values are the repeat's results.
    for (size_t k = 0; k < perm.size(); ++k)
      atPosition(last, first, first.outputs[perm[k]])
          .replaceAllUsesWith(repeat.getResult(k));
    for (const Layer &l : llvm::reverse(run))
      for (Operation *op : llvm::reverse(l.ops)) {
        op->dropAllUses();
        op->erase();
      }
  }

  /// The function's decoder layers, and the units of several (stride > 1)
  /// built from them, by (first layer, stride); none where the layers are
  /// not consecutive.
  SmallVector<Layer> layers;
  SmallVector<size_t> kind;
  std::map<std::pair<size_t, size_t>, std::optional<Layer>> units;
};

} // namespace
