//===- Loader.h - df IR text to a simulator Program ------------*- C++ -*-===//
//
// The only MLIR-aware part of the simulator: parses df IR (the compiler's
// output, or hand-written), runs the df verifier, and converts the program
// into plain structs. Parse and verifier errors come back as one message in
// `file:line:col: error: ...` form.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_LOADER_LOADER_H
#define SNAPFLOW_SIM_LOADER_LOADER_H

#include "snapflow/Sim/Core/Program.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace snapflow {
namespace sim {

/// Parses df IR text. `name` selects a df.program (empty: the only one, or
/// "decode" when there are several).
llvm::Expected<Program> parseProgram(llvm::StringRef text,
                                     llvm::StringRef bufferName,
                                     llvm::StringRef name = "");

/// The df.program `name` of a module already in memory and verified (the
/// compiler's output, without printing and parsing it again); `bufferName`
/// names it in errors.
llvm::Expected<Program> readProgram(mlir::ModuleOp module,
                                    llvm::StringRef bufferName,
                                    llvm::StringRef name = "");

/// Reads and parses a df IR file.
llvm::Expected<Program> loadProgram(llvm::StringRef path,
                                    llvm::StringRef name = "");

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_LOADER_LOADER_H
