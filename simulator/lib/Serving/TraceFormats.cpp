//===- TraceFormats.cpp - The trace formats as published ------------------===//
//
// One row per format: the columns (CSV) or keys (JSON lines) its authors
// publish, its clock's unit and its block size, with the repository it
// comes from. Where each was read: docs/Serving.md, "Request traces", and
// tests/Tools/Inputs/traces/SOURCES.md.
//
//===----------------------------------------------------------------------===//

#include "TraceFormats.h"

#include "llvm/Support/FormatVariadic.h"

using namespace snapflow::sim::serving;
using namespace snapflow::sim::serving::trace;
using llvm::StringRef;

namespace {
// clang-format off
const Format kFormats[] = {
  // format, name, title, json,
  //   clocks {column, seconds per unit, unit}, dates,
  //   prompt, output, model, blocks, blockTokens, marker, shift, source
  {TraceFormat::Snapflow, "snapflow", "snapflow", false,
    {{"arrival_s", 1, "s"}, {"arrival_ms", 1e-3, "ms"},
     {"arrival_us", 1e-6, "us"}, {"arrival_ns", 1e-9, "ns"}}, false,
    "prompt_tokens", "output_tokens", "model", "hash_ids", 16, nullptr, false,
    "docs/Serving.md"},
  {TraceFormat::Azure, "azure", "Azure LLM inference", false,
    {{"TIMESTAMP", 1, "s"}}, true,
    "ContextTokens", "GeneratedTokens", nullptr, nullptr, 0, nullptr, true,
    "Azure/AzurePublicDataset"},
  {TraceFormat::BurstGPT, "burstgpt", "BurstGPT", false,
    {{"Timestamp", 1, "s"}}, false,
    "Request tokens", "Response tokens", "Model", nullptr, 0, nullptr, true,
    "HPMLL/BurstGPT"},
  {TraceFormat::Splitwise, "splitwise", "SplitwiseSim", false,
    {{"arrival_timestamp", 1, "s"}}, false,
    "prompt_size", "token_size", nullptr, nullptr, 0, nullptr, true,
    "Mutinifni/splitwise-sim"},
  {TraceFormat::Vidur, "vidur", "Vidur", false,
    {{"arrived_at", 1, "s"}}, false,
    "num_prefill_tokens", "num_decode_tokens", nullptr, nullptr, 0, nullptr,
    true, "microsoft/vidur"},
  {TraceFormat::Mooncake, "mooncake", "Mooncake", true,
    {{"timestamp", 1e-3, "ms"}}, false,
    "input_length", "output_length", nullptr, "hash_ids", 512, nullptr, true,
    "kvcache-ai/Mooncake"},
  {TraceFormat::Bailian, "bailian", "Qwen-Bailian", true,
    {{"timestamp", 1, "s"}}, false,
    "input_length", "output_length", nullptr, "hash_ids", 16, "chat_id", true,
    "alibaba-edu/qwen-bailian-usagetraces-anon"},
};
// clang-format on
} // namespace

llvm::ArrayRef<Format> trace::formats() { return kFormats; }

const Format &trace::formatOf(TraceFormat format) {
  for (const Format &f : kFormats)
    if (f.format == format)
      return f;
  return kFormats[0];
}

/// "an Azure LLM inference trace", "a Mooncake trace".
std::string trace::aTrace(const Format &f) {
  return std::string(StringRef(f.title).starts_with_insensitive("a") ? "an "
                                                                     : "a ") +
         f.title + " trace";
}

/// "seconds" for "s", and so on.
StringRef trace::unitWord(StringRef unit) {
  return unit == "ms"   ? "milliseconds"
         : unit == "us" ? "microseconds"
         : unit == "ns" ? "nanoseconds"
                        : "seconds";
}

/// The header every format needs, for the error when none matches.
std::string trace::knownHeaders() {
  std::string out;
  for (const Format &f : kFormats) {
    if (!out.empty())
      out += "; ";
    out += f.json
               ? llvm::formatv("JSON lines {\"{0}\", \"{1}\", \"{2}\"} "
                               "({3})",
                               f.clocks[0].column, f.prompt, f.output, f.name)
                     .str()
               : llvm::formatv("{0},{1},{2} ({3})", f.clocks[0].column,
                               f.prompt, f.output, f.name)
                     .str();
  }
  return out;
}

StringRef snapflow::sim::serving::traceFormatName(TraceFormat format) {
  return format == TraceFormat::Auto ? "auto" : formatOf(format).name;
}

std::optional<TraceFormat>
snapflow::sim::serving::parseTraceFormat(StringRef name) {
  if (name == "auto")
    return TraceFormat::Auto;
  for (const Format &f : kFormats)
    if (name == f.name)
      return f.format;
  return std::nullopt;
}
