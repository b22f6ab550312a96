//===- Energy.h - Joules and watts of a run at the node --------*- C++ -*-===//
//
// The components charge the dynamic energy of every action they take at the
// chip's prices (Sim/Components: a FLOP, a bit read or written per tier, a
// bit over a mesh hop or a link); this turns a job's charges into the
// node's energy: the TP group's dynamic energy on each of its sockets, the
// replicas of the group that fill the node, every socket's static power
// and the host's integrated over the time, and the wall's losses on top.
// The three buckets (dynamic, static, node) stay apart (docs/Energy.md).
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_STATS_ENERGY_H
#define SNAPFLOW_SIM_STATS_ENERGY_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Sim/Core/Results.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>

namespace snapflow {
namespace sim {

/// Copies of a TP group of `tp` sockets the node holds (at least one):
/// a node's energy and tokens are those of every copy running the same
/// load; sockets left over idle at their static power.
int64_t groupsPerNode(int64_t tp, const arch::ArchModel &chip);

/// The node's energy over a span of simulated time.
struct NodeEnergy {
  ActionEnergy dynamic; ///< every socket's actions, picojoules
  double staticJ = 0;   ///< every socket's static power x time
  double hostJ = 0;     ///< the host's power x time
  double overheadJ = 0; ///< the wall's losses on all of the above
  double seconds = 0;
  double dynamicJ() const { return dynamic.total() * 1e-12; }
  double totalJ() const { return dynamicJ() + staticJ + hostJ + overheadJ; }
  /// Average power at the wall over the span.
  double watts() const { return seconds > 0 ? totalJ() / seconds : 0; }
};

/// The node's energy over `seconds` in which each socket of `tp`-socket
/// groups spends `perSocket` (picojoules): groupsPerNode copies of the
/// group act, every socket and the host draw static power throughout.
NodeEnergy nodeEnergy(const ActionEnergy &perSocket, double seconds, int64_t tp,
                      const arch::ArchModel &chip);

/// The node's power while each socket of its `tp`-socket groups draws
/// `socketDynamicW` for its actions: that, every socket's static power and
/// the host's, with the wall's losses.
double nodePowerW(double socketDynamicW, int64_t tp,
                  const arch::ArchModel &chip);

/// The node's power with nothing running: every socket's static power and
/// the host's, with the wall's losses.
double idlePowerW(const arch::ArchModel &chip);

/// A job's dynamic energy of one step on one socket: its operators' and its
/// copy's (what the profile's rows add up to).
ActionEnergy stepEnergy(const JobResult &job);

/// The report's `energy` object for the decode job `decode` (and the
/// prefill job, null when none): joules per step, token and request,
/// average and peak power of a socket and the node, the step's energy by
/// action (docs/Simulator.md, "energy").
llvm::json::Object energyObject(const JobResult *decode,
                                const JobResult *prefill,
                                const Program &decodeProgram,
                                const Program *prefillProgram,
                                const arch::ArchModel &chip);

/// The summary's energy lines, from a report's `energy` object.
void printEnergy(llvm::raw_ostream &os, const llvm::json::Object &report);

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_STATS_ENERGY_H
