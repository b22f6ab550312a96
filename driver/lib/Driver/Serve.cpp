//===- Serve.cpp - A serving deployment
//------------------------------------===//
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
#include "snapflow/Sim/Engine/Simulator.h"
#include "snapflow/Sim/Loader/Loader.h"
#include "snapflow/Sim/Trace/Trace.h"
#include "snapflow/Support/Output.h"
#include "snapflow/Support/Progress.h"
#include "snapflow/Support/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
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
  // kvSlots counts cache positions (a Block Transformer's are blocks).
  if (!w.kvCompressing || w.kvSlots >= w.config.cachePositions(tokens))
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
  return {d.percentile(0.50), d.percentile(0.90), d.percentile(0.99), d.mean(),
          d.max()};
}

namespace {
llvm::json::Object toJson(const Percentiles &p) {
  return llvm::json::Object{{"p50", p.p50},
                            {"p90", p.p90},
                            {"p99", p.p99},
                            {"mean", p.mean},
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

namespace {

/// One model of the deployment while it is prepared.
struct Prepared {
  WorkloadOptions o;
  bool maxBatch = false; ///< slots: the most that fit at o.context
  Workload w;
  std::vector<size_t> requests; ///< indices of its requests
  /// Its graphs: prefill buckets, then decode buckets (the last at the
  /// full context). Reserved before the first is built: jobs point at them.
  std::vector<sim::Program> programs;
  std::vector<std::pair<bool, int64_t>> shapes; ///< (prefill, tokens)
  int64_t prefillChunk = kPrefillChunkAuto;
  sim::serving::DeployedModel deployed;
  ServeConfig &cfg() { return deployed.config; }
  const ServeConfig &cfg() const { return deployed.config; }
  Residency res;
  double ddrBytes = 0; ///< per socket: weights and every DDR tensor
  const sim::Program &full() const { return programs.back(); }
};

double maxTensorBytes(const std::vector<sim::Program> &programs,
                      arch::MemoryTier tier) {
  double most = 0;
  for (const sim::Program &p : programs)
    most = std::max(most, double(p.tensorBytes(tier)));
  return most;
}

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

std::string gibText(double bytes) {
  return llvm::formatv("{0:f2} GiB", bytes / double(1ull << 30)).str();
}

} // namespace

llvm::Expected<ServeOutcome> snapflow::driver::serve(const WorkloadOptions &o,
                                                     bool maxBatch,
                                                     const CompileOptions &c,
                                                     const SimulateOptions &s,
                                                     const ServeOptions &so) {
  return serve(std::vector<DeployedWorkload>{{o, maxBatch}}, c, s, so);
}

llvm::Expected<ServeOutcome>
snapflow::driver::serve(const std::vector<DeployedWorkload> &workloads,
                        const CompileOptions &c, const SimulateOptions &s,
                        const ServeOptions &so) {
  if (workloads.empty())
    return makeError("--serve needs at least one model");
  const size_t n = workloads.size();
  const bool several = n > 1;
  sim::serving::CacheOptions cache = so.cache;
  if (!so.cachePolicyGiven)
    cache.policy = several ? sim::serving::CachePolicy::OnDemand
                           : sim::serving::CachePolicy::Static;
  using namespace sim::serving::limits;
  // A window under a millisecond is shorter than any step; the period is 0
  // (none known) or at least a window.
  if (!(cache.windowS >= 1e-3 && cache.windowS <= kMaxArrivalS))
    return makeError(llvm::formatv("--forecast-window must be from 0.001 to "
                                   "{0} s, got {1}",
                                   csv::number(kMaxArrivalS),
                                   csv::number(cache.windowS)));
  if (!(cache.periodS == 0 ||
        (cache.periodS >= cache.windowS && cache.periodS <= kMaxArrivalS)))
    return makeError(llvm::formatv("--forecast-period must be 0 (none) or "
                                   "from --forecast-window ({0} s) to {1} "
                                   "s, got {2}",
                                   csv::number(cache.windowS),
                                   csv::number(kMaxArrivalS),
                                   csv::number(cache.periodS)));
  std::vector<std::unique_ptr<Prepared>> models;
  for (const DeployedWorkload &d : workloads) {
    const WorkloadOptions &o = d.options;
    auto p = std::make_unique<Prepared>();
    p->o = o;
    p->maxBatch = d.maxBatch;
    p->cfg().maxContextFrom = d.contextFrom;
    auto w = resolveWorkload(o, /*needChip=*/true);
    if (!w)
      return w.takeError();
    p->w = std::move(*w);
    // A config file's model goes by the file's name.
    llvm::StringRef configName = p->w.config.name;
    p->deployed.name = configName.contains('/') || configName.ends_with(".json")
                           ? llvm::sys::path::stem(configName).str()
                           : configName.str();
    // A model goes by its name in a trace's model column; two spellings of
    // one name (llama-3.2-1b and sub/llama-3.2-1b.json) were both deployed
    // and its rows all went to the last (R20).
    for (const auto &q : models)
      if (q->deployed.name == p->deployed.name)
        return makeError(
            q->o.model == o.model
                ? "--model names " + o.model +
                      " twice; a deployment serves each model once"
                : "'" + q->o.model + "' and '" + o.model +
                      "' are both the model '" + p->deployed.name +
                      "'; a deployment serves each model once, by a name "
                      "its own");
    models.push_back(std::move(p));
  }
  const arch::ArchModel &chip = models[0]->w.chip;

  // 1. Requests.
  std::vector<Request> requests;
  std::string source;
  bool traceHasModel = false;
  if (!so.requestsPath.empty()) {
    if (so.generate)
      return makeError("--trace-requests and --rate/--requests exclude each "
                       "other");
    sim::serving::TraceInfo info;
    auto r = readRequests(so.requestsPath, so.traceFormat, &info);
    if (!r)
      return r.takeError();
    requests = std::move(*r);
    traceHasModel = info.hasModel;
    source = so.requestsPath;
    // Name the format read, and what of a public trace was left out.
    if (info.format != sim::serving::TraceFormat::Snapflow)
      source +=
          llvm::formatv(" ({0} trace{1})",
                        sim::serving::traceFormatName(info.format),
                        info.skipped ? llvm::formatv(", {0} with 0 tokens "
                                                     "skipped",
                                                     info.skipped)
                                           .str()
                                     : std::string())
              .str();
  } else {
    // Each flag in its range (Serving.h, limits; NaN fails every test).
    if (!(so.gen.rate >= kMinRate && so.gen.rate <= kMaxRate))
      return makeError(llvm::formatv("--rate must be from {0} to {1} "
                                     "requests/s, got {2}",
                                     csv::number(kMinRate),
                                     csv::number(kMaxRate),
                                     csv::number(so.gen.rate)));
    if (so.gen.count < 1 || so.gen.count > kMaxRequests)
      return makeError(llvm::formatv("--requests must be from 1 to {0}, got "
                                     "{1}",
                                     kMaxRequests, so.gen.count));
    for (auto [flag, mean] : {std::pair{"--prompt-tokens", so.gen.promptMean},
                              std::pair{"--output-tokens", so.gen.outputMean}})
      if (mean < 1 || mean > kMaxTokens)
        return makeError(llvm::formatv("{0} must be from 1 to {1}, got {2}",
                                       flag, kMaxTokens, mean));
    if (!(so.gen.spread >= 0 && so.gen.spread <= 1))
      return makeError(llvm::formatv("--length-spread must be in [0, 1], got "
                                     "{0}",
                                     so.gen.spread));
    std::string rate;
    llvm::raw_string_ostream(rate) << llvm::format("%g", so.gen.rate);
    if (!several && so.loadPeriodS == 0 && so.durationS == 0) {
      // The arrivals must end inside the served time: the mean span is
      // requests / rate.
      if (double(so.gen.count) / so.gen.rate > kMaxArrivalS)
        return makeError(llvm::formatv(
            "--requests {0} at --rate {1} requests/s spread arrivals over "
            "about {2} s; snapflow serves arrivals up to {3} s",
            so.gen.count, rate, csv::number(double(so.gen.count) / so.gen.rate),
            csv::number(kMaxArrivalS)));
      requests = generateRequests(so.gen);
      if (!requests.empty() && requests.back().arrivalS > kMaxArrivalS)
        return makeError(llvm::formatv(
            "--requests {0} at --rate {1} requests/s: the last arrives at "
            "{2} s; snapflow serves arrivals up to {3} s",
            so.gen.count, rate, csv::number(requests.back().arrivalS),
            csv::number(kMaxArrivalS)));
      source = llvm::formatv("generated: Poisson {0} requests/s, seed {1}",
                             rate, so.gen.seed);
    } else {
      if (!(so.loadPeriodS >= 0 && so.loadPeriodS <= kMaxArrivalS))
        return makeError(llvm::formatv("--load-period must be from 0 to "
                                       "{0} s, got {1}",
                                       csv::number(kMaxArrivalS),
                                       csv::number(so.loadPeriodS)));
      if (!(so.loadAmplitude >= 0 && so.loadAmplitude <= 1))
        return makeError(llvm::formatv("--load-amplitude must be in [0, 1], "
                                       "got {0}",
                                       so.loadAmplitude));
      if (!(so.durationS >= 0 && so.durationS <= kMaxArrivalS))
        return makeError(llvm::formatv("--duration must be from 0 to {0} "
                                       "s, got {1}",
                                       csv::number(kMaxArrivalS),
                                       csv::number(so.durationS)));
      // Each model at --rate, its peak a 1/n period after the one before.
      std::vector<sim::serving::PeriodicLoad> loads;
      for (size_t k = 0; k < n; ++k) {
        sim::serving::PeriodicLoad l;
        l.rate = so.gen.rate;
        l.amplitude = so.loadPeriodS > 0 ? so.loadAmplitude : 0;
        l.periodS = so.loadPeriodS > 0 ? so.loadPeriodS : 1;
        l.phase = double(k) / double(n);
        l.promptMean = so.gen.promptMean;
        l.outputMean = so.gen.outputMean;
        l.spread = so.gen.spread;
        loads.push_back(l);
      }
      double duration = so.durationS > 0
                            ? so.durationS
                            : double(so.gen.count) / (so.gen.rate * double(n));
      if (duration > kMaxArrivalS)
        return makeError(llvm::formatv(
            "--requests {0} at --rate {1} requests/s per model spread "
            "arrivals over {2} s; snapflow serves arrivals up to {3} s",
            so.gen.count, rate, csv::number(duration),
            csv::number(kMaxArrivalS)));
      // The expected count bounds the memory the generator takes.
      double expected = so.gen.rate * duration * double(n) *
                        (1 + (so.loadPeriodS > 0 ? so.loadAmplitude : 0));
      if (expected > double(kMaxRequests))
        return makeError(llvm::formatv(
            "--rate {0} requests/s per model over {1} s is about {2} "
            "requests; snapflow serves at most {3} in one run",
            rate, csv::number(duration), std::llround(expected), kMaxRequests));
      requests = sim::serving::generatePeriodic(loads, duration, so.gen.seed);
      source = llvm::formatv(
          "generated: {0} requests/s per model{1} over {2} s, seed {3}", rate,
          so.loadPeriodS > 0 ? llvm::formatv(", period {0} s, amplitude {1}",
                                             so.loadPeriodS, so.loadAmplitude)
                                   .str()
                             : std::string(", Poisson"),
          duration, so.gen.seed);
      if (requests.empty())
        return makeError(source + ": no requests; raise --rate or --duration");
    }
  }
  // Each request's model: by the trace's model column, which must name a
  // model of the deployment (as given to --model, its config's name, or a
  // config file's name without directory and extension).
  // One model serves every request, whatever the column says (BurstGPT's
  // ChatGPT and GPT-4 replayed on the one model deployed).
  if (traceHasModel && several) {
    for (Request &r : requests) {
      int found = -1;
      for (size_t k = 0; k < n; ++k)
        if (r.modelName == models[k]->o.model ||
            r.modelName == models[k]->w.config.name ||
            r.modelName == llvm::sys::path::stem(models[k]->o.model)) {
          if (found >= 0)
            return makeError(llvm::formatv(
                "{0}:{1}: error: model '{2}' could be '{3}' or '{4}'; "
                "name each deployed model its own way",
                so.requestsPath, r.line, r.modelName, models[found]->o.model,
                models[k]->o.model));
          found = static_cast<int>(k);
        }
      if (found < 0) {
        std::vector<std::string> names;
        for (const auto &m : models)
          names.push_back(m->o.model);
        return makeError(llvm::formatv(
            "{0}:{1}: error: model '{2}' is not deployed (--model {3})",
            so.requestsPath, r.line, r.modelName, llvm::join(names, ",")));
      }
      r.model = found;
    }
  } else if (several && !so.requestsPath.empty()) {
    return makeError(so.requestsPath +
                     ": error: several models are deployed, but the trace has "
                     "no model column (snapflow's 'model', BurstGPT's "
                     "'Model') to say which each request asks for");
  }
  // --write-requests: the load as a trace `--trace-requests` reads back to
  // the same requests (seconds in the shortest text that reads back).
  if (!so.writeRequestsPath.empty())
    if (Error e = writeOutput(so.writeRequestsPath, [&](llvm::raw_ostream &os) {
          os << "arrival_s,prompt_tokens,output_tokens"
             << (several ? ",model" : "") << "\n";
          for (const Request &r : requests) {
            os << csv::number(r.arrivalS) << ',' << r.promptTokens << ','
               << r.outputTokens;
            if (several)
              os << ',' << csv::field(models[r.model]->deployed.name);
            os << '\n';
          }
          return Error::success();
        }))
      return makeError("--write-requests: " + so.writeRequestsPath + ": " +
                       llvm::toString(std::move(e)));
  for (size_t i = 0; i < requests.size(); ++i)
    models[requests[i].model]->requests.push_back(i);
  for (auto &m : models) {
    m->cfg().maxContext = m->o.context;
    // kvSlots counts cache positions; a Block Transformer's holds a block.
    m->cfg().kvTokensPerSlot = std::min(
        m->w.kvSlots * m->w.config.tokensPerCachePosition(), m->o.context);
    std::vector<Request> mine;
    for (size_t i : m->requests)
      mine.push_back(requests[i]);
    if (Error e = validate(mine, m->cfg(), source))
      return std::move(e);
  }

  // 2. Per model: slots, buckets and their graphs.
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  const bool chunked = so.schedule == Schedule::Chunked;
  auto start = std::chrono::steady_clock::now();
  for (auto &mp : models) {
    Prepared &m = *mp;
    const WorkloadOptions &o = m.o;
    // Slots: --batch, or the most that fit at the full context.
    int64_t slots = o.batch;
    if (m.maxBatch) {
      auto largest = findMaxBatch(context, m.w, o, c);
      if (!largest)
        return largest.takeError();
      slots = *largest;
    }
    m.cfg().slots = slots;
    std::set<int64_t> prefillBuckets, decodeBuckets;
    int64_t lo = o.context, hi = 0;
    for (size_t i : m.requests) {
      const Request &r = requests[i];
      prefillBuckets.insert(bucketFor(r.promptTokens, o.context));
      lo = std::min(lo, r.promptTokens + 1);
      hi = std::max(hi, r.promptTokens + r.outputTokens);
    }
    for (int64_t b = bucketFor(lo, o.context);; b *= 2) {
      decodeBuckets.insert(std::min(b, o.context));
      if (b >= hi || b >= o.context)
        break;
    }
    // The full-context graph fixes the KV allocation and the resident
    // tensors.
    decodeBuckets.insert(o.context);
    // The chunked schedule's prefill graphs run a chunk per step.
    CompileOptions prefillOptions = c;
    if (chunked && c.prefillChunk == kPrefillChunkAuto)
      prefillOptions.prefillChunk = kScheduleChunk;
    m.prefillChunk = prefillOptions.prefillChunk;
    m.programs.reserve(prefillBuckets.size() + decodeBuckets.size());
    auto build = [&](bool prefill, int64_t tokens) -> Error {
      WorkloadOptions bo = o;
      bo.context = tokens;
      bo.kv = policyFor(m.w, tokens);
      auto p = compileProgram(context, m.w, bo, prefill ? prefillOptions : c,
                              prefill ? 1 : slots, prefill);
      if (!p) {
        std::string why = llvm::toString(p.takeError());
        return llvm::make_error<ProgramFailure>(llvm::formatv(
            "{0}the {1} graph for {2} tokens (bucket of --serve) cannot run: "
            "{3}",
            several ? m.w.config.name + ": " : std::string(),
            prefill ? "prefill" : "decode", tokens, why));
      }
      if (Error e = checkFits(*p, m.w.chip))
        return e;
      m.programs.push_back(std::move(*p));
      m.shapes.push_back({prefill, tokens});
      return Error::success();
    };
    for (int64_t b : prefillBuckets)
      if (Error e = build(true, b))
        return std::move(e);
    for (int64_t b : decodeBuckets)
      if (Error e = build(false, b))
        return std::move(e);
    m.res = residency(m.full());
    m.deployed.weightBytes = double(m.full().weightBytes);
    m.deployed.hbmBytes = maxTensorBytes(m.programs, arch::MemoryTier::HBM);
    // DDR holds every model's weights, whether cached in HBM or not, and
    // whatever its graphs place in DDR.
    m.ddrBytes = m.deployed.weightBytes +
                 maxTensorBytes(m.programs, arch::MemoryTier::DDR);
  }
  double compileS =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  // Placement: DDR holds every model's weights; HBM each resident model.
  if (several) {
    double ddr = 0, hbm = 0;
    std::string ddrParts, hbmParts;
    for (const auto &m : models) {
      ddr += m->ddrBytes;
      hbm += m->deployed.hbmBytes;
      ddrParts += llvm::formatv("{0}{1} {2}", ddrParts.empty() ? "" : " + ",
                                m->deployed.name, gibText(m->ddrBytes));
      hbmParts +=
          llvm::formatv("{0}{1} {2}", hbmParts.empty() ? "" : " + ",
                        m->deployed.name, gibText(m->deployed.hbmBytes));
    }
    double ddrCap = double(chip.tierBytesPerSocket(arch::MemoryTier::DDR));
    double hbmCap = double(chip.tierBytesPerSocket(arch::MemoryTier::HBM));
    if (ddr > ddrCap)
      return llvm::make_error<ProgramFailure>(llvm::formatv(
          "the deployment does not fit: DDR binds: every model's weights "
          "stay in DDR, {0} = {1} per socket, above the {2} of {3}",
          ddrParts, gibText(ddr), gibText(ddrCap), chip.getName()));
    if (cache.policy == sim::serving::CachePolicy::Static && hbm > hbmCap)
      return llvm::make_error<ProgramFailure>(llvm::formatv(
          "the deployment does not fit: HBM binds: --model-cache static keeps "
          "every model resident, {0} = {1} per socket, above the {2} of {3}; "
          "cache them (--model-cache on-demand or prewarm) or give fewer "
          "slots (--batch)",
          hbmParts, gibText(hbm), gibText(hbmCap), chip.getName()));
  }
  cache.hbmBytes = double(chip.tierBytesPerSocket(arch::MemoryTier::HBM));

  // 3. One SystemC run for every shape of every model; with switching, each
  // graph again beside a switch, and each model's switch alone.
  const bool switching = cache.policy != sim::serving::CachePolicy::Static;
  int64_t largestWeights = 0;
  for (const auto &m : models)
    largestWeights = std::max(largestWeights, m->full().weightBytes);
  std::vector<sim::Job> jobs;
  for (const auto &m : models)
    for (size_t i = 0; i < m->programs.size(); ++i)
      jobs.push_back({&m->programs[i], m->shapes[i].first ? 1 : 2});
  size_t contendedBase = jobs.size();
  if (switching) {
    for (const auto &m : models)
      for (size_t i = 0; i < m->programs.size(); ++i) {
        sim::Job j(&m->programs[i], m->shapes[i].first ? 1 : 2);
        j.copy = sim::Copy{std::max<int64_t>(1, largestWeights),
                           arch::MemoryTier::DDR, arch::MemoryTier::HBM};
        jobs.push_back(j);
      }
  }
  size_t switchBase = jobs.size();
  if (switching)
    for (const auto &m : models) {
      sim::Job j;
      j.copy = sim::Copy{m->full().weightBytes, arch::MemoryTier::DDR,
                         arch::MemoryTier::HBM};
      jobs.push_back(j);
    }
  sim::SimOptions simOptions;
  simOptions.fastForward = s.fastForward;
  simOptions.allSockets = s.allSockets;
  simOptions.trace = false;
  start = std::chrono::steady_clock::now();
  sim::SimResult sim = sim::simulate(jobs, chip, simOptions);
  double simS =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (!sim.failure.empty())
    return llvm::make_error<ProgramFailure>("serving step costs: " +
                                            sim.failure);
  size_t job = 0, contendedJob = contendedBase, switchJob = switchBase;
  for (auto &mp : models) {
    Prepared &m = *mp;
    sim::serving::DeployedModel &d = m.deployed;
    auto fill = [&](CostTable &costs, const sim::JobResult &jr, size_t i,
                    std::vector<double> *prefillBps,
                    std::vector<double> *decodeBps) {
      double seconds = jr.stepPs * 1e-12;
      double bps = jr.stepPs > 0 ? jr.copyBytes / (jr.stepPs * 1e-12) : 0;
      if (m.shapes[i].first) {
        costs.prefillBuckets.push_back(m.shapes[i].second);
        costs.prefillS.push_back(seconds);
        std::vector<double> chunks;
        for (double ps : jr.chunkPs)
          chunks.push_back(ps * 1e-12);
        costs.prefillChunkS.push_back(std::move(chunks));
        if (prefillBps)
          prefillBps->push_back(bps);
      } else {
        costs.decodeBuckets.push_back(m.shapes[i].second);
        costs.decodeStepS.push_back(seconds);
        if (decodeBps)
          decodeBps->push_back(bps);
      }
    };
    for (size_t i = 0; i < m.programs.size(); ++i)
      fill(d.costs, sim.jobs[job++], i, nullptr, nullptr);
    if (switching) {
      for (size_t i = 0; i < m.programs.size(); ++i)
        fill(d.contended, sim.jobs[contendedJob++], i, &d.prefillCopyBps,
             &d.decodeCopyBps);
      d.switchS = sim.jobs[switchJob++].stepPs * 1e-12;
    }
    const sim::Program &full = m.full();
    m.cfg().kvAllocatedBytes = double(full.kvBytes);
    // With MTP every decode graph verifies the same draft depth: its
    // expected accepted tokens per sequence and step.
    m.cfg().tokensPerStep = full.tokensPerStep;
    m.cfg().schedule = so.schedule;
    m.cfg().kvBytesPerToken =
        double(full.kvBytes) / double(m.cfg().slots * m.cfg().kvTokensPerSlot);
    m.cfg().weightBytes = double(full.weightBytes);
  }

  // 4. The loop. Per-request results stream to --request-results as they
  // complete, through writeOutput: into a temporary file renamed when the
  // loop has finished and every write succeeded, so the file is whole or
  // absent (a device or a pipe is written in place).
  llvm::raw_ostream *results = nullptr;
  auto writeResult = [&](const RequestResult &q) {
    // Seconds in the shortest text that reads back to the same double.
    *results << q.id << ',' << q.slot << ',' << csv::number(q.arrivalS) << ','
             << q.promptTokens << ',' << q.outputTokens << ','
             << csv::number(q.prefillStartS) << ','
             << csv::number(q.firstTokenS) << ',' << csv::number(q.finishS)
             << ',' << csv::number(q.ttftS()) << ',' << csv::number(q.tpotS());
    if (several)
      *results << ',' << csv::number(q.switchWaitS);
    const Prepared &m = *models[q.model];
    *results << csv::provenanceCells(m.deployed.name, chip.getName(),
                                     m.w.kvLabel, versionString())
             << '\n';
  };
  std::vector<sim::serving::DeployedModel> deployed;
  for (const auto &m : models)
    deployed.push_back(m->deployed);
  start = std::chrono::steady_clock::now();
  std::optional<llvm::Expected<ServeResult>> outcome;
  // How far the loop is, on a terminal (R14: ten million requests ran for
  // minutes without a word).
  Progress progress("serving", "requests finished",
                    static_cast<int64_t>(requests.size()));
  int64_t finished = 0;
  auto onFinish = [&](const RequestResult &q) {
    if (results)
      writeResult(q);
    progress.update(++finished);
  };
  auto serveAll = [&] {
    outcome.emplace(
        sim::serving::serveModels(requests, deployed, cache, onFinish));
  };
  if (so.resultsPath.empty()) {
    serveAll();
  } else {
    Error written = writeOutput(so.resultsPath, [&](llvm::raw_ostream &os) {
      results = &os;
      os << "id,slot,arrival_s,prompt_tokens,output_tokens,"
            "prefill_start_s,first_token_s,finish_s,ttft_s,tpot_s";
      // Every row ends naming its model, chip, policy and snapflow.
      if (several)
        os << ",switch_wait_s";
      os << csv::kProvenanceHeader << "\n";
      serveAll();
      // A loop that failed leaves no file; its error is reported below.
      return *outcome ? Error::success() : makeError("the serving loop failed");
    });
    results = nullptr;
    if (written) {
      if (!*outcome)
        llvm::consumeError(std::move(written));
      else
        return makeError("--request-results: " +
                         llvm::toString(std::move(written)));
    }
  }
  llvm::Expected<ServeResult> &served = *outcome;
  if (!served)
    return served.takeError();
  double loopS =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  const ServeResult &r = *served;

  // Latencies, over every request and per model.
  struct Lists {
    std::vector<double> ttft, tpot, e2e, wait, switchWait;
  };
  Lists all;
  std::vector<Lists> per(n);
  for (const RequestResult &q : r.requests) {
    for (Lists *l : {&all, &per[q.model]}) {
      l->ttft.push_back(q.ttftS());
      if (q.outputTokens > 1)
        l->tpot.push_back(q.tpotS());
      l->e2e.push_back(q.finishS - q.arrivalS);
      l->wait.push_back(q.prefillStartS - q.arrivalS);
      l->switchWait.push_back(q.switchWaitS);
    }
  }
  Percentiles pTtft = summarize(all.ttft), pTpot = summarize(all.tpot),
              pE2e = summarize(all.e2e), pWait = summarize(all.wait);
  double kvPeak = r.kvPeakBytes, kvMean = r.kvMeanBytes;
  double throughput =
      r.makespanS > 0 ? double(r.outputTokens) / r.makespanS : 0;

  ServeOutcome out;
  // The KV policies and formats as resolved for each model's context.
  std::vector<std::string> names, kvs, formats, fingerprints, dtypes;
  for (const auto &m : models) {
    names.push_back(m->deployed.name);
    fingerprints.push_back(m->w.config.fingerprint());
    dtypes.push_back(weightsDtypeLabel(m->w));
    kvs.push_back(m->w.kvLabel);
    formats.push_back(m->w.kvFormatLabel);
  }
  const Prepared &first = *models[0];
  out.model = llvm::join(names, ",");
  out.chip = chip.getName();
  out.kv = llvm::join(kvs, ";");
  out.source = source;
  out.schedule = so.schedule;
  out.prefillChunk = first.prefillChunk;
  out.tp = first.w.tp;
  out.context = first.o.context;
  out.requests = static_cast<int64_t>(requests.size());
  for (const auto &m : models) {
    out.slots += m->cfg().slots;
    out.graphs += static_cast<int64_t>(m->programs.size());
    out.kvAllocatedBytes += m->cfg().kvAllocatedBytes;
  }
  out.costs = first.deployed.costs;
  out.ttft = pTtft;
  out.tokensPerStep = first.cfg().tokensPerStep;
  out.blockTokens = first.w.config.tokensPerCachePosition();
  out.tpot = pTpot;
  out.tbt = summarize(r.tokenGaps);
  out.e2e = pE2e;
  out.wait = pWait;
  out.throughputTokensPerS = throughput;
  out.requestsPerS =
      r.makespanS > 0 ? double(requests.size()) / r.makespanS : 0;
  out.kvPeakBytes = kvPeak;
  out.kvMeanBytes = kvMean;
  out.compileS = compileS;
  out.simulateS = simS;
  out.loopS = loopS;
  out.cachePolicy = cache.policy;
  for (size_t k = 0; k < n; ++k) {
    const Prepared &m = *models[k];
    ModelOutcome mo;
    mo.name = m.deployed.name;
    mo.kv = m.w.kvLabel;
    mo.slots = m.cfg().slots;
    mo.context = m.o.context;
    mo.requests = static_cast<int64_t>(m.requests.size());
    mo.weightBytes = m.deployed.weightBytes;
    mo.hbmBytes = m.deployed.hbmBytes;
    mo.switchS = m.deployed.switchS;
    mo.costs = m.deployed.costs;
    mo.ttft = summarize(per[k].ttft);
    mo.tpot = summarize(per[k].tpot);
    mo.tbt = summarize(r.models[k].tokenGaps);
    mo.switchWait = summarize(per[k].switchWait);
    mo.throughputTokensPerS =
        r.makespanS > 0 ? double(r.models[k].outputTokens) / r.makespanS : 0;
    out.models.push_back(std::move(mo));
  }
  std::string kvSpec = out.kv;
  // Every option of the load and the schedule that changes a result.
  std::string serveOptions =
      llvm::formatv("schedule={0} prefill-chunk={1}", scheduleName(so.schedule),
                    out.prefillChunk == kPrefillChunkAuto
                        ? std::string("auto")
                        : std::to_string(out.prefillChunk))
          .str();
  if (so.requestsPath.empty())
    serveOptions += llvm::formatv(
        " rate={0} requests={1} seed={2} prompt-mean={3} output-mean={4} "
        "length-spread={5} load-period={6} load-amplitude={7} duration={8}",
        csv::number(so.gen.rate), so.gen.count, so.gen.seed, so.gen.promptMean,
        so.gen.outputMean, csv::number(so.gen.spread),
        csv::number(so.loadPeriodS), csv::number(so.loadAmplitude),
        csv::number(so.durationS));
  if (several)
    serveOptions += llvm::formatv(
        " model-cache={0} forecast-window={1} forecast-period={2}",
        cachePolicyName(cache.policy), csv::number(cache.windowS),
        csv::number(cache.periodS));

  // Report.
  if (!s.reportPath.empty()) {
    llvm::json::Object report{
        {"snapflow", versionString()},
        {"model", out.model},
        // Several models: each one's, joined by ';' as `model` and `kv`.
        {"model_fingerprint", llvm::join(fingerprints, ";")},
        {"chip", chip.getName()},
        {"chip_fingerprint", chip.fingerprint()},
        {"tp", first.w.tp},
        {"kv", kvSpec},
        {"kv_format", llvm::join(formats, ";")},
        {"weights_dtype", llvm::join(dtypes, ";")},
        {"serve_options", serveOptions},
        {"slots", out.slots},
        {"context_tokens", first.o.context},
        {"requests_source", source},
        {"schedule", scheduleName(so.schedule)},
        {"prefill_chunk_tokens", out.prefillChunk == kPrefillChunkAuto
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
        {"tokens_per_step", first.cfg().tokensPerStep},
        {"output_tokens", r.outputTokens},
        {"throughput_tokens_per_s", throughput},
        {"requests_per_s", out.requestsPerS},
        {"ttft_s", toJson(pTtft)},
        {"tpot_s", toJson(pTpot)},
        {"tbt_s", toJson(out.tbt)},
        {"e2e_s", toJson(pE2e)},
        {"queue_wait_s", toJson(pWait)},
        {"decode_slot_utilization", r.decodeSlotUtilization},
        {"kv_live_bytes_per_socket",
         llvm::json::Object{{"peak", kvPeak}, {"mean", kvMean}}},
        {"kv_allocated_bytes_per_socket", out.kvAllocatedBytes},
        {"step_costs", costsJson(first.deployed.costs)},
        {"wall_time_s", llvm::json::Object{{"compile", compileS},
                                           {"simulate", simS},
                                           {"loop", loopS}}},
    };
    if (several) {
      // Every model of the deployment, the cache policy and its switches.
      llvm::json::Array ms, sw;
      for (size_t k = 0; k < n; ++k) {
        const ModelOutcome &mo = out.models[k];
        const sim::serving::ModelResult &mr = r.models[k];
        const Prepared &m = *models[k];
        ms.push_back(llvm::json::Object{
            {"model", mo.name},
            {"model_fingerprint", m.w.config.fingerprint()},
            {"weights_dtype", weightsDtypeLabel(m.w)},
            {"kv", mo.kv},
            {"kv_format", m.w.kvFormatLabel},
            {"slots", mo.slots},
            {"context_tokens", mo.context},
            {"requests_count", mo.requests},
            {"weight_bytes_per_socket", mo.weightBytes},
            {"hbm_bytes_per_socket", mo.hbmBytes},
            {"switch_s", mo.switchS},
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
    // Written as a stream, keys in order, the per-request results one at a
    // time: a million requests must not become one JSON value in memory.
    if (Error e = writeOutput(s.reportPath, [&](llvm::raw_ostream &f) {
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
                  if (several)
                    j.attribute("model", out.models[q.model].name);
                  j.attribute("output_tokens", q.outputTokens);
                  j.attribute("prefill_start_s", q.prefillStartS);
                  j.attribute("prompt_tokens", q.promptTokens);
                  j.attribute("slot", q.slot);
                  if (several)
                    j.attribute("switch_wait_s", q.switchWaitS);
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

  // Occupancy: resident tensors plus the KV the live tokens hold. With
  // several models, HBM is each resident model's footprint (its weights, KV
  // allocation and other HBM tensors), DDR every model's weights and DDR
  // tensors, SRAM the largest resident model's.
  const Residency &res = first.res;
  auto occupancy = [&](const Sample &smp) {
    if (several) {
      std::array<double, 4> v{0, 0, 0, smp.kvLiveBytes};
      for (size_t k = 0; k < n; ++k) {
        v[2] += models[k]->ddrBytes;
        if (k < smp.hbmByModel.size() && smp.hbmByModel[k] > 0) {
          v[1] += smp.hbmByModel[k];
          v[0] = std::max(v[0], models[k]->res.bytes[0]);
        }
      }
      return v;
    }
    double live = first.cfg().kvAllocatedBytes > 0
                      ? smp.kvLiveBytes / first.cfg().kvAllocatedBytes
                      : 0.0;
    std::array<double, 4> v{res.bytes[0], res.bytes[1], res.bytes[2], 0};
    for (int t = 0; t < 3; ++t) {
      v[t] += live * res.kv[t];
      v[3] += live * res.kv[t];
    }
    return v;
  };
  std::vector<const Sample *> kept = thin(r.samples);
  if (!s.csvPath.empty())
    if (Error e = writeOutput(s.csvPath, [&](llvm::raw_ostream &f) {
          f << "time_s,sram_bytes,hbm_bytes,ddr_bytes,kv_bytes,active_slots,"
               "waiting";
          if (several)
            for (const ModelOutcome &mo : out.models)
              f << ",hbm_" << mo.name << "_bytes";
          f << csv::kProvenanceHeader << "\n";
          // Several models: their names and policies joined by ';'.
          std::string provenance = csv::provenanceCells(
              out.model, chip.getName(), out.kv, versionString());
          for (const Sample *smp : kept) {
            auto v = occupancy(*smp);
            f << llvm::formatv("{0:e},{1},{2},{3},{4},{5},{6}", smp->timeS,
                               int64_t(v[0]), int64_t(v[1]), int64_t(v[2]),
                               int64_t(v[3]), smp->activeSlots, smp->waiting);
            for (double b : smp->hbmByModel)
              f << ',' << int64_t(b);
            f << provenance << "\n";
          }
          return Error::success();
        }))
      return std::move(e);
  // The trace's threads: every model's slots in turn, then (several models)
  // the switches.
  std::vector<int64_t> firstSlot(n, 0);
  int64_t threads = 0;
  for (size_t k = 0; k < n; ++k) {
    firstSlot[k] = threads;
    threads += models[k]->cfg().slots;
  }
  if (!s.tracePath.empty())
    if (Error e = writeOutput(s.tracePath, [&](llvm::raw_ostream &f) {
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
              j.attribute(
                  "name",
                  llvm::formatv("{0}r{1} {2}",
                                several ? out.models[sp.model].name + " "
                                        : std::string(),
                                sp.request, sp.prefill ? "prefill" : "decode")
                      .str());
              j.attribute("cat", sp.prefill ? "prefill" : "decode");
              j.attribute("ph", "X");
              j.attribute("pid", 0);
              j.attribute("tid", firstSlot[sp.model] + sp.slot + 1);
              sim::writeSliceTime(j, sim::traceNsOfSeconds(sp.startS),
                                  sim::traceNsOfSeconds(sp.endS));
              j.attributeObject("args", [&] {
                j.attribute("request", sp.request);
                j.attribute("model", out.models[sp.model].name);
                j.attribute("slot", sp.slot);
                j.attribute("phase", sp.prefill ? "prefill" : "decode");
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
                                      occupancy(*smp));
              counter(*smp, "slots", [&] {
                j.attribute("active", smp->activeSlots);
                j.attribute("waiting", smp->waiting);
              });
              if (several)
                counter(*smp, "hbm by model", [&] {
                  for (size_t k = 0; k < smp->hbmByModel.size(); ++k)
                    j.attribute(out.models[k].name, smp->hbmByModel[k]);
                });
            }
            sim::writeProcessName(j, 0, "snapflow serve · " + chip.getName());
            auto threadName = [&](int64_t tid, const std::string &name) {
              sim::writeTrackName(j, 0, tid, name);
            };
            for (size_t k = 0; k < n; ++k)
              for (int64_t slot = 0; slot < models[k]->cfg().slots; ++slot)
                threadName(firstSlot[k] + slot + 1,
                           llvm::formatv("{0}slot {1}",
                                         several ? out.models[k].name + " "
                                                 : std::string(),
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
        }))
      return std::move(e);
  out.result = std::move(*served);
  return std::move(out);
}
