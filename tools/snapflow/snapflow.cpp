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

#include "Print.h"

#include "snapflow/Driver/Deployment.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Driver/MemoryTrace.h"
#include "snapflow/Driver/Sweep.h"
#include "snapflow/Support/Nearest.h"
#include "snapflow/Support/Number.h"
#include "snapflow/Support/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
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

namespace {

/// llvm::cl's double parser, but refusing an empty value (it read '' as 0:
/// `--length-spread ''` ran with no spread, R21) and one that is not a
/// finite number (nan, inf).
class FiniteDouble : public cl::parser<double> {
public:
  using cl::parser<double>::parser;
  /// The error in snapflow's form (llvm::cl's is "for the --rate option:
  /// 'x' value invalid for floating point argument!").
  bool parse(cl::Option &o, StringRef name, StringRef arg, double &value) {
    double v;
    if (arg.trim().empty() || arg.trim().getAsDouble(v) || !std::isfinite(v)) {
      WithColor::error(errs(), "snapflow")
          << "--" << o.ArgStr << " must be a finite number, got '" << arg
          << "'\n";
      return true;
    }
    value = v;
    return false;
  }
};

/// The help of a pipeline option with its default, from PipelineOptions.def
/// (kept alive for cl::desc).
StringRef pipelineHelp(StringRef flag, StringRef prefix = "") {
  static std::deque<std::string> texts;
  const PipelineOptions::Info &i = PipelineOptions::info(flag);
  texts.push_back((prefix + i.help +
                   " (default: " + StringRef(i.defaultText).trim('"') + ")")
                      .str());
  return texts.back();
}

/// `help (default: VALUE)`, for a default declared in driver/Workload.h.
StringRef withDefault(StringRef help, const llvm::Twine &value) {
  static std::deque<std::string> texts;
  texts.push_back((help + " (default: " + value + ")").str());
  return texts.back();
}

const WorkloadOptions kWorkload;
const CompileOptions kCompile;

cl::OptionCategory workloadCat("Workload options");
cl::OptionCategory outputCat("Output options");

cl::SubCommand listCmd("list", "List built-in models, chips and KV policies");
cl::SubCommand
    infoCmd("info",
            "Parameters, KV-cache bytes and whether weights + KV fit each "
            "memory tier of a chip");
cl::SubCommand
    importCmd("import",
              "Print the llm IR of a model: @prefill and @decode functions");
cl::SubCommand
    compileCmd("compile",
               "Compile one phase of a model for a chip: KV compression, "
               "tensor parallelism, layer loops, memory plan");
cl::SubCommand
    simulateCmd("simulate",
                "Run a compiled df program on the SystemC model of its chip");
cl::SubCommand runCmd("run", "Compile and simulate: the everyday command");
cl::SubCommand
    sweepCmd("sweep",
             "Run a grid of configurations in parallel worker processes; "
             "resumable, shardable; CSV, plots and a summary");
cl::SubCommand traceCmd("trace", "Summarise the memory occupancy of a "
                                 "trace written by run/simulate --trace");

// Workload options, shared by info and import.
cl::opt<std::string>
    modelOpt("model",
             cl::desc(withDefault("Built-in model name or path "
                                  "to a Hugging Face config.json",
                                  kWorkload.model)),
             cl::value_desc("name|path"), cl::init(kWorkload.model),
             cl::cat(workloadCat), cl::sub(infoCmd), cl::sub(importCmd),
             cl::sub(compileCmd), cl::sub(runCmd));
cl::opt<std::string> chipOpt("chip", cl::desc(pipelineHelp("chip")),
                             cl::value_desc("name|path"),
                             cl::init(PipelineOptions().chip),
                             cl::cat(workloadCat), cl::sub(infoCmd),
                             cl::sub(compileCmd), cl::sub(runCmd));
cl::list<std::string> setOpt(
    "set",
    cl::desc("Change a chip parameter for a what-if, e.g. --set "
             "system.link_latency_ns=500 (any key of docs/ArchConfig.md; "
             "repeatable); recorded in the module's df.target. sweep: "
             "KEY=V1,V2,... is an axis of the grid"),
    cl::value_desc("KEY=VALUE"), cl::cat(workloadCat), cl::sub(infoCmd),
    cl::sub(compileCmd), cl::sub(runCmd), cl::sub(sweepCmd));
// Token counts read as everywhere: 8192, 8k, 128K, 1M (parseTokens).
cl::opt<std::string>
    contextOpt("context",
               cl::desc(withDefault("Tokens in context per "
                                    "sequence, for decode; 8k = "
                                    "8192",
                                    llvm::Twine(kWorkload.context))),
               cl::value_desc("N"), cl::init(std::to_string(kWorkload.context)),
               cl::cat(workloadCat), cl::sub(infoCmd), cl::sub(importCmd),
               cl::sub(compileCmd), cl::sub(runCmd));
cl::opt<std::string> promptOpt(
    "prompt",
    cl::desc("Prompt tokens per sequence, for prefill (default: 4096)"),
    cl::value_desc("L"), cl::init("4096"), cl::cat(workloadCat),
    cl::sub(importCmd));
// `max` only where a command can search for it (run): --help lists what
// each command accepts.
cl::opt<std::string> batchOpt(
    "batch",
    cl::desc(withDefault("Sequences per batch", llvm::Twine(kWorkload.batch))),
    cl::value_desc("B"), cl::init(std::to_string(kWorkload.batch)),
    cl::cat(workloadCat), cl::sub(infoCmd), cl::sub(importCmd),
    cl::sub(compileCmd));
cl::opt<std::string> runBatchOpt(
    "batch",
    cl::desc(withDefault("Sequences per batch, or max: the largest that "
                         "fits",
                         llvm::Twine(kWorkload.batch))),
    cl::value_desc("B|max"), cl::init(std::to_string(kWorkload.batch)),
    cl::cat(workloadCat), cl::sub(runCmd));
cl::opt<std::string> kvOpt("kv", cl::desc(pipelineHelp("kv")),
                           cl::value_desc("policy"),
                           cl::init(PipelineOptions().kv), cl::cat(workloadCat),
                           cl::sub(infoCmd), cl::sub(compileCmd),
                           cl::sub(runCmd));
cl::opt<std::string> kvFormatOpt("kv-format",
                                 cl::desc(pipelineHelp("kv-format")),
                                 cl::value_desc("format"),
                                 cl::init(PipelineOptions().kvFormat),
                                 cl::cat(workloadCat), cl::sub(infoCmd),
                                 cl::sub(compileCmd), cl::sub(runCmd));
cl::opt<int64_t> tpOpt("tp",
                       cl::desc("Tensor-parallel sockets (default: all "
                                "sockets of the chip)"),
                       cl::value_desc("N"), cl::init(0), cl::cat(workloadCat),
                       cl::sub(infoCmd), cl::sub(compileCmd), cl::sub(runCmd));
cl::opt<std::string>
    weightsDtypeOpt("weights-dtype",
                    cl::desc("Dtype of projection weights: bf16 or fp8 "
                             "(default: the checkpoint's)"),
                    cl::value_desc("bf16|fp8"), cl::init(""),
                    cl::cat(workloadCat), cl::sub(infoCmd), cl::sub(importCmd),
                    cl::sub(compileCmd), cl::sub(runCmd));

cl::opt<int64_t> claOpt(
    "cla",
    cl::desc("Cross-layer attention: layers share K/V in groups of S, the "
             "first of a group computing and caching them (default: the "
             "config's cla_share_factor, else 1 = off)"),
    cl::value_desc("S"), cl::init(0), cl::cat(workloadCat), cl::sub(infoCmd),
    cl::sub(importCmd), cl::sub(compileCmd), cl::sub(runCmd));

cl::OptionCategory compileCat("Compiler options");
cl::opt<std::string> phaseOpt("phase",
                              cl::desc("Phase to compile: decode (--context "
                                       "tokens in context) or prefill "
                                       "(--context prompt tokens); default "
                                       "decode"),
                              cl::value_desc("decode|prefill"),
                              cl::init(kCompile.phase), cl::cat(compileCat),
                              cl::sub(compileCmd));
cl::opt<std::string> importPhaseOpt(
    "phase",
    cl::desc("Phases to build: decode, prefill (of --prompt tokens) or both "
             "(default both)"),
    cl::value_desc("decode|prefill|both"), cl::init("both"),
    cl::cat(workloadCat), cl::sub(importCmd));
cl::opt<std::string> mlaCacheOpt("mla-cache",
                                 cl::desc(pipelineHelp("mla-cache")),
                                 cl::value_desc("replicate|sequence|batch"),
                                 cl::init(PipelineOptions().mlaCache),
                                 cl::cat(compileCat), cl::sub(compileCmd),
                                 cl::sub(runCmd), cl::sub(infoCmd));
cl::opt<std::string> moeOpt("moe", cl::desc(pipelineHelp("moe")),
                            cl::value_desc("expert|split"),
                            cl::init(PipelineOptions().moe),
                            cl::cat(compileCat), cl::sub(compileCmd),
                            cl::sub(runCmd));
cl::opt<bool> allowDdrOpt("allow-ddr", cl::desc(pipelineHelp("allow-ddr")),
                          cl::init(PipelineOptions().allowDdr),
                          cl::cat(compileCat), cl::sub(compileCmd),
                          cl::sub(runCmd));
cl::opt<bool> noFuseOpt("no-fuse-layers",
                        cl::desc("Keep every decoder layer separate (no "
                                 "kernel looping); the pipeline's "
                                 "fuse-layers=false"),
                        cl::init(!PipelineOptions().fuseLayers),
                        cl::cat(compileCat), cl::sub(compileCmd),
                        cl::sub(runCmd));
cl::opt<bool> noOverlapOpt(
    "no-loop-overlap",
    cl::desc("Run each layer loop's iterations one after another (no "
             "prefetch of the next layer's loads); the pipeline's "
             "loop-overlap=false"),
    cl::init(!PipelineOptions().loopOverlap), cl::cat(compileCat),
    cl::sub(compileCmd), cl::sub(runCmd));
cl::opt<int64_t>
    routingSeedOpt("routing-seed", cl::desc(pipelineHelp("routing-seed")),
                   cl::value_desc("N"), cl::init(PipelineOptions().routingSeed),
                   cl::cat(compileCat), cl::sub(compileCmd), cl::sub(runCmd));
cl::opt<double, false, FiniteDouble>
    routingSkewOpt("routing-skew", cl::desc(pipelineHelp("routing-skew")),
                   cl::value_desc("S"), cl::init(PipelineOptions().routingSkew),
                   cl::cat(compileCat), cl::sub(compileCmd), cl::sub(runCmd));
cl::opt<int64_t> mtpOpt("mtp",
                        cl::desc("Speculative decoding with DeepSeek's MTP "
                                 "module: verify 1 + N tokens per step, "
                                 "N from 0 to 8 (default 0: off)"),
                        cl::value_desc("N"), cl::init(0), cl::cat(compileCat),
                        cl::sub(compileCmd), cl::sub(importCmd),
                        cl::sub(runCmd));
cl::opt<double, false, FiniteDouble> mtpAcceptanceOpt(
    "mtp-acceptance",
    cl::desc(withDefault("Probability that a drafted token is accepted",
                         llvm::formatv("{0}", kCompile.mtpAcceptance).str())),
    cl::value_desc("P"), cl::init(kCompile.mtpAcceptance), cl::cat(compileCat),
    cl::sub(compileCmd), cl::sub(importCmd), cl::sub(runCmd));
cl::opt<std::string> prefillChunkOpt(
    "prefill-chunk",
    cl::desc("Prefill the prompt in chunks of N tokens, each attending to "
             "the KV the earlier ones wrote (auto: the largest chunk whose "
             "prefill fits, the whole prompt when it does; default auto)"),
    cl::value_desc("N|auto"), cl::init("auto"), cl::cat(compileCat),
    cl::sub(compileCmd), cl::sub(runCmd), cl::sub(importCmd));
cl::opt<std::string> reportOpt("report",
                               cl::desc("Write a JSON report of the "
                                        "compilation"),
                               cl::value_desc("file"), cl::init(""),
                               cl::cat(compileCat), cl::sub(compileCmd));
cl::opt<std::string> compileOutOpt("o", cl::desc("Write the compiled IR"),
                                   cl::value_desc("file"), cl::init(""),
                                   cl::cat(compileCat), cl::sub(compileCmd));

cl::OptionCategory simCat("Simulation options");
cl::opt<std::string> programOpt(cl::Positional, cl::desc("<program.mlir>"),
                                cl::cat(simCat), cl::sub(simulateCmd));
cl::opt<std::string> simChipOpt(
    "chip",
    cl::desc("Check that the program was compiled for this chip (it always "
             "runs on the chip recorded in it)"),
    cl::value_desc("name|path"), cl::init(""), cl::cat(simCat),
    cl::sub(simulateCmd));
cl::opt<std::string> whatIfChipOpt(
    "what-if-chip",
    cl::desc("What-if: run the program, as compiled, on another chip with "
             "at least the program's TP sockets; the report names both"),
    cl::value_desc("name|path"), cl::init(""), cl::cat(simCat),
    cl::sub(simulateCmd));
cl::opt<int64_t> stepsOpt("steps", cl::desc("Decode steps (default 1)"),
                          cl::value_desc("N"), cl::init(1), cl::cat(simCat),
                          cl::sub(simulateCmd), cl::sub(runCmd));
cl::opt<std::string> simReportOpt("report", cl::desc("Write the JSON report"),
                                  cl::value_desc("file"), cl::init(""),
                                  cl::cat(simCat), cl::sub(simulateCmd),
                                  cl::sub(runCmd));
cl::opt<std::string> traceOpt("trace",
                              cl::desc("Write a Chrome/Perfetto trace "
                                       "(timestamps in microseconds)"),
                              cl::value_desc("file"), cl::init(""),
                              cl::cat(simCat), cl::sub(simulateCmd),
                              cl::sub(runCmd));
cl::opt<std::string> csvOpt("csv", cl::desc("Write memory occupancy over time"),
                            cl::value_desc("file"), cl::init(""),
                            cl::cat(simCat), cl::sub(simulateCmd),
                            cl::sub(runCmd));
cl::opt<bool> allSocketsOpt("all-sockets",
                            cl::desc("Simulate every socket of the TP group "
                                     "(default: one, peers by symmetry)"),
                            cl::cat(simCat), cl::sub(simulateCmd),
                            cl::sub(runCmd));
cl::opt<bool> noFastForwardOpt(
    "no-fast-forward",
    cl::desc("Simulate every loop iteration and step (default: account "
             "identical ones once a steady state is seen)"),
    cl::cat(simCat), cl::sub(simulateCmd), cl::sub(runCmd));
cl::opt<bool> profileOpt(
    "profile",
    cl::desc("Print the step's profile: its critical path by model operator "
             "and resource, each operator's busy time, FLOPs, bytes and SRAM "
             "(and the prefill's, with its chunks)"),
    cl::cat(simCat), cl::sub(simulateCmd), cl::sub(runCmd));
cl::opt<bool> noPrefillOpt("no-prefill",
                           cl::desc("Skip the prefill simulation (no TTFT)"),
                           cl::cat(simCat), cl::sub(runCmd));

cl::OptionCategory sweepCat("Sweep options (lists are comma separated; the "
                            "grid is their product)");
/// A sweep axis's flag (SweepAxes.def): a comma list.
template <class Traits> struct SweepAxisFlag {
  cl::opt<std::string> opt;
  SweepAxisFlag(const char *flag, std::string init, const char *valueDesc,
                const char *help)
      : opt(StringRef(flag), cl::desc(help), cl::value_desc(valueDesc),
            cl::init(init), cl::cat(sweepCat), cl::sub(sweepCmd)) {}
  std::string value() const { return opt; }
};
/// The chip-parameter axes are --set, shared with the other commands.
template <> struct SweepAxisFlag<ChipSetAxis> {
  SweepAxisFlag(const char *, std::string, const char *, const char *) {}
  std::vector<std::string> value() const {
    return {setOpt.begin(), setOpt.end()};
  }
};
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, TRAITS, COLUMN, FLAG, PRESENCE,     \
                            CLI_DEFAULT, VALUE_DESC, HELP, TARGET, ...)        \
  SweepAxisFlag<TRAITS> sweep_##FIELD##Flag(FLAG, CLI_DEFAULT, VALUE_DESC,     \
                                            HELP);
#include "snapflow/Driver/SweepAxes.def"
cl::opt<int64_t> sweepStepsOpt("steps",
                               cl::desc("Decode steps per point (default 16)"),
                               cl::value_desc("N"), cl::init(16),
                               cl::cat(sweepCat), cl::sub(sweepCmd));
cl::opt<bool> sweepPrefillOpt(
    "prefill",
    cl::desc("Also simulate each point's prefill of one context-long prompt, "
             "as run does: fills the ttft_s column (default: decode only)"),
    cl::init(false), cl::cat(sweepCat), cl::sub(sweepCmd));
cl::opt<int64_t> jobsOpt("j", cl::desc("Points run at once (default: 1)"),
                         cl::value_desc("N"), cl::init(1), cl::Prefix,
                         cl::cat(sweepCat), cl::sub(sweepCmd));
cl::opt<std::string> shardOpt("shard",
                              cl::desc("Run only points with index % N == i "
                                       "(e.g. one per cluster job); join "
                                       "with `sweep merge`"),
                              cl::value_desc("i/N"), cl::init("0/1"),
                              cl::cat(sweepCat), cl::sub(sweepCmd));
cl::opt<bool> resumeOpt("resume",
                        cl::desc("Continue the sweep in -o DIR: run only the "
                                 "points without a row (the grid must be "
                                 "the sweep's)"),
                        cl::cat(sweepCat), cl::sub(sweepCmd));
cl::opt<bool> extendOpt("extend",
                        cl::desc("Continue the sweep in -o DIR with a grid "
                                 "that adds values to its axes: run exactly "
                                 "the points without a row"),
                        cl::cat(sweepCat), cl::sub(sweepCmd));
cl::opt<std::string> sweepOutOpt("o",
                                 cl::desc("Directory for results.csv, plots/ "
                                          "and summary.md"),
                                 cl::value_desc("dir"), cl::init(""),
                                 cl::cat(sweepCat), cl::sub(sweepCmd));
cl::list<std::string> sweepArgs(cl::Positional,
                                cl::desc("[merge DIR... | plot DIR]"),
                                cl::cat(sweepCat), cl::sub(sweepCmd));

cl::opt<std::string> traceFileOpt(cl::Positional, cl::desc("<trace.json>"),
                                  cl::cat(outputCat), cl::sub(traceCmd));
cl::opt<std::string> svgOpt("svg",
                            cl::desc("Draw occupancy over time (gnuplot)"),
                            cl::value_desc("file.svg"), cl::init(""),
                            cl::cat(outputCat), cl::sub(traceCmd));
cl::OptionCategory serveCat("Serving options (run --serve)");
cl::opt<bool> serveOpt("serve",
                       cl::desc("Serve a request trace with continuous "
                                "batching over --batch slots of --context "
                                "tokens; report TTFT, TPOT, throughput"),
                       cl::cat(serveCat), cl::sub(runCmd));
cl::opt<std::string>
    requestsFileOpt("trace-requests",
                    cl::desc("CSV of requests: arrival_s,prompt_tokens,"
                             "output_tokens, or an Azure LLM inference or "
                             "BurstGPT trace (see --trace-format)"),
                    cl::value_desc("file.csv"), cl::init(""), cl::cat(serveCat),
                    cl::sub(runCmd));
cl::opt<std::string> deploymentOpt(
    "deployment",
    cl::desc("Serve the models a deployment file lists, each with its own "
             "batch, context, kv, kv_format and weights_dtype (keys left out "
             "take the flags); instead of --model a,b,... "
             "(docs/Serving.md)"),
    cl::value_desc("file.yaml"), cl::init(""), cl::cat(serveCat),
    cl::sub(runCmd));
cl::opt<std::string> writeRequestsOpt(
    "write-requests",
    cl::desc("Write the requests served (generated or read) as a trace "
             "--trace-requests reads back, with a model column when several "
             "models are deployed"),
    cl::value_desc("file.csv"), cl::init(""), cl::cat(serveCat),
    cl::sub(runCmd));
cl::opt<std::string> requestResultsOpt(
    "request-results",
    cl::desc("Write every request's result (slot, arrival, prefill start, "
             "first token, finish, TTFT, TPOT) as a CSV row the moment it "
             "completes; the file appears whole when the run ends"),
    cl::value_desc("file.csv"), cl::init(""), cl::cat(serveCat),
    cl::sub(runCmd));
cl::opt<std::string> traceFormatOpt(
    "trace-format",
    cl::desc("Format of --trace-requests: snapflow (arrival_s,prompt_tokens,"
             "output_tokens), azure (TIMESTAMP,ContextTokens,GeneratedTokens), "
             "burstgpt (Timestamp,Request tokens,Response tokens) or auto "
             "(by the header) (default: auto)"),
    cl::value_desc("auto|snapflow|azure|burstgpt"), cl::init("auto"),
    cl::cat(serveCat), cl::sub(runCmd));
cl::opt<std::string> scheduleOpt(
    "schedule",
    cl::desc("How prefills share the chip with decode: prefill-first (a "
             "request's whole prefill before any decode step) or chunked "
             "(each step carries the decode slots and one prefill chunk of "
             "--prefill-chunk tokens, 512 when auto) (default: "
             "prefill-first)"),
    cl::value_desc("prefill-first|chunked"), cl::init("prefill-first"),
    cl::cat(serveCat), cl::sub(runCmd));
cl::opt<double, false, FiniteDouble>
    rateOpt("rate",
            cl::desc("Generate Poisson arrivals at R requests/s "
                     "(default 1)"),
            cl::value_desc("R"), cl::init(1.0), cl::cat(serveCat),
            cl::sub(runCmd));
cl::opt<int64_t> requestsOpt("requests",
                             cl::desc("Generated requests (default 100)"),
                             cl::value_desc("N"), cl::init(100),
                             cl::cat(serveCat), cl::sub(runCmd));
cl::opt<uint64_t> seedOpt("seed", cl::desc("Generator seed (default 1)"),
                          cl::value_desc("S"), cl::init(1), cl::cat(serveCat),
                          cl::sub(runCmd));
cl::opt<std::string> promptTokensOpt(
    "prompt-tokens", cl::desc("Mean generated prompt length (default 4096)"),
    cl::value_desc("N"), cl::init("4096"), cl::cat(serveCat), cl::sub(runCmd));
cl::opt<std::string> outputTokensOpt(
    "output-tokens", cl::desc("Mean generated output length (default 512)"),
    cl::value_desc("N"), cl::init("512"), cl::cat(serveCat), cl::sub(runCmd));
cl::opt<double, false, FiniteDouble>
    spreadOpt("length-spread",
              cl::desc("Generated lengths are uniform in "
                       "mean*(1 -+ F) (default 0.5)"),
              cl::value_desc("F"), cl::init(0.5), cl::cat(serveCat),
              cl::sub(runCmd));

cl::opt<std::string> modelCacheOpt(
    "model-cache",
    cl::desc("With several --model names: how HBM caches their weights "
             "(all stay in DDR): static (every model resident, none "
             "switched), on-demand (a request brings its model in, evicting "
             "the least recently used idle one) or prewarm (on-demand, and "
             "each forecast window brings in the models expected busiest) "
             "(default: static for one model, on-demand for several)"),
    cl::value_desc("static|on-demand|prewarm"), cl::init("static"),
    cl::cat(serveCat), cl::sub(runCmd));
cl::opt<double, false, FiniteDouble> forecastWindowOpt(
    "forecast-window",
    cl::desc("--model-cache prewarm: the window the forecast looks ahead, "
             "seconds (default 60)"),
    cl::value_desc("S"), cl::init(60), cl::cat(serveCat), cl::sub(runCmd));
cl::opt<double, false, FiniteDouble> forecastPeriodOpt(
    "forecast-period",
    cl::desc("--model-cache prewarm: the load's period in seconds; the "
             "forecast averages the same window of earlier periods (default "
             "0: none, a weighted mean of past windows)"),
    cl::value_desc("S"), cl::init(0), cl::cat(serveCat), cl::sub(runCmd));
cl::opt<double, false, FiniteDouble> loadPeriodOpt(
    "load-period",
    cl::desc("Generated load for several models: each model's rate follows "
             "a sine of this period, its peak 1/N of a period after the "
             "previous model's (default 0: flat Poisson)"),
    cl::value_desc("S"), cl::init(0), cl::cat(serveCat), cl::sub(runCmd));
cl::opt<double, false, FiniteDouble> loadAmplitudeOpt(
    "load-amplitude",
    cl::desc("The sine's amplitude, a fraction of --rate (default 0.8)"),
    cl::value_desc("A"), cl::init(0.8), cl::cat(serveCat), cl::sub(runCmd));
cl::opt<double, false, FiniteDouble> durationOpt(
    "duration",
    cl::desc("Generated load for several models: seconds of arrivals "
             "(default: --requests in all)"),
    cl::value_desc("S"), cl::init(0), cl::cat(serveCat), cl::sub(runCmd));

cl::opt<bool> componentsOpt(
    "components",
    cl::desc("List the simulator's components: the chip keys each takes and "
             "the statistics it keeps, with units"),
    cl::cat(outputCat), cl::sub(listCmd));
cl::opt<bool> reportKeysOpt(
    "report-keys",
    cl::desc("List every key of the simulation report: unit, when present, "
             "meaning"),
    cl::cat(outputCat), cl::sub(listCmd));
cl::opt<bool> listKvOpt(
    "kv",
    cl::desc("List the KV policies and formats with their published accuracy "
             "effects, each with its source (quoted, never simulated)"),
    cl::cat(outputCat), cl::sub(listCmd));
cl::opt<bool> jsonOpt("json", cl::desc("Print JSON instead of a summary"),
                      cl::cat(outputCat), cl::sub(infoCmd));
cl::opt<std::string> outputOpt("o", cl::desc("Output file ('-' for stdout)"),
                               cl::value_desc("file"), cl::init("-"),
                               cl::cat(outputCat), cl::sub(importCmd));

const std::initializer_list<cl::SubCommand *> kCommands = {
    &listCmd,     &infoCmd, &importCmd, &compileCmd,
    &simulateCmd, &runCmd,  &sweepCmd,  &traceCmd};

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
  for (cl::SubCommand *c : kCommands) {
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
      for (cl::SubCommand *c : kCommands)
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

/// The workload options; `max` as batch only where `allowMax`.
llvm::Expected<WorkloadOptions> workload(bool allowMax = false,
                                         bool *maxBatch = nullptr) {
  int64_t batch = 0;
  const std::string &batchText = allowMax ? runBatchOpt : batchOpt;
  if (batchText == "max" && allowMax) {
    batch = 1;
    *maxBatch = true;
  } else if (StringRef(batchText).getAsInteger(10, batch)) {
    return createStringError(inconvertibleErrorCode(),
                             "--batch must be a number" +
                                 std::string(allowMax ? " or max" : "") +
                                 ", got '" + batchText + "'");
  }
  // --tp defaults to every socket of the chip (0 inside); a given value
  // must name a real group size.
  if (tpOpt.getNumOccurrences() && tpOpt < 1)
    return createStringError(inconvertibleErrorCode(),
                             "--tp must be >= 1, got " + std::to_string(tpOpt));
  auto context = parseTokens(contextOpt, "--context");
  if (!context)
    return context.takeError();
  WorkloadOptions o{modelOpt, chipOpt, {},    *context,
                    batch,    kvOpt,   tpOpt, weightsDtypeOpt};
  o.kvFormat = kvFormatOpt;
  if (claOpt.getNumOccurrences() && claOpt < 1)
    return createStringError(inconvertibleErrorCode(),
                             "--cla must be >= 1, got " +
                                 std::to_string(claOpt));
  o.cla = claOpt;
  o.set.assign(setOpt.begin(), setOpt.end());
  return o;
}

SimulateOptions simulateOptions() {
  SimulateOptions s;
  s.steps = stepsOpt;
  s.fastForward = !noFastForwardOpt;
  s.allSockets = allSocketsOpt;
  s.withPrefill = !noPrefillOpt;
  s.reportPath = simReportOpt;
  s.tracePath = traceOpt;
  s.csvPath = csvOpt;
  return s;
}

/// `value` of `--flag` if it is one of `choices`, else an error in the
/// flag's own words (a pass would report it under its own name).
Error checkChoice(StringRef flag, StringRef value,
                  ArrayRef<StringRef> choices) {
  if (llvm::is_contained(choices, value))
    return Error::success();
  std::string expected;
  for (size_t i = 0; i < choices.size(); ++i)
    expected += (i == 0                    ? ""
                 : i + 1 == choices.size() ? " or "
                                           : ", ") +
                choices[i].str();
  return createStringError(
      inconvertibleErrorCode(),
      "--" + flag + ": expected " + expected + ", got '" + value + "'" +
          didYouMean(value,
                     std::vector<std::string>(choices.begin(), choices.end())));
}

Error checkMappingChoices() {
  if (Error e = checkChoice("mla-cache", mlaCacheOpt,
                            {"replicate", "sequence", "batch"}))
    return e;
  // The routing model's flags, in the user's words (a NaN skew was ignored
  // without --routing-seed, and with it named the pass's "trials", R19, R21).
  if (routingSeedOpt < -1)
    return createStringError(inconvertibleErrorCode(),
                             "--routing-seed must be a seed >= 0 (or -1: the "
                             "uniform-routing formula), got " +
                                 Twine(routingSeedOpt.getValue()));
  if (!(routingSkewOpt >= 0))
    return createStringError(
        inconvertibleErrorCode(),
        "--routing-skew must be a Zipf exponent >= 0 (0: uniform), got " +
            shortestText(routingSkewOpt));
  if (routingSkewOpt.getNumOccurrences() && routingSeedOpt < 0)
    return createStringError(inconvertibleErrorCode(),
                             "--routing-skew needs --routing-seed: the skew "
                             "shapes the seeded routing model (without a "
                             "seed experts are counted by the uniform-routing "
                             "formula)");
  return checkChoice("moe", moeOpt, {"expert", "split"});
}

llvm::Expected<CompileOptions> compileOptions() {
  if (Error e = checkMappingChoices())
    return std::move(e);
  CompileOptions c;
  c.phase = phaseOpt;
  if (prefillChunkOpt == "auto")
    c.prefillChunk = kPrefillChunkAuto;
  else if (auto n = parseTokens(prefillChunkOpt, "--prefill-chunk"))
    c.prefillChunk = *n;
  else {
    consumeError(n.takeError());
    return createStringError(inconvertibleErrorCode(),
                             "--prefill-chunk must be a number of tokens >= "
                             "1 (8192, 8k) or auto, got '" +
                                 prefillChunkOpt + "'");
  }
  c.pipeline.mlaCache = mlaCacheOpt;
  c.pipeline.moe = moeOpt;
  c.pipeline.allowDdr = allowDdrOpt;
  c.pipeline.fuseLayers = !noFuseOpt;
  c.pipeline.loopOverlap = !noOverlapOpt;
  c.pipeline.routingSeed = routingSeedOpt;
  c.pipeline.routingSkew = routingSkewOpt;
  c.output = compileOutOpt;
  c.reportPath = reportOpt;
  c.mtp = mtpOpt;
  c.mtpAcceptance = mtpAcceptanceOpt;
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
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, ...)                                \
  o.VALUES = sweep_##FIELD##Flag.value();
#include "snapflow/Driver/SweepAxes.def"
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

int main(int argc, char **argv) {
  // Before any SystemC object exists: no banner on stderr.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", /*overwrite=*/0);
  InitLLVM init(argc, argv);
  // `snapflow --version`: snapflow's version and source revision (the
  // string every report, CSV and trace records), then the LLVM it uses.
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "snapflow " << versionString() << "\n  built with MLIR/LLVM "
       << LLVM_VERSION_STRING << "\n";
  });
  cl::HideUnrelatedOptions(
      {&workloadCat, &outputCat, &compileCat, &simCat, &sweepCat, &serveCat},
      cl::SubCommand::getTopLevel());
  for (cl::SubCommand *sub : kCommands)
    cl::HideUnrelatedOptions(
        {&workloadCat, &outputCat, &compileCat, &simCat, &sweepCat, &serveCat},
        *sub);
  if (std::optional<std::string> bad = unknownFlag(argc, argv)) {
    WithColor::error(errs(), "snapflow") << *bad << "\n";
    return 1;
  }
  cl::ParseCommandLineOptions(
      argc, argv,
      "snapflow: compile LLM inference graphs with KV-cache compression to "
      "dataflow programs and simulate them on an SN40L-like chip\n\n"
      "  snapflow list\n"
      "  snapflow info --model deepseek-r1 --chip sn40l-16 --context 131072 "
      "--batch 8 --kv snapstream:ratio=4 [--json]\n"
      "  snapflow import --model llama-3.1-8b --batch 1 --context 4096 "
      "[-o model.mlir]\n"
      "  snapflow compile --model deepseek-r1 --chip sn40l-16 --phase decode "
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
      "Run `snapflow <command> --help` for a command's options.\n");

  auto check = [](Error e) { return e ? fail(std::move(e)) : 0; };
  if (Error e = checkOutputPaths())
    return fail(std::move(e));
  if (listCmd)
    return check(printList(outs(), componentsOpt, reportKeysOpt, listKvOpt));
  if (infoCmd || importCmd || compileCmd) {
    auto w = workload();
    if (!w)
      return fail(w.takeError());
    if (infoCmd) {
      if (Error e = checkMappingChoices())
        return fail(std::move(e));
      auto info = describeWorkload(*w, mlaCacheOpt);
      if (!info)
        return fail(info.takeError());
      printInfo(outs(), *info, jsonOpt);
      return 0;
    }
    if (importCmd) {
      ImportOptions io;
      io.phase = importPhaseOpt;
      auto prompt = parseTokens(promptOpt, "--prompt");
      if (!prompt)
        return fail(prompt.takeError());
      io.promptTokens = *prompt;
      io.mtpDepth = mtpOpt;
      io.mtpAcceptance = mtpAcceptanceOpt;
      auto co = compileOptions();
      if (!co)
        return fail(co.takeError());
      io.prefillChunk = co->prefillChunk;
      return check(importModel(*w, io, outputOpt));
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
  if (simulateCmd) {
    SimulateOptions so = simulateOptions();
    so.chip = simChipOpt;
    so.whatIfChip = whatIfChipOpt;
    auto s = simulateFile(programOpt, so);
    if (!s)
      return fail(s.takeError());
    printSimulation(outs(), *s, profileOpt);
    return 0;
  }
  if (runCmd) {
    bool maxBatch = false;
    auto w = workload(/*allowMax=*/true, &maxBatch);
    if (!w)
      return fail(w.takeError());
    auto co = compileOptions();
    if (!co)
      return fail(co.takeError());
    bool generating =
        rateOpt.getNumOccurrences() || loadPeriodOpt.getNumOccurrences() ||
        durationOpt.getNumOccurrences() || requestsOpt.getNumOccurrences() ||
        seedOpt.getNumOccurrences() || promptTokensOpt.getNumOccurrences() ||
        outputTokensOpt.getNumOccurrences() || spreadOpt.getNumOccurrences();
    if (!serveOpt) {
      // Name the serving flags given, each of which needs --serve.
      std::vector<std::string> given;
      for (cl::Option *opt : std::initializer_list<cl::Option *>{
               &requestsFileOpt, &traceFormatOpt, &requestResultsOpt,
               &scheduleOpt, &rateOpt, &requestsOpt, &seedOpt, &promptTokensOpt,
               &outputTokensOpt, &spreadOpt, &modelCacheOpt, &forecastWindowOpt,
               &forecastPeriodOpt, &loadPeriodOpt, &loadAmplitudeOpt,
               &durationOpt, &deploymentOpt, &writeRequestsOpt})
        if (opt->getNumOccurrences())
          given.push_back("--" + opt->ArgStr.str());
      if (!given.empty())
        return fail(createStringError(
            inconvertibleErrorCode(),
            llvm::join(given, ", ") + (given.size() == 1 ? " needs" : " need") +
                " --serve"));
      auto r = runWorkload(*w, maxBatch, *co, simulateOptions());
      if (!r)
        return fail(r.takeError());
      printSimulation(outs(), *r, profileOpt);
      return 0;
    }
    ServeOptions so;
    so.requestsPath = requestsFileOpt;
    so.resultsPath = requestResultsOpt;
    if (auto f = sim::serving::parseTraceFormat(traceFormatOpt))
      so.traceFormat = *f;
    else
      return fail(createStringError(
          inconvertibleErrorCode(),
          "--trace-format: expected auto, snapflow, azure or burstgpt, got '" +
              traceFormatOpt + "'"));
    if (auto sc = sim::serving::parseSchedule(scheduleOpt))
      so.schedule = *sc;
    else
      return fail(createStringError(
          inconvertibleErrorCode(),
          "--schedule: expected prefill-first or chunked, got '" + scheduleOpt +
              "'"));
    so.generate = generating;
    so.gen.rate = rateOpt;
    so.gen.count = requestsOpt;
    so.gen.seed = seedOpt;
    auto promptMean = parseTokens(promptTokensOpt, "--prompt-tokens");
    if (!promptMean)
      return fail(promptMean.takeError());
    auto outputMean = parseTokens(outputTokensOpt, "--output-tokens");
    if (!outputMean)
      return fail(outputMean.takeError());
    so.gen.promptMean = *promptMean;
    so.gen.outputMean = *outputMean;
    so.gen.spread = spreadOpt;
    if (auto p = sim::serving::parseCachePolicy(modelCacheOpt))
      so.cache.policy = *p;
    else
      return fail(createStringError(
          inconvertibleErrorCode(),
          "--model-cache: expected static, on-demand or prewarm, got '" +
              modelCacheOpt + "'"));
    so.cachePolicyGiven = modelCacheOpt.getNumOccurrences() > 0;
    so.cache.windowS = forecastWindowOpt;
    so.cache.periodS = forecastPeriodOpt;
    so.loadPeriodS = loadPeriodOpt;
    so.loadAmplitude = loadAmplitudeOpt;
    so.durationS = durationOpt;
    so.writeRequestsPath = writeRequestsOpt;
    // The models: --model a,b,... (each with the shared --kv, --batch and
    // --context), or a deployment file, each model with its own.
    if (!deploymentOpt.empty() && modelOpt.getNumOccurrences())
      return fail(createStringError(inconvertibleErrorCode(),
                                    "--deployment " + deploymentOpt +
                                        " lists the models; drop --model " +
                                        modelOpt));
    auto deployment = deploymentOpt.empty()
                          ? splitModels(*w, maxBatch)
                          : readDeployment(deploymentOpt, *w, maxBatch);
    if (!deployment)
      return fail(deployment.takeError());
    if (deployment->size() == 1 &&
        (so.cachePolicyGiven &&
         so.cache.policy != sim::serving::CachePolicy::Static))
      return fail(createStringError(
          inconvertibleErrorCode(),
          "--model-cache " + modelCacheOpt + " caches several models; " +
              (deploymentOpt.empty() ? "--model names one"
                                     : deploymentOpt + " lists one")));
    auto served = serve(*deployment, *co, simulateOptions(), so);
    if (!served)
      return fail(served.takeError());
    printServe(outs(), *served);
    return 0;
  }
  if (sweepCmd)
    return check(sweep());
  if (traceCmd) {
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
  errs() << "snapflow: no command given; run `snapflow --help`\n";
  return 1;
}
