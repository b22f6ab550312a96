//===- Report.cpp - The simulation report ---------------------------------===//

#include "snapflow/Sim/Stats/Report.h"

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

const JobResult *jobFor(const SimResult &r, const std::string &phase,
                        bool withoutSelection = false) {
  for (const JobResult &j : r.jobs)
    if (j.phase == phase && j.withoutSelection == withoutSelection)
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
} // namespace

const Program *snapflow::sim::reportedPrefill(const Program &decode,
                                             const Program *prefill) {
  if (prefill)
    return prefill;
  return decode.phase == "prefill" ? &decode : nullptr;
}

Object snapflow::sim::makeReport(const SimResult &r, const Program &decode,
                                 const Program *prefill,
                                 const arch::ArchModel &chip,
                                 double wallSeconds, llvm::StringRef producer,
                                 llvm::StringRef simulateOptions) {
  const JobResult *d = jobFor(r, decode.phase);
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
  // The decode job's collectives: what ran, with which algorithm, and how
  // much of their time was exposed after their producer's last tile.
  Object collectives;
  {
    llvm::json::Array nodes;
    double count = 0, bytes = 0, latency = 0, exposed = 0;
    int decodeJob = -1;
    for (size_t j = 0; j < r.jobs.size(); ++j)
      if (r.jobs[j].phase == decode.phase && !r.jobs[j].withoutSelection)
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
    collectives = Object{{"per_step", count},
                         {"bytes_per_step", bytes},
                         {"latency_s_per_step", latency},
                         {"exposed_s_per_step", exposed},
                         {"ops", std::move(nodes)}};
  }
  llvm::json::Value ttft = nullptr, ttftBreakdown = nullptr;
  // The prefill (run's, or the program itself when it is one): its chunks
  // and the end-of-prefill selection's share.
  const Program *pre = reportedPrefill(decode, prefill);
  if (const JobResult *p = pre ? jobFor(r, pre->phase) : nullptr) {
    if (prefill)
      ttft = seconds(p->stepPs);
    SelectionCost sel = selectionCost(*pre);
    // What the selection adds to the time to first token: the last chunk
    // against the same chunk simulated with the selection idle.
    llvm::json::Value selectionS = 0.0;
    if (pre->hasSelection()) {
      const JobResult *w = jobFor(r, pre->phase, /*withoutSelection=*/true);
      selectionS = w ? llvm::json::Value(seconds(p->lastChunkPs() -
                                                 w->lastChunkPs()))
                     : llvm::json::Value(nullptr);
    }
    ttftBreakdown = Object{{"chunks", pre->chunks},
                           {"selection_s", std::move(selectionS)},
                           {"selection_flops", sel.flops},
                           {"selection_bytes", sel.bytes}};
  }
  // A chip that keeps a built-in name but not all its values (--set, an
  // edited copy) says how it differs, so the report names what made it.
  llvm::json::Array changes;
  if (llvm::is_contained(arch::ArchModel::builtinNames(), chip.getName())) {
    if (auto builtin = arch::ArchModel::load(chip.getName())) {
      for (const std::string &d : chip.differences(*builtin))
        changes.push_back(d);
    } else {
      llvm::consumeError(builtin.takeError());
    }
  }
  Object report{
      {"program", decode.name},
      {"chip", chip.getName()},
      {"chip_changes", std::move(changes)},
      {"chip_fingerprint", chip.fingerprint()},
      {"tp", decode.tp},
      {"batch", decode.batch},
      {"context_tokens", decode.tokens},
      {"tokens_per_step", decode.tokensPerStep},
      {"throughput_tokens_per_s", perUser * double(decode.batch)},
      {"per_user_tokens_per_s", perUser},
      {"step_latency_s", step},
      {"ttft_s", ttft},
      {"memory",
       Object{
           {"peak_bytes", Object{{"sram", r.peakBytes[0]},
                                 {"hbm", r.peakBytes[1]},
                                 {"ddr", r.peakBytes[2]}}},
           {"capacity_bytes",
            Object{{"sram", chip.tierBytesPerSocket(arch::MemoryTier::SRAM)},
                   {"hbm", chip.tierBytesPerSocket(arch::MemoryTier::HBM)},
                   {"ddr", chip.tierBytesPerSocket(arch::MemoryTier::DDR)}}}}},
      {"kv_cache_bytes_per_socket", decode.kvBytes},
      {"kv_backup_bytes_per_socket", kvBackupBytes(decode)},
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
      {"roofline",
       Object{{"step_latency_lower_bound_s", roof.lowerBoundSeconds},
              {"binding", roof.binding},
              {"compute_s", roof.computeSeconds},
              {"hbm_s", roof.tierSeconds[1]},
              {"ddr_s", roof.tierSeconds[2]},
              {"sram_s", roof.tierSeconds[0]},
              {"link_s", roof.linkSeconds},
              {"collective_latency_s", roof.collectiveLatencySeconds}}},
      {"roofline_efficiency", step > 0 ? roof.lowerBoundSeconds / step : 0},
      {"simulated_cycles", static_cast<int64_t>(std::llround(r.cycles))},
      {"breakdown", std::move(breakdown)},
      {"collectives", std::move(collectives)},
      {"steps", d ? d->steps : 0},
      {"steps_simulated", d ? d->stepsSimulated : 0},
      {"iterations_simulated", d ? d->iterationsSimulated : 0},
      {"iterations_fast_forwarded", d ? d->iterationsFastForwarded : 0},
      {"tiles_moved", r.tilesMoved},
      {"wall_time_s", wallSeconds},
      {"tiles_per_wall_second",
       wallSeconds > 0 ? double(r.tilesMoved) / wallSeconds : 0},
  };
  if (ttftBreakdown.getAsObject())
    report["ttft_breakdown"] = std::move(ttftBreakdown);
  // A prefill program (simulate on `compile --phase prefill` output):
  // prompt tokens processed per second.
  if (decode.phase == "prefill")
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

void snapflow::sim::printSummary(llvm::raw_ostream &os, const Object &r) {
  auto num = [&](llvm::StringRef key) {
    return r.getNumber(key).value_or(0);
  };
  const Object *roof = r.getObject("roofline");
  const Object *util = r.getObject("utilization");
  const Object *bd = r.getObject("breakdown");
  // What ran: the model (none for a hand-written program), the program,
  // the chip and the KV policy as resolved.
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
  // How the prefill ran: its chunks and the selection's share.
  auto inChunks = [&]() -> std::string {
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
  };
  if (auto prompt = r.getNumber("prompt_tokens_per_s"))
    // A prefill program: its step is the time to first token.
    os << llvm::formatv("  prefill        {0:f1} prompt tokens/s; first token "
                        "after {1:f3} s{2}\n",
                        *prompt, num("step_latency_s"), inChunks());
  else
    os << llvm::formatv("  throughput     {0:f1} tokens/s ({1:f1} per user, "
                        "{2:f2} tokens per step)\n",
                        num("throughput_tokens_per_s"),
                        num("per_user_tokens_per_s"), num("tokens_per_step"));
  // The resource that sets the bound, and what binds when that is the
  // collectives' latency chain instead.
  std::string bound = roof->getString("binding").value_or("-").str();
  std::string binds;
  if (bound == "collective_latency") {
    binds = llvm::formatv("; binds: the collective latency chain, {0:f3} ms",
                          roof->getNumber("collective_latency_s").value_or(0) *
                              1e3)
                .str();
    double most = -1;
    for (const char *k : {"compute", "hbm", "ddr", "sram", "link"})
      if (double v = roof->getNumber(std::string(k) + "_s").value_or(0);
          v > most) {
        most = v;
        bound = k;
      }
  }
  os << llvm::formatv("  step latency   {0:f3} ms; roofline bound {1:f3} ms "
                      "({2}), efficiency {3:f2}{4}\n",
                      num("step_latency_s") * 1e3,
                      roof->getNumber("step_latency_lower_bound_s").value_or(0) *
                          1e3,
                      bound, num("roofline_efficiency"), binds);
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
  if (auto ttft = r.getNumber("ttft_s"))
    os << llvm::formatv("  TTFT           {0:f3} s{1}\n", *ttft, inChunks());
  if (bd && !bd->empty())
    os << llvm::formatv("  critical path  compute {0:f3} ms, memory {1:f3} ms, "
                        "network {2:f3} ms, collective {3:f3} ms, reconfig "
                        "{4:f3} ms\n",
                        bd->getNumber("compute_s").value_or(0) * 1e3,
                        bd->getNumber("memory_s").value_or(0) * 1e3,
                        bd->getNumber("network_s").value_or(0) * 1e3,
                        bd->getNumber("collective_s").value_or(0) * 1e3,
                        bd->getNumber("reconfig_s").value_or(0) * 1e3);
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
      os << llvm::formatv("  collectives    {0:f0} per step ({1}); {2:f3} ms of "
                          "latency, {3:f3} ms after their producers' last "
                          "tile\n",
                          count, names,
                          coll->getNumber("latency_s_per_step").value_or(0) *
                              1e3,
                          coll->getNumber("exposed_s_per_step").value_or(0) *
                              1e3);
    }
  }
  os << llvm::formatv("  utilization    PCU {0:p}, HBM {1:p}, DDR {2:p}, "
                      "link {3:p}\n",
                      util->getNumber("pcu").value_or(0),
                      util->getNumber("hbm").value_or(0),
                      util->getNumber("ddr").value_or(0),
                      util->getNumber("link").value_or(0));
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
  os << llvm::formatv("  simulated      {0} cycles, {1} of {2} steps and "
                      "{3} loop iterations simulated ({4} fast-forwarded); "
                      "{5:f2} s wall\n",
                      *r.getInteger("simulated_cycles"),
                      *r.getInteger("steps_simulated"), *r.getInteger("steps"),
                      *r.getInteger("iterations_simulated"),
                      *r.getInteger("iterations_fast_forwarded"),
                      num("wall_time_s"));
}
