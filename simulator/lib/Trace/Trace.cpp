//===- Trace.cpp - Chrome trace and memory CSV ----------------------------===//
//
// The trace writer: names each slice and track from the program it refers
// to, writes its details as `args`, and keeps every time exact (Trace.h).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Trace/Trace.h"
#include "snapflow/Support/Output.h"
#include "snapflow/Support/Version.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>
#include <utility>

using namespace snapflow;
using namespace snapflow::sim;

//===----------------------------------------------------------------------===//
// Exact times
//===----------------------------------------------------------------------===//

int64_t snapflow::sim::traceNs(int64_t ps) {
  return ps >= 0 ? (ps + 500) / 1000 : -((-ps + 500) / 1000);
}

int64_t snapflow::sim::traceNsOfSeconds(double seconds) {
  return static_cast<int64_t>(std::llround(seconds * 1e9));
}

std::string snapflow::sim::traceMicroseconds(int64_t ns) {
  std::string s = ns < 0 ? "-" : "";
  uint64_t a = ns < 0 ? 0 - static_cast<uint64_t>(ns) : uint64_t(ns);
  s += std::to_string(a / 1000);
  if (uint64_t frac = a % 1000) {
    char digits[8];
    std::snprintf(digits, sizeof digits, ".%03u", unsigned(frac));
    std::string f = digits;
    while (f.back() == '0')
      f.pop_back();
    s += f;
  }
  return s;
}

/// The double a JSON reader makes of `text`.
static double parsed(const std::string &text) {
  return std::strtod(text.c_str(), nullptr);
}

/// The shortest decimal that reads back as `d`.
static std::string shortest(double d) {
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, d);
    if (std::strtod(buf, nullptr) == d)
      break;
  }
  return buf;
}

void snapflow::sim::writeSliceTime(llvm::json::OStream &j, int64_t beginNs,
                                   int64_t endNs) {
  endNs = std::max(endNs, beginNs);
  std::string ts = traceMicroseconds(beginNs);
  std::string dur = traceMicroseconds(endNs - beginNs);
  double b = parsed(ts), e = parsed(traceMicroseconds(endNs));
  // Decimal microseconds are rarely exact doubles, so ts + dur may miss
  // the next boundary by an ulp, which a viewer draws as an overlap; then
  // dur is the double that lands on it (never past it).
  if (b + parsed(dur) != e) {
    double d = e - b;
    for (int k = 0; k < 8 && b + d != e; ++k)
      d = b + d > e ? std::nextafter(d, 0.0) : std::nextafter(d, HUGE_VAL);
    while (d > 0 && b + d > e)
      d = std::nextafter(d, 0.0);
    dur = shortest(d);
  }
  j.attributeBegin("ts");
  j.rawValue(ts);
  j.attributeEnd();
  j.attributeBegin("dur");
  j.rawValue(dur);
  j.attributeEnd();
}

void snapflow::sim::writeTraceTs(llvm::json::OStream &j, int64_t ns) {
  j.attributeBegin("ts");
  j.rawValue(traceMicroseconds(ns));
  j.attributeEnd();
}

//===----------------------------------------------------------------------===//
// Events every trace shares
//===----------------------------------------------------------------------===//

namespace {
/// A counter event (`ph: "C"`, pid 0) named `name` at `ns`, its values
/// written by `args`.
void writeCounter(llvm::json::OStream &j, llvm::StringRef name, int64_t ns,
                  llvm::function_ref<void()> args) {
  j.object([&] {
    j.attribute("name", name);
    j.attribute("cat", name);
    j.attribute("ph", "C");
    j.attribute("pid", 0);
    j.attribute("tid", 0);
    writeTraceTs(j, ns);
    j.attributeObject("args", args);
  });
}
} // namespace

void snapflow::sim::writeMemoryCounter(llvm::json::OStream &j, int64_t ns,
                                       const TierBytes &bytes) {
  writeCounter(j, "memory", ns, [&] {
    j.attribute("sram_bytes", static_cast<int64_t>(bytes.sram));
    j.attribute("hbm_bytes", static_cast<int64_t>(bytes.hbm));
    j.attribute("ddr_bytes", static_cast<int64_t>(bytes.ddr));
    j.attribute("kv_bytes", static_cast<int64_t>(bytes.kv));
  });
}

void snapflow::sim::writeProcessName(llvm::json::OStream &j, int pid,
                                     llvm::StringRef name) {
  j.object([&] {
    j.attribute("name", "process_name");
    j.attribute("ph", "M");
    j.attribute("pid", pid);
    j.attribute("tid", 0);
    j.attributeObject("args", [&] { j.attribute("name", name); });
  });
}

void snapflow::sim::writeTrackName(llvm::json::OStream &j, int pid, int64_t tid,
                                   llvm::StringRef name) {
  j.object([&] {
    j.attribute("name", "thread_name");
    j.attribute("ph", "M");
    j.attribute("pid", pid);
    j.attribute("tid", tid);
    j.attributeObject("args", [&] { j.attribute("name", name); });
  });
  j.object([&] {
    j.attribute("name", "thread_sort_index");
    j.attribute("ph", "M");
    j.attribute("pid", pid);
    j.attribute("tid", tid);
    j.attributeObject("args", [&] { j.attribute("sort_index", tid); });
  });
}

void snapflow::sim::writeTraceProvenance(
    llvm::json::OStream &j, llvm::ArrayRef<const Program *> programs,
    const arch::ArchModel &chip) {
  j.attributeObject("otherData", [&] {
    std::map<std::string, std::string> record{
        {"snapflow", versionString()},
        {"chip", chip.getName()},
        {"chip_fingerprint", chip.fingerprint()}};
    if (!programs.empty() && programs.front())
      for (const auto &[key, value] : programs.front()->provenance)
        record[key] = value;
    // Several models served: every one named, with its policy (the first
    // alone was named before).
    std::vector<std::string> models, policies;
    for (const Program *p : programs) {
      if (!p)
        continue;
      auto valueOf = [&](llvm::StringRef key) -> std::string {
        for (const auto &[k, v] : p->provenance)
          if (k == key)
            return v;
        return "";
      };
      std::string model = valueOf("model");
      if (model.empty() || llvm::is_contained(models, model))
        continue;
      models.push_back(model);
      std::string kv = valueOf("kv");
      policies.push_back(model + ": " + (kv.empty() ? "-" : kv));
    }
    if (models.size() > 1) {
      record["model"] = llvm::join(models, ", ");
      record["kv"] = llvm::join(policies, "; ");
      record.erase("model_fingerprint");
      record.erase("compile_options");
    }
    for (const auto &[key, value] : record)
      j.attribute(key, value);
  });
}

void snapflow::sim::writeTraceMetadata(llvm::json::OStream &j,
                                       llvm::ArrayRef<const Program *> programs,
                                       const arch::ArchModel &chip) {
  j.attributeObject("snapflow", [&] {
    j.attribute("chip", chip.getName());
    j.attributeObject("capacity_bytes_per_socket", [&] {
      for (arch::MemoryTier t : arch::kAllTiers)
        j.attribute(arch::tierName(t), chip.tierBytesPerSocket(t));
    });
    j.attributeArray("tensors", [&] {
      for (const Program *p : programs)
        for (const Tensor &t : p->tensors) {
          j.objectBegin();
          j.attribute("program", p->phaseLabel());
          j.attribute("name", t.name);
          j.attribute("tier",
                      arch::tierName(static_cast<arch::MemoryTier>(t.tier)));
          j.attribute("bytes", t.bytes);
          j.attribute("kv", t.isKV);
          j.objectEnd();
        }
    });
  });
}

//===----------------------------------------------------------------------===//
// Names and details of the simulator's slices
//===----------------------------------------------------------------------===//

namespace {

/// A tensor's name without the parts every tensor of a layer shares:
/// "model.layers.0.self_attn.q_proj.weight" -> "self_attn.q_proj.weight".
std::string shortTensor(llvm::StringRef name) {
  name.consume_front("model.");
  llvm::StringRef rest = name;
  if (rest.consume_front("layers.")) {
    size_t dot = rest.find('.');
    if (dot != llvm::StringRef::npos &&
        llvm::all_of(rest.take_front(dot), llvm::isDigit))
      name = rest.drop_front(dot + 1);
  }
  return name.str();
}

/// What a tensor is within its layer: "q_proj", "input_layernorm".
std::string component(llvm::StringRef name) {
  std::string s = shortTensor(name);
  llvm::StringRef r = s;
  r.consume_back(".weight");
  return r.rsplit('.').second.empty() ? r.str() : r.rsplit('.').second.str();
}

/// Whether a tensor is a weight or the KV cache (named by the model: the
/// compiler's own activation homes, "0_carry0" or "spill1", have no dot).
bool isModelTensor(const Tensor &t) {
  return t.isKV || llvm::StringRef(t.name).contains('.');
}

/// The weight or KV cache a stage reads, or failing that its nearest
/// producers read: what the stage is about.
std::string stageSubject(const Program &p, const Section &sec, int node) {
  std::vector<int> frontier{node};
  std::set<int> seen{node};
  for (int depth = 0; depth < 4 && !frontier.empty(); ++depth) {
    std::vector<int> next;
    for (int n : frontier)
      for (int s : sec.nodes[n].inputs) {
        int producer = sec.streams[s].producer;
        if (producer < 0 || !seen.insert(producer).second)
          continue;
        const Node &pn = sec.nodes[producer];
        if (pn.kind == NodeKind::Load && pn.tensor >= 0 &&
            isModelTensor(p.tensors[pn.tensor]))
          return component(p.tensors[pn.tensor].name);
        next.push_back(producer);
      }
    frontier = std::move(next);
  }
  return "";
}

/// A node's op in words: "load self_attn.q_proj.weight", "gemm (q_proj)",
/// "all_reduce (ring)".
std::string opName(const TraceEvent &e) {
  const Program &p = *e.program;
  const Section &sec = p.sections[e.section];
  const Node &n = sec.nodes[e.node];
  switch (n.kind) {
  case NodeKind::Load:
  case NodeKind::Store:
    return std::string(n.kind == NodeKind::Load ? "load " : "store ") +
           (n.tensor >= 0 ? shortTensor(p.tensors[n.tensor].name) : "?");
  case NodeKind::Stage: {
    std::string subject = stageSubject(p, sec, e.node);
    return arch::stageKindName(n.stageKind).str() +
           (subject.empty() ? "" : " (" + subject + ")");
  }
  case NodeKind::Buffer:
    return "buffer";
  case NodeKind::Collective:
    return arch::collectiveKindName(n.collective).str() + " (" +
           arch::collectiveAlgorithmName(e.algorithm).str() + ")";
  }
  return "?";
}

/// The df op the node came from, without its source line.
std::string dfOp(const Node &n) {
  llvm::StringRef l = n.label;
  return l.split(" at line ").first.str();
}

void writeNodeArgs(llvm::json::OStream &j, const TraceEvent &e) {
  const Program &p = *e.program;
  const Section &sec = p.sections[e.section];
  const Node &n = sec.nodes[e.node];
  j.attribute("op", dfOp(n));
  j.attribute("operator", arch::opKindName(n.opKind));
  j.attribute("section", sec.name);
  j.attribute("iteration", e.index);
  j.attribute("iterations", e.count);
  if (p.chunks > 1)
    j.attribute("chunk", e.chunk);
  // Tiles in the event's chunk, over the iterations it covers; a store
  // takes the tiles of the stream it drains.
  Section::ChunkTiles chunkTiles = sec.tilesInChunk(e.chunk, p.chunks);
  int64_t tiles = chunkTiles.nodes[e.node] * e.count;
  switch (n.kind) {
  case NodeKind::Load:
  case NodeKind::Store: {
    int s = n.kind == NodeKind::Load ? (n.outputs.empty() ? -1 : n.outputs[0])
                                     : (n.inputs.empty() ? -1 : n.inputs[0]);
    int64_t tileBytes = s >= 0 ? sec.streams[s].tileBytes : 0;
    if (s >= 0 && n.kind == NodeKind::Store)
      tiles = chunkTiles.streams[s] * e.count;
    if (n.tensor >= 0) {
      const Tensor &t = p.tensors[n.tensor];
      j.attribute("tensor", t.name);
      j.attribute("tier", arch::tierName(t.tier));
    }
    j.attribute("tiles", tiles);
    j.attribute("tile_bytes", tileBytes);
    j.attribute("bytes", tiles * tileBytes);
    j.attribute("agcus", n.agcus);
    break;
  }
  case NodeKind::Stage:
    j.attribute("kind", arch::stageKindName(n.stageKind));
    j.attribute("tiles", tiles);
    j.attribute("flops", n.flopsPerTile * tiles);
    j.attribute("pcus", n.pcus);
    break;
  case NodeKind::Buffer:
    j.attribute("bytes", n.bytes);
    j.attribute("pmus", n.pmus);
    j.attribute("reads", n.reads);
    break;
  case NodeKind::Collective:
    j.attribute("kind", arch::collectiveKindName(n.collective));
    j.attribute("algorithm", arch::collectiveAlgorithmName(e.algorithm));
    j.attribute("group", n.group);
    j.attribute("bytes", static_cast<int64_t>(e.bytes));
    break;
  }
}

const char *nodeCategory(const Node &n) {
  switch (n.kind) {
  case NodeKind::Load:
    return "load";
  case NodeKind::Store:
    return "store";
  case NodeKind::Stage:
    return "stage";
  case NodeKind::Buffer:
    return "buffer";
  case NodeKind::Collective:
    return "collective";
  }
  return "node";
}

constexpr int64_t kStepsTrack = 0, kSectionsTrack = 1, kCriticalTrack = 2,
                  kFirstNodeTrack = 3;

} // namespace

namespace {

/// Writes a run as a Chrome trace: steps, sections and the critical path on
/// tracks of their own, one track per node of each job's sections (in
/// program order; a run of several programs names each track's phase),
/// the memory counter, and what made the run.
class ChromeTraceWriter {
public:
  ChromeTraceWriter(llvm::json::OStream &j, const SimResult &r) : j(j), r(r) {
    std::set<int> jobs;
    for (const TraceEvent &e : r.trace)
      if (e.program) {
        jobs.insert(e.job);
        if (e.kind == TraceEvent::Node)
          tracks[{e.job, e.section, e.node}] = 0;
      }
    int64_t next = kFirstNodeTrack;
    for (auto &t : tracks)
      t.second = next++;
    several = jobs.size() > 1;
  }

  /// The events, then the track names.
  void writeEvents(const arch::ArchModel &chip) {
    staticW = chip.socketStaticW();
    for (const TraceEvent &e : r.trace)
      writeEvent(e);
    if (r.stepsUnsampled > 0)
      writeUnsampledMarker();
    writeProcessName(j, 0, "snapflow · " + chip.getName());
    writeTrackName(j, 0, kStepsTrack, "steps");
    writeTrackName(j, 0, kSectionsTrack, "sections");
    writeTrackName(j, 0, kCriticalTrack, "critical path");
    for (auto &[tid, name] : names)
      writeTrackName(j, 0, tid, name);
  }

private:
  std::string phase(const TraceEvent &e) const {
    return several ? e.program->phaseLabel() + " · " : std::string();
  }
  void slice(const TraceEvent &e, int64_t tid, llvm::StringRef name,
             llvm::StringRef cat, llvm::function_ref<void()> args) {
    j.object([&] {
      j.attribute("name", name);
      j.attribute("cat", cat);
      j.attribute("ph", "X");
      j.attribute("pid", 0);
      j.attribute("tid", tid);
      writeSliceTime(j, traceNs(e.startPs), traceNs(e.endPs));
      j.attributeObject("args", args);
    });
  }

  void writeEvent(const TraceEvent &e) {
    const Program *p = e.program;
    switch (e.kind) {
    case TraceEvent::Counter:
      writeMemoryCounter(j, traceNs(e.startPs), e.memory);
      return;
    case TraceEvent::Copy:
      slice(e, kStepsTrack, "copy", "copy", [&] {
        j.attribute("bytes_per_socket", static_cast<int64_t>(e.bytes));
      });
      return;
    case TraceEvent::Step:
      slice(e, kStepsTrack,
            llvm::formatv("{0} step {1}", p->phaseLabel(), e.index + 1).str(),
            "step", [&] {
              j.attribute("phase", p->phaseLabel());
              j.attribute("step", e.index + 1);
              j.attribute("batch", p->batch);
              j.attribute("tokens", p->tokens);
              j.attribute("tp", p->tp);
              if (p->chunks > 1)
                j.attribute("chunks", p->chunks);
            });
      return;
    case TraceEvent::StepsAccounted:
      slice(e, kStepsTrack,
            llvm::formatv("{0} steps {1}-{2} (fast-forwarded)", p->phaseLabel(),
                          e.index + 1, e.index + e.count)
                .str(),
            "step", [&] {
              j.attribute("phase", p->phaseLabel());
              j.attribute("first_step", e.index + 1);
              j.attribute("steps", e.count);
            });
      return;
    case TraceEvent::Section:
    case TraceEvent::IterationsAccounted:
      return writeSection(e);
    case TraceEvent::Critical:
      return writeCritical(e);
    case TraceEvent::Node:
      return writeNode(e);
    }
  }

  /// A socket's power from `startNs` (watts): its static power, and its
  /// actions' over the section run that starts there.
  void writePower(int64_t startNs, double dynamicW) {
    writeCounter(j, "power", startNs, [&] {
      j.attribute("socket_w", dynamicW + staticW);
      j.attribute("dynamic_w", dynamicW);
    });
  }

  void writeSection(const TraceEvent &e) {
    const Program *p = e.program;
    const Section &sec = p->sections[e.section];
    // The power counter: a run's energy over its time; accounted
    // iterations repeat the last simulated run of their section.
    auto key = std::make_pair(e.job, e.section);
    if (e.kind == TraceEvent::Section && e.endPs > e.startPs)
      sectionW[key] = e.energyPj / double(e.endPs - e.startPs); // pJ/ps = W
    writePower(traceNs(e.startPs), sectionW[key]);
    writePower(traceNs(e.endPs), 0);
    // Accounted iterations of a loop of several kernels cover them all.
    std::string name = phase(e) + (e.kind == TraceEvent::IterationsAccounted &&
                                           !sec.loop.empty()
                                       ? sec.loop
                                       : sec.name);
    if (e.kind == TraceEvent::IterationsAccounted)
      name += llvm::formatv(" x{0} (fast-forwarded)", e.count).str();
    else if (e.count > 1)
      name += llvm::formatv(" x{0} (pipelined)", e.count).str();
    else if (sec.repeat > 1)
      name += llvm::formatv(" {0}/{1}", e.index + 1, sec.repeat).str();
    slice(e, kSectionsTrack, name, "section", [&] {
      j.attribute("section", sec.name);
      j.attribute("repeat", sec.repeat);
      j.attribute("iteration", e.index);
      j.attribute("iterations", e.count);
      j.attribute("pipelined", sec.pipelined);
      j.attribute("fast_forwarded", e.kind == TraceEvent::IterationsAccounted);
      if (p->chunks > 1)
        j.attribute("chunk", e.chunk);
    });
  }

  void writeCritical(const TraceEvent &e) {
    const Program *p = e.program;
    // A span of the critical path: the operator and what it waited on.
    const Section &sec = p->sections[e.section];
    llvm::StringRef kind = e.node >= 0
                               ? arch::opKindName(sec.nodes[e.node].opKind)
                               : arch::opKindName(arch::OpKind::KernelLaunch);
    llvm::StringRef resource = resourceName(static_cast<Resource>(e.resource));
    slice(e, kCriticalTrack, (kind + " · " + resource).str(), "critical", [&] {
      j.attribute("operator", kind);
      j.attribute("section", sec.name);
      // Nanoseconds on each resource it waited on.
      for (int k = 0; k < kNumResources; ++k)
        if (e.criticalPs[k] > 0)
          j.attribute((resourceName(static_cast<Resource>(k)) + "_ns").str(),
                      e.criticalPs[k] / 1000);
      if (p->chunks > 1)
        j.attribute("chunk", e.chunk);
    });
  }

  void writeNode(const TraceEvent &e) {
    const Program *p = e.program;
    int64_t tid = tracks[{e.job, e.section, e.node}];
    std::string op = opName(e);
    if (!names.count(tid))
      names[tid] =
          phase(e) + p->sections[e.section].name + " · " +
          arch::opKindName(p->sections[e.section].nodes[e.node].opKind).str() +
          " · " + op;
    slice(e, tid, op, nodeCategory(p->sections[e.section].nodes[e.node]),
          [&] { writeNodeArgs(j, e); });
  }

  /// Past kMaxMemorySamples the counter holds its last value: say so where
  /// it starts holding.
  void writeUnsampledMarker() {
    int64_t lastPs = 0;
    for (const TraceEvent &e : r.trace)
      if (e.kind == TraceEvent::Counter)
        lastPs = std::max(lastPs, e.startPs);
    j.object([&] {
      j.attribute("name", llvm::formatv("memory samples end here: {0} "
                                        "more fast-forwarded steps unsampled",
                                        r.stepsUnsampled)
                              .str());
      j.attribute("cat", "memory");
      j.attribute("ph", "i");
      j.attribute("s", "g");
      j.attribute("pid", 0);
      j.attribute("tid", kStepsTrack);
      writeTraceTs(j, traceNs(lastPs));
    });
  }

  llvm::json::OStream &j;
  const SimResult &r;
  std::map<std::tuple<int, int, int>, int64_t> tracks;
  std::map<int64_t, std::string> names;
  bool several = false;
  /// A socket's static power, and each section's dynamic power as last
  /// simulated, by (job, section).
  double staticW = 0;
  std::map<std::pair<int, int>, double> sectionW;
};

} // namespace

llvm::Error
snapflow::sim::writeChromeTrace(llvm::StringRef path, const SimResult &r,
                                llvm::ArrayRef<const Program *> programs,
                                const arch::ArchModel &chip) {
  return writeOutput(path, [&](llvm::raw_ostream &os) {
    llvm::json::OStream j(os);
    j.objectBegin();
    j.attribute("displayTimeUnit", "ns");
    j.attributeBegin("traceEvents");
    j.arrayBegin();
    ChromeTraceWriter(j, r).writeEvents(chip);
    j.arrayEnd();
    j.attributeEnd();
    writeTraceProvenance(j, programs, chip);
    writeTraceMetadata(j, programs, chip);
    j.objectEnd();
    os << "\n";
    return llvm::Error::success();
  });
}

llvm::Error snapflow::sim::writeMemoryCsv(llvm::StringRef path,
                                          const SimResult &r,
                                          llvm::StringRef extraHeader,
                                          llvm::StringRef extraCells) {
  return writeOutput(path, [&](llvm::raw_ostream &os) {
    os << "time_s,sram_bytes,hbm_bytes,ddr_bytes,kv_bytes" << extraHeader
       << "\n";
    for (const TraceEvent &e : r.trace)
      if (e.kind == TraceEvent::Counter)
        os << llvm::formatv("{0:e},{1},{2},{3},{4}", e.startPs * 1e-12,
                            static_cast<int64_t>(e.memory.sram),
                            static_cast<int64_t>(e.memory.hbm),
                            static_cast<int64_t>(e.memory.ddr),
                            static_cast<int64_t>(e.memory.kv))
           << extraCells << "\n";
    return llvm::Error::success();
  });
}
