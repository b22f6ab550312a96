//===- Phase.h - The phase of inference a program runs ----------*- C++ -*-===//
//
// Prefill (the prompt, once per request) or decode (one token per step). One
// enum for the llm dialect (`#llm.workload<decode, ...>`,
// `phase = #llm<phase decode>`), the compiler, the driver's `--phase` and the
// simulator's programs, as MemoryTier is for tiers.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_ARCH_PHASE_H
#define SNAPFLOW_ARCH_PHASE_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace snapflow {
namespace arch {

enum class Phase { Prefill, Decode };
constexpr int kNumPhases = static_cast<int>(Phase::Decode) + 1;

/// `prefill` or `decode`: its IR keyword, its df program's symbol and its
/// name in reports and traces.
llvm::StringRef phaseName(Phase phase);
std::optional<Phase> parsePhase(llvm::StringRef name);

} // namespace arch
} // namespace snapflow

#endif // SNAPFLOW_ARCH_PHASE_H
