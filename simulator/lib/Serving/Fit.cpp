//===- Fit.cpp - Whether a request fits a slot ----------------------------===//
//
// A request fits a slot when its prompt and output fit the context; one
// that does not is an error at its line, or, as --overlong says, left out
// or clipped (Serving.h, Overlong).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Serving/Serving.h"

#include "snapflow/Support/Error.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace snapflow;
using namespace snapflow::sim::serving;
using llvm::Error;
using llvm::StringRef;

StringRef snapflow::sim::serving::overlongName(Overlong overlong) {
  switch (overlong) {
  case Overlong::Error:
    return "error";
  case Overlong::Skip:
    return "skip";
  case Overlong::Clip:
    return "clip";
  }
  return "error";
}

std::optional<Overlong> snapflow::sim::serving::parseOverlong(StringRef name) {
  for (Overlong o : {Overlong::Error, Overlong::Skip, Overlong::Clip})
    if (name == overlongName(o))
      return o;
  return std::nullopt;
}

llvm::Expected<Fit> snapflow::sim::serving::fit(Request &r,
                                                const ServeConfig &config,
                                                Overlong overlong,
                                                StringRef source) {
  // Compared without adding: the two counts may each be near 2^63 when a
  // caller built the request (a file's are at most limits::kMaxTokens).
  const int64_t context = config.maxContext;
  if (r.promptTokens >= 1 && r.outputTokens >= 1 &&
      r.promptTokens <= context - r.outputTokens)
    return Fit::Fits;
  if (context >= 2 && r.promptTokens >= 1 && r.outputTokens >= 1) {
    if (overlong == Overlong::Skip)
      return Fit::Skipped;
    if (overlong == Overlong::Clip) {
      // The prompt first, to one token at least; then the output.
      r.promptTokens = std::max<int64_t>(1, context - r.outputTokens);
      r.outputTokens = std::min(r.outputTokens, context - r.promptTokens);
      return Fit::Clipped;
    }
  }
  std::string where =
      r.line > 0
          ? llvm::formatv("{0}:{1}: error: ", source, r.line).str()
          : llvm::formatv("{0}: error: request {1}: ", source, r.id).str();
  return makeError(llvm::formatv(
      "{0}prompt_tokens + output_tokens = {1} + {2} exceeds the context of "
      "{3} tokens a slot holds ({4}){5}",
      where, r.promptTokens, r.outputTokens, context, config.maxContextFrom,
      r.line > 0 ? "; --overlong skip or clip serves the trace's other rows"
                 : ""));
}

Error snapflow::sim::serving::validate(llvm::ArrayRef<Request> requests,
                                       const ServeConfig &config,
                                       StringRef source) {
  for (Request r : requests) {
    auto f = fit(r, config, Overlong::Error, source);
    if (!f)
      return f.takeError();
  }
  return Error::success();
}
