//===- ArchModel.cpp - Chip description loader ----------------------------===//
//
// Reads a chip YAML file into an ArchModel. Every parameter is declared once in
// kParams below; the loader requires each declared key exactly once, rejects
// unknown keys, checks each value against its rule and requires a source string
// on every value. Diagnostics use LLVM's SourceMgr, so they read
// `file:line:col: error: ...` with the offending line and a caret.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Arch/ArchModel.h"

#include "snapflow/Support/EnumNames.h"

#include "snapflow/Support/Input.h"
#include "snapflow/Support/Nearest.h"
#include "snapflow/Support/Number.h"
#include "snapflow/Support/YamlFile.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdio>

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <mutex>

using namespace snapflow::arch;
using llvm::StringRef;

namespace {

/// The built-in chip files, embedded at build time from arch/chips/*.yaml.
struct EmbeddedFile {
  const char *name;
  const char *contents;
};
const EmbeddedFile kBuiltinChips[] = {
#include "BuiltinChips.inc"
};

enum class Kind { Int, Real, Enum };

/// One schema entry: the public info plus where the value goes.
struct ParamDecl {
  ArchParamInfo info;
  Kind kind;
  /// The sane range [lo, hi] a value must lie in: wide enough for any chip
  /// one would study (about 1000x past today's), narrow enough that every
  /// cost in cycles, bytes and picoseconds stays inside 64 bits (issue 13).
  double lo = 0, hi = 0;
  std::string ruleText; ///< "1 to 1e+06" (info.rule points here)
  int64_t SocketParams::*socketInt = nullptr;
  double SocketParams::*socketReal = nullptr;
  int64_t SystemParams::*systemInt = nullptr;
  double SystemParams::*systemReal = nullptr;
};

using InfoKind = ArchParamInfo::Kind;

/// A value's range: [lo, hi]; a zero `lo` allows zero (latencies).
struct Range {
  double lo, hi;
};

ParamDecl decl(const char *section, const char *key, const char *unit,
               const char *desc, Kind kind, Range range) {
  ParamDecl d;
  d.info = {section, key,
            unit,    "",
            desc,    kind == Kind::Int ? InfoKind::Integer : InfoKind::Real};
  d.kind = kind;
  d.lo = range.lo;
  d.hi = range.hi;
  // Integers exactly ("1 to 1125899906842624"), reals briefly ("1e+06").
  auto text = [&](double v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), kind == Kind::Int ? "%.0f" : "%g", v);
    return std::string(buf);
  };
  d.ruleText = text(range.lo) + " to " + text(range.hi);
  return d;
}
ParamDecl sockInt(const char *key, const char *unit, const char *desc,
                  int64_t SocketParams::*field, Range range) {
  ParamDecl d = decl("socket", key, unit, desc, Kind::Int, range);
  d.socketInt = field;
  return d;
}
ParamDecl sockReal(const char *key, const char *unit, const char *desc,
                   double SocketParams::*field, Range range) {
  ParamDecl d = decl("socket", key, unit, desc, Kind::Real, range);
  d.socketReal = field;
  return d;
}
ParamDecl sysInt(const char *key, const char *unit, const char *desc,
                 int64_t SystemParams::*field, Range range) {
  ParamDecl d = decl("system", key, unit, desc, Kind::Int, range);
  d.systemInt = field;
  return d;
}
ParamDecl sysReal(const char *key, const char *unit, const char *desc,
                  double SystemParams::*field, Range range) {
  ParamDecl d = decl("system", key, unit, desc, Kind::Real, range);
  d.systemReal = field;
  return d;
}
ParamDecl sysEnum(const char *key, const char *rule, const char *desc) {
  ParamDecl d;
  d.info = {"system", key, "-", rule, desc, InfoKind::Choice};
  d.kind = Kind::Enum;
  return d;
}

using SP = SocketParams;
using YP = SystemParams;
const std::vector<ParamDecl> &params() {
  static const std::vector<ParamDecl> decls = [] {
    std::vector<ParamDecl> d = {
        sockReal("clock_hz", "Hz", "PCU/PMU clock", &SP::clockHz, {1e6, 1e11}),
        sockInt("pcu_count", "PCUs", "pattern compute units per socket",
                &SP::pcuCount, {1, 1e6}),
        sockInt("pcu_systolic_flops_per_cycle", "FLOP/cycle",
                "BF16 FLOPs per PCU per cycle in systolic (GEMM) mode",
                &SP::pcuSystolicFlopsPerCycle, {1, 1e6}),
        sockInt("pcu_lanes", "lanes",
                "lanes of a PCU's systolic array; its other side is "
                "pcu_systolic_flops_per_cycle / 2 / pcu_lanes stages, and a "
                "GEMM fills it in whole tiles of lanes x stages",
                &SP::pcuLanes, {1, 1e6}),
        sockInt("pcu_simd_flops_per_cycle", "FLOP/cycle",
                "operations per PCU per cycle in SIMD mode (elementwise, "
                "softmax, norms)",
                &SP::pcuSimdFlopsPerCycle, {1, 1e6}),
        sockInt("pcu_pipeline_fill_cycles", "cycles",
                "cycles to fill a PCU's stage pipeline",
                &SP::pcuPipelineFillCycles, {0, 1e6}),
        sockInt("pmu_count", "PMUs", "pattern memory units per socket",
                &SP::pmuCount, {1, 1e6}),
        sockInt("sram_bytes_per_pmu", "bytes", "scratchpad bytes per PMU",
                &SP::sramBytesPerPmu, {1, 1073741824}),
        sockInt("pmu_banks", "banks", "banks per PMU", &SP::pmuBanks,
                {1, 1024}),
        sockInt("pmu_bytes_per_cycle", "bytes/cycle",
                "read bytes per cycle of one PMU", &SP::pmuBytesPerCycle,
                {1, 1e6}),
        sockInt("agcu_count", "AGCUs",
                "address generation and coalescing units (portals to HBM, DDR)",
                &SP::agcuCount, {1, 1e5}),
        sockInt("agcu_bytes_per_cycle", "bytes/cycle",
                "bytes per cycle one AGCU moves", &SP::agcuBytesPerCycle,
                {1, 1e6}),
        sockInt("noc_stream_bytes_per_cycle", "bytes/cycle",
                "bytes per cycle one on-chip stream carries",
                &SP::nocStreamBytesPerCycle, {1, 1e6}),
        sockInt("noc_hop_latency_cycles", "cycles",
                "cycles per switch hop on the mesh", &SP::nocHopLatencyCycles,
                {0, 1e6}),
        sockInt("mesh_rows", "switches", "switch mesh rows", &SP::meshRows,
                {1, 1e4}),
        sockInt("mesh_cols", "switches", "switch mesh columns", &SP::meshCols,
                {1, 1e4}),
        sockInt("reconfig_cycles", "cycles",
                "program load: cycles to load a new section (chip "
                "configuration) before its call",
                &SP::reconfigCycles, {0, 1e9}),
        sockInt("kernel_launch_cycles", "cycles",
                "argument load and kernel execute of every kernel call (a "
                "section run; a pipelined loop is one call)",
                &SP::kernelLaunchCycles, {0, 1e9}),
        sockInt("hbm_bytes", "bytes", "HBM capacity per socket", &SP::hbmBytes,
                {1, 1125899906842624}),
        sockReal("hbm_bytes_per_s", "bytes/s", "HBM bandwidth per socket",
                 &SP::hbmBytesPerS, {1e6, 1e15}),
        sockInt("hbm_latency_cycles", "cycles", "HBM access latency",
                &SP::hbmLatencyCycles, {0, 1e6}),
        sockInt("hbm_channels", "channels", "independent HBM channels",
                &SP::hbmChannels, {1, 4096}),
        sockInt("ddr_bytes", "bytes", "DDR capacity per socket", &SP::ddrBytes,
                {1, 1125899906842624}),
        sockReal("ddr_bytes_per_s", "bytes/s", "DDR bandwidth per socket",
                 &SP::ddrBytesPerS, {1e6, 1e15}),
        sockInt("ddr_latency_cycles", "cycles", "DDR access latency",
                &SP::ddrLatencyCycles, {0, 1e6}),
        sockInt("ddr_channels", "channels", "independent DDR channels",
                &SP::ddrChannels, {1, 4096}),
        sockReal("pcu_systolic_pj_per_flop", "pJ/FLOP",
                 "energy of a FLOP in systolic mode (datapath and pipeline "
                 "registers; operands' SRAM and network charged apart)",
                 &SP::pcuSystolicPjPerFlop, {0, 1e6}),
        sockReal("pcu_simd_pj_per_flop", "pJ/FLOP",
                 "energy of a FLOP in SIMD mode (elementwise, reductions)",
                 &SP::pcuSimdPjPerFlop, {0, 1e6}),
        sockReal("sram_read_pj_per_bit", "pJ/bit",
                 "energy of a bit read from a PMU", &SP::sramReadPjPerBit,
                 {0, 1e6}),
        sockReal("sram_write_pj_per_bit", "pJ/bit",
                 "energy of a bit written to a PMU", &SP::sramWritePjPerBit,
                 {0, 1e6}),
        sockReal("noc_pj_per_bit_hop", "pJ/bit/hop",
                 "energy of a bit crossing one switch hop of the mesh",
                 &SP::nocPjPerBitHop, {0, 1e6}),
        sockReal("hbm_pj_per_bit", "pJ/bit",
                 "energy of a bit read from or written to HBM (stack, PHY, "
                 "controller)",
                 &SP::hbmPjPerBit, {0, 1e6}),
        sockReal("ddr_pj_per_bit", "pJ/bit",
                 "energy of a bit read from or written to DDR (DIMM, PHY, "
                 "controller)",
                 &SP::ddrPjPerBit, {0, 1e6}),
        sockReal("compute_static_w", "W",
                 "static power of the compute dies (leakage, clocks, control, "
                 "idle links), drawn at every moment",
                 &SP::computeStaticW, {0, 1e6}),
        sockReal("hbm_static_w", "W",
                 "static power of the HBM stacks (refresh, background, PHY)",
                 &SP::hbmStaticW, {0, 1e6}),
        sockReal("ddr_static_w", "W",
                 "static power of the DDR DIMMs (background, refresh)",
                 &SP::ddrStaticW, {0, 1e6}),
        sysInt("sockets", "sockets", "sockets in the system", &YP::sockets,
               {1, 1024}),
        sysEnum("topology", "ring | fully_connected | switch",
                "how sockets are wired"),
        sysInt("links_per_socket", "links", "peer links leaving each socket",
               &YP::linksPerSocket, {1, 1024}),
        sysReal("link_bytes_per_s", "bytes/s",
                "bandwidth of one peer link, one direction", &YP::linkBytesPerS,
                {1e6, 1e15}),
        sysReal("link_latency_ns", "ns", "latency of one hop over a peer link",
                &YP::linkLatencyNs, {0, 1e9}),
        sysEnum("collective_algorithm",
                "auto | ring | bidirectional_ring | ring_2d | "
                "recursive_doubling | halving_doubling | tree | one_shot",
                "algorithm of every all-reduce, all-gather, all-to-all; auto: "
                "the cheapest per message"),
        sysReal("collective_launch_ns", "ns",
                "fixed synchronisation cost per collective call",
                &YP::collectiveLaunchNs, {0, 1e9}),
        sysInt("node_links", "links",
               "network ports of the node to other nodes (a cluster's KV "
               "transfers)",
               &YP::nodeLinks, {1, 1024}),
        sysReal("node_link_bytes_per_s", "bytes/s",
                "bandwidth of one node port, one direction",
                &YP::nodeLinkBytesPerS, {1e6, 1e15}),
        sysReal("node_link_latency_ns", "ns",
                "latency of a transfer between two nodes",
                &YP::nodeLinkLatencyNs, {0, 1e12}),
        sysReal("link_pj_per_bit", "pJ/bit",
                "energy of a bit sent over a peer link", &YP::linkPjPerBit,
                {0, 1e6}),
        sysReal("node_link_pj_per_bit", "pJ/bit",
                "energy of a bit sent over a node port", &YP::nodeLinkPjPerBit,
                {0, 1e6}),
        sysReal("host_w", "W",
                "the node's power beside its sockets (host CPU and DRAM, "
                "switches, NICs), drawn at every moment",
                &YP::hostW, {0, 1e7}),
        sysReal("wall_power_factor", "x",
                "wall power over the components' power (fans, power supply "
                "and regulator losses)",
                &YP::wallPowerFactor, {1, 10}),
    };
    // The rule text lives in each decl; point the public info at it once
    // the decls have their final place.
    for (ParamDecl &p : d)
      if (p.kind != Kind::Enum)
        p.info.rule = p.ruleText.c_str();
    return d;
  }();
  return decls;
}

} // namespace

namespace snapflow {
namespace arch {

/// Walks the YAML document and fills an ArchModel, collecting every error.
class ArchModelParser {
public:
  /// `expectedName`, when set, is the file's base name, which `name` must equal
  /// so reports and file names agree.
  ArchModelParser(StringRef text, StringRef bufferName,
                  StringRef expectedName = {})
      : yaml(text, bufferName), expectedName(expectedName) {
    model.origin = bufferName.str();
  }

  llvm::Expected<ArchModel> run() {
    if (!yaml.syntaxOk())
      return yaml.fail();
    llvm::yaml::Node *root = yaml.root();
    if (!root)
      return yaml.fail("empty chip file");
    if (yaml.errorCount())
      return yaml.fail();
    auto *top = llvm::dyn_cast<llvm::yaml::MappingNode>(root);
    if (!top) {
      error(root,
            "chip file must be a mapping with keys snapflow_arch_version, "
            "name, description, socket, system");
      return yaml.fail();
    }
    parseTop(top);
    if (yaml.errorCount())
      return yaml.fail();
    return std::move(model);
  }

private:
  void error(llvm::yaml::Node *node, const llvm::Twine &msg) {
    yaml.error(node, msg);
  }

  bool scalarText(llvm::yaml::Node *node, std::string &out, StringRef what) {
    return yaml.scalarText(node, out, what);
  }

  void parseTop(llvm::yaml::MappingNode *top) {
    llvm::StringSet<> seen;
    llvm::yaml::MappingNode *socket = nullptr, *system = nullptr;
    bool sawVersion = false, sawName = false, sawDescription = false;
    for (auto &kv : *top) {
      std::string key;
      if (!scalarText(kv.getKey(), key, "key"))
        continue;
      if (!seen.insert(key).second) {
        error(kv.getKey(), "duplicate key '" + key + "'");
        continue;
      }
      llvm::yaml::Node *value = kv.getValue();
      if (key == "snapflow_arch_version") {
        sawVersion = true;
        std::string text;
        int64_t version;
        if (scalarText(value, text, key) &&
            (StringRef(text).getAsInteger(10, version) ||
             version != ArchModel::kSchemaVersion))
          error(value, "unsupported snapflow_arch_version '" + text +
                           "'; this build reads version " +
                           llvm::Twine(ArchModel::kSchemaVersion));
      } else if (key == "name") {
        sawName = scalarText(value, model.name, key);
        if (sawName && model.name.empty())
          error(value, "'name' must not be empty");
        else if (sawName && !expectedName.empty() && model.name != expectedName)
          error(value, "name '" + model.name +
                           "' does not match the file name; set name: " +
                           expectedName);
      } else if (key == "description") {
        sawDescription = scalarText(value, model.description, key);
      } else if (key == "socket" || key == "system") {
        auto *map = llvm::dyn_cast_or_null<llvm::yaml::MappingNode>(value);
        if (!map) {
          error(value, "'" + key + "' must be a mapping");
          continue;
        }
        (key == "socket" ? socket : system) = map;
        // The YAML stream is read once, in order: parse children now.
        parseSection(map, key);
      } else {
        error(kv.getKey(),
              "unknown key '" + key +
                  "'; expected snapflow_arch_version, name, description, "
                  "socket, system");
      }
    }
    if (!sawVersion)
      error(top, "missing key 'snapflow_arch_version'");
    if (!sawName)
      error(top, "missing key 'name'");
    if (!sawDescription)
      error(top, "missing key 'description'");
    if (!socket)
      error(top, "missing key 'socket'");
    if (!system)
      error(top, "missing key 'system'");
  }

  void parseSection(llvm::yaml::MappingNode *map, StringRef section) {
    llvm::StringSet<> seen;
    for (auto &kv : *map) {
      std::string key;
      if (!scalarText(kv.getKey(), key, "key"))
        continue;
      const ParamDecl *decl = nullptr;
      for (const ParamDecl &d : params())
        if (section == d.info.section && key == d.info.key)
          decl = &d;
      if (!decl) {
        // Name the nearest key of the section when it is a likely typo
        // (at most a third of its letters wrong, like `pcu_cnt`).
        llvm::SmallVector<StringRef> keys;
        for (const ParamDecl &d : params())
          if (section == d.info.section)
            keys.push_back(d.info.key);
        StringRef nearest =
            nearestName(key, keys, std::max<size_t>(1, key.size() / 3));
        error(kv.getKey(), "unknown key '" + key + "' in '" + section + "'" +
                               (nearest.empty() ? std::string()
                                                : "; did you mean '" +
                                                      nearest.str() + "'?"));
        continue;
      }
      if (!seen.insert(key).second) {
        error(kv.getKey(), "duplicate key '" + key + "'");
        continue;
      }
      parseParam(*decl, kv.getValue());
    }
    std::vector<const ParamDecl *> missing;
    for (const ParamDecl &d : params())
      if (section == d.info.section && !seen.contains(d.info.key))
        missing.push_back(&d);
    // A few missing keys are named one by one with what they mean; more
    // (a chip written from scratch) are one error listing them, so the
    // other errors are not lost among them.
    if (missing.size() <= 3) {
      for (const ParamDecl *d : missing)
        error(map, "missing key '" + llvm::Twine(d->info.key) + "' in '" +
                       section + "' (" + d->info.description + ", " +
                       d->info.unit + ")");
    } else {
      std::string keys;
      for (const ParamDecl *d : missing)
        keys += (keys.empty() ? "" : ", ") + std::string(d->info.key);
      error(map, llvm::Twine(missing.size()) + " keys missing in '" + section +
                     "': " + keys +
                     " (every key is required; docs/ArchConfig.md describes "
                     "each, and `snapflow list` names the shipped chips to "
                     "start from)");
    }
  }

  void parseParam(const ParamDecl &decl, llvm::yaml::Node *node) {
    std::string dotted = std::string(decl.info.section) + "." + decl.info.key;
    auto *map = llvm::dyn_cast_or_null<llvm::yaml::MappingNode>(node);
    if (!map) {
      error(node, "'" + dotted +
                      "' must be a mapping {value: ..., source: \"published: "
                      "...\" | \"inferred: ...\" | \"test: ...\"}");
      return;
    }
    llvm::yaml::Node *valueNode = nullptr;
    std::string text;
    bool haveText = false;
    bool sawSource = false;
    for (auto &kv : *map) {
      std::string key;
      if (!scalarText(kv.getKey(), key, "key"))
        continue;
      if (key == "value") {
        valueNode = kv.getValue();
        haveText = scalarText(valueNode, text, dotted + ".value");
      } else if (key == "source") {
        std::string source;
        if (!scalarText(kv.getValue(), source, dotted + ".source"))
          continue;
        sawSource = true;
        StringRef s(source);
        if (!s.starts_with("published:") && !s.starts_with("inferred:") &&
            !s.starts_with("test:"))
          error(kv.getValue(), "source of '" + dotted +
                                   "' must start with 'published:', "
                                   "'inferred:' or 'test:'");
        model.sources[dotted] = source;
      } else {
        error(kv.getKey(), "unknown key '" + key + "' in '" + dotted +
                               "'; expected 'value' and 'source'");
      }
    }
    if (!sawSource)
      error(node, "missing key 'source' in '" + dotted + "'");
    if (!valueNode) {
      error(node, "missing key 'value' in '" + dotted + "'");
      return;
    }
    if (!haveText)
      return;
    std::string problem = applyValue(model, decl, StringRef(text).trim());
    if (!problem.empty())
      error(valueNode, problem);
  }

public:
  /// Sets `decl`'s value in `model` from its text; returns what is wrong
  /// with the text (unlocated), or "" when it was set. Shared by chip files
  /// and ArchModel::fromValues, so both apply the same rules.
  static std::string applyValue(ArchModel &model, const ParamDecl &decl,
                                StringRef t) {
    std::string dotted = decl.info.dottedKey();
    if (decl.kind == Kind::Enum)
      return applyChoice(model, decl, t);
    double real = 0;
    int64_t integer = 0;
    if (decl.kind == Kind::Int) {
      if (t.getAsInteger(10, integer)) {
        // Accept 6.4e10-style spellings when they denote an exact integer.
        if (t.getAsDouble(real) || real != std::floor(real) ||
            std::fabs(real) > 9.0e18)
          return "'" + dotted + "' must be an integer (" + decl.info.unit +
                 "), got '" + t.str() + "'";
        integer = static_cast<int64_t>(real);
      }
      real = static_cast<double>(integer);
    } else if (t.getAsDouble(real) || !std::isfinite(real)) {
      return "'" + dotted + "' must be a number (" + decl.info.unit +
             "), got '" + t.str() + "'";
    }
    if (real < decl.lo || real > decl.hi)
      return "'" + dotted + "' must be " + decl.info.unit + " from " +
             decl.info.rule + ", got '" + t.str() + "'";
    if (decl.socketInt)
      model.socketParams.*decl.socketInt = integer;
    else if (decl.socketReal)
      model.socketParams.*decl.socketReal = real;
    else if (decl.systemInt)
      model.systemParams.*decl.systemInt = integer;
    else if (decl.systemReal)
      model.systemParams.*decl.systemReal = real;
    return "";
  }

  /// The canonical text of `decl`'s value in `model`.
  static std::string valueText(const ArchModel &model, const ParamDecl &decl) {
    if (decl.kind == Kind::Enum)
      return StringRef(decl.info.key) == "topology"
                 ? topologyName(model.systemParams.topology).str()
                 : collectiveAlgorithmName(
                       model.systemParams.collectiveAlgorithm)
                       .str();
    if (decl.socketInt)
      return std::to_string(model.socketParams.*decl.socketInt);
    if (decl.systemInt)
      return std::to_string(model.systemParams.*decl.systemInt);
    double v = decl.socketReal ? model.socketParams.*decl.socketReal
                               : model.systemParams.*decl.systemReal;
    return shortestText(v);
  }

private:
  static std::string applyChoice(ArchModel &model, const ParamDecl &decl,
                                 StringRef t) {
    StringRef key = decl.info.key;
    if (key == "topology") {
      if (t == "ring")
        model.systemParams.topology = Topology::Ring;
      else if (t == "fully_connected")
        model.systemParams.topology = Topology::FullyConnected;
      else if (t == "switch")
        model.systemParams.topology = Topology::Switch;
      else
        return "'system.topology' must be one of ring, fully_connected, "
               "switch; got '" +
               t.str() + "'";
    } else if (key == "collective_algorithm") {
      std::optional<CollectiveAlgorithm> algorithm =
          parseCollectiveAlgorithm(t);
      if (!algorithm)
        return "'system.collective_algorithm' must be one of " +
               collectiveAlgorithmNames(", ") + "; got '" + t.str() + "'";
      model.systemParams.collectiveAlgorithm = *algorithm;
    }
    return "";
  }

  YamlFile yaml;
  StringRef expectedName;
  ArchModel model;
};

std::optional<MemoryTier> parseTierName(StringRef name) {
  return enumByName<MemoryTier>(name, std::size(kAllTiers), tierName);
}

StringRef tierName(MemoryTier tier) {
  switch (tier) {
  case MemoryTier::SRAM:
    return "sram";
  case MemoryTier::HBM:
    return "hbm";
  case MemoryTier::DDR:
    return "ddr";
  }
  llvm_unreachable("unknown memory tier");
}

StringRef topologyName(Topology topology) {
  switch (topology) {
  case Topology::Ring:
    return "ring";
  case Topology::FullyConnected:
    return "fully_connected";
  case Topology::Switch:
    return "switch";
  }
  llvm_unreachable("unknown topology");
}

namespace {
const std::pair<CollectiveAlgorithm, const char *> kAlgorithmNames[] = {
    {CollectiveAlgorithm::Auto, "auto"},
    {CollectiveAlgorithm::Ring, "ring"},
    {CollectiveAlgorithm::BidirectionalRing, "bidirectional_ring"},
    {CollectiveAlgorithm::Ring2D, "ring_2d"},
    {CollectiveAlgorithm::RecursiveDoubling, "recursive_doubling"},
    {CollectiveAlgorithm::HalvingDoubling, "halving_doubling"},
    {CollectiveAlgorithm::Tree, "tree"},
    {CollectiveAlgorithm::OneShot, "one_shot"},
};
} // namespace

StringRef collectiveAlgorithmName(CollectiveAlgorithm algorithm) {
  for (const auto &[a, name] : kAlgorithmNames)
    if (a == algorithm)
      return name;
  llvm_unreachable("unknown collective algorithm");
}

std::optional<CollectiveAlgorithm> parseCollectiveAlgorithm(StringRef name) {
  for (const auto &[a, n] : kAlgorithmNames)
    if (name == n)
      return a;
  return std::nullopt;
}

std::string collectiveAlgorithmNames(StringRef separator) {
  std::string out;
  for (const auto &[a, name] : kAlgorithmNames) {
    if (!out.empty())
      out += separator.str();
    out += name;
  }
  return out;
}

llvm::Expected<ArchModel> ArchModel::parse(StringRef yamlText,
                                           StringRef bufferName) {
  return ArchModelParser(yamlText, bufferName).run();
}

llvm::Expected<ArchModel> ArchModel::loadFile(StringRef path) {
  auto buffer = readInput(path, kConfigFileLimit, "a chip file");
  if (!buffer)
    return llvm::createStringError("cannot read chip file '" + path +
                                   "': " + llvm::toString(buffer.takeError()));
  std::string stem = llvm::sys::path::stem(path).str();
  return ArchModelParser((*buffer)->getBuffer(), path, stem).run();
}

namespace {
/// A built-in chip, parsed once a process (its text never changes): a
/// sweep's points and the Python module's calls (children of one prepared
/// process) load the same chips again and again.
llvm::Expected<ArchModel> loadBuiltin(const EmbeddedFile &f) {
  static std::mutex mutex;
  static std::map<std::string, ArchModel> parsed;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = parsed.find(f.name);
  if (it == parsed.end()) {
    auto chip =
        ArchModelParser(f.contents,
                        "<builtin>/" + std::string(f.name) + ".yaml", f.name)
            .run();
    if (!chip)
      return chip.takeError();
    it = parsed.emplace(f.name, std::move(*chip)).first;
  }
  return it->second;
}
} // namespace

llvm::Expected<ArchModel> ArchModel::load(StringRef nameOrPath) {
  for (const EmbeddedFile &f : kBuiltinChips)
    if (nameOrPath == f.name)
      return loadBuiltin(f);
  if (nameOrPath.ends_with(".yaml") || nameOrPath.ends_with(".yml") ||
      nameOrPath.contains('/'))
    return loadFile(nameOrPath);
  std::string known;
  std::vector<std::string> names;
  for (const EmbeddedFile &f : kBuiltinChips) {
    known += (known.empty() ? "" : ", ") + std::string(f.name);
    names.push_back(f.name);
  }
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown chip '" + nameOrPath + "'" +
                                     didYouMean(nameOrPath, names) +
                                     " (built-in chips are " + known +
                                     ", or give a path to a .yaml file)");
}

std::vector<std::string> ArchModel::builtinNames() {
  std::vector<std::string> names;
  for (const EmbeddedFile &f : kBuiltinChips)
    names.push_back(f.name);
  return names;
}

llvm::ArrayRef<ArchParamInfo> ArchModel::paramInfos() {
  static const std::vector<ArchParamInfo> infos = [] {
    std::vector<ArchParamInfo> v;
    for (const ParamDecl &d : params())
      v.push_back(d.info);
    return v;
  }();
  return infos;
}

llvm::Expected<ArchModel> ArchModel::fromValues(
    StringRef name, StringRef description,
    llvm::ArrayRef<std::pair<std::string, std::string>> values,
    StringRef origin) {
  ArchModel model;
  model.name = name.str();
  model.description = description.str();
  model.origin = origin.str();
  std::string errors;
  auto error = [&](const llvm::Twine &msg) {
    errors +=
        (errors.empty() ? "" : "\n") + origin.str() + ": error: " + msg.str();
  };
  if (name.empty())
    error("the chip needs a name");
  llvm::StringSet<> seen;
  for (const auto &[key, text] : values) {
    const ParamDecl *decl = nullptr;
    for (const ParamDecl &d : params())
      if (d.info.dottedKey() == key)
        decl = &d;
    if (!decl) {
      error("unknown chip parameter '" + key + "'");
      continue;
    }
    if (!seen.insert(key).second) {
      error("chip parameter '" + key + "' given twice");
      continue;
    }
    std::string problem =
        ArchModelParser::applyValue(model, *decl, StringRef(text).trim());
    if (!problem.empty())
      error(problem);
  }
  for (const ParamDecl &d : params())
    if (!seen.contains(d.info.dottedKey()))
      error("missing chip parameter '" + d.info.dottedKey() + "' (" +
            d.info.description + ", " + d.info.unit + ")");
  if (!errors.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), errors);
  return model;
}

llvm::Expected<ArchModel>
ArchModel::withOverrides(llvm::ArrayRef<std::string> assignments,
                         StringRef origin) const {
  std::vector<std::pair<std::string, std::string>> values;
  for (const ParamDecl &d : params())
    values.emplace_back(d.info.dottedKey(),
                        ArchModelParser::valueText(*this, d));
  const std::map<std::string, std::string> before(values.begin(), values.end());
  std::string errors;
  auto error = [&](const llvm::Twine &msg) {
    errors +=
        (errors.empty() ? "" : "\n") + origin.str() + ": error: " + msg.str();
  };
  llvm::StringSet<> seen;
  for (const std::string &assignment : assignments) {
    std::pair<StringRef, StringRef> split = StringRef(assignment).split('=');
    StringRef key = split.first.trim(), text = split.second.trim();
    if (!StringRef(assignment).contains('=') || key.empty() || text.empty()) {
      error("expected KEY=VALUE with a chip key such as "
            "system.link_latency_ns=500, got '" +
            assignment + "'");
      continue;
    }
    auto it =
        llvm::find_if(values, [&](const auto &v) { return v.first == key; });
    if (it == values.end()) {
      // The closest declared key, by edit distance on the dotted name.
      llvm::SmallVector<StringRef> keys;
      for (const auto &v : values)
        keys.push_back(v.first);
      StringRef best = nearestName(key, keys, key.size() / 2);
      error("'" + key + "' is not a chip parameter" +
            (best.empty() ? std::string()
                          : "; did you mean '" + best.str() + "'?") +
            " (`snapflow list --components` names every parameter)");
      continue;
    }
    if (!seen.insert(key).second) {
      error("'" + key + "' is set twice");
      continue;
    }
    it->second = text.str();
  }
  if (!errors.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), errors);
  auto model = fromValues(name, description, values, origin);
  if (!model)
    return model.takeError();
  model->origin = this->origin;
  model->sources = sources;
  for (const std::string &assignment : assignments) {
    StringRef key = StringRef(assignment).split('=').first.trim();
    model->sources[key.str()] = ("what-if: set by " + origin + "; " +
                                 this->name + " has " + before.at(key.str()))
                                    .str();
  }
  return std::move(*model);
}

std::string ArchModel::getValueText(const ArchParamInfo &param) const {
  for (const ParamDecl &d : params())
    if (StringRef(d.info.section) == param.section &&
        StringRef(d.info.key) == param.key)
      return ArchModelParser::valueText(*this, d);
  llvm_unreachable("not a declared chip parameter");
}

std::vector<std::string> ArchModel::differences(const ArchModel &other) const {
  std::vector<std::string> out;
  for (const ParamDecl &d : params()) {
    std::string mine = ArchModelParser::valueText(*this, d);
    std::string theirs = ArchModelParser::valueText(other, d);
    if (mine != theirs)
      out.push_back(d.info.dottedKey() + " " + mine + " vs " + theirs);
  }
  return out;
}

std::string ArchModel::fingerprint() const {
  // FNV-1a over "key=value\n" of every parameter in declaration order.
  uint64_t h = 14695981039346656037ull;
  for (const ParamDecl &d : params())
    for (char c : d.info.dottedKey() + "=" +
                      ArchModelParser::valueText(*this, d) + "\n") {
      h ^= static_cast<unsigned char>(c);
      h *= 1099511628211ull;
    }
  return llvm::formatv("{0:x-16}", h).str();
}

StringRef ArchModel::getSource(StringRef dottedKey) const {
  auto it = sources.find(dottedKey.str());
  return it == sources.end() ? StringRef() : StringRef(it->second);
}

int64_t ArchModel::tierBytesPerSocket(MemoryTier tier) const {
  switch (tier) {
  case MemoryTier::SRAM:
    return socketParams.pmuCount * socketParams.sramBytesPerPmu;
  case MemoryTier::HBM:
    return socketParams.hbmBytes;
  case MemoryTier::DDR:
    return socketParams.ddrBytes;
  }
  llvm_unreachable("unknown memory tier");
}

double ArchModel::tierBytesPerS(MemoryTier tier) const {
  switch (tier) {
  case MemoryTier::SRAM:
    return static_cast<double>(socketParams.pmuCount) *
           static_cast<double>(socketParams.pmuBytesPerCycle) *
           socketParams.clockHz;
  case MemoryTier::HBM:
    return socketParams.hbmBytesPerS;
  case MemoryTier::DDR:
    return socketParams.ddrBytesPerS;
  }
  llvm_unreachable("unknown memory tier");
}

double ArchModel::peakSystolicFlopsPerS() const {
  return static_cast<double>(socketParams.pcuCount) *
         static_cast<double>(socketParams.pcuSystolicFlopsPerCycle) *
         socketParams.clockHz;
}

double ArchModel::systolicUtilization(double rows) const {
  if (rows <= 0)
    return 1.0;
  // An output-stationary array of lanes x stages computes a tile of as many
  // outputs at a time; the GEMM's rows lie along either side (its columns,
  // weights' outputs or keys, fill the other), so the array is used at
  // rows / (the rows rounded up to whole tiles), the better of the two.
  double lanes = static_cast<double>(socketParams.pcuLanes);
  double stages =
      std::max(1.0, static_cast<double>(socketParams.pcuSystolicFlopsPerCycle) /
                        2.0 / lanes);
  auto along = [&](double side) {
    return rows / (std::ceil(rows / side) * side);
  };
  return std::max(along(lanes), along(stages));
}

double ArchModel::peakSimdFlopsPerS() const {
  return static_cast<double>(socketParams.pcuCount) *
         static_cast<double>(socketParams.pcuSimdFlopsPerCycle) *
         socketParams.clockHz;
}

} // namespace arch
} // namespace snapflow
