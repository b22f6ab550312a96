//===- OpKinds.cpp - Which model operator each op works for ---------------===//

#include "snapflow/Analysis/OpKinds.h"

#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Dialect/LLM/IR/LLMOps.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace snapflow;
using arch::OpKind;

namespace {

/// What an op is by itself, before its place in the graph is known.
OpKind ownKind(Operation *op, bool prefill) {
  return llvm::TypeSwitch<Operation *, OpKind>(op)
      .Case<llm::EmbedOp>([](auto) { return OpKind::Embedding; })
      .Case<llm::RMSNormOp, llm::LayerNormOp>([](auto) { return OpKind::Norm; })
      .Case<llm::AttentionOp, llm::MLAAttentionOp, llm::LocalAttentionOp>(
          [](auto) { return OpKind::Attention; })
      .Case<llm::AddOp>([](auto) { return OpKind::Residual; })
      .Case<llm::MLPOp, llm::GeluMLPOp>([](auto) { return OpKind::MLP; })
      .Case<llm::RouteOp>([](auto) { return OpKind::Router; })
      .Case<llm::MoEOp>([](auto) { return OpKind::RoutedExperts; })
      .Case<llm::MTPOp>([](auto) { return OpKind::MTPProjection; })
      .Case<llm::LMHeadOp>([](auto) { return OpKind::LMHead; })
      .Case<llm::SampleOp>([](auto) { return OpKind::Sampling; })
      .Case<llm::AllReduceOp>([](auto) { return OpKind::AllReduce; })
      .Case<llm::AllGatherOp>([](auto) { return OpKind::AllGather; })
      .Case<llm::AllToAllOp>([](auto) { return OpKind::AllToAll; })
      // The end-of-prefill selection; the same ops at decode (a paged
      // policy's page scores) are the policy's upkeep.
      .Case<kv::ScoreOp, kv::PageScoreOp, kv::PoolOp, kv::TopKOp,
            kv::GatherStoreOp>([&](auto) {
        return prefill ? OpKind::KVSelection : OpKind::KVUpkeep;
      })
      .Case<kv::AppendOp, kv::ReadOp, kv::EvictOp, kv::RecallOp, kv::BackupOp,
            kv::QuantizeOp, kv::RequantizeOp>(
          [](auto) { return OpKind::KVUpkeep; })
      .Default([](auto) { return OpKind::Other; });
}

/// Views and collectives a projection's value passes through unchanged in
/// meaning on its way to or from an attention.
bool isPassThrough(Operation *op) {
  return isa<llm::ShardSliceOp, llm::ReshapeOp, llm::AllReduceOp,
             llm::AllGatherOp, llm::AllToAllOp>(op);
}

} // namespace

OpKindAnalysis::OpKindAnalysis(func::FuncOp fn) {
  bool prefill = false;
  if (llm::WorkloadAttr w = llm::getWorkload(fn))
    prefill = w.getPhase() == arch::Phase::Prefill;
  SmallVector<Operation *> attentions;
  fn.walk([&](Operation *op) {
    kinds[op] = ownKind(op, prefill);
    if (isa<llm::AttentionOp, llm::MLAAttentionOp, llm::LocalAttentionOp>(op))
      attentions.push_back(op);
  });

  for (Operation *attn : attentions) {
    // Backwards from the attention's activations: the linears, ropes and
    // the norms between two linears (MLA's q_a/kv_a norms) that make them
    // are its QKV projection. The layer's input norm (fed by the residual
    // stream, not a linear) stays a norm and ends the walk.
    SmallVector<Value> work;
    for (Value v : attn->getOperands())
      if (isa<RankedTensorType>(v.getType()) &&
          !v.getDefiningOp<llm::ParamOp>())
        work.push_back(v);
    while (!work.empty()) {
      Operation *def = work.pop_back_val().getDefiningOp();
      if (!def)
        continue;
      Value next;
      if (auto linear = dyn_cast<llm::LinearOp>(def)) {
        kinds[def] = OpKind::QKVProjection;
        next = linear.getInput();
      } else if (auto rope = dyn_cast<llm::RopeOp>(def)) {
        kinds[def] = OpKind::QKVProjection;
        next = rope.getInput();
      } else if (auto norm = dyn_cast<llm::RMSNormOp>(def)) {
        // A norm of each head of q or k (Qwen3, Gemma 3, Llama 4).
        if (norm.getGroup() > 0 ||
            norm.getInput().getDefiningOp<llm::LinearOp>())
          next = norm.getInput();
      } else if (isPassThrough(def)) {
        next = def->getOperand(0);
      }
      if (next)
        work.push_back(next);
    }
    // Forwards from its result, through views and collectives, to the
    // output projection.
    SmallVector<Value> out{attn->getResult(0)};
    while (!out.empty()) {
      Value v = out.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (isa<llm::LinearOp>(user))
          kinds[user] = OpKind::OutputProjection;
        else if (isPassThrough(user))
          out.push_back(user->getResult(0));
      }
    }
  }

  // An MLP whose result meets an MoE's in an add is that MoE's shared
  // experts (DeepSeek's shared_experts beside the routed ones).
  fn.walk([&](llm::AddOp add) {
    auto from = [](Value v) {
      Operation *def = v.getDefiningOp();
      while (def && isPassThrough(def))
        def = def->getOperand(0).getDefiningOp();
      return def;
    };
    Operation *a = from(add.getLhs()), *b = from(add.getRhs());
    for (auto [mine, other] : {std::pair{a, b}, std::pair{b, a}})
      if (mine && other && isa<llm::MLPOp>(mine) && isa<llm::MoEOp>(other))
        kinds[mine] = OpKind::SharedExperts;
  });
}

arch::OpKind OpKindAnalysis::lookup(Operation *op) const {
  auto it = kinds.find(op);
  return it == kinds.end() ? OpKind::Other : it->second;
}
