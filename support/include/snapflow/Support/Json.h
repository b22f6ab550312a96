//===- Json.h - A user's JSON, read exactly and located ---------*- C++ -*-===//
//
// parseJson reads a file's JSON and says where it breaks the LLVM way
// (`file:line:col: error: not JSON: ...`); llvm::json says
// "[line:col, byte=N]: ...". Every reader of a user's JSON file parses it
// here.
//
// llvm::json::Value::getAsInteger (LLVM 19) accepts a double up to
// double(INT64_MAX), which is 2^63 itself, and casts it to int64_t: undefined
// behaviour that reads back as -2^63 (reliability defect 26). Every reader of
// a user's JSON takes its integers through exactInteger instead.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_JSON_H
#define SNAPFLOW_SUPPORT_JSON_H

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <cstdint>
#include <optional>

namespace snapflow {

/// The JSON value of `text`, read from `origin` (a file name), or an error
/// `origin:line:col: error: not JSON: what`.
inline llvm::Expected<llvm::json::Value> parseJson(llvm::StringRef text,
                                                   llvm::StringRef origin) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  if (parsed)
    return parsed;
  std::string msg = llvm::toString(parsed.takeError());
  unsigned line = 0, col = 0;
  llvm::StringRef rest = msg;
  std::string where = origin.str();
  if (rest.consume_front("[") && !rest.consumeInteger(10, line) &&
      rest.consume_front(":") && !rest.consumeInteger(10, col) &&
      rest.find("]: ") != llvm::StringRef::npos) {
    where += ":" + std::to_string(line) + ":" + std::to_string(col);
    rest = rest.substr(rest.find("]: ") + 3);
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 where + ": error: not JSON: " + rest.str());
}

/// The value as an int64_t when it is a whole number of magnitude below
/// 2^63. A number within 512 of INT64_MAX is refused too (as a double it
/// rounds to 2^63); every range snapflow checks ends far below.
inline std::optional<int64_t> exactInteger(const llvm::json::Value &v) {
  std::optional<double> d = v.getAsNumber();
  if (!d || !(std::fabs(*d) < 0x1p63))
    return std::nullopt;
  return v.getAsInteger();
}

/// exactInteger of `object[key]`, nullopt when absent.
inline std::optional<int64_t> exactInteger(const llvm::json::Object &object,
                                           llvm::StringRef key) {
  const llvm::json::Value *v = object.get(key);
  return v ? exactInteger(*v) : std::nullopt;
}

} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_JSON_H
