//===- Registry.h - The components the engine builds ------------*- C++ -*-===//
//
// Every component kind of the simulator with its declaration (parameters by
// chip key, statistics with units): the section controller and every kind
// in the component registry. For `snapflow list --components`, the docs and
// the unit test that checks each parameter names a chip key.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_ENGINE_REGISTRY_H
#define SNAPFLOW_SIM_ENGINE_REGISTRY_H

#include "snapflow/Sim/Components/Component.h"

#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace snapflow {
namespace sim {

/// Every component kind the simulator has: the section controller (one per
/// run, the engine's own) and every registered kind, by name.
std::vector<const ComponentInfo *> allComponents();

/// Prints each component's parameters and statistics with their units.
void describeComponents(llvm::raw_ostream &os);

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_ENGINE_REGISTRY_H
