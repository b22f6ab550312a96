//===- Cluster.h - Serving on several nodes behind a router -----*- C++ -*-===//
//
// A cluster of identical nodes, each the serving loop of Serving.h on its
// own chip with the step costs the SystemC model measured once:
//
// - replicas (SambaStack's ACB, co-located): every node serves both
//   phases of every request routed to it; a router picks the node as the
//   request arrives (round robin, the fewest requests in flight, or the
//   longest prefix held in a node's prefix cache);
// - disaggregated (DCB, DistServe, Splitwise): P prefill nodes run prompts
//   at batch 1 (SnapStream's prefill deployment), each request's KV then
//   crosses the inter-node link to the decode node with the fewest
//   requests in flight, where it waits for a slot of the decode graph. Its
//   first token counts when the KV arrives (its TTFT holds the transfer).
//
// The link: each node has `links` ports of `bytesPerS` one way and
// `latencyS`; a transfer takes the sender's outgoing ports and the
// receiver's incoming ports together, first come first served, for
// bytes / (links x bytesPerS), and lands `latencyS` after. Transfers from
// several prefill nodes to one decode node queue at its ports, and the
// reverse (docs/Serving.md, "Several nodes").
//
// Nodes advance together: before a request is routed every node has run
// to its arrival, and a KV hand-over is routed only once every prefill
// node has passed its time, so every choice sees the cluster as it was.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_SERVING_CLUSTER_H
#define SNAPFLOW_SIM_SERVING_CLUSTER_H

#include "snapflow/Sim/Serving/Serving.h"

namespace snapflow {
namespace sim {
namespace serving {

/// How requests are spread over a cluster's nodes (docs/Serving.md).
enum class Router {
  RoundRobin,  ///< node k mod N for the k-th request
  LeastLoaded, ///< the fewest requests in flight (ties: the lowest index)
  /// The node whose prefix cache holds the most of the prompt's leading
  /// blocks, unless that node is imbalanced against the least loaded (more
  /// than kImbalanceAbs requests and kImbalanceRel times as many in
  /// flight, SGLang's cache_aware thresholds); then, and with no block
  /// held anywhere, the least loaded.
  PrefixAware,
};
/// "round-robin", "least-loaded", "prefix-aware".
llvm::StringRef routerName(Router router);
std::optional<Router> parseRouter(llvm::StringRef name);
constexpr int64_t kImbalanceAbs = 64;
constexpr double kImbalanceRel = 1.5;

/// A node's ports to the other nodes (the chip file's system.node_* keys).
struct NodeLink {
  int64_t links = 1;
  double bytesPerS = 0; ///< one link, one direction
  double latencyS = 0;
  /// Energy of a byte sent at the wall (system.node_link_pj_per_bit, the
  /// wall's losses on it).
  double joulesPerByte = 0;
  double nodeBytesPerS() const { return double(links) * bytesPerS; }
};

struct ClusterOptions {
  /// Replicas of the deployment, each serving both phases.
  int64_t nodes = 1;
  /// Disaggregated serving when both are positive (`nodes` then unused).
  int64_t prefillNodes = 0, decodeNodes = 0;
  Router router = Router::LeastLoaded;
  NodeLink link;
  bool disaggregated() const { return prefillNodes > 0 && decodeNodes > 0; }
  int64_t count() const {
    return disaggregated() ? prefillNodes + decodeNodes : nodes;
  }
};

/// KV bytes a request prefilled on one node sends to another: its prompt's
/// tokens the policy keeps (at most the slot's budget) at the model's
/// bytes per token (ServeConfig::kvSendBytesPerToken), and its fixed part.
double kvTransferBytes(const ServeConfig &config, int64_t promptTokens);

/// Serves `source`'s requests on the cluster as serveStream does on one
/// node: `total` as there; results to `onFinish` as requests finish
/// (RequestResult::node, decodeNode, kvSentBytes, transferS filled); the
/// result merges the nodes' and lists each (ServeResult::nodes) with the
/// transfers.
llvm::Expected<ServeResult> serveCluster(
    RequestSource &source, int64_t total, llvm::ArrayRef<DeployedModel> models,
    const CacheOptions &cache, const ClusterOptions &cluster,
    llvm::function_ref<void(const RequestResult &)> onFinish = nullptr);

} // namespace serving
} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_SERVING_CLUSTER_H
