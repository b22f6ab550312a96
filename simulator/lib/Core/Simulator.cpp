//===- Simulator.cpp - The cycle-approximate SN40L-like model -------------===//
//
// One SystemC thread per df node. A stage takes its inputs in proportion to
// its progress, computes for ceil-free FLOPs / (PCUs x rate) per step (plus
// the pipeline fill once per run) and pushes its outputs in the same
// proportion; loads issue DMA reads as far ahead as their stream has room
// (double buffering), paced by their AGCUs and served by the tier's shared,
// interleaved channels; stores write back through the same servers;
// collectives run the chip file's algorithm over the peer links, hop by hop.
// A section controller loads each section (reconfiguration), runs its loop,
// and fast-forwards iterations and steps once they repeat exactly.
//
//===----------------------------------------------------------------------===//

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "snapflow/Sim/Core/Simulator.h"

#include "snapflow/Sim/Components/BandwidthServer.h"
#include "snapflow/Sim/Components/Collective.h"
#include "snapflow/Sim/Components/TileStream.h"

#include <systemc>

#include <climits>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <sstream>

using namespace snapflow;
using namespace snapflow::sim;
using sc_core::sc_event;
using sc_core::sc_time;

namespace {

/// Simulated time in picoseconds (the time resolution), exact.
double nowPs() { return double(sc_core::sc_time_stamp().value()); }

void waitUntil(double ps) {
  double now = nowPs();
  if (ps > now)
    sc_core::wait(sc_time(ps - now, sc_core::SC_PS));
}

/// Counters a run accumulates; differences give one iteration's share.
struct Counters {
  double pcuBusy = 0; ///< PCU-picoseconds of computation
  std::array<double, 3> tierBusy{}, tierBytes{};
  double linkBusy = 0, linkBytes = 0, flops = 0;
  int64_t tiles = 0;

  Counters operator-(const Counters &o) const {
    Counters d;
    d.pcuBusy = pcuBusy - o.pcuBusy;
    for (int i = 0; i < 3; ++i) {
      d.tierBusy[i] = tierBusy[i] - o.tierBusy[i];
      d.tierBytes[i] = tierBytes[i] - o.tierBytes[i];
    }
    d.linkBusy = linkBusy - o.linkBusy;
    d.linkBytes = linkBytes - o.linkBytes;
    d.flops = flops - o.flops;
    d.tiles = tiles - o.tiles;
    return d;
  }
  void add(const Counters &d, double times) {
    pcuBusy += d.pcuBusy * times;
    for (int i = 0; i < 3; ++i) {
      tierBusy[i] += d.tierBusy[i] * times;
      tierBytes[i] += d.tierBytes[i] * times;
    }
    linkBusy += d.linkBusy * times;
    linkBytes += d.linkBytes * times;
    flops += d.flops * times;
    tiles += static_cast<int64_t>(std::llround(d.tiles * times));
  }
};

/// Per-node activity of the current run.
struct NodeRun {
  WaitState wait;
  double computePs = 0, networkPs = 0, collectivePs = 0;
  double firstPs = -1, lastPs = 0;
  void touch() {
    double t = nowPs();
    if (firstPs < 0)
      firstPs = t;
    lastPs = t;
  }
};

class Engine : public sc_core::sc_module {
public:
  SC_HAS_PROCESS(Engine);

  Engine(sc_core::sc_module_name name, const std::vector<Job> &jobs,
         const arch::ArchModel &chip, const SimOptions &options)
      : sc_module(name), jobs(jobs), chip(chip), options(options) {
    const arch::SocketParams &s = chip.socket();
    periodPs = 1e12 / s.clockHz;
    int64_t group = 1;
    for (const Job &j : jobs)
      group = std::max(group, j.program->tp);
    int64_t socketCount = options.allSockets ? group : 1;
    for (int64_t k = 0; k < socketCount; ++k)
      sockets.push_back(makeSocket(static_cast<int>(k)));
    for (const Job &j : jobs)
      occupancyOf.push_back(occupancy(*j.program));
    SC_THREAD(controller);
  }

  SimResult result;
  bool finished = false;

private:
  struct SectionRun {
    const Program *program = nullptr;
    const Section *section = nullptr;
    int job = 0, index = 0, socket = 0;
    std::vector<std::unique_ptr<TileStream>> streams;
    std::vector<NodeRun> nodes;
    sc_event start, done;
    int doneCount = 0;
    double oversubscription = 1;
    bool running = false;
  };
  struct Socket {
    std::unique_ptr<BandwidthServer> tiers[3];
    std::unique_ptr<BandwidthServer> agcus; ///< the AGCUs, shared by loads
    std::unique_ptr<BandwidthServer> link;
    std::vector<std::vector<std::unique_ptr<SectionRun>>> runs; // [job][sec]
    Counters counters;
  };
  /// Cross-socket rendezvous of one collective node (all-sockets mode).
  struct Group {
    std::vector<int> arrived;
    std::vector<double> completion;
    sc_event ready;
  };

  Socket makeSocket(int k) {
    const arch::SocketParams &s = chip.socket();
    const arch::SystemParams &y = chip.system();
    Socket sock;
    sock.tiers[0] = std::make_unique<BandwidthServer>(BandwidthServer::Params{
        "sram", chip.tierBytesPerS(arch::MemoryTier::SRAM) / 1e12,
        std::min<int64_t>(s.pmuCount, 16), 0});
    sock.tiers[1] = std::make_unique<BandwidthServer>(BandwidthServer::Params{
        "hbm", s.hbmBytesPerS / 1e12, s.hbmChannels,
        s.hbmLatencyCycles * periodPs});
    sock.tiers[2] = std::make_unique<BandwidthServer>(BandwidthServer::Params{
        "ddr", s.ddrBytesPerS / 1e12, s.ddrChannels,
        s.ddrLatencyCycles * periodPs});
    sock.agcus = std::make_unique<BandwidthServer>(BandwidthServer::Params{
        "agcu",
        double(s.agcuCount) *
            double(std::min(s.agcuBytesPerCycle, s.nocStreamBytesPerCycle)) /
            periodPs,
        s.agcuCount, 0});
    sock.link = std::make_unique<BandwidthServer>(BandwidthServer::Params{
        "link", y.linkBytesPerS / 1e12, 1, y.linkLatencyNs * 1000.0});
    for (size_t j = 0; j < jobs.size(); ++j) {
      sock.runs.emplace_back();
      const Program &p = *jobs[j].program;
      for (size_t i = 0; i < p.sections.size(); ++i) {
        auto run = std::make_unique<SectionRun>();
        run->program = &p;
        run->section = &p.sections[i];
        run->job = static_cast<int>(j);
        run->index = static_cast<int>(i);
        run->socket = k;
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
        for (size_t n = 0; n < run->section->nodes.size(); ++n) {
          SectionRun *r = run.get();
          sc_core::sc_spawn(
              [this, r, n] {
                while (true) {
                  sc_core::wait(r->start);
                  runNode(*r, static_cast<int>(n));
                  if (++r->doneCount ==
                      static_cast<int>(r->section->nodes.size()))
                    r->done.notify(sc_core::SC_ZERO_TIME);
                }
              },
              sc_core::sc_gen_unique_name("node"));
        }
        sock.runs.back().push_back(std::move(run));
      }
    }
    return sock;
  }

  Socket &socketOf(const SectionRun &r) { return sockets[r.socket]; }

  /// First trace track of section `i` of job `j`: every node of every
  /// section has a track of its own (track 0 is the sections).
  int trackBase(int j, int i) const {
    int base = 0;
    for (int jj = 0; jj <= j; ++jj) {
      const Program &p = *jobs[jj].program;
      int last = jj == j ? i : static_cast<int>(p.sections.size());
      for (int ii = 0; ii < last; ++ii)
        base += static_cast<int>(p.sections[ii].nodes.size());
    }
    return base;
  }

  /// Index of a consumer among a stream's consumers.
  static int consumerSlot(const Stream &st, int node) {
    for (size_t i = 0; i < st.consumers.size(); ++i)
      if (st.consumers[i] == node)
        return static_cast<int>(i);
    return 0;
  }

  /// Latency of crossing the mesh: the mean distance between two units of a
  /// rows x cols mesh is (rows + cols) / 3 hops.
  double hopsPs() const {
    const arch::SocketParams &s = chip.socket();
    return (s.meshRows + s.meshCols) / 3.0 * s.nocHopLatencyCycles * periodPs;
  }

  /// Time for a tile to cross the on-chip network over `lanes` parallel
  /// links of the vector network.
  double nocPs(int64_t tileBytes, int64_t lanes) const {
    const arch::SocketParams &s = chip.socket();
    return double(tileBytes) /
               (double(s.nocStreamBytesPerCycle) * std::max<int64_t>(1, lanes)) *
               periodPs +
           hopsPs();
  }

  /// Pushes a tile; unless it already crossed the network (a DMA), the
  /// producer first sends it over `lanes` links.
  void push(SectionRun &r, int node, int stream, int64_t lanes) {
    NodeRun &nr = r.nodes[node];
    if (lanes > 0) {
      double net = nocPs(r.section->streams[stream].tileBytes, lanes);
      sc_core::wait(sc_time(net, sc_core::SC_PS));
      nr.networkPs += net;
    }
    nr.wait = {"push to", stream};
    r.streams[stream]->push();
    nr.wait = {};
    nr.touch();
    ++socketOf(r).counters.tiles;
  }

  void pop(SectionRun &r, int node, int stream) {
    NodeRun &nr = r.nodes[node];
    nr.wait = {"pop from", stream};
    r.streams[stream]->pop(consumerSlot(r.section->streams[stream], node));
    nr.wait = {};
    nr.touch();
  }

  void runNode(SectionRun &r, int index) {
    const Node &n = r.section->nodes[index];
    switch (n.kind) {
    case NodeKind::Stage:
      return runStage(r, index, n);
    case NodeKind::Load:
      return runLoad(r, index, n);
    case NodeKind::Store:
      return runStore(r, index, n);
    case NodeKind::Buffer:
      return runBuffer(r, index, n);
    case NodeKind::Collective:
      return runCollective(r, index, n);
    }
  }

  void runStage(SectionRun &r, int index, const Node &n) {
    const arch::SocketParams &s = chip.socket();
    double rate = n.stageKind == StageKind::Gemm ? s.pcuSystolicFlopsPerCycle
                                                 : s.pcuSimdFlopsPerCycle;
    int64_t steps = std::max<int64_t>(1, n.tiles);
    std::vector<int64_t> got(n.inputs.size(), 0), put(n.outputs.size(), 0);
    Socket &sock = socketOf(r);
    for (int64_t step = 0; step < steps; ++step) {
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        int64_t total = r.section->streams[n.inputs[i]].tiles;
        int64_t need = ((step + 1) * total + steps - 1) / steps;
        while (got[i] < need) {
          pop(r, index, n.inputs[i]);
          ++got[i];
        }
      }
      double cycles =
          std::ceil(double(n.flopsPerTile) / (double(n.pcus) * rate));
      if (step == 0)
        cycles += s.pcuPipelineFillCycles;
      double ps = cycles * periodPs * r.oversubscription;
      sc_core::wait(sc_time(ps, sc_core::SC_PS));
      r.nodes[index].computePs += ps;
      r.nodes[index].touch();
      sock.counters.pcuBusy += cycles * periodPs * double(n.pcus);
      sock.counters.flops += double(n.flopsPerTile);
      for (size_t k = 0; k < n.outputs.size(); ++k) {
        int64_t total = n.outputTiles[k];
        int64_t target = step + 1 == steps ? total : (step + 1) * total / steps;
        while (put[k] < target) {
          push(r, index, n.outputs[k], n.pcus);
          ++put[k];
        }
      }
    }
  }

  BandwidthServer &tierOf(SectionRun &r, const Node &n) {
    arch::MemoryTier t = arch::MemoryTier::HBM;
    if (n.tensor >= 0)
      t = r.program->tensors[n.tensor].tier;
    return *socketOf(r).tiers[static_cast<int>(t)];
  }
  int tierIndex(SectionRun &r, const Node &n) {
    return n.tensor >= 0 ? static_cast<int>(r.program->tensors[n.tensor].tier)
                         : 1;
  }

  /// A DMA through `n.agcus` AGCUs: memory reads are issued as far ahead as
  /// the stream has room (double buffering); each tile then crosses the
  /// AGCUs and the on-chip network (pipelined with the next reads) before it
  /// lands in the stream.
  void runLoad(SectionRun &r, int index, const Node &n) {
    const arch::SocketParams &s = chip.socket();
    const Stream &out = r.section->streams[n.outputs[0]];
    BandwidthServer &tier = tierOf(r, n);
    int t = tierIndex(r, n);
    int64_t lanes = std::max<int64_t>(1, n.agcus);
    BandwidthServer dma(BandwidthServer::Params{
        "dma",
        double(lanes) *
            double(std::min(s.agcuBytesPerCycle, s.nocStreamBytesPerCycle)) /
            periodPs,
        1, 0});
    BandwidthServer &agcus = *socketOf(r).agcus;
    std::deque<double> inFlight;
    Counters &c = socketOf(r).counters;
    NodeRun &nr = r.nodes[index];
    auto land = [&] {
      waitUntil(inFlight.front());
      inFlight.pop_front();
      push(r, index, n.outputs[0], /*lanes=*/int64_t(0)); // crossed already
    };
    for (int64_t tile = 0; tile < n.tiles; ++tile) {
      while (static_cast<int64_t>(inFlight.size()) >= out.depth)
        land();
      double before = tier.stats.busyPs;
      double read = tier.reserve(double(out.tileBytes), nowPs());
      c.tierBusy[t] += tier.stats.busyPs - before;
      c.tierBytes[t] += double(out.tileBytes);
      // The load's own lanes and the socket's AGCUs, shared by every load
      // running at the time, both have to carry the tile.
      double dmaBefore = dma.stats.busyPs;
      double own = dma.reserve(double(out.tileBytes), read);
      double shared = agcus.reserve(double(out.tileBytes), read);
      inFlight.push_back(std::max(own, shared) + hopsPs());
      nr.networkPs += dma.stats.busyPs - dmaBefore;
    }
    while (!inFlight.empty())
      land();
  }

  void runStore(SectionRun &r, int index, const Node &n) {
    const Stream &in = r.section->streams[n.inputs[0]];
    BandwidthServer &tier = tierOf(r, n);
    int t = tierIndex(r, n);
    Counters &c = socketOf(r).counters;
    double last = nowPs();
    for (int64_t tile = 0; tile < in.tiles; ++tile) {
      pop(r, index, n.inputs[0]);
      double before = tier.stats.busyPs;
      last = std::max(last, tier.reserve(double(in.tileBytes), nowPs()));
      c.tierBusy[t] += tier.stats.busyPs - before;
      c.tierBytes[t] += double(in.tileBytes);
    }
    waitUntil(last); // the section ends when its writes have landed
  }

  void runBuffer(SectionRun &r, int index, const Node &n) {
    const Stream &in = r.section->streams[n.inputs[0]];
    for (int64_t pass = 0; pass < n.reads; ++pass)
      for (int64_t tile = 0; tile < in.tiles; ++tile) {
        if (pass == 0)
          pop(r, index, n.inputs[0]);
        push(r, index, n.outputs[0], n.pmus);
      }
  }

  /// A collective moves the whole tensor: it takes every input tile (they
  /// arrive as their producer makes them), runs the algorithm once over the
  /// links (one hop latency per step, the bytes at link bandwidth), then
  /// hands the result on. Splitting a small activation into tiles must not
  /// multiply the per-hop latency, which is what decides decode at high TP.
  void runCollective(SectionRun &r, int index, const Node &n) {
    const Stream &in = r.section->streams[n.inputs[0]];
    const Stream &out = r.section->streams[n.outputs[0]];
    for (int64_t tile = 0; tile < in.tiles; ++tile)
      pop(r, index, n.inputs[0]);
    double g = double(std::max<int64_t>(2, n.group));
    CollectiveTraffic traffic =
        collectiveTraffic(n.collective, chip.system().collectiveAlgorithm,
                          double(in.tiles) * double(in.tileBytes), g);
    BandwidthServer &link = *socketOf(r).link;
    Counters &c = socketOf(r).counters;
    double hop = chip.system().linkLatencyNs * 1000.0;
    double launch = chip.system().collectiveLaunchNs * 1000.0;
    double bytes = traffic.steps * traffic.bytesPerStep;
    double before = link.stats.busyPs;
    double sent = link.reserve(bytes, nowPs() + launch);
    c.linkBusy += link.stats.busyPs - before;
    c.linkBytes += bytes;
    // Every step pays a hop; the reservation paid one.
    double done = sent + (traffic.steps - 1) * hop;
    if (options.allSockets) {
      // The collective completes when the slowest socket has sent.
      Group &group = groups[{r.job, r.index, index}];
      if (group.arrived.empty()) {
        group.arrived.assign(1, 0);
        group.completion.assign(1, 0);
      }
      group.completion[0] = std::max(group.completion[0], done);
      if (++group.arrived[0] == static_cast<int>(sockets.size())) {
        group.arrived[0] = 0;
        group.ready.notify(sc_core::SC_ZERO_TIME);
      } else {
        while (group.arrived[0] != 0)
          sc_core::wait(group.ready);
      }
      done = group.completion[0];
    }
    double began = nowPs();
    waitUntil(done);
    r.nodes[index].collectivePs += nowPs() - began;
    if (options.allSockets) {
      // Reset for the next run once every socket has read the completion.
      Group &group = groups[{r.job, r.index, index}];
      if (nowPs() >= group.completion[0])
        group.completion[0] = 0;
    }
    for (int64_t tile = 0; tile < out.tiles; ++tile)
      push(r, index, n.outputs[0], int64_t(1));
  }

  // ---- Section controller --------------------------------------------------

  Counters total() const {
    Counters sum;
    for (const Socket &s : sockets)
      sum.add(s.counters, 1.0);
    return sum;
  }

  /// Occupancy of each tier while each section of `p` runs, per socket.
  /// Off-chip tensors (weights, the KV cache, homes) stay allocated for the
  /// whole run; an SRAM tensor only from the first section that loads or
  /// stores it to the last, as plan-memory places on-chip activations by
  /// their live ranges. Fixed per program: computed once, before the run.
  static std::vector<std::array<double, 4>> occupancy(const Program &p) {
    std::vector<std::pair<int, int>> live(p.tensors.size(), {INT_MAX, -1});
    for (size_t i = 0; i < p.sections.size(); ++i)
      for (const Node &n : p.sections[i].nodes)
        if (n.tensor >= 0) {
          auto &range = live[n.tensor];
          range.first = std::min(range.first, static_cast<int>(i));
          range.second = std::max(range.second, static_cast<int>(i));
        }
    std::vector<std::array<double, 4>> out(p.sections.size());
    for (size_t i = 0; i < p.sections.size(); ++i) {
      std::array<double, 4> &v = out[i];
      int here = static_cast<int>(i);
      for (size_t k = 0; k < p.tensors.size(); ++k) {
        const Tensor &t = p.tensors[k];
        if (t.tier == arch::MemoryTier::SRAM &&
            (here < live[k].first || here > live[k].second))
          continue;
        v[static_cast<int>(t.tier)] += double(t.bytes);
        if (t.isKV)
          v[3] += double(t.bytes);
      }
      for (const Stream &st : p.sections[i].streams)
        v[0] += double(st.depth * st.tileBytes);
    }
    return out;
  }

  /// Runs one iteration of section `i` of job `j` on every socket.
  double runIteration(int j, int i, Breakdown &bd, const Counters &before) {
    double t0 = nowPs();
    for (Socket &s : sockets) {
      SectionRun &r = *s.runs[j][i];
      for (auto &st : r.streams)
        st->reset();
      for (NodeRun &nr : r.nodes)
        nr = NodeRun();
      r.doneCount = 0;
      r.running = true;
      r.start.notify(sc_core::SC_ZERO_TIME);
    }
    for (Socket &s : sockets) {
      // Another socket may have finished while we waited for this one.
      SectionRun &r = *s.runs[j][i];
      while (r.doneCount < static_cast<int>(r.section->nodes.size()))
        sc_core::wait(r.done);
      r.running = false;
    }
    double elapsed = nowPs() - t0;
    // Attribute the iteration to what was busiest, in proportion.
    SectionRun &r = *sockets[0].runs[j][i];
    Counters d = total() - before;
    double compute = 0, network = 0, collective = 0;
    for (const NodeRun &nr : r.nodes) {
      compute = std::max(compute, nr.computePs);
      network = std::max(network, nr.networkPs);
      collective = std::max(collective, nr.collectivePs);
    }
    double memory = 0;
    for (int t = 0; t < 3; ++t)
      memory = std::max(memory,
                        d.tierBusy[t] /
                            double(sockets[0].tiers[t]->params.channels) /
                            double(sockets.size()));
    double sum = compute + network + collective + memory;
    if (sum <= 0) {
      bd.computePs += elapsed;
    } else {
      bd.computePs += elapsed * compute / sum;
      bd.memoryPs += elapsed * memory / sum;
      bd.networkPs += elapsed * network / sum;
      bd.collectivePs += elapsed * collective / sum;
    }
    if (options.trace) {
      const Section &sec = *r.section;
      result.trace.push_back({TraceEvent::Slice, sec.name, "section", 0, t0,
                              elapsed, {}});
      for (size_t k = 0; k < sec.nodes.size(); ++k)
        if (r.nodes[k].firstPs >= 0)
          result.trace.push_back(
              {TraceEvent::Slice, sec.name + ": " + sec.nodes[k].label,
               "stage", trackBase(j, i) + static_cast<int>(k) + 1,
               r.nodes[k].firstPs,
               std::max(0.0, r.nodes[k].lastPs - r.nodes[k].firstPs), {}});
    }
    return elapsed;
  }

  /// Runs one step (every section of the program) of job `j`.
  double runStep(int j, JobResult &jr, Breakdown &bd) {
    const Program &p = *jobs[j].program;
    double t0 = nowPs();
    for (size_t i = 0; i < p.sections.size(); ++i) {
      const Section &sec = p.sections[i];
      // A new configuration is loaded unless the same one just ran.
      if (lastSection != &sec) {
        double reconfig = chip.socket().reconfigCycles * periodPs;
        sc_core::wait(sc_time(reconfig, sc_core::SC_PS));
        bd.reconfigPs += reconfig;
        lastSection = &sec;
      }
      const std::array<double, 4> &occ = occupancyOf[j][i];
      for (int t = 0; t < 3; ++t)
        result.peakBytes[t] = std::max(result.peakBytes[t], occ[t]);
      if (options.trace)
        result.trace.push_back(
            {TraceEvent::Counter, "memory", "memory", 0, nowPs(), 0, occ});
      double previous = -1;
      for (int64_t it = 0; it < sec.repeat; ++it) {
        Counters before = total();
        Breakdown iterBd;
        double t = runIteration(j, static_cast<int>(i), iterBd, before);
        Counters delta = total() - before;
        addBreakdown(bd, iterBd, 1.0);
        ++jr.iterationsSimulated;
        bool steady = options.fastForward && previous >= 0 &&
                      std::fabs(t - previous) <= 1e-9 * t;
        previous = t;
        if (steady && it + 1 < sec.repeat) {
          double rest = double(sec.repeat - it - 1);
          sc_core::wait(sc_time(t * rest, sc_core::SC_PS));
          for (Socket &s : sockets) {
            Counters share = delta;
            for (int k = 0; k < 3; ++k) {
              share.tierBusy[k] /= double(sockets.size());
              share.tierBytes[k] /= double(sockets.size());
            }
            share.pcuBusy /= double(sockets.size());
            share.linkBusy /= double(sockets.size());
            share.linkBytes /= double(sockets.size());
            share.flops /= double(sockets.size());
            share.tiles /= static_cast<int64_t>(sockets.size());
            s.counters.add(share, rest);
          }
          addBreakdown(bd, iterBd, rest);
          jr.iterationsFastForwarded += sec.repeat - it - 1;
          if (options.trace)
            result.trace.push_back(
                {TraceEvent::Slice,
                 sec.name + " x" + std::to_string(sec.repeat - it - 1) +
                     " (fast-forwarded)",
                 "section", 0, nowPs() - t * rest, t * rest, {}});
          break;
        }
      }
    }
    return nowPs() - t0;
  }

  static void addBreakdown(Breakdown &into, const Breakdown &b, double times) {
    into.computePs += b.computePs * times;
    into.memoryPs += b.memoryPs * times;
    into.networkPs += b.networkPs * times;
    into.collectivePs += b.collectivePs * times;
    into.reconfigPs += b.reconfigPs * times;
  }

  void controller() {
    sc_core::wait(sc_core::SC_ZERO_TIME); // let every node reach its wait
    for (size_t j = 0; j < jobs.size(); ++j) {
      JobResult jr;
      jr.phase = jobs[j].program->phase;
      jr.steps = jobs[j].steps;
      double previous = -1;
      for (int64_t step = 0; step < jobs[j].steps; ++step) {
        Counters before = total();
        Breakdown bd;
        double t = runStep(static_cast<int>(j), jr, bd);
        Counters delta = total() - before;
        ++jr.stepsSimulated;
        jr.stepPs = t;
        jr.breakdown = bd;
        jr.totalPs += t;
        jr.flops = delta.flops / double(sockets.size());
        for (int k = 0; k < 3; ++k)
          jr.bytes[k] = delta.tierBytes[k] / double(sockets.size());
        jr.linkBytes = delta.linkBytes / double(sockets.size());
        bool steady = options.fastForward && previous >= 0 &&
                      std::fabs(t - previous) <= 1e-9 * t;
        previous = t;
        if (steady && step + 1 < jobs[j].steps) {
          double rest = double(jobs[j].steps - step - 1);
          sc_core::wait(sc_time(t * rest, sc_core::SC_PS));
          for (Socket &s : sockets) {
            Counters share = delta;
            double n = double(sockets.size());
            share.pcuBusy /= n;
            share.linkBusy /= n;
            share.linkBytes /= n;
            share.flops /= n;
            for (int k = 0; k < 3; ++k) {
              share.tierBusy[k] /= n;
              share.tierBytes[k] /= n;
            }
            share.tiles /= static_cast<int64_t>(n);
            s.counters.add(share, rest);
          }
          jr.totalPs += t * rest;
          break;
        }
      }
      result.jobs.push_back(jr);
    }
    finished = true;
  }

  const std::vector<Job> &jobs;
  /// Per job and section: bytes per tier and KV while it runs.
  std::vector<std::vector<std::array<double, 4>>> occupancyOf;
  const arch::ArchModel &chip;
  const SimOptions &options;
  double periodPs = 1;
  std::vector<Socket> sockets;
  std::map<std::tuple<int, int, int>, Group> groups;
  const Section *lastSection = nullptr;

public:
  /// Fills the run-wide statistics once sc_start has returned.
  void finish() {
    result.elapsedPs = nowPs();
    result.cycles = result.elapsedPs / periodPs;
    Counters c = total();
    double n = double(sockets.size());
    double elapsed = std::max(1.0, result.elapsedPs);
    result.pcuUtilization =
        c.pcuBusy / n / (elapsed * double(chip.socket().pcuCount));
    result.hbmUtilization = c.tierBusy[1] / n /
                            (elapsed * double(sockets[0].tiers[1]->params.channels));
    result.ddrUtilization = c.tierBusy[2] / n /
                            (elapsed * double(sockets[0].tiers[2]->params.channels));
    result.linkUtilization = c.linkBusy / n / elapsed;
    result.tilesMoved = c.tiles;
    if (!finished) {
      result.deadlocked = true;
      std::ostringstream os;
      os << "deadlock at cycle " << static_cast<int64_t>(result.cycles)
         << ": no process can proceed";
      for (Socket &s : sockets)
        for (auto &job : s.runs)
          for (auto &run : job) {
            if (!run->running)
              continue;
            os << "\n  in section @" << run->section->name;
            if (sockets.size() > 1)
              os << " on socket " << run->socket;
            for (size_t k = 0; k < run->nodes.size(); ++k) {
              const WaitState &w = run->nodes[k].wait;
              if (!w.what)
                continue;
              const Stream &st = run->section->streams[w.stream];
              os << "\n    " << run->section->nodes[k].label << " waits to "
                 << w.what << " stream #" << w.stream << " (depth "
                 << st.depth << ", " << run->streams[w.stream]->occupancy()
                 << " tiles held";
              if (st.producer >= 0)
                os << ", produced by "
                   << run->section->nodes[st.producer].label;
              os << ")";
            }
          }
      result.deadlock = os.str();
    }
  }
};

} // namespace

SimResult snapflow::sim::simulate(const std::vector<Job> &jobs,
                                  const arch::ArchModel &chip,
                                  const SimOptions &options) {
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  Engine engine("snapflow", jobs, chip, options);
  sc_core::sc_start();
  engine.finish();
  return std::move(engine.result);
}
