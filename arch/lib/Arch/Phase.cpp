//===- Phase.cpp - The phase of inference a program runs ------------------===//

#include "snapflow/Arch/Phase.h"

#include "snapflow/Support/EnumNames.h"

#include "llvm/Support/ErrorHandling.h"

using namespace snapflow;
using namespace snapflow::arch;

llvm::StringRef snapflow::arch::phaseName(Phase phase) {
  switch (phase) {
  case Phase::Prefill:
    return "prefill";
  case Phase::Decode:
    return "decode";
  }
  llvm_unreachable("unknown phase");
}

std::optional<Phase> snapflow::arch::parsePhase(llvm::StringRef name) {
  return enumByName<Phase>(name, kNumPhases, phaseName);
}
