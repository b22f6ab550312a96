//===- Report.cpp - The simulation report ---------------------------------===//

#include "snapflow/Sim/Stats/Report.h"
#include "snapflow/Sim/Stats/Energy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <set>
#include <string>
#include <vector>

using namespace snapflow;
using namespace snapflow::sim;
using llvm::json::Object;

namespace {
double seconds(double ps) { return ps * 1e-12; }

const JobResult *jobFor(const SimResult &r, const Program &program,
                        bool withoutSelection = false) {
  for (const JobResult &j : r.jobs)
    if (j.program == &program && j.withoutSelection == withoutSelection)
      return &j;
  return nullptr;
}

/// Bytes of the KV tensors a program keeps in DDR per socket: a policy's
/// page backup.
static int64_t kvBackupBytes(const Program &p) {
  int64_t bytes = 0;
  for (const Tensor &t : p.tensors)
    if (t.isKV && t.tier == arch::MemoryTier::DDR)
      bytes += t.bytes;
  return bytes;
}

/// What the end-of-prefill selection's nodes (Node::lastChunk) compute and
/// move per socket: its stages' FLOPs, its loads' bytes and the bytes its
/// stages' outputs store, each loop iteration counted.
struct SelectionCost {
  double flops = 0, bytes = 0;
};
SelectionCost selectionCost(const Program &p) {
  SelectionCost c;
  for (const Section &sec : p.sections) {
    double times = double(sec.repeat);
    for (const Node &n : sec.nodes) {
      if (n.kind == NodeKind::Store) {
        const Stream &in = sec.streams[n.inputs[0]];
        if (in.producer >= 0 && sec.nodes[in.producer].lastChunk)
          c.bytes += times * double(in.tiles) * double(in.tileBytes);
        continue;
      }
      if (!n.lastChunk)
        continue;
      if (n.kind == NodeKind::Stage)
        c.flops += times * double(n.tiles) * double(n.flopsPerTile);
      else if (n.kind == NodeKind::Load)
        c.bytes += times * double(n.tiles) *
                   double(sec.streams[n.outputs[0]].tileBytes);
    }
  }
  return c;
}
/// SRAM each operator holds in the busiest section for it: the stream
/// buffers its nodes produce into (at their depth) and the SRAM tensors its
/// stores fill, per socket.
std::array<double, arch::kNumOpKinds> sramHeld(const Program &p) {
  std::array<double, arch::kNumOpKinds> most{};
  for (const Section &sec : p.sections) {
    std::array<double, arch::kNumOpKinds> here{};
    std::vector<bool> counted(p.tensors.size(), false);
    for (const Stream &st : sec.streams)
      if (st.producer >= 0)
        here[static_cast<int>(sec.nodes[st.producer].opKind)] +=
            double(st.depth) * double(st.tileBytes);
    for (const Node &n : sec.nodes)
      if (n.kind == NodeKind::Store && n.tensor >= 0 &&
          p.tensors[n.tensor].tier == arch::MemoryTier::SRAM &&
          !counted[n.tensor]) {
        counted[n.tensor] = true;
        here[static_cast<int>(n.opKind)] += double(p.tensors[n.tensor].bytes);
      }
    for (int k = 0; k < arch::kNumOpKinds; ++k)
      most[k] = std::max(most[k], here[k]);
  }
  return most;
}

/// The (operator, resource) cell with the most critical-path time.
struct Binding {
  int op = -1, resource = -1;
  double ps = 0;
};
Binding binding(const Profile &pr) {
  Binding b;
  for (int k = 0; k < arch::kNumOpKinds; ++k)
    for (int r = 0; r < kNumResources; ++r)
      if (pr.ops[k].criticalPs[r] > b.ps)
        b = {k, r, pr.ops[k].criticalPs[r]};
  return b;
}

/// Critical-path seconds by operator, operators with any.
Object byOperator(const std::array<double, arch::kNumOpKinds> &ps) {
  Object o;
  for (int k = 0; k < arch::kNumOpKinds; ++k)
    if (ps[k] > 0)
      o[arch::opKindName(static_cast<arch::OpKind>(k))] = seconds(ps[k]);
  return o;
}

/// A step's profile (docs/Simulator.md, "Profile"): per operator, per
/// resource, per section; `chunks` for a chunked prefill.
Object profileObject(const Profile &pr, const Program &p,
                     const std::vector<Profile> *chunks = nullptr) {
  std::array<double, arch::kNumOpKinds> held = sramHeld(p);
  llvm::json::Array operators;
  std::array<double, kNumResources> byResource{};
  for (int k = 0; k < arch::kNumOpKinds; ++k) {
    const OperatorProfile &op = pr.ops[k];
    if (op.empty() && held[k] == 0)
      continue;
    Object critical, energy;
    for (int a = 0; a < kNumEnergyActions; ++a)
      energy[energyActionName(static_cast<EnergyAction>(a))] =
          op.energy.pj[a] * 1e-12;
    for (int r = 0; r < kNumResources; ++r) {
      byResource[r] += op.criticalPs[r];
      critical[resourceName(static_cast<Resource>(r))] =
          seconds(op.criticalPs[r]);
    }
    operators.push_back(Object{
        {"operator", arch::opKindName(static_cast<arch::OpKind>(k))},
        {"critical_path_s", seconds(op.criticalTotalPs())},
        {"critical_path", std::move(critical)},
        {"busy_s", seconds(op.busyPs)},
        {"flops", op.flops},
        {"bytes", Object{{"sram", op.bytes[0]},
                         {"hbm", op.bytes[1]},
                         {"ddr", op.bytes[2]}}},
        {"link_bytes", op.linkBytes},
        {"sram_held_bytes", held[k]},
        {"energy_j", op.energy.total() * 1e-12},
        {"energy_by_action_j", std::move(energy)},
    });
  }
  Object resources;
  for (int r = 0; r < kNumResources; ++r)
    resources[(resourceName(static_cast<Resource>(r)) + "_s").str()] =
        seconds(byResource[r]);
  llvm::json::Array sections;
  for (size_t i = 0; i < pr.sections.size() && i < p.sections.size(); ++i) {
    const Profile::SectionShare &s = pr.sections[i];
    sections.push_back(Object{{"section", p.sections[i].name},
                              {"calls", s.calls},
                              {"time_s", seconds(s.ps)},
                              {"critical_path", byOperator(s.criticalPs)}});
  }
  Object out{{"operators", std::move(operators)},
             {"resources", std::move(resources)},
             {"sections", std::move(sections)}};
  if (chunks) {
    llvm::json::Array list;
    for (const Profile &c : *chunks) {
      std::array<double, arch::kNumOpKinds> ps{};
      for (int k = 0; k < arch::kNumOpKinds; ++k)
        ps[k] = c.ops[k].criticalTotalPs();
      list.push_back(Object{{"time_s", seconds(c.criticalPs())},
                            {"critical_path", byOperator(ps)}});
    }
    out["chunks"] = std::move(list);
  }
  return out;
}

} // namespace

const Program *snapflow::sim::reportedPrefill(const Program &decode,
                                              const Program *prefill) {
  if (prefill)
    return prefill;
  return decode.phase == arch::Phase::Prefill ? &decode : nullptr;
}

namespace {

/// The decode job's collectives: what ran, with which algorithm, and how
/// much of their time was exposed after their producer's last tile.
Object collectivesObject(const SimResult &r, const Program &decode) {
  llvm::json::Array nodes;
  double count = 0, bytes = 0, latency = 0, exposed = 0;
  int decodeJob = -1;
  for (size_t j = 0; j < r.jobs.size(); ++j)
    if (r.jobs[j].program == &decode && !r.jobs[j].withoutSelection)
      decodeJob = static_cast<int>(j);
  for (const CollectiveResult &c : r.collectives) {
    if (c.job != decodeJob)
      continue;
    double times = double(c.perStep);
    count += times;
    bytes += times * c.bytes;
    latency += times * seconds(c.latencyPs);
    exposed += times * seconds(c.exposedPs);
    nodes.push_back(Object{
        {"section", c.section},
        {"op", c.label},
        {"node", c.node},
        {"kind", arch::collectiveKindName(c.kind)},
        {"algorithm", arch::collectiveAlgorithmName(c.algorithm)},
        {"group", c.group},
        {"bytes", c.bytes},
        {"per_step", c.perStep},
        {"latency_s", seconds(c.latencyPs)},
        {"exposed_s", seconds(c.exposedPs)},
        {"model_s", seconds(c.modelPs)},
    });
  }
  return Object{{"per_step", count},
                {"bytes_per_step", bytes},
                {"latency_s_per_step", latency},
                {"exposed_s_per_step", exposed},
                {"ops", std::move(nodes)}};
}

/// The prefill's keys: its time to first token, chunks, the end-of-prefill
/// selection's share, and its profile (null when there is no prefill).
struct PrefillKeys {
  llvm::json::Value ttft = nullptr, breakdown = nullptr, profile = nullptr;
};
PrefillKeys prefillKeys(const SimResult &r, const Program &decode,
                        const Program *prefill) {
  PrefillKeys out;
  // The prefill (run's, or the program itself when it is one).
  const Program *pre = reportedPrefill(decode, prefill);
  const JobResult *p = pre ? jobFor(r, *pre) : nullptr;
  if (!p)
    return out;
  if (prefill)
    out.ttft = seconds(p->stepPs);
  SelectionCost sel = selectionCost(*pre);
  // What the selection adds to the time to first token: the last chunk
  // against the same chunk simulated with the selection idle.
  llvm::json::Value selectionS = 0.0;
  if (pre->hasSelection()) {
    const JobResult *w = jobFor(r, *pre, /*withoutSelection=*/true);
    selectionS =
        w ? llvm::json::Value(seconds(p->lastChunkPs() - w->lastChunkPs()))
          : llvm::json::Value(nullptr);
  }
  out.profile = profileObject(p->profile, *pre, &p->chunkProfiles);
  out.breakdown =
      Object{{"chunks", pre->chunks},
             {"selection_s", std::move(selectionS)},
             {"selection_flops", sel.flops},
             {"selection_bytes", sel.bytes},
             {"iterations_simulated", p->iterationsSimulated},
             {"iterations_fast_forwarded", p->iterationsFastForwarded}};
  return out;
}

/// A chip that keeps a built-in name but not all its values (--set, an
/// edited copy) says how it differs, so the report names what made it.
llvm::json::Array chipChanges(const arch::ArchModel &chip) {
  llvm::json::Array changes;
  if (llvm::is_contained(arch::ArchModel::builtinNames(), chip.getName())) {
    if (auto builtin = arch::ArchModel::load(chip.getName())) {
      for (const std::string &d : chip.differences(*builtin))
        changes.push_back(d);
    } else {
      llvm::consumeError(builtin.takeError());
    }
  }
  return changes;
}

/// What binds: the largest share of the step's critical path, by operator
/// and resource.
Object bindsObject(const JobResult *d) {
  if (d) {
    Binding b = binding(d->profile);
    if (b.op >= 0)
      return Object{
          {"operator", arch::opKindName(static_cast<arch::OpKind>(b.op))},
          {"resource", resourceName(static_cast<Resource>(b.resource))},
          {"s", seconds(b.ps)},
          {"share", d->stepPs > 0 ? b.ps / d->stepPs : 0.0}};
  }
  return Object{{"operator", ""}, {"resource", ""}, {"s", 0.0}, {"share", 0.0}};
}

Object rooflineObject(const Roofline &roof) {
  return Object{{"step_latency_lower_bound_s", roof.lowerBoundSeconds},
                {"binding", roof.binding},
                {"compute_s", roof.computeSeconds},
                {"hbm_s", roof.tierSeconds[1]},
                {"ddr_s", roof.tierSeconds[2]},
                {"sram_s", roof.tierSeconds[0]},
                {"link_s", roof.linkSeconds},
                {"collective_latency_s", roof.collectiveLatencySeconds}};
}

Object memoryObject(const SimResult &r, const arch::ArchModel &chip) {
  return Object{
      {"peak_bytes", Object{{"sram", r.peakBytes[0]},
                            {"hbm", r.peakBytes[1]},
                            {"ddr", r.peakBytes[2]}}},
      {"capacity_bytes",
       Object{{"sram", chip.tierBytesPerSocket(arch::MemoryTier::SRAM)},
              {"hbm", chip.tierBytesPerSocket(arch::MemoryTier::HBM)},
              {"ddr", chip.tierBytesPerSocket(arch::MemoryTier::DDR)}}}};
}

} // namespace

Object snapflow::sim::makeReport(const SimResult &r, const Program &decode,
                                 const Program *prefill,
                                 const arch::ArchModel &chip,
                                 double wallSeconds, llvm::StringRef producer,
                                 llvm::StringRef simulateOptions) {
  const JobResult *d = jobFor(r, decode);
  double step = d ? seconds(d->stepPs) : 0;
  double perUser = step > 0 ? decode.tokensPerStep / step : 0;
  Roofline roof = computeRoofline(decode, chip);
  Object breakdown;
  if (d) {
    breakdown = Object{
        {"compute_s", seconds(d->breakdown.computePs)},
        {"memory_s", seconds(d->breakdown.memoryPs)},
        {"network_s", seconds(d->breakdown.networkPs)},
        {"collective_s", seconds(d->breakdown.collectivePs)},
        {"reconfig_s", seconds(d->breakdown.reconfigPs)},
    };
  }
  PrefillKeys pre = prefillKeys(r, decode, prefill);
  const Program *preProgram = reportedPrefill(decode, prefill);
  const JobResult *preJob = preProgram ? jobFor(r, *preProgram) : nullptr;
  Object report{
      {"energy", energyObject(d, preJob, decode, preProgram, chip)},
      {"program", decode.name},
      {"binds", bindsObject(d)},
      {"profile", d ? profileObject(d->profile, decode) : Object()},
      {"chip", chip.getName()},
      {"chip_changes", chipChanges(chip)},
      {"chip_fingerprint", chip.fingerprint()},
      {"tp", decode.tp},
      {"batch", decode.batch},
      {"context_tokens", decode.tokens},
      {"tokens_per_step", decode.tokensPerStep},
      {"throughput_tokens_per_s", perUser * double(decode.batch)},
      {"per_user_tokens_per_s", perUser},
      {"step_latency_s", step},
      {"ttft_s", std::move(pre.ttft)},
      {"memory", memoryObject(r, chip)},
      {"kv_cache_bytes_per_socket", decode.kvBytes},
      {"kv_backup_bytes_per_socket", kvBackupBytes(decode)},
      {"kv_window_bytes_per_socket", decode.kvWindowBytes},
      {"kv_upkeep", Object{{"flops_per_step", decode.kvUpkeepFlops},
                           {"bytes_per_step", decode.kvUpkeepBytes}}},
      {"traffic_bytes_per_step", Object{{"sram", d ? d->bytes[0] : 0.0},
                                        {"hbm", d ? d->bytes[1] : 0.0},
                                        {"ddr", d ? d->bytes[2] : 0.0}}},
      // Over the decode steps only (a prefill before them has its own).
      {"utilization", Object{{"pcu", d ? d->pcuUtilization : 0.0},
                             {"hbm", d ? d->hbmUtilization : 0.0},
                             {"ddr", d ? d->ddrUtilization : 0.0},
                             {"link", d ? d->linkUtilization : 0.0}}},
      {"roofline", rooflineObject(roof)},
      {"roofline_efficiency", step > 0 ? roof.lowerBoundSeconds / step : 0},
      {"simulated_cycles", static_cast<int64_t>(std::llround(r.cycles))},
      {"breakdown", std::move(breakdown)},
      {"collectives", collectivesObject(r, decode)},
      {"steps", d ? d->steps : 0},
      {"steps_simulated", d ? d->stepsSimulated : 0},
      {"iterations_simulated", d ? d->iterationsSimulated : 0},
      {"iterations_fast_forwarded", d ? d->iterationsFastForwarded : 0},
      {"tiles_moved", r.tilesMoved},
      {"wall_time_s", wallSeconds},
      {"tiles_per_wall_second",
       wallSeconds > 0 ? double(r.tilesMoved) / wallSeconds : 0},
  };
  if (pre.breakdown.getAsObject())
    report["ttft_breakdown"] = std::move(pre.breakdown);
  if (pre.profile.getAsObject())
    report["ttft_profile"] = std::move(pre.profile);
  // A prefill program (simulate on `compile --phase prefill` output):
  // prompt tokens processed per second.
  if (decode.phase == arch::Phase::Prefill)
    report["prompt_tokens_per_s"] =
        step > 0 ? double(decode.batch * decode.tokens) / step : 0.0;
  // Simulated on another chip than compiled for (a what-if): name both.
  if (decode.target.getName() != chip.getName() ||
      !decode.target.differences(chip).empty()) {
    report["what_if"] = true;
    report["compiled_for"] = decode.target.getName();
    report["compiled_for_fingerprint"] = decode.target.fingerprint();
  }
  report["snapflow"] = producer.str();
  report["simulate_options"] = simulateOptions.str();
  // What made the program (empty for a hand-written one): the model, the
  // KV policy and format as resolved, the compiling snapflow and options.
  for (const char *key : kProvenanceKeys)
    report[key] = "";
  for (const auto &[key, value] : decode.provenance)
    report[key] = value;
  return report;
}

namespace {

/// How the prefill ran: its chunks and the selection's share.
std::string chunksText(const Object &r) {
  const Object *tb = r.getObject("ttft_breakdown");
  if (!tb)
    return "";
  int64_t n = tb->getInteger("chunks").value_or(1);
  std::vector<std::string> parts;
  if (n > 1)
    parts.push_back(llvm::formatv("prefill in {0} chunks", n));
  if (double sel = tb->getNumber("selection_s").value_or(0); sel != 0) {
    double a = std::abs(sel);
    std::string t = a < 1e-3 ? llvm::formatv("{0:f1} us", a * 1e6).str()
                             : llvm::formatv("{0:f1} ms", a * 1e3).str();
    // Idling the selection can reorder the traffic it shared: a chunk
    // no faster without it is one the selection hides in.
    parts.push_back(sel > 0 ? "KV selection " + t
                            : "KV selection hidden: its chunk is " + t +
                                  " slower without it");
  }
  return parts.empty() ? "" : " (" + llvm::join(parts, ", ") + ")";
}

/// What ran: the model (none for a hand-written program), the program, the
/// chip and the KV policy as resolved, and how the chip differs from its
/// built-in one.
void printWhatRan(llvm::raw_ostream &os, const Object &r) {
  llvm::StringRef model = r.getString("model").value_or("");
  os << llvm::formatv("{0}{1} on {2} (TP {3}), batch {4}, context {5}\n",
                      model.empty() ? "" : model.str() + " ",
                      *r.getString("program"), *r.getString("chip"),
                      *r.getInteger("tp"), *r.getInteger("batch"),
                      *r.getInteger("context_tokens"));
  if (llvm::StringRef kv = r.getString("kv").value_or(""); !kv.empty())
    os << llvm::formatv("  KV policy      {0}, format {1}\n", kv,
                        r.getString("kv_format").value_or("bf16"));
  if (const llvm::json::Array *changes = r.getArray("chip_changes"))
    if (!changes->empty()) {
      std::string text;
      for (const llvm::json::Value &c : *changes)
        if (auto s = c.getAsString())
          text += (text.empty() ? "" : ", ") + s->str();
      os << "  chip changed   " << text << " (the built-in's value last)\n";
    }
}

/// The step against its roofline bound, and a tier the plan over-commits.
void printLatency(llvm::raw_ostream &os, const Object &r) {
  auto num = [&](llvm::StringRef key) { return r.getNumber(key).value_or(0); };
  const Object *roof = r.getObject("roofline");
  // The resource that sets the bound, and what binds when that is the
  // collectives' latency chain instead.
  std::string bound = roof->getString("binding").value_or("-").str();
  std::string binds;
  if (bound == "collective_latency") {
    binds =
        llvm::formatv("; binds: the collective latency chain, {0:f3} ms",
                      roof->getNumber("collective_latency_s").value_or(0) * 1e3)
            .str();
    double most = -1;
    for (const char *k : {"compute", "hbm", "ddr", "sram", "link"})
      if (double v = roof->getNumber(std::string(k) + "_s").value_or(0);
          v > most) {
        most = v;
        bound = k;
      }
  }
  os << llvm::formatv(
      "  step latency   {0:f3} ms; roofline bound {1:f3} ms "
      "({2}), efficiency {3:f2}{4}\n",
      num("step_latency_s") * 1e3,
      roof->getNumber("step_latency_lower_bound_s").value_or(0) * 1e3, bound,
      num("roofline_efficiency"), binds);
  // A tier whose occupancy peaks above what the socket has: the plan
  // over-commits it (said here rather than left for the reader to find).
  if (const Object *mem = r.getObject("memory"))
    if (const Object *peak = mem->getObject("peak_bytes"))
      if (const Object *cap = mem->getObject("capacity_bytes"))
        for (const char *tier : {"sram", "hbm", "ddr"}) {
          double p = peak->getNumber(tier).value_or(0);
          double c = cap->getNumber(tier).value_or(0);
          if (c > 0 && p > c)
            os << llvm::formatv("  warning        {0} occupancy peaks at "
                                "{1:f1} MB, {2:f0}% of the {3:f1} MB a "
                                "socket has: the memory plan over-commits "
                                "it\n",
                                llvm::StringRef(tier).upper(), p / 1e6,
                                100 * p / c, c / 1e6);
        }
}

/// Where the step's time went: the critical path, the kernels, what binds
/// and the collectives.
void printCriticalPath(llvm::raw_ostream &os, const Object &r) {
  const Object *bd = r.getObject("breakdown");
  if (bd && !bd->empty())
    os << llvm::formatv("  critical path  compute {0:f3} ms, memory {1:f3} ms, "
                        "network {2:f3} ms, collective {3:f3} ms, launch "
                        "{4:f3} ms\n",
                        bd->getNumber("compute_s").value_or(0) * 1e3,
                        bd->getNumber("memory_s").value_or(0) * 1e3,
                        bd->getNumber("network_s").value_or(0) * 1e3,
                        bd->getNumber("collective_s").value_or(0) * 1e3,
                        bd->getNumber("reconfig_s").value_or(0) * 1e3);
  // The kernels a step calls: a pipelined loop is one call, a loop of
  // several kernels one per kernel and iteration.
  if (const Object *prof = r.getObject("profile"))
    if (const llvm::json::Array *secs = prof->getArray("sections")) {
      double calls = 0;
      for (const llvm::json::Value &v : *secs)
        if (const Object *o = v.getAsObject())
          calls += o->getNumber("calls").value_or(0);
      const Object *res = prof->getObject("resources");
      os << llvm::formatv("  kernels        {0:f0} calls of {1} per step; "
                          "their launches {2:f3} ms of the critical path\n",
                          calls, secs->size(),
                          res ? res->getNumber("launch_s").value_or(0) * 1e3
                              : 0.0);
    }
  if (const Object *b = r.getObject("binds"))
    if (llvm::StringRef op = b->getString("operator").value_or(""); !op.empty())
      os << llvm::formatv("  binds          {0} on {1}: {2:f3} ms of the "
                          "step ({3:p})\n",
                          op, b->getString("resource").value_or(""),
                          b->getNumber("s").value_or(0) * 1e3,
                          b->getNumber("share").value_or(0));
  if (const Object *coll = r.getObject("collectives")) {
    double count = coll->getNumber("per_step").value_or(0);
    if (count > 0) {
      std::set<std::string> algorithms;
      if (const llvm::json::Array *ops = coll->getArray("ops"))
        for (const llvm::json::Value &op : *ops)
          if (const Object *o = op.getAsObject())
            if (auto a = o->getString("algorithm"))
              algorithms.insert(a->str());
      std::string names;
      for (const std::string &a : algorithms)
        names += (names.empty() ? "" : ", ") + a;
      os << llvm::formatv(
          "  collectives    {0:f0} per step ({1}); {2:f3} ms of "
          "latency, {3:f3} ms after their producers' last "
          "tile\n",
          count, names, coll->getNumber("latency_s_per_step").value_or(0) * 1e3,
          coll->getNumber("exposed_s_per_step").value_or(0) * 1e3);
    }
  }
}

/// Utilization, traffic, the KV cache and its upkeep, what was simulated.
void printTotals(llvm::raw_ostream &os, const Object &r) {
  auto num = [&](llvm::StringRef key) { return r.getNumber(key).value_or(0); };
  const Object *util = r.getObject("utilization");
  os << llvm::formatv(
      "  utilization    PCU {0:p}, HBM {1:p}, DDR {2:p}, "
      "link {3:p}\n",
      util->getNumber("pcu").value_or(0), util->getNumber("hbm").value_or(0),
      util->getNumber("ddr").value_or(0), util->getNumber("link").value_or(0));
  if (const Object *traffic = r.getObject("traffic_bytes_per_step"))
    os << llvm::formatv("  traffic        {0:f1} MB HBM, {1:f1} MB DDR per "
                        "step\n",
                        traffic->getNumber("hbm").value_or(0) / 1e6,
                        traffic->getNumber("ddr").value_or(0) / 1e6);
  os << llvm::formatv("  KV per socket  {0:f2} GiB",
                      num("kv_cache_bytes_per_socket") / double(1LL << 30));
  if (double backup = num("kv_backup_bytes_per_socket"); backup > 0)
    os << llvm::formatv(", and a {0:f2} GiB page backup in DDR",
                        backup / double(1LL << 30));
  os << "\n";
  if (const Object *u = r.getObject("kv_upkeep"))
    if (u->getNumber("flops_per_step").value_or(0) > 0 ||
        u->getNumber("bytes_per_step").value_or(0) > 0)
      os << llvm::formatv("  KV upkeep      {0:f3} GFLOP and {1:f1} MB per "
                          "step (the policy's and format's work)\n",
                          u->getNumber("flops_per_step").value_or(0) / 1e9,
                          u->getNumber("bytes_per_step").value_or(0) / 1e6);
  // A run's prefill counts its loops apart from the decode steps' (a
  // prefill program's are the ones above).
  std::string prefill;
  const Object *tb = r.getObject("ttft_breakdown");
  if (tb && r.getNumber("ttft_s"))
    if (auto n = tb->getInteger("iterations_simulated"))
      prefill = llvm::formatv(
          ", the prefill {0} ({1})", *n,
          tb->getInteger("iterations_fast_forwarded").value_or(0));
  os << llvm::formatv(
      "  simulated      {0} cycles, {1} of {2} steps and "
      "{3} loop iterations simulated ({4} fast-forwarded){5}; "
      "{6:f2} s wall\n",
      *r.getInteger("simulated_cycles"), *r.getInteger("steps_simulated"),
      *r.getInteger("steps"), *r.getInteger("iterations_simulated"),
      *r.getInteger("iterations_fast_forwarded"), prefill, num("wall_time_s"));
}

} // namespace

void snapflow::sim::printSummary(llvm::raw_ostream &os, const Object &r) {
  auto num = [&](llvm::StringRef key) { return r.getNumber(key).value_or(0); };
  printWhatRan(os, r);
  if (auto prompt = r.getNumber("prompt_tokens_per_s"))
    // A prefill program: its step is the time to first token.
    os << llvm::formatv("  prefill        {0:f1} prompt tokens/s; first token "
                        "after {1:f3} s{2}\n",
                        *prompt, num("step_latency_s"), chunksText(r));
  else
    os << llvm::formatv("  throughput     {0:f1} tokens/s ({1:f1} per user, "
                        "{2:f2} tokens per step)\n",
                        num("throughput_tokens_per_s"),
                        num("per_user_tokens_per_s"), num("tokens_per_step"));
  printLatency(os, r);
  if (auto ttft = r.getNumber("ttft_s"))
    os << llvm::formatv("  TTFT           {0:f3} s{1}\n", *ttft, chunksText(r));
  printCriticalPath(os, r);
  printTotals(os, r);
  printEnergy(os, r);
}

namespace {
/// One profile (the report's `profile` or `ttft_profile`) as a table.
void printProfileTable(llvm::raw_ostream &os, llvm::StringRef title,
                       const Object &profile, double stepSeconds) {
  const llvm::json::Array *ops = profile.getArray("operators");
  if (!ops)
    return;
  // Only the resources some operator waited on get a column.
  std::vector<std::string> resources;
  for (int r = 0; r < kNumResources; ++r) {
    std::string name = resourceName(static_cast<Resource>(r)).str();
    for (const llvm::json::Value &v : *ops)
      if (const Object *o = v.getAsObject())
        if (const Object *c = o->getObject("critical_path"))
          if (c->getNumber(name).value_or(0) > 0) {
            resources.push_back(name);
            break;
          }
  }
  os << title << "\n";
  os << llvm::formatv("  {0,-18} {1,10} {2,7}", "operator", "path ms", "share");
  for (const std::string &r : resources)
    os << llvm::formatv(" {0,9}", r + " ms");
  os << llvm::formatv(" {0,9} {1,10} {2,9} {3,9} {4,9} {5,9}\n", "busy ms",
                      "GFLOP", "HBM MB", "DDR MB", "SRAM MB", "energy J");
  double total = 0;
  for (const llvm::json::Value &v : *ops) {
    const Object *o = v.getAsObject();
    if (!o)
      continue;
    double path = o->getNumber("critical_path_s").value_or(0);
    total += path;
    os << llvm::formatv("  {0,-18} {1,10:f3} {2,7:p}",
                        o->getString("operator").value_or("?"), path * 1e3,
                        stepSeconds > 0 ? path / stepSeconds : 0.0);
    const Object *c = o->getObject("critical_path");
    for (const std::string &r : resources)
      os << llvm::formatv(" {0,9:f3}",
                          (c ? c->getNumber(r).value_or(0) : 0) * 1e3);
    const Object *bytes = o->getObject("bytes");
    auto tier = [&](const char *t) {
      return (bytes ? bytes->getNumber(t).value_or(0) : 0) / 1e6;
    };
    os << llvm::formatv(
        " {0,9:f3} {1,10:f2} {2,9:f1} {3,9:f1} {4,9:f2} {5,9:f4}\n",
        o->getNumber("busy_s").value_or(0) * 1e3,
        o->getNumber("flops").value_or(0) / 1e9, tier("hbm"), tier("ddr"),
        o->getNumber("sram_held_bytes").value_or(0) / 1e6,
        o->getNumber("energy_j").value_or(0));
  }
  os << llvm::formatv("  {0,-18} {1,10:f3} {2,7:p}\n", "total", total * 1e3,
                      stepSeconds > 0 ? total / stepSeconds : 0.0);
  if (const llvm::json::Array *chunks = profile.getArray("chunks")) {
    os << "  chunks:";
    for (const llvm::json::Value &v : *chunks)
      if (const Object *o = v.getAsObject())
        os << llvm::formatv(" {0:f3} ms",
                            o->getNumber("time_s").value_or(0) * 1e3);
    os << "\n";
  }
}
} // namespace

void snapflow::sim::printProfile(llvm::raw_ostream &os, const Object &r) {
  double step = r.getNumber("step_latency_s").value_or(0);
  if (const Object *p = r.getObject("profile"))
    printProfileTable(
        os,
        llvm::formatv("profile of one {0} step ({1:f3} ms): its critical "
                      "path by operator and what it waited on",
                      r.getString("program").value_or("decode"), step * 1e3)
            .str(),
        *p, step);
  if (const Object *b = r.getObject("binds"))
    if (llvm::StringRef op = b->getString("operator").value_or(""); !op.empty())
      os << llvm::formatv(
          "  binds: {0} on {1}, {2:f3} ms ({3:p} of the "
          "step); roofline bound {4:f3} ms ({5})\n",
          op, b->getString("resource").value_or(""),
          b->getNumber("s").value_or(0) * 1e3,
          b->getNumber("share").value_or(0),
          r.getObject("roofline")
                  ->getNumber("step_latency_lower_bound_s")
                  .value_or(0) *
              1e3,
          r.getObject("roofline")->getString("binding").value_or("-"));
  if (const Object *p = r.getObject("ttft_profile")) {
    double ttft = r.getNumber("ttft_s").value_or(step);
    printProfileTable(
        os,
        llvm::formatv("profile of the prefill ({0:f3} ms)", ttft * 1e3).str(),
        *p, ttft);
  }
}
