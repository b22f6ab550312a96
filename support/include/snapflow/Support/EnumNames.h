//===- EnumNames.h - Enums read and listed by their names -------*- C++ -*-===//
//
// Every enum a user or the IR spells (memory tier, stage and operator kind,
// collective kind, phase, weights' dtype, shard-tp's mappings) has one name
// function; these turn it into the parser and the list of names, so no enum
// repeats the loop. The enumerators are 0 ... count - 1.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_ENUMNAMES_H
#define SNAPFLOW_SUPPORT_ENUMNAMES_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace snapflow {

/// The enumerator of E among the first `count` whose `name` is `text`.
template <typename E, typename NameFn>
std::optional<E> enumByName(llvm::StringRef text, int count, NameFn name) {
  for (int k = 0; k < count; ++k)
    if (name(static_cast<E>(k)) == text)
      return static_cast<E>(k);
  return std::nullopt;
}

/// The names of the first `count` enumerators of E, joined by `separator`.
template <typename E, typename NameFn>
std::string enumNames(int count, NameFn name, llvm::StringRef separator) {
  std::string out;
  for (int k = 0; k < count; ++k) {
    if (k > 0)
      out += separator.str();
    out += llvm::StringRef(name(static_cast<E>(k))).str();
  }
  return out;
}

} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_ENUMNAMES_H
