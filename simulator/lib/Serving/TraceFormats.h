//===- TraceFormats.h - The trace formats as published ----------*- C++ -*-===//
//
// Private to the trace reader (Trace.cpp): each format's columns or keys,
// clock and block size, one row of a table (TraceFormats.cpp). A format is
// added there, with a test in tests/Unit/TraceTest.cpp and a sample in
// tests/Tools/Inputs/traces/.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_SERVING_TRACEFORMATS_H
#define SNAPFLOW_SIM_SERVING_TRACEFORMATS_H

#include "snapflow/Sim/Serving/Trace.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace snapflow {
namespace sim {
namespace serving {
namespace trace {

/// An arrival column's name and the seconds of its unit.
struct Clock {
  const char *column;
  double seconds;
  const char *unit; ///< for messages
};

/// A trace format: its columns (CSV) or keys (JSON lines) as published.
struct Format {
  TraceFormat format;
  const char *name, *title;
  bool json;
  /// The arrival column: the first of these the header has (snapflow's
  /// names its unit); a date is read where `dates` says.
  Clock clocks[4];
  bool dates;
  const char *prompt, *output;
  const char *model;  ///< optional; null when the format has none
  const char *blocks; ///< optional prefix block hashes; null: none
  int64_t blockTokens;
  /// A key only this format has (JSON lines), which picks it.
  const char *marker;
  /// Its clock starts at its first request (every public trace's).
  bool shift;
  const char *source; ///< where it is published, for messages and docs
};

/// Every format, in the order auto-detection tries them.
llvm::ArrayRef<Format> formats();
const Format &formatOf(TraceFormat format);
/// "an Azure LLM inference trace", "a Mooncake trace".
std::string aTrace(const Format &f);
/// "seconds" for "s", "milliseconds" for "ms", and so on.
llvm::StringRef unitWord(llvm::StringRef unit);
/// Every format's header, for the error when a header is none of them.
std::string knownHeaders();

} // namespace trace
} // namespace serving
} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_SERVING_TRACEFORMATS_H
