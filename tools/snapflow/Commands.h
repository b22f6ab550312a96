//===- Commands.h - snapflow subcommands ------------------------*- C++ -*-===//
//
// Each subcommand is a function from parsed options to an exit code:
// 0 ok, 1 bad input, 2 the simulated program failed. Errors are printed once,
// as `snapflow: error: ...`, by the caller.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_TOOLS_SNAPFLOW_COMMANDS_H
#define SNAPFLOW_TOOLS_SNAPFLOW_COMMANDS_H

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace snapflow {
namespace tools {

/// Options shared by the commands that build a model for a chip.
struct WorkloadOptions {
  std::string model;
  std::string chip;
  int64_t context = 0; ///< decode: tokens in context; prefill: prompt length
  int64_t batch = 0;
  std::string kv;
  int64_t tp = 0; ///< 0: the chip's socket count
  std::string weightsDtype; ///< "" (checkpoint), "bf16" or "fp8"
};

/// `snapflow list`: built-in models, chips and KV policies.
llvm::Error runList(llvm::raw_ostream &os);

/// `snapflow info`: parameters, KV bytes and per-tier fit.
llvm::Error runInfo(const WorkloadOptions &options, bool json,
                    llvm::raw_ostream &os);

/// `snapflow import`: the llm IR of a model (both phases), as text.
llvm::Error runImport(const WorkloadOptions &options, int64_t promptTokens,
                      const std::string &outputPath);

} // namespace tools
} // namespace snapflow

#endif // SNAPFLOW_TOOLS_SNAPFLOW_COMMANDS_H
