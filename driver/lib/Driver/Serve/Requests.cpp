//===- Requests.cpp - The deployment's models and its requests ------------===//
//
// The first phase of a serving run (Phases.h): the models deployed, the
// cache flags, and the requests read from a trace or generated, each given
// its model and checked against its slots.
//
//===----------------------------------------------------------------------===//

#include "Phases.h"

#include "snapflow/Driver/Csv.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Support/Output.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::driver::phases;
using namespace snapflow::sim::serving;
using llvm::Error;

llvm::Expected<CacheOptions> phases::resolveCache(const ServeOptions &so,
                                                  bool several) {
  CacheOptions cache = so.cache;
  if (!so.cachePolicyGiven)
    cache.policy = several ? CachePolicy::OnDemand : CachePolicy::Static;
  using namespace limits;
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
  return cache;
}

llvm::Expected<Models>
phases::prepareModels(const std::vector<DeployedWorkload> &workloads) {
  Models models;
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
    // A name given (--name, name:) is the name as written.
    llvm::StringRef configName = p->w.config.name;
    p->deployed.name = o.name.empty() && (configName.contains('/') ||
                                          configName.ends_with(".json"))
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
  return std::move(models);
}

namespace {

/// --trace-requests: the file's requests, its source naming the format read
/// and what of a public trace was left out.
llvm::Expected<Load> readLoad(const ServeOptions &so) {
  Load load;
  TraceInfo info;
  if (so.trace.blockTokens < 0 || so.trace.blockTokens > limits::kMaxTokens)
    return makeError(llvm::formatv("--trace-block-tokens must be from 1 to "
                                   "{0} (0: the format's), got {1}",
                                   limits::kMaxTokens, so.trace.blockTokens));
  auto r = readRequests(so.requestsPath, so.trace, &info);
  if (!r)
    return r.takeError();
  load.requests = std::move(*r);
  load.hasModel = info.hasModel;
  load.blockTokens = info.hasBlocks ? info.blockTokens : 0;
  load.emptySkipped = info.skipped;
  load.source = load.path = so.requestsPath;
  if (info.format != TraceFormat::Snapflow)
    load.source +=
        llvm::formatv(" ({0} trace{1})", traceFormatName(info.format),
                      info.skipped ? llvm::formatv(", {0} with 0 tokens "
                                                   "skipped",
                                                   info.skipped)
                                         .str()
                                   : std::string())
            .str();
  return std::move(load);
}

/// The generator's flags, each in its range (Serving.h, limits; NaN fails
/// every test).
Error checkGenerator(const GeneratorOptions &gen) {
  using namespace limits;
  if (!(gen.rate >= kMinRate && gen.rate <= kMaxRate))
    return makeError(llvm::formatv("--rate must be from {0} to {1} "
                                   "requests/s, got {2}",
                                   csv::number(kMinRate), csv::number(kMaxRate),
                                   csv::number(gen.rate)));
  if (gen.count < 1 || gen.count > kMaxRequests)
    return makeError(llvm::formatv("--requests must be from 1 to {0}, got "
                                   "{1}",
                                   kMaxRequests, gen.count));
  for (auto [flag, mean] : {std::pair{"--prompt-tokens", gen.promptMean},
                            std::pair{"--output-tokens", gen.outputMean}})
    if (mean < 1 || mean > kMaxTokens)
      return makeError(llvm::formatv("{0} must be from 1 to {1}, got {2}", flag,
                                     kMaxTokens, mean));
  if (!(gen.spread >= 0 && gen.spread <= 1))
    return makeError(llvm::formatv("--length-spread must be in [0, 1], got "
                                   "{0}",
                                   gen.spread));
  return Error::success();
}

/// One model, flat load: --requests Poisson arrivals at --rate.
llvm::Expected<Load> generatePoisson(const GeneratorOptions &gen,
                                     const std::string &rate) {
  using namespace limits;
  // The arrivals must end inside the served time: the mean span is
  // requests / rate.
  if (double(gen.count) / gen.rate > kMaxArrivalS)
    return makeError(llvm::formatv(
        "--requests {0} at --rate {1} requests/s spread arrivals over "
        "about {2} s; snapflow serves arrivals up to {3} s",
        gen.count, rate, csv::number(double(gen.count) / gen.rate),
        csv::number(kMaxArrivalS)));
  Load load;
  load.requests = generateRequests(gen);
  if (!load.requests.empty() && load.requests.back().arrivalS > kMaxArrivalS)
    return makeError(llvm::formatv(
        "--requests {0} at --rate {1} requests/s: the last arrives at "
        "{2} s; snapflow serves arrivals up to {3} s",
        gen.count, rate, csv::number(load.requests.back().arrivalS),
        csv::number(kMaxArrivalS)));
  load.source = llvm::formatv("generated: Poisson {0} requests/s, seed {1}",
                              rate, gen.seed);
  return std::move(load);
}

/// Several models, or a period or duration: each model at --rate, its peak
/// a 1/n period after the one before.
llvm::Expected<Load> generatePeriodicLoad(const ServeOptions &so, size_t n,
                                          const std::string &rate) {
  using namespace limits;
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
  const GeneratorOptions &gen = so.gen;
  std::vector<PeriodicLoad> loads;
  for (size_t k = 0; k < n; ++k) {
    PeriodicLoad l;
    l.rate = gen.rate;
    l.amplitude = so.loadPeriodS > 0 ? so.loadAmplitude : 0;
    l.periodS = so.loadPeriodS > 0 ? so.loadPeriodS : 1;
    l.phase = double(k) / double(n);
    l.promptMean = gen.promptMean;
    l.outputMean = gen.outputMean;
    l.spread = gen.spread;
    loads.push_back(l);
  }
  double duration = so.durationS > 0
                        ? so.durationS
                        : double(gen.count) / (gen.rate * double(n));
  if (duration > kMaxArrivalS)
    return makeError(llvm::formatv(
        "--requests {0} at --rate {1} requests/s per model spread "
        "arrivals over {2} s; snapflow serves arrivals up to {3} s",
        gen.count, rate, csv::number(duration), csv::number(kMaxArrivalS)));
  // The expected count bounds the memory the generator takes.
  double expected = gen.rate * duration * double(n) *
                    (1 + (so.loadPeriodS > 0 ? so.loadAmplitude : 0));
  if (expected > double(kMaxRequests))
    return makeError(llvm::formatv(
        "--rate {0} requests/s per model over {1} s is about {2} "
        "requests; snapflow serves at most {3} in one run",
        rate, csv::number(duration), std::llround(expected), kMaxRequests));
  Load load;
  load.requests = generatePeriodic(loads, duration, gen.seed);
  load.source = llvm::formatv(
      "generated: {0} requests/s per model{1} over {2} s, seed {3}", rate,
      so.loadPeriodS > 0 ? llvm::formatv(", period {0} s, amplitude {1}",
                                         so.loadPeriodS, so.loadAmplitude)
                               .str()
                         : std::string(", Poisson"),
      duration, gen.seed);
  if (load.requests.empty())
    return makeError(load.source + ": no requests; raise --rate or --duration");
  return std::move(load);
}

} // namespace

llvm::Expected<Load> phases::loadRequests(const ServeOptions &so,
                                          size_t models) {
  if (!so.requestsPath.empty()) {
    if (so.generate)
      return makeError("--trace-requests and --rate/--requests exclude each "
                       "other");
    return readLoad(so);
  }
  if (Error e = checkGenerator(so.gen))
    return std::move(e);
  std::string rate;
  llvm::raw_string_ostream(rate) << llvm::format("%g", so.gen.rate);
  if (models == 1 && so.loadPeriodS == 0 && so.durationS == 0)
    return generatePoisson(so.gen, rate);
  return generatePeriodicLoad(so, models, rate);
}

namespace {

/// --model-map's pairs, in order: a trace's name, and the model it stands
/// for.
llvm::Expected<std::vector<std::pair<std::string, std::string>>>
parseModelMap(llvm::StringRef text) {
  std::vector<std::pair<std::string, std::string>> pairs;
  if (text.empty())
    return pairs;
  llvm::SmallVector<llvm::StringRef> items;
  text.split(items, ',');
  for (llvm::StringRef item : items) {
    auto [from, to] = item.split('=');
    from = from.trim();
    to = to.trim();
    if (!item.contains('=') || from.empty() || to.empty())
      return makeError(llvm::formatv("--model-map: '{0}' is not name=model "
                                     "(ChatGPT=llama-3.1-70b,GPT-4=deepseek-"
                                     "r1)",
                                     item));
    for (const auto &p : pairs)
      if (p.first == from)
        return makeError(llvm::formatv("--model-map names '{0}' twice", from));
    pairs.emplace_back(from.str(), to.str());
  }
  return pairs;
}

/// The deployed model `name` is, -1 when none; an error when two could be.
llvm::Expected<int> deployedModel(llvm::StringRef name, const Models &models,
                                  llvm::StringRef where) {
  int found = -1;
  for (size_t k = 0; k < models.size(); ++k)
    if (name == models[k]->o.model || name == models[k]->w.config.name ||
        name == llvm::sys::path::stem(models[k]->o.model) ||
        name == models[k]->deployed.name) {
      if (found >= 0)
        return makeError(llvm::formatv(
            "{0}model '{1}' could be '{2}' or '{3}'; name each deployed model "
            "its own way",
            where, name, models[found]->o.model, models[k]->o.model));
      found = static_cast<int>(k);
    }
  return found;
}

std::string deployedNames(const Models &models) {
  std::vector<std::string> names;
  for (const auto &m : models)
    names.push_back(m->o.model);
  return llvm::join(names, ",");
}

} // namespace

Error phases::assignModels(Load &load, const Models &models,
                           llvm::StringRef path, llvm::StringRef modelMap) {
  const size_t n = models.size();
  auto pairs = parseModelMap(modelMap);
  if (!pairs)
    return pairs.takeError();
  llvm::StringMap<int> mapped;
  for (const auto &[from, to] : *pairs) {
    auto k = deployedModel(to, models, "--model-map: ");
    if (!k)
      return k.takeError();
    if (*k < 0)
      return makeError(llvm::formatv("--model-map: {0}={1}, but '{1}' is not "
                                     "deployed (--model {2})",
                                     from, to, deployedNames(models)));
    mapped[from] = *k;
  }
  if (!pairs->empty() && !load.hasModel)
    return makeError("--model-map renames a trace's model column, but " +
                     (path.empty()
                          ? std::string("generated requests have none")
                          : path.str() + " has none (snapflow's 'model', "
                                         "BurstGPT's 'Model')"));
  // One model serves every request, whatever the column says (BurstGPT's
  // ChatGPT and GPT-4 replayed on the one model deployed).
  if (n < 2)
    return Error::success();
  if (!load.hasModel) {
    if (path.empty())
      return Error::success(); // generated: the generator chose
    return makeError(path +
                     ": error: several models are deployed, but the trace has "
                     "no model column (snapflow's 'model', BurstGPT's "
                     "'Model') to say which each request asks for");
  }
  for (Request &r : load.requests) {
    auto it = mapped.find(r.modelName);
    if (it != mapped.end()) {
      r.model = it->second;
      continue;
    }
    std::string where = llvm::formatv("{0}:{1}: error: ", path, r.line).str();
    auto found = deployedModel(r.modelName, models, where);
    if (!found)
      return found.takeError();
    if (*found < 0)
      return makeError(llvm::formatv(
          "{0}model '{1}' is not deployed (--model {2}){3}", where, r.modelName,
          deployedNames(models),
          pairs->empty() ? "; --model-map NAME=MODEL serves it as a deployed "
                           "model"
                         : ""));
    r.model = *found;
  }
  return Error::success();
}

Error phases::writeRequests(llvm::StringRef path, const Load &load,
                            const Models &models) {
  if (path.empty())
    return Error::success();
  // Seconds in the shortest text that reads back.
  const bool several = models.size() > 1;
  if (Error e = writeOutput(path, [&](llvm::raw_ostream &os) {
        os << "arrival_s,prompt_tokens,output_tokens"
           << (several ? ",model" : "") << "\n";
        for (const Request &r : load.requests) {
          os << csv::number(r.arrivalS) << ',' << r.promptTokens << ','
             << r.outputTokens;
          if (several)
            os << ',' << csv::field(models[r.model]->deployed.name);
          os << '\n';
        }
        return Error::success();
      }))
    return makeError("--write-requests: " + path + ": " +
                     llvm::toString(std::move(e)));
  return Error::success();
}

Error phases::distribute(Load &load, Models &models, Overlong overlong) {
  for (auto &m : models) {
    m->cfg().maxContext = m->o.context;
    // kvSlots counts cache positions; a Block Transformer's holds a block.
    m->cfg().kvTokensPerSlot = std::min(
        m->w.kvSlots * m->w.config.tokensPerCachePosition(), m->o.context);
  }
  // Each request fitted to its model's slots; a skipped one is left out.
  size_t kept = 0;
  for (size_t i = 0; i < load.requests.size(); ++i) {
    Request &r = load.requests[i];
    auto f = fit(r, models[r.model]->cfg(), overlong,
                 load.path.empty() ? load.source : load.path);
    if (!f)
      return f.takeError();
    if (*f == Fit::Skipped) {
      ++load.overlongSkipped;
      continue;
    }
    load.overlongClipped += *f == Fit::Clipped;
    if (kept != i)
      load.requests[kept] = std::move(r);
    ++kept;
  }
  load.requests.resize(kept);
  if (load.requests.empty())
    return makeError(llvm::formatv("{0}: error: every request is longer than "
                                   "a slot holds (--context); --overlong skip "
                                   "left none to serve",
                                   load.source));
  for (size_t i = 0; i < load.requests.size(); ++i)
    models[load.requests[i].model]->requests.push_back(i);
  return Error::success();
}
