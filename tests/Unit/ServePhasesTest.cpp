//===- ServePhasesTest.cpp - The phases of a serving run ------------------===//
//
// Each phase of `run --serve` (driver/lib/Driver/Serve/Phases.h) on small
// inputs whose answers follow by hand: the requests and their models, the
// shape buckets, the placement, the step costs of one SystemC run, the loop
// and the outcome.
//
//===----------------------------------------------------------------------===//

#include "Serve/Phases.h"

#include "gtest/gtest.h"

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::driver::phases;
using namespace snapflow::sim::serving;

// libsystemc defines main() and calls sc_main; gtest_main has its own main,
// so this one is never called but must exist.
extern "C" int sc_main(int, char **) { return 0; }

namespace {

std::string message(llvm::Error e) { return llvm::toString(std::move(e)); }

DeployedWorkload deployed(const char *model, int64_t context, int64_t batch) {
  DeployedWorkload d;
  d.options.model = model;
  d.options.chip = "sn40l-16";
  d.options.context = context;
  d.options.batch = batch;
  d.options.kv = "full";
  return d;
}

Request request(double arrival, int64_t prompt, int64_t output,
                const char *model = "") {
  Request r;
  r.arrivalS = arrival;
  r.promptTokens = prompt;
  r.outputTokens = output;
  r.modelName = model;
  r.line = 2;
  return r;
}

} // namespace

// Requests.cpp

TEST(ServeRequests, CacheDefaultsByModelCountAndChecksTheWindow) {
  ServeOptions so;
  auto one = resolveCache(so, /*several=*/false);
  ASSERT_TRUE(static_cast<bool>(one)) << message(one.takeError());
  EXPECT_EQ(one->policy, CachePolicy::Static);
  auto two = resolveCache(so, /*several=*/true);
  ASSERT_TRUE(static_cast<bool>(two)) << message(two.takeError());
  EXPECT_EQ(two->policy, CachePolicy::OnDemand);
  so.cache.windowS = 1e-4; // under a millisecond: shorter than any step
  auto bad = resolveCache(so, false);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(message(bad.takeError())
                .find("--forecast-window must be from "
                      "0.001"),
            std::string::npos);
}

TEST(ServeRequests, ModelsGoByTheirNamesOnce) {
  auto models = prepareModels(
      {deployed("llama-3.2-1b", 1024, 2), deployed("llama-3.1-8b", 1024, 2)});
  ASSERT_TRUE(static_cast<bool>(models)) << message(models.takeError());
  ASSERT_EQ(models->size(), 2u);
  EXPECT_EQ((*models)[0]->deployed.name, "llama-3.2-1b");
  auto twice = prepareModels(
      {deployed("llama-3.2-1b", 1024, 2), deployed("llama-3.2-1b", 1024, 2)});
  ASSERT_FALSE(static_cast<bool>(twice));
  EXPECT_NE(message(twice.takeError()).find("names llama-3.2-1b twice"),
            std::string::npos);
}

/// scan's error over `load`, "" when none.
std::string scanned(Load &load, Models &models, const ServeOptions &so = {}) {
  return message(scan(load, models, so));
}

TEST(ServeRequests, GeneratedLoadNamesItsSourceAndRefusesATraceBeside) {
  ServeOptions so;
  so.generate = true;
  so.gen.rate = 2;
  so.gen.count = 5;
  so.gen.promptMean = 100;
  so.gen.outputMean = 10;
  auto load = loadRequests(so, 1);
  ASSERT_TRUE(static_cast<bool>(load)) << message(load.takeError());
  EXPECT_EQ(load->source, "generated: Poisson 2 requests/s, seed 1");
  // Drawn as the passes read them, the same each pass.
  auto models = prepareModels({deployed("llama-3.2-1b", 1024, 2)});
  ASSERT_TRUE(static_cast<bool>(models)) << message(models.takeError());
  EXPECT_EQ(scanned(*load, *models), "");
  EXPECT_EQ(load->served, 5);
  EXPECT_EQ(scanned(*load, *models), "");
  EXPECT_EQ(load->served, 5);
  so.requestsPath = "reqs.csv";
  auto both = loadRequests(so, 1);
  ASSERT_FALSE(static_cast<bool>(both));
  EXPECT_EQ(message(both.takeError()),
            "--trace-requests and --rate/--requests exclude each other");
  so.requestsPath.clear();
  so.gen.rate = std::nan("");
  auto nan = loadRequests(so, 1);
  ASSERT_FALSE(static_cast<bool>(nan));
  EXPECT_NE(message(nan.takeError()).find("--rate must be from"),
            std::string::npos);
}

TEST(ServeRequests, TheModelColumnNamesADeployedModel) {
  auto models = prepareModels(
      {deployed("llama-3.2-1b", 1024, 2), deployed("llama-3.1-8b", 1024, 2)});
  ASSERT_TRUE(static_cast<bool>(models)) << message(models.takeError());
  Load load;
  load.hasModel = true;
  load.path = load.source = "t.csv";
  load.requests = {request(0, 10, 5, "llama-3.1-8b"),
                   request(1, 10, 5, "llama-3.2-1b"),
                   request(2, 10, 5, "llama-3.1-8b")};
  EXPECT_EQ(scanned(load, *models), "");
  EXPECT_EQ((*models)[0]->requests, 1);
  EXPECT_EQ((*models)[1]->requests, 2);
  EXPECT_EQ(load.served, 3);
  load.requests.push_back(request(3, 10, 5, "gpt-4"));
  load.requests.back().line = 5;
  EXPECT_EQ(scanned(load, *models),
            "t.csv:5: error: model 'gpt-4' is not deployed (--model "
            "llama-3.2-1b,llama-3.1-8b); --model-map NAME=MODEL serves it as "
            "a deployed model");
  // --model-map: BurstGPT's names served as deployed models.
  load.requests.push_back(request(4, 10, 5, "ChatGPT"));
  ServeOptions so;
  so.modelMap = "gpt-4=llama-3.1-8b, ChatGPT=llama-3.2-1b";
  EXPECT_EQ(scanned(load, *models, so), "");
  EXPECT_EQ((*models)[0]->requests, 2);
  EXPECT_EQ((*models)[1]->requests, 3);
  so.modelMap = "gpt-4=qwen3-8b";
  EXPECT_EQ(scanned(load, *models, so),
            "--model-map: gpt-4=qwen3-8b, but 'qwen3-8b' is not deployed "
            "(--model llama-3.2-1b,llama-3.1-8b)");
  so.modelMap = "gpt-4";
  EXPECT_EQ(scanned(load, *models, so),
            "--model-map: 'gpt-4' is not name=model "
            "(ChatGPT=llama-3.1-70b,GPT-4=deepseek-r1)");
  so.modelMap = "a=llama-3.2-1b,a=llama-3.1-8b";
  EXPECT_EQ(scanned(load, *models, so), "--model-map names 'a' twice");
  load.hasModel = false;
  EXPECT_NE(scanned(load, *models).find("the trace has no model column"),
            std::string::npos);
}

TEST(ServeRequests, ARequestLongerThanItsSlotIsRefused) {
  auto models = prepareModels({deployed("llama-3.2-1b", 1024, 2)});
  ASSERT_TRUE(static_cast<bool>(models)) << message(models.takeError());
  Load load;
  load.source = "t.csv";
  load.requests = {request(0, 1000, 100)}; // 1100 tokens in a 1024 slot
  EXPECT_NE(scanned(load, *models).find("1024"), std::string::npos);
}

// --overlong skip leaves the request out and counts it; clip shortens its
// prompt to 1024 - 100 = 924 tokens (its bucket 1024, not 2048); skipping
// every request is an error.
TEST(ServeRequests, OverlongRequestsAreSkippedOrClippedAndCounted) {
  for (Overlong how : {Overlong::Skip, Overlong::Clip}) {
    auto models = prepareModels({deployed("llama-3.2-1b", 1024, 2)});
    ASSERT_TRUE(static_cast<bool>(models)) << message(models.takeError());
    Load load;
    load.source = "t.csv";
    load.requests = {request(0, 10, 5), request(1, 1000, 100),
                     request(2, 20, 5)};
    ServeOptions so;
    so.overlong = how;
    EXPECT_EQ(scanned(load, *models, so), "");
    bool skip = how == Overlong::Skip;
    EXPECT_EQ(load.overlongSkipped, skip ? 1 : 0);
    EXPECT_EQ(load.overlongClipped, skip ? 0 : 1);
    EXPECT_EQ(load.served, skip ? 2 : 3);
    EXPECT_EQ((*models)[0]->requests, load.served);
    EXPECT_EQ((*models)[0]->buckets.prefill,
              skip ? (std::set<int64_t>{128}) : (std::set<int64_t>{128, 1024}));
  }
  auto models = prepareModels({deployed("llama-3.2-1b", 1024, 2)});
  ASSERT_TRUE(static_cast<bool>(models)) << message(models.takeError());
  Load load;
  load.source = "t.csv";
  load.requests = {request(0, 1000, 100)};
  ServeOptions so;
  so.overlong = Overlong::Skip;
  EXPECT_NE(scanned(load, *models, so)
                .find("--overlong skip left none to "
                      "serve"),
            std::string::npos);
}

// Buckets.cpp

TEST(ServeBuckets, PromptsAndContextsRoundUpToPowersOfTwo) {
  // Prompts 100 and 300 run in the 128 and 512 buckets; decode contexts run
  // from the shortest (101 tokens: 128) to the longest (300 + 100 = 400:
  // 512), and the full context (4096) fixes the KV allocation.
  Buckets b;
  b.add(request(0, 100, 20), 4096);
  b.add(request(1, 300, 100), 4096);
  b.close(4096);
  EXPECT_EQ(b.prefill, (std::set<int64_t>{128, 512}));
  EXPECT_EQ(b.decode, (std::set<int64_t>{128, 256, 512, 4096}));
  // Only the first request: its decode runs from 101 to 120 tokens.
  Buckets one;
  one.add(request(0, 100, 20), 4096);
  one.close(4096);
  EXPECT_EQ(one.decode, (std::set<int64_t>{128, 4096}));
}

TEST(ServeBuckets, DDRMustHoldEveryModelsWeights) {
  auto models = prepareModels(
      {deployed("llama-3.2-1b", 1024, 2), deployed("llama-3.1-8b", 1024, 2)});
  ASSERT_TRUE(static_cast<bool>(models)) << message(models.takeError());
  const arch::ArchModel &chip = (*models)[0]->w.chip;
  double ddr = double(chip.tierBytesPerSocket(arch::MemoryTier::DDR));
  (*models)[0]->ddrBytes = ddr * 0.6;
  (*models)[1]->ddrBytes = ddr * 0.6; // together 120% of DDR
  CacheOptions cache;
  cache.policy = CachePolicy::OnDemand;
  llvm::Error e = checkPlacement(*models, chip, cache);
  ASSERT_TRUE(static_cast<bool>(e));
  EXPECT_NE(message(std::move(e)).find("DDR binds"), std::string::npos);
  EXPECT_EQ(cache.hbmBytes,
            double(chip.tierBytesPerSocket(arch::MemoryTier::HBM)));
}

// Costs.cpp, Loop.cpp, ServeReport.cpp: the phases in turn on one model.

TEST(ServePhases, CostsLoopAndOutcomeOfASmallDeployment) {
  auto models = prepareModels({deployed("llama-3.2-1b", 1024, 2)});
  ASSERT_TRUE(static_cast<bool>(models)) << message(models.takeError());
  ServeOptions so;
  auto cache = resolveCache(so, false);
  ASSERT_TRUE(static_cast<bool>(cache));
  Load load;
  load.source = "hand";
  load.requests = {request(0, 100, 8), request(0.001, 200, 8),
                   request(0.002, 100, 8)};
  for (size_t i = 0; i < load.requests.size(); ++i)
    load.requests[i].id = static_cast<int64_t>(i);
  ASSERT_EQ(scanned(load, *models), "");
  auto compiled = buildGraphs(*models, CompileOptions(), Schedule::PrefillFirst,
                              BatchSet());
  ASSERT_TRUE(static_cast<bool>(compiled)) << message(compiled.takeError());
  const Prepared &m = *(*models)[0];
  // Prefill buckets 128 and 256; decode 128, 256 (up to 208 tokens) and
  // the full 1024.
  ASSERT_EQ(m.programs.size(), 5u);
  const arch::ArchModel &chip = m.w.chip;
  ASSERT_FALSE(checkPlacement(*models, chip, *cache));
  auto simulated = measureCosts(*models, chip, SimulateOptions(), *cache,
                                Schedule::PrefillFirst);
  ASSERT_TRUE(static_cast<bool>(simulated)) << message(simulated.takeError());
  const CostTable &costs = m.deployed.costs;
  EXPECT_EQ(costs.prefillBuckets, (std::vector<int64_t>{128, 256}));
  EXPECT_EQ(costs.decodeBuckets, (std::vector<int64_t>{128, 256, 1024}));
  // A longer prompt never costs less. (Decode steps of a 1B model at these
  // contexts are bound by the weights: their costs differ by under 1%.)
  EXPECT_GT(costs.prefillS[0], 0);
  EXPECT_GE(costs.prefillS[1], costs.prefillS[0]);
  EXPECT_NEAR(costs.decodeStepS[2], costs.decodeStepS[0],
              0.01 * costs.decodeStepS[0]);
  EXPECT_EQ(m.cfg().slots, 2);
  EXPECT_EQ(m.cfg().kvAllocatedBytes, double(m.full().kvBytes));
  auto served = runLoop(load, *models, chip, *cache, so);
  ASSERT_TRUE(static_cast<bool>(served)) << message(served.takeError());
  EXPECT_EQ(served->latencies.ttft.count(), 3);
  EXPECT_EQ(served->outputTokens, 24);
  ServeOutcome out = summarizeOutcome(*served, load, *models, chip, *cache, so,
                                      WallTimes(), GraphChoice());
  EXPECT_EQ(out.requests, 3);
  EXPECT_EQ(out.slots, 2);
  EXPECT_EQ(out.graphs, 5);
  EXPECT_EQ(out.model, "llama-3.2-1b");
  EXPECT_DOUBLE_EQ(out.throughputTokensPerS, 24 / served->makespanS);
  EXPECT_GT(out.ttft.p50, 0);
  EXPECT_EQ(serveOptionsText(out, so, *cache, false),
            "schedule=prefill-first prefill-chunk=auto overlong=error rate=1 "
            "requests=100 "
            "seed=1 prompt-mean=4096 output-mean=512 length-spread=0.5 "
            "load-period=0 load-amplitude=0.8 duration=0");
}

TEST(ServeReport, ThinKeepsEveryKthAndEveryChangeOfSlots) {
  // 50 samples thinned to about 10: every 5th, the last, and each sample
  // whose active-slot count differs from the one before (at 7 and 8).
  std::vector<Sample> samples(50);
  for (size_t i = 0; i < samples.size(); ++i)
    samples[i].activeSlots = i == 7 ? 1 : 0;
  std::vector<const Sample *> kept = thin(samples, 10);
  std::vector<size_t> at;
  for (const Sample *s : kept)
    at.push_back(static_cast<size_t>(s - samples.data()));
  EXPECT_EQ(at, (std::vector<size_t>{0, 5, 7, 8, 10, 15, 20, 25, 30, 35, 40, 45,
                                     49}));
  EXPECT_EQ(thin(samples, 100).size(), 50u); // few: all
}
