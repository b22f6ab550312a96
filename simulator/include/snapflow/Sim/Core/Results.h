//===- Results.h - What a simulation is asked and answers ------*- C++ -*-===//
//
// The simulator's vocabulary above the program: how to simulate (options,
// jobs, copies) and what a run reports (per-job results, the profile by
// operator, collectives, trace events and memory samples). The engine
// (Sim/Engine/Simulator.h) fills them; the report, trace and serving code
// read them without knowing the engine or its components.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_CORE_RESULTS_H
#define SNAPFLOW_SIM_CORE_RESULTS_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Arch/OpKind.h"
#include "snapflow/Sim/Core/Program.h"

#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace snapflow {
namespace sim {

/// How to simulate.
struct SimOptions {
  /// Shortcut: once a loop iteration (or a whole step) takes exactly as long
  /// as the one before, the remaining identical ones are accounted, not
  /// simulated. Off: simulate every iteration and step.
  bool fastForward = true;
  /// Simulate every socket of the TP group instead of one socket with its
  /// peers inferred from symmetry.
  bool allSockets = false;
  /// Record per-stage slices for the trace.
  bool trace = true;
  /// Called after each simulated step of a job: (steps simulated, steps of
  /// the job). Fast-forwarded steps are accounted at once, not reported.
  std::function<void(int64_t, int64_t)> onStep;
};

/// A bulk copy between memory tiers on every simulated socket, made by the
/// DMA/AGCU engine: a model's weights brought from DDR into HBM when a
/// serving deployment switches the model in (DmaEngine::runCopy).
struct Copy {
  int64_t bytes = 0; ///< per socket
  arch::MemoryTier from = arch::MemoryTier::DDR, to = arch::MemoryTier::HBM;
};

/// One program to run `steps` times, in order; or a copy.
struct Job {
  Job() = default;
  Job(const Program *program, int64_t steps = 1, bool withoutSelection = false)
      : program(program), steps(steps), withoutSelection(withoutSelection) {}

  /// Null for a job that is only its copy.
  const Program *program = nullptr;
  int64_t steps = 1;
  /// A prefill's what-if: its last chunk alone (as if the chunk before had
  /// just run) with the end-of-prefill selection (Node::lastChunk) idle, so
  /// that the last chunk's time less this one's is what the selection adds
  /// to the time to first token. Such jobs run after every other job and
  /// leave the run's results (elapsed time, utilization, collectives,
  /// trace) as those jobs made them.
  bool withoutSelection = false;
  /// Without a program: the job is this copy, and its step is the copy's
  /// time. With one: the copy runs in the background from the job's start,
  /// starting over each time it ends, so every step of the program contends
  /// with it for the tiers and the AGCUs; the job is not fast-forwarded (a
  /// skipped span would leave the copy alone) and its result gives the
  /// bytes the copy moved in the last step (JobResult::copyBytes).
  std::optional<Copy> copy;
};

/// What a span of a run waited on: PCUs computing, a memory tier, the
/// on-chip network, the peer link, or a kernel launch (the section
/// controller's program load).
enum class Resource { PCU, SRAM, HBM, DDR, NoC, Link, Launch };
constexpr int kNumResources = static_cast<int>(Resource::Launch) + 1;
/// "pcu", "sram", "hbm", "ddr", "noc", "link", "launch".
llvm::StringRef resourceName(Resource resource);

/// What dynamic energy was spent on (docs/Energy.md): PCU arithmetic, PMU
/// reads and writes, HBM and DDR traffic, the on-chip network's hops, the
/// peer and node links. Static power is integrated over time apart.
enum class EnergyAction { Compute, SRAM, HBM, DDR, Network, Link };
constexpr int kNumEnergyActions = static_cast<int>(EnergyAction::Link) + 1;
/// "compute", "sram", "hbm", "ddr", "network", "links".
llvm::StringRef energyActionName(EnergyAction action);
/// Picojoules by action.
struct ActionEnergy {
  std::array<double, kNumEnergyActions> pj{};
  double &operator[](EnergyAction a) { return pj[static_cast<int>(a)]; }
  double operator[](EnergyAction a) const { return pj[static_cast<int>(a)]; }
  double total() const;
  /// Adds `other` `times` times.
  void add(const ActionEnergy &other, double times = 1);
};

/// A slice or memory sample of the trace, at integer picoseconds of
/// simulated time. A slice names what ran by reference (its job's program,
/// section and node) and the trace writer (Trace.h) turns that into the
/// slice's name, its track and its details.
/// Bytes per socket held in each memory tier, and of them the KV cache's:
/// a trace's memory counter, a section's occupancy.
struct TierBytes {
  double sram = 0, hbm = 0, ddr = 0;
  double kv = 0; ///< of the three, the KV cache's (and a policy's state)

  double &operator[](arch::MemoryTier t) {
    return t == arch::MemoryTier::SRAM  ? sram
           : t == arch::MemoryTier::HBM ? hbm
                                        : ddr;
  }
  double operator[](arch::MemoryTier t) const {
    return const_cast<TierBytes &>(*this)[t];
  }
  bool operator==(const TierBytes &o) const {
    return sram == o.sram && hbm == o.hbm && ddr == o.ddr && kv == o.kv;
  }
  bool operator!=(const TierBytes &o) const { return !(*this == o); }
};

struct TraceEvent {
  enum Kind {
    /// One simulated step of a job.
    Step,
    /// A job's fast-forwarded steps, `count` of them.
    StepsAccounted,
    /// A section run: one iteration, or all of a pipelined loop's.
    Section,
    /// A loop's fast-forwarded iterations.
    IterationsAccounted,
    /// A node's first to last activity in a section run.
    Node,
    /// A copy job (`bytes`: per socket).
    Copy,
    /// Memory occupancy (values: SRAM, HBM, DDR, KV bytes per socket).
    Counter,
    /// A span of a section run's critical path spent by one operator (the
    /// kind of node `node`; -1: a kernel launch), `criticalPs` of it per
    /// resource, most on `resource`.
    Critical
  };
  Kind kind = Node;
  /// The job's program (null for a copy); the caller's, which outlives the
  /// result as long as the jobs' programs do.
  const Program *program = nullptr;
  int job = 0, section = -1, node = -1;
  /// The first step or iteration the slice covers (from 0), and how many.
  int64_t index = 0, count = 1;
  int64_t chunk = 0; ///< of a chunked prefill
  /// A collective node: the algorithm it ran, as resolved on the chip.
  arch::CollectiveAlgorithm algorithm = arch::CollectiveAlgorithm::Ring;
  int64_t startPs = 0, endPs = 0;
  /// Counter: the bytes each tier holds per socket.
  TierBytes memory;
  /// Copy: its bytes per socket; a collective node: its message bytes per
  /// run.
  double bytes = 0;
  /// Critical: what the span waited on most (a Resource), and how long
  /// on each.
  int resource = 0;
  std::array<double, kNumResources> criticalPs{};
  /// Section: the dynamic energy its run spent on one socket (picojoules),
  /// the trace's power counter.
  double energyPj = 0;
};

/// The most memory samples a run records: a fast-forwarded span repeats
/// the last simulated step's samples while they fit, and then holds.
constexpr size_t kMaxMemorySamples = 1 << 16;

/// Time attribution of a run (picoseconds; they sum to the elapsed time).
struct Breakdown {
  double computePs = 0, memoryPs = 0, networkPs = 0, collectivePs = 0,
         reconfigPs = 0;
};

/// One model operator's share of a step (a row of the profile).
struct OperatorProfile {
  /// Its spans on the step's critical path, by what they waited on.
  std::array<double, kNumResources> criticalPs{};
  /// Its nodes' own work, summed over nodes (on the critical path or not):
  /// compute steps, memory transfers, crossings, collective tiles.
  double busyPs = 0;
  double flops = 0;
  std::array<double, 3> bytes{}; ///< loaded and stored, per tier
  double linkBytes = 0;          ///< sent over the peer link
  /// Of `flops`, those computed in SIMD mode (the rest are systolic).
  double simdFlops = 0;
  /// The dynamic energy its nodes' actions were charged, by action.
  ActionEnergy energy;
  double criticalTotalPs() const;
  bool empty() const;
};

/// Where a step's time went, by model operator (docs/Simulator.md,
/// "Profile"). Its critical-path spans add up to the step.
struct Profile {
  std::array<OperatorProfile, arch::kNumOpKinds> ops{};
  /// Per section of the program, in program order.
  struct SectionShare {
    /// The section's part of the critical path, by operator.
    std::array<double, arch::kNumOpKinds> criticalPs{};
    double ps = 0;       ///< its runs' time, launches included
    double calls = 0;    ///< kernel calls (a pipelined loop is one)
    double energyPj = 0; ///< its runs' dynamic energy
  };
  std::vector<SectionShare> sections;

  /// Adds `other` `times` times (fast-forwarded repeats).
  void add(const Profile &other, double times = 1);
  double criticalPs() const;
  /// The critical path by kind of wait (the report's `breakdown`).
  Breakdown breakdown() const;
};

/// What one job took.
struct JobResult {
  /// The program it ran; null for a copy alone.
  const Program *program = nullptr;
  bool withoutSelection = false; ///< Job::withoutSelection
  double stepPs = 0;             ///< one step (the last simulated)
  /// Each chunk of the last simulated step, in order (one entry unchunked;
  /// a what-if job's only chunk is its last): what serving charges a step
  /// that carries chunk j of a prompt.
  std::vector<double> chunkPs;
  double lastChunkPs() const { return chunkPs.empty() ? 0 : chunkPs.back(); }
  double totalPs = 0; ///< all `steps`
  int64_t steps = 0, stepsSimulated = 0;
  int64_t iterationsSimulated = 0, iterationsFastForwarded = 0;
  Breakdown breakdown; ///< of one step
  /// Of one step (the last simulated), by operator; and each chunk's (one
  /// unchunked).
  Profile profile;
  std::vector<Profile> chunkProfiles;
  double flops = 0; ///< per step
  /// Per step, per tier: loads, stores and a background copy's blocks.
  std::array<double, 3> bytes{};
  double linkBytes = 0; ///< per step
  /// Bytes the job's copy (Job::copy) moved per socket: its whole size for
  /// a copy alone, those of the last step for a background copy.
  double copyBytes = 0;
  /// Per step, per socket: the dynamic energy the copy was charged (its
  /// reads, crossings and writes), and what every component was charged,
  /// the nodes' (the profile's) and the copy's together.
  ActionEnergy copyEnergy;
  double energyPj = 0;
  /// Busy fractions over this job's own steps (not the run's): PCU, HBM,
  /// DDR, peer link.
  double pcuUtilization = 0, hbmUtilization = 0, ddrUtilization = 0,
         linkUtilization = 0;
};

/// The outcome of a simulation.
/// One df.collective of a job as it ran (socket 0), averaged over its runs.
struct CollectiveResult {
  int job = 0;
  std::string section, label;
  int node = 0; ///< its position in the section
  CollectiveKind kind = CollectiveKind::AllReduce;
  arch::CollectiveAlgorithm algorithm = arch::CollectiveAlgorithm::Ring;
  int64_t group = 0;
  double bytes = 0;     ///< message bytes
  int64_t perStep = 0;  ///< runs per step (its section's repeat)
  double latencyPs = 0; ///< first input tile to last output tile
  double exposedPs = 0; ///< of which after the producer's last tile
  double modelPs = 0;   ///< the cost model for the whole message, unqueued
};

/// The latest simulated time a run may reach: 2^62 ps, about 53 days, half
/// of what SystemC's 64-bit time holds, so no sum of spans saturates it.
/// A wait past it stops the run, which reports it (SimResult::failure)
/// instead of times clamped to the end of SystemC time.
constexpr double kHorizonPs = 0x1p62;

struct SimResult {
  std::vector<JobResult> jobs;
  std::vector<CollectiveResult> collectives;
  double elapsedPs = 0;
  double cycles = 0;
  /// Why the run did not finish, empty when it did: a deadlock (the stalled
  /// processes and streams) or simulated time past kHorizonPs.
  std::string failure;
  bool deadlocked = false;
  bool pastHorizon = false;
  /// Busy fractions over the whole run.
  double pcuUtilization = 0, hbmUtilization = 0, ddrUtilization = 0,
         linkUtilization = 0;
  std::array<double, 3> peakBytes{}; ///< per tier, per socket
  int64_t tilesMoved = 0;            ///< tiles pushed through streams
  std::vector<TraceEvent> trace;
  /// Fast-forwarded steps whose memory samples the trace holds at the last
  /// value instead (past kMaxMemorySamples).
  int64_t stepsUnsampled = 0;
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_CORE_RESULTS_H
