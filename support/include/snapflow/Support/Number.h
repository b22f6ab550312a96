//===- Number.h - Doubles in their shortest exact text ---------*- C++ -*-===//
//
// The text every file snapflow writes and every message quoting a value use
// for a double: the shortest that reads back to the same value (1e+08,
// 0.001), as std::to_chars gives it; and the reading of a decimal number
// from a data file's field, as std::from_chars reads it (correctly rounded,
// and a tenth of the time StringRef::getAsDouble's APFloat took: a quarter
// of reading a 27-million-row trace).
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_NUMBER_H
#define SNAPFLOW_SUPPORT_NUMBER_H

#include "llvm/ADT/StringRef.h"

#include <charconv>
#include <cmath>
#include <optional>
#include <string>

namespace snapflow {

/// `v` in the shortest text that reads back to the same double.
inline std::string shortestText(double v) {
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof(buf), v).ptr);
}

/// The finite decimal number `text` is, whole (an optional sign, digits
/// with an optional point and exponent: no spaces, no "inf" or "nan");
/// nullopt otherwise.
inline std::optional<double> readDouble(llvm::StringRef text) {
  if (text.size() > 1 && text[0] == '+' && text[1] != '-')
    text = text.drop_front();
  double v;
  auto [end, ec] = std::from_chars(text.begin(), text.end(), v);
  if (ec != std::errc() || end != text.end() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_NUMBER_H
