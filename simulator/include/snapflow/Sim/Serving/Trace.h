//===- Trace.h - Request traces as published --------------------*- C++ -*-===//
//
// The request traces users have, read as their authors published them, a
// row at a time (docs/Serving.md, "Request traces"):
//
//   snapflow    arrival_s,prompt_tokens,output_tokens[,model][,hash_ids]
//               (arrival_ms, _us or _ns: the unit is in the column's name)
//   azure       TIMESTAMP,ContextTokens,GeneratedTokens: Azure LLM
//               inference 2023 and 2024, a date and time with any ISO 8601
//               zone, or seconds
//   burstgpt    Timestamp,...,Model,Request tokens,Response tokens,...:
//               seconds; a failed request (0 tokens) skipped
//   splitwise   request_id,request_type,application_id,arrival_timestamp,
//               batch_size,prompt_size,token_size (SplitwiseSim): seconds
//   vidur       arrived_at,num_prefill_tokens,num_decode_tokens: seconds
//   mooncake    JSON lines {"timestamp" (milliseconds), "input_length",
//               "output_length", "hash_ids" (512-token blocks)}
//   bailian     JSON lines {"chat_id", "timestamp" (seconds),
//               "input_length", "output_length", "hash_ids" (16-token
//               blocks), ...} (Alibaba's Qwen traces)
//
// A trace lists its requests in arrival order (every public one does; the
// reader says where one does not), which is what lets a run stream a trace
// of any length instead of holding it. A public trace's clock starts at its
// first request; snapflow's is taken as given. Every error is located,
// `path:line:col: error:`.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_SERVING_TRACE_H
#define SNAPFLOW_SIM_SERVING_TRACE_H

#include "snapflow/Sim/Serving/Serving.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace snapflow {
namespace sim {
namespace serving {

enum class TraceFormat {
  Auto,
  Snapflow,
  Azure,
  BurstGPT,
  Splitwise,
  Vidur,
  Mooncake,
  Bailian
};
constexpr int kNumTraceFormats = static_cast<int>(TraceFormat::Bailian) + 1;
/// "auto", "snapflow", "azure", "burstgpt", "splitwise", "vidur",
/// "mooncake", "bailian".
llvm::StringRef traceFormatName(TraceFormat format);
std::optional<TraceFormat> parseTraceFormat(llvm::StringRef name);

struct TraceOptions {
  TraceFormat format = TraceFormat::Auto; ///< Auto: by the header
  /// Tokens per block of the trace's hash_ids; 0: the format's own
  /// (Mooncake 512, Qwen-Bailian 16, snapflow's 16, vLLM's default).
  int64_t blockTokens = 0;
};

/// What a request trace held besides its requests.
struct TraceInfo {
  TraceFormat format = TraceFormat::Snapflow; ///< the format read
  /// The file has a model column (snapflow's `model`, BurstGPT's `Model`);
  /// each request's modelName is set from it.
  bool hasModel = false;
  /// Its requests carry prefix block hashes (Request::blocks), of
  /// blockTokens tokens each.
  bool hasBlocks = false;
  int64_t blockTokens = 0;
  /// Rows of a public trace with 0 prompt or output tokens (failed or
  /// empty requests, as BurstGPT logs them), skipped.
  int64_t skipped = 0;
  /// Requests read so far.
  int64_t requests = 0;
};

/// Reads a trace a request at a time, holding one line (and, for a file
/// that is not a regular file, the whole text, up to the data limit).
class TraceReader : public RequestSource {
public:
  /// Opens `path` (its header read and the format chosen).
  static llvm::Expected<std::unique_ptr<TraceReader>>
  open(llvm::StringRef path, const TraceOptions &options = {});
  /// A trace's `text`; errors name `path`. The text must outlive the reader.
  static llvm::Expected<std::unique_ptr<TraceReader>>
  fromText(llvm::StringRef text, llvm::StringRef path,
           const TraceOptions &options = {});
  ~TraceReader() override;

  /// The next request (ids count from 0 in file order, skipped rows not
  /// counted); std::nullopt at the end.
  llvm::Expected<std::optional<Request>> next() override;
  /// Starts again at the first request, for a second pass.
  llvm::Error rewind() override;
  const TraceInfo &info() const;
  llvm::StringRef path() const;

private:
  struct Impl;
  explicit TraceReader(std::unique_ptr<Impl> impl);
  /// A reader of `impl`'s lines, its header read.
  static llvm::Expected<std::unique_ptr<TraceReader>>
  begin(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// Every request of a trace, held (TraceReader streams them). Errors are
/// `path:line:col: error:`; a file with no request is an error.
llvm::Expected<std::vector<Request>>
readRequests(llvm::StringRef path, const TraceOptions &options = {},
             TraceInfo *info = nullptr);
/// readRequests of a file's `text`; errors name `path`.
llvm::Expected<std::vector<Request>>
parseRequests(llvm::StringRef text, llvm::StringRef path,
              const TraceOptions &options = {}, TraceInfo *info = nullptr);

} // namespace serving
} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_SERVING_TRACE_H
