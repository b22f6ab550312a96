//===- Socket.cpp - One socket's components -------------------------------===//

#include "snapflow/Sim/Engine/Socket.h"

#include "llvm/ADT/Twine.h"

using namespace snapflow;
using namespace snapflow::sim;

void Socket::build(const BuildContext &ctx) {
  for (const ComponentKind &kind : registeredComponents())
    for (std::unique_ptr<Component> &c : kind.build(ctx))
      components.push_back(std::move(c));
  for (const std::unique_ptr<Component> &c : components) {
    c->attach(*ports);
    for (NodeKind k : c->getInfo().runs) {
      Component *&slot = runner[static_cast<int>(k)];
      if (slot)
        llvm::report_fatal_error(llvm::Twine(c->getInfo().name) + " and " +
                                 slot->getInfo().name +
                                 " both run one node kind");
      slot = c.get();
    }
    if (c->getInfo().copies) {
      if (copier)
        llvm::report_fatal_error(llvm::Twine(c->getInfo().name) + " and " +
                                 copier->getInfo().name + " both copy");
      copier = c.get();
    }
  }
  // Every kind a program can hold must have its component, and every port
  // its server: a registration missing from the link fails here, not as a
  // null call mid-run.
  for (int k = 0; k < kNumNodeKinds; ++k)
    if (!runner[k])
      llvm::report_fatal_error("no component runs node kind " + llvm::Twine(k));
  for (MemoryPort *t : ports->tiers)
    if (!t)
      llvm::report_fatal_error("a memory tier has no component");
  if (!ports->network || !copier)
    llvm::report_fatal_error("no network or no copying component");
}

NodeKind Socket::kindOf(const SectionRun &r, int n) {
  return r.section->nodes[n].kind;
}

std::vector<Stats *> Socket::stats() const {
  std::vector<Stats *> out;
  for (const std::unique_ptr<Component> &c : components)
    out.push_back(&c->stats);
  return out;
}

StatsSnapshot snapflow::sim::snapshot(const Socket &socket) {
  StatsSnapshot out;
  for (Stats *s : socket.stats())
    out.emplace_back(s->getValues().begin(), s->getValues().end());
  return out;
}
