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
extern cl::opt<std::string> promptOpt;
extern cl::OptionCategory compileCat;
extern cl::opt<std::string> phaseOpt;
extern cl::opt<std::string> importPhaseOpt;
extern cl::opt<std::string> mlaCacheOpt;
extern cl::opt<std::string> moeOpt;
extern cl::opt<bool> allowDdrOpt;
extern cl::opt<bool> noFuseOpt;
extern cl::opt<bool> noOverlapOpt;
extern cl::opt<int64_t> routingSeedOpt;
extern cl::opt<double, false, FiniteDouble> routingSkewOpt;
extern cl::opt<int64_t> mtpOpt;
extern cl::opt<double, false, FiniteDouble> mtpAcceptanceOpt;
extern cl::opt<std::string> prefillChunkOpt;
extern cl::opt<std::string> reportOpt;
extern cl::opt<std::string> compileOutOpt;
extern cl::OptionCategory simCat;
extern cl::opt<std::string> programOpt;
extern cl::opt<std::string> simChipOpt;
extern cl::opt<std::string> whatIfChipOpt;
extern cl::opt<int64_t> stepsOpt;
extern cl::opt<std::string> simReportOpt;
extern cl::opt<std::string> traceOpt;
extern cl::opt<std::string> csvOpt;
extern cl::opt<bool> allSocketsOpt;
extern cl::opt<bool> noFastForwardOpt;
extern cl::opt<bool> profileOpt;
extern cl::opt<bool> noPrefillOpt;
extern cl::OptionCategory sweepCat;
extern cl::opt<bool> sweepPrefillOpt;
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
extern cl::opt<std::string> requestsFileOpt;
extern cl::opt<std::string> deploymentOpt;
extern cl::opt<std::string> writeRequestsOpt;
extern cl::opt<std::string> requestResultsOpt;
extern cl::opt<std::string> traceFormatOpt;
extern cl::opt<std::string> scheduleOpt;
extern cl::opt<double, false, FiniteDouble> rateOpt;
extern cl::opt<int64_t> requestsOpt;
extern cl::opt<uint64_t> seedOpt;
extern cl::opt<std::string> promptTokensOpt;
extern cl::opt<std::string> outputTokensOpt;
extern cl::opt<double, false, FiniteDouble> spreadOpt;
extern cl::opt<std::string> modelCacheOpt;
extern cl::opt<double, false, FiniteDouble> forecastWindowOpt;
extern cl::opt<double, false, FiniteDouble> forecastPeriodOpt;
extern cl::opt<double, false, FiniteDouble> loadPeriodOpt;
extern cl::opt<double, false, FiniteDouble> loadAmplitudeOpt;
extern cl::opt<double, false, FiniteDouble> durationOpt;
extern cl::opt<bool> componentsOpt;
extern cl::opt<bool> reportKeysOpt;
extern cl::opt<bool> listKvOpt;
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
