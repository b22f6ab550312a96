//===- Socket.h - One socket's components -----------------------*- C++ -*-===//
//
// The engine's socket: the instances of every registered component kind
// (Components/Component.h), the ports they offer each other, which of them
// runs each node kind and the copy, the runs of every section of every job
// on it, and its bulk copy. It names no component class.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_ENGINE_SOCKET_H
#define SNAPFLOW_SIM_ENGINE_SOCKET_H

#include "snapflow/Sim/Components/Component.h"
#include "snapflow/Sim/Core/Runtime.h"

#include "llvm/Support/ErrorHandling.h"

#include <array>
#include <memory>
#include <vector>

namespace snapflow {
namespace sim {

/// One socket's components and its runs of every section of every job.
struct Socket {
  /// Every registered kind's instances, in the registry's order.
  std::vector<std::unique_ptr<Component>> components;
  /// The tiers and the network as its runs' components reach them.
  std::unique_ptr<SocketPorts> ports = std::make_unique<SocketPorts>();
  std::vector<std::vector<std::unique_ptr<SectionRun>>> runs; // [job][section]
  std::unique_ptr<CopyRun> copy = std::make_unique<CopyRun>();

  /// Builds one socket's instances of every registered component and wires
  /// the ports and the node kinds to them.
  void build(const BuildContext &ctx);
  /// Runs node `n` of `r` on the component that runs its kind.
  void run(SectionRun &r, int n) {
    runner[static_cast<int>(kindOf(r, n))]->run(r, n);
  }
  /// Whether node `n` of `r` keeps its own clock (ComponentInfo::ownClock).
  bool ownClock(const SectionRun &r, int n) const {
    return runner[static_cast<int>(kindOf(r, n))]->getInfo().ownClock;
  }
  /// Runs the socket's copy on the component that copies.
  void runCopy() { copier->runCopy(*ports, *copy); }
  /// The first component of class T (for what only it records).
  template <typename T> T &get() const {
    for (const std::unique_ptr<Component> &c : components)
      if (auto *t = dynamic_cast<T *>(c.get()))
        return *t;
    llvm::report_fatal_error("no such component on the socket");
  }
  /// Every component's statistics, in a fixed order.
  std::vector<Stats *> stats() const;

private:
  static NodeKind kindOf(const SectionRun &r, int n);
  std::array<Component *, kNumNodeKinds> runner{};
  Component *copier = nullptr;
};

/// A snapshot of statistics: one vector per block of Socket::stats().
using StatsSnapshot = std::vector<std::vector<double>>;
StatsSnapshot snapshot(const Socket &socket);

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_ENGINE_SOCKET_H
