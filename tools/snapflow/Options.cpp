//===- Options.cpp - The flags of the snapflow command line ---------------===//
//
// Each command declares its options with llvm::cl in its own option
// category, so `snapflow <command> --help` lists exactly those; the
// pipeline's options take their help and default from PipelineOptions.def,
// the sweep's axes theirs from SweepAxes.def.
//
//===----------------------------------------------------------------------===//

#include "Options.h"

#include "snapflow/Driver/Compile.h"
#include "snapflow/Driver/Workload.h"
#include "snapflow/Sim/Serving/Serving.h"

#include "llvm/ADT/Twine.h"

#include <deque>

using namespace llvm;
using namespace snapflow;
using namespace snapflow::driver;

namespace snapflow {
namespace tools {
namespace cli {

namespace {
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

const CompileOptions kCompile;

} // namespace

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

// The workload options, from WorkloadOptions.def.
namespace {
/// `help (default: VALUE)` when the table shows the default.
std::string defaultText(const std::string &v) { return v; }
std::string defaultText(int64_t v) { return std::to_string(v); }
template <class T> std::string defaultText(const T &) { return ""; }
StringRef workloadHelp(StringRef help, bool show, const std::string &value) {
  return show ? withDefault(help, value) : help;
}

/// Adds a flag to the commands its USES bits name.
struct InCommands {
  unsigned uses;
  template <class Opt> void apply(Opt &o) const {
    const std::pair<OptionUse, cl::SubCommand *> commands[] = {
        {UseInfo, &infoCmd},
        {UseImport, &importCmd},
        {UseCompile, &compileCmd},
        {UseRun, &runCmd},
        {UseSweep, &sweepCmd}};
    for (auto [use, command] : commands)
      if (uses & use)
        o.addSubCommand(*command);
  }
};
} // namespace

#define SNAPFLOW_WORKLOAD_OPTION(TYPE, FIELD, DEFAULT, PARSE, FLAG, KEY, USES, \
                                 VALUE_DESC, HELP, SHOW_DEFAULT)               \
  WorkloadFlag<TYPE>::type FIELD##Opt(                                         \
      FLAG,                                                                    \
      cl::desc(workloadHelp(HELP, SHOW_DEFAULT,                                \
                            defaultText(WorkloadOptions().FIELD))),            \
      cl::value_desc(VALUE_DESC), cl::cat(workloadCat), InCommands{USES});
#include "snapflow/Driver/WorkloadOptions.def"
// Token counts read as everywhere: 8192, 8k, 128K, 1M (parseTokens).
cl::opt<std::string> promptOpt(
    "prompt",
    cl::desc("Prompt tokens per sequence, for prefill (default: 4096)"),
    cl::value_desc("L"), cl::init("4096"), cl::cat(workloadCat),
    cl::sub(importCmd));

cl::OptionCategory compileCat("Compiler options");
cl::opt<std::string> phaseOpt("phase",
                              cl::desc("Phase to compile: decode (--context "
                                       "tokens in context) or prefill "
                                       "(--context prompt tokens); default "
                                       "decode"),
                              cl::value_desc("decode|prefill"),
                              cl::init(arch::phaseName(kCompile.phase).str()),
                              cl::cat(compileCat), cl::sub(compileCmd));
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

llvm::ArrayRef<cl::SubCommand *> allCommands() {
  static cl::SubCommand *const commands[] = {
      &listCmd,     &infoCmd, &importCmd, &compileCmd,
      &simulateCmd, &runCmd,  &sweepCmd,  &traceCmd};
  return commands;
}

void readSweepAxes(SweepOptions &o) {
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, ...)                                \
  o.VALUES = sweep_##FIELD##Flag.value();
#include "snapflow/Driver/SweepAxes.def"
}

} // namespace cli
} // namespace tools
} // namespace snapflow
