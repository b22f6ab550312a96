//===- Buffer.h - A PMU buffer between a producer and consumers -*- C++ -*-===//
//
// A df.buffer passes its input's tiles on over its PMUs' network lanes; with
// `reads` > 1 it keeps every tile and emits the whole sequence that many
// times (an operand reused by every step of its consumer).
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_BUFFER_H
#define SNAPFLOW_SIM_COMPONENTS_BUFFER_H

#include "snapflow/Sim/Components/Component.h"
#include "snapflow/Sim/Core/Runtime.h"

namespace snapflow {
namespace sim {

class Buffer final : public Component {
public:
  static const ComponentInfo &info();
  enum Stat { TilesIn, TilesOut };

  Buffer() : Component(info()) {}

  /// The process of buffer node `index` for one run of its section.
  void run(SectionRun &r, int index) override;
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_BUFFER_H
