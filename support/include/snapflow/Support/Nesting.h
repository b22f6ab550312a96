//===- Nesting.h - How deep a text's brackets go ----------------*- C++ -*-===//
//
// The parsers snapflow hands a user's text to (llvm::json, MLIR's) recurse
// once per level of nesting, so a file of a hundred thousand `{` overflows
// the stack before any error can be printed (reliability defect R02). A
// reader first asks firstTooDeep, which walks the brackets without
// recursion, and refuses the file at the bracket that goes too deep.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_NESTING_H
#define SNAPFLOW_SUPPORT_NESTING_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>
#include <string>

namespace snapflow {

/// The byte offset of the first `{`, `[` or `(` outside a double-quoted
/// string (backslash escapes honoured) that opens level `limit + 1`; nullopt
/// when the text never nests deeper than `limit`. Unbalanced closers are
/// the parser's to report.
inline std::optional<size_t> firstTooDeep(llvm::StringRef text, int limit) {
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '{' || c == '[' || c == '(') {
      if (++depth > limit)
        return i;
    } else if ((c == '}' || c == ']' || c == ')') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

/// "line:col" (1-based) of byte `offset` of `text`.
inline std::string lineColumn(llvm::StringRef text, size_t offset) {
  llvm::StringRef before = text.take_front(offset);
  size_t lineStart = before.rfind('\n');
  size_t col =
      offset - (lineStart == llvm::StringRef::npos ? 0 : lineStart + 1);
  return std::to_string(before.count('\n') + 1) + ":" + std::to_string(col + 1);
}

} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_NESTING_H
