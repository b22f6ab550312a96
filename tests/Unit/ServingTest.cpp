//===- ServingTest.cpp - The serving loop on hand-checked traces ----------===//
//
// Costs are round numbers so every time below can be followed by hand:
// prefill of a prompt up to 128 tokens takes 2 s, a decode step 1 s.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Serving/Serving.h"
#include "snapflow/Sim/Serving/PrefixCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace snapflow::sim::serving;
using llvm::Error;

namespace {

CostTable roundCosts() {
  CostTable c;
  c.prefillBuckets = {128};
  c.prefillS = {2.0};
  c.decodeBuckets = {128, 1024};
  c.decodeStepS = {1.0, 3.0};
  return c;
}

ServeConfig config(int64_t slots) {
  ServeConfig cfg;
  cfg.slots = slots;
  cfg.maxContext = 1024;
  cfg.kvTokensPerSlot = 1024;
  cfg.kvBytesPerToken = 1.0;
  return cfg;
}

Request req(int64_t id, double arrival, int64_t prompt, int64_t output) {
  Request r;
  r.id = id;
  r.arrivalS = arrival;
  r.promptTokens = prompt;
  r.outputTokens = output;
  return r;
}

// Merging keeps the counts, mean and largest exact, and every value: two
// exact halves give the percentiles of the whole; a coarse one (past the
// exact limit) merges its grid values, each within the relative error.
TEST(Serving, DistributionsMerge) {
  Distribution a, b, whole;
  for (int i = 1; i <= 10; ++i) {
    (i % 2 ? a : b).add(double(i));
    whole.add(double(i));
  }
  a.merge(b);
  EXPECT_EQ(a.count(), 10);
  EXPECT_DOUBLE_EQ(a.mean(), 5.5);
  EXPECT_DOUBLE_EQ(a.max(), 10.0);
  for (double q : {0.1, 0.5, 0.9, 1.0})
    EXPECT_DOUBLE_EQ(a.percentile(q), whole.percentile(q));
  Distribution coarse, into;
  for (size_t i = 0; i <= Distribution::kExactValues; ++i)
    coarse.add(1.0 + double(i) * 1e-3);
  ASSERT_TRUE(coarse.approximate());
  into.add(0.5);
  into.merge(coarse);
  EXPECT_EQ(into.count(), coarse.count() + 1);
  EXPECT_DOUBLE_EQ(into.max(), coarse.max());
  EXPECT_DOUBLE_EQ(into.percentile(0), 0.5);
  EXPECT_NEAR(into.percentile(0.5), coarse.percentile(0.5),
              2 * Distribution::kRelativeError * coarse.percentile(0.5));
  // An empty one changes nothing.
  Distribution empty;
  into.merge(empty);
  EXPECT_EQ(into.count(), coarse.count() + 1);
}

// Two static graphs, of 1 and 4 slots (steps 0.5 s and 1 s at the short
// bucket; a step after the other graph 0.25 s more), 4 slots in all:
//   r0 (3 tokens) at 0: prefill 0-2; one decodes: the 1-slot graph, 2-2.5
//       and 2.5-3 (the first graph to run: no switch); done at 3.
//   r1, r2 (2 tokens) at 2.6: prefills 3-5 and 5-7; two decode: the 4-slot
//       graph, after the other: 1 + 0.25 s, 7-8.25; both done.
// Steps per graph 2 and 1, one switch of 0.25 s; slot use weighted by step
// time: (0.5 x 1 + 0.5 x 1 + 1.25 x 2/4) / 2.25 = 13/18.
TEST(Serving, SmallestGraphThatHoldsTheBatch) {
  CostTable c = roundCosts();
  c.graphSlots = {1, 4};
  c.graphStepS = {{0.5, 1.5}, {1.0, 3.0}};
  c.graphSwitchS = {0.25, 0.25};
  std::vector<Request> rs = {req(0, 0, 100, 3), req(1, 2.6, 100, 2),
                             req(2, 2.6, 100, 2)};
  auto r = serve(rs, c, config(4));
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_DOUBLE_EQ(r->requests[0].finishS, 3.0);
  EXPECT_DOUBLE_EQ(r->requests[1].firstTokenS, 5.0);
  EXPECT_DOUBLE_EQ(r->requests[2].finishS, 8.25);
  EXPECT_DOUBLE_EQ(r->makespanS, 8.25);
  ASSERT_EQ(r->graphSteps.size(), 2u);
  EXPECT_EQ(r->graphSteps[0], 2);
  EXPECT_EQ(r->graphSteps[1], 1);
  EXPECT_EQ(r->graphSwitches, 1);
  EXPECT_DOUBLE_EQ(r->graphSwitchS, 0.25);
  EXPECT_DOUBLE_EQ(r->decodeS, 2.25);
  EXPECT_NEAR(r->decodeSlotUtilization, 13.0 / 18.0, 1e-12);
}

// Energy (docs/Energy.md) on the same run: prefill at 100 W, the 1-slot
// graph at 20 W, the 4-slot at 40 W (short bucket), the node idling at
// 10 W, the wall doubling what steps add. A step's own time carries its
// power (a switch between graphs none), the node's idle power its time on
// the chip, both split over the requests it served:
//   r0: prefill 2 s x 100 W x 2 + 2 s x 10 W = 420; its two 1-slot steps
//       2 x (0.5 s x 20 W x 2 + 0.5 s x 10 W) = 50: 470 J.
//   r1, r2: prefill 420 each; the 4-slot step (1 s x 40 W x 2 + 1.25 s x
//       10 W) = 92.5, half each: 466.25 J.
// Dynamic 3 x 400 + 40 + 80 = 1320 J, static 10 W x 8.25 s = 82.5 J, no
// idle time; the requests' energies add up to the total.
TEST(Serving, EnergyOfEachRequestAndOfTheNode) {
  CostTable c = roundCosts();
  c.graphSlots = {1, 4};
  c.graphStepS = {{0.5, 1.5}, {1.0, 3.0}};
  c.graphSwitchS = {0.25, 0.25};
  c.prefillW = {100};
  c.decodeW = {40, 60};
  c.graphW = {{20, 30}, {40, 60}};
  ServeConfig cfg = config(4);
  cfg.idleW = 10;
  cfg.wallPowerFactor = 2;
  std::vector<Request> rs = {req(0, 0, 100, 3), req(1, 2.6, 100, 2),
                             req(2, 2.6, 100, 2)};
  auto r = serve(rs, c, cfg);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_DOUBLE_EQ(r->requests[0].energyJ, 470);
  EXPECT_DOUBLE_EQ(r->requests[1].energyJ, 466.25);
  EXPECT_DOUBLE_EQ(r->requests[2].energyJ, 466.25);
  EXPECT_DOUBLE_EQ(r->energy.dynamicJ, 1320);
  EXPECT_DOUBLE_EQ(r->energy.staticJ, 82.5);
  EXPECT_DOUBLE_EQ(r->energy.idleJ, 0);
  EXPECT_DOUBLE_EQ(r->energy.totalJ(), 470 + 2 * 466.25);
}

// Idle time between requests draws the node's idle power and belongs to
// no request: r0 at 0 (prefill 0-2, a step 2-3), r1 at 10 (10-12, 12-13);
// each 2 x (2 s x 100 W) + 2 s x 10 W + 2 x (1 s x 40 W) + 1 s x 10 W =
// 510 J, and 7 s idle x 10 W = 70 J: 1090 J over 13 s.
TEST(Serving, IdleEnergyBelongsToNoRequest) {
  CostTable c = roundCosts();
  c.prefillW = {100};
  c.decodeW = {40, 60};
  ServeConfig cfg = config(1);
  cfg.idleW = 10;
  cfg.wallPowerFactor = 2;
  auto r = serve({req(0, 0, 100, 2), req(1, 10, 100, 2)}, c, cfg);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_DOUBLE_EQ(r->requests[0].energyJ, 510);
  EXPECT_DOUBLE_EQ(r->requests[1].energyJ, 510);
  EXPECT_DOUBLE_EQ(r->idleS, 7);
  EXPECT_DOUBLE_EQ(r->energy.idleJ, 70);
  EXPECT_DOUBLE_EQ(r->energy.totalJ(), 1090);
}

// Three requests at t=0, one slot, 3 output tokens each (one from prefill,
// two from decode steps):
//   r0: prefill 0-2 (TTFT 2), steps 2-3, 3-4: done at 4, TPOT (4-2)/2 = 1
//   r1: prefill 4-6: TTFT 6 = r0's total time 4 + its own prefill 2; done 8
//   r2: prefill 8-10: TTFT 10; done 12
TEST(Serving, OneSlotServesInTurn) {
  std::vector<Request> rs = {req(0, 0, 100, 3), req(1, 0, 100, 3),
                             req(2, 0, 100, 3)};
  auto r = serve(rs, roundCosts(), config(1));
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_DOUBLE_EQ(r->requests[0].ttftS(), 2.0);
  EXPECT_DOUBLE_EQ(r->requests[0].finishS, 4.0);
  EXPECT_DOUBLE_EQ(r->requests[0].tpotS(), 1.0);
  EXPECT_DOUBLE_EQ(r->requests[1].ttftS(),
                   r->requests[0].finishS - r->requests[0].arrivalS + 2.0);
  EXPECT_DOUBLE_EQ(r->requests[1].finishS, 8.0);
  EXPECT_DOUBLE_EQ(r->requests[2].ttftS(), 10.0);
  EXPECT_DOUBLE_EQ(r->makespanS, 12.0);
  EXPECT_EQ(r->outputTokens, 9);
  EXPECT_EQ(r->decodeSteps, 6);
  EXPECT_EQ(r->prefills, 3);
  EXPECT_DOUBLE_EQ(r->prefillS, 6.0);
  EXPECT_DOUBLE_EQ(r->decodeS, 6.0);
  EXPECT_DOUBLE_EQ(r->decodeSlotUtilization, 1.0);
  // Spans: prefill and decode of each request, on slot 0.
  ASSERT_EQ(r->spans.size(), 6u);
  EXPECT_TRUE(r->spans[0].prefill);
  EXPECT_DOUBLE_EQ(r->spans[1].startS, 2.0);
  EXPECT_DOUBLE_EQ(r->spans[1].endS, 4.0);
}

// Two slots; r1 arrives at 0.5 while r0 is in prefill. At t=2 r1 takes the
// free slot before any decode step (prefill first): prefill 2-4, TTFT 3.5.
// Then steps 4-5 and 5-6 serve both: both finish at 6; r0's TPOT is
// (6-2)/2 = 2 (it waited during r1's prefill).
TEST(Serving, PrefillGoesBeforeDecode) {
  std::vector<Request> rs = {req(0, 0, 100, 3), req(1, 0.5, 100, 3)};
  auto r = serve(rs, roundCosts(), config(2));
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_DOUBLE_EQ(r->requests[1].prefillStartS, 2.0);
  EXPECT_DOUBLE_EQ(r->requests[1].ttftS(), 3.5);
  EXPECT_EQ(r->requests[1].slot, 1);
  EXPECT_DOUBLE_EQ(r->requests[0].finishS, 6.0);
  EXPECT_DOUBLE_EQ(r->requests[1].finishS, 6.0);
  EXPECT_DOUBLE_EQ(r->requests[0].tpotS(), 2.0);
  EXPECT_DOUBLE_EQ(r->decodeSlotUtilization, 1.0);
}

// One of two slots busy: utilization 1/2. A one-token request ends with
// its prefill. A gap between arrivals is idle time.
TEST(Serving, IdleAndHalfEmptySteps) {
  std::vector<Request> rs = {req(0, 0, 100, 1), req(1, 10, 100, 2)};
  auto r = serve(rs, roundCosts(), config(2));
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_DOUBLE_EQ(r->requests[0].finishS, 2.0);
  EXPECT_DOUBLE_EQ(r->requests[0].tpotS(), 0.0);
  EXPECT_DOUBLE_EQ(r->idleS, 8.0);
  // r1: prefill 10-12, one step 12-13.
  EXPECT_DOUBLE_EQ(r->requests[1].finishS, 13.0);
  EXPECT_DOUBLE_EQ(r->makespanS, 13.0);
  EXPECT_DOUBLE_EQ(r->decodeSlotUtilization, 0.5);
}

// A prompt of 126 holds 127 tokens after prefill. The first step makes 128
// (bucket 128: 1 s); the next ones 129 and 130 need bucket 1024 (3 s each):
// finish at 2 + 1 + 3 + 3 = 9.
TEST(Serving, DecodeUsesTheSmallestBucketThatHolds) {
  std::vector<Request> rs = {req(0, 0, 126, 4)};
  auto r = serve(rs, roundCosts(), config(1));
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_DOUBLE_EQ(r->requests[0].finishS, 9.0);
}

// KV held: capped per slot at the policy's budget. r0 (prompt 100) after its
// prefill holds 101 tokens; with a budget of 64 it counts 64 x 2 bytes.
TEST(Serving, LiveKVIsCappedByTheBudget) {
  ServeConfig cfg = config(1);
  cfg.kvTokensPerSlot = 64;
  cfg.kvBytesPerToken = 2;
  auto r = serve({req(0, 0, 100, 2)}, roundCosts(), cfg);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  ASSERT_GE(r->samples.size(), 2u);
  EXPECT_DOUBLE_EQ(r->samples[0].kvLiveBytes, 0.0);
  EXPECT_DOUBLE_EQ(r->samples[1].kvLiveBytes, 128.0);
}

// A long run keeps bounded samples but exact KV figures. 30000 requests at
// t=0 on one slot, prompt 10 and 5 output tokens: each takes a 2 s prefill
// and 4 one-second steps, 6 s in all, 180000 s for the run, and 5 events
// (150001 with the start): more than kMaxSamples, so the kept ones thin out,
// the first and the last (the end, nothing held) always among them. Per 6 s
// the slot holds 11, 12, 13 and 14 tokens for a second each (1 B a token)
// and nothing during the next prefill: peak 14, mean 50 / 6.
TEST(Serving, LongRunsKeepBoundedSamplesAndExactKV) {
  std::vector<Request> rs;
  for (int64_t i = 0; i < 30000; ++i)
    rs.push_back(req(i, 0, 10, 5));
  auto r = serve(rs, roundCosts(), config(1));
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_DOUBLE_EQ(r->makespanS, 180000.0);
  EXPECT_LE(r->samples.size(), ServeResult::kMaxSamples);
  EXPECT_GE(r->samples.size(), ServeResult::kMaxSamples / 4);
  EXPECT_DOUBLE_EQ(r->samples.front().timeS, 0.0);
  EXPECT_DOUBLE_EQ(r->samples.back().timeS, 180000.0);
  EXPECT_DOUBLE_EQ(r->samples.back().kvLiveBytes, 0.0);
  EXPECT_DOUBLE_EQ(r->kvPeakBytes, 14.0);
  EXPECT_NEAR(r->kvMeanBytes, 50.0 / 6.0, 1e-9);
  // 2 spans a request, 60000 in all: under the cap, none dropped.
  EXPECT_EQ(r->spans.size(), 60000u);
  EXPECT_EQ(r->spansDropped, 0);
}

// MTP: 1.5 accepted tokens a step. Prefill gives token 1 at 2 s; the steps
// accumulate 2.5, 4.0, 5.5 accepted tokens and emit up to 2, 4 and 5 (capped
// at the output): 3 steps of 1 s instead of 4, finish at 5 s; every step
// still emits at least one token.
TEST(Serving, MTPEmitsTheAcceptedTokens) {
  ServeConfig cfg = config(1);
  cfg.tokensPerStep = 1.5;
  auto r = serve({req(0, 0, 10, 5)}, roundCosts(), cfg);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_DOUBLE_EQ(r->requests[0].finishS, 5.0);
  EXPECT_EQ(r->decodeSteps, 3);
  EXPECT_EQ(r->outputTokens, 5);
  EXPECT_DOUBLE_EQ(r->requests[0].tpotS(), 3.0 / 4.0);
  // Gaps between tokens: 1 (token 2 at 3 s), 1 and 0 (tokens 3 and 4 both
  // at 4 s), 1 (token 5 at 5 s); they add up to finish - first token.
  EXPECT_EQ(r->tokenGaps.count(), 4);
  EXPECT_DOUBLE_EQ(r->tokenGaps.mean(), 0.75);
  EXPECT_DOUBLE_EQ(r->tokenGaps.percentile(0.25), 0.0);
  EXPECT_DOUBLE_EQ(r->tokenGaps.percentile(0.5), 1.0);
}

// The chunked schedule on the round costs, with the 128-token prefill in
// three chunks of 0.5, 0.7 and 0.8 s (adding up to its 2 s). Two slots; r0
// (4 tokens out) arrives at 0, r1 (2 tokens out) at 0.1.
//   0.0-0.5, 0.5-1.2, 1.2-2.0: r0's chunks, nothing decoding; first token
//        at 2.0 (r1 waits: one prefill at a time)
//   2.0-3.5: decode step 1 s + r1's chunk 0 (0.5 s) = 1.5 s: a mixed step
//        costs its parts; r0 has 2 tokens
//   3.5-5.2: 1 + 0.7; 5.2-7.0: 1 + 0.8: r0 ends at 7.0 with 4 tokens and
//        r1's first token comes at the end of the step with its last chunk
//        (TTFT 7.0 - 0.1 = 6.9)
//   7.0-8.0: a decode step alone: r1 ends.
// Prefill time 2 x 2 s, decode 4 steps of 1 s, makespan 8; 3 mixed steps.
// r0's tokens come at 2.0, 3.5, 5.2 and 7.0: no gap longer than a step,
// where prefill-first (below) stalls it for r1's whole prefill.
TEST(Serving, ChunkedStepCarriesDecodeAndOneChunk) {
  CostTable costs = roundCosts();
  costs.prefillChunkS = {{0.5, 0.7, 0.8}};
  ServeConfig cfg = config(2);
  cfg.schedule = Schedule::Chunked;
  std::vector<Request> rs = {req(0, 0, 100, 4), req(1, 0.1, 100, 2)};
  auto r = serve(rs, costs, cfg);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  std::vector<double> times;
  for (const Sample &smp : r->samples)
    times.push_back(smp.timeS);
  std::vector<double> expected = {0.0, 0.5, 1.2, 2.0, 3.5, 5.2, 7.0, 8.0};
  ASSERT_EQ(times.size(), expected.size());
  for (size_t i = 0; i < times.size(); ++i)
    EXPECT_NEAR(times[i], expected[i], 1e-12) << "event " << i;
  EXPECT_DOUBLE_EQ(r->requests[0].firstTokenS, 2.0);
  EXPECT_DOUBLE_EQ(r->requests[0].finishS, 7.0);
  EXPECT_DOUBLE_EQ(r->requests[1].prefillStartS, 2.0);
  EXPECT_NEAR(r->requests[1].ttftS(), 6.9, 1e-12);
  EXPECT_DOUBLE_EQ(r->requests[1].finishS, 8.0);
  EXPECT_DOUBLE_EQ(r->makespanS, 8.0);
  EXPECT_DOUBLE_EQ(r->prefillS, 4.0);
  EXPECT_DOUBLE_EQ(r->decodeS, 4.0);
  EXPECT_EQ(r->decodeSteps, 4);
  EXPECT_EQ(r->mixedSteps, 3);
  EXPECT_EQ(r->prefillChunks, 6);
  EXPECT_EQ(r->prefills, 2);
  EXPECT_EQ(r->outputTokens, 6);
  // While r0's prefill is under way its slot holds the chunks written so
  // far: 100 x 1/3 and 100 x 2/3 tokens at 1 B each.
  EXPECT_DOUBLE_EQ(r->samples[1].kvLiveBytes, 33.0);
  EXPECT_DOUBLE_EQ(r->samples[2].kvLiveBytes, 66.0);
  // The prefill spans run from the first chunk to the first token.
  ASSERT_GE(r->spans.size(), 2u);
  EXPECT_TRUE(r->spans[0].prefill);
  EXPECT_DOUBLE_EQ(r->spans[0].endS, 2.0);
  // Gaps between tokens: r0's 1.5, 1.7, 1.8 and r1's 1.0; none longer than
  // a mixed step.
  EXPECT_EQ(r->tokenGaps.count(), 4);
  EXPECT_NEAR(r->tokenGaps.max(), 1.8, 1e-12);
  EXPECT_NEAR(r->tokenGaps.percentile(0.5), 1.5, 1e-12);

  // The same load prefill-first: r1's whole prefill runs 2-4 while r0
  // waits; steps 4-5 (r1 done), 5-6, 6-7 (r0 done). r0's tokens come at 2,
  // 5, 6 and 7: a 3 s stall. r1's TTFT is 3.9 against 6.9 chunked.
  auto f = serve(rs, costs, config(2));
  ASSERT_TRUE(static_cast<bool>(f)) << llvm::toString(f.takeError());
  EXPECT_NEAR(f->requests[1].ttftS(), 3.9, 1e-12);
  EXPECT_DOUBLE_EQ(f->requests[0].finishS, 7.0);
  EXPECT_DOUBLE_EQ(f->makespanS, 7.0);
  EXPECT_EQ(f->mixedSteps, 0);
  EXPECT_EQ(f->prefillChunks, 6);
  // Gaps: r0's 3 (the stall), 1, 1 and r1's 1.
  EXPECT_EQ(f->tokenGaps.count(), 4);
  EXPECT_DOUBLE_EQ(f->tokenGaps.max(), 3.0);
  EXPECT_DOUBLE_EQ(f->tokenGaps.percentile(0.5), 1.0);
  EXPECT_DOUBLE_EQ(f->tokenGaps.percentile(0.99), 3.0);
}

// Chunk boundaries under the chunked schedule: a prefill of one chunk (no
// chunk times: the whole prefill) gives its first token after one step; a
// one-token request ends with its last chunk and frees its slot for the
// next request, whose first chunk starts the step after.
TEST(Serving, ChunkedOneChunkAndOneTokenRequests) {
  ServeConfig cfg = config(1);
  cfg.schedule = Schedule::Chunked;
  auto r = serve({req(0, 0, 100, 1), req(1, 0, 100, 2)}, roundCosts(), cfg);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  // r0: its one chunk 0-2, done at 2. r1: chunk 2-4, a step 4-5.
  EXPECT_DOUBLE_EQ(r->requests[0].finishS, 2.0);
  EXPECT_DOUBLE_EQ(r->requests[1].prefillStartS, 2.0);
  EXPECT_DOUBLE_EQ(r->requests[1].firstTokenS, 4.0);
  EXPECT_DOUBLE_EQ(r->requests[1].finishS, 5.0);
  EXPECT_EQ(r->prefillChunks, 2);
  EXPECT_EQ(r->mixedSteps, 0);
}

// Exact nearest-rank percentiles from counts: 1 x3, 2 x1, 10 x1.
TEST(Serving, DistributionPercentilesAreExact) {
  Distribution d;
  d.add(2.0);
  d.add(1.0, 3);
  d.add(10.0);
  d.add(5.0, 0); // nothing
  EXPECT_EQ(d.count(), 5);
  EXPECT_EQ(d.distinct(), 3u);
  EXPECT_DOUBLE_EQ(d.percentile(0.6), 1.0);
  EXPECT_DOUBLE_EQ(d.percentile(0.61), 2.0);
  EXPECT_DOUBLE_EQ(d.percentile(0.99), 10.0);
  EXPECT_DOUBLE_EQ(d.max(), 10.0);
  EXPECT_DOUBLE_EQ(d.mean(), 15.0 / 5.0);
  EXPECT_DOUBLE_EQ(Distribution().percentile(0.5), 0.0);
}

// Past 65,536 distinct values a distribution keeps each to 1e-4 of itself
// (bounded memory over a long trace): the values 1..100,000 s, p50 is
// 50,000 and p99 99,000 to 1e-4; the mean (50,000.5) and max stay exact.
TEST(Serving, DistributionOfManyValuesIsBoundedAndClose) {
  Distribution d;
  for (int v = 1; v <= 100000; ++v)
    d.add(double(v));
  EXPECT_TRUE(d.approximate());
  EXPECT_LT(d.distinct(), 100000u);
  EXPECT_NEAR(d.percentile(0.5), 50000, 50000 * 1e-4);
  EXPECT_NEAR(d.percentile(0.99), 99000, 99000 * 1e-4);
  EXPECT_DOUBLE_EQ(d.mean(), 50000.5);
  EXPECT_DOUBLE_EQ(d.max(), 100000);
}

// The prefix cache by hand: HBM holds 2 blocks, DDR 2; keys chain each id
// to the ones before it (k1 = chain(0, 1), k2 = chain(k1, 2)); a run is
// touched last block first, so its head is the most recently used (lists
// most recent first).
//   insert {1,2}:  HBM [k1 k2]
//   insert {7}:    k2 (least recent, the tail) down: HBM [k7 k1], DDR [k2]
//   lookup {1,2,3}: k1 and k2 (DDR) hit, k3 misses: 2 blocks, 1 from DDR;
//                   k2 up (k1 down), then k1 up (k7 down):
//                   HBM [k1 k2], DDR [k7]; 3 moved down
//   lookup {2}:    chain(0, 2) is no block: 0 (an id after another prefix)
//   insert {20}:   k2 down: HBM [k20 k1], DDR [k2 k7]
//   insert {21}:   k1 down, DDR full: k7 dropped: DDR [k1 k2]; 5 down, 1 gone
// Then a prompt of 4 blocks in a 4-block HBM, and a new block: the first
// prompt's tail goes, so its first 3 blocks still hit.
TEST(Serving, PrefixCacheIsLeastRecentlyUsedPerTier) {
  PrefixCache c(2, 2);
  EXPECT_EQ(c.insert({1, 2}), 2);
  EXPECT_EQ(c.insert({7}), 1);
  EXPECT_EQ(c.hbmBlocks(), 2);
  EXPECT_EQ(c.ddrBlocks(), 1);
  PrefixCache::Hit h = c.lookup({1, 2, 3});
  EXPECT_EQ(h.blocks, 2);
  EXPECT_EQ(h.fromDdr, 1);
  EXPECT_EQ(c.demoted(), 3);
  EXPECT_EQ(c.lookup({2}).blocks, 0);
  EXPECT_EQ(c.insert({20}), 1);
  EXPECT_EQ(c.insert({21}), 1);
  EXPECT_EQ(c.demoted(), 5);
  EXPECT_EQ(c.dropped(), 1);
  EXPECT_EQ(c.ddrBlocks(), 2);
  // k1 and k2 are in DDR now: the run hits both there.
  h = c.lookup({1, 2});
  EXPECT_EQ(h.blocks, 2);
  EXPECT_EQ(h.fromDdr, 2);
  PrefixCache small(4, 0);
  small.insert({1, 2, 3, 4});
  small.insert({5});
  EXPECT_EQ(small.lookup({1, 2, 3, 4}).blocks, 3);
  EXPECT_EQ(small.dropped(), 1);
}

// Prefix caching in the loop, one slot, prefill-first; the 128-token
// prefill runs in two 1 s chunks of 64 tokens; blocks of 64 tokens, 100
// bytes each. r0 and r1 both arrive at 0 with prompt {1, 2} (128 tokens)
// and one output token (the prefill's).
//   r0: no hit; prefill 0-2: TTFT 2; its blocks go to the cache.
//   r1: both blocks hit; the last token is always computed, so 127 tokens
//       come from the cache: the prefill starts at chunk 127 / 64 = 1 and
//       runs 2-3: TTFT 3 (4 without the cache); 1 s of prefill saved.
//   With DDR only (no HBM room), r0's blocks are written down after its
//   first token at 100 bytes/s: 200 bytes, 2-4 (r0 finishes at 4); r1's
//   move up first, 4-6, then its prefill runs 6-7: TTFT 7 (its blocks are
//   in DDR already: nothing more is written down). Moves 4 s, makespan 7.
// Hit rate: 127 of 256 prompt tokens.
TEST(Serving, PrefixHitsSkipTheCachedChunks) {
  CostTable c = roundCosts();
  c.prefillChunkS = {{1.0, 1.0}};
  DeployedModel d;
  d.costs = c;
  d.config = config(1);
  d.prefix.blockTokens = 64;
  d.prefix.blockBytes = 100;
  d.prefix.hbmBlocks = 10;
  d.prefix.ddrBlocks = 10;
  d.prefix.promoteBps = 100;
  d.prefix.demoteBps = 100;
  std::vector<Request> rs = {req(0, 0, 128, 1), req(1, 0, 128, 1)};
  rs[0].blocks = rs[1].blocks = {1, 2};
  auto r = serveModels(rs, d, CacheOptions());
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_DOUBLE_EQ(r->requests[0].ttftS(), 2);
  EXPECT_DOUBLE_EQ(r->requests[1].ttftS(), 3);
  EXPECT_EQ(r->requests[1].prefixHitTokens, 127);
  EXPECT_EQ(r->prefix.queriedTokens, 256);
  EXPECT_EQ(r->prefix.hitTokens, 127);
  EXPECT_EQ(r->prefix.hitBlocks, 2);
  EXPECT_EQ(r->prefix.insertedBlocks, 2);
  EXPECT_DOUBLE_EQ(r->prefix.prefillSavedS, 1);
  EXPECT_DOUBLE_EQ(r->prefix.moveS, 0);
  EXPECT_DOUBLE_EQ(r->makespanS, 3);
  // DDR only.
  d.prefix.hbmBlocks = 0;
  r = serveModels(rs, d, CacheOptions());
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_DOUBLE_EQ(r->requests[0].ttftS(), 2);
  EXPECT_DOUBLE_EQ(r->requests[0].finishS, 4);
  EXPECT_DOUBLE_EQ(r->requests[1].ttftS(), 7);
  EXPECT_EQ(r->prefix.ddrHitBlocks, 2);
  EXPECT_DOUBLE_EQ(r->prefix.promotedBytes, 200);
  EXPECT_DOUBLE_EQ(r->prefix.demotedBytes, 200);
  EXPECT_DOUBLE_EQ(r->prefix.moveS, 4);
  EXPECT_DOUBLE_EQ(r->makespanS, 7);
  // Reuse off (--prefix-keep none under a compressing policy).
  d.prefix.reuse = false;
  r = serveModels(rs, d, CacheOptions());
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_DOUBLE_EQ(r->requests[1].ttftS(), 4);
  EXPECT_EQ(r->prefix.hitTokens, 0);
}

TEST(Serving, ScheduleNames) {
  EXPECT_EQ(parseSchedule("chunked"), Schedule::Chunked);
  EXPECT_EQ(parseSchedule("prefill-first"), Schedule::PrefillFirst);
  EXPECT_FALSE(parseSchedule("sarathi").has_value());
  EXPECT_EQ(scheduleName(Schedule::Chunked), "chunked");
}

TEST(Serving, ShapeWithoutCostIsAnError) {
  auto r = serve({req(0, 0, 200, 2)}, roundCosts(), config(1));
  ASSERT_FALSE(static_cast<bool>(r));
  EXPECT_EQ(llvm::toString(r.takeError()),
            "no prefill cost for a 200-token prompt");
}

TEST(Serving, ValidateNamesTheRequest) {
  ServeConfig cfg = config(1);
  Request r = req(3, 0, 1000, 100);
  r.line = 7;
  Error e = validate({r}, cfg, "reqs.csv");
  EXPECT_EQ(llvm::toString(std::move(e)),
            "reqs.csv:7: error: prompt_tokens + output_tokens = 1000 + 100 "
            "exceeds the context of 1024 tokens a slot holds (--context); "
            "--overlong skip or clip serves the trace's other rows");
}

// --overlong (issue 35): a 1000 + 100 request in a 1024-token slot is left
// out, or clipped: the prompt to 1024 - 100 = 924 tokens. An output longer
// than the slot clips the prompt to 1 token and the output to 1023.
TEST(Serving, OverlongRequestsAreSkippedOrClipped) {
  ServeConfig cfg = config(1);
  Request r = req(3, 0, 1000, 100);
  auto skip = fit(r, cfg, Overlong::Skip, "reqs.csv");
  ASSERT_TRUE(static_cast<bool>(skip));
  EXPECT_EQ(*skip, Fit::Skipped);
  auto clip = fit(r, cfg, Overlong::Clip, "reqs.csv");
  ASSERT_TRUE(static_cast<bool>(clip));
  EXPECT_EQ(*clip, Fit::Clipped);
  EXPECT_EQ(r.promptTokens, 924);
  EXPECT_EQ(r.outputTokens, 100);
  Request longOutput = req(4, 0, 10, 5000);
  ASSERT_TRUE(static_cast<bool>(fit(longOutput, cfg, Overlong::Clip, "")));
  EXPECT_EQ(longOutput.promptTokens, 1);
  EXPECT_EQ(longOutput.outputTokens, 1023);
  Request fits = req(5, 0, 1000, 24);
  auto f = fit(fits, cfg, Overlong::Clip, "");
  ASSERT_TRUE(static_cast<bool>(f));
  EXPECT_EQ(*f, Fit::Fits);
  EXPECT_EQ(fits.promptTokens, 1000);
}

// A request whose prompt + output passes 2^63 is refused, not wrapped into
// a negative sum that passes the check (reliability defect 16: it led to a
// "no decode cost" error or a hang in the bucket loop).
TEST(Serving, ValidateDoesNotWrap) {
  ServeConfig cfg = config(1);
  Request r = req(0, 0, INT64_MAX, 1);
  Error e = validate({r}, cfg, "reqs.csv");
  EXPECT_EQ(llvm::toString(std::move(e)),
            "reqs.csv: error: request 0: prompt_tokens + output_tokens = "
            "9223372036854775807 + 1 exceeds the context of 1024 tokens a "
            "slot holds (--context)");
  r = req(0, 0, INT64_MAX / 2 + 1, INT64_MAX / 2 + 1);
  EXPECT_TRUE(static_cast<bool>(validate({r}, cfg, "reqs.csv")));
}

TEST(Serving, NearestRankPercentiles) {
  std::vector<double> v = {10, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_DOUBLE_EQ(percentile(v, 0.5), 5);
  EXPECT_DOUBLE_EQ(percentile(v, 0.9), 9);
  EXPECT_DOUBLE_EQ(percentile(v, 0.99), 10);
  EXPECT_DOUBLE_EQ(percentile({}, 0.5), 0);
}

// Seeded: the same trace twice; Poisson at rate 2/s: 20,000 arrivals span
// about 10,000 s (standard deviation ~71 s); lengths stay in mean -+ 50%.
TEST(Serving, GeneratorIsSeededPoissonAndBounded) {
  GeneratorOptions o;
  o.rate = 2;
  o.count = 20000;
  o.seed = 7;
  o.promptMean = 1000;
  o.outputMean = 100;
  auto a = generateRequests(o), b = generateRequests(o);
  ASSERT_EQ(a.size(), 20000u);
  EXPECT_DOUBLE_EQ(a.back().arrivalS, b.back().arrivalS);
  EXPECT_NEAR(a.back().arrivalS, 10000, 400);
  for (const Request &r : a) {
    EXPECT_GE(r.promptTokens, 500);
    EXPECT_LE(r.promptTokens, 1500);
    EXPECT_GE(r.outputTokens, 50);
    EXPECT_LE(r.outputTokens, 150);
  }
  o.seed = 8;
  EXPECT_NE(generateRequests(o).back().arrivalS, a.back().arrivalS);
}

} // namespace

//===----------------------------------------------------------------------===//
// Several models sharing HBM (ModelCache.h). Every model has the round
// costs (prefill 2 s, step 1 s), one HBM unit of footprint and 10 bytes of
// weights; a switch alone takes 5 s (2 bytes/s). Beside a switch a decode
// step takes 1.5 s and the switch moves 2 bytes/s during it; a prefill
// beside it takes 3 s and the switch moves 1 byte/s.
//===----------------------------------------------------------------------===//

namespace {
DeployedModel unitModel(const std::string &name, int64_t slots = 1) {
  DeployedModel m;
  m.name = name;
  m.costs = roundCosts();
  m.config = config(slots);
  m.weightBytes = 10;
  m.hbmBytes = 1;
  m.switchS = 5;
  m.switchJ = 100; // the copy's energy, for the wall's factor of 1
  m.contended = roundCosts();
  m.contended.prefillS = {3.0};
  m.contended.decodeStepS = {1.5, 4.5};
  m.prefillCopyBps = {1.0};
  m.decodeCopyBps = {2.0, 2.0};
  return m;
}
Request to(int model, Request r) {
  r.model = model;
  return r;
}
} // namespace

// HBM holds one model (1.5 units); A is loaded at the start, B is not.
//   r0 (A, 3 tokens) at 0: prefill 0-2, steps 2-3, 3-4, done at 4.
//   r1 (B, 1 token) arrives at 0.5; at 2 B is demanded, but A is busy: A
//     drains (admits nothing new) and is evicted at 4, when it is empty.
//   B's switch runs alone from 4: 10 bytes at 2 bytes/s, done at 9.
//   r2 (B) arrives at 6, during the switch.
//   r1: switch wait 9 - 0.5 = 8.5; prefill 9-11 (TTFT 10.5).
//   r2: switch wait 9 - 6 = 3; prefill 11-13 after r1's (TTFT 7).
TEST(ServingModels, OnDemandDrainsEvictsAndSwitchesAlone) {
  std::vector<DeployedModel> models = {unitModel("A"), unitModel("B")};
  std::vector<Request> reqs = {to(0, req(0, 0.0, 100, 3)),
                               to(1, req(1, 0.5, 100, 1)),
                               to(1, req(2, 6.0, 100, 1))};
  CacheOptions cache;
  cache.policy = CachePolicy::OnDemand;
  cache.hbmBytes = 1.5;
  auto r = serveModels(reqs, models, cache);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_DOUBLE_EQ(r->requests[0].finishS, 4);
  ASSERT_EQ(r->switches.size(), 1u);
  EXPECT_EQ(r->switches[0].model, 1);
  EXPECT_DOUBLE_EQ(r->switches[0].startS, 4);
  EXPECT_DOUBLE_EQ(r->switches[0].endS, 9);
  EXPECT_FALSE(r->switches[0].prewarm);
  EXPECT_EQ(r->switches[0].evicted, std::vector<int>{0});
  EXPECT_EQ(r->models[0].evictions, 1);
  EXPECT_EQ(r->models[1].switches, 1);
  EXPECT_DOUBLE_EQ(r->models[1].switchS, 5);
  // One switch, its copy's 100 J.
  EXPECT_DOUBLE_EQ(r->models[1].switchJ, 100);
  EXPECT_DOUBLE_EQ(r->energy.switchJ, 100);
  EXPECT_DOUBLE_EQ(r->requests[1].switchWaitS, 8.5);
  EXPECT_DOUBLE_EQ(r->requests[1].ttftS(), 10.5);
  EXPECT_DOUBLE_EQ(r->requests[2].switchWaitS, 3);
  EXPECT_DOUBLE_EQ(r->requests[2].prefillStartS, 11);
  EXPECT_DOUBLE_EQ(r->requests[2].ttftS(), 7);
  EXPECT_DOUBLE_EQ(r->makespanS, 13);
  // HBM by model: A's unit until 4, B's from 4 (reserved as its switch
  // starts): each holds 1 at its peak.
  EXPECT_DOUBLE_EQ(r->models[0].hbmPeakBytes, 1);
  EXPECT_DOUBLE_EQ(r->models[1].hbmPeakBytes, 1);
  ASSERT_FALSE(r->samples.empty());
  EXPECT_EQ(r->samples.back().hbmByModel.size(), 2u);
}

// HBM holds two models (2.5 units); A and B are loaded, C is not. B is idle
// and A decodes a long request when C is demanded, so B is evicted at once
// and C's switch runs beside A's steps:
//   r0 (A, 20 tokens) at 0: prefill 0-2, then steps of 1 s.
//   r1 (C) at 2.5: at 3 (the end of A's step 2-3) C is demanded; B, idle,
//     is evicted; the switch starts at 3.
//   A's steps 3-4.5, 4.5-6, 6-7.5 run beside it at 1.5 s, the switch moving
//     3 bytes in each (9 of 10); in the step from 7.5 the last byte takes
//     0.5 s at 2 bytes/s and the rest of the step 1 - 0.5 / 1.5 of its own
//     1 s: it ends at 7.5 + 0.5 + 2/3. The switch ends at 8.
//   C takes its turn after A's step: prefill from 8 + 2/3.
TEST(ServingModels, SwitchBesideAModelContendsWithIt) {
  std::vector<DeployedModel> models = {unitModel("A"), unitModel("B"),
                                       unitModel("C")};
  std::vector<Request> reqs = {to(0, req(0, 0.0, 100, 20)),
                               to(2, req(1, 2.5, 100, 1))};
  CacheOptions cache;
  cache.policy = CachePolicy::OnDemand;
  cache.hbmBytes = 2.5;
  auto r = serveModels(reqs, models, cache);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  ASSERT_EQ(r->switches.size(), 1u);
  EXPECT_EQ(r->switches[0].model, 2);
  EXPECT_EQ(r->switches[0].evicted, std::vector<int>{1});
  EXPECT_DOUBLE_EQ(r->switches[0].startS, 3);
  EXPECT_DOUBLE_EQ(r->switches[0].endS, 8);
  EXPECT_DOUBLE_EQ(r->requests[1].switchWaitS, 8 - 2.5);
  EXPECT_DOUBLE_EQ(r->requests[1].prefillStartS, 8 + 2.0 / 3);
  EXPECT_EQ(r->models[1].evictions, 1);
  EXPECT_EQ(r->models[0].evictions, 0);
}

// Eviction order. HBM holds three of four models; A, B and C are loaded.
// Each is used once, B first (0-2), then A (2-4), then C (4-6). D is
// demanded at 7 with every resident model idle: the least recently used, B,
// is evicted; D's switch runs 7-12 and its prefill 12-14. Then B is
// demanded at 15, with A last used at 4, C at 6 and D at 14: A goes.
// The prewarm policy's evict-aware order puts a smaller forecast first,
// whatever the recency (evictionOrder).
TEST(ServingModels, EvictionOrderIsLeastRecentlyUsed) {
  std::vector<DeployedModel> models = {unitModel("A"), unitModel("B"),
                                       unitModel("C"), unitModel("D")};
  std::vector<Request> reqs = {
      to(1, req(0, 0.0, 100, 1)), to(0, req(1, 2.0, 100, 1)),
      to(2, req(2, 4.0, 100, 1)), to(3, req(3, 7.0, 100, 1)),
      to(1, req(4, 15.0, 100, 1))};
  CacheOptions cache;
  cache.policy = CachePolicy::OnDemand;
  cache.hbmBytes = 3;
  auto r = serveModels(reqs, models, cache);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  ASSERT_EQ(r->switches.size(), 2u);
  EXPECT_EQ(r->switches[0].model, 3);
  EXPECT_EQ(r->switches[0].evicted, std::vector<int>{1});
  EXPECT_DOUBLE_EQ(r->switches[0].startS, 7);
  EXPECT_DOUBLE_EQ(r->switches[0].endS, 12);
  EXPECT_DOUBLE_EQ(r->requests[3].ttftS(), 14 - 7);
  EXPECT_EQ(r->switches[1].model, 1);
  EXPECT_EQ(r->switches[1].evicted, std::vector<int>{0});
  EXPECT_DOUBLE_EQ(r->switches[1].startS, 15);

  // Least recently used first; a forecast overrides recency.
  std::vector<double> lastUse = {4, 2, 6};
  EXPECT_EQ(evictionOrder({0, 1, 2}, lastUse, {}), (std::vector<int>{1, 0, 2}));
  EXPECT_EQ(evictionOrder({0, 1, 2}, lastUse, {3.0, 5.0, 0.0}),
            (std::vector<int>{2, 0, 1}));
}

// Static: every model resident from the start, nothing switched; with one
// model the loop is the single-model loop.
TEST(ServingModels, StaticNeverSwitches) {
  std::vector<DeployedModel> models = {unitModel("A"), unitModel("B")};
  std::vector<Request> reqs = {to(0, req(0, 0.0, 100, 1)),
                               to(1, req(1, 0.0, 100, 1))};
  CacheOptions cache; // static
  cache.hbmBytes = 2;
  auto r = serveModels(reqs, models, cache);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  EXPECT_TRUE(r->switches.empty());
  // Turns alternate: A's prefill 0-2, B's 2-4.
  EXPECT_DOUBLE_EQ(r->requests[0].ttftS(), 2);
  EXPECT_DOUBLE_EQ(r->requests[1].ttftS(), 4);
}

// Thinning the samples keeps each one whole: the first (the start) used to
// be moved onto itself, which emptied its HBM-by-model figures, so the CSV's
// first row lacked its hbm_<model>_bytes columns. 15000 requests of A and
// 15000 of B, each a prefill and 4 steps, make 150000 events: more than
// kMaxSamples.
TEST(ServingModels, ThinnedSamplesKeepHbmByModel) {
  std::vector<DeployedModel> models = {unitModel("A"), unitModel("B")};
  std::vector<Request> reqs;
  for (int64_t i = 0; i < 30000; ++i)
    reqs.push_back(to(i % 2, req(i, 0.0, 10, 5)));
  CacheOptions cache; // static
  cache.hbmBytes = 2;
  auto r = serveModels(reqs, models, cache);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  ASSERT_LE(r->samples.size(), ServeResult::kMaxSamples); // thinned
  for (const Sample &s : r->samples)
    ASSERT_EQ(s.hbmByModel.size(), 2u) << "sample at " << s.timeS << " s";
}

// The forecast: with a period, the mean of the same window in earlier
// periods; without, the past windows weighted 1/2, 1/4, ... (the oldest
// keeps the rest).
TEST(ServingModels, ForecastIsSeasonalOrWeighted) {
  Forecast seasonal(2, /*windowS=*/10, /*periodS=*/20, /*startS=*/0);
  // Model 0: 4 arrivals in [0, 10), 2 in [20, 30); model 1: 1 in [10, 20).
  for (double t : {1.0, 2.0, 3.0, 4.0})
    seasonal.arrive(0, t);
  seasonal.arrive(1, 15);
  seasonal.arrive(0, 21);
  seasonal.arrive(0, 22);
  // At 40: windows [20, 30) and [0, 10): (2 + 4) / 2 = 3 for model 0.
  std::vector<double> f = seasonal.predict(40);
  EXPECT_DOUBLE_EQ(f[0], 3);
  EXPECT_DOUBLE_EQ(f[1], 0);
  // At 10, before a period has passed: the last window's count.
  EXPECT_DOUBLE_EQ(seasonal.predict(10)[0], 4);
  Forecast weighted(1, 10, 0, 0);
  for (double t : {1.0, 2.0, 11.0, 21.0, 22.0, 23.0, 24.0})
    weighted.arrive(0, t);
  // At 30: windows [20, 30) 4, [10, 20) 1, [0, 10) 2: 4/2 + 1/4 + 2/4.
  EXPECT_DOUBLE_EQ(weighted.predict(30)[0], 2 + 0.25 + 0.5);
}

// A seasonal forecast averages the same window of the latest 64 periods,
// so its cost does not grow with the run (a 1 s period late in a long run
// was a loop over every earlier period at every window). Model 0 has one
// arrival in [k, k + 0.5) of each of the first 100 periods of 1 s, and two
// in each later one: at 164 the latest 64 periods ([100, 164)) each hold 2.
TEST(ServingModels, SeasonalForecastAveragesTheLatestPeriods) {
  Forecast f(1, /*windowS=*/0.5, /*periodS=*/1, /*startS=*/0);
  for (int k = 0; k < 164; ++k) {
    f.arrive(0, k + 0.1);
    if (k >= 100)
      f.arrive(0, k + 0.2);
  }
  EXPECT_DOUBLE_EQ(f.predict(164)[0], 2);
}

// Prewarm: the forecast brings a model in ahead of its requests. HBM holds
// one model; windows are 10 s from the first arrival (0.5), the period 20 s.
// B's requests come early in each period (0.5 and 1.5; 22.5 and 23.5), A's
// at 12 (which brings A in, evicting B) and 32. At the window from 20.5,
// B's forecast (its requests in the same window a period ago, [0.5, 10.5):
// 2) exceeds A's (0): A, idle, is evicted and B prewarmed 20.5-25.5, so
// the request at 22.5 waits 3 s for it (TTFT 3 + 2); on demand its switch
// starts only at 22.5 (TTFT 5 + 2).
TEST(ServingModels, PrewarmBringsAModelInAheadOfItsRequests) {
  std::vector<DeployedModel> models = {unitModel("A"), unitModel("B")};
  std::vector<Request> reqs = {
      to(1, req(0, 0.5, 100, 1)),  to(1, req(1, 1.5, 100, 1)),
      to(0, req(2, 12.0, 100, 1)), to(1, req(3, 22.5, 100, 1)),
      to(1, req(4, 23.5, 100, 1)), to(0, req(5, 32.0, 100, 1))};
  CacheOptions cache;
  cache.policy = CachePolicy::Prewarm;
  cache.hbmBytes = 1.5;
  cache.windowS = 10;
  cache.periodS = 20;
  auto r = serveModels(reqs, models, cache);
  ASSERT_TRUE(static_cast<bool>(r)) << llvm::toString(r.takeError());
  bool prewarmed = false;
  for (const Switch &s : r->switches)
    if (s.model == 1 && s.prewarm) {
      prewarmed = true;
      EXPECT_DOUBLE_EQ(s.startS, 20.5);
      EXPECT_DOUBLE_EQ(s.endS, 25.5);
      EXPECT_EQ(s.evicted, std::vector<int>{0});
    }
  EXPECT_TRUE(prewarmed);
  EXPECT_EQ(r->models[1].prewarms, 1);
  EXPECT_DOUBLE_EQ(r->requests[3].switchWaitS, 3);
  EXPECT_DOUBLE_EQ(r->requests[3].ttftS(), 5);
  cache.policy = CachePolicy::OnDemand;
  auto d = serveModels(reqs, models, cache);
  ASSERT_TRUE(static_cast<bool>(d)) << llvm::toString(d.takeError());
  EXPECT_EQ(d->models[1].prewarms, 0);
  EXPECT_DOUBLE_EQ(d->requests[3].ttftS(), 7);
}

// The periodic generator: per model, Poisson arrivals whose rate follows
// rate x (1 + amplitude sin(2 pi (t / period + phase))). Over 20 periods of
// 100 s at a mean of 2 requests/s, a model with amplitude 1 and phase 0
// gets its requests in the first half of each period (where the sine is
// positive) far more than in the second: the expected split is
// (1 + 2/pi) : (1 - 2/pi), about 4.5 : 1. Its arrivals are the same with
// or without a second model, and the same for the same seed.
TEST(ServingModels, PeriodicLoadFollowsItsRateCurve) {
  PeriodicLoad a;
  a.rate = 2;
  a.amplitude = 1;
  a.periodS = 100;
  PeriodicLoad b = a;
  b.phase = 0.5;
  std::vector<Request> both = generatePeriodic({a, b}, 2000, 7);
  std::vector<Request> alone = generatePeriodic({a}, 2000, 7);
  int64_t first = 0, second = 0, n0 = 0;
  std::vector<double> fromBoth;
  for (const Request &r : both) {
    EXPECT_GE(r.promptTokens, 1);
    if (r.model != 0)
      continue;
    ++n0;
    fromBoth.push_back(r.arrivalS);
    (std::fmod(r.arrivalS, 100) < 50 ? first : second) += 1;
  }
  // About 4000 requests (2/s over 2000 s), within 5 standard deviations.
  EXPECT_NEAR(double(n0), 4000, 5 * std::sqrt(4000.0));
  EXPECT_GT(first, 3 * second);
  ASSERT_EQ(alone.size(), fromBoth.size());
  for (size_t i = 0; i < alone.size(); ++i)
    EXPECT_EQ(alone[i].arrivalS, fromBoth[i]);
  for (size_t i = 1; i < both.size(); ++i)
    EXPECT_LE(both[i - 1].arrivalS, both[i].arrivalS);
  EXPECT_EQ(both.back().id, static_cast<int64_t>(both.size()) - 1);
}
