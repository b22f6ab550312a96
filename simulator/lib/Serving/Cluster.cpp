//===- Cluster.cpp - Serving on several nodes behind a router -------------===//
//
// Nodes are loops of Loop.h advanced together (Cluster.h): requests routed
// as they arrive, KV hand-overs of disaggregated serving routed in the
// order of their prefills' ends and timed on the nodes' link ports, then
// every node's result merged into the cluster's (ClusterMerge.cpp).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Serving/Cluster.h"

#include "ClusterMerge.h"
#include "Loop.h"

#include "snapflow/Support/Error.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <queue>

using namespace snapflow;
using namespace snapflow::sim::serving;
using llvm::Error;
using llvm::StringRef;

StringRef snapflow::sim::serving::routerName(Router router) {
  switch (router) {
  case Router::RoundRobin:
    return "round-robin";
  case Router::LeastLoaded:
    return "least-loaded";
  case Router::PrefixAware:
    return "prefix-aware";
  }
  return "round-robin";
}

std::optional<Router> snapflow::sim::serving::parseRouter(StringRef name) {
  for (Router r :
       {Router::RoundRobin, Router::LeastLoaded, Router::PrefixAware})
    if (name == routerName(r))
      return r;
  return std::nullopt;
}

double snapflow::sim::serving::kvTransferBytes(const ServeConfig &config,
                                               int64_t promptTokens) {
  int64_t kept = std::min(promptTokens, config.kvTokensPerSlot);
  return double(kept) * config.kvSendBytesPerToken + config.kvSendFixedBytes;
}

namespace {

/// One node: its loop, and its link ports.
struct Node {
  std::unique_ptr<loop::Loop> loop;
  NodeRole role = NodeRole::Both;
  int64_t routed = 0;
  /// When its ports are free (outgoing on a prefill node, incoming on a
  /// decode node), what they carried and for how long.
  double portFreeS = 0, linkBytes = 0, linkBusyS = 0;
  /// A decode node: KV on its way, in order of arrival.
  struct Delivery {
    double atS;
    Request r;
    RequestResult rr;
  };
  std::deque<Delivery> deliveries;
  int64_t load() const {
    return loop->inFlight() + static_cast<int64_t>(deliveries.size());
  }
};

/// A prefill's end, its KV to be sent.
struct Handoff {
  double atS = 0;
  int64_t seq = 0;
  int node = 0;
  Request r;
  RequestResult rr;
  bool operator>(const Handoff &o) const {
    return atS != o.atS ? atS > o.atS : seq > o.seq;
  }
};

class Cluster {
public:
  Cluster(llvm::ArrayRef<DeployedModel> models, const CacheOptions &cache,
          const ClusterOptions &o,
          llvm::function_ref<void(const RequestResult &)> onFinish)
      : o(o), onFinish(onFinish) {
    const bool dcb = o.disaggregated();
    // Prefill nodes run each model at batch 1, prompt after prompt; decode
    // nodes keep no prompt blocks (their KV arrives whole).
    for (const DeployedModel &d : models) {
      DeployedModel p = d;
      p.config.slots = 1;
      p.config.schedule = Schedule::PrefillFirst;
      prefillSide.push_back(std::move(p));
      DeployedModel q = d;
      q.prefix = PrefixOptions();
      decodeSide.push_back(std::move(q));
    }
    for (int64_t k = 0; k < o.count(); ++k) {
      Node n;
      n.role = !dcb                 ? NodeRole::Both
               : k < o.prefillNodes ? NodeRole::Prefill
                                    : NodeRole::Decode;
      llvm::ArrayRef<DeployedModel> deployed =
          n.role == NodeRole::Prefill  ? llvm::ArrayRef(prefillSide)
          : n.role == NodeRole::Decode ? llvm::ArrayRef(decodeSide)
                                       : models;
      n.loop = std::make_unique<loop::Loop>(deployed, cache, onFinish, n.role,
                                            static_cast<int>(k));
      if (n.role == NodeRole::Prefill)
        n.loop->onHandoff([this, k](Request r, const RequestResult &rr) {
          pending.push({rr.firstTokenS, handoffs++, static_cast<int>(k),
                        std::move(r), rr});
        });
      nodes.push_back(std::move(n));
    }
    front = dcb ? o.prefillNodes : o.nodes;
  }

  llvm::Expected<ServeResult> run(RequestSource &source, int64_t total);

private:
  /// The node among [first, first + count) the router picks for `r`.
  size_t pick(const Request &r, size_t first, size_t count, int64_t &turn);
  size_t leastLoaded(size_t first, size_t count) const;
  /// Hand-overs whose prefill ended by `safeS`, in that order.
  Error commit(double safeS);
  /// Decode node `d` run to `untilS`, the KV that arrived by then boarded.
  Error advanceDecode(size_t d, double untilS);

  const ClusterOptions &o;
  llvm::function_ref<void(const RequestResult &)> onFinish;
  std::vector<DeployedModel> prefillSide, decodeSide;
  std::vector<Node> nodes;
  size_t front = 0; ///< nodes that take arrivals: [0, front)
  int64_t frontTurn = 0, decodeTurn = 0;
  std::priority_queue<Handoff, std::vector<Handoff>, std::greater<Handoff>>
      pending;
  int64_t handoffs = 0;
  TransferResult transfers;
  double kvTransferJ = 0;
};

size_t Cluster::leastLoaded(size_t first, size_t count) const {
  size_t best = first;
  for (size_t k = first + 1; k < first + count; ++k)
    if (nodes[k].load() < nodes[best].load())
      best = k;
  return best;
}

size_t Cluster::pick(const Request &r, size_t first, size_t count,
                     int64_t &turn) {
  switch (o.router) {
  case Router::RoundRobin:
    return first + size_t(turn++ % int64_t(count));
  case Router::LeastLoaded:
    return leastLoaded(first, count);
  case Router::PrefixAware:
    break;
  }
  size_t least = leastLoaded(first, count);
  if (r.blocks.empty())
    return least;
  size_t best = first;
  int64_t bestHeld = -1;
  for (size_t k = first; k < first + count; ++k) {
    int64_t held = nodes[k].loop->cachedBlocks(r.model, r.blocks);
    if (held > bestHeld ||
        (held == bestHeld && nodes[k].load() < nodes[best].load())) {
      best = k;
      bestHeld = held;
    }
  }
  int64_t hi = nodes[best].load(), lo = nodes[least].load();
  bool imbalanced = hi - lo > kImbalanceAbs && double(hi) > kImbalanceRel * lo;
  return bestHeld > 0 && !imbalanced ? best : least;
}

Error Cluster::advanceDecode(size_t d, double untilS) {
  Node &n = nodes[d];
  while (!n.deliveries.empty() && n.deliveries.front().atS <= untilS) {
    Node::Delivery &v = n.deliveries.front();
    if (Error e = n.loop->advanceTo(v.atS))
      return e;
    n.loop->arrivePrefilled(std::move(v.r), v.rr);
    n.deliveries.pop_front();
  }
  return n.loop->advanceTo(untilS);
}

Error Cluster::commit(double safeS) {
  const size_t decodeFirst = front, decodeCount = nodes.size() - front;
  while (!pending.empty() && pending.top().atS <= safeS) {
    Handoff h = pending.top();
    pending.pop();
    for (size_t d = decodeFirst; d < nodes.size(); ++d)
      if (Error e = advanceDecode(d, h.atS))
        return e;
    size_t d = o.router == Router::RoundRobin
                   ? decodeFirst + size_t(decodeTurn++ % int64_t(decodeCount))
                   : leastLoaded(decodeFirst, decodeCount);
    Node &from = nodes[size_t(h.node)], &to = nodes[d];
    double bytes = kvTransferBytes(prefillSide[size_t(h.r.model)].config,
                                   h.r.promptTokens);
    double rate = o.link.nodeBytesPerS();
    double wire = rate > 0 ? bytes / rate : 0;
    double start = std::max({h.atS, from.portFreeS, to.portFreeS});
    from.portFreeS = to.portFreeS = start + wire;
    double landed = start + wire + o.link.latencyS;
    for (Node *n : {&from, &to}) {
      n->linkBytes += bytes;
      n->linkBusyS += wire;
    }
    h.rr.kvSentBytes = bytes;
    h.rr.energyJ += bytes * o.link.joulesPerByte;
    kvTransferJ += bytes * o.link.joulesPerByte;
    h.rr.transferS = landed - h.atS;
    h.rr.firstTokenS = landed;
    h.rr.decodeNode = static_cast<int>(d);
    ++transfers.count;
    transfers.bytes += bytes;
    transfers.seconds.add(h.rr.transferS);
    transfers.waitS.add(start - h.atS);
    ++to.routed;
    to.deliveries.push_back({landed, std::move(h.r), h.rr});
  }
  return Error::success();
}

llvm::Expected<ServeResult> Cluster::run(RequestSource &source, int64_t total) {
  const bool dcb = o.disaggregated();
  auto first = source.next();
  if (!first)
    return first.takeError();
  std::optional<Request> ahead = std::move(*first);
  double start = ahead ? ahead->arrivalS : 0, lastArrivalS = start;
  for (Node &n : nodes)
    if (Error e = n.loop->begin(start))
      return std::move(e);
  auto waitingNow = [&] {
    int64_t w = 0;
    for (const Node &n : nodes)
      w += n.loop->waitingNow();
    return w;
  };
  int64_t arrived = 0;
  double firstArrival = start, lastArrival = start;
  int64_t waitingEarly = 0, waitingAtLast = 0;
  while (ahead) {
    Request &r = *ahead;
    if (r.model < 0 || size_t(r.model) >= prefillSide.size())
      return makeError(llvm::formatv("request {0} asks for model {1}; the "
                                     "deployment has {2}",
                                     r.id, r.model, prefillSide.size()));
    if (r.arrivalS < lastArrivalS)
      return makeError(llvm::formatv("request {0} arrives at {1} s, before "
                                     "the one before it at {2} s; requests "
                                     "are served in arrival order",
                                     r.id, r.arrivalS, lastArrivalS));
    lastArrivalS = r.arrivalS;
    double safe = 1e300;
    for (size_t k = 0; k < front; ++k) {
      if (Error e = nodes[k].loop->advanceTo(r.arrivalS))
        return std::move(e);
      safe = std::min(safe, nodes[k].loop->now());
    }
    if (dcb)
      if (Error e = commit(safe))
        return std::move(e);
    size_t k = pick(r, 0, front, frontTurn);
    ++nodes[k].routed;
    lastArrival = r.arrivalS;
    nodes[k].loop->arrive(std::move(r));
    ++arrived;
    auto next = source.next();
    if (!next)
      return next.takeError();
    ahead = std::move(*next);
    if (total > 0 && arrived == (total + 9) / 10)
      waitingEarly = waitingNow();
    if (!ahead)
      waitingAtLast = waitingNow();
  }
  for (size_t k = 0; k < front; ++k)
    if (Error e = nodes[k].loop->drain())
      return std::move(e);
  if (dcb) {
    if (Error e = commit(1e300))
      return std::move(e);
    for (size_t d = front; d < nodes.size(); ++d) {
      Node &n = nodes[d];
      double last = n.deliveries.empty() ? 0 : n.deliveries.back().atS;
      if (Error e = advanceDecode(d, last))
        return std::move(e);
      if (Error e = n.loop->drain())
        return std::move(e);
    }
  }
  double endS = start;
  for (const Node &n : nodes)
    endS = std::max(endS, n.loop->now());
  std::vector<ServeResult> parts;
  std::vector<NodeResult> each;
  for (Node &n : nodes) {
    parts.push_back(n.loop->end(endS));
    NodeResult nr = cluster::nodeResult(parts.back(), n.role);
    nr.requests = n.routed;
    nr.linkBytes = n.linkBytes;
    nr.linkBusyS = n.linkBusyS;
    each.push_back(nr);
  }
  ServeResult res = cluster::merge(parts);
  res.nodes = std::move(each);
  res.transfers = std::move(transfers);
  res.energy.kvTransferJ = kvTransferJ;
  res.firstArrivalS = firstArrival;
  res.lastArrivalS = lastArrival;
  res.waitingEarly = waitingEarly;
  res.waitingAtLastArrival = waitingAtLast;
  return std::move(res);
}

} // namespace

llvm::Expected<ServeResult> snapflow::sim::serving::serveCluster(
    RequestSource &source, int64_t total, llvm::ArrayRef<DeployedModel> models,
    const CacheOptions &cache, const ClusterOptions &cluster,
    llvm::function_ref<void(const RequestResult &)> onFinish) {
  if (models.empty())
    return makeError("a deployment needs at least one model");
  if (cluster.count() < 1)
    return makeError("a cluster needs at least one node");
  if (cluster.disaggregated() && !(cluster.link.nodeBytesPerS() > 0))
    return makeError("disaggregated serving needs an inter-node link of "
                     "positive bandwidth");
  Cluster c(models, cache, cluster, onFinish);
  return c.run(source, total);
}
