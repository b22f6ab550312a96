//===- EnumKeyword.h - Enum values written as bare keywords -----*- C++ -*-===//
//
// The dialects write every arch enum (tier, stage and operator kind,
// collective kind and algorithm, phase) as a bare keyword. These read one:
// a keyword the enum does not know is one error at the keyword naming the
// valid ones, and a custom<...> directive wraps it in its attribute.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_ENUMKEYWORD_H
#define SNAPFLOW_DIALECT_ENUMKEYWORD_H

#include "mlir/IR/OpImplementation.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <string>

namespace snapflow {

/// Reads a keyword and returns `parse` of it; a keyword `parse` refuses is
/// "unknown WHAT 'KEYWORD'; expected EXPECTED" at the keyword (`expected`
/// is only built then).
template <typename E>
mlir::FailureOr<E>
parseEnumKeyword(mlir::AsmParser &parser, llvm::StringRef what,
                 llvm::function_ref<std::optional<E>(llvm::StringRef)> parse,
                 llvm::function_ref<std::string()> expected) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  llvm::StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return mlir::failure();
  if (std::optional<E> value = parse(keyword))
    return *value;
  return parser.emitError(loc) << "unknown " << what << " '" << keyword
                               << "'; expected " << expected();
}

/// A custom<...> directive's parser: the keyword `keyword` reads, as the
/// attribute holding it.
template <typename AttrT, typename E>
mlir::ParseResult
parseKeywordAttr(mlir::AsmParser &parser, AttrT &attr,
                 mlir::FailureOr<E> (*keyword)(mlir::AsmParser &)) {
  mlir::FailureOr<E> value = keyword(parser);
  if (mlir::failed(value))
    return mlir::failure();
  attr = AttrT::get(parser.getContext(), *value);
  return mlir::success();
}

} // namespace snapflow

#endif // SNAPFLOW_DIALECT_ENUMKEYWORD_H
