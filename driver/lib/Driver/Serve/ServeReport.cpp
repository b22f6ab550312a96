//===- ServeReport.cpp - What a serving run reports -----------------------===//
//
// The last phase of a serving run (Phases.h): the latencies over every
// request and per model, the report (streamed: a million requests never
// become one JSON value), the occupancy CSV and the Chrome trace.
//
//===----------------------------------------------------------------------===//

#include "Phases.h"

#include "snapflow/Driver/Csv.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Sim/Trace/Trace.h"
#include "snapflow/Support/LineReader.h"
#include "snapflow/Support/Output.h"
#include "snapflow/Support/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::driver::phases;

namespace {
/// What a span of a request's life in the serving trace was.
llvm::StringRef phaseOf(const sim::serving::Span &span) {
  return arch::phaseName(span.prefill ? arch::Phase::Prefill
                                      : arch::Phase::Decode);
}
} // namespace
using namespace snapflow::sim::serving;
using llvm::Error;

std::vector<const Sample *> phases::thin(const std::vector<Sample> &samples,
                                         size_t target) {
  std::vector<const Sample *> out;
  size_t k = std::max<size_t>(1, samples.size() / target);
  for (size_t i = 0; i < samples.size(); ++i)
    if (i % k == 0 || i + 1 == samples.size() ||
        (i > 0 && samples[i].activeSlots != samples[i - 1].activeSlots))
      out.push_back(&samples[i]);
  return out;
}

llvm::json::Object phases::toJson(const Percentiles &p) {
  return llvm::json::Object{{"p50", p.p50},
                            {"p90", p.p90},
                            {"p99", p.p99},
                            {"mean", p.mean},
                            {"max", p.max}};
}

namespace {

/// The step cost of every bucket, as the report lists them.
llvm::json::Object costsJson(const CostTable &costs) {
  llvm::json::Array prefill, decode;
  for (size_t i = 0; i < costs.prefillBuckets.size(); ++i)
    prefill.push_back(llvm::json::Object{
        {"prompt_tokens", costs.prefillBuckets[i]},
        {"seconds", costs.prefillS[i]},
        {"chunk_seconds", llvm::json::Array(costs.prefillChunkS[i])}});
  for (size_t i = 0; i < costs.decodeBuckets.size(); ++i)
    decode.push_back(
        llvm::json::Object{{"context_tokens", costs.decodeBuckets[i]},
                           {"step_seconds", costs.decodeStepS[i]}});
  return llvm::json::Object{{"prefill", std::move(prefill)},
                            {"decode", std::move(decode)}};
}

/// The run's energy at the wall (docs/Energy.md): its parts, per request
/// and output token, and the average power over the makespan.
llvm::json::Object energyJson(const ServeOutcome &out, const ServeResult &r) {
  const ServeResult::Energy &e = r.energy;
  double total = e.totalJ();
  return llvm::json::Object{
      {"joules", total},
      {"dynamic_j", e.dynamicJ},
      {"static_j", e.staticJ},
      {"idle_j", e.idleJ},
      {"switch_j", e.switchJ},
      {"kv_transfer_j", e.kvTransferJ},
      {"joules_per_request",
       out.requests > 0 ? total / double(out.requests) : 0.0},
      {"joules_per_output_token",
       r.outputTokens > 0 ? total / double(r.outputTokens) : 0.0},
      {"average_power_w", r.makespanS > 0 ? total / r.makespanS : 0.0}};
}

/// What prefix caching did (null when off): hit rate by tokens, blocks
/// and bytes per tier, moves and the prefill time the hits saved.
llvm::json::Value prefixJson(const ServeOutcome &out, const ServeResult &r) {
  const PrefixOptions &o = out.prefix;
  if (o.blockTokens <= 0)
    return nullptr;
  const PrefixResult &p = r.prefix;
  return llvm::json::Object{
      {"block_tokens", o.blockTokens},
      {"block_bytes_per_socket", o.blockBytes},
      {"reuse", o.reuse},
      {"capacity_blocks",
       llvm::json::Object{{"hbm", o.hbmBlocks}, {"ddr", o.ddrBlocks}}},
      {"move_bytes_per_s", llvm::json::Object{{"ddr_to_hbm", o.promoteBps},
                                              {"hbm_to_ddr", o.demoteBps}}},
      {"queried_tokens", p.queriedTokens},
      {"hit_tokens", p.hitTokens},
      {"hit_rate",
       p.queriedTokens ? double(p.hitTokens) / double(p.queriedTokens) : 0.0},
      {"hit_blocks", p.hitBlocks},
      {"hit_blocks_from_ddr", p.ddrHitBlocks},
      {"inserted_blocks", p.insertedBlocks},
      {"demoted_blocks", p.demotedBlocks},
      {"dropped_blocks", p.droppedBlocks},
      {"reused_bytes_per_socket", p.reusedBytes},
      {"moved_bytes_per_socket",
       llvm::json::Object{{"ddr_to_hbm", p.promotedBytes},
                          {"hbm_to_ddr", p.demotedBytes}}},
      {"peak_blocks",
       llvm::json::Object{{"hbm", p.peakHbmBlocks}, {"ddr", p.peakDdrBlocks}}},
      {"held_bytes_per_socket",
       llvm::json::Object{
           {"hbm",
            llvm::json::Object{{"peak", double(p.peakHbmBlocks) * o.blockBytes},
                               {"mean", p.hbmMeanBytes}}},
           {"ddr",
            llvm::json::Object{{"peak", double(p.peakDdrBlocks) * o.blockBytes},
                               {"mean", p.ddrMeanBytes}}}}},
      {"move_s", p.moveS},
      {"prefill_saved_s", p.prefillSavedS},
  };
}

/// The SLOs and what met them (null without SLOs).
llvm::json::Value sloJson(const ServeOutcome &out, const ServeResult &r) {
  if (!out.slo.any())
    return nullptr;
  auto orNull = [](double s) {
    return s > 0 ? llvm::json::Value(s) : llvm::json::Value(nullptr);
  };
  return llvm::json::Object{
      {"ttft_s", orNull(out.slo.ttftS)},
      {"tpot_s", orNull(out.slo.tpotS)},
      {"attainment_target", out.slo.attainment},
      {"requests_meeting", llvm::json::Object{{"ttft", r.slo.ttft},
                                              {"tpot", r.slo.tpot},
                                              {"both", r.slo.both}}},
      {"attainment", llvm::json::Object{{"ttft", out.sloTtftShare},
                                        {"tpot", out.sloTpotShare},
                                        {"both", out.sloShare}}},
      {"goodput_requests_per_s", out.goodputRequestsPerS},
      {"met", out.sloMet},
  };
}

/// The report's keys for several models: every model of the deployment,
/// the cache policy and its switches.
void addModels(llvm::json::Object &report, const ServeOutcome &out,
               const ServeResult &r, const Models &models,
               const CacheOptions &cache) {
  const size_t n = models.size();
  // Every model of the deployment, the cache policy and its switches.
  llvm::json::Array ms, sw;
  for (size_t k = 0; k < n; ++k) {
    const ModelOutcome &mo = out.models[k];
    const ModelResult &mr = r.models[k];
    const Prepared &m = *models[k];
    ms.push_back(llvm::json::Object{
        {"model", mo.name},
        {"model_fingerprint", m.w.config.fingerprint()},
        {"weights_dtype", weightsDtypeLabel(m.w)},
        {"kv", mo.kv},
        {"kv_format", m.w.kvFormatLabel()},
        {"slots", mo.slots},
        {"context_tokens", mo.context},
        {"requests_count", mo.requests},
        {"weight_bytes_per_socket", mo.weightBytes},
        {"hbm_bytes_per_socket", mo.hbmBytes},
        {"switch_s", mo.switchS},
        {"switch_j", mo.switchJ},
        {"switches", mr.switches},
        {"prewarms", mr.prewarms},
        {"evictions", mr.evictions},
        {"switching_s", mr.switchS},
        {"chip_s", mr.chipS},
        {"output_tokens", mr.outputTokens},
        {"throughput_tokens_per_s", mo.throughputTokensPerS},
        {"ttft_s", toJson(mo.ttft)},
        {"tpot_s", toJson(mo.tpot)},
        {"tbt_s", toJson(mo.tbt)},
        {"switch_wait_s", toJson(mo.switchWait)},
        {"decode_slot_utilization", mr.decodeSlotUtilization},
        {"hbm_held_bytes_per_socket",
         llvm::json::Object{{"peak", mr.hbmPeakBytes},
                            {"mean", mr.hbmMeanBytes}}},
        {"step_costs", costsJson(mo.costs)},
    });
  }
  for (const sim::serving::Switch &x : r.switches) {
    llvm::json::Array ev;
    for (int e : x.evicted)
      ev.push_back(out.models[e].name);
    sw.push_back(llvm::json::Object{{"model", out.models[x.model].name},
                                    {"start_s", x.startS},
                                    {"end_s", x.endS},
                                    {"prewarm", x.prewarm},
                                    {"evicted", std::move(ev)}});
  }
  report["models"] = std::move(ms);
  report["switches"] = std::move(sw);
  report["model_cache"] = cachePolicyName(cache.policy).str();
  if (cache.policy == sim::serving::CachePolicy::Prewarm)
    report["forecast"] = llvm::json::Object{{"window_s", cache.windowS},
                                            {"period_s", cache.periodS}};
}

/// The report without its per-request results.
llvm::json::Object reportObject(const ServeOutcome &out, const ServeResult &r,
                                const Load &load, const Models &models,
                                const arch::ArchModel &chip,
                                const CacheOptions &cache,
                                const ServeOptions &so, const WallTimes &wall) {
  const bool several = models.size() > 1;
  const Prepared &first = *models[0];
  // Several models: each one's, joined by ';' as `model` and `kv`.
  auto joined = [&](auto of) {
    std::vector<std::string> parts;
    for (const auto &m : models)
      parts.push_back(of(*m));
    return llvm::join(parts, ";");
  };
  llvm::json::Object report{
      {"snapflow", versionString()},
      {"model", out.model},
      // Several models: each one's, joined by ';' as `model` and `kv`.
      {"model_fingerprint",
       joined([](const Prepared &m) { return m.w.config.fingerprint(); })},
      {"chip", chip.getName()},
      {"chip_fingerprint", chip.fingerprint()},
      {"tp", first.w.tp},
      {"kv", out.kv},
      {"kv_format",
       joined([](const Prepared &m) { return m.w.kvFormatLabel(); })},
      {"weights_dtype",
       joined([](const Prepared &m) { return weightsDtypeLabel(m.w); })},
      {"serve_options", serveOptionsText(out, so, cache, several)},
      {"slots", out.slots},
      {"context_tokens", first.o.context},
      {"requests_source", load.source},
      {"schedule", scheduleName(so.schedule)},
      {"prefill_chunk_tokens", out.prefillChunk == kPrefillChunkAuto
                                   ? llvm::json::Value("auto")
                                   : llvm::json::Value(out.prefillChunk)},
      {"prefill_chunks", r.prefillChunks},
      {"mixed_steps", r.mixedSteps},
      {"requests_count", out.requests},
      {"requests_left_out",
       llvm::json::Object{{"zero_tokens", out.emptySkipped},
                          {"overlong_skipped", out.overlongSkipped},
                          {"overlong_clipped", out.overlongClipped}}},
      {"prefix_cache", prefixJson(out, r)},
      {"slo", sloJson(out, r)},
      {"cluster", clusterJson(out, r)},
      {"static_graphs", graphsJson(out, r)},
      {"load",
       // Arrivals at one instant have no rate: null.
       llvm::json::Object{{"offered_requests_per_s",
                           out.offeredRequestsPerS > 0
                               ? llvm::json::Value(out.offeredRequestsPerS)
                               : llvm::json::Value(nullptr)},
                          {"served_requests_per_s", out.requestsPerS},
                          {"ratio", out.loadRatio > 0
                                        ? llvm::json::Value(out.loadRatio)
                                        : llvm::json::Value(nullptr)},
                          {"waiting_early", r.waitingEarly},
                          {"waiting_at_last_arrival", r.waitingAtLastArrival},
                          {"overloaded", out.overloaded}}},
      {"makespan_s", r.makespanS},
      {"prefill_s", r.prefillS},
      {"decode_s", r.decodeS},
      {"idle_s", r.idleS},
      {"energy", energyJson(out, r)},
      {"decode_steps", r.decodeSteps},
      {"tokens_per_step", first.cfg().tokensPerStep},
      {"output_tokens", r.outputTokens},
      {"throughput_tokens_per_s", out.throughputTokensPerS},
      {"requests_per_s", out.requestsPerS},
      {"ttft_s", toJson(out.ttft)},
      {"tpot_s", toJson(out.tpot)},
      {"tbt_s", toJson(out.tbt)},
      {"e2e_s", toJson(out.e2e)},
      {"queue_wait_s", toJson(out.wait)},
      {"decode_slot_utilization", r.decodeSlotUtilization},
      {"slots_peak_active", r.peakActiveSlots},
      {"kv_live_bytes_per_socket",
       llvm::json::Object{{"peak", out.kvPeakBytes},
                          {"mean", out.kvMeanBytes}}},
      {"kv_allocated_bytes_per_socket", out.kvAllocatedBytes},
      {"step_costs", costsJson(first.deployed.costs)},
      {"wall_time_s", llvm::json::Object{{"compile", wall.compile},
                                         {"simulate", wall.simulate},
                                         {"loop", wall.loop}}},
  };
  if (several)
    addModels(report, out, r, models, cache);
  return report;
}

/// Writes `report` with keys in order and the per-request results from
/// `resultLines` (a JSON object a line, in the order they finished).
Error streamReport(llvm::StringRef path, const llvm::json::Object &report,
                   llvm::StringRef resultLines) {
  // Written as a stream, keys in order, the per-request results one at a
  // time: a million requests must not become one JSON value in memory.
  return writeOutput(path, [&](llvm::raw_ostream &f) -> Error {
    llvm::json::OStream j(f, 2);
    std::vector<std::string> keys;
    for (const auto &kv : report)
      keys.push_back(kv.first.str());
    keys.push_back("requests");
    llvm::sort(keys);
    Error failed = Error::success();
    j.objectBegin();
    for (const std::string &key : keys) {
      if (key != "requests") {
        j.attribute(key, *report.get(key));
        continue;
      }
      j.attributeArray("requests", [&] {
        if (resultLines.empty())
          return;
        auto lines = LineReader::open(resultLines, "the requests' results");
        if (!lines) {
          failed = lines.takeError();
          return;
        }
        llvm::StringRef line;
        for (;;) {
          auto got = (*lines)->next(line);
          if (!got) {
            failed = got.takeError();
            return;
          }
          if (!*got)
            return;
          j.rawValue([&](llvm::raw_ostream &os) { os << line; });
        }
      });
    }
    j.objectEnd();
    f << "\n";
    return failed;
  });
}

/// Occupancy at a sample: resident tensors plus the KV the live tokens
/// hold. With several models, HBM is each resident model's footprint (its
/// weights, KV allocation and other HBM tensors), DDR every model's weights
/// and DDR tensors, SRAM the largest resident model's.
sim::TierBytes occupancyAt(const Sample &smp, const Models &models) {
  const size_t n = models.size();
  const bool several = n > 1;
  const Prepared &first = *models[0];
  const Residency &res = first.res;
  if (several) {
    sim::TierBytes v;
    v.kv = smp.kvLiveBytes;
    for (size_t k = 0; k < n; ++k) {
      v.ddr += models[k]->ddrBytes;
      if (k < smp.hbmByModel.size() && smp.hbmByModel[k] > 0) {
        v.hbm += smp.hbmByModel[k];
        v.sram = std::max(v.sram, models[k]->res.bytes[0]);
      }
    }
    return v;
  }
  double live = first.cfg().kvAllocatedBytes > 0
                    ? smp.kvLiveBytes / first.cfg().kvAllocatedBytes
                    : 0.0;
  sim::TierBytes v{res.bytes[0], res.bytes[1], res.bytes[2], 0};
  for (int t = 0; t < 3; ++t)
    v.kv += live * res.kv[t];
  v.sram += live * res.kv[0];
  v.hbm += live * res.kv[1];
  v.ddr += live * res.kv[2];
  return v;
}

/// The occupancy CSV: a row per kept sample.
Error writeOccupancyCsv(llvm::StringRef path, const ServeOutcome &out,
                        const std::vector<const Sample *> &kept,
                        const Models &models, const arch::ArchModel &chip) {
  const bool several = models.size() > 1;
  return writeOutput(path, [&](llvm::raw_ostream &f) {
    f << "time_s,sram_bytes,hbm_bytes,ddr_bytes,kv_bytes,active_slots,"
         "waiting";
    if (several)
      for (const ModelOutcome &mo : out.models)
        f << ",hbm_" << mo.name << "_bytes";
    f << csv::kProvenanceHeader << "\n";
    // Several models: their names and policies joined by ';'.
    std::string provenance = csv::provenanceCells(out.model, chip.getName(),
                                                  out.kv, versionString());
    for (const Sample *smp : kept) {
      auto v = occupancyAt(*smp, models);
      f << llvm::formatv("{0:e},{1},{2},{3},{4},{5},{6}", smp->timeS,
                         int64_t(v.sram), int64_t(v.hbm), int64_t(v.ddr),
                         int64_t(v.kv), smp->activeSlots, smp->waiting);
      for (double b : smp->hbmByModel)
        f << ',' << int64_t(b);
      f << provenance << "\n";
    }
    return Error::success();
  });
}

/// The Chrome trace: a thread per slot of every model (then the switches),
/// a span per request's prefill and decode, the memory and slot counters.
Error writeServeTrace(llvm::StringRef path, const ServeOutcome &out,
                      const ServeResult &r,
                      const std::vector<const Sample *> &kept,
                      const Models &models, const arch::ArchModel &chip) {
  const size_t n = models.size();
  const bool several = n > 1;
  // The trace's threads: every model's slots in turn, then (several models)
  // the switches.
  std::vector<int64_t> firstSlot(n, 0);
  int64_t threads = 0;
  for (size_t k = 0; k < n; ++k) {
    firstSlot[k] = threads;
    threads += models[k]->cfg().slots;
  }
  return writeOutput(path, [&](llvm::raw_ostream &f) {
    llvm::json::OStream j(f);
    j.objectBegin();
    j.attribute("displayTimeUnit", "ms");
    j.attributeArray("traceEvents", [&] {
      if (r.spansDropped > 0)
        j.object([&] {
          j.attribute("name", llvm::formatv("slot spans after the first {0} "
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
        j.attribute("name",
                    llvm::formatv("{0}r{1} {2}",
                                  several ? out.models[sp.model].name + " "
                                          : std::string(),
                                  sp.request, phaseOf(sp))
                        .str());
        j.attribute("cat", phaseOf(sp));
        j.attribute("ph", "X");
        j.attribute("pid", 0);
        j.attribute("tid", firstSlot[sp.model] + sp.slot + 1);
        sim::writeSliceTime(j, sim::traceNsOfSeconds(sp.startS),
                            sim::traceNsOfSeconds(sp.endS));
        j.attributeObject("args", [&] {
          j.attribute("request", sp.request);
          j.attribute("model", out.models[sp.model].name);
          j.attribute("slot", sp.slot);
          j.attribute("phase", phaseOf(sp));
        });
        j.objectEnd();
      }
      for (const sim::serving::Switch &x : r.switches)
        j.object([&] {
          j.attribute("name", (x.prewarm ? "prewarm " : "switch in ") +
                                  out.models[x.model].name);
          j.attribute("cat", "switch");
          j.attribute("ph", "X");
          j.attribute("pid", 0);
          j.attribute("tid", threads + 1);
          sim::writeSliceTime(j, sim::traceNsOfSeconds(x.startS),
                              sim::traceNsOfSeconds(x.endS));
          j.attributeObject("args", [&] {
            j.attribute("model", out.models[x.model].name);
            std::vector<std::string> ev;
            for (int e : x.evicted)
              ev.push_back(out.models[e].name);
            j.attribute("evicted", llvm::join(ev, ","));
          });
        });
      // A serving counter at a sample's time; `args` writes its values.
      auto counter = [&](const Sample &smp, llvm::StringRef name,
                         llvm::function_ref<void()> args) {
        j.object([&] {
          j.attribute("name", name);
          j.attribute("cat", "serving");
          j.attribute("ph", "C");
          j.attribute("pid", 0);
          j.attribute("tid", 0);
          sim::writeTraceTs(j, sim::traceNsOfSeconds(smp.timeS));
          j.attributeObject("args", args);
        });
      };
      for (const Sample *smp : kept) {
        sim::writeMemoryCounter(j, sim::traceNsOfSeconds(smp->timeS),
                                occupancyAt(*smp, models));
        counter(*smp, "slots", [&] {
          j.attribute("active", smp->activeSlots);
          j.attribute("waiting", smp->waiting);
        });
        if (several)
          counter(*smp, "hbm by model", [&] {
            for (size_t k = 0; k < smp->hbmByModel.size(); ++k)
              j.attribute(out.models[k].name, smp->hbmByModel[k]);
          });
        // The prefix cache's blocks held per tier, bytes per socket.
        if (out.prefix.blockTokens > 0)
          counter(*smp, "prefix cache", [&] {
            j.attribute("hbm", smp->prefixHbmBytes);
            j.attribute("ddr", smp->prefixDdrBytes);
          });
      }
      sim::writeProcessName(j, 0, "snapflow serve · " + chip.getName());
      auto threadName = [&](int64_t tid, const std::string &name) {
        sim::writeTrackName(j, 0, tid, name);
      };
      for (size_t k = 0; k < n; ++k)
        for (int64_t slot = 0; slot < models[k]->cfg().slots; ++slot)
          threadName(
              firstSlot[k] + slot + 1,
              llvm::formatv("{0}slot {1}",
                            several ? out.models[k].name + " " : std::string(),
                            slot));
      if (several)
        threadName(threads + 1, "switches");
    });
    std::vector<const sim::Program *> fulls;
    for (const auto &m : models)
      fulls.push_back(&m->full());
    sim::writeTraceProvenance(j, fulls, chip);
    sim::writeTraceMetadata(j, fulls, chip);
    j.objectEnd();
    f << "\n";
    return Error::success();
  });
}

} // namespace

ServeOutcome
phases::summarizeOutcome(const ServeResult &r, const Load &load,
                         const Models &models, const arch::ArchModel &chip,
                         const CacheOptions &cache, const ServeOptions &so,
                         const WallTimes &wall, const GraphChoice &graphs) {
  const size_t n = models.size();
  ServeOutcome out;
  // The KV policies as resolved for each model's context.
  std::vector<std::string> names, kvs;
  for (const auto &m : models) {
    names.push_back(m->deployed.name);
    kvs.push_back(m->w.kvLabel());
  }
  const Prepared &first = *models[0];
  out.model = llvm::join(names, ",");
  out.chip = chip.getName();
  out.kv = llvm::join(kvs, ";");
  out.source = load.source;
  out.schedule = so.schedule;
  out.prefillChunk = first.prefillChunk;
  out.tp = first.w.tp;
  out.context = first.o.context;
  out.requests = load.served;
  out.emptySkipped = load.emptySkipped;
  out.overlongSkipped = load.overlongSkipped;
  out.overlongClipped = load.overlongClipped;
  out.overlong = so.overlong;
  out.prefix = models[0]->deployed.prefix;
  out.slo = so.slo;
  if (load.served > 0) {
    double n = double(load.served);
    out.sloTtftShare = double(r.slo.ttft) / n;
    out.sloTpotShare = double(r.slo.tpot) / n;
    out.sloShare = double(r.slo.both) / n;
  }
  out.goodputRequestsPerS =
      r.makespanS > 0 ? double(r.slo.both) / r.makespanS : 0;
  out.sloMet = out.sloShare >= so.slo.attainment;
  // Offered against served: arrivals over their span, completions over the
  // makespan (which starts at the first arrival).
  double span = r.lastArrivalS - r.firstArrivalS;
  if (span > 0 && r.makespanS > 0) {
    out.offeredRequestsPerS = double(load.served) / span;
    out.loadRatio = r.makespanS / span;
    out.overloaded = out.loadRatio > kOverloadRatio &&
                     r.waitingAtLastArrival > r.waitingEarly;
  }
  for (const auto &m : models) {
    out.slots += m->cfg().slots;
    out.graphs += static_cast<int64_t>(m->programs.size());
    out.kvAllocatedBytes += m->cfg().kvAllocatedBytes;
  }
  out.costs = first.deployed.costs;
  out.ttft = summarize(r.latencies.ttft);
  out.tokensPerStep = first.cfg().tokensPerStep;
  out.blockTokens = first.w.config.tokensPerCachePosition();
  out.tpot = summarize(r.latencies.tpot);
  out.tbt = summarize(r.tokenGaps);
  out.e2e = summarize(r.latencies.e2e);
  out.wait = summarize(r.latencies.wait);
  out.throughputTokensPerS =
      r.makespanS > 0 ? double(r.outputTokens) / r.makespanS : 0;
  out.requestsPerS = r.makespanS > 0 ? double(load.served) / r.makespanS : 0;
  out.kvPeakBytes = r.kvPeakBytes;
  out.kvMeanBytes = r.kvMeanBytes;
  out.compileS = wall.compile;
  out.simulateS = wall.simulate;
  out.loopS = wall.loop;
  out.cachePolicy = cache.policy;
  summarizeCluster(out, r, so, chip);
  out.graphSizes = models[0]->graphSizes;
  out.graphSwitchS = models[0]->deployed.costs.graphSwitchS;
  out.graphCandidates = graphs.candidates;
  if (!graphs.candidates.empty())
    out.graphPicked = static_cast<int64_t>(graphs.picked);
  for (size_t k = 0; k < n; ++k) {
    const Prepared &m = *models[k];
    ModelOutcome mo;
    mo.name = m.deployed.name;
    mo.kv = m.w.kvLabel();
    mo.slots = m.cfg().slots;
    mo.context = m.o.context;
    mo.requests = m.requests;
    mo.weightBytes = m.deployed.weightBytes;
    mo.hbmBytes = m.deployed.hbmBytes;
    mo.switchS = m.deployed.switchS;
    mo.switchJ = m.deployed.switchJ * m.deployed.config.wallPowerFactor;
    mo.costs = m.deployed.costs;
    mo.ttft = summarize(r.models[k].latencies.ttft);
    mo.tpot = summarize(r.models[k].latencies.tpot);
    mo.tbt = summarize(r.models[k].tokenGaps);
    mo.switchWait = summarize(r.models[k].latencies.switchWait);
    mo.throughputTokensPerS =
        r.makespanS > 0 ? double(r.models[k].outputTokens) / r.makespanS : 0;
    out.models.push_back(std::move(mo));
  }
  return out;
}

std::string phases::serveOptionsText(const ServeOutcome &out,
                                     const ServeOptions &so,
                                     const CacheOptions &cache, bool several) {
  std::string text =
      llvm::formatv("schedule={0} prefill-chunk={1}", scheduleName(so.schedule),
                    out.prefillChunk == kPrefillChunkAuto
                        ? std::string("auto")
                        : std::to_string(out.prefillChunk))
          .str();
  text += llvm::formatv(" overlong={0}", overlongName(so.overlong));
  if (so.slo.any())
    text += llvm::formatv(" slo-ttft={0} slo-tpot={1} slo-attainment={2}",
                          csv::number(so.slo.ttftS), csv::number(so.slo.tpotS),
                          csv::number(so.slo.attainment));
  if (!so.requestsPath.empty())
    text += llvm::formatv(
        " trace-format={0} trace-block-tokens={1} "
        "model-map={2} prefix-cache={3} prefix-tiers={4} "
        "prefix-keep={5}",
        traceFormatName(so.trace.format), so.trace.blockTokens, so.modelMap,
        so.prefixCache ? "on" : "off", so.prefixTiers, so.prefixKeep);
  if (so.requestsPath.empty())
    text += llvm::formatv(
        " rate={0} requests={1} seed={2} prompt-mean={3} output-mean={4} "
        "length-spread={5} load-period={6} load-amplitude={7} duration={8}",
        csv::number(so.gen.rate), so.gen.count, so.gen.seed, so.gen.promptMean,
        so.gen.outputMean, csv::number(so.gen.spread),
        csv::number(so.loadPeriodS), csv::number(so.loadAmplitude),
        csv::number(so.durationS));
  if (so.cluster())
    text += so.disaggregate.given()
                ? llvm::formatv(" disaggregate={0}:{1} router={2}",
                                so.disaggregate.prefill, so.disaggregate.decode,
                                routerName(so.router))
                      .str()
                : llvm::formatv(" nodes={0} router={1}", so.nodes,
                                routerName(so.router))
                      .str();
  if (several)
    text += llvm::formatv(
        " model-cache={0} forecast-window={1} forecast-period={2}",
        cachePolicyName(cache.policy), csv::number(cache.windowS),
        csv::number(cache.periodS));
  return text;
}

Error phases::writeServeOutputs(const ServeOutcome &out, const ServeResult &r,
                                const Load &load, const Models &models,
                                const arch::ArchModel &chip,
                                const CacheOptions &cache,
                                const ServeOptions &so,
                                const SimulateOptions &s, const WallTimes &wall,
                                llvm::StringRef resultLines) {
  if (!s.reportPath.empty())
    if (Error e = streamReport(
            s.reportPath,
            reportObject(out, r, load, models, chip, cache, so, wall),
            resultLines))
      return e;
  std::vector<const Sample *> kept = thin(r.samples);
  if (!s.csvPath.empty())
    if (Error e = writeOccupancyCsv(s.csvPath, out, kept, models, chip))
      return e;
  if (!s.tracePath.empty())
    if (Error e = writeServeTrace(s.tracePath, out, r, kept, models, chip))
      return e;
  return Error::success();
}
