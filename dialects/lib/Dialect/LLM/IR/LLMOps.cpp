//===- LLMOps.cpp - llm ops: verifiers and costs --------------------------===//
//
// The shape rules and the FLOPs/bytes model of every llm op but the
// attentions over a KV cache (LLMAttention.cpp). Conventions are in
// LLMDialect.cpp's header.
//
//===----------------------------------------------------------------------===//

#include "OpHelpers.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace snapflow;
using namespace snapflow::llm;
using namespace snapflow::llm::detail;

//===----------------------------------------------------------------------===//
// ParamOp
//===----------------------------------------------------------------------===//

LogicalResult ParamOp::verify() {
  if (getName().empty())
    return emitOpError("needs a non-empty parameter name");
  return verifyStatic(*this);
}
CheckedInt ParamOp::getFlops() { return 0; }
CheckedInt ParamOp::getBytesRead() { return 0; }
CheckedInt ParamOp::getBytesWritten() { return 0; }

//===----------------------------------------------------------------------===//
// EmbedOp
//===----------------------------------------------------------------------===//

LogicalResult EmbedOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType tokens = tensorOf(getTokens()), table = tensorOf(getTable());
  if (tokens.getRank() != 2)
    return emitOpError() << "tokens must be tensor<batch x tokens>, got "
                         << tokens;
  if (table.getRank() != 2)
    return emitOpError() << "table must be tensor<vocab x hidden>, got "
                         << table;
  if (tensorOf(getResult()).getElementType() != table.getElementType())
    return emitOpError() << "result element type "
                         << tensorOf(getResult()).getElementType()
                         << " does not match the table's "
                         << table.getElementType();
  int64_t g = getTokensPerRow(), t = tokens.getDimSize(1);
  if (g < 1 || t % g != 0)
    return emitOpError() << "tokens_per_row " << g
                         << " must be >= 1 and divide the " << t << " tokens";
  return expectBTW(*this, "result", getResult(), tokens.getDimSize(0), t / g,
                   g * table.getDimSize(1));
}
CheckedInt EmbedOp::getFlops() { return 0; }
CheckedInt EmbedOp::getBytesRead() {
  return numElements(getTokens()) * lastDim(getTable()) *
             getElementBytes(tensorOf(getTable()).getElementType()) +
         getTensorBytes(getTokens().getType());
}
CheckedInt EmbedOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

//===----------------------------------------------------------------------===//
// RMSNormOp, AddOp, RopeOp
//===----------------------------------------------------------------------===//

LogicalResult RMSNormOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t width = lastDim(getInput()), group = getGroup();
  if (group < 0 || (group > 0 && width % group != 0))
    return emitOpError() << "group (" << group
                         << ") must be 0 or divide the last axis (" << width
                         << ")";
  int64_t normed = group > 0 ? group : width;
  if (Value w = getWeight())
    if (tensorOf(w).getRank() != 1 || lastDim(w) != normed)
      return emitOpError() << "weight must be tensor<" << normed << "xT>, got "
                           << w.getType();
  if (getEps().convertToDouble() <= 0)
    return emitOpError("eps must be > 0");
  return success();
}
CheckedInt RMSNormOp::getFlops() {
  // Square, sum, scale by the root; the weight's multiply when there is one.
  return (getWeight() ? 4 : 3) * numElements(getInput());
}
CheckedInt RMSNormOp::getBytesRead() {
  CheckedInt bytes = getTensorBytes(getInput().getType());
  if (Value w = getWeight())
    bytes += getTensorBytes(w.getType());
  return bytes;
}
CheckedInt RMSNormOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

LogicalResult LayerNormOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  for (auto [what, w] : {std::pair<StringRef, Value>{"weight", getWeight()},
                         {"bias", getBias()}})
    if (tensorOf(w).getRank() != 1 || lastDim(w) != lastDim(getInput()))
      return emitOpError() << what << " must be tensor<" << lastDim(getInput())
                           << "xT>, got " << w.getType();
  if (getEps().convertToDouble() <= 0)
    return emitOpError("eps must be > 0");
  return success();
}
// Per element: the mean's add, the variance's subtract, square and add,
// normalising (subtract, multiply by the reciprocal root) and the affine
// multiply and add: 8.
CheckedInt LayerNormOp::getFlops() { return 8 * numElements(getInput()); }
CheckedInt LayerNormOp::getBytesRead() {
  return getTotalBytes(ValueRange{getInput(), getWeight(), getBias()});
}
CheckedInt LayerNormOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

CheckedInt AddOp::getFlops() { return numElements(getResult()); }
CheckedInt AddOp::getBytesRead() {
  return 2 * getTensorBytes(getResult().getType());
}
CheckedInt AddOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

LogicalResult RopeOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t heads = getNumHeads(), headDim = getHeadDim(), rot = getRotaryDim();
  if (heads <= 0 || headDim <= 0)
    return emitOpError("num_heads and head_dim must be > 0");
  if (lastDim(getInput()) != heads * headDim)
    return emitOpError() << "input width " << lastDim(getInput())
                         << " must be num_heads x head_dim = " << heads << " x "
                         << headDim;
  if (rot <= 0 || rot > headDim || rot % 2 != 0)
    return emitOpError() << "rotary_dim " << rot
                         << " must be even and in (0, head_dim = " << headDim
                         << "]";
  return success();
}
CheckedInt RopeOp::getFlops() {
  // Each rotated pair: 4 multiplies and 2 adds, i.e. 3 FLOPs per element.
  return 3 * rows(getInput()) * getNumHeads() * getRotaryDim();
}
CheckedInt RopeOp::getBytesRead() {
  return getTensorBytes(getInput().getType());
}
CheckedInt RopeOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

//===----------------------------------------------------------------------===//
// LinearOp, MLPOp, MoEOp
//===----------------------------------------------------------------------===//

LogicalResult LinearOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType w = tensorOf(getWeight());
  if (w.getRank() != 2)
    return emitOpError() << "weight must be tensor<out x in>, got " << w;
  if (w.getDimSize(1) != lastDim(getInput()))
    return emitOpError() << "weight " << w << " does not take inputs of width "
                         << lastDim(getInput());
  RankedTensorType in = tensorOf(getInput()), out = tensorOf(getResult());
  if (out.getRank() != in.getRank() ||
      out.getShape().drop_back() != in.getShape().drop_back() ||
      lastDim(getResult()) != w.getDimSize(0))
    return emitOpError() << "result must be the input shape with width "
                         << w.getDimSize(0) << ", got " << out;
  if (Value bias = getBias())
    if (failed(expectShape(*this, "bias", bias, {w.getDimSize(0)})))
      return failure();
  return success();
}
CheckedInt LinearOp::getFlops() {
  CheckedInt flops =
      2 * rows(getInput()) * lastDim(getInput()) * lastDim(getResult());
  if (getBias())
    flops += numElements(getResult());
  return flops;
}
int64_t LinearOp::getGemmRows() { return gemmRows(getInput()); }
CheckedInt LinearOp::getBytesRead() {
  CheckedInt bytes = getTensorBytes(getInput().getType()) +
                     getTensorBytes(getWeight().getType());
  if (Value bias = getBias())
    bytes += getTensorBytes(bias.getType());
  return bytes;
}
CheckedInt LinearOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

LogicalResult MLPOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t h = lastDim(getInput());
  RankedTensorType g = tensorOf(getGate());
  if (g.getRank() != 2 || g.getDimSize(1) != h)
    return emitOpError() << "gate must be tensor<I x " << h << ">, got " << g;
  int64_t i = g.getDimSize(0);
  return failure(failed(expectShape(*this, "up", getUp(), {i, h})) ||
                 failed(expectShape(*this, "down", getDown(), {h, i})));
}
CheckedInt MLPOp::getFlops() {
  CheckedInt m = rows(getInput()), h = lastDim(getInput()),
             i = tensorOf(getGate()).getDimSize(0);
  return m * (6 * h * i + 5 * i);
}
int64_t MLPOp::getGemmRows() { return gemmRows(getInput()); }
CheckedInt MLPOp::getBytesRead() {
  return getTensorBytes(getInput().getType()) +
         getTotalBytes(ValueRange{getGate(), getUp(), getDown()});
}
CheckedInt MLPOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

LogicalResult GeluMLPOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t h = lastDim(getInput());
  RankedTensorType up = tensorOf(getUp());
  if (up.getRank() != 2 || up.getDimSize(1) != h)
    return emitOpError() << "up must be tensor<I x " << h << ">, got " << up;
  int64_t i = up.getDimSize(0);
  return failure(failed(expectShape(*this, "up_bias", getUpBias(), {i})) ||
                 failed(expectShape(*this, "down", getDown(), {h, i})) ||
                 failed(expectShape(*this, "down_bias", getDownBias(), {h})));
}
// Per token: the two products (2 x 2 x H x I), the biases (I + H) and GELU,
// counted as 8 FLOPs an element (an erf or tanh polynomial) over I.
CheckedInt GeluMLPOp::getFlops() {
  CheckedInt m = rows(getInput()), h = lastDim(getInput()),
             i = tensorOf(getUp()).getDimSize(0);
  return m * (4 * h * i + 9 * i + h);
}
int64_t GeluMLPOp::getGemmRows() { return gemmRows(getInput()); }
CheckedInt GeluMLPOp::getBytesRead() {
  return getTensorBytes(getInput().getType()) +
         getTotalBytes(
             ValueRange{getUp(), getUpBias(), getDown(), getDownBias()});
}
CheckedInt GeluMLPOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

LogicalResult RouteOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType x = tensorOf(getInput()), w = tensorOf(getRouter());
  int64_t k = getTopK();
  if (x.getRank() != 3)
    return emitOpError() << "input must be tensor<B x T x H>, got " << x;
  if (w.getRank() != 2 || w.getDimSize(1) != x.getDimSize(2))
    return emitOpError() << "router must be tensor<E x " << x.getDimSize(2)
                         << ">, got " << w;
  int64_t e = w.getDimSize(0);
  if (k <= 0 || k > e)
    return emitOpError() << "top_k (" << k << ") must be in [1, " << e
                         << "], the experts the router scores";
  RankedTensorType r = tensorOf(getExperts());
  if (r.getShape() != ArrayRef<int64_t>{x.getDimSize(0), x.getDimSize(1), k})
    return emitOpError() << "experts must be tensor<" << x.getDimSize(0)
                         << " x " << x.getDimSize(1) << " x " << k
                         << " x i32>, got " << r;
  return success();
}
CheckedInt RouteOp::getFlops() {
  CheckedInt m = rows(getInput()), h = lastDim(getInput());
  CheckedInt e = tensorOf(getRouter()).getDimSize(0);
  // The router GEMM, then per token a score function and a top-k pass
  // over the E scores (about two operations per expert).
  return 2 * m * h * e + 2 * m * e;
}
int64_t RouteOp::getGemmRows() { return gemmRows(getInput()); }
CheckedInt RouteOp::getBytesRead() {
  return getTensorBytes(getInput().getType()) +
         getTensorBytes(getRouter().getType());
}
CheckedInt RouteOp::getBytesWritten() {
  return getTensorBytes(getExperts().getType());
}

LogicalResult MoEOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t h = lastDim(getInput()), e = getNumExperts(), k = getTopK();
  if (e <= 0)
    return emitOpError("num_experts must be > 0");
  int64_t shards = getExpertShards();
  if (shards < 1)
    return emitOpError() << "expert_shards must be >= 1, got " << shards;
  if (k <= 0 || k > e * shards)
    return emitOpError() << "top_k (" << k
                         << ") must be in [1, num_experts x expert_shards = "
                         << e * shards << "]";
  RankedTensorType x = tensorOf(getInput()), r = tensorOf(getRouting());
  if (x.getRank() != 3 ||
      r.getShape() != ArrayRef<int64_t>{x.getDimSize(0), x.getDimSize(1), k})
    return emitOpError() << "routing must be tensor<"
                         << (x.getRank() == 3 ? x.getDimSize(0) : 0) << " x "
                         << (x.getRank() == 3 ? x.getDimSize(1) : 0) << " x "
                         << k << " x i32> (the router's top_k per token), got "
                         << r;
  RankedTensorType g = tensorOf(getGate());
  if (g.getRank() != 3 || g.getDimSize(0) != e || g.getDimSize(2) != h)
    return emitOpError() << "gate must be tensor<" << e << " x I x " << h
                         << ">, got " << g;
  int64_t i = g.getDimSize(1);
  if (failed(expectShape(*this, "up", getUp(), {e, i, h})) ||
      failed(expectShape(*this, "down", getDown(), {e, h, i})))
    return failure();
  if (FloatAttr active = getExpectedActiveExpertsAttr())
    if (active.getValueAsDouble() <= 0 ||
        active.getValueAsDouble() > static_cast<double>(e))
      return emitOpError() << "expected_active_experts must be in (0, " << e
                           << "], got " << active.getValueAsDouble();
  return success();
}
double MoEOp::getActiveExperts() {
  if (FloatAttr active = getExpectedActiveExpertsAttr())
    return active.getValueAsDouble();
  double e = static_cast<double>(getNumExperts());
  double p = static_cast<double>(getTopK()) / (e * getExpertShards());
  // Tokens routed: B*T (a verified op's shapes fit in 64 bits).
  double tokens = static_cast<double>(rows(getInput()).get().value_or(0));
  return e * (1.0 - std::pow(1.0 - p, tokens));
}
CheckedInt MoEOp::getFlops() {
  CheckedInt m = rows(getInput()), h = lastDim(getInput());
  CheckedInt i = tensorOf(getGate()).getDimSize(1);
  // Each token runs top_k / expert_shards of its experts on this socket on
  // average.
  return m * getTopK() * (6 * h * i + 5 * i) / getExpertShards();
}
// The tokens each active expert of this socket takes: the step's
// assignments to its experts over the experts they touch.
int64_t MoEOp::getGemmRows() {
  double assignments =
      static_cast<double>(gemmRows(getInput())) * getTopK() / getExpertShards();
  return std::max<int64_t>(
      1, std::llround(assignments / std::max(1.0, getActiveExperts())));
}
CheckedInt MoEOp::getBytesRead() {
  std::optional<int64_t> experts =
      getTotalBytes(ValueRange{getGate(), getUp(), getDown()}).get();
  if (!experts)
    return CheckedInt::overflow();
  CheckedInt touched = CheckedInt::fromDouble(
      double(*experts) * getActiveExperts() / getNumExperts());
  return getTensorBytes(getInput().getType()) +
         getTensorBytes(getRouting().getType()) + touched;
}
CheckedInt MoEOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

//===----------------------------------------------------------------------===//
// LocalAttentionOp, ReshapeOp, SampleOp
//===----------------------------------------------------------------------===//

LogicalResult LocalAttentionOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  int64_t hq = getNumHeads(), hkv = getNumKvHeads(), d = getHeadDim();
  if (failed(verifyHeads(*this, hq, hkv, d)))
    return failure();
  RankedTensorType q = tensorOf(getQuery());
  if (q.getRank() != 3)
    return emitOpError() << "query must be tensor<B x T x " << hq * d
                         << ">, got " << q;
  int64_t b = q.getDimSize(0), t = q.getDimSize(1);
  if (failed(expectBTW(*this, "query", getQuery(), b, t, hq * d)))
    return failure();
  if (getKv().empty() || getKv().size() % 2 != 0)
    return emitOpError() << "kv must be pairs of keys and values, got "
                         << getKv().size() << " values";
  for (auto [i, v] : llvm::enumerate(getKv())) {
    RankedTensorType kv = tensorOf(v);
    bool own = i + 2 >= getKv().size();
    if (kv.getRank() != 3 || kv.getDimSize(0) != b ||
        kv.getDimSize(2) != hkv * d || (own && kv.getDimSize(1) != t))
      return emitOpError() << (i % 2 ? "value " : "key ") << i / 2
                           << " must be tensor<" << b << "x"
                           << (own ? std::to_string(t) : "T") << "x" << hkv * d
                           << "xT>, got " << v.getType();
  }
  if (getResult().getType() != getQuery().getType())
    return emitOpError("result type must equal the query type");
  return success();
}
int64_t LocalAttentionOp::getEarlierKeys() {
  int64_t keys = 0;
  for (size_t i = 0; i + 2 < getKv().size(); i += 2)
    keys += tensorOf(getKv()[i]).getDimSize(1);
  return keys;
}
CheckedInt LocalAttentionOp::getFlops() {
  RankedTensorType q = tensorOf(getQuery());
  CheckedInt t = q.getDimSize(1);
  // Every query row sees the earlier keys and, causally, its own rows.
  CheckedInt pairs = t * getEarlierKeys() + causalPairs(t);
  return q.getDimSize(0) * getNumHeads() * pairs * (4 * getHeadDim() + 5);
}
int64_t LocalAttentionOp::getGemmRows() {
  return tensorOf(getQuery()).getDimSize(1) * getNumHeads() /
         std::max<int64_t>(1, getNumKvHeads());
}
CheckedInt LocalAttentionOp::getBytesRead() {
  return getTensorBytes(getQuery().getType()) + getTotalBytes(getKv());
}
CheckedInt LocalAttentionOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

LogicalResult ReshapeOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType in = tensorOf(getInput()), out = tensorOf(getResult());
  if (in.getNumElements() != out.getNumElements() ||
      in.getElementType() != out.getElementType())
    return emitOpError() << "result " << out
                         << " must hold the input's elements, " << in;
  return success();
}
CheckedInt ReshapeOp::getFlops() { return 0; }
CheckedInt ReshapeOp::getBytesRead() { return 0; }
CheckedInt ReshapeOp::getBytesWritten() { return 0; }

LogicalResult SampleOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType logits = tensorOf(getLogits()),
                   tokens = tensorOf(getTokens());
  if (logits.getRank() != 3 || tokens.getRank() != 2 ||
      logits.getShape().drop_back() != tokens.getShape())
    return emitOpError() << "tokens must be tensor<"
                         << (logits.getRank() == 3
                                 ? std::to_string(logits.getDimSize(0)) + "x" +
                                       std::to_string(logits.getDimSize(1))
                                 : std::string("B x T"))
                         << "xi32> for logits " << logits;
  return success();
}
CheckedInt SampleOp::getFlops() { return numElements(getLogits()); }
CheckedInt SampleOp::getBytesRead() {
  return getTensorBytes(getLogits().getType());
}
CheckedInt SampleOp::getBytesWritten() {
  return getTensorBytes(getTokens().getType());
}

//===----------------------------------------------------------------------===//
// LMHeadOp, MTPOp
//===----------------------------------------------------------------------===//

LogicalResult LMHeadOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  if (FloatAttr cap = getSoftcapAttr(); cap && !(cap.getValueAsDouble() > 0))
    return emitOpError() << "softcap must be > 0, got "
                         << cap.getValueAsDouble();
  RankedTensorType in = tensorOf(getInput()), w = tensorOf(getWeight());
  if (in.getRank() != 3)
    return emitOpError() << "input must be tensor<B x T x H>, got " << in;
  if (w.getRank() != 2 || w.getDimSize(1) != in.getDimSize(2))
    return emitOpError() << "weight must be tensor<V x " << in.getDimSize(2)
                         << ">, got " << w;
  int64_t t = getLastTokenOnly() ? 1 : in.getDimSize(1);
  return expectBTW(*this, "result", getResult(), in.getDimSize(0), t,
                   w.getDimSize(0));
}
CheckedInt LMHeadOp::getFlops() {
  // The GEMM, and a soft-cap's 3 FLOPs a logit (Gemma 2).
  return rows(getResult()) * lastDim(getResult()) *
         (2 * lastDim(getInput()) + (getSoftcapAttr() ? 3 : 0));
}
int64_t LMHeadOp::getGemmRows() { return gemmRows(getResult()); }
CheckedInt LMHeadOp::getBytesRead() {
  return getTensorBytes(getWeight().getType()) +
         rows(getResult()) * lastDim(getInput()) *
             getElementBytes(tensorOf(getInput()).getElementType());
}
CheckedInt LMHeadOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

LogicalResult MTPOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  if (getDepth() < 1)
    return emitOpError("depth must be >= 1");
  if (getHidden().getType() != getEmbedded().getType() ||
      getResult().getType() != getHidden().getType())
    return emitOpError("hidden, embedded and result must have one type");
  int64_t h = lastDim(getHidden());
  return expectShape(*this, "eh_proj", getEhProj(), {h, 2 * h});
}
CheckedInt MTPOp::getFlops() {
  CheckedInt m = rows(getHidden()), h = lastDim(getHidden());
  return 2 * m * 2 * h * h + 2 * 4 * m * h; // projection + two RMS norms
}
int64_t MTPOp::getGemmRows() { return gemmRows(getHidden()); }
CheckedInt MTPOp::getBytesRead() {
  return getTotalBytes(ValueRange{getHidden(), getEmbedded(), getEhProj()});
}
CheckedInt MTPOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}

//===----------------------------------------------------------------------===//
// RepeatOp
//===----------------------------------------------------------------------===//

LogicalResult RepeatOp::verify() {
  if (getCount() < 1)
    return emitOpError() << "count must be >= 1, got " << getCount();
  if (getFirstLayer() < 0)
    return emitOpError() << "first_layer must be >= 0, got " << getFirstLayer();
  if (getStride() && *getStride() < 1)
    return emitOpError() << "stride must be >= 1, got " << *getStride();
  Block &body = getBody().front();
  TypeRange inits = getInits().getTypes();
  if (body.getArgumentTypes() != inits)
    return emitOpError("body arguments must have the types of the inits");
  if (getResultTypes() != inits)
    return emitOpError("results must have the types of the inits");
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("body must end with llm.yield");
  if (yield.getValues().getTypes() != inits)
    return emitOpError("llm.yield must pass values of the inits' types");
  return success();
}

//===----------------------------------------------------------------------===//
// ShardSliceOp
//===----------------------------------------------------------------------===//

LogicalResult ShardSliceOp::verify() {
  if (failed(verifyStatic(*this)))
    return failure();
  RankedTensorType in = tensorOf(getInput()), out = tensorOf(getResult());
  int64_t dim = getDim(), shards = getShards();
  if (dim < 0 || dim >= in.getRank())
    return emitOpError() << "dim " << dim << " is out of range for " << in;
  if (shards < 1)
    return emitOpError() << "shards must be >= 1, got " << shards;
  SmallVector<int64_t> expected(in.getShape());
  expected[dim] = (expected[dim] + shards - 1) / shards;
  if (out.getShape() != ArrayRef<int64_t>(expected) ||
      out.getElementType() != in.getElementType())
    return emitOpError() << "result must be the input with dim " << dim
                         << " split into " << shards << " shards of "
                         << expected[dim] << ", got " << out;
  return success();
}
CheckedInt ShardSliceOp::getFlops() { return 0; }
CheckedInt ShardSliceOp::getBytesRead() { return 0; }
CheckedInt ShardSliceOp::getBytesWritten() { return 0; }

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

static LogicalResult verifyGroup(Operation *op, int64_t group) {
  if (group < 2)
    return op->emitOpError() << "group_size must be >= 2, got " << group;
  return success();
}

/// The share of a tensor each socket must send in a bandwidth-optimal
/// collective over `group` sockets: (group - 1) / group of it.
static CheckedInt sentShare(CheckedInt bytes, int64_t group) {
  return bytes * (group - 1) / group;
}

LogicalResult AllReduceOp::verify() {
  return failed(verifyStatic(*this)) ? failure()
                                     : verifyGroup(*this, getGroupSize());
}
CheckedInt AllReduceOp::getFlops() {
  return numElements(getInput()) * (getGroupSize() - 1) / getGroupSize();
}
CheckedInt AllReduceOp::getBytesRead() {
  return getTensorBytes(getInput().getType());
}
CheckedInt AllReduceOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}
CheckedInt AllReduceOp::getLinkBytes() {
  // Reduce-scatter then all-gather.
  return 2 * sentShare(getTensorBytes(getInput().getType()), getGroupSize());
}

LogicalResult AllGatherOp::verify() {
  if (failed(verifyStatic(*this)) || failed(verifyGroup(*this, getGroupSize())))
    return failure();
  RankedTensorType in = tensorOf(getInput()), out = tensorOf(getResult());
  int64_t dim = getDim();
  if (dim < 0 || dim >= in.getRank())
    return emitOpError() << "dim " << dim << " is out of range for " << in;
  SmallVector<int64_t> expected(in.getShape());
  expected[dim] *= getGroupSize();
  if (out.getShape() != ArrayRef<int64_t>(expected) ||
      out.getElementType() != in.getElementType())
    return emitOpError() << "result must be the input with dim " << dim
                         << " multiplied by group_size " << getGroupSize()
                         << ", got " << out;
  return success();
}
CheckedInt AllGatherOp::getFlops() { return 0; }
CheckedInt AllGatherOp::getBytesRead() {
  return getTensorBytes(getInput().getType());
}
CheckedInt AllGatherOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}
CheckedInt AllGatherOp::getLinkBytes() {
  return sentShare(getTensorBytes(getResult().getType()), getGroupSize());
}

LogicalResult AllToAllOp::verify() {
  if (failed(verifyStatic(*this)) || failed(verifyGroup(*this, getGroupSize())))
    return failure();
  RankedTensorType in = tensorOf(getInput()), out = tensorOf(getResult());
  int64_t g = getGroupSize();
  std::optional<int64_t> split = getSplitDim(), concat = getConcatDim();
  if (split.has_value() != concat.has_value())
    return emitOpError("takes split_dim and concat_dim together");
  if (!split || *split == *concat) {
    if (in != out)
      return emitOpError() << "result must be the input's type " << in
                           << " when no layout changes, got " << out;
    if (in.getRank() < 1 || in.getDimSize(0) % g != 0)
      return emitOpError() << "leading dimension of " << in
                           << " must split into group_size " << g
                           << " equal parts";
    return success();
  }
  int64_t rank = in.getRank();
  if (*split < 0 || *split >= rank || *concat < 0 || *concat >= rank)
    return emitOpError() << "split_dim " << *split << " and concat_dim "
                         << *concat << " must be dimensions of " << in;
  if (out.getRank() != rank || out.getElementType() != in.getElementType())
    return emitOpError() << "result must be a tensor of rank " << rank
                         << " and element type " << in.getElementType()
                         << ", got " << out;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t want = in.getDimSize(d), got = out.getDimSize(d);
    bool ok = d == *split    ? got == (want + g - 1) / g
              : d == *concat ? got <= want * g && got > (want - 1) * g
                             : got == want;
    if (!ok)
      return emitOpError() << "result " << out << " is not " << in
                           << " split along dim " << *split
                           << " and stacked along dim " << *concat << " over "
                           << g << " sockets";
  }
  return success();
}
CheckedInt AllToAllOp::getFlops() { return 0; }
CheckedInt AllToAllOp::getBytesRead() {
  return getTensorBytes(getInput().getType());
}
CheckedInt AllToAllOp::getBytesWritten() {
  return getTensorBytes(getResult().getType());
}
CheckedInt AllToAllOp::getLinkBytes() {
  return sentShare(getTensorBytes(getInput().getType()), getGroupSize());
}
