//===- Errors.h - How the driver reports failures ---------------*- C++ -*-===//
//
// Bad input is an llvm::Error whose message says what is wrong (the tool
// prints it once and exits 1); a program that cannot run (does not fit its
// chip, deadlocks) is a ProgramFailure (exit 2).
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_ERRORS_H
#define SNAPFLOW_DRIVER_ERRORS_H

#include "snapflow/Support/Error.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace snapflow {
namespace driver {

using snapflow::makeError; // snapflow/Support/Error.h

/// Bytes in GiB.
inline double gib(double bytes) { return bytes / double(1LL << 30); }

/// The error of a program that cannot run (does not fit, deadlocks).
class ProgramFailure : public llvm::ErrorInfo<ProgramFailure> {
public:
  static char ID;
  explicit ProgramFailure(std::string message) : message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  std::string message;
};

} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_ERRORS_H
