//===- Component.cpp - The registry of component kinds --------------------===//

#include "snapflow/Sim/Components/Component.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cstring>

using namespace snapflow;
using namespace snapflow::sim;

namespace {
/// Filled by the static registrations, before main.
std::vector<ComponentKind> &registry() {
  static std::vector<ComponentKind> kinds;
  return kinds;
}
} // namespace

ComponentRegistration::ComponentRegistration(ComponentKind kind) {
  registry().push_back(kind);
}

std::vector<ComponentKind> snapflow::sim::registeredComponents() {
  // Registration order is the link order; the name order is the same in
  // every build.
  std::vector<ComponentKind> kinds = registry();
  std::sort(kinds.begin(), kinds.end(),
            [](const ComponentKind &a, const ComponentKind &b) {
              return std::strcmp(a.info().name, b.info().name) < 0;
            });
  return kinds;
}

std::vector<std::unique_ptr<Component>>
snapflow::sim::single(std::unique_ptr<Component> c) {
  std::vector<std::unique_ptr<Component>> out;
  out.push_back(std::move(c));
  return out;
}

Component::~Component() = default;

void Component::attach(SocketPorts &) {}

std::vector<double> Component::tallies() const { return {}; }

void Component::addTallies(llvm::ArrayRef<double>, double) {}

void Component::run(SectionRun &, int) {
  llvm::report_fatal_error(llvm::Twine(getInfo().name) + " runs no node kind");
}

void Component::runCopy(const SocketPorts &, CopyRun &) {
  llvm::report_fatal_error(llvm::Twine(getInfo().name) + " runs no copy");
}
