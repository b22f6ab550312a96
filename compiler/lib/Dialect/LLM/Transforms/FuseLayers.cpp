//===- FuseLayers.cpp - Kernel looping of identical decoder layers --------===//
//
// A decoder layer is the run of ops marked with the same `llm.layer`. Two
// layers are identical when their ops match one for one in name, types and
// attributes, ignoring the layer index and the parameter names; a run of
// identical layers whose outputs feed the next layer's inputs the same way in
// every step becomes an llm.repeat of the first layer's body.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/LLM/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

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
bool allCarried(const Layer &first, const Layer &last,
                ArrayRef<size_t> perm) {
  llvm::SmallDenseSet<std::pair<size_t, unsigned>> carriedAt;
  for (size_t k : perm)
    carriedAt.insert(positionIn(first, first.outputs[k]));
  return llvm::all_of(last.outputs, [&](Value v) {
    return carriedAt.contains(positionIn(last, v));
  });
}

struct FuseLayersPass : public llm::impl::FuseLayersBase<FuseLayersPass> {
  void runOnOperation() override {
    Block &block = getOperation().getBody().front();
    SmallVector<Layer> layers = collect(block);
    // Find every run first and fuse the last run first: fusing rewrites the
    // uses of a run's outputs, which the layers before it do not depend on.
    SmallVector<std::tuple<size_t, size_t, SmallVector<size_t>>> runs;
    size_t i = 0;
    while (i < layers.size()) {
      // Extend a run while each layer equals the first and is fed by its
      // predecessor the same way.
      size_t j = i + 1;
      std::optional<SmallVector<size_t>> perm;
      while (j < layers.size() && sameLayer(layers[i], layers[j])) {
        auto p = carried(layers[j - 1], layers[j]);
        if (!p || (perm && *p != *perm) || !onlyFeeds(layers[j - 1], layers[j]))
          break;
        perm = p;
        ++j;
      }
      // The loop's results are its carried values: a last layer with other
      // values used later stays outside the loop.
      while (j - i >= 2 && !allCarried(layers[i], layers[j - 1], *perm))
        --j;
      if (j - i >= 2)
        runs.emplace_back(i, j - i, *perm);
      i = std::max(j, i + 1);
    }
    for (auto &[start, size, perm] : llvm::reverse(runs))
      fuse(ArrayRef<Layer>(layers).slice(start, size), perm);
  }

private:
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
    for (Layer &l : layers) {
      llvm::SmallPtrSet<Operation *, 32> inside(l.ops.begin(), l.ops.end());
      llvm::SetVector<Value> inputs;
      for (Operation *op : l.ops)
        for (Value v : op->getOperands())
          if (!inside.contains(v.getDefiningOp()))
            inputs.insert(v);
      l.inputs.assign(inputs.begin(), inputs.end());
      for (Operation *op : l.ops)
        for (Value r : op->getResults())
          if (llvm::any_of(r.getUsers(), [&](Operation *user) {
                return !inside.contains(user);
              }))
            l.outputs.push_back(r);
    }
    return layers;
  }

  /// Replaces `run` by an llm.repeat of its first layer.
  void fuse(ArrayRef<Layer> run, ArrayRef<size_t> perm) {
    const Layer &first = run.front(), &last = run.back();
    // The loop carries inputs[k] <- outputs[perm[k]].
    OpBuilder b(first.ops.front());
    Location loc = first.ops.front()->getLoc();
    SmallVector<Type> types;
    for (Value v : first.inputs)
      types.push_back(v.getType());
    auto repeat = b.create<RepeatOp>(loc, types, first.inputs,
                                     static_cast<int64_t>(run.size()),
                                     first.index);
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
};

} // namespace
