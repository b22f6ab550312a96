//===- DmaEngine.h - Loads and stores through the AGCUs ---------*- C++ -*-===//
//
// df.load and df.store. A load issues memory reads as far ahead as its
// stream has room (double buffering); each tile is served by its tensor's
// tier, then crosses the load's own AGCU lanes and the socket's AGCU pool,
// which every load running at the time shares, and the mesh, before it
// lands in the stream. A store drains its stream into the tier; its section
// ends when the last write has landed. A copy (Job::copy, a model's
// weights switched in from DDR to HBM) reads its source tier a block at a
// time, a few blocks ahead; each block crosses the AGCU pool twice (in from
// one tier's portal, out to the other's) and the mesh, then is written.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_DMAENGINE_H
#define SNAPFLOW_SIM_COMPONENTS_DMAENGINE_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Sim/Components/Component.h"
#include "snapflow/Sim/Core/BandwidthServer.h"
#include "snapflow/Sim/Core/Runtime.h"

namespace snapflow {
namespace sim {

class DmaEngine final : public Component {
public:
  static const ComponentInfo &info();
  enum Stat { BytesLoaded, BytesStored, AgcuBusyPs, BytesCopied };

  /// A copy's block: the granularity at which it takes turns with loads and
  /// stores at the tiers and the AGCUs. Not a hardware figure: the copy is
  /// bound by the slower tier's bandwidth, and a block only sets how finely
  /// it interleaves (a 256 KiB HBM write at 1.6 TB/s holds the tier for
  /// 164 ns); docs/Simulator.md, Switching models.
  static constexpr int64_t kCopyBlockBytes = 256 * 1024;
  /// Blocks read ahead of the writes, so the source tier never waits.
  static constexpr int64_t kCopyBlocksInFlight = 4;

  explicit DmaEngine(const arch::ArchModel &chip);

  /// The process of load node `index` for one run of its section.
  void runLoad(SectionRun &r, int index);
  /// The process of store node `index` for one run of its section.
  void runStore(SectionRun &r, int index);
  /// The socket's copy (CopyRun), once or until stopped.
  void runCopy(const SocketPorts &s, CopyRun &c) override;
  /// Runs load and store nodes.
  void run(SectionRun &r, int index) override;

private:
  MemoryPort &tierOf(SectionRun &r, const Node &n);

  double periodPs;
  double laneBytesPerCycle; ///< one AGCU lane: min(AGCU port, NoC stream)
  BandwidthServer pool;     ///< the socket's AGCUs, shared by its loads
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_DMAENGINE_H
