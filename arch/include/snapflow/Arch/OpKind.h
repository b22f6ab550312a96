//===- OpKind.h - What model operator a piece of a program is ---*- C++ -*-===//
//
// The operator a node of a df program works for: the QKV projection, the
// attention, the routed experts, a collective, ... The compiler tags every
// node it emits with one (lower-to-df, `for qkv_projection` in the df IR),
// the simulator charges each node's time, bytes and FLOPs to it, and the
// per-operator profile of a run (docs/Simulator.md, "Profile") has a row
// per kind. One enum for compiler, simulator and reports, as MemoryTier is
// for tiers.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_ARCH_OPKIND_H
#define SNAPFLOW_ARCH_OPKIND_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace snapflow {
namespace arch {

/// Model operators, in the order a decoder layer runs them; then the
/// collectives (a df.collective is named by its kind; the compiler tags the
/// loads and stores beside one with it), the kernel launches (charged by
/// the simulator's section controller) and what nothing names.
enum class OpKind {
  Embedding,        ///< the token embedding lookup
  Norm,             ///< RMSNorm / LayerNorm
  QKVProjection,    ///< projections (and rotary embedding) into attention
  Attention,        ///< the attention over the KV cache (and its KV writes)
  OutputProjection, ///< the projection after the attention
  Residual,         ///< residual and combining adds
  MLP,              ///< a dense feed-forward block
  Router,           ///< an MoE router: its GEMM and top-k
  RoutedExperts,    ///< an MoE layer's routed experts
  SharedExperts,    ///< an MoE layer's shared experts
  MTPProjection,    ///< an MTP depth's combining projection (eh_proj)
  LMHead,           ///< the output head
  Sampling,         ///< picking the next token from the logits
  KVUpkeep,         ///< a KV policy's or format's own ops during decode
  KVSelection,      ///< the end-of-prefill selection (SnapKV and kin)
  AllReduce,        ///< collectives, by kind
  AllGather,
  AllToAll,
  KernelLaunch, ///< program load, argument load and execute of a call
  Other,        ///< anything untagged (a hand-written program)
};
constexpr int kNumOpKinds = static_cast<int>(OpKind::Other) + 1;

/// The snake_case name ("qkv_projection"), as the df IR and reports write it.
llvm::StringRef opKindName(OpKind kind);
/// The kind named `name`, if any.
std::optional<OpKind> parseOpKind(llvm::StringRef name);
/// Every name, in enum order, joined by `separator`.
std::string opKindNames(llvm::StringRef separator);
/// Whether a df node may be tagged with this kind (kernel launches are the
/// simulator's, and `other` is what an untagged node counts as).
bool isTaggedOpKind(OpKind kind);

} // namespace arch
} // namespace snapflow

#endif // SNAPFLOW_ARCH_OPKIND_H
