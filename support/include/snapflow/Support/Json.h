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

#include "snapflow/Support/Nesting.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace snapflow {

/// The deepest nesting of arrays and objects a JSON file may have:
/// llvm::json::parse recurses once per level, so a file of a million `[`
/// would overflow the stack. Every file snapflow reads nests a few levels.
constexpr int kMaxJsonDepth = 256;

/// What llvm::json::parse would accept, or not survive, that a user's file
/// must not have: nesting deeper than kMaxJsonDepth, or a key given twice
/// in one object (llvm::json keeps the last, silently). The byte offset of
/// the first such place and what is wrong there; nullopt when there is
/// none. Keys are compared as written (escapes not decoded). Text that is
/// not JSON is left to the parser.
struct JsonProblem {
  size_t offset;
  std::string what;
};
inline std::optional<JsonProblem> scanJson(llvm::StringRef text) {
  struct Level {
    bool object;
    bool wantKey;
    llvm::StringSet<> keys;
  };
  std::vector<Level> stack;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      size_t start = i++;
      while (i < text.size() && text[i] != '"')
        i += text[i] == '\\' ? 2 : 1;
      if (i >= text.size())
        return std::nullopt;
      if (!stack.empty() && stack.back().object && stack.back().wantKey) {
        llvm::StringRef key = text.slice(start + 1, i);
        if (!stack.back().keys.insert(key).second)
          return JsonProblem{start, "key \"" + key.str() +
                                        "\" given twice in one object"};
        stack.back().wantKey = false;
      }
    } else if (c == '{' || c == '[') {
      if (stack.size() >= static_cast<size_t>(kMaxJsonDepth))
        return JsonProblem{i, "nested deeper than " +
                                  std::to_string(kMaxJsonDepth) + " levels"};
      stack.push_back({c == '{', c == '{', {}});
    } else if (c == '}' || c == ']') {
      if (!stack.empty())
        stack.pop_back();
    } else if (c == ',') {
      if (!stack.empty() && stack.back().object)
        stack.back().wantKey = true;
    }
  }
  return std::nullopt;
}

/// The JSON value of `text`, read from `origin` (a file name), or an error
/// `origin:line:col: error: not JSON: what`; also when `text` nests deeper
/// than kMaxJsonDepth or gives a key twice in one object (scanJson).
inline llvm::Expected<llvm::json::Value> parseJson(llvm::StringRef text,
                                                   llvm::StringRef origin) {
  if (std::optional<JsonProblem> problem = scanJson(text))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   origin.str() + ":" +
                                       lineColumn(text, problem->offset) +
                                       ": error: " + problem->what);
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
