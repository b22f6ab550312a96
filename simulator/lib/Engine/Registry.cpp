//===- Registry.cpp - The components the engine builds --------------------===//

#include "snapflow/Sim/Engine/Registry.h"

#include "snapflow/Sim/Engine/SectionController.h"

#include "llvm/Support/FormatVariadic.h"

using namespace snapflow;
using namespace snapflow::sim;

std::vector<const ComponentInfo *> snapflow::sim::allComponents() {
  std::vector<const ComponentInfo *> all = {&SectionController::info()};
  for (const ComponentKind &kind : registeredComponents())
    all.push_back(&kind.info());
  return all;
}

void snapflow::sim::describeComponents(llvm::raw_ostream &os) {
  for (const ComponentInfo *c : allComponents()) {
    os << c->name << ": " << c->description << "\n";
    for (const ParamInfo &p : c->params)
      os << llvm::formatv("  param {0,-22} {1,-12} from {2}: {3}\n", p.name,
                          p.unit, p.chipKeys, p.description);
    for (const StatInfo &s : c->stats)
      os << llvm::formatv("  stat  {0,-22} {1,-12} {2}\n", s.name, s.unit,
                          s.description);
  }
}
