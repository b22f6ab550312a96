//===- Print.cpp - What the snapflow commands print -----------------------===//

#include "Print.h"

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Models/ModelConfig.h"
#include "snapflow/Sim/Engine/Registry.h"
#include "snapflow/Sim/Stats/Report.h"
#include "snapflow/Sim/Stats/ReportSchema.h"
#include "snapflow/Support/Version.h"

#include "snapflow/Support/Number.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace snapflow;
using namespace snapflow::driver;
using llvm::Error;
using llvm::formatv;

namespace {

/// "1.50 TiB", "64.00 GiB", "520.0 MB": binary units, as capacities are sized.
std::string humanBytes(double bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  return u == 0 ? formatv("{0} B", static_cast<int64_t>(bytes)).str()
                : formatv("{0:f2} {1}", bytes, units[u]).str();
}

/// Bytes in GiB, or MiB when under one GiB.
std::string gibOrMib(double b) {
  return b >= double(1LL << 30)
             ? formatv("{0:f2} GiB", gib(b)).str()
             : formatv("{0:f2} MiB", b / double(1 << 20)).str();
}

std::string percent(double part, double whole) {
  return whole > 0 ? formatv("{0,6:f1}%", 100.0 * part / whole).str()
                   : std::string(7, ' ');
}

} // namespace

/// The KV policies and formats, their keys and defaults.
static void printKVMethods(llvm::raw_ostream &os) {
  os << "KV policies (--kv POLICY[:key=value,...]):\n"
     << kv::describePolicies();
  os << "\nKV formats (--kv-format FORMAT[:key=value,...], with any "
        "policy):\n"
     << kv::describeFormats();
}

Error snapflow::tools::printList(llvm::raw_ostream &os, bool components,
                                 bool reportKeys, bool kv, bool families) {
  if (families) {
    for (const models::ModelFamily &f : models::ModelConfig::families()) {
      if (f.modelType.empty())
        os << "Keys every family reads past (they do not change costs):\n";
      else
        os << formatv("\n{0}: {1}{2}\n", f.modelType, f.graph,
                      f.nestedIn.empty()
                          ? std::string()
                          : " (the decoder in " + f.nestedIn + ")");
      for (const auto &[key, why] : f.ignored)
        os << formatv("  {0,-32} {1}\n", key, why);
    }
    return Error::success();
  }
  if (kv) {
    printKVMethods(os);
    os << "\nPublished accuracy effects (quoted from their sources, never "
          "simulated; a policy at ratio R removes 1 - 1/R of the KV):\n"
       << kv::describePublishedAccuracy();
    return Error::success();
  }
  if (components) {
    sim::describeComponents(os);
    return Error::success();
  }
  if (reportKeys) {
    sim::describeReportKeys(os);
    return Error::success();
  }
  os << "Models (--model NAME, or a path to a Hugging Face config.json):\n";
  for (const std::string &name : models::ModelConfig::builtinNames()) {
    auto c = models::ModelConfig::load(name);
    if (!c)
      return c.takeError();
    std::string what =
        c->isBlockTransformer()
            ? formatv("Block Transformer, {0} + {1} GPT-NeoX layers, blocks "
                      "of {2}",
                      c->block.blockDecoder.numLayers,
                      c->block.tokenDecoder.numLayers, c->block.blockLength)
                  .str()
        : c->isMLA() ? formatv("MLA, {0} routed experts (top {1})",
                               c->numRoutedExperts, c->numExpertsPerToken)
                           .str()
        : c->numRoutedExperts > 0
            ? formatv("GQA {0}/{1} heads, {2} experts (top {3})", c->numHeads,
                      c->numKvHeads, c->numRoutedExperts, c->numExpertsPerToken)
                  .str()
            : formatv("GQA {0}/{1} heads", c->numHeads, c->numKvHeads).str();
    os << formatv("  {0,-22} {1,-17} {2} layers, hidden {3}, {4}\n", name,
                  c->modelType, c->numLayers, c->hiddenSize, what);
  }
  os << "\nChips (--chip NAME, or a path to a chip YAML file):\n";
  for (const std::string &name : arch::ArchModel::builtinNames()) {
    auto chip = arch::ArchModel::load(name);
    if (!chip)
      return chip.takeError();
    os << formatv("  {0,-18} {1} socket(s); {2}\n", name, chip->numSockets(),
                  chip->getDescription());
  }
  os << "\n";
  printKVMethods(os);
  os << "\nPublished accuracy of each: snapflow list --kv\n";
  return Error::success();
}

namespace {
/// `snapflow info --json`.
void printInfoJson(llvm::raw_ostream &os, const ModelInfo &info) {
  const Workload &w = info.workload;
  const ModelStats &stats = info.stats;
  llvm::json::Object fitsJson;
  for (arch::MemoryTier tier : arch::kAllTiers)
    fitsJson[arch::tierName(tier)] = info.fits[static_cast<size_t>(tier)];
  // Every chip key's value (after --set), as the chip file writes it: a
  // what-if's base values, for a script to scale.
  llvm::json::Object chipValues;
  for (const arch::ArchParamInfo &p : arch::ArchModel::paramInfos()) {
    std::string text = w.chip.getValueText(p);
    if (p.kind == arch::ArchParamInfo::Kind::Integer)
      chipValues[p.dottedKey()] = std::stoll(text);
    else if (p.kind == arch::ArchParamInfo::Kind::Real)
      chipValues[p.dottedKey()] = std::stod(text);
    else
      chipValues[p.dottedKey()] = text;
  }
  // What the figures are of: snapflow, the model, the chip and the KV
  // policy as resolved.
  llvm::json::Object root{
      {"snapflow", versionString()},
      {"model", w.config.name},
      {"model_fingerprint", w.config.fingerprint()},
      {"weights_dtype", weightsDtypeLabel(w)},
      {"chip", w.chip.getName()},
      {"chip_fingerprint", w.chip.fingerprint()},
      {"chip_values", std::move(chipValues)},
      {"tp", w.tp},
      {"kv", w.kvLabel()},
      {"layers", stats.layers},
      {"params_total", stats.paramsTotal},
      {"params_active", stats.paramsActive},
      {"kv_bytes_per_token", stats.kvBytesPerToken},
      {"kv_bytes", info.kvBytes},
      {"kv_format", w.kvFormatLabel()},
      {"cla_share_factor", w.config.claShareFactor},
      {"tokens_per_kv_slot", w.config.tokensPerCachePosition()},
      {"kv_state_bytes", info.kvStateBytes},
      {"kv_backup_bytes", info.kvBackupBytes},
      {"mla_cache", llm::mlaCacheName(info.mlaCache)},
      {"weights_bytes_per_socket", info.planWeightsBytes},
      {"kv_bytes_per_socket", info.planKvBytes},
      {"max_batch", info.maxBatch},
      {"fits", std::move(fitsJson)},
  };
  os << formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
}
} // namespace

void snapflow::tools::printInfo(llvm::raw_ostream &os, const ModelInfo &info,
                                bool json) {
  if (json)
    return printInfoJson(os, info);
  const Workload &w = info.workload;
  const ModelStats &stats = info.stats;

  const models::ModelConfig &c = w.config;
  os << formatv("{0} ({1}) on {2}, tensor parallel over {3} of {4} socket(s)\n",
                c.name, c.modelType, w.chip.getName(), w.tp,
                w.chip.numSockets());
  for (const std::string &note : w.notes())
    os << "  (" << note << ")\n";
  if (c.isBlockTransformer()) {
    const models::BlockTransformerConfig &bt = c.block;
    os << formatv("  layers       {0} block decoder + {1} token decoder "
                  "(GPT-NeoX, {2} heads of {3}); blocks of {4} tokens, {5} "
                  "prefix vectors\n",
                  bt.blockDecoder.numLayers, bt.tokenDecoder.numLayers,
                  bt.blockDecoder.numHeads, bt.blockDecoder.headDim(),
                  bt.blockLength, bt.expansionRatio);
  } else
    os << formatv("  layers       {0} ({1} dense + {2} MoE), {3}{4}\n",
                  stats.layers, stats.layers - stats.moeLayers, stats.moeLayers,
                  c.isMLA() ? formatv("MLA latent {0} + rope {1}", c.kvLoraRank,
                                      c.qkRopeHeadDim)
                                  .str()
                            : formatv("GQA {0} heads / {1} KV heads",
                                      c.numHeads, c.numKvHeads)
                                  .str(),
                  c.claShareFactor > 1
                      ? formatv(", K/V shared by groups of {0} layers (CLA): "
                                "{1} cache layer{2}",
                                c.claShareFactor, c.cacheLayers(),
                                c.cacheLayers() == 1 ? "" : "s")
                            .str()
                      : std::string());
  os << formatv("  parameters   {0:f2} B total, {1:f2} B active per token\n",
                stats.paramsTotal / 1e9, stats.paramsActive / 1e9);
  os << formatv("  weights      {0} (projections in {1}{2})\n",
                humanBytes(stats.weightBytes),
                models::weightDtypeName(w.weightsDtype.value_or(c.weightDtype)),
                c.mxfp4Experts && !w.weightsDtype ? ", routed experts in MXFP4"
                                                  : "");
  int64_t positions = c.cachePositions(info.context);
  llvm::StringRef unit = c.isBlockTransformer() ? "block" : "token";
  if (c.isBlockTransformer())
    os << formatv("  KV cache     {0} B per block of {1} tokens of one "
                  "sequence (the block decoder's; the token decoder's stays "
                  "on chip)\n",
                  stats.kvBytesPerToken, c.block.blockLength);
  else
    os << formatv("  KV cache     {0} B per token of one sequence{1}\n",
                  stats.kvBytesPerToken,
                  stats.windowLayers > 0
                      ? formatv(" (its {0} full layers)",
                                stats.layers - stats.windowLayers)
                            .str()
                      : std::string());
  // Sliding and chunked layers keep a ring of their window, whatever the
  // context and the policy.
  if (stats.windowLayers > 0)
    os << formatv("               and {0} windowed layers of {1} tokens: {2} "
                  "for the whole batch, not compressed by the policy\n",
                  stats.windowLayers, c.windowTokens(),
                  humanBytes(stats.kvWindowBytes));
  // What the policy keeps of the full layers (none when every layer is
  // windowed: it has nothing to keep or drop).
  bool fullLayers = stats.windowLayers < stats.layers;
  if (fullLayers && w.kvSlots >= positions)
    os << formatv("               {0} keeps all {1} {2}s of a sequence\n",
                  w.kvLabel(), positions, unit);
  else if (fullLayers)
    os << formatv("               {0} keeps {1} of {2} {3}s per sequence "
                  "({4:f1}x fewer than full)\n",
                  w.kvLabel(), w.kvSlots, positions, unit,
                  static_cast<double>(positions) / w.kvSlots);
  if (w.kvFormatLabel() != "bf16")
    os << formatv("               stored as {0}\n", w.kvFormatLabel());
  os << formatv(
      "               batch {0}: {1} for the whole batch{2}\n", info.batch,
      humanBytes(info.kvBytes),
      info.kvStateBytes > 0
          ? formatv(", of which {0} the policy's state{1}",
                    humanBytes(info.kvStateBytes),
                    info.kvBackupBytes > 0 ? " (page digests)" : " (per slot)")
                .str()
          : std::string());
  if (info.kvBackupBytes > 0)
    os << formatv("               and a {0} page backup in DDR\n",
                  humanBytes(info.kvBackupBytes));
  // A TP that does not split the model leaves no plan per socket; what is
  // above does not depend on it (the command then fails with why).
  if (!info.planError.empty())
    return;
  std::string kvPlacement =
      w.tp == 1 ? std::string("one socket")
      : c.isMLA()
          ? std::string(info.mlaCache == llm::MlaCache::Sequence
                            ? "MLA latent cache split by sequence: a 1/" +
                                  std::to_string(w.tp) +
                                  " of every sequence per socket"
                        : info.mlaCache == llm::MlaCache::Batch
                            ? "MLA latent cache split by batch: every socket "
                              "holds its 1/" +
                                  std::to_string(w.tp) + " of the sequences"
                            : "MLA latent cache replicated on every socket")
          : formatv(
                "{0} of {1} KV heads per socket",
                static_cast<int64_t>(double(info.planKvBytes) * c.numKvHeads /
                                     std::max<double>(1, info.kvBytes)),
                c.numKvHeads)
                .str();
  os << formatv("\n  per socket   weights {0} + KV {1} ({2}); the compiler's "
                "memory plan\n",
                humanBytes(info.planWeightsBytes), humanBytes(info.planKvBytes),
                kvPlacement);
  os << formatv("  {0,-6} {1,12} {2,12}  {3}\n", "tier", "capacity",
                "weights+KV", "fits");
  for (arch::MemoryTier tier : arch::kAllTiers)
    os << formatv("  {0,-6} {1,12} {2,12}  {3}\n", arch::tierName(tier),
                  humanBytes(w.chip.tierBytesPerSocket(tier)),
                  humanBytes(info.needBytes),
                  info.fits[static_cast<size_t>(tier)] ? "yes" : "no");
  os << formatv("  largest batch that fits in HBM: {0}\n", info.maxBatch);
}

void snapflow::tools::printCompile(llvm::raw_ostream &os,
                                   const CompileOutcome &c) {
  os << formatv("compiled {0} {1} batch {2} context {3}{8} on {4} (TP {5}, "
                "--kv {6}) in {7:f2} s\n",
                c.model, arch::phaseName(c.phase), c.batch, c.context, c.chip,
                c.tp, c.kv, c.seconds,
                c.chunks > 1 ? formatv(" in {0} chunks", c.chunks).str()
                             : std::string());
  for (const std::string &note : c.notes)
    os << "  (" << note << ")\n";
  os << formatv("  per socket: weights {0:f2} GiB, KV {1:f2} GiB, "
                "activations {2:f2} MiB; HBM {3:f2} of {4:f2} GiB; {5}"
                "largest batch that fits: {6}\n",
                gib(c.weightsBytes), gib(c.kvBytes),
                c.activationBytes / double(1 << 20), gib(c.hbmBytes),
                gib(c.hbmCapacity),
                c.ddrBytes > 0 ? formatv("DDR {0:f2} of {1:f2} GiB; ",
                                         gib(c.ddrBytes), gib(c.ddrCapacity))
                                     .str()
                               : std::string(),
                c.maxBatch);
  if (c.prefetchBytes > 0)
    os << formatv("  layer loops pipelined: the next layer's loads prefetch "
                  "into {0:f1} MiB of SRAM\n",
                  c.prefetchBytes / double(1 << 20));
}

void snapflow::tools::printSimulation(llvm::raw_ostream &os,
                                      const SimulationOutcome &s,
                                      bool profile) {
  for (const std::string &note : s.notes)
    os << note << "\n";
  sim::printSummary(os, s.report);
  if (profile)
    sim::printProfile(os, s.report);
}

namespace {
/// Below this share of busy slots the summary warns that the static graph
/// is mostly idle: a quarter, where three of four slots' work in every step
/// is padding.
constexpr double kIdleSlotsWarning = 0.25;

/// The serving summary's lines on the load: rows left out or clipped, the
/// prefix cache, the load against what was served, and overload.
/// Seconds of chip time over the run: the makespan on each node.
double nodeSeconds(const ServeOutcome &s) {
  const sim::serving::ServeResult &r = s.result;
  return r.makespanS * double(std::max<size_t>(1, r.nodes.size()));
}

void printLoad(llvm::raw_ostream &os, const ServeOutcome &s) {
  const sim::serving::ServeResult &r = s.result;
  if (s.overlongSkipped || s.overlongClipped)
    os << formatv("overlong            {0} request(s) longer than a slot "
                  "{1} (--overlong {2})\n",
                  s.overlongSkipped + s.overlongClipped,
                  s.overlongSkipped ? "skipped" : "clipped to fit",
                  sim::serving::overlongName(s.overlong));
  if (s.prefix.blockTokens > 0) {
    const sim::serving::PrefixResult &p = r.prefix;
    os << formatv("prefix cache        {0:f1}% of prompt tokens reused ({1} "
                  "of {2}), {3}-token blocks; {4} blocks hit ({5} from "
                  "DDR); prefill saved {6:f3} s, tier moves {7:f3} s\n",
                  p.queriedTokens
                      ? 100.0 * double(p.hitTokens) / double(p.queriedTokens)
                      : 0.0,
                  p.hitTokens, p.queriedTokens, s.prefix.blockTokens,
                  p.hitBlocks, p.ddrHitBlocks, p.prefillSavedS, p.moveS);
    os << formatv("prefix tiers        HBM {0} blocks ({1} free), DDR {2} "
                  "blocks ({3}); peak held {4} in HBM, {5} in DDR{6}\n",
                  s.prefix.hbmBlocks,
                  gibOrMib(double(s.prefix.hbmBlocks) * s.prefix.blockBytes),
                  s.prefix.ddrBlocks,
                  gibOrMib(double(s.prefix.ddrBlocks) * s.prefix.blockBytes),
                  p.peakHbmBlocks, p.peakDdrBlocks,
                  s.prefix.reuse ? ""
                                 : "; reuse off (--prefix-keep none under a "
                                   "compressing policy)");
  }
  if (s.slo.any()) {
    std::vector<std::string> slos;
    if (s.slo.ttftS > 0)
      slos.push_back(formatv("TTFT <= {0} s ({1:f1}% meet it)",
                             shortestText(s.slo.ttftS), 100 * s.sloTtftShare));
    if (s.slo.tpotS > 0)
      slos.push_back(formatv("TPOT <= {0} ms ({1:f1}%)",
                             shortestText(s.slo.tpotS * 1e3),
                             100 * s.sloTpotShare));
    os << formatv("SLO                 {0}: {1:f1}% of requests meet every "
                  "SLO, goodput {2:f3} requests/s; {3} the {4:f0}% target\n",
                  llvm::join(slos, ", "), 100 * s.sloShare,
                  s.goodputRequestsPerS, s.sloMet ? "meets" : "misses",
                  100 * s.slo.attainment);
  }
  if (s.offeredRequestsPerS > 0)
    os << formatv("load                arrivals {0:f3} requests/s, served "
                  "{1:f3}/s: offered {2:f2}x what was served\n",
                  s.offeredRequestsPerS, s.requestsPerS, s.loadRatio);
  if (s.overloaded)
    os << formatv("overloaded          requests arrived {0:f2}x faster than "
                  "the deployment served them; {1} waited for a slot at the "
                  "last arrival against {2} a tenth of the way in, so "
                  "latencies grow with the trace's length\n",
                  s.loadRatio, r.waitingAtLastArrival, r.waitingEarly);
  else if (r.makespanS > 0 && r.idleS > 0.99 * nodeSeconds(s))
    os << formatv("nearly idle         the chip was idle {0:f1}% of the "
                  "time: if that is not the load meant, check the trace's "
                  "time unit (--trace-format, arrival_s or arrival_ms)\n",
                  100 * r.idleS / nodeSeconds(s));
}

/// The run's energy at the wall: per request and output token, the node's
/// average power, and what idle time and switches drew.
void printServeEnergy(llvm::raw_ostream &os, const ServeOutcome &s) {
  const sim::serving::ServeResult::Energy &e = s.result.energy;
  double total = e.totalJ();
  if (!(total > 0))
    return;
  const sim::serving::ServeResult &r = s.result;
  int64_t served = s.requests;
  os << formatv("energy              {0:f1} J per request, {1:f3} J per "
                "output token; {2:f2} kW average over the makespan, idle "
                "time {3:f1}% of the energy",
                served > 0 ? total / double(served) : 0.0,
                r.outputTokens > 0 ? total / double(r.outputTokens) : 0.0,
                r.makespanS > 0 ? total / r.makespanS / 1e3 : 0.0,
                100 * e.idleJ / total);
  if (e.switchJ > 0)
    os << formatv(", model switches {0:f1} J", e.switchJ);
  if (e.kvTransferJ > 0)
    os << formatv(", KV over the node links {0:f1} J", e.kvTransferJ);
  os << "\n";
}

/// Several static graphs: each one's steps; --batch auto's candidates.
void printGraphs(llvm::raw_ostream &os, const ServeOutcome &s) {
  const sim::serving::ServeResult &r = s.result;
  if (!s.graphCandidates.empty()) {
    os << "batch auto          candidate static graphs (slots), requests/s "
          "meeting every SLO:\n";
    for (size_t k = 0; k < s.graphCandidates.size(); ++k) {
      const GraphCandidate &c = s.graphCandidates[k];
      std::string sizes;
      for (int64_t b : c.sizes)
        sizes += (sizes.empty() ? "" : ",") + std::to_string(b);
      os << formatv("  {0,-30} goodput {1,8:f3}/s  SLOs met {2,5:f1}%{3}\n",
                    sizes, c.goodputRequestsPerS, 100 * c.sloShare,
                    int64_t(k) == s.graphPicked ? "  <- picked" : "");
    }
  }
  if (s.graphSizes.empty())
    return;
  std::string steps;
  for (size_t g = 0; g < s.graphSizes.size(); ++g)
    steps += formatv("{0}{1} slots {2}", g ? ", " : "", s.graphSizes[g],
                     g < r.graphSteps.size() ? r.graphSteps[g] : 0)
                 .str();
  os << formatv("static graphs       decode steps per graph: {0}; {1} "
                "switches between graphs ({2:f3} ms in all)\n",
                steps, r.graphSwitches, r.graphSwitchS * 1e3);
}

/// A cluster's shape, each node's load and the KV its prefill nodes sent.
void printCluster(llvm::raw_ostream &os, const ServeOutcome &s) {
  const sim::serving::ServeResult &r = s.result;
  const sim::serving::ClusterOptions &c = s.cluster;
  if (r.nodes.empty())
    return;
  os << formatv("cluster             {0} nodes{1}, router {2}; node link {3} "
                "x {4:f1} GB/s, {5:f1} us\n",
                c.count(),
                c.disaggregated() ? formatv(" ({0} prefill, {1} decode)",
                                            c.prefillNodes, c.decodeNodes)
                                        .str()
                                  : std::string(", each the whole deployment"),
                sim::serving::routerName(c.router), c.link.links,
                c.link.bytesPerS * 1e-9, c.link.latencyS * 1e6);
  os << "  node  role     requests   busy  queue peak  queue mean  slot use"
     << (c.disaggregated() ? "  KV over link  link busy" : "") << "\n";
  for (size_t k = 0; k < r.nodes.size(); ++k) {
    const sim::serving::NodeResult &n = r.nodes[k];
    os << formatv("  {0,-4}  {1,-7}  {2,8}  {3,4:f0}%  {4,10}  {5,10:f2}  "
                  "{6,7:f1}%",
                  k, sim::serving::nodeRoleName(n.role), n.requests,
                  100 * n.busyShare(r.makespanS), n.waitingPeak, n.waitingMean,
                  100 * n.decodeSlotUtilization);
    if (c.disaggregated())
      os << formatv("  {0,12}  {1,8:f1}%", gibOrMib(n.linkBytes),
                    r.makespanS > 0 ? 100 * n.linkBusyS / r.makespanS : 0);
    os << "\n";
  }
  if (c.disaggregated())
    os << formatv("KV transfer         {0} requests, {1} each on average "
                  "(what the policy and format keep); prefill's end to the "
                  "KV's arrival p50 {2:f4}  p99 {3:f4}  mean {4:f4} s, of "
                  "it waiting for the link mean {5:f4} s (part of TTFT)\n",
                  r.transfers.count, gibOrMib(s.kvSentBytesPerRequest),
                  s.transfer.p50, s.transfer.p99, s.transfer.mean,
                  s.transferWait.mean);
}
} // namespace

void snapflow::tools::printServe(llvm::raw_ostream &os, const ServeOutcome &s) {
  const sim::serving::ServeResult &r = s.result;
  bool chunked = s.schedule == sim::serving::Schedule::Chunked;
  const bool several = s.models.size() > 1;
  std::string schedule =
      chunked
          ? formatv("chunked schedule ({0}-token chunks)", s.prefillChunk).str()
          : std::string("prefill first");
  if (several)
    os << formatv("serving {0} requests ({1}) on {2} models of {3} "
                  "({4} slots in all), tp {5}, {6}\n",
                  s.requests, s.source, s.models.size(), s.chip, s.slots, s.tp,
                  schedule);
  else
    os << formatv("serving {0} requests ({1}) on {2} slot(s) of {3} tokens: "
                  "{4} on {5}, tp {6}, --kv {7}, {8}\n",
                  s.requests, s.source, s.slots, s.context, s.model, s.chip,
                  s.tp, s.kv, schedule);
  os << formatv("step costs: {0} graphs compiled in {1:f2} s, timed in "
                "one SystemC run of {2:f2} s; loop {3:f3} s\n",
                s.graphs, s.compileS, s.simulateS, s.loopS);
  // Each model's step costs (the one model's, unnamed).
  auto printCosts = [&](const sim::serving::CostTable &costs,
                        llvm::StringRef indent) {
    os << indent << "prefill (prompt bucket: time)";
    for (size_t i = 0; i < costs.prefillBuckets.size(); ++i) {
      size_t chunks =
          i < costs.prefillChunkS.size() ? costs.prefillChunkS[i].size() : 1;
      os << formatv("  {0}: {1:f1} ms", costs.prefillBuckets[i],
                    costs.prefillS[i] * 1e3);
      if (chunks > 1)
        os << formatv(" ({0} chunks)", chunks);
    }
    os << "\n" << indent << "decode step (context bucket: time)";
    for (size_t i = 0; i < costs.decodeBuckets.size(); ++i)
      os << formatv("  {0}: {1:f2} ms", costs.decodeBuckets[i],
                    costs.decodeStepS[i] * 1e3);
    os << "\n";
  };
  if (several)
    for (const ModelOutcome &m : s.models) {
      os << "  " << m.name << "\n";
      printCosts(m.costs, "    ");
    }
  else
    printCosts(s.costs, "  ");
  auto pct = [](double part, double whole) {
    return whole > 0 ? 100.0 * part / whole : 0.0;
  };
  // Shares of every node's time.
  const double busy = nodeSeconds(s);
  os << formatv(
      "makespan            {0:f3} s ({5}prefill {1:f0}%, decode "
      "{2:f0}%, idle {3:f0}%{4})\n",
      r.makespanS, pct(r.prefillS, busy), pct(r.decodeS, busy),
      pct(r.idleS, busy),
      r.prefix.moveS > 0
          ? formatv(", prefix moves {0:f0}%", pct(r.prefix.moveS, busy)).str()
          : std::string(),
      r.nodes.empty() ? std::string()
                      : formatv("of {0} nodes' time: ", r.nodes.size()).str());
  os << formatv("throughput          {0:f1} output tokens/s, {1:f3} "
                "requests/s\n",
                s.throughputTokensPerS, s.requestsPerS);
  printLoad(os, s);
  auto line = [&](const char *name, const Percentiles &p, double scale,
                  const char *unit) {
    os << formatv("{0,-19} p50 {1:f3}  p90 {2:f3}  p99 {3:f3}  mean "
                  "{4:f3} {5}\n",
                  name, p.p50 * scale, p.p90 * scale, p.p99 * scale,
                  p.mean * scale, unit);
  };
  line("TTFT", s.ttft, 1, "s");
  line("TPOT", s.tpot, 1e3, "ms");
  os << formatv("{0,-19} p50 {1:f3}  p90 {2:f3}  p99 {3:f3}  max {4:f3} "
                "ms\n",
                "time between tokens", s.tbt.p50 * 1e3, s.tbt.p90 * 1e3,
                s.tbt.p99 * 1e3, s.tbt.max * 1e3);
  line("end to end", s.e2e, 1, "s");
  line("queue wait", s.wait, 1, "s");
  if (s.graphSizes.empty())
    os << formatv("decode slot use     {0:f1}% of {1} slots over {2} "
                  "steps\n",
                  100 * r.decodeSlotUtilization, s.slots, r.decodeSteps);
  else
    os << formatv("decode slot use     {0:f1}% of the slots of the graph "
                  "each step ran, over {1} steps\n",
                  100 * r.decodeSlotUtilization, r.decodeSteps);
  // A static graph whose slots sit mostly idle pays for all of them at
  // every step (issue 36): say so, with the batch that held the run.
  if (s.models.size() < 2 && r.decodeSteps > 0 &&
      r.decodeSlotUtilization < kIdleSlotsWarning &&
      r.peakActiveSlots < s.slots && s.graphSizes.empty())
    os << formatv("idle slots          the graph's {0} slots were {1:f1}% "
                  "busy and at most {2} held a request at once; a graph of "
                  "{2} slots (--batch {2}) holds every request this run held "
                  "at once, with shorter steps (or compile several, --batch "
                  "1,...,{0}, or let --batch auto pick them under SLOs)\n",
                  s.slots, 100 * r.decodeSlotUtilization, r.peakActiveSlots);
  if (chunked)
    os << formatv("mixed steps         {0} of {1} decode steps carried a "
                  "prefill chunk ({2} chunks in all)\n",
                  r.mixedSteps, r.decodeSteps, r.prefillChunks);
  if (s.blockTokens > 1)
    os << formatv("block decode        {0} tokens per sequence and step (a "
                  "Block Transformer decodes a block of {0} at once)\n",
                  s.blockTokens);
  else if (s.tokensPerStep != 1)
    os << formatv("MTP                 {0:f2} tokens accepted per sequence "
                  "and step\n",
                  s.tokensPerStep);
  os << formatv("KV held per socket  peak {0}, mean {1} (allocated "
                "{2})\n",
                gibOrMib(s.kvPeakBytes), gibOrMib(s.kvMeanBytes),
                gibOrMib(s.kvAllocatedBytes));
  printServeEnergy(os, s);
  printGraphs(os, s);
  printCluster(os, s);
  if (s.models.size() < 2)
    return;
  // A deployment of several models: each one, and its switches.
  os << formatv("model cache         {0}: {1} switches\n",
                sim::serving::cachePolicyName(s.cachePolicy),
                r.switches.size());
  os << "  model               slots  context  weights/socket  HBM/socket  "
        "switch alone  switches  prewarms  TTFT p50 / p99 (s)  switch wait "
        "mean (s)  TPOT p50 (ms)  kv\n";
  for (size_t k = 0; k < s.models.size(); ++k) {
    const ModelOutcome &m = s.models[k];
    const sim::serving::ModelResult &mr = r.models[k];
    // Static never switches, so no switch is timed.
    std::string alone = s.cachePolicy == sim::serving::CachePolicy::Static
                            ? std::string("-")
                            : formatv("{0:f1} ms", m.switchS * 1e3).str();
    os << formatv("  {0,-19} {1,5}  {2,7}  {3,14}  {4,10}  {5,12}  "
                  "{6,8}  {7,8}  {8,8:f3} / {9,-7:f3}  {10,20:f3}  "
                  "{11,13:f2}  {12}\n",
                  m.name, m.slots, m.context, gibOrMib(m.weightBytes),
                  gibOrMib(m.hbmBytes), alone, mr.switches, mr.prewarms,
                  m.ttft.p50, m.ttft.p99, m.switchWait.mean, m.tpot.p50 * 1e3,
                  m.kv);
  }
}

void snapflow::tools::printTrace(llvm::raw_ostream &os, llvm::StringRef path,
                                 const MemoryTrace &d) {
  TimeUnit unit = timeUnitFor(d.spanUs());
  os << formatv("{0}: {1}{2:f3} {3} simulated, {4} memory samples\n", path,
                d.chip.empty() ? "" : d.chip + ", ", d.spanUs() / unit.us,
                unit.name, d.samples.size());
  // What made it, when the trace says (otherData).
  if (!d.made("model").empty() || !d.made("snapflow").empty())
    os << formatv(
        "made by snapflow {0}: {1} on {2}, --kv {3}\n", d.made("snapflow"),
        d.made("model").empty() ? "a hand-written program" : d.made("model"),
        d.made("chip"), d.made("kv").empty() ? "-" : d.made("kv"));
  os << "occupancy per socket    capacity GiB   peak GiB   peak/cap   "
        "mean GiB (time-weighted)\n";
  for (int k = 0; k < kTraceSeries; ++k) {
    double cap = k < 3 ? d.capacity[k] : 0;
    os << formatv(
        "  {0,-20} {1,12} {2,10:f3}  {3}   {4,10:f3}\n", kTraceSeriesLabels[k],
        cap > 0 ? formatv("{0:f3}", gib(cap)).str() : std::string("-"),
        gib(d.peak[k]), percent(d.peak[k], cap), gib(d.mean[k]));
  }
  if (d.tensors.empty())
    return;
  std::vector<const TraceTensor *> shown = d.largest(10);
  os << formatv("largest consumers ({0} of {1} tensors):\n", shown.size(),
                d.tensors.size());
  for (const TraceTensor *t : shown) {
    int tier = t->tier == "sram" ? 0 : t->tier == "hbm" ? 1 : 2;
    os << formatv("  {0,-52} {1,-4} {2,9:f3} GiB {3} of {4}{5}  ({6})\n",
                  t->name, t->tier, gib(double(t->bytes)),
                  percent(double(t->bytes), d.capacity[tier]),
                  llvm::StringRef(t->tier).upper(), t->kv ? "  KV" : "",
                  llvm::join(t->programs, ", "));
  }
}
