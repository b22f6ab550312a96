//===- OptionValues.h - How an option's value is read -----------*- C++ -*-===//
//
// One parser per kind of value an option takes, shared by every place a
// user writes one: the command line, a deployment file and the tables
// that declare the options (WorkloadOptions.def, CommandOptions.def). Each
// returns the value or an error naming `what` ("--batch", "'batch'"), what
// it must be and the text given, so a flag and a key refuse a bad value in
// the same words. An enum-valued option (the phase, the MLA cache layout,
// the MoE mapping, the trace format, the schedule, the model cache) has one
// parse function over its enum's names.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_OPTIONVALUES_H
#define SNAPFLOW_DRIVER_OPTIONVALUES_H

#include "snapflow/Arch/Phase.h"
#include "snapflow/Models/ModelConfig.h"
#include "snapflow/Sim/Serving/Cluster.h"
#include "snapflow/Sim/Serving/ModelCache.h"
#include "snapflow/Sim/Serving/Serving.h"
#include "snapflow/Sim/Serving/Trace.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace snapflow {
namespace driver {

/// The commands an option's flag belongs to (the tables' USES).
enum OptionUse : unsigned {
  UseInfo = 1,
  UseImport = 2,
  UseCompile = 4,
  UseRun = 8,
  UseSweep = 16,
  UseSimulate = 32,
};

/// `--batch max`, `batch: max`: the largest batch that fits, searched for by
/// the command (never seen by resolveWorkload).
constexpr int64_t kBatchMax = -1;
/// `--prefill-chunk auto`: the largest chunk whose prefill fits.
constexpr int64_t kPrefillChunkAuto = -1;

/// The text as it is.
llvm::Expected<std::string> parseText(llvm::StringRef text,
                                      llvm::StringRef what);
/// A token count as every command and file reads one: "8k" -> 8192, "128K"
/// -> 131072, "1M" -> 1048576, "4096" -> 4096.
llvm::Expected<int64_t> parseTokens(llvm::StringRef text,
                                    llvm::StringRef what = "--context");
/// A batch: a number of slots >= 1, or `max` (kBatchMax).
llvm::Expected<int64_t> parseBatch(llvm::StringRef text, llvm::StringRef what);
/// A number >= 1 (a TP group, a CLA share factor).
llvm::Expected<int64_t> parseAtLeastOne(llvm::StringRef text,
                                        llvm::StringRef what);
/// Any whole number (bounds are the option's reader's).
llvm::Expected<int64_t> parseInteger(llvm::StringRef text,
                                     llvm::StringRef what);
/// A whole number >= 0 (a seed).
llvm::Expected<uint64_t> parseUnsigned(llvm::StringRef text,
                                       llvm::StringRef what);
/// A finite number (not empty, not nan or inf).
llvm::Expected<double> parseFinite(llvm::StringRef text, llvm::StringRef what);
/// A prefill chunk: a token count, or `auto` (kPrefillChunkAuto).
llvm::Expected<int64_t> parsePrefillChunk(llvm::StringRef text,
                                          llvm::StringRef what);
/// The weights' dtype: bf16 or fp8.
llvm::Expected<std::optional<models::WeightDtype>>
parseWeightsDtype(llvm::StringRef text, llvm::StringRef what);
/// decode or prefill.
llvm::Expected<arch::Phase> parsePhaseValue(llvm::StringRef text,
                                            llvm::StringRef what);
/// shard-tp's mappings, checked against their enums and kept as the
/// pipeline's option text: replicate, sequence, batch; expert, split.
llvm::Expected<std::string> parseMlaCacheName(llvm::StringRef text,
                                              llvm::StringRef what);
llvm::Expected<std::string> parseMoeName(llvm::StringRef text,
                                         llvm::StringRef what);
/// Serving's enums: the trace format, overlong requests, the schedule, the
/// model cache.
llvm::Expected<sim::serving::TraceFormat>
parseTraceFormatValue(llvm::StringRef text, llvm::StringRef what);
llvm::Expected<sim::serving::Overlong> parseOverlongValue(llvm::StringRef text,
                                                          llvm::StringRef what);
llvm::Expected<sim::serving::Schedule> parseScheduleValue(llvm::StringRef text,
                                                          llvm::StringRef what);
llvm::Expected<sim::serving::CachePolicy>
parseCachePolicyValue(llvm::StringRef text, llvm::StringRef what);
llvm::Expected<sim::serving::Router> parseRouterValue(llvm::StringRef text,
                                                      llvm::StringRef what);
/// A serving deployment's static decode graphs, `--batch 1,8,64` (a
/// batch may be max) or `--batch auto` (the set that maximizes goodput
/// under the SLOs, serving picks it).
struct BatchSet {
  std::vector<int64_t> sizes; ///< as given, kBatchMax for max
  bool autoPick = false;
  bool given() const { return autoPick || !sizes.empty(); }
  /// The deployment's slots: the largest, kBatchMax when max or auto.
  int64_t largest() const;
};
/// Whether `text` names a set ("1,8,64", "auto") rather than one batch.
bool isBatchSet(llvm::StringRef text);
llvm::Expected<BatchSet> parseBatchSet(llvm::StringRef text,
                                       llvm::StringRef what);

/// Prefill and decode nodes, "P:D" (3:1); both at least 1.
struct NodeSplit {
  int64_t prefill = 0, decode = 0;
  bool given() const { return prefill > 0; }
};
llvm::Expected<NodeSplit> parseNodeSplit(llvm::StringRef text,
                                         llvm::StringRef what);

/// A value as --help names it for "(default: ...)".
std::string optionText(const std::string &v);
std::string optionText(int64_t v);
std::string optionText(uint64_t v);
std::string optionText(double v);
std::string optionText(bool v);
std::string optionText(arch::Phase v);
std::string optionText(sim::serving::TraceFormat v);
std::string optionText(sim::serving::Overlong v);
std::string optionText(sim::serving::Schedule v);
std::string optionText(sim::serving::CachePolicy v);
std::string optionText(sim::serving::Router v);
template <class T> std::string optionText(const T &) { return ""; }

} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_OPTIONVALUES_H
