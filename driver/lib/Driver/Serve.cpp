//===- Serve.cpp - A serving deployment ------------------------------------===//
//
// The deployment of `snapflow run --serve` (Serve.h): requests, shape
// buckets and their graphs, one SystemC run for the step costs, the serving
// loop, and the report, trace and CSV.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Driver/Serve.h"

#include "snapflow/Driver/Compile.h"
#include "snapflow/Driver/Csv.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Sim/Core/Simulator.h"
#include "snapflow/Sim/Loader/Loader.h"
#include "snapflow/Sim/Trace/Trace.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"


#include <chrono>
#include <cmath>
#include <map>
#include <set>

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::sim::serving;
using llvm::Error;

namespace {

constexpr int64_t kMinBucket = 128;

/// The policy a graph for `tokens` tokens uses: every token while they fit
/// the budget, else the policy with its numbers fixed for the deployment
/// (its resolved label).
std::string policyFor(const Workload &w, int64_t tokens) {
  if (!w.kvCompressing || w.kvSlots >= tokens)
    return "full";
  return w.kvLabel;
}

} // namespace

int64_t snapflow::driver::bucketFor(int64_t tokens, int64_t cap) {
  int64_t b = kMinBucket;
  while (b < tokens && b < cap) {
    if (b > cap / 2) // the next doubling passes the cap (or 64 bits)
      return cap;
    b *= 2;
  }
  return std::min(b, cap);
}

Percentiles snapflow::driver::summarize(const std::vector<double> &v) {
  Percentiles p;
  p.p50 = percentile(v, 0.50);
  p.p90 = percentile(v, 0.90);
  p.p99 = percentile(v, 0.99);
  for (double x : v) {
    p.mean += x;
    p.max = std::max(p.max, x);
  }
  p.mean = v.empty() ? 0 : p.mean / double(v.size());
  return p;
}

Percentiles snapflow::driver::summarize(const Distribution &d) {
  return {d.percentile(0.50), d.percentile(0.90), d.percentile(0.99),
          d.mean(), d.max()};
}

namespace {
llvm::json::Object toJson(const Percentiles &p) {
  return llvm::json::Object{{"p50", p.p50},   {"p90", p.p90},
                            {"p99", p.p99},   {"mean", p.mean},
                            {"max", p.max}};
}

/// Resident bytes per tier of a program, and apart from them the bytes per
/// tier of its KV tensors (the cache and a policy's state, digests and DDR
/// backup), which are counted in proportion to the live tokens.
struct Residency {
  std::array<double, 3> bytes{};
  std::array<double, 3> kv{};
};
Residency residency(const sim::Program &p) {
  Residency r;
  for (const sim::Tensor &t : p.tensors)
    (t.isKV ? r.kv : r.bytes)[static_cast<int>(t.tier)] += double(t.bytes);
  return r;
}

/// Occupancy samples to write: all when few, else every k-th plus every
/// change of the active slots, so a long trace stays small.
std::vector<const Sample *> thin(const std::vector<Sample> &samples,
                                 size_t target = 20000) {
  std::vector<const Sample *> out;
  size_t k = std::max<size_t>(1, samples.size() / target);
  for (size_t i = 0; i < samples.size(); ++i)
    if (i % k == 0 || i + 1 == samples.size() ||
        (i > 0 && samples[i].activeSlots != samples[i - 1].activeSlots))
      out.push_back(&samples[i]);
  return out;
}

} // namespace

llvm::Expected<ServeOutcome>
snapflow::driver::serve(const WorkloadOptions &o, bool maxBatch,
                        const CompileOptions &c, const SimulateOptions &s,
                        const ServeOptions &so) {
  auto w = resolveWorkload(o, /*needChip=*/true);
  if (!w)
    return w.takeError();
  // The serving loop admits, pages and finishes sequences token by token;
  // a Block Transformer decodes whole blocks (docs/Models.md).
  if (w->config.isBlockTransformer())
    return makeError("--serve does not model the Block Transformer (" +
                     w->config.name +
                     ") yet: it decodes a block of tokens per step; use "
                     "snapflow run without --serve");
  // 1. Requests.
  std::vector<Request> requests;
  std::string source;
  if (!so.requestsPath.empty()) {
    if (so.generate)
      return makeError("--trace-requests and --rate/--requests exclude each "
                       "other");
    sim::serving::TraceInfo info;
    auto r = readRequests(so.requestsPath, so.traceFormat, &info);
    if (!r)
      return r.takeError();
    requests = std::move(*r);
    source = so.requestsPath;
    // Name the format read, and what of a public trace was left out.
    if (info.format != sim::serving::TraceFormat::Snapflow)
      source += llvm::formatv(" ({0} trace{1})",
                              sim::serving::traceFormatName(info.format),
                              info.skipped
                                  ? llvm::formatv(", {0} with 0 tokens "
                                                  "skipped",
                                                  info.skipped)
                                        .str()
                                  : std::string())
                    .str();
  } else {
    if (so.gen.rate <= 0 || !std::isfinite(so.gen.rate))
      return makeError(llvm::formatv("--rate must be > 0 requests/s, got {0}",
                                     so.gen.rate));
    if (so.gen.count < 1)
      return makeError(llvm::formatv("--requests must be >= 1, got {0}",
                                     so.gen.count));
    if (so.gen.promptMean < 1 || so.gen.outputMean < 1)
      return makeError("--prompt-tokens and --output-tokens must be >= 1");
    if (so.gen.spread < 0 || so.gen.spread > 1)
      return makeError(llvm::formatv("--length-spread must be in [0, 1], got "
                                     "{0}",
                                     so.gen.spread));
    requests = generateRequests(so.gen);
    std::string rate;
    llvm::raw_string_ostream(rate) << llvm::format("%g", so.gen.rate);
    source = llvm::formatv("generated: Poisson {0} requests/s, seed {1}", rate,
                           so.gen.seed);
  }
  ServeConfig cfg;
  cfg.maxContext = o.context;
  cfg.kvTokensPerSlot = std::min(w->kvSlots, o.context);
  if (Error e = validate(requests, cfg, source))
    return std::move(e);

  // Slots: --batch, or the most that fit at the full context.
  int64_t slots = o.batch;
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  if (maxBatch) {
    auto largest = findMaxBatch(context, *w, o, c);
    if (!largest)
      return largest.takeError();
    slots = *largest;
  }
  cfg.slots = slots;

  // 2. Buckets and their graphs.
  std::set<int64_t> prefillBuckets, decodeBuckets;
  int64_t lo = o.context, hi = 0;
  for (const Request &r : requests) {
    prefillBuckets.insert(bucketFor(r.promptTokens, o.context));
    lo = std::min(lo, r.promptTokens + 1);
    hi = std::max(hi, r.promptTokens + r.outputTokens);
  }
  for (int64_t b = bucketFor(lo, o.context);; b *= 2) {
    decodeBuckets.insert(std::min(b, o.context));
    if (b >= hi || b >= o.context)
      break;
  }
  // The full-context graph fixes the KV allocation and the resident tensors.
  decodeBuckets.insert(o.context);

  // The chunked schedule's prefill graphs run a chunk per step.
  const bool chunked = so.schedule == Schedule::Chunked;
  CompileOptions prefillOptions = c;
  if (chunked && c.prefillChunk == kPrefillChunkAuto)
    prefillOptions.prefillChunk = kScheduleChunk;

  auto start = std::chrono::steady_clock::now();
  std::vector<sim::Program> programs;
  std::vector<std::pair<bool, int64_t>> shapes; // (prefill, tokens)
  programs.reserve(prefillBuckets.size() + decodeBuckets.size());
  auto build = [&](bool prefill, int64_t tokens) -> Error {
    WorkloadOptions bo = o;
    bo.context = tokens;
    bo.kv = policyFor(*w, tokens);
    auto p = compileProgram(context, *w, bo, prefill ? prefillOptions : c,
                            prefill ? 1 : slots, prefill);
    if (!p) {
      std::string why = llvm::toString(p.takeError());
      return llvm::make_error<ProgramFailure>(llvm::formatv(
          "the {0} graph for {1} tokens (bucket of --serve) cannot run: {2}",
          prefill ? "prefill" : "decode", tokens, why));
    }
    if (Error e = checkFits(*p, w->chip))
      return e;
    programs.push_back(std::move(*p));
    shapes.push_back({prefill, tokens});
    return Error::success();
  };
  for (int64_t b : prefillBuckets)
    if (Error e = build(true, b))
      return std::move(e);
  for (int64_t b : decodeBuckets)
    if (Error e = build(false, b))
      return std::move(e);
  double compileS = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();

  // 3. One SystemC run for every shape.
  std::vector<sim::Job> jobs;
  for (size_t i = 0; i < programs.size(); ++i)
    jobs.push_back({&programs[i], shapes[i].first ? 1 : 2});
  sim::SimOptions simOptions;
  simOptions.fastForward = s.fastForward;
  simOptions.allSockets = s.allSockets;
  simOptions.trace = false;
  start = std::chrono::steady_clock::now();
  sim::SimResult sim = sim::simulate(jobs, w->chip, simOptions);
  double simS = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  if (sim.deadlocked)
    return llvm::make_error<ProgramFailure>("serving step costs: " +
                                            sim.deadlock);
  CostTable costs;
  for (size_t i = 0; i < programs.size(); ++i) {
    double seconds = sim.jobs[i].stepPs * 1e-12;
    if (shapes[i].first) {
      costs.prefillBuckets.push_back(shapes[i].second);
      costs.prefillS.push_back(seconds);
      std::vector<double> chunks;
      for (double ps : sim.jobs[i].chunkPs)
        chunks.push_back(ps * 1e-12);
      costs.prefillChunkS.push_back(std::move(chunks));
    } else {
      costs.decodeBuckets.push_back(shapes[i].second);
      costs.decodeStepS.push_back(seconds);
    }
  }
  const sim::Program &full = programs.back(); // decode at --context
  Residency res = residency(full);
  cfg.kvAllocatedBytes = double(full.kvBytes);
  // With MTP every decode graph verifies the same draft depth: its expected
  // accepted tokens per sequence and step.
  cfg.tokensPerStep = full.tokensPerStep;
  cfg.schedule = so.schedule;
  cfg.kvBytesPerToken =
      double(full.kvBytes) / double(slots * cfg.kvTokensPerSlot);

  // 4. The loop. Per-request results stream to --request-results as they
  // complete, into a temporary file renamed when the loop has finished, so
  // the file is whole or absent.
  std::unique_ptr<llvm::raw_fd_ostream> results;
  llvm::SmallString<256> resultsTemp;
  if (!so.resultsPath.empty()) {
    int fd;
    llvm::SmallString<256> model(so.resultsPath);
    model += ".tmp-%%%%%%";
    if (std::error_code ec =
            llvm::sys::fs::createUniqueFile(model, fd, resultsTemp))
      return makeError("--request-results: " + so.resultsPath + ": " +
                       ec.message());
    results = std::make_unique<llvm::raw_fd_ostream>(fd, /*shouldClose=*/true);
    *results << "id,slot,arrival_s,prompt_tokens,output_tokens,"
                "prefill_start_s,first_token_s,finish_s,ttft_s,tpot_s\n";
  }
  auto writeResult = [&](const RequestResult &q) {
    // Seconds in the shortest text that reads back to the same double.
    *results << q.id << ',' << q.slot << ',' << csv::number(q.arrivalS)
             << ',' << q.promptTokens << ',' << q.outputTokens << ','
             << csv::number(q.prefillStartS) << ','
             << csv::number(q.firstTokenS) << ',' << csv::number(q.finishS)
             << ',' << csv::number(q.ttftS()) << ','
             << csv::number(q.tpotS()) << '\n';
  };
  start = std::chrono::steady_clock::now();
  auto served = sim::serving::serve(
      requests, costs, cfg,
      results ? llvm::function_ref<void(const RequestResult &)>(writeResult)
              : nullptr);
  if (results) {
    results->close();
    bool failed = !served || results->has_error();
    if (results->has_error())
      results->clear_error();
    if (failed) {
      llvm::sys::fs::remove(resultsTemp);
      if (served)
        return makeError("--request-results: " + so.resultsPath +
                         ": write failed");
    } else if (std::error_code ec =
                   llvm::sys::fs::rename(resultsTemp, so.resultsPath)) {
      llvm::sys::fs::remove(resultsTemp);
      return makeError("--request-results: " + so.resultsPath + ": " +
                       ec.message());
    }
  }
  if (!served)
    return served.takeError();
  double loopS = std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - start)
                     .count();
  const ServeResult &r = *served;

  std::vector<double> ttft, tpot, e2e, wait;
  for (const RequestResult &q : r.requests) {
    ttft.push_back(q.ttftS());
    if (q.outputTokens > 1)
      tpot.push_back(q.tpotS());
    e2e.push_back(q.finishS - q.arrivalS);
    wait.push_back(q.prefillStartS - q.arrivalS);
  }
  Percentiles pTtft = summarize(ttft), pTpot = summarize(tpot),
              pE2e = summarize(e2e), pWait = summarize(wait);
  double kvPeak = r.kvPeakBytes, kvMean = r.kvMeanBytes;
  double throughput = r.makespanS > 0 ? double(r.outputTokens) / r.makespanS
                                      : 0;

  ServeOutcome out;
  out.model = w->config.name;
  out.chip = w->chip.getName();
  out.kv = o.kv;
  out.source = source;
  out.schedule = so.schedule;
  out.prefillChunk = prefillOptions.prefillChunk;
  out.tp = w->tp;
  out.slots = slots;
  out.context = o.context;
  out.requests = static_cast<int64_t>(requests.size());
  out.graphs = static_cast<int64_t>(programs.size());
  out.costs = costs;
  out.ttft = pTtft;
  out.tokensPerStep = cfg.tokensPerStep;
  out.tpot = pTpot;
  out.tbt = summarize(r.tokenGaps);
  out.e2e = pE2e;
  out.wait = pWait;
  out.throughputTokensPerS = throughput;
  out.requestsPerS =
      r.makespanS > 0 ? double(requests.size()) / r.makespanS : 0;
  out.kvPeakBytes = kvPeak;
  out.kvMeanBytes = kvMean;
  out.kvAllocatedBytes = cfg.kvAllocatedBytes;
  out.compileS = compileS;
  out.simulateS = simS;
  out.loopS = loopS;
  std::string kvSpec = o.kv;

  // Report.
  if (!s.reportPath.empty()) {
    llvm::json::Array prefillCosts, decodeCosts;
    for (size_t i = 0; i < costs.prefillBuckets.size(); ++i)
      prefillCosts.push_back(llvm::json::Object{
          {"prompt_tokens", costs.prefillBuckets[i]},
          {"seconds", costs.prefillS[i]},
          {"chunk_seconds", llvm::json::Array(costs.prefillChunkS[i])}});
    for (size_t i = 0; i < costs.decodeBuckets.size(); ++i)
      decodeCosts.push_back(llvm::json::Object{
          {"context_tokens", costs.decodeBuckets[i]},
          {"step_seconds", costs.decodeStepS[i]}});
    llvm::json::Object report{
        {"snapflow", versionString()},
        {"model", w->config.name},
        {"model_fingerprint", w->config.fingerprint()},
        {"chip", w->chip.getName()},
        {"chip_fingerprint", w->chip.fingerprint()},
        {"tp", w->tp},
        {"kv", kvSpec},
        {"slots", slots},
        {"context_tokens", o.context},
        {"requests_source", source},
        {"schedule", scheduleName(so.schedule)},
        {"prefill_chunk_tokens",
         out.prefillChunk == kPrefillChunkAuto
             ? llvm::json::Value("auto")
             : llvm::json::Value(out.prefillChunk)},
        {"prefill_chunks", r.prefillChunks},
        {"mixed_steps", r.mixedSteps},
        {"requests_count", static_cast<int64_t>(requests.size())},
        {"makespan_s", r.makespanS},
        {"prefill_s", r.prefillS},
        {"decode_s", r.decodeS},
        {"idle_s", r.idleS},
        {"decode_steps", r.decodeSteps},
        {"tokens_per_step", cfg.tokensPerStep},
        {"output_tokens", r.outputTokens},
        {"throughput_tokens_per_s", throughput},
        {"requests_per_s",
         r.makespanS > 0 ? double(requests.size()) / r.makespanS : 0},
        {"ttft_s", toJson(pTtft)},
        {"tpot_s", toJson(pTpot)},
        {"tbt_s", toJson(out.tbt)},
        {"e2e_s", toJson(pE2e)},
        {"queue_wait_s", toJson(pWait)},
        {"decode_slot_utilization", r.decodeSlotUtilization},
        {"kv_live_bytes_per_socket",
         llvm::json::Object{{"peak", kvPeak}, {"mean", kvMean}}},
        {"kv_allocated_bytes_per_socket", cfg.kvAllocatedBytes},
        {"step_costs", llvm::json::Object{{"prefill", std::move(prefillCosts)},
                                          {"decode", std::move(decodeCosts)}}},
        {"wall_time_s",
         llvm::json::Object{
             {"compile", compileS}, {"simulate", simS}, {"loop", loopS}}},
    };
    // Written as a stream, keys in order, the per-request results one at a
    // time: a million requests must not become one JSON value in memory.
    if (Error e = llvm::writeToOutput(s.reportPath, [&](llvm::raw_ostream &f) {
          llvm::json::OStream j(f, 2);
          std::vector<std::string> keys;
          for (const auto &kv : report)
            keys.push_back(kv.first.str());
          keys.push_back("requests");
          llvm::sort(keys);
          j.objectBegin();
          for (const std::string &key : keys) {
            if (key != "requests") {
              j.attribute(key, *report.get(key));
              continue;
            }
            j.attributeArray("requests", [&] {
              for (const RequestResult &q : r.requests)
                j.object([&] {
                  j.attribute("arrival_s", q.arrivalS);
                  j.attribute("finish_s", q.finishS);
                  j.attribute("first_token_s", q.firstTokenS);
                  j.attribute("id", q.id);
                  j.attribute("output_tokens", q.outputTokens);
                  j.attribute("prefill_start_s", q.prefillStartS);
                  j.attribute("prompt_tokens", q.promptTokens);
                  j.attribute("slot", q.slot);
                  j.attribute("tpot_s", q.tpotS());
                  j.attribute("ttft_s", q.ttftS());
                });
            });
          }
          j.objectEnd();
          f << "\n";
          return Error::success();
        }))
      return std::move(e);
  }

  // Occupancy: resident tensors plus the KV the live tokens hold.
  auto occupancy = [&](const Sample &smp) {
    double live =
        cfg.kvAllocatedBytes > 0 ? smp.kvLiveBytes / cfg.kvAllocatedBytes : 0.0;
    std::array<double, 4> v{res.bytes[0], res.bytes[1], res.bytes[2], 0};
    for (int t = 0; t < 3; ++t) {
      v[t] += live * res.kv[t];
      v[3] += live * res.kv[t];
    }
    return v;
  };
  std::vector<const Sample *> kept = thin(r.samples);
  if (!s.csvPath.empty())
    if (Error e = llvm::writeToOutput(s.csvPath, [&](llvm::raw_ostream &f) {
          f << "time_s,sram_bytes,hbm_bytes,ddr_bytes,kv_bytes,active_slots,"
               "waiting\n";
          for (const Sample *smp : kept) {
            auto v = occupancy(*smp);
            f << llvm::formatv("{0:e},{1},{2},{3},{4},{5},{6}\n", smp->timeS,
                               int64_t(v[0]), int64_t(v[1]), int64_t(v[2]),
                               int64_t(v[3]), smp->activeSlots, smp->waiting);
          }
          return Error::success();
        }))
      return std::move(e);
  if (!s.tracePath.empty())
    if (Error e = llvm::writeToOutput(s.tracePath, [&](llvm::raw_ostream &f) {
          llvm::json::OStream j(f);
          j.objectBegin();
          j.attribute("displayTimeUnit", "ms");
          j.attributeArray("traceEvents", [&] {
            if (r.spansDropped > 0)
              j.object([&] {
                j.attribute("name",
                            llvm::formatv("slot spans after the first {0} "
                                          "omitted ({1} more)",
                                          r.spans.size(), r.spansDropped)
                                .str());
                j.attribute("ph", "i");
                j.attribute("s", "g");
                j.attribute("pid", 0);
                j.attribute("ts", 0);
              });
            for (const Span &sp : r.spans) {
              j.objectBegin();
              j.attribute("name", llvm::formatv("r{0} {1}", sp.request,
                                                sp.prefill ? "prefill"
                                                           : "decode")
                                      .str());
              j.attribute("cat", sp.prefill ? "prefill" : "decode");
              j.attribute("ph", "X");
              j.attribute("pid", 0);
              j.attribute("tid", sp.slot + 1);
              j.attribute("ts", sp.startS * 1e6);
              j.attribute("dur", (sp.endS - sp.startS) * 1e6);
              j.objectEnd();
            }
            for (const Sample *smp : kept) {
              sim::writeMemoryCounter(j, smp->timeS * 1e6, occupancy(*smp));
              j.object([&] {
                j.attribute("name", "slots");
                j.attribute("cat", "serving");
                j.attribute("ph", "C");
                j.attribute("pid", 0);
                j.attribute("ts", smp->timeS * 1e6);
                j.attributeObject("args", [&] {
                  j.attribute("active", smp->activeSlots);
                  j.attribute("waiting", smp->waiting);
                });
              });
            }
            for (int64_t k = 0; k < slots; ++k)
              j.object([&] {
                j.attribute("name", "thread_name");
                j.attribute("ph", "M");
                j.attribute("pid", 0);
                j.attribute("tid", k + 1);
                j.attributeObject("args", [&] {
                  j.attribute("name", llvm::formatv("slot {0}", k).str());
                });
              });
          });
          sim::writeTraceMetadata(j, {&full}, w->chip);
          j.objectEnd();
          f << "\n";
          return Error::success();
        }))
      return std::move(e);
  out.result = std::move(*served);
  return std::move(out);
}
