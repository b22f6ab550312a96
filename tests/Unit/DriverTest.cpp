//===- DriverTest.cpp - The driver library without the command line -------===//
//
// Sweep grids, manifests and how a sweep may continue; the CSV rows; serving
// buckets; memory traces read back; the largest batch. Tests that simulate
// run one SystemC elaboration each (ctest runs every TEST in its own
// process).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Driver/Compile.h"
#include "snapflow/Driver/Context.h"
#include "snapflow/Driver/Deployment.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Driver/MemoryTrace.h"
#include "snapflow/Driver/Serve.h"
#include "snapflow/Driver/Simulate.h"
#include "snapflow/Driver/Sweep.h"
#include "snapflow/Sim/Core/ProgramIO.h"
#include "snapflow/Sim/Stats/ReportSchema.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <fstream>
#include <limits>
#include <map>
#include <set>

using namespace snapflow;
using namespace snapflow::driver;

// libsystemc defines main() and calls sc_main; gtest_main has its own main,
// so this is never called, but the link needs it (see TOOLCHAIN.md).
extern "C" int sc_main(int, char **) { return 0; }

namespace {

/// A temporary file with `text`, removed at scope exit.
struct TempFile {
  llvm::SmallString<128> path;
  explicit TempFile(llvm::StringRef text, llvm::StringRef suffix = "txt") {
    int fd;
    EXPECT_FALSE(
        llvm::sys::fs::createTemporaryFile("driver-test", suffix, fd, path));
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << text;
  }
  ~TempFile() { (void)llvm::sys::fs::remove(path); }
};

std::string message(llvm::Error e) { return llvm::toString(std::move(e)); }

SweepOptions smallGrid() {
  SweepOptions o;
  o.models = "llama-3.2-1b";
  o.chips = "sn40l";
  o.contexts = "1k,2k";
  o.batches = "1,max";
  o.kv = "full,snapstream:budget=256,sinks=4";
  return o;
}

SweepManifest manifestOf(const SweepOptions &o) {
  auto grid = SweepGrid::parse(o);
  EXPECT_TRUE(static_cast<bool>(grid)) << message(grid.takeError());
  SweepManifest m;
  m.grid = *grid;
  m.steps = o.steps;
  m.build = "0.9.0 (test)";
  m.chips = {{"sn40l", "00000000000000aa"}};
  m.models = {{"llama-3.2-1b", "00000000000000bb"}};
  return m;
}

//===----------------------------------------------------------------------===//
// Grids
//===----------------------------------------------------------------------===//

TEST(SweepGrid, PointsAreTheProductInGridOrder) {
  auto grid = SweepGrid::parse(smallGrid());
  ASSERT_TRUE(static_cast<bool>(grid)) << message(grid.takeError());
  // `sinks=4` continues the policy before it: two policies, not three.
  ASSERT_EQ(grid->kv.size(), 2u);
  EXPECT_EQ(grid->kv[1], "snapstream:budget=256,sinks=4");
  EXPECT_EQ(grid->contexts, (std::vector<int64_t>{1024, 2048}));
  std::vector<SweepPoint> points = grid->points();
  ASSERT_EQ(points.size(), 2u * 2u * 2u);
  // Context outermost of the varying axes, then batch, then kv.
  EXPECT_EQ(points[0].context, 1024);
  EXPECT_EQ(points[0].batch.value, 1);
  EXPECT_EQ(points[0].kv, "full");
  EXPECT_EQ(points[1].kv, "snapstream:budget=256,sinks=4");
  EXPECT_TRUE(points[2].batch.isMax());
  EXPECT_EQ(points[4].context, 2048);
  for (size_t i = 0; i < points.size(); ++i)
    EXPECT_EQ(points[i].index, static_cast<int64_t>(i));
  // Unset axes have their one default value.
  EXPECT_EQ(points[0].tp, 0);
  EXPECT_EQ(points[0].weightsDtype, std::nullopt);
  EXPECT_EQ(points[0].inputs()[9], ""); // weights_dtype: the checkpoint's
}

TEST(SweepGrid, RefusesBadValuesByAxis) {
  SweepOptions o = smallGrid();
  o.contexts = "1k,1024";
  EXPECT_EQ(message(SweepGrid::parse(o).takeError()),
            "--context: '1024' is given twice");
  o = smallGrid();
  o.batches = "0";
  EXPECT_NE(message(SweepGrid::parse(o).takeError()).find("--batch"),
            std::string::npos);
  o = smallGrid();
  o.kv = "nosuch";
  EXPECT_NE(message(SweepGrid::parse(o).takeError()).find("nosuch"),
            std::string::npos);
  o = smallGrid();
  o.contexts = "99999999999999999k";
  EXPECT_NE(message(SweepGrid::parse(o).takeError()).find("64-bit"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Manifests and continuing a sweep
//===----------------------------------------------------------------------===//

TEST(SweepManifest, RoundTripsThroughItsFile) {
  SweepManifest m = manifestOf(smallGrid());
  m.shardIndex = 1;
  m.shardCount = 3;
  TempFile file("", "json");
  ASSERT_FALSE(static_cast<bool>(m.write(file.path)));
  auto back = SweepManifest::read(file.path);
  ASSERT_TRUE(static_cast<bool>(back)) << message(back.takeError());
  EXPECT_EQ(back->toJSON(), m.toJSON());
}

// A serving sweep records its serving flags; a manifest without them (a
// decode sweep, or one written before serving sweeps) reads as decode, and
// continuing with other flags, or the other kind, is refused naming both.
TEST(SweepManifest, ServingFlagsAreRecordedAndCompared) {
  SweepManifest m = manifestOf(smallGrid());
  m.serve = "--rate=2 --slo-ttft=1";
  TempFile file("", "json");
  ASSERT_FALSE(static_cast<bool>(m.write(file.path)));
  auto back = SweepManifest::read(file.path);
  ASSERT_TRUE(static_cast<bool>(back)) << message(back.takeError());
  EXPECT_EQ(back->serve, m.serve);
  EXPECT_FALSE(static_cast<bool>(checkContinuation(*back, m, false)));
  SweepManifest other = m;
  other.serve = "--rate=3 --slo-ttft=1";
  EXPECT_EQ(message(checkContinuation(m, other, false)),
            "--resume: the sweep served with '--rate=2 --slo-ttft=1', not "
            "serving with '--rate=3 --slo-ttft=1'");
  SweepManifest decode = manifestOf(smallGrid());
  EXPECT_EQ(message(checkContinuation(decode, m, false)),
            "--resume: the sweep ran decode steps, not serving with "
            "'--rate=2 --slo-ttft=1'");
}

// A manifest written before the kv_format and cla axes existed reads as
// having swept their defaults, so such a sweep still compares equal to a
// command that gives neither (and refuses one that does, by flag).
TEST(SweepManifest, OlderGridsSweptTheDefaultFormatAndSharing) {
  SweepManifest m = manifestOf(smallGrid());
  llvm::json::Value v = m.toJSON();
  llvm::json::Object *grid = v.getAsObject()->getObject("grid");
  grid->erase("kv_format");
  grid->erase("cla");
  TempFile file(llvm::formatv("{0:2}", v).str(), "json");
  auto back = SweepManifest::read(file.path);
  ASSERT_TRUE(static_cast<bool>(back)) << message(back.takeError());
  EXPECT_EQ(back->grid.kvFormats,
            std::vector<std::optional<std::string>>{std::nullopt});
  EXPECT_EQ(back->grid.clas, std::vector<std::optional<int64_t>>{std::nullopt});
  EXPECT_FALSE(static_cast<bool>(checkContinuation(*back, m, false)));
  SweepOptions withFormats = smallGrid();
  withFormats.kvFormats = "bf16,kivi2";
  EXPECT_NE(message(checkContinuation(*back, manifestOf(withFormats), false))
                .find("--kv-format"),
            std::string::npos);
}

// KV formats (a key=value item continues the format before it) and CLA
// share factors vary right after the policy.
TEST(SweepGrid, FormatsAndSharingFollowThePolicy) {
  SweepOptions o = smallGrid();
  o.kv = "full";
  o.contexts = "1k";
  o.batches = "1";
  o.kvFormats = "bf16,kivi:bits=2,group=64";
  o.clas = "1,2";
  auto grid = SweepGrid::parse(o);
  ASSERT_TRUE(static_cast<bool>(grid)) << message(grid.takeError());
  ASSERT_EQ(grid->kvFormats, (std::vector<std::optional<std::string>>{
                                 "bf16", "kivi:bits=2,group=64"}));
  std::vector<SweepPoint> points = grid->points();
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[1].kvFormat, "bf16");
  EXPECT_EQ(points[1].cla, 2);
  EXPECT_EQ(points[2].kvFormat, "kivi:bits=2,group=64");
  EXPECT_EQ(points[2].cla, 1);
  // Llama-3.2-1B has 16 layers: a share factor of 17 names the axis.
  o.clas = "17";
  EXPECT_NE(message(SweepGrid::parse(o).takeError()).find("--cla"),
            std::string::npos);
  o.clas = "1";
  o.kvFormats = "kivi:bits=3";
  EXPECT_NE(message(SweepGrid::parse(o).takeError()).find("bits"),
            std::string::npos);
}

TEST(SweepManifest, MalformedFilesNameTheKey) {
  TempFile file(R"({"snapflow": "x", "steps": 2,
                  "shard": {"index": 0, "count": 1},
                  "grid": {"model": ["m"], "chip": "sn40l"}})",
                "json");
  std::string e = message(SweepManifest::read(file.path).takeError());
  EXPECT_NE(e.find("'grid.chip' is missing or malformed"), std::string::npos)
      << e;
}

TEST(SweepContinuation, ResumeNeedsTheSameGrid) {
  SweepManifest old = manifestOf(smallGrid());
  EXPECT_FALSE(static_cast<bool>(checkContinuation(old, old, false)));
  SweepOptions more = smallGrid();
  more.contexts = "512,1k,2k";
  SweepManifest now = manifestOf(more);
  std::string e = message(checkContinuation(old, now, /*extend=*/false));
  EXPECT_EQ(e, "--resume: the grid differs in --context (the sweep has "
               "1024,2048, this command 512,1024,2048). Rerun with the "
               "sweep's values, or use --extend to add values and run "
               "exactly the missing points");
}

TEST(SweepContinuation, ExtendKeepsEveryOldValue) {
  SweepManifest old = manifestOf(smallGrid());
  SweepOptions more = smallGrid();
  more.contexts = "512,1k,2k";
  more.kv = "snapstream:ratio=4,full,snapstream:budget=256,sinks=4";
  EXPECT_FALSE(
      static_cast<bool>(checkContinuation(old, manifestOf(more), true)));
  SweepOptions fewer = smallGrid();
  fewer.batches = "1";
  std::string e = message(checkContinuation(old, manifestOf(fewer), true));
  EXPECT_EQ(e, "--extend: --batch drops max (the sweep has 1,max, this "
               "command 1); an extended grid keeps every value the sweep ran");
}

TEST(SweepContinuation, BuildStepsShardAndInputsMustMatch) {
  SweepManifest old = manifestOf(smallGrid());
  SweepManifest now = old;
  now.build = "0.9.1 (other)";
  EXPECT_NE(message(checkContinuation(old, now, false))
                .find("the sweep was run by snapflow 0.9.0 (test), this is "
                      "0.9.1 (other)"),
            std::string::npos);
  now = old;
  now.steps = 3;
  EXPECT_EQ(message(checkContinuation(old, now, true)),
            "--extend: the sweep ran --steps 16, not 3");
  now = old;
  now.chips["sn40l"] = "00000000000000cc";
  EXPECT_NE(message(checkContinuation(old, now, false))
                .find("chip 'sn40l' changed since the sweep ran"),
            std::string::npos);
  now = old;
  now.models["llama-3.2-1b"] = "00000000000000cc";
  EXPECT_NE(message(checkContinuation(old, now, false))
                .find("model 'llama-3.2-1b' changed"),
            std::string::npos);
  now = old;
  now.shardCount = 2;
  EXPECT_EQ(message(checkContinuation(old, now, false)),
            "--resume: the directory holds shard 0/1, not 0/2");
  // A larger grid renumbers points, so shards cannot be extended.
  old.shardCount = now.shardCount = 2;
  EXPECT_NE(message(checkContinuation(old, now, true)).find("--shard"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Rows
//===----------------------------------------------------------------------===//

TEST(SweepRows, ColumnsAreInputsStatusAndEveryAlwaysKey) {
  const std::vector<std::string> &c = sweepColumns();
  ASSERT_GE(c.size(), 19u);
  EXPECT_EQ(c[0], "index");
  EXPECT_EQ(c[6], "kv_format");
  EXPECT_EQ(c[7], "cla");
  EXPECT_EQ(c[15], "prefill_chunk");
  EXPECT_EQ(c[16], "set");
  EXPECT_EQ(c[17], "status");
  EXPECT_EQ(c[18], "reason");
  std::set<std::string> columns(c.begin(), c.end());
  for (const sim::ReportKey &k : sim::reportSchema())
    EXPECT_EQ(columns.count(std::string("report.") + k.key),
              k.presence == sim::ReportPresence::Always && !k.list ? 1u : 0u)
        << k.key;
}

TEST(SweepRows, ACutLastRowIsDroppedAndAMalformedOneRefused) {
  std::string header;
  for (const std::string &c : sweepColumns())
    header += (header.empty() ? "" : ",") + c;
  auto row = [&](int index, const char *context) {
    std::string r =
        std::to_string(index) + ",m,c," + context + ",1,full,0,,,,,,,,ok,";
    r += std::string(sweepColumns().size() - 16, ',');
    return r;
  };
  TempFile cut(header + "\n" + row(0, "1024") + "\n" + row(1, "2048") + "\n" +
               "2,m,c,40");
  auto rows = readSweepRows(cut.path);
  ASSERT_TRUE(static_cast<bool>(rows)) << message(rows.takeError());
  EXPECT_EQ(rows->size(), 2u);
  TempFile bad(header + "\n" + row(0, "1024") + "\n2,m,c\n" + row(1, "2048") +
               "\n");
  std::string e = message(readSweepRows(bad.path).takeError());
  EXPECT_NE(e.find(":3: a malformed row"), std::string::npos) << e;
  TempFile twice(header + "\n" + row(0, "1024") + "\n" + row(5, "1024") + "\n");
  e = message(readSweepRows(twice.path).takeError());
  EXPECT_NE(e.find(":3: the point of this row is already on an earlier line"),
            std::string::npos)
      << e;
  TempFile foreign("index,model\n0,m\n");
  e = message(readSweepRows(foreign.path).takeError());
  EXPECT_NE(e.find("its columns are not this snapflow's"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Serving buckets
//===----------------------------------------------------------------------===//

// The deployment file docs/Serving.md shows is one the build reads, with
// each model's keys as the page says (its example once named a KV format
// the build refuses). Its config, `configs/my-model.json`, is a shipped
// config found beside the file.
TEST(Deployment, TheDocsExampleReads) {
  std::ifstream in(std::string(SNAPFLOW_SOURCE_DIR) + "/docs/Serving.md");
  std::string page((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  size_t section = page.find("### Deployment files");
  ASSERT_NE(section, std::string::npos);
  size_t begin = page.find("```yaml\n", section);
  ASSERT_NE(begin, std::string::npos);
  begin += 8;
  std::string text = page.substr(begin, page.find("```", begin) - begin);
  size_t config = text.find("configs/my-model.json");
  ASSERT_NE(config, std::string::npos) << text;
  text.replace(config, 21, "configs/llama-3.2-1b.json");
  WorkloadOptions shared;
  shared.chip = "sn40l-16";
  shared.context = 131072;
  auto models = parseDeployment(
      text, std::string(SNAPFLOW_SOURCE_DIR) + "/models/four.yaml", shared,
      /*maxBatch=*/false);
  ASSERT_TRUE(static_cast<bool>(models)) << message(models.takeError());
  ASSERT_EQ(models->size(), 4u);
  EXPECT_EQ((*models)[0].options.model, "llama-3.1-70b");
  EXPECT_EQ((*models)[0].options.batch, 8);
  EXPECT_EQ((*models)[1].options.context, 32768);
  EXPECT_EQ((*models)[1].options.kv, "full");
  EXPECT_EQ((*models)[2].options.kvFormat, "fp8");
  EXPECT_EQ((*models)[2].options.context, 131072); // the command's
  EXPECT_TRUE((*models)[3].maxBatch);
}

TEST(Serve, BucketsArePowersOfTwoFrom128UpToTheCap) {
  EXPECT_EQ(bucketFor(1, 4096), 128);
  EXPECT_EQ(bucketFor(128, 4096), 128);
  EXPECT_EQ(bucketFor(129, 4096), 256);
  EXPECT_EQ(bucketFor(3000, 4096), 4096);
  EXPECT_EQ(bucketFor(5000, 4096), 4096);
  EXPECT_EQ(bucketFor(1000, 3000), 1024);
  EXPECT_EQ(bucketFor(2000, 3000), 2048);
  EXPECT_EQ(bucketFor(2500, 3000), 3000);
  // Near 64 bits the doubling stops at the cap instead of overflowing.
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(bucketFor(kMax, kMax), kMax);
  EXPECT_EQ(bucketFor(kMax - 1, kMax), kMax);
}

TEST(Serve, PercentilesOfKnownValues) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i)
    v.push_back(i);
  Percentiles p = summarize(v);
  EXPECT_DOUBLE_EQ(p.mean, 50.5);
  EXPECT_GE(p.p50, 50);
  EXPECT_LE(p.p50, 51);
  EXPECT_GE(p.p99, 99);
  Percentiles none = summarize(std::vector<double>{});
  EXPECT_EQ(none.mean, 0);
}

//===----------------------------------------------------------------------===//
// Memory traces
//===----------------------------------------------------------------------===//

TEST(MemoryTrace, PeakAndTimeWeightedMean) {
  // HBM holds 100 B for 10 us, then 300 B for 30 us (the last sample holds
  // until the trace ends at 40 us): mean = (100*10 + 300*30) / 40 = 250.
  TempFile trace(R"({"traceEvents": [
    {"name": "memory", "ph": "C", "ts": 0,
     "args": {"sram_bytes": 0, "hbm_bytes": 100, "ddr_bytes": 0, "kv_bytes": 50}},
    {"name": "memory", "ph": "C", "ts": 10,
     "args": {"sram_bytes": 0, "hbm_bytes": 300, "ddr_bytes": 0, "kv_bytes": 50}},
    {"name": "step", "ph": "X", "ts": 20, "dur": 20}],
   "snapflow": {"chip": "tiny",
     "capacity_bytes_per_socket": {"sram": 1, "hbm": 1000, "ddr": 2000},
     "tensors": [
       {"name": "w", "tier": "hbm", "bytes": 250, "program": "decode"},
       {"name": "w", "tier": "hbm", "bytes": 250, "program": "prefill"},
       {"name": "kv", "tier": "hbm", "bytes": 50, "kv": true,
        "program": "decode"}]}})",
                 "json");
  auto t = readMemoryTrace(trace.path);
  ASSERT_TRUE(static_cast<bool>(t)) << message(t.takeError());
  EXPECT_EQ(t->chip, "tiny");
  EXPECT_DOUBLE_EQ(t->spanUs(), 40);
  EXPECT_DOUBLE_EQ(t->peak[1], 300);
  EXPECT_DOUBLE_EQ(t->mean[1], 250);
  EXPECT_DOUBLE_EQ(t->mean[3], 50);
  EXPECT_DOUBLE_EQ(t->capacity[2], 2000);
  // The same tensor of two programs is one, naming both.
  ASSERT_EQ(t->tensors.size(), 2u);
  std::vector<const TraceTensor *> largest = t->largest(1);
  ASSERT_EQ(largest.size(), 1u);
  EXPECT_EQ(largest[0]->name, "w");
  EXPECT_EQ(largest[0]->programs,
            (std::vector<std::string>{"decode", "prefill"}));
}

TEST(MemoryTrace, ErrorsAreLocated) {
  TempFile notJson("{\"traceEvents\": [\n  {,}\n]}", "json");
  std::string e = message(readMemoryTrace(notJson.path).takeError());
  EXPECT_NE(e.find(":2:4: error: not JSON"), std::string::npos) << e;
  TempFile noArgs(R"({"traceEvents": [{"name": "memory", "ph": "C", "ts": 0,
                     "args": {"sram_bytes": 0}}]})",
                  "json");
  e = message(readMemoryTrace(noArgs.path).takeError());
  EXPECT_NE(e.find("traceEvents[0]: memory counter without args.hbm_bytes"),
            std::string::npos)
      << e;
}

//===----------------------------------------------------------------------===//
// Compiling: the policy travels as an attribute
//===----------------------------------------------------------------------===//

TEST(Compile, CompilesThePolicyAttributeTheWorkloadCarries) {
  // resolveWorkload parses --kv once into driverContext(); every compile
  // takes that attribute as it is. A policy put in its place by hand is
  // the one compiled, whatever the --kv text says: nothing re-parses it.
  WorkloadOptions o;
  o.model = "llama-3.2-1b";
  o.chip = "sn40l";
  o.context = 8192;
  o.batch = 1;
  o.kv = "full";
  auto w = resolveWorkload(o, /*needChip=*/true);
  ASSERT_TRUE(static_cast<bool>(w)) << message(w.takeError());
  EXPECT_EQ(w->kvLabel(), "full");
  EXPECT_EQ(w->kvPolicy.getContext(), &driverContext());
  auto other =
      kv::resolvePolicy(&driverContext(), "streaming:sinks=4,window=1020",
                        w->config.cachePositions(o.context));
  ASSERT_TRUE(static_cast<bool>(other)) << message(other.takeError());
  w->kvPolicy = *other;
  auto module = compileModel(*w, o, CompileOptions(), 1, arch::Phase::Decode);
  ASSERT_TRUE(static_cast<bool>(module)) << message(module.takeError());
  EXPECT_EQ(kv::getApplied(**module).first, "streaming:sinks=4,window=1020");
  // A serving bucket within the budget compiles full; beyond it, the
  // workload's policy.
  o.kv = "streaming:sinks=4,window=1020";
  auto streaming = resolveWorkload(o, /*needChip=*/true);
  ASSERT_TRUE(static_cast<bool>(streaming)) << message(streaming.takeError());
  EXPECT_EQ(streaming->policyFor(1024),
            kv::FullPolicyAttr::get(&driverContext()));
  EXPECT_EQ(streaming->policyFor(8192), streaming->kvPolicy);
}

//===----------------------------------------------------------------------===//
// Facts a process passes back to the one that forked it
//===----------------------------------------------------------------------===//

TEST(WorkloadFacts, ALearnedSplitCheckIsUsedAndNotPassedOn) {
  // The Python module's call server learns what each call's child computed
  // (the split checks: a model build each) so the next children skip it.
  // Here a learned fact says qwen3-8b splits over 4 sockets of sn40l-16 and
  // over no more: resolving it with no --tp takes TP 4 and says why in the
  // learned words, which no model build would give.
  auto config = models::ModelConfig::load("qwen3-8b");
  ASSERT_TRUE(static_cast<bool>(config)) << message(config.takeError());
  std::string fp = config->fingerprint();
  std::string facts = R"({"splits": [)";
  for (int tp = 16; tp >= 2; --tp)
    facts += (tp == 16 ? "" : ",") + std::string(R"({"model": ")") + fp +
             R"(", "tp": )" + std::to_string(tp) +
             R"(, "built": true, "why": ")" +
             (tp <= 4 ? "" : "learned: no split") + R"("})";
  facts += "]}";
  learnWorkloadFacts("{not json");                       // ignored
  learnWorkloadFacts(R"({"splits": [{"model": "x"}]})"); // ignored
  learnWorkloadFacts(facts);
  WorkloadOptions o;
  o.model = "qwen3-8b";
  o.chip = "sn40l-16";
  o.context = 4096;
  o.batch = 1;
  auto w = resolveWorkload(o, /*needChip=*/true);
  ASSERT_TRUE(static_cast<bool>(w)) << message(w.takeError());
  EXPECT_EQ(w->tp, 4);
  EXPECT_NE(w->tpNote.find("at 16: learned: no split"), std::string::npos)
      << w->tpNote;
  // What was learned is not passed on; what this process computed is.
  EXPECT_EQ(workloadFacts().find(fp), std::string::npos);
  o.model = "llama-3.2-1b";
  auto computed = resolveWorkload(o, /*needChip=*/true);
  ASSERT_TRUE(static_cast<bool>(computed)) << message(computed.takeError());
  std::string out = workloadFacts();
  EXPECT_NE(out.find(computed->config.fingerprint()), std::string::npos) << out;
  EXPECT_NE(out.find(R"("tp":16)"), std::string::npos) << out;
}

//===----------------------------------------------------------------------===//
// Compiling: the largest batch
//===----------------------------------------------------------------------===//

/// Batch 1 of `model` on `chip` with `context` tokens, the whole KV cache.
static WorkloadOptions fullCache(const char *model, const char *chip,
                                 int64_t context) {
  WorkloadOptions o;
  o.model = model;
  o.chip = chip;
  o.context = context;
  o.batch = 1;
  o.kv = "full";
  return o;
}

TEST(Compile, MaxBatchFitsAndOneMoreDoesNot) {
  WorkloadOptions o = fullCache("llama-3.1-8b", "sn40l", 131072);
  auto w = resolveWorkload(o, /*needChip=*/true);
  ASSERT_TRUE(static_cast<bool>(w)) << message(w.takeError());
  CompileOptions c;
  auto largest = findMaxBatch(*w, o, c);
  ASSERT_TRUE(static_cast<bool>(largest)) << message(largest.takeError());
  ASSERT_GE(*largest, 1);
  auto fits = compileProgram(*w, o, c, *largest, false);
  EXPECT_TRUE(static_cast<bool>(fits)) << message(fits.takeError());
  auto over = compileProgram(*w, o, c, *largest + 1, false);
  ASSERT_FALSE(static_cast<bool>(over));
  llvm::Error e = over.takeError();
  EXPECT_TRUE(e.isA<ProgramFailure>());
  llvm::consumeError(std::move(e));
}

// A program is compiled once a process for the same inputs: the search for
// the largest batch compiles the answer, and the run that follows gets that
// program again; a prefill is shared by every batch of a workload; another
// batch, another context or another chip value is a new program.
TEST(Compile, AProgramIsCompiledOncePerInputs) {
  WorkloadOptions o = fullCache("llama-3.2-1b", "tiny", 2048);
  auto w = resolveWorkload(o, /*needChip=*/true);
  ASSERT_TRUE(static_cast<bool>(w)) << message(w.takeError());
  CompileOptions c;
  auto largest = findMaxBatch(*w, o, c);
  ASSERT_TRUE(static_cast<bool>(largest)) << message(largest.takeError());
  int64_t before = programsCompiled();
  auto found = compileProgram(*w, o, c, *largest, false);
  ASSERT_TRUE(static_cast<bool>(found)) << message(found.takeError());
  EXPECT_EQ(programsCompiled(), before);
  EXPECT_EQ(found->batch, *largest);
  auto prefill = compileProgram(*w, o, c, 1, true);
  ASSERT_TRUE(static_cast<bool>(prefill)) << message(prefill.takeError());
  EXPECT_EQ(programsCompiled(), before + 1);
  auto again = compileProgram(*w, o, c, 1, true);
  ASSERT_TRUE(static_cast<bool>(again)) << message(again.takeError());
  EXPECT_EQ(programsCompiled(), before + 1);
  EXPECT_EQ(sim::serializeProgram(*again), sim::serializeProgram(*prefill));
  // Each of these changes what is compiled.
  auto other = compileProgram(*w, o, c, 1, false);
  ASSERT_TRUE(static_cast<bool>(other)) << message(other.takeError());
  EXPECT_EQ(programsCompiled(), before + 2);
  WorkloadOptions longer = o;
  longer.context = 1024;
  auto shorter = resolveWorkload(longer, /*needChip=*/true);
  ASSERT_TRUE(static_cast<bool>(shorter)) << message(shorter.takeError());
  ASSERT_TRUE(static_cast<bool>(compileProgram(*shorter, longer, c, 1, false)));
  EXPECT_EQ(programsCompiled(), before + 3);
  WorkloadOptions slower = o;
  slower.set = {"socket.hbm_bytes_per_s=8e11"};
  auto slow = resolveWorkload(slower, /*needChip=*/true);
  ASSERT_TRUE(static_cast<bool>(slow)) << message(slow.takeError());
  auto onSlow = compileProgram(*slow, slower, c, 1, false);
  ASSERT_TRUE(static_cast<bool>(onSlow)) << message(onSlow.takeError());
  EXPECT_EQ(programsCompiled(), before + 4);
  EXPECT_NE(onSlow->target.fingerprint(), other->target.fingerprint());
}

//===----------------------------------------------------------------------===//
// The serialized program a sweep hands to a point's process
//===----------------------------------------------------------------------===//

/// The decode program of a model on a chip, as the sweep compiles it.
llvm::Expected<sim::Program> compileDecode(const char *model, const char *chip,
                                           int64_t context, int64_t batch,
                                           const CompileOptions &c = {}) {
  WorkloadOptions o;
  o.model = model;
  o.chip = chip;
  o.context = context;
  o.batch = batch;
  auto w = resolveWorkload(o, true);
  if (!w)
    return w.takeError();
  return compileProgram(*w, o, c, batch, false);
}

TEST(ProgramIO, RoundTripsACompiledProgram) {
  // DeepSeek-R1 over 16 sockets: loads, stores, stages, collectives, MTP.
  CompileOptions c;
  c.mtp = 1;
  auto p = compileDecode("deepseek-r1", "sn40l-16", 8192, 4, c);
  ASSERT_TRUE(static_cast<bool>(p)) << message(p.takeError());
  std::string bytes = sim::serializeProgram(*p);
  auto back = sim::deserializeProgram(bytes);
  ASSERT_TRUE(static_cast<bool>(back)) << message(back.takeError());
  // Written again, the same bytes: nothing was lost or rounded.
  EXPECT_EQ(sim::serializeProgram(*back), bytes);
  EXPECT_EQ(back->target.fingerprint(), p->target.fingerprint());
  EXPECT_EQ(back->target.getName(), "sn40l-16");
  EXPECT_EQ(back->tokensPerStep, p->tokensPerStep);
  EXPECT_GT(back->tokensPerStep, 1.0);
  EXPECT_EQ(back->kvUpkeepFlops, p->kvUpkeepFlops);
  EXPECT_EQ(back->kvUpkeepBytes, p->kvUpkeepBytes);
  // What made it travels too: a sweep's row names the model and policy.
  EXPECT_EQ(back->provenance, p->provenance);
  std::map<std::string, std::string> record(p->provenance.begin(),
                                            p->provenance.end());
  EXPECT_EQ(record["model"], "deepseek-r1");
  EXPECT_EQ(record["kv"].rfind("snapstream:budget=2048,", 0), 0u)
      << record["kv"];
  EXPECT_NE(record["compile_options"].find("mla-cache=replicate"),
            std::string::npos);
  ASSERT_EQ(back->sections.size(), p->sections.size());
  std::set<sim::NodeKind> kinds;
  std::set<std::string> loops;
  for (size_t i = 0; i < p->sections.size(); ++i) {
    // An MoE layer loop is two kernels: the loop each belongs to travels.
    EXPECT_EQ(back->sections[i].loop, p->sections[i].loop);
    if (!p->sections[i].loop.empty())
      loops.insert(p->sections[i].name);
    ASSERT_EQ(back->sections[i].nodes.size(), p->sections[i].nodes.size());
    for (size_t j = 0; j < p->sections[i].nodes.size(); ++j) {
      const sim::Node &a = p->sections[i].nodes[j],
                      &b = back->sections[i].nodes[j];
      EXPECT_EQ(a.label, b.label);
      EXPECT_EQ(a.outputTiles, b.outputTiles);
      EXPECT_EQ(a.flopsPerTile, b.flopsPerTile);
      kinds.insert(a.kind);
    }
  }
  for (sim::NodeKind k : {sim::NodeKind::Load, sim::NodeKind::Store,
                          sim::NodeKind::Stage, sim::NodeKind::Collective})
    EXPECT_TRUE(kinds.count(k)) << static_cast<int>(k);
  EXPECT_TRUE(loops.count("layers_3_60_experts"));
}

TEST(ProgramIO, CorruptBytesNameTheField) {
  auto p = compileDecode("llama-3.2-1b", "sn40l", 1024, 1);
  ASSERT_TRUE(static_cast<bool>(p)) << message(p.takeError());
  std::string bytes = sim::serializeProgram(*p);
  // Cut short: the last field is missing.
  std::string e = message(
      sim::deserializeProgram(llvm::StringRef(bytes).drop_back(2)).takeError());
  EXPECT_NE(e.find("program bytes: malformed provenance value at byte"),
            std::string::npos)
      << e;
  e = message(sim::deserializeProgram("snapflow-program 9\n").takeError());
  EXPECT_EQ(e, "program bytes: malformed the header at byte 0");
  // A chip value out of its rule is refused as a chip file's would be.
  std::string badChip = bytes;
  size_t at = badChip.find("socket.clock_hz");
  ASSERT_NE(at, std::string::npos);
  size_t value = badChip.find(':', at + 16) + 1; // the value's text
  badChip.replace(value, 1, "-");
  e = message(sim::deserializeProgram(badChip).takeError());
  EXPECT_NE(e.find("clock_hz"), std::string::npos) << e;
}

//===----------------------------------------------------------------------===//
// The report writes exactly its schema (one simulation per TEST)
//===----------------------------------------------------------------------===//

void flatten(const llvm::json::Object &o, const std::string &prefix,
             std::set<std::string> &out) {
  for (const auto &kv : o) {
    std::string key = prefix + kv.first.str();
    if (const llvm::json::Object *inner = kv.second.getAsObject())
      flatten(*inner, key + ".", out);
    else
      out.insert(key);
  }
}

/// Compiles llama-3.2-1b for sn40l (decode, and prefill when asked),
/// simulates on `chip` and checks the report's keys against the schema:
/// every key written is declared, and every declared key whose presence
/// `present` accepts is written.
void checkReport(bool prefillMain, const char *chip,
                 std::set<sim::ReportPresence> present) {
  WorkloadOptions o;
  o.model = "llama-3.2-1b";
  o.chip = "sn40l";
  o.context = 1024;
  o.batch = 2;
  o.kv = "full";
  auto w = resolveWorkload(o, true);
  ASSERT_TRUE(static_cast<bool>(w)) << message(w.takeError());
  CompileOptions c;
  auto decode = compileProgram(*w, o, c, 2, prefillMain);
  ASSERT_TRUE(static_cast<bool>(decode)) << message(decode.takeError());
  auto prefill = compileProgram(*w, o, c, 1, true);
  ASSERT_TRUE(static_cast<bool>(prefill)) << message(prefill.takeError());
  auto target = arch::ArchModel::load(chip);
  ASSERT_TRUE(static_cast<bool>(target)) << message(target.takeError());
  SimulateOptions s;
  auto report =
      simulatePrograms(*decode, prefillMain ? nullptr : &*prefill, *target, s);
  ASSERT_TRUE(static_cast<bool>(report)) << message(report.takeError());
  std::set<std::string> written;
  flatten(*report, "", written);
  std::set<std::string> declared;
  for (const sim::ReportKey &k : sim::reportSchema()) {
    declared.insert(k.key);
    EXPECT_EQ(written.count(k.key), present.count(k.presence))
        << k.key << (written.count(k.key) ? " is written" : " is missing");
  }
  for (const std::string &k : written)
    EXPECT_TRUE(declared.count(k)) << k << " is not in reportSchema()";
}

TEST(ReportSchema, ADecodeRunWritesTheAlwaysKeys) {
  // A run simulates the TTFT's prefill too.
  checkReport(false, "sn40l",
              {sim::ReportPresence::Always, sim::ReportPresence::WithPrefill});
}

TEST(ReportSchema, APrefillProgramAddsItsKeys) {
  checkReport(true, "sn40l",
              {sim::ReportPresence::Always, sim::ReportPresence::Prefill,
               sim::ReportPresence::WithPrefill});
}

TEST(ReportSchema, AWhatIfNamesBothChips) {
  checkReport(false, "sn40l-16",
              {sim::ReportPresence::Always, sim::ReportPresence::WhatIf,
               sim::ReportPresence::WithPrefill});
}

} // namespace
