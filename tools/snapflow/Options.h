//===- Options.h - The flags of the snapflow command line -------*- C++ -*-===//
//
// Every llvm::cl flag, subcommand and category of `snapflow`, defined in
// Options.cpp; snapflow.cpp reads them and runs the commands. The sweep's
// axis flags are generated from driver/.../SweepAxes.def.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_TOOLS_SNAPFLOW_OPTIONS_H
#define SNAPFLOW_TOOLS_SNAPFLOW_OPTIONS_H

#include "snapflow/Driver/Sweep.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdint>
#include <string>

namespace snapflow {
namespace tools {
namespace cli {

namespace cl = llvm::cl;
using llvm::errs;
using llvm::StringRef;
using llvm::WithColor;

extern cl::OptionCategory workloadCat;
extern cl::OptionCategory outputCat;
extern cl::SubCommand listCmd;
extern cl::SubCommand infoCmd;
extern cl::SubCommand importCmd;
extern cl::SubCommand compileCmd;
extern cl::SubCommand simulateCmd;
extern cl::SubCommand runCmd;
extern cl::SubCommand sweepCmd;
extern cl::SubCommand traceCmd;
/// A workload option's flag: a repeatable one for a list.
template <class T> struct WorkloadFlag {
  using type = cl::opt<std::string>;
};
template <class T> struct WorkloadFlag<std::vector<T>> {
  using type = cl::list<std::string>;
};
#define SNAPFLOW_WORKLOAD_OPTION(TYPE, FIELD, ...)                             \
  extern WorkloadFlag<TYPE>::type FIELD##Opt;
#include "snapflow/Driver/WorkloadOptions.def"
/// A command option's flag by its kind (CommandOptions.def).
struct Value {};
struct Switch {};
struct NegSwitch {};
template <class Kind> struct CommandFlag {
  using type = cl::opt<std::string>;
};
template <> struct CommandFlag<Switch> {
  using type = cl::opt<bool>;
};
template <> struct CommandFlag<NegSwitch> {
  using type = cl::opt<bool>;
};
#define SNAPFLOW_COMMAND_OPTION(NAME, STRUCT, KIND, ...)                       \
  extern CommandFlag<KIND>::type NAME##Opt;
#include "snapflow/Driver/CommandOptions.def"
extern cl::opt<std::string> promptOpt;
extern cl::OptionCategory compileCat;
extern cl::opt<std::string> importPhaseOpt;
extern cl::OptionCategory simCat;
extern cl::opt<std::string> programOpt;
extern cl::opt<bool> profileOpt;
extern cl::OptionCategory sweepCat;
extern cl::opt<bool> sweepPrefillOpt;
extern cl::opt<bool> sweepServeOpt;
extern cl::opt<int64_t> jobsOpt;
extern cl::opt<std::string> shardOpt;
extern cl::opt<bool> resumeOpt;
extern cl::opt<bool> extendOpt;
extern cl::opt<std::string> sweepOutOpt;
extern cl::list<std::string> sweepArgs;
extern cl::opt<std::string> traceFileOpt;
extern cl::opt<std::string> svgOpt;
extern cl::OptionCategory serveCat;
extern cl::opt<bool> serveOpt;
extern cl::opt<std::string> deploymentOpt;
extern cl::opt<bool> componentsOpt;
extern cl::opt<bool> reportKeysOpt;
extern cl::opt<bool> listKvOpt;
extern cl::opt<bool> familiesOpt;
extern cl::opt<bool> jsonOpt;
extern cl::opt<std::string> outputOpt;

extern cl::opt<int64_t> sweepStepsOpt;

/// Every subcommand.
llvm::ArrayRef<cl::SubCommand *> allCommands();
/// The sweep's axis lists as given (SweepAxes.def's flags and --set).
void readSweepAxes(driver::SweepOptions &o);

} // namespace cli
} // namespace tools
} // namespace snapflow

#endif // SNAPFLOW_TOOLS_SNAPFLOW_OPTIONS_H
