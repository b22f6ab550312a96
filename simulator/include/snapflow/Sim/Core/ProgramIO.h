//===- ProgramIO.h - A Program as bytes and back ------------------*- C++
//-*-===//
//
// The hand-off between a process that compiled a program and one that
// simulates it, without MLIR on the receiving side: a sweep sends each
// point's Program to the process it forks for it (driver/PointRunner).
// Every field round-trips exactly (doubles in the shortest text that reads
// back to the same value; the target by the values ArchModel::fromValues
// reads, so it checks them as it checks a chip file). The form is compact
// text, numbers and length-prefixed strings, as fast to write and read as a
// memcpy of the program's size; both ends are the same build, so enums
// travel as their numbers (checked against their range).
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_CORE_PROGRAMIO_H
#define SNAPFLOW_SIM_CORE_PROGRAMIO_H

#include "snapflow/Sim/Core/Program.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace snapflow {
namespace sim {

std::string serializeProgram(const Program &program);

/// The Program `bytes` describe; an error names the field and the byte
/// offset where they stop making sense.
llvm::Expected<Program> deserializeProgram(llvm::StringRef bytes);

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_CORE_PROGRAMIO_H
