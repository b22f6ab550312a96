//===- SectionController.h - Sections, kernel loops, steps ------*- C++ -*-===//
//
// Runs each job's steps: loads each section (a reconfiguration unless the
// same configuration just ran), runs its kernel loop one iteration at a time
// on every socket (a pipelined loop: all iterations in one run, overlapping),
// attributes each run's time along its critical path to the model
// operators and resources that made it (the profile), and samples memory
// occupancy. Fast-forward is
// here and only here: once a loop iteration, or a whole step, takes exactly
// as long as the one before, the remaining identical ones are accounted
// instead of simulated.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_COMPONENTS_SECTIONCONTROLLER_H
#define SNAPFLOW_SIM_COMPONENTS_SECTIONCONTROLLER_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Sim/Components/Component.h"
#include "snapflow/Sim/Core/Results.h"
#include "snapflow/Sim/Engine/Socket.h"
#include "snapflow/Sim/Engine/SteadyState.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <array>
#include <vector>

namespace snapflow {
namespace sim {

class SectionController {
public:
  static const ComponentInfo &info();
  enum Stat {
    Reconfigurations,
    Calls,
    IterationsSimulated,
    IterationsAccounted
  };

  SectionController(const std::vector<Job> &jobs, const arch::ArchModel &chip,
                    const SimOptions &options, std::vector<Socket> &sockets,
                    SimResult &result);

  /// The controller process: every job's steps, in order.
  void run();
  /// Whether every job ran to its end (else the run deadlocked).
  bool isFinished() const { return finished; }

  Stats stats{info()};

  /// Run-wide totals read from every socket's components, for attribution
  /// and results (per socket they are the components' own statistics).
  struct Totals {
    /// The sum of every statistic of `role` (of memory tier `tier` for the
    /// tier roles).
    double get(StatRole role, arch::MemoryTier tier = {}) const {
      return byRole[static_cast<int>(role)][static_cast<int>(tier)];
    }
    Totals operator-(const Totals &o) const;
    /// [role][tier]; a role of no tier sums in tier 0.
    std::array<std::array<double, 3>, kNumStatRoles> byRole{};
  };
  Totals totals() const;
  /// Busy fractions of the PCUs, HBM, DDR and the peer link over `spanPs`
  /// from the totals of that span, per socket.
  struct Utilization {
    double pcu = 0, hbm = 0, ddr = 0, link = 0;
  };
  Utilization utilization(const Totals &d, double spanPs) const;
  /// The time and totals at the end of the last job that is not a what-if
  /// (Job::withoutSelection): what the run's results describe.
  double realEndPs() const;
  Totals realTotals() const;

private:
  /// Runs one step of job `job`; its profile (and each chunk's) goes to
  /// `jr`.
  double runStep(int job, JobResult &jr);
  /// Runs every section of job `job` once (one chunk of a chunked
  /// prefill), adding to `profile`.
  void runChunk(int job, JobResult &jr, Profile &profile);
  /// Section `section`'s calls: one with a pipelined loop, else one per
  /// iteration.
  void runSection(int job, int section, JobResult &jr, Profile &profile);
  /// The loop of several kernels, sections [first, end): each iteration
  /// calls each kernel in turn.
  void runKernelLoop(int job, int first, int end, JobResult &jr,
                     Profile &profile);
  /// Launches a call of section `section`: its program load (unless it
  /// just ran) and the call's argument load and execute; returns the time.
  double launch(int job, int section, Profile &profile);
  /// Records the memory sample of section `section`'s load.
  void loadSample(int job, int section);
  /// Records `rest` fast-forwarded iterations of `t` after iteration
  /// `index` of a loop starting at section `section`.
  void accountIterations(int job, int section, int64_t index, double t,
                         double rest);
  /// Runs `iterations` iterations of a section (more than one: a
  /// pipelined loop, its iterations overlapping) on every socket, and adds
  /// its critical path and its nodes' work to `profile`.
  double runIteration(int job, int section, Profile &profile,
                      int64_t iterations, int64_t firstIteration = 0);
  /// Attributes a run of section `section` (simulated for `elapsed` from
  /// `t0`, and the periods `cut` left out) to `profile` along its critical
  /// path and by its nodes' work, and traces it; returns its energy.
  double attribute(int job, int section, Profile &profile, double t0,
                   double elapsed, const LoopCut &cut, int64_t firstIteration,
                   int64_t iterations);
  /// One operator's stretch of a run's critical path, for the trace.
  struct PathSpan {
    arch::OpKind kind;
    int node;
    double endPs, ps;
    std::array<double, kNumResources> byResource{};
  };
  /// The trace events of the run just attributed: the section, its path's
  /// spans (last first in `spans`), its nodes.
  void traceRun(int job, int section, double t0, int64_t firstIteration,
                int64_t iterations, double runPj,
                const std::vector<PathSpan> &spans);
  /// Charges `ps` of launching section `section` of job `job` to
  /// `profile` (the kernel_launch operator, launch resource).
  void chargeLaunch(int job, int section, double ps, Profile &profile);
  /// Runs up to `count` repetitions of `once` (which simulates one and
  /// returns its picoseconds); once one takes as long as the previous, the
  /// rest are accounted: time advances by their span, every socket's
  /// statistics grow by the last repetition's share times their number, and
  /// `accounted(t, rest)` records the level's own results.
  void repeat(int64_t count, llvm::function_ref<double()> once,
              llvm::function_ref<void(double t, double rest)> accounted);
  /// Starts the job's copy on every socket (in the background: over and
  /// over until stopCopies), and waits until it ends (runCopyAlone).
  void startCopies(const Copy &copy, bool background);
  void stopCopies();
  JobResult runCopyAlone();
  /// A job's busy fractions from the totals of its own `spanPs`.
  void setUtilization(JobResult &jr, const Totals &d, double spanPs) const;
  /// Bytes per tier and KV while each section of `p` runs, per socket
  /// (`carried` false), or between it and the next (true: the section's
  /// stream buffers and the SRAM tensors no later section uses are free).
  static std::vector<TierBytes> occupancy(const Program &p,
                                          bool carried = false);
  /// Records a memory sample now, unless it repeats the last one; a second
  /// sample at the same time replaces the first.
  void sample(const TierBytes &bytes);
  /// A trace event of `kind` for job `j` (its program and index set).
  TraceEvent event(TraceEvent::Kind kind, int j) const;
  /// Repeats the trace's memory samples since event `from` (one step of
  /// `stepPs`) `times` times, each a step later, while they fit under
  /// kMaxMemorySamples.
  void repeatSamples(size_t from, int64_t stepPs, int64_t times);

  const std::vector<Job> &jobs;
  const arch::ArchModel &chip;
  const SimOptions &options;
  std::vector<Socket> &sockets;
  SimResult &result;
  double periodPs;
  std::vector<std::vector<TierBytes>> occupancyOf, carriedOf;
  /// The trace's last memory sample (npos: none) and its number.
  size_t lastSample = static_cast<size_t>(-1);
  size_t samples = 0;
  int64_t chunk = 0; ///< the chunk running (a chunked prefill)
  const Section *lastSection = nullptr;
  /// Whether to record trace events (off in what-if jobs).
  bool tracing;
  /// Set once the what-if jobs begin.
  bool whatIf = false;
  double whatIfStartPs = 0;
  Totals whatIfStart;
  bool finished = false;
  /// Iterations the last runIteration accounted instead of simulating.
  int64_t lastSkipped = 0;
  /// A background copy is running: nothing is fast-forwarded.
  bool copying = false;
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_COMPONENTS_SECTIONCONTROLLER_H
