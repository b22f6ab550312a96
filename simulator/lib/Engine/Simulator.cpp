//===- Simulator.cpp - Wiring the components into one SystemC model -------===//
//
// The engine builds one set of components per simulated socket (memory
// tiers, on-chip network, PCU stages, DMA/AGCU engine, buffers, collectives
// over the peer link), one run per section of every job with its streams,
// a SystemC process per node that hands the node to its component, and the
// section controller that drives everything. It holds no model of its own:
// timing lives in the components (simulator/lib/Components/).
//
//===----------------------------------------------------------------------===//

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "snapflow/Sim/Engine/Simulator.h"

#include "snapflow/Sim/Components/Collective.h"
#include "snapflow/Sim/Engine/SectionController.h"
#include "snapflow/Sim/Engine/Socket.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <systemc>

#include <cstdlib>
#include <memory>
#include <new>
#include <optional>
#include <sstream>

using namespace snapflow;
using namespace snapflow::sim;

namespace {

class Engine : public sc_core::sc_module {
public:
  SC_HAS_PROCESS(Engine);

  Engine(sc_core::sc_module_name name, const std::vector<Job> &jobs,
         const arch::ArchModel &chip, const SimOptions &options)
      : sc_module(name), jobs(jobs), chip(chip) {
    int64_t group = 1;
    for (const Job &j : jobs)
      if (j.program)
        group = std::max(group, j.program->tp);
    int64_t count = options.allSockets ? group : 1;
    if (count > 1)
      groups = std::make_unique<CollectiveGroups>(static_cast<int>(count));
    // Runs point at their socket: size the vector before wiring.
    sockets.resize(static_cast<size_t>(count));
    for (int64_t k = 0; k < count; ++k)
      wire(sockets[k], static_cast<int>(k));
    controller = std::make_unique<SectionController>(jobs, chip, options,
                                                     sockets, result);
    SC_THREAD(control);
  }

  /// Fills the run-wide results once sc_start has returned.
  void finish();

  /// After a run that did not finish (a deadlock, the horizon): kills every
  /// process still blocked, from a process of the simulation (a kill from
  /// outside it crashes SystemC), so their stacks unwind and free what they
  /// hold instead of leaking it (reliability defect 29).
  void reap() {
    if (controller->isFinished() && !horizonPassed())
      return;
    sc_core::sc_spawn_options method;
    method.spawn_method();
    std::vector<sc_core::sc_object *> children = get_child_objects();
    sc_core::sc_spawn(
        [children] {
          for (sc_core::sc_object *child : children) {
            sc_core::sc_process_handle process(child);
            if (process.valid() && !process.terminated() &&
                process.proc_kind() == sc_core::SC_THREAD_PROC_)
              process.kill();
          }
        },
        "reaper", &method);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }

  SimResult result;

private:
  void control() { controller->run(); }

  void wire(Socket &sock, int k) {
    sock.build({chip, groups.get()});
    spawnCopy(sock);
    for (size_t j = 0; j < jobs.size(); ++j) {
      sock.runs.emplace_back();
      if (!jobs[j].program)
        continue; // a copy alone
      const Program &p = *jobs[j].program;
      for (size_t i = 0; i < p.sections.size(); ++i) {
        auto run = std::make_unique<SectionRun>();
        run->program = &p;
        run->section = &p.sections[i];
        run->ports = sock.ports.get();
        run->job = static_cast<int>(j);
        run->index = static_cast<int>(i);
        run->socketIndex = k;
        run->setChunk(p.chunks - 1);
        int64_t pcus = 0;
        for (const Stream &st : run->section->streams)
          run->streams.push_back(std::make_unique<TileStream>(
              st.depth, static_cast<int>(st.consumers.size())));
        for (const Node &n : run->section->nodes)
          if (n.kind == NodeKind::Stage)
            pcus += n.pcus;
        run->oversubscription =
            std::max(1.0, double(pcus) / double(chip.socket().pcuCount));
        run->nodes.resize(run->section->nodes.size());
        for (size_t n = 0; n < run->section->nodes.size(); ++n)
          run->starts.push_back(std::make_unique<sc_core::sc_event>());
        if (run->section->pipelined)
          run->carriedFrom = carriedDependencies(p, *run->section);
        for (size_t n = 0; n < run->section->nodes.size(); ++n)
          spawn(sock, *run, static_cast<int>(n));
        sock.runs.back().push_back(std::move(run));
      }
    }
  }

  /// The process of node `n` of run `r`: each start of its section runs the
  /// node on its component.
  void spawn(Socket &sock, SectionRun &r, int n) {
    Socket *s = &sock;
    SectionRun *run = &r;
    sc_core::sc_spawn(
        [s, run, n] {
          while (true) {
            sc_core::wait(*run->starts[n]);
            for (int64_t k = 0; k < run->iterations; ++k) {
              run->awaitCarried(n, k);
              NodeRun &node = run->nodes[n];
              node.decoupled = s->ownClock(*run, n);
              node.localPs = std::max(node.localPs, nowPs());
              s->run(*run, n);
              run->sync(n); // an iteration ends at the node's time
              run->finishIteration(n, k);
            }
            if (++run->doneCount ==
                static_cast<int>(run->section->nodes.size()))
              run->done.notify(sc_core::SC_ZERO_TIME);
          }
        },
        sc_core::sc_gen_unique_name("node"));
  }

  /// The socket's copy process: each start runs its copy on the DMA engine.
  void spawnCopy(Socket &sock) {
    Socket *s = &sock;
    sc_core::sc_spawn(
        [s] {
          while (true) {
            sc_core::wait(s->copy->start);
            s->runCopy();
            s->copy->running = false;
            s->copy->done.notify(sc_core::SC_ZERO_TIME);
          }
        },
        sc_core::sc_gen_unique_name("copy"));
  }

  /// For each node of a pipelined loop, the stores its next iteration must
  /// wait for: a load of a tensor the section also stores reads what the
  /// previous iteration wrote (the layer carry). The KV cache is exempt:
  /// each iteration reads and writes its own layer's slice.
  static std::vector<std::vector<int>> carriedDependencies(const Program &p,
                                                           const Section &sec) {
    std::vector<std::vector<int>> out(sec.nodes.size());
    for (size_t l = 0; l < sec.nodes.size(); ++l) {
      const Node &load = sec.nodes[l];
      if (load.kind != NodeKind::Load || load.tensor < 0 ||
          p.tensors[load.tensor].isKV)
        continue;
      for (size_t s = 0; s < sec.nodes.size(); ++s)
        if (sec.nodes[s].kind == NodeKind::Store &&
            sec.nodes[s].tensor == load.tensor)
          out[l].push_back(static_cast<int>(s));
    }
    return out;
  }

  void reportDeadlock();

  const std::vector<Job> &jobs;
  const arch::ArchModel &chip;
  std::unique_ptr<CollectiveGroups> groups;
  std::vector<Socket> sockets;
  std::unique_ptr<SectionController> controller;
};

void Engine::finish() {
  // What-if jobs (Job::withoutSelection) leave the run's results alone.
  result.elapsedPs = controller->realEndPs();
  double periodPs = 1e12 / chip.socket().clockHz;
  result.cycles = result.elapsedPs / periodPs;
  SectionController::Totals c = controller->realTotals();
  SectionController::Utilization u =
      controller->utilization(c, result.elapsedPs);
  result.pcuUtilization = u.pcu;
  result.hbmUtilization = u.hbm;
  result.ddrUtilization = u.ddr;
  result.linkUtilization = u.link;
  result.tilesMoved =
      static_cast<int64_t>(std::llround(c.get(StatRole::Tiles)));
  for (const CollectiveRecord &rec :
       sockets[0].get<CollectiveUnit>().records()) {
    if (jobs[rec.job].withoutSelection)
      continue;
    const Section &sec = jobs[rec.job].program->sections[rec.section];
    const Node &n = sec.nodes[rec.node];
    CollectiveResult out;
    out.job = rec.job;
    out.section = sec.name;
    // The op without its source line (a program built in memory has none),
    // so a report does not depend on how the program reached the simulator.
    out.label = n.label.substr(0, n.label.find(" at line"));
    out.node = rec.node;
    out.kind = n.collective;
    out.algorithm = rec.algorithm;
    out.group = n.group;
    out.bytes = rec.bytes;
    out.perStep = sec.repeat;
    double runs = double(std::max<int64_t>(1, rec.runs));
    out.latencyPs = rec.spanPs / runs;
    out.exposedPs = rec.exposedPs / runs;
    out.modelPs = rec.cost.seconds() * 1e12;
    result.collectives.push_back(std::move(out));
  }
  if (horizonPassed()) {
    result.pastHorizon = true;
    result.failure = llvm::formatv(
        "simulated time would pass 2^62 ps (about 53 days, the horizon of a "
        "run) after {0} s: a step or its fast-forwarded repeats asked for "
        "more; simulate fewer steps or a faster chip",
        llvm::format("%.4g", nowPs() * 1e-12));
  } else if (!controller->isFinished()) {
    reportDeadlock();
  }
}

void Engine::reportDeadlock() {
  result.deadlocked = true;
  std::ostringstream os;
  os << "deadlock at cycle "
     << static_cast<int64_t>(nowPs() * chip.socket().clockHz * 1e-12)
     << ": no process can proceed";
  for (Socket &s : sockets)
    for (auto &job : s.runs)
      for (auto &run : job) {
        if (!run->running)
          continue;
        os << "\n  in section @" << run->section->name;
        if (sockets.size() > 1)
          os << " on socket " << run->socketIndex;
        for (size_t k = 0; k < run->nodes.size(); ++k) {
          const WaitState &w = run->nodes[k].wait;
          if (!w.what)
            continue;
          if (w.stream < 0) {
            os << "\n    " << run->section->nodes[k].label << " waits to "
               << w.what << " "
               << run->program->tensors[run->section->nodes[k].tensor].name;
            continue;
          }
          const Stream &st = run->section->streams[w.stream];
          os << "\n    " << run->section->nodes[k].label << " waits to "
             << w.what << " stream #" << w.stream << " (depth " << st.depth
             << ", " << run->streams[w.stream]->occupancy() << " tiles held";
          if (st.producer >= 0)
            os << ", produced by " << run->section->nodes[st.producer].label;
          os << ")";
        }
      }
  result.failure = os.str();
}

/// Address space held back while the kernel runs, for reporting that it
/// ran out: SystemC allocates its report of a stack it could not set up in
/// a process already at its limit, and LLVM's new handler then aborted the
/// run instead (at random, as the layout of memory fell: the R05 test was
/// flaky). An allocation that fails frees the reserve, for the report and
/// the error to come, and fails with std::bad_alloc, which ends the run
/// with the same error (simulate() catches it) rather than aborting it.
/// (Retrying with the reserve only let more stacks take it.) Untouched,
/// the reserve costs no memory, only addresses.
class MemoryReserve {
public:
  explicit MemoryReserve(size_t bytes) {
    block = std::malloc(bytes);
    previous = std::set_new_handler(&onFailure);
  }
  ~MemoryReserve() {
    std::set_new_handler(previous);
    release();
  }
  /// Gives the reserve back: the run failed, its error is to be written.
  static void release() {
    std::free(block);
    block = nullptr;
  }
  MemoryReserve(const MemoryReserve &) = delete;
  MemoryReserve &operator=(const MemoryReserve &) = delete;

private:
  static void onFailure() {
    release();
    throw std::bad_alloc();
  }
  static inline void *block = nullptr;
  static inline std::new_handler previous = nullptr;
};

} // namespace

SimResult snapflow::sim::simulate(const std::vector<Job> &jobs,
                                  const arch::ArchModel &chip,
                                  const SimOptions &options) {
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  horizonPassed() = false;
  // SystemC reports a failure to set up a process's stack (a memory limit:
  // Slurm's, a container's) by throwing sc_report, which nothing caught, so
  // the run aborted in std::terminate (reliability defect R05). The kernel
  // cannot run again after it, which is fine: the run ends with the error.
  auto stopped = [&](const Engine *engine, llvm::StringRef what, bool memory) {
    // A stack SystemC could not map leaves the heap at its limit too (LLVM's
    // containers then abort in malloc): the message takes the reserve.
    MemoryReserve::release();
    SimResult failed;
    size_t processes = 0;
    if (engine)
      for (sc_core::sc_object *child : engine->get_child_objects())
        if (sc_core::sc_process_handle(child).valid())
          ++processes;
    if (memory)
      failed.failure = llvm::formatv(
          "out of memory for the simulation's {0} SystemC processes ({1}); "
          "simulate fewer sockets (drop --all-sockets, or a smaller --tp) or "
          "allow the process more memory",
          processes, what);
    else
      failed.failure = ("SystemC stopped the simulation: " + what).str();
    return failed;
  };
  // On failure the engine is left allocated: its destructor would re-home
  // its half-made processes and allocate doing so, in a process already out
  // of memory (LLVM's new handler then aborts); the run ends here anyway.
  std::unique_ptr<Engine> engine;
  std::optional<MemoryReserve> reserve(std::in_place, size_t(16) << 20);
  try {
    engine = std::make_unique<Engine>("snapflow", jobs, chip, options);
    sc_core::sc_start();
  } catch (const sc_core::sc_report &report) {
    llvm::StringRef msg = report.get_msg();
    return stopped(engine.release(), msg.trim(),
                   msg.contains("stack") || msg.contains("memory") ||
                       msg.contains("bad_alloc"));
  } catch (const std::bad_alloc &) {
    return stopped(engine.release(), "std::bad_alloc", true);
  }
  reserve.reset(); // held while the kernel runs, not after
  engine->finish();
  engine->reap();
  return std::move(engine->result);
}
