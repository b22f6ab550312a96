//===- Component.h - Components and their registry --------------*- C++ -*-===//
//
// Every simulator component declares, once (gem5 style), the parameters it
// takes from the chip file and the statistics it accumulates, each with its
// unit, a description and, where run-wide totals read it, a role. It
// registers itself (one ComponentRegistration in its own .cpp) with that
// declaration and a factory, and the engine builds every socket from the
// registry: a component is its two files, named nowhere else.
// `snapflow list --components` prints the declarations, a unit test checks
// every parameter names a chip key of ArchModel (so no hardware number is a
// literal in a component), and the section controller snapshots and scales
// the statistics generically when it fast-forwards identical loop
// iterations, and reads run-wide totals by role.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_COMPONENT_H
#define SNAPFLOW_SIM_COMPONENTS_COMPONENT_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Sim/Core/Ports.h"
#include "snapflow/Sim/Core/Program.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

namespace snapflow {
namespace sim {

struct CopyRun;
struct SectionRun;
class CollectiveGroups;

/// A parameter of a component and the chip key(s) it is derived from.
struct ParamInfo {
  const char *name;
  const char *unit;
  const char *chipKeys; ///< "socket.hbm_bytes_per_s", comma separated if many
  const char *description;
};

/// What a statistic measures where the engine totals it over every
/// component of every socket (utilization, the profile's resources).
enum class StatRole {
  None,
  PcuBusy,   ///< PCU-ps computing
  Flops,     ///< floating-point operations
  LinkBusy,  ///< ps the peer link was busy
  LinkBytes, ///< bytes over the peer link
  Tiles,     ///< tiles handed between units
  TierBusy,  ///< channel-ps of the component's memory tier
  TierBytes, ///< bytes through the component's memory tier
  Energy,    ///< picojoules of dynamic energy charged
};
constexpr int kNumStatRoles = static_cast<int>(StatRole::Energy) + 1;

/// A statistic a component accumulates over a run.
struct StatInfo {
  const char *name;
  const char *unit;
  const char *description;
  StatRole role = StatRole::None;
};

/// What a component declares.
struct ComponentInfo {
  const char *name;
  const char *description;
  llvm::ArrayRef<ParamInfo> params;
  llvm::ArrayRef<StatInfo> stats;
  /// The node kinds whose processes it runs (Component::run).
  llvm::ArrayRef<NodeKind> runs = {};
  /// Whether it runs the socket's bulk copy (Component::runCopy).
  bool copies = false;
  /// Whether its nodes touch no resource another node shares (no memory
  /// tier, AGCU or link server: only their own compute, the mesh crossing
  /// and their streams), so they may keep their own clock ahead of
  /// SystemC's (NodeRun::decoupled); the same times, fewer kernel waits.
  bool ownClock = false;
};

/// The statistics of one component instance: one double per declared
/// StatInfo, indexed by the component's own enum.
class Stats {
public:
  explicit Stats(const ComponentInfo &info,
                 std::optional<arch::MemoryTier> tier = std::nullopt)
      : info(&info), tier(tier), values(info.stats.size(), 0.0) {}
  double &operator[](size_t i) { return values[i]; }
  double operator[](size_t i) const { return values[i]; }
  const ComponentInfo &getInfo() const { return *info; }
  /// The memory tier its TierBusy and TierBytes statistics describe.
  std::optional<arch::MemoryTier> getTier() const { return tier; }
  llvm::ArrayRef<double> getValues() const { return values; }
  /// Adds `delta` (a difference of two snapshots of these statistics)
  /// `times` times: the work of fast-forwarded identical iterations.
  void accumulate(llvm::ArrayRef<double> delta, double times) {
    for (size_t i = 0; i < values.size(); ++i)
      values[i] += delta[i] * times;
  }

private:
  const ComponentInfo *info;
  std::optional<arch::MemoryTier> tier;
  std::vector<double> values;
};

/// One instance of a component on one socket.
class Component {
public:
  explicit Component(const ComponentInfo &info,
                     std::optional<arch::MemoryTier> tier = std::nullopt)
      : stats(info, tier) {}
  virtual ~Component();
  Component(const Component &) = delete;
  Component &operator=(const Component &) = delete;

  const ComponentInfo &getInfo() const { return stats.getInfo(); }
  /// Offers what it serves to the socket's ports (a memory tier, the
  /// network); once every component of the socket is built.
  virtual void attach(SocketPorts &ports);
  /// The process of node `index` of `r` (a kind getInfo().runs names) for
  /// one run of its section.
  virtual void run(SectionRun &r, int index);
  /// The socket's bulk copy (if getInfo().copies), once or until stopped.
  virtual void runCopy(const SocketPorts &ports, CopyRun &copy);
  /// What the component records beyond its statistics that grows with
  /// every run (sums and counts, flattened; none by default), and adding
  /// `delta`, the growth over a measured period, `times` times: how the
  /// steady state of a pipelined loop accounts the iterations it did not
  /// simulate (Engine/SteadyState.h).
  virtual std::vector<double> tallies() const;
  virtual void addTallies(llvm::ArrayRef<double> delta, double times);

  Stats stats;
};

/// What a factory builds a socket's instances from.
struct BuildContext {
  const arch::ArchModel &chip;
  /// Where the sockets' collectives meet; null when one socket stands for
  /// the symmetric group.
  CollectiveGroups *groups = nullptr;
};

/// A component kind as registered: its declaration and the factory of one
/// socket's instances of it (several: a memory tier per tier).
struct ComponentKind {
  const ComponentInfo &(*info)();
  std::vector<std::unique_ptr<Component>> (*build)(const BuildContext &);
};

/// One static instance in a component's .cpp registers it. The library is
/// linked whole (simulator/CMakeLists.txt), so none is dropped.
struct ComponentRegistration {
  explicit ComponentRegistration(ComponentKind kind);
};

/// Every registered component kind, by name.
std::vector<ComponentKind> registeredComponents();

/// A factory's result when a socket has one instance of the component.
std::vector<std::unique_ptr<Component>> single(std::unique_ptr<Component> c);

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_COMPONENT_H
