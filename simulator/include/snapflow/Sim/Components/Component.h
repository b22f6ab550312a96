//===- Component.h - Declared parameters and statistics ---------*- C++ -*-===//
//
// Every simulator component declares, once (gem5 style), the parameters it
// takes from the chip file and the statistics it accumulates, each with its
// unit and a description. `snapflow list --components` prints the
// declarations, a unit test checks every parameter names a chip key of
// ArchModel (so no hardware number is a literal in a component), and the
// section controller snapshots and scales the statistics generically when
// it fast-forwards identical loop iterations.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_COMPONENT_H
#define SNAPFLOW_SIM_COMPONENTS_COMPONENT_H

#include "llvm/ADT/ArrayRef.h"

#include <cstddef>
#include <vector>

namespace snapflow {
namespace sim {

/// A parameter of a component and the chip key(s) it is derived from.
struct ParamInfo {
  const char *name;
  const char *unit;
  const char *chipKeys; ///< "socket.hbm_bytes_per_s", comma separated if many
  const char *description;
};

/// A statistic a component accumulates over a run.
struct StatInfo {
  const char *name;
  const char *unit;
  const char *description;
};

/// What a component declares.
struct ComponentInfo {
  const char *name;
  const char *description;
  llvm::ArrayRef<ParamInfo> params;
  llvm::ArrayRef<StatInfo> stats;
};

/// The statistics of one component instance: one double per declared
/// StatInfo, indexed by the component's own enum.
class Stats {
public:
  explicit Stats(const ComponentInfo &info)
      : info(&info), values(info.stats.size(), 0.0) {}
  double &operator[](size_t i) { return values[i]; }
  double operator[](size_t i) const { return values[i]; }
  const ComponentInfo &getInfo() const { return *info; }
  llvm::ArrayRef<double> getValues() const { return values; }
  /// Adds `delta` (a difference of two snapshots of these statistics)
  /// `times` times: the work of fast-forwarded identical iterations.
  void accumulate(llvm::ArrayRef<double> delta, double times) {
    for (size_t i = 0; i < values.size(); ++i)
      values[i] += delta[i] * times;
  }

private:
  const ComponentInfo *info;
  std::vector<double> values;
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_COMPONENT_H
