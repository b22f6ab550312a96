//===- Options.cpp - The flags of the snapflow command line ---------------===//
//
// Each command declares its options with llvm::cl in its own option
// category, so `snapflow <command> --help` lists exactly those. The
// workload's flags are generated from WorkloadOptions.def, the compile,
// simulate and serve flags from CommandOptions.def (the pipeline's mapping
// options taking their help from PipelineOptions.def), the sweep's axes
// from SweepAxes.def; what is left here is each command's own (its
// outputs, the sweep's control, list's and trace's).
//
//===----------------------------------------------------------------------===//

#include "Options.h"

#include "snapflow/Driver/Compile.h"
#include "snapflow/Driver/Serve.h"
#include "snapflow/Driver/Simulate.h"
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
/// `help (default: VALUE)`, the default a table's struct declares.
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
StringRef workloadHelp(StringRef help, bool show, const std::string &value) {
  return show ? withDefault(help, value) : help;
}

/// Adds a flag to the commands its USES bits name.
struct InCommands {
  unsigned uses;
  template <class Opt> void apply(Opt &o) const {
    const std::pair<OptionUse, cl::SubCommand *> commands[] = {
        {UseInfo, &infoCmd},       {UseImport, &importCmd},
        {UseCompile, &compileCmd}, {UseRun, &runCmd},
        {UseSweep, &sweepCmd},     {UseSimulate, &simulateCmd}};
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
                            optionText(WorkloadOptions().FIELD))),             \
      cl::value_desc(VALUE_DESC), cl::cat(workloadCat), InCommands{USES});
#include "snapflow/Driver/WorkloadOptions.def"
// Token counts read as everywhere: 8192, 8k, 128K, 1M (parseTokens).
cl::opt<std::string> promptOpt(
    "prompt",
    cl::desc("Prompt tokens per sequence, for prefill (default: 4096)"),
    cl::value_desc("L"), cl::init("4096"), cl::cat(workloadCat),
    cl::sub(importCmd));

cl::OptionCategory compileCat("Compiler options");
cl::opt<std::string> importPhaseOpt(
    "phase",
    cl::desc("Phases to build: decode, prefill (of --prompt tokens) or both "
             "(default both)"),
    cl::value_desc("decode|prefill|both"), cl::init("both"),
    cl::cat(workloadCat), cl::sub(importCmd));

cl::OptionCategory simCat("Simulation options");
cl::opt<std::string> programOpt(cl::Positional, cl::desc("<program.mlir>"),
                                cl::cat(simCat), cl::sub(simulateCmd));
cl::opt<bool> profileOpt(
    "profile",
    cl::desc("Print the step's profile: its critical path by model operator "
             "and resource, each operator's busy time, FLOPs, bytes and SRAM "
             "(and the prefill's, with its chunks)"),
    cl::cat(simCat), cl::sub(simulateCmd), cl::sub(runCmd));

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
cl::opt<bool> sweepServeOpt(
    "serve",
    cl::desc("Serve the load of the serving flags (--trace-requests or "
             "--rate, --slo-ttft, --nodes, ...) at every point, as run "
             "--serve does; each row carries the serve.* columns: latencies, "
             "throughput, SLO attainment and goodput (default: decode steps)"),
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
cl::opt<std::string> deploymentOpt(
    "deployment",
    cl::desc("Serve the models a deployment file lists, each with its own "
             "batch, context, kv, kv_format and weights_dtype (keys left out "
             "take the flags); instead of --model a,b,... "
             "(docs/Serving.md)"),
    cl::value_desc("file.yaml"), cl::init(""), cl::cat(serveCat),
    cl::sub(runCmd));

// The compile, simulate and serve options, from CommandOptions.def.
namespace {
/// A serving flag is also a serving sweep's (sweep --serve), but for the
/// per-request files, which every point would write over.
unsigned sweepUse(StringRef group, StringRef flag) {
  return group == "Serve" && flag != "write-requests" &&
                 flag != "request-results"
             ? UseSweep
             : 0;
}
cl::OptionCategory &groupCategory(StringRef group) {
  return group == "Compile"    ? compileCat
         : group == "Simulate" ? simCat
                               : serveCat;
}
} // namespace
#define SNAPFLOW_COMMAND_OPTION(NAME, STRUCT, KIND, TARGET, PARSE, FLAG, USES, \
                                GROUP, VALUE_DESC, HELP, SHOW_DEFAULT)         \
  CommandFlag<KIND>::type NAME##Opt(                                           \
      FLAG,                                                                    \
      cl::desc(workloadHelp(HELP, SHOW_DEFAULT, optionText(STRUCT().TARGET))), \
      cl::value_desc(VALUE_DESC), cl::cat(groupCategory(#GROUP)),              \
      InCommands{USES | sweepUse(#GROUP, FLAG)});
#include "snapflow/Driver/CommandOptions.def"

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
cl::opt<bool> familiesOpt(
    "families",
    cl::desc("List the model families (model_type) the config reader knows, "
             "what each builds, and the keys of their configs that do not "
             "change costs"),
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
