//===- Number.h - Doubles in their shortest exact text ---------*- C++ -*-===//
//
// The text every file snapflow writes and every message quoting a value use
// for a double: the shortest that reads back to the same value (1e+08,
// 0.001), as std::to_chars gives it.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_NUMBER_H
#define SNAPFLOW_SUPPORT_NUMBER_H

#include <charconv>
#include <string>

namespace snapflow {

/// `v` in the shortest text that reads back to the same double.
inline std::string shortestText(double v) {
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof(buf), v).ptr);
}

} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_NUMBER_H
