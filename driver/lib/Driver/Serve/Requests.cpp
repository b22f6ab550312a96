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

/// --trace-requests: the trace opened (its header read), to be read a row
/// at a time.
llvm::Expected<Load> readLoad(const ServeOptions &so) {
  Load load;
  if (so.trace.blockTokens < 0 || so.trace.blockTokens > limits::kMaxTokens)
    return makeError(llvm::formatv("--trace-block-tokens must be from 1 to "
                                   "{0} (0: the format's), got {1}",
                                   limits::kMaxTokens, so.trace.blockTokens));
  auto reader = TraceReader::open(so.requestsPath, so.trace);
  if (!reader)
    return reader.takeError();
  const TraceInfo &info = (*reader)->info();
  load.trace = reader->get();
  load.hasModel = info.hasModel;
  load.blockTokens = info.hasBlocks ? info.blockTokens : 0;
  load.stream = std::move(*reader);
  load.source = load.path = so.requestsPath;
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
  // Any count: requests are drawn as the loop takes them (the span check
  // below bounds it with the rate).
  if (gen.count < 1)
    return makeError(
        llvm::formatv("--requests must be at least 1, got {0}", gen.count));
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
  load.stream = std::make_unique<PoissonSource>(gen);
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
  Load load;
  load.stream =
      std::make_unique<PeriodicSource>(std::move(loads), duration, gen.seed);
  load.source = llvm::formatv(
      "generated: {0} requests/s per model{1} over {2} s, seed {3}", rate,
      so.loadPeriodS > 0 ? llvm::formatv(", period {0} s, amplitude {1}",
                                         so.loadPeriodS, so.loadAmplitude)
                               .str()
                         : std::string(", Poisson"),
      duration, gen.seed);
  return std::move(load);
}

} // namespace

llvm::Expected<Load> phases::loadRequests(const ServeOptions &so,
                                          size_t models) {
  // The SLOs, each in its range (NaN fails every test).
  for (auto [flag, s] : {std::pair{"--slo-ttft", so.slo.ttftS},
                         std::pair{"--slo-tpot", so.slo.tpotS}})
    if (!(s >= 0 && s <= limits::kMaxArrivalS))
      return makeError(llvm::formatv("{0} must be from 0 (none) to {1} s, "
                                     "got {2}",
                                     flag, csv::number(limits::kMaxArrivalS),
                                     csv::number(s)));
  if (!(so.slo.attainment > 0 && so.slo.attainment <= 1))
    return makeError(llvm::formatv("--slo-attainment must be in (0, 1], got "
                                   "{0}",
                                   csv::number(so.slo.attainment)));
  if (so.batches.autoPick && !so.slo.any())
    return makeError("--batch auto picks the static graphs that serve the "
                     "most requests per second within the SLOs: give "
                     "--slo-ttft, --slo-tpot or both");
  if (so.nodes < 1 || so.nodes > limits::kMaxNodes)
    return makeError(llvm::formatv("--nodes must be from 1 to {0}, got {1}",
                                   limits::kMaxNodes, so.nodes));
  if (so.nodes > 1 && so.disaggregate.given())
    return makeError("--nodes and --disaggregate exclude each other: "
                     "--disaggregate P:D names every node (P + D)");
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

sim::serving::RequestSource &Load::input() {
  if (stream)
    return *stream;
  // Made again when the list has changed (a test adds to it).
  if (!list || listData != requests.data() || listSize != requests.size()) {
    list = std::make_unique<ListSource>(requests);
    listData = requests.data();
    listSize = requests.size();
  }
  return *list;
}

namespace {

/// Gives each request its model: by the trace's model column (after
/// --model-map's renaming) when several models are deployed.
class ModelAssigner {
public:
  static llvm::Expected<ModelAssigner>
  make(const Load &load, const Models &models, llvm::StringRef modelMap) {
    ModelAssigner a(load, models);
    auto pairs = parseModelMap(modelMap);
    if (!pairs)
      return pairs.takeError();
    for (const auto &[from, to] : *pairs) {
      auto k = deployedModel(to, models, "--model-map: ");
      if (!k)
        return k.takeError();
      if (*k < 0)
        return makeError(llvm::formatv("--model-map: {0}={1}, but '{1}' is "
                                       "not deployed (--model {2})",
                                       from, to, deployedNames(models)));
      a.mapped[from] = *k;
    }
    a.hasMap = !pairs->empty();
    if (a.hasMap && !load.hasModel)
      return makeError("--model-map renames a trace's model column, but " +
                       (load.path.empty()
                            ? std::string("generated requests have none")
                            : load.path +
                                  " has none (snapflow's 'model', BurstGPT's "
                                  "'Model')"));
    // One model serves every request, whatever the column says (BurstGPT's
    // ChatGPT and GPT-4 replayed on the one model deployed); generated
    // requests come with theirs.
    a.byColumn = models.size() > 1 && load.hasModel;
    if (models.size() > 1 && !load.hasModel && !load.path.empty())
      return makeError(load.path +
                       ": error: several models are deployed, but the trace "
                       "has no model column (snapflow's 'model', BurstGPT's "
                       "'Model') to say which each request asks for");
    return std::move(a);
  }

  Error assign(Request &r) const {
    if (!byColumn) {
      if (models.size() < 2)
        r.model = 0;
      return Error::success();
    }
    auto it = mapped.find(r.modelName);
    if (it != mapped.end()) {
      r.model = it->second;
      return Error::success();
    }
    std::string where =
        llvm::formatv("{0}:{1}: error: ", load.path, r.line).str();
    auto found = deployedModel(r.modelName, models, where);
    if (!found)
      return found.takeError();
    if (*found < 0)
      return makeError(llvm::formatv(
          "{0}model '{1}' is not deployed (--model {2}){3}", where, r.modelName,
          deployedNames(models),
          hasMap ? ""
                 : "; --model-map NAME=MODEL serves it as a deployed "
                   "model"));
    r.model = *found;
    return Error::success();
  }

private:
  ModelAssigner(const Load &load, const Models &models)
      : load(load), models(models) {}
  const Load &load;
  const Models &models;
  llvm::StringMap<int> mapped;
  bool hasMap = false, byColumn = false;
};

/// The requests as served, one pass over the load: each given its model
/// and fitted to its slots as --overlong says, a skipped one left out and
/// counted.
class Admitted : public RequestSource {
public:
  Admitted(Load &load, const Models &models, ModelAssigner assigner,
           Overlong overlong)
      : load(load), models(models), assigner(std::move(assigner)),
        overlong(overlong) {}
  llvm::Expected<std::optional<Request>> next() override {
    for (;;) {
      auto next = load.input().next();
      if (!next || !*next)
        return next;
      Request &r = **next;
      if (Error e = assigner.assign(r))
        return std::move(e);
      auto f = fit(r, models[r.model]->cfg(), overlong,
                   load.path.empty() ? load.source : load.path);
      if (!f)
        return f.takeError();
      if (*f == Fit::Skipped) {
        ++skipped;
        continue;
      }
      if (*f == Fit::Clipped) {
        ++clipped;
        // The blocks of the tokens cut off are not the prompt's.
        if (load.blockTokens > 0)
          r.blocks.resize(std::min<size_t>(
              r.blocks.size(), size_t(r.promptTokens / load.blockTokens)));
      }
      return next;
    }
  }
  Error rewind() override {
    skipped = clipped = 0;
    return load.input().rewind();
  }
  int64_t skipped = 0, clipped = 0;

private:
  Load &load;
  const Models &models;
  ModelAssigner assigner;
  Overlong overlong;
};

/// The slot each model's requests are fitted to.
void configureSlots(Models &models) {
  for (auto &m : models) {
    m->cfg().maxContext = m->o.context;
    // kvSlots counts cache positions; a Block Transformer's holds a block.
    m->cfg().kvTokensPerSlot = std::min(
        m->w.kvSlots * m->w.config.tokensPerCachePosition(), m->o.context);
  }
}

} // namespace

llvm::Expected<std::unique_ptr<RequestSource>>
phases::admitted(Load &load, const Models &models, const ServeOptions &so) {
  auto assigner = ModelAssigner::make(load, models, so.modelMap);
  if (!assigner)
    return assigner.takeError();
  if (Error e = load.input().rewind())
    return std::move(e);
  return std::make_unique<Admitted>(load, models, std::move(*assigner),
                                    so.overlong);
}

namespace {
/// Prefix caching where the trace carries block ids: its options checked
/// and set on the (one) model.
Error configurePrefix(const Load &load, Models &models,
                      const ServeOptions &so) {
  if (so.prefixTiers != "hbm,ddr" && so.prefixTiers != "hbm")
    return makeError("--prefix-tiers: expected hbm,ddr or hbm, got '" +
                     so.prefixTiers + "'");
  if (so.prefixKeep != "full" && so.prefixKeep != "none")
    return makeError("--prefix-keep: expected full or none, got '" +
                     so.prefixKeep + "'");
  if (load.blockTokens <= 0 || !so.prefixCache)
    return Error::success();
  if (models.size() > 1)
    return makeError(load.path +
                     " carries prefix block ids, and prefix caching serves "
                     "one model; with several deployed, say --no-prefix-cache");
  Prepared &m = *models[0];
  m.prefixBlockTokens = load.blockTokens;
  m.prefixDdr = so.prefixTiers == "hbm,ddr";
  PrefixOptions &p = m.deployed.prefix;
  p.blockTokens = load.blockTokens;
  // A policy that keeps fewer tokens than the context compresses: with
  // --prefix-keep none its requests reuse nothing.
  bool compresses = m.cfg().kvTokensPerSlot < m.o.context;
  p.reuse = !(compresses && so.prefixKeep == "none");
  return Error::success();
}
} // namespace

Error phases::scan(Load &load, Models &models, const ServeOptions &so) {
  configureSlots(models);
  for (auto &m : models) {
    m->requests = 0;
    m->buckets = Buckets();
    m->prefixBlockTokens = 0;
    m->deployed.prefix = PrefixOptions();
  }
  if (Error e = configurePrefix(load, models, so))
    return e;
  auto served = admitted(load, models, so);
  if (!served)
    return served.takeError();
  const bool several = models.size() > 1;
  load.served = 0;
  double last = 0;
  // Every request once: counted, its shapes into its model's buckets, and
  // written to --write-requests (seconds in the shortest text that reads
  // back), which is whole or absent.
  // The pass's outcome: what was left out, and an error when nothing is
  // left to serve (before --write-requests is written).
  auto close = [&]() -> Error {
    auto &admit = static_cast<Admitted &>(**served);
    load.overlongSkipped = admit.skipped;
    load.overlongClipped = admit.clipped;
    if (load.trace) {
      const TraceInfo &info = load.trace->info();
      load.emptySkipped = info.skipped;
      if (info.format != TraceFormat::Snapflow)
        load.source +=
            llvm::formatv(" ({0} trace{1})", traceFormatName(info.format),
                          info.skipped ? llvm::formatv(", {0} with 0 tokens "
                                                       "skipped",
                                                       info.skipped)
                                             .str()
                                       : std::string())
                .str();
      if (info.requests == 0)
        return makeError(
            load.path + ": error: no requests" +
            (info.skipped
                 ? llvm::formatv(" ({0} with 0 tokens skipped)", info.skipped)
                       .str()
                 : std::string()));
    }
    if (last > limits::kMaxArrivalS)
      return makeError(llvm::formatv("{0}: the last request arrives at {1} s; "
                                     "snapflow serves arrivals up to {2} s",
                                     load.source, csv::number(last),
                                     csv::number(limits::kMaxArrivalS)));
    if (load.served == 0)
      return makeError(
          load.overlongSkipped
              ? llvm::formatv("{0}: error: every request is longer than a slot "
                              "holds (--context); --overlong skip left none to "
                              "serve",
                              load.path.empty() ? load.source : load.path)
                    .str()
              : load.source + ": no requests; raise --rate or --duration");
    return Error::success();
  };
  auto pass = [&](llvm::raw_ostream *os) -> Error {
    // With prefix block ids, a hash_ids column, and a comment on their
    // size for the replay.
    const bool blocks = load.blockTokens > 0;
    if (os && blocks)
      *os << "# hash_ids in blocks of " << load.blockTokens
          << " tokens: replay with --trace-block-tokens " << load.blockTokens
          << "\n";
    if (os)
      *os << "arrival_s,prompt_tokens,output_tokens"
          << (several ? ",model" : "") << (blocks ? ",hash_ids" : "") << "\n";
    for (;;) {
      auto r = (*served)->next();
      if (!r)
        return r.takeError();
      if (!*r)
        return close();
      Prepared &m = *models[(*r)->model];
      ++m.requests;
      m.buckets.add(**r, m.o.context);
      ++load.served;
      last = (*r)->arrivalS;
      if (os) {
        *os << csv::number((*r)->arrivalS) << ',' << (*r)->promptTokens << ','
            << (*r)->outputTokens;
        if (several)
          *os << ',' << csv::field(m.deployed.name);
        if (blocks) {
          *os << ',';
          for (size_t k = 0; k < (*r)->blocks.size(); ++k)
            *os << (k ? "|" : "") << (*r)->blocks[k];
        }
        *os << '\n';
      }
    }
  };
  if (so.writeRequestsPath.empty()) {
    if (Error e = pass(nullptr))
      return e;
  } else if (Error e =
                 writeOutput(so.writeRequestsPath, [&](llvm::raw_ostream &os) {
                   return pass(&os);
                 })) {
    std::string msg = llvm::toString(std::move(e));
    // A request's own error is reported as it is; the file's, named.
    return makeError(llvm::StringRef(msg).contains(": error: ") ||
                             llvm::StringRef(msg).starts_with("--")
                         ? msg
                         : "--write-requests: " + so.writeRequestsPath + ": " +
                               msg);
  }
  for (auto &m : models)
    m->buckets.close(m->o.context);
  return Error::success();
}
