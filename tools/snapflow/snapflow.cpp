//===- snapflow.cpp - The snapflow command line ---------------------------===//
//
// `snapflow <command> [options]`. Each command declares its options with
// llvm::cl in its own option category, so `snapflow <command> --help` lists
// exactly those; the pipeline's options take their help and default from
// PipelineOptions.def. An unknown flag or a malformed value is an error
// (exit 1). What a command does is the driver library's
// (snapflow/Driver/); this file parses flags and Print.cpp prints.
//
//===----------------------------------------------------------------------===//

#include "Main.h"
#include "Options.h"
#include "Print.h"

#include "snapflow/Driver/Context.h"
#include "snapflow/Driver/Deployment.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Driver/MemoryTrace.h"
#include "snapflow/Driver/Sweep.h"
#include "snapflow/Support/EnumNames.h"
#include "snapflow/Support/Nearest.h"
#include "snapflow/Support/Number.h"
#include "snapflow/Support/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <deque>
#include <optional>

using namespace llvm;
using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::tools;
using namespace snapflow::tools::cli;

namespace {

/// An output that would overwrite an input of the same command, or another
/// output (R10: `simulate p.mlir --report p.mlir` replaced the program;
/// `--report x --trace x` kept the last). Paths are compared as files when
/// both exist, else by their absolute, dot-free spelling.
Error checkOutputPaths() {
  struct Named {
    const char *flag;
    const std::string *path;
  };
  const Named inputs[] = {
      {"--model", &modelOpt},           {"--chip", &chipOpt},
      {"--chip", &simChipOpt},          {"--what-if-chip", &whatIfChipOpt},
      {"the program", &programOpt},     {"--trace-requests", &requestsFileOpt},
      {"--deployment", &deploymentOpt}, {"the trace", &traceFileOpt},
  };
  const Named outputs[] = {
      {"-o", &compileOutOpt},
      {"--report", &reportOpt},
      {"--report", &simReportOpt},
      {"--trace", &traceOpt},
      {"--csv", &csvOpt},
      {"--svg", &svgOpt},
      {"--write-requests", &writeRequestsOpt},
      {"--request-results", &requestResultsOpt},
      {"-o", &outputOpt},
  };
  auto spelled = [](const std::string &path) {
    llvm::SmallString<256> p(path);
    (void)llvm::sys::fs::make_absolute(p); // else compared as given
    llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
    return std::string(p);
  };
  auto same = [&](const std::string &a, const std::string &b) {
    bool equal = false;
    if (!llvm::sys::fs::equivalent(a, b, equal))
      return equal;
    return spelled(a) == spelled(b);
  };
  auto given = [](const std::string &path) {
    return !path.empty() && path != "-" &&
           !StringRef(path).starts_with("/dev/");
  };
  for (size_t i = 0; i < std::size(outputs); ++i) {
    const Named &out = outputs[i];
    if (!given(*out.path))
      continue;
    for (const Named &in : inputs)
      if (given(*in.path) && llvm::sys::fs::exists(*in.path) &&
          same(*out.path, *in.path))
        return createStringError(
            inconvertibleErrorCode(),
            formatv("{0} {1} would overwrite the input {1} ({2}); write it "
                    "elsewhere",
                    out.flag, *out.path, in.flag)
                .str());
    for (size_t j = 0; j < i; ++j)
      if (given(*outputs[j].path) && same(*out.path, *outputs[j].path))
        return createStringError(
            inconvertibleErrorCode(),
            formatv("{0} and {1} both name {2}; give each its own file",
                    outputs[j].flag, out.flag, *out.path)
                .str());
  }
  return Error::success();
}

/// `snapflow COMMAND ... --flag`: a flag COMMAND does not take, as one
/// error naming the flag it is nearest to (or the commands that take it),
/// before llvm::cl's own "Unknown command line argument".
std::optional<std::string> unknownFlag(int argc, char **argv) {
  if (argc < 2)
    return std::nullopt;
  cl::SubCommand *sub = nullptr;
  std::vector<std::string> names;
  for (cl::SubCommand *c : allCommands()) {
    names.push_back(c->getName().str());
    if (c->getName() == StringRef(argv[1]))
      sub = c;
  }
  if (!sub) {
    StringRef word = argv[1];
    if (word.starts_with("-")) // --help, --version: llvm::cl's
      return std::nullopt;
    std::string message = formatv("unknown command '{0}'", word).str();
    llvm::SmallVector<StringRef> commands(names.begin(), names.end());
    if (StringRef n = nearestName(word, commands, 2); !n.empty())
      return message + formatv("; did you mean '{0}'?", n).str();
    return message + "; the commands are " + llvm::join(names, ", ") +
           " (see `snapflow --help`)";
  }
  auto &options = cl::getRegisteredOptions(*sub);
  // How many words (not flags) the command takes: one per positional
  // option, any number with a list, a sink or a consume-after option.
  size_t words = 0, maxWords = 0;
  for (cl::Option *o : sub->PositionalOpts)
    maxWords = o->getNumOccurrencesFlag() == cl::ZeroOrMore ||
                       o->getNumOccurrencesFlag() == cl::OneOrMore ||
                       maxWords == SIZE_MAX
                   ? SIZE_MAX
                   : maxWords + 1;
  if (!sub->SinkOpts.empty() || sub->ConsumeAfterOpt)
    maxWords = SIZE_MAX;
  for (int i = 2; i < argc; ++i) {
    StringRef arg = argv[i];
    if (arg == "--")
      break;
    if (!arg.starts_with("-") || arg == "-") {
      // A word past the ones the command takes: one line, not llvm::cl's
      // two.
      ++words;
      if (words > maxWords)
        return maxWords == 0
                   ? formatv("{0} takes no argument '{1}'; its inputs are "
                             "flags (see `snapflow {0} --help`)",
                             sub->getName(), arg)
                         .str()
                   : formatv("{0} takes {1} file argument{2}; '{3}' is one "
                             "too many (see `snapflow {0} --help`)",
                             sub->getName(), maxWords, maxWords == 1 ? "" : "s",
                             arg)
                         .str();
      continue;
    }
    auto [name, value] = arg.ltrim('-').split('=');
    auto known = options.find(name);
    if (known != options.end()) {
      // `--flag VALUE`: the value is not a flag, whatever it starts with.
      if (!arg.contains('=') &&
          known->second->getValueExpectedFlag() == cl::ValueRequired)
        ++i;
      continue;
    }
    bool prefixed = false; // -j4
    for (const auto &o : options)
      if (!o.first().empty() && o.second->getFormattingFlag() == cl::Prefix &&
          name.starts_with(o.first()))
        prefixed = true;
    if (prefixed)
      continue;
    std::string message =
        formatv("{0} takes no flag '{1}'", sub->getName(), arg).str();
    // The nearest flag this command lists in its --help.
    llvm::SmallVector<StringRef> listed;
    for (const auto &o : options)
      if (!o.first().empty() &&
          o.second->getOptionHiddenFlag() == cl::NotHidden)
        listed.push_back(o.first());
    StringRef best =
        nearestName(name, listed, std::max<size_t>(2, name.size() / 3));
    if (!best.empty())
      message += formatv("; did you mean '--{0}'?", best).str();
    else {
      std::vector<std::string> others;
      for (cl::SubCommand *c : allCommands())
        if (cl::Option *o = cl::getRegisteredOptions(*c).lookup(name);
            c != sub && o && o->getOptionHiddenFlag() == cl::NotHidden)
          others.push_back(c->getName().str());
      if (!others.empty())
        message += "; it is a flag of " + llvm::join(others, ", ");
    }
    return message +
           formatv(" (see `snapflow {0} --help`)", sub->getName()).str();
  }
  return std::nullopt;
}

int fail(Error err) {
  int code = 1;
  handleAllErrors(std::move(err), [&](const ErrorInfoBase &e) {
    if (e.isA<ProgramFailure>())
      code = 2;
    std::string msg = e.message();
    // Located diagnostics (file:line:col: error: ...) already say what they
    // are; an error located at a flag (`--set: error: ...`, from the chip
    // model's overrides) is the command line's, said as the others are.
    if (!StringRef(msg).contains(": error: ")) {
      WithColor::error(errs(), "snapflow") << msg << "\n";
      return;
    }
    llvm::SmallVector<StringRef> lines;
    StringRef(msg).split(lines, '\n');
    for (StringRef line : lines) {
      auto [where, what] = line.split(": error: ");
      if (where.starts_with("--") && !what.empty())
        WithColor::error(errs(), "snapflow") << where << ": " << what << "\n";
      else
        errs() << line << "\n";
    }
  });
  return code;
}

/// A workload option's flag, read by its table's parser when given.
template <class T, class Parse>
Error readFlag(const cl::opt<std::string> &flag, Parse parse, StringRef what,
               T &out) {
  if (!flag.getNumOccurrences())
    return Error::success();
  auto v = parse(flag, what);
  if (!v)
    return v.takeError();
  out = std::move(*v);
  return Error::success();
}
template <class T, class Parse>
Error readFlag(const cl::list<std::string> &flag, Parse parse, StringRef what,
               std::vector<T> &out) {
  for (const std::string &item : flag) {
    auto v = parse(item, what);
    if (!v)
      return v.takeError();
    out.push_back(std::move(*v));
  }
  return Error::success();
}

/// The workload options (WorkloadOptions.def); `max` as batch only where
/// `allowMax`, and a set of batches (--batch 1,8,64 or auto, serving's
/// static graphs) only where `batches` takes it: the batch is then its
/// largest.
llvm::Expected<WorkloadOptions> workload(bool allowMax = false,
                                         bool *maxBatch = nullptr,
                                         BatchSet *batches = nullptr) {
  WorkloadOptions o;
  const bool set = batches && isBatchSet(batchOpt);
#define SNAPFLOW_WORKLOAD_OPTION(TYPE, FIELD, DEFAULT, PARSE, FLAG, ...)       \
  if (!(set && StringRef(FLAG) == "batch"))                                    \
    if (Error e = readFlag(FIELD##Opt, PARSE, "--" FLAG, o.FIELD))             \
      return std::move(e);
#include "snapflow/Driver/WorkloadOptions.def"
  if (set) {
    auto parsed = parseBatchSet(batchOpt, "--batch");
    if (!parsed)
      return parsed.takeError();
    *batches = std::move(*parsed);
    o.batch = batches->largest();
  }
  // Without --context, a model whose positions end before the default runs
  // at its max_position_embeddings (Qwen3-8B: 40960), and says so; a given
  // --context beyond it stays an error.
  if (!contextOpt.getNumOccurrences())
    if (auto config = models::ModelConfig::load(o.model);
        config && config->maxPositionEmbeddings < o.context &&
        config->tokensPerCachePosition() == 1) {
      llvm::errs() << "snapflow: note: --context not given: "
                   << config->maxPositionEmbeddings << " tokens, "
                   << (o.name.empty() ? config->name : o.name)
                   << "'s max_position_embeddings (the default, " << o.context
                   << ", is beyond it)\n";
      o.context = config->maxPositionEmbeddings;
    }
  if (o.batch == kBatchMax) {
    if (!allowMax)
      return createStringError(inconvertibleErrorCode(),
                               "--batch must be a number, got 'max'");
    o.batch = 1;
    *maxBatch = true;
  }
  return o;
}

/// A command option's flag (CommandOptions.def) read into its target
/// when given: a value by its parser, a switch as set.
template <class Parse, class T>
Error readOption(Value, const cl::opt<std::string> &flag, Parse parse,
                 StringRef what, T &target) {
  return readFlag(flag, parse, what, target);
}
Error readOption(Switch, const cl::opt<bool> &flag, std::nullptr_t, StringRef,
                 bool &target) {
  if (flag.getNumOccurrences())
    target = flag;
  return Error::success();
}
Error readOption(NegSwitch, const cl::opt<bool> &flag, std::nullptr_t,
                 StringRef, bool &target) {
  if (flag.getNumOccurrences())
    target = !flag;
  return Error::success();
}

/// Whether a generated load's flags were given (--rate, --requests, ...).
bool generatingGiven() {
  return rateOpt.getNumOccurrences() || loadPeriodOpt.getNumOccurrences() ||
         durationOpt.getNumOccurrences() || requestsOpt.getNumOccurrences() ||
         seedOpt.getNumOccurrences() || promptTokensOpt.getNumOccurrences() ||
         outputTokensOpt.getNumOccurrences() || spreadOpt.getNumOccurrences();
}

std::string givenFlag(const cl::opt<std::string> &flag) {
  return "--" + flag.ArgStr.str() + "=" + flag.getValue();
}
std::string givenFlag(const cl::opt<bool> &flag) {
  return "--" + flag.ArgStr.str();
}

template <class Struct> Error readOptions(Struct &o);

/// `sweep --serve`: the serving flags read (each needs --serve) and
/// recorded as given, for the manifest.
Error readSweepServing(SweepOptions &o) {
  std::vector<std::string> given;
#define SNAPFLOW_COMMAND_OPTION(NAME, STRUCT, KIND, TARGET, PARSE, FLAG, USES, \
                                GROUP, ...)                                    \
  if (StringRef(#GROUP) == "Serve" && NAME##Opt.getNumOccurrences())           \
    given.push_back(givenFlag(NAME##Opt));
#include "snapflow/Driver/CommandOptions.def"
  o.serve = sweepServeOpt;
  if (!o.serve) {
    if (given.empty())
      return Error::success();
    return createStringError(inconvertibleErrorCode(),
                             llvm::join(given, ", ") +
                                 (given.size() == 1 ? " needs" : " need") +
                                 " sweep --serve");
  }
  if (Error e = readOptions(o.serveOptions))
    return e;
  o.serveOptions.generate = generatingGiven();
  o.serveOptions.cachePolicyGiven = modelCacheOpt.getNumOccurrences() > 0;
  o.serveFlags = llvm::join(given, " ");
  return Error::success();
}

/// Every flag of CommandOptions.def that sets a member of `o`.
template <class Struct> Error readOptions(Struct &o) {
#define SNAPFLOW_COMMAND_OPTION(NAME, STRUCT, KIND, TARGET, PARSE, FLAG, ...)  \
  if constexpr (std::is_same_v<Struct, STRUCT>)                                \
    if (Error e = readOption(KIND{}, NAME##Opt, PARSE, "--" FLAG, o.TARGET))   \
      return e;
#include "snapflow/Driver/CommandOptions.def"
  return Error::success();
}

llvm::Expected<SimulateOptions> simulateOptions() {
  SimulateOptions s;
  if (Error e = readOptions(s))
    return std::move(e);
  return s;
}

llvm::Expected<CompileOptions> compileOptions() {
  CompileOptions c;
  if (Error e = readOptions(c))
    return std::move(e);
  // The routing model's flags, in the user's words (a NaN skew was ignored
  // without --routing-seed, and with it named the pass's "trials", R19, R21).
  if (c.pipeline.routingSeed < -1)
    return createStringError(inconvertibleErrorCode(),
                             "--routing-seed must be a seed >= 0 (or -1: the "
                             "uniform-routing formula), got " +
                                 Twine(c.pipeline.routingSeed));
  if (!(c.pipeline.routingSkew >= 0))
    return createStringError(
        inconvertibleErrorCode(),
        "--routing-skew must be a Zipf exponent >= 0 (0: uniform), got " +
            shortestText(c.pipeline.routingSkew));
  if (routingSkewOpt.getNumOccurrences() && c.pipeline.routingSeed < 0)
    return createStringError(inconvertibleErrorCode(),
                             "--routing-skew needs --routing-seed: the skew "
                             "shapes the seeded routing model (without a "
                             "seed experts are counted by the uniform-routing "
                             "formula)");
  return c;
}

Error sweep() {
  if (!sweepArgs.empty()) {
    std::vector<std::string> rest(sweepArgs.begin() + 1, sweepArgs.end());
    if (sweepArgs[0] == "merge")
      return mergeSweeps(rest, sweepOutOpt, outs());
    if (sweepArgs[0] == "plot") {
      if (rest.size() != 1)
        return createStringError(inconvertibleErrorCode(),
                                 "usage: snapflow sweep plot DIR");
      return drawSweep(rest[0], outs());
    }
    return createStringError(inconvertibleErrorCode(),
                             "sweep: unexpected argument '" + sweepArgs[0] +
                                 "' (expected merge or plot)");
  }
  SweepOptions o;
  readSweepAxes(o);
  if (Error e = readSweepServing(o))
    return e;
  o.jobs = jobsOpt;
  o.steps = sweepStepsOpt;
  o.prefill = sweepPrefillOpt;
  o.resume = resumeOpt;
  o.extend = extendOpt;
  o.outputDir = sweepOutOpt;
  auto [i, n] = StringRef(shardOpt).split('/');
  if (i.getAsInteger(10, o.shardIndex) || n.getAsInteger(10, o.shardCount))
    return createStringError(inconvertibleErrorCode(),
                             "--shard: expected i/N like 0/4, got '" +
                                 shardOpt + "'");
  if (o.jobs < 1)
    return createStringError(inconvertibleErrorCode(),
                             "-j: expected a positive number, got " +
                                 std::to_string(o.jobs));
  return runSweep(o, outs());
}

} // namespace

// libsystemc defines main() and calls sc_main; snapflow has its own main, so
// this is never called, but the link needs it (libsystemc's own main()
// references it).
extern "C" int sc_main(int, char **) { return 0; }

namespace {

/// 0, or the error reported (fail).
int checked(Error e) { return e ? fail(std::move(e)) : 0; }

/// `info`, `import` and `compile`: a workload, described, built or
/// compiled.
int workloadCommand() {
  auto w = workload();
  if (!w)
    return fail(w.takeError());
  if (infoCmd) {
    auto co = compileOptions();
    if (!co)
      return fail(co.takeError());
    auto info =
        describeWorkload(*w, *llm::parseMlaCache(co->pipeline.mlaCache));
    if (!info)
      return fail(info.takeError());
    if (!info->planError.empty()) {
      // The TP-free figures (parameters, KV per token), then why there is
      // no plan per socket.
      if (!jsonOpt)
        printInfo(outs(), *info, false);
      outs().flush();
      return fail(createStringError(inconvertibleErrorCode(), info->planError));
    }
    printInfo(outs(), *info, jsonOpt);
    return 0;
  }
  if (importCmd) {
    ImportOptions io;
    if (importPhaseOpt != "both") {
      io.phase = arch::parsePhase(importPhaseOpt);
      if (!io.phase)
        return fail(createStringError(inconvertibleErrorCode(),
                                      "--phase must be decode, prefill or "
                                      "both, got '" +
                                          importPhaseOpt + "'"));
    }
    auto prompt = parseTokens(promptOpt, "--prompt");
    if (!prompt)
      return fail(prompt.takeError());
    io.promptTokens = *prompt;
    auto co = compileOptions();
    if (!co)
      return fail(co.takeError());
    io.mtpDepth = co->mtp;
    io.mtpAcceptance = co->mtpAcceptance;
    io.prefillChunk = co->prefillChunk;
    return checked(importModel(*w, io, outputOpt));
  }
  auto co = compileOptions();
  if (!co)
    return fail(co.takeError());
  auto c = compile(*w, *co);
  if (!c)
    return fail(c.takeError());
  printCompile(outs(), *c);
  return 0;
}

/// `simulate FILE`.
int simulateCommand() {
  auto so = simulateOptions();
  if (!so)
    return fail(so.takeError());
  auto s = simulateFile(programOpt, *so);
  if (!s)
    return fail(s.takeError());
  if (!so->quiet)
    printSimulation(outs(), *s, profileOpt);
  return 0;
}

/// The nodes a deployment file names, into the serving options; the same
/// given by a flag too is an error naming both.
Error applyDeploymentNodes(const DeploymentNodes &file, ServeOptions &so) {
  auto both = [](const cl::Option &flag, const std::string &at) {
    return createStringError(inconvertibleErrorCode(),
                             "--" + flag.ArgStr.str() + " and " + at +
                                 " name the nodes twice; give one");
  };
  if (file.nodes) {
    if (nodesOpt.getNumOccurrences())
      return both(nodesOpt, file.nodesAt);
    so.nodes = *file.nodes;
  }
  if (file.router) {
    if (routerOpt.getNumOccurrences())
      return both(routerOpt, file.routerAt);
    so.router = *file.router;
  }
  if (file.disaggregate) {
    if (disaggregateOpt.getNumOccurrences())
      return both(disaggregateOpt, file.disaggregateAt);
    so.disaggregate = *file.disaggregate;
  }
  return Error::success();
}

/// `run --serve`: the requests served on a deployment of `w`'s models.
int serveCommand(const WorkloadOptions &w, bool maxBatch,
                 const CompileOptions &co, bool generating,
                 const BatchSet &batches) {
  ServeOptions so;
  if (Error e = readOptions(so))
    return fail(std::move(e));
  so.batches = batches;
  so.generate = generating;
  so.cachePolicyGiven = modelCacheOpt.getNumOccurrences() > 0;
  // The models: --model a,b,... (each with the shared --kv, --batch and
  // --context), or a deployment file, each model with its own.
  if (!deploymentOpt.empty() && modelOpt.getNumOccurrences())
    return fail(createStringError(inconvertibleErrorCode(),
                                  "--deployment " + deploymentOpt +
                                      " lists the models; drop --model " +
                                      modelOpt));
  DeploymentNodes fileNodes;
  auto deployment =
      deploymentOpt.empty()
          ? splitModels(w, maxBatch)
          : readDeployment(deploymentOpt, w, maxBatch, &fileNodes);
  if (!deployment)
    return fail(deployment.takeError());
  if (Error e = applyDeploymentNodes(fileNodes, so))
    return fail(std::move(e));
  if (deployment->size() == 1 &&
      (so.cachePolicyGiven &&
       so.cache.policy != sim::serving::CachePolicy::Static))
    return fail(createStringError(
        inconvertibleErrorCode(),
        "--model-cache " + modelCacheOpt + " caches several models; " +
            (deploymentOpt.empty() ? "--model names one"
                                   : deploymentOpt + " lists one")));
  auto sim = simulateOptions();
  if (!sim)
    return fail(sim.takeError());
  auto served = serve(*deployment, co, *sim, so);
  if (!served)
    return fail(served.takeError());
  if (!sim->quiet)
    printServe(outs(), *served);
  return 0;
}

/// `run`: compile and simulate, or serve.
int runCommand() {
  bool maxBatch = false;
  BatchSet batches;
  auto w = workload(/*allowMax=*/true, &maxBatch, &batches);
  if (!w)
    return fail(w.takeError());
  if (batches.given() && !serveOpt)
    return fail(createStringError(
        inconvertibleErrorCode(),
        "--batch " + batchOpt +
            " compiles several static graphs, which only serving runs; "
            "add --serve, or give one batch"));
  auto co = compileOptions();
  if (!co)
    return fail(co.takeError());
  // Verified once, after the last pass, as a sweep's points are: the
  // program is as checked, and per-pass verification (compile's, where the
  // IR is the output) was a fifth of the compile.
  co->verifyEachPass = false;
  bool generating = generatingGiven();
  if (!serveOpt) {
    // Name the serving flags given, each of which needs --serve.
    std::vector<std::string> given;
    std::vector<cl::Option *> serving{&deploymentOpt};
#define SNAPFLOW_COMMAND_OPTION(NAME, STRUCT, KIND, TARGET, PARSE, FLAG, USES, \
                                GROUP, ...)                                    \
  if (StringRef(#GROUP) == "Serve")                                            \
    serving.push_back(&NAME##Opt);
#include "snapflow/Driver/CommandOptions.def"
    for (cl::Option *opt : serving)
      if (opt->getNumOccurrences())
        given.push_back("--" + opt->ArgStr.str());
    if (!given.empty())
      return fail(createStringError(
          inconvertibleErrorCode(),
          llvm::join(given, ", ") + (given.size() == 1 ? " needs" : " need") +
              " --serve"));
    auto sim = simulateOptions();
    if (!sim)
      return fail(sim.takeError());
    auto r = runWorkload(*w, maxBatch, *co, *sim);
    if (!r)
      return fail(r.takeError());
    if (!sim->quiet)
      printSimulation(outs(), *r, profileOpt);
    return 0;
  }
  return serveCommand(*w, maxBatch, *co, generating, batches);
}

/// `trace FILE`: a trace's occupancy summarised (and drawn).
int traceCommand() {
  if (traceFileOpt.empty())
    return fail(makeError("trace needs a trace file; write one with "
                          "`snapflow run --trace t.json`"));
  auto trace = readMemoryTrace(traceFileOpt);
  if (!trace)
    return fail(trace.takeError());
  printTrace(outs(), traceFileOpt, *trace);
  if (!svgOpt.empty()) {
    if (Error e =
            drawOccupancy(*trace, sys::path::filename(traceFileOpt), svgOpt))
      return fail(std::move(e));
    outs() << "occupancy plot: " << svgOpt << "\n";
  }
  return 0;
}

} // namespace

void snapflow::tools::cli::prepare() {
  static bool prepared = false;
  if (prepared)
    return;
  prepared = true;
  cl::HideUnrelatedOptions(
      {&workloadCat, &outputCat, &compileCat, &simCat, &sweepCat, &serveCat},
      cl::SubCommand::getTopLevel());
  for (cl::SubCommand *sub : allCommands())
    cl::HideUnrelatedOptions(
        {&workloadCat, &outputCat, &compileCat, &simCat, &sweepCat, &serveCat},
        *sub);
  (void)driverContext();
  for (const std::string &chip : arch::ArchModel::builtinNames())
    consumeError(arch::ArchModel::load(chip).takeError());
}

int snapflow::tools::cli::main(int argc, char **argv) {
  // Before any SystemC object exists: no banner on stderr.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", /*overwrite=*/0);
  // `snapflow --version`: snapflow's version and source revision (the
  // string every report, CSV and trace records), then the LLVM it uses.
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "snapflow " << versionString() << "\n  built with MLIR/LLVM "
       << LLVM_VERSION_STRING << "\n";
  });
  prepare();
  // A process may run several command lines (the Python module's call
  // server): each starts from the defaults.
  static bool parsedBefore = false;
  if (parsedBefore)
    cl::ResetAllOptionOccurrences();
  parsedBefore = true;
  if (std::optional<std::string> bad = unknownFlag(argc, argv)) {
    WithColor::error(errs(), "snapflow") << *bad << "\n";
    return 1;
  }
  // Errors are returned, not exited on (--help and --version still exit).
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "snapflow: compile LLM inference graphs with KV-cache compression to "
          "dataflow programs and simulate them on an SN40L-like chip\n\n"
          "  snapflow list\n"
          "  snapflow info --model deepseek-r1 --chip sn40l-16 --context "
          "131072 "
          "--batch 8 --kv snapstream:ratio=4 [--json]\n"
          "  snapflow import --model llama-3.1-8b --batch 1 --context 4096 "
          "[-o model.mlir]\n"
          "  snapflow compile --model deepseek-r1 --chip sn40l-16 --phase "
          "decode "
          "--batch 8 --context 131072 --kv snapstream:ratio=4 -o out.mlir "
          "--report compile.json\n"
          "  snapflow simulate out.mlir --steps 64 --trace t.json\n"
          "  snapflow run --model deepseek-r1 --chip sn40l-16 --batch max "
          "--context 131072 --kv snapstream:ratio=4\n"
          "  snapflow run --serve --context 16384 --batch max --rate 0.5 "
          "--requests 300 | --trace-requests reqs.csv\n"
          "  snapflow sweep --context 8k,32k,128k --kv full,snapstream:ratio=4 "
          "--batch 1,16,max -j 2 -o DIR [--resume|--extend] [--shard i/N]\n"
          "  snapflow sweep merge DIR... -o OUT\n"
          "  snapflow trace t.json [--svg occupancy.svg]\n\n"
          "Run `snapflow <command> --help` for a command's options.\n",
          &errs()))
    return 1;

  if (Error e = checkOutputPaths())
    return fail(std::move(e));
  if (listCmd)
    return checked(printList(outs(), componentsOpt, reportKeysOpt, listKvOpt,
                             familiesOpt));
  if (infoCmd || importCmd || compileCmd)
    return workloadCommand();
  if (simulateCmd)
    return simulateCommand();
  if (runCmd)
    return runCommand();
  if (sweepCmd)
    return checked(sweep());
  if (traceCmd)
    return traceCommand();
  errs() << "snapflow: no command given; run `snapflow --help`\n";
  return 1;
}
