//===- ClusterTest.cpp - Nodes behind a router, by hand -------------------===//
//
// The costs of ServingTest: a prefill of up to 128 tokens takes 2 s, a
// decode step 1 s; every node has one slot unless said. Each golden is
// worked out in the comment above it.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Serving/Cluster.h"

#include <gtest/gtest.h>

#include <map>

using namespace snapflow::sim::serving;

namespace {

DeployedModel model(int64_t slots, int64_t kvTokens = 1024) {
  DeployedModel d;
  d.name = "m";
  d.costs.prefillBuckets = {128};
  d.costs.prefillS = {2.0};
  d.costs.decodeBuckets = {128, 1024};
  d.costs.decodeStepS = {1.0, 3.0};
  d.config.slots = slots;
  d.config.maxContext = 1024;
  d.config.kvTokensPerSlot = kvTokens;
  d.config.kvBytesPerToken = 1.0;
  d.config.kvSendBytesPerToken = 2.0; // 1 B on each of 2 sockets
  return d;
}

Request req(int64_t id, double arrival, int64_t prompt, int64_t output,
            std::vector<int64_t> blocks = {}) {
  Request r;
  r.id = id;
  r.arrivalS = arrival;
  r.promptTokens = prompt;
  r.outputTokens = output;
  r.blocks = std::move(blocks);
  return r;
}

struct Served {
  ServeResult result;
  std::map<int64_t, RequestResult> byId;
};

Served serveOn(std::vector<Request> rs, std::vector<DeployedModel> models,
               const ClusterOptions &o) {
  ListSource source(rs);
  Served run;
  CacheOptions cache;
  auto r = serveCluster(source, int64_t(rs.size()), models, cache, o,
                        [&](const RequestResult &q) { run.byId[q.id] = q; });
  EXPECT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  if (r)
    run.result = std::move(*r);
  return run;
}

ClusterOptions replicas(int64_t n, Router router) {
  ClusterOptions o;
  o.nodes = n;
  o.router = router;
  return o;
}

// Two nodes, four requests at 0 of 3 tokens, round robin: 0 and 2 on node
// 0, 1 and 3 on node 1. Each node: prefill 0-2, steps 2-3 and 3-4 (done
// at 4), the next prefill 4-6, steps to 8. Makespan 8 on both nodes.
TEST(Cluster, RoundRobinAlternates) {
  Served run = serveOn({req(0, 0, 100, 3), req(1, 0, 100, 3), req(2, 0, 100, 3),
                        req(3, 0, 100, 3)},
                       {model(1)}, replicas(2, Router::RoundRobin));
  ASSERT_EQ(run.byId.size(), 4u);
  EXPECT_EQ(run.byId[0].node, 0);
  EXPECT_EQ(run.byId[1].node, 1);
  EXPECT_EQ(run.byId[2].node, 0);
  EXPECT_EQ(run.byId[3].node, 1);
  EXPECT_DOUBLE_EQ(run.byId[1].finishS, 4.0);
  EXPECT_DOUBLE_EQ(run.byId[3].finishS, 8.0);
  const ServeResult &r = run.result;
  EXPECT_DOUBLE_EQ(r.makespanS, 8.0);
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_EQ(r.nodes[0].requests, 2);
  // Per node: 4 s of prefill, 4 of decode: busy the whole makespan.
  EXPECT_DOUBLE_EQ(r.nodes[1].prefillS, 4.0);
  EXPECT_DOUBLE_EQ(r.nodes[1].busyShare(r.makespanS), 1.0);
  // Summed over the nodes.
  EXPECT_EQ(r.prefills, 4);
  EXPECT_EQ(r.outputTokens, 12);
  EXPECT_EQ(r.latencies.ttft.count(), 4);
  EXPECT_DOUBLE_EQ(r.latencies.ttft.max(), 6.0);
}

// r0 at 0 (5 tokens): node 0, prefill 0-2, steps 2-6. r1 at 1 (2 tokens):
// node 0 holds one request, node 1 none: node 1, prefill 1-3, step 3-4.
// r2 at 5: node 0 still decodes r0 (to 6), node 1 is empty since 4.
// Least loaded sends r2 to node 1 (prefill 5-7, TTFT 2); round robin to
// node 0, where it waits for r0's slot (prefill 6-8, TTFT 3).
TEST(Cluster, LeastLoadedPicksTheEmptyNode) {
  std::vector<Request> rs = {req(0, 0, 100, 5), req(1, 1, 100, 2),
                             req(2, 5, 100, 2)};
  Served least = serveOn(rs, {model(1)}, replicas(2, Router::LeastLoaded));
  EXPECT_EQ(least.byId[0].node, 0);
  EXPECT_EQ(least.byId[1].node, 1);
  EXPECT_EQ(least.byId[2].node, 1);
  EXPECT_DOUBLE_EQ(least.byId[2].ttftS(), 2.0);
  Served robin = serveOn(rs, {model(1)}, replicas(2, Router::RoundRobin));
  EXPECT_EQ(robin.byId[2].node, 0);
  EXPECT_DOUBLE_EQ(robin.byId[2].ttftS(), 3.0);
  // Node 0 under round robin: r2 waited from 5 to 6.
  EXPECT_EQ(robin.result.nodes[0].waitingPeak, 1);
}

// Blocks of 50 tokens. r0 (blocks 1, 2) at 0: nothing cached, the least
// loaded, node 0 (its prefill 0-2 leaves 1, 2 in node 0's cache; it
// decodes to 6). r1 (block 7) at 1: node 1, the least loaded. r2 (blocks
// 1, 2, 3) at 5: node 1 is empty, but node 0 holds its first two blocks:
// prefix-aware sends it there, least-loaded to node 1.
TEST(Cluster, PrefixAwareFollowsTheCache) {
  DeployedModel m = model(1);
  m.prefix.blockTokens = 50;
  m.prefix.blockBytes = 1;
  m.prefix.hbmBlocks = 100;
  std::vector<Request> rs = {req(0, 0, 100, 5, {1, 2}), req(1, 1, 100, 2, {7}),
                             req(2, 5, 120, 2, {1, 2, 3})};
  Served aware = serveOn(rs, {m}, replicas(2, Router::PrefixAware));
  EXPECT_EQ(aware.byId[0].node, 0);
  EXPECT_EQ(aware.byId[1].node, 1);
  EXPECT_EQ(aware.byId[2].node, 0);
  EXPECT_EQ(aware.byId[2].prefixHitTokens, 100);
  Served least = serveOn(rs, {m}, replicas(2, Router::LeastLoaded));
  EXPECT_EQ(least.byId[2].node, 1);
  EXPECT_EQ(least.byId[2].prefixHitTokens, 0);
}

ClusterOptions disaggregated(int64_t p, int64_t d) {
  ClusterOptions o;
  o.prefillNodes = p;
  o.decodeNodes = d;
  o.router = Router::LeastLoaded;
  o.link = {1, 100.0, 0.5}; // one link of 100 B/s, 0.5 s latency
  return o;
}

// 1 prefill node, 1 decode node. A 100-token prompt's KV: 100 tokens x 1 B
// x 2 sockets = 200 B, 2 s on the wire, landing 0.5 s later.
//   r0: prefill 0-2, sent 2-4, lands 4.5 (TTFT 4.5, transfer 2.5); steps
//       4.5-5.5, 5.5-6.5: done 6.5, TPOT 1.
//   r1: waits for the prefill node, prefill 2-4, sent 4-6 (the ports are
//       free at 4), lands 6.5; the decode slot is free at 6.5: steps to 8.5.
TEST(Cluster, DisaggregatedSendsTheKv) {
  Served run = serveOn({req(0, 0, 100, 3), req(1, 0, 100, 3)}, {model(1)},
                       disaggregated(1, 1));
  RequestResult r0 = run.byId[0], r1 = run.byId[1];
  EXPECT_EQ(r0.node, 0);
  EXPECT_EQ(r0.decodeNode, 1);
  EXPECT_DOUBLE_EQ(r0.kvSentBytes, 200.0);
  EXPECT_DOUBLE_EQ(r0.transferS, 2.5);
  EXPECT_DOUBLE_EQ(r0.ttftS(), 4.5);
  EXPECT_DOUBLE_EQ(r0.finishS, 6.5);
  EXPECT_DOUBLE_EQ(r0.tpotS(), 1.0);
  EXPECT_DOUBLE_EQ(r1.prefillStartS, 2.0);
  EXPECT_DOUBLE_EQ(r1.ttftS(), 6.5);
  EXPECT_DOUBLE_EQ(r1.finishS, 8.5);
  const ServeResult &r = run.result;
  EXPECT_EQ(r.transfers.count, 2);
  EXPECT_DOUBLE_EQ(r.transfers.bytes, 400.0);
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_EQ(r.nodes[0].role, NodeRole::Prefill);
  EXPECT_EQ(r.nodes[1].role, NodeRole::Decode);
  EXPECT_DOUBLE_EQ(r.nodes[0].linkBusyS, 4.0);
  EXPECT_DOUBLE_EQ(r.nodes[1].linkBytes, 400.0);
  EXPECT_EQ(r.nodes[1].requests, 2);
  // Prefill node: 4 s of prefill; decode node: 4 steps.
  EXPECT_DOUBLE_EQ(r.nodes[0].prefillS, 4.0);
  EXPECT_EQ(r.nodes[1].decodeSteps, 4);
  EXPECT_EQ(r.outputTokens, 6);
  EXPECT_DOUBLE_EQ(r.makespanS, 8.5);
}

// 2 prefill nodes to 1 decode node: both prompts prefill 0-2 at once, and
// their KV meets at the decode node's port: r0's 2-4 (lands 4.5), r1's
// after it, 4-6 (lands 6.5, 2 s of it waiting for the port).
TEST(Cluster, TransfersContendForTheDecodePort) {
  Served run = serveOn({req(0, 0, 100, 2), req(1, 0, 100, 2)}, {model(4)},
                       disaggregated(2, 1));
  EXPECT_EQ(run.byId[0].node, 0);
  EXPECT_EQ(run.byId[1].node, 1);
  EXPECT_DOUBLE_EQ(run.byId[0].ttftS(), 4.5);
  EXPECT_DOUBLE_EQ(run.byId[1].ttftS(), 6.5);
  EXPECT_DOUBLE_EQ(run.byId[1].transferS, 4.5);
  EXPECT_DOUBLE_EQ(run.result.transfers.waitS.max(), 2.0);
}

// A compressing policy keeps 25 of the 100 prompt tokens: a quarter of
// the bytes (50), a quarter of the wire time (0.5 s): lands at 3.
TEST(Cluster, CompressedKvSendsItsBudget) {
  Served run =
      serveOn({req(0, 0, 100, 2)}, {model(1, 25)}, disaggregated(1, 1));
  EXPECT_DOUBLE_EQ(run.byId[0].kvSentBytes, 50.0);
  EXPECT_DOUBLE_EQ(run.byId[0].ttftS(), 3.0);
  EXPECT_DOUBLE_EQ(kvTransferBytes(model(1, 25).config, 100) * 4,
                   kvTransferBytes(model(1).config, 100));
}

TEST(Cluster, OneReplicaIsTheLoop) {
  std::vector<Request> rs = {req(0, 0, 100, 3), req(1, 0.5, 100, 4),
                             req(2, 7, 50, 2)};
  Served one = serveOn(rs, {model(2)}, replicas(1, Router::RoundRobin));
  ListSource source(rs);
  std::vector<DeployedModel> models = {model(2)};
  auto loop = serveStream(source, 3, models, CacheOptions());
  ASSERT_TRUE(static_cast<bool>(loop));
  EXPECT_DOUBLE_EQ(one.result.makespanS, loop->makespanS);
  EXPECT_DOUBLE_EQ(one.result.latencies.ttft.mean(),
                   loop->latencies.ttft.mean());
  EXPECT_EQ(one.result.decodeSteps, loop->decodeSteps);
}

TEST(Cluster, Names) {
  EXPECT_EQ(parseRouter("prefix-aware"), Router::PrefixAware);
  EXPECT_EQ(parseRouter("random"), std::nullopt);
  EXPECT_EQ(routerName(Router::LeastLoaded), "least-loaded");
}

} // namespace
