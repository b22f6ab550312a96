//===- Print.h - What the snapflow commands print -----------------*- C++
//-*-===//
//
// The summaries a person reads; the computations are the driver library's
// (snapflow/Driver/). One function per command.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_TOOLS_SNAPFLOW_PRINT_H
#define SNAPFLOW_TOOLS_SNAPFLOW_PRINT_H

#include "snapflow/Driver/Compile.h"
#include "snapflow/Driver/Info.h"
#include "snapflow/Driver/MemoryTrace.h"
#include "snapflow/Driver/Serve.h"
#include "snapflow/Driver/Simulate.h"

#include "llvm/Support/raw_ostream.h"

namespace snapflow {
namespace tools {

/// `snapflow list`: built-in models, chips and KV policies; or the
/// simulator's components; or the keys of the simulation report; or (`kv`)
/// the KV policies and formats with their published accuracy effects; or
/// (`families`) the model families and the keys they read past.
llvm::Error printList(llvm::raw_ostream &os, bool components, bool reportKeys,
                      bool kv, bool families);
void printInfo(llvm::raw_ostream &os, const driver::ModelInfo &info, bool json);
void printCompile(llvm::raw_ostream &os, const driver::CompileOutcome &c);
/// The summary; with `profile`, the profile tables after it.
void printSimulation(llvm::raw_ostream &os, const driver::SimulationOutcome &s,
                     bool profile = false);
void printServe(llvm::raw_ostream &os, const driver::ServeOutcome &s);
void printTrace(llvm::raw_ostream &os, llvm::StringRef path,
                const driver::MemoryTrace &trace);

} // namespace tools
} // namespace snapflow

#endif // SNAPFLOW_TOOLS_SNAPFLOW_PRINT_H
