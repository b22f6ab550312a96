//===- Cluster.cpp - Serving on several nodes: options and results --------===//
//
// The cluster of a serving run (Sim/Serving/Cluster.h) as the driver sets
// it up, from --nodes, --router, --disaggregate and the chip's node link,
// and as its summary and report show it.
//
//===----------------------------------------------------------------------===//

#include "Phases.h"

#include "snapflow/Driver/Info.h"

#include <algorithm>

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::driver::phases;
using namespace snapflow::sim::serving;

namespace {
/// The cluster the flags name, on the chip's node link.
ClusterOptions clusterOf(const ServeOptions &so, const arch::ArchModel &chip) {
  ClusterOptions c;
  c.nodes = so.nodes;
  c.prefillNodes = so.disaggregate.prefill;
  c.decodeNodes = so.disaggregate.decode;
  c.router = so.router;
  const arch::SystemParams &sys = chip.system();
  c.link = {sys.nodeLinks, sys.nodeLinkBytesPerS, sys.nodeLinkLatencyNs * 1e-9,
            sys.nodeLinkPjPerBit * 8e-12 * sys.wallPowerFactor};
  return c;
}
} // namespace

llvm::Expected<ClusterOptions>
phases::clusterOptions(const ServeOptions &so, const arch::ArchModel &chip,
                       const Models &models,
                       std::vector<DeployedModel> &deployed) {
  ClusterOptions c = clusterOf(so, chip);
  if (!c.disaggregated())
    return c;
  // The KV one sequence keeps in its policy's and format's layout, counted
  // once however the sockets hold it (an MLA latent replicated on every
  // socket crosses once), and its windowed layers' rings whole.
  for (size_t k = 0; k < models.size(); ++k) {
    auto info = describeWorkload(models[k]->o);
    if (!info)
      return info.takeError();
    ServeConfig &cfg = deployed[k].config;
    cfg.kvSendBytesPerToken = double(info->stats.kvBytesPerToken);
    cfg.kvSendFixedBytes = double(info->stats.kvWindowBytes) /
                           double(std::max<int64_t>(1, info->batch));
  }
  return c;
}

void phases::summarizeCluster(ServeOutcome &out, const ServeResult &r,
                              const ServeOptions &so,
                              const arch::ArchModel &chip) {
  out.cluster = clusterOf(so, chip);
  const TransferResult &t = r.transfers;
  out.kvSentBytesPerRequest = t.count > 0 ? t.bytes / double(t.count) : 0;
  out.transfer = summarize(t.seconds);
  out.transferWait = summarize(t.waitS);
}

llvm::json::Value phases::clusterJson(const ServeOutcome &out,
                                      const ServeResult &r) {
  if (r.nodes.empty())
    return nullptr;
  const ClusterOptions &c = out.cluster;
  const double span = r.makespanS;
  llvm::json::Array nodes;
  for (size_t k = 0; k < r.nodes.size(); ++k) {
    const NodeResult &n = r.nodes[k];
    nodes.push_back(llvm::json::Object{
        {"node", int64_t(k)},
        {"role", nodeRoleName(n.role)},
        {"requests_count", n.requests},
        {"busy_share", n.busyShare(span)},
        {"prefill_s", n.prefillS},
        {"decode_s", n.decodeS},
        {"prefix_move_s", n.moveS},
        {"idle_s", n.idleS},
        {"prefills", n.prefills},
        {"decode_steps", n.decodeSteps},
        {"output_tokens", n.outputTokens},
        {"decode_slot_utilization", n.decodeSlotUtilization},
        {"queue",
         llvm::json::Object{{"peak", n.waitingPeak}, {"mean", n.waitingMean}}},
        {"kv_live_bytes_per_socket",
         llvm::json::Object{{"peak", n.kvPeakBytes}, {"mean", n.kvMeanBytes}}},
        {"link_bytes", n.linkBytes},
        {"link_utilization", span > 0 ? n.linkBusyS / span : 0},
    });
  }
  llvm::json::Value transfer = nullptr;
  if (c.disaggregated())
    transfer = llvm::json::Object{
        {"requests_count", r.transfers.count},
        {"bytes", r.transfers.bytes},
        {"bytes_per_request", out.kvSentBytesPerRequest},
        {"seconds", toJson(out.transfer)},
        {"link_wait_s", toJson(out.transferWait)},
    };
  return llvm::json::Object{
      {"mode", c.disaggregated() ? "disaggregated" : "replicas"},
      {"nodes_count", c.count()},
      {"prefill_nodes", c.prefillNodes},
      {"decode_nodes", c.decodeNodes},
      {"router", routerName(c.router)},
      {"link", llvm::json::Object{{"links", c.link.links},
                                  {"bytes_per_s", c.link.bytesPerS},
                                  {"latency_s", c.link.latencyS}}},
      {"nodes", std::move(nodes)},
      {"kv_transfer", std::move(transfer)},
  };
}
