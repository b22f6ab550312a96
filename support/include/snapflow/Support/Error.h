//===- Error.h - An error with a message ------------------------*- C++ -*-===//
//
// Bad input anywhere in snapflow is an llvm::Error whose message says what
// is wrong; the tool prints it once.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_ERROR_H
#define SNAPFLOW_SUPPORT_ERROR_H

#include "llvm/Support/Error.h"

namespace snapflow {

/// An error whose message is `msg`.
inline llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_ERROR_H
