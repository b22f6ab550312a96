//===- ArchModel.h - The one description of the chip ----------------------===//
//
// ArchModel is the single C++ model of an SN40L-like chip that both the
// compiler (tiling, memory planning) and the simulator (component parameters)
// read. It is built from a versioned YAML file in which every key carries its
// unit and every value carries its source ("published: ...", "inferred: ...",
// "test: ..."). Every parameter is declared once in a table (ArchModel.cpp)
// with its unit, rule and description; the loader, `snapflow list` and
// docs/ArchConfig.md follow it.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_ARCH_ARCHMODEL_H
#define SNAPFLOW_ARCH_ARCHMODEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace snapflow {
namespace arch {

/// The memory tiers of a socket, fastest first.
enum class MemoryTier { SRAM, HBM, DDR };
constexpr MemoryTier kAllTiers[] = {MemoryTier::SRAM, MemoryTier::HBM,
                                    MemoryTier::DDR};
/// Lower-case tier name as used in keys and reports ("sram", "hbm", "ddr").
llvm::StringRef tierName(MemoryTier tier);
/// The tier named `name` ("sram", "hbm", "ddr"), if any.
std::optional<MemoryTier> parseTierName(llvm::StringRef name);

/// How sockets are wired to each other.
enum class Topology { Ring, FullyConnected, Switch };
llvm::StringRef topologyName(Topology topology);

/// Algorithm used for all-reduce / all-gather / all-to-all across sockets
/// (schedules and costs: Collectives.h). Auto picks the cheapest per message.
enum class CollectiveAlgorithm {
  Auto,
  Ring,
  BidirectionalRing,
  Ring2D,
  RecursiveDoubling,
  HalvingDoubling,
  Tree,
  OneShot,
};
constexpr int kNumCollectiveAlgorithms =
    static_cast<int>(CollectiveAlgorithm::OneShot) + 1;
llvm::StringRef collectiveAlgorithmName(CollectiveAlgorithm algorithm);
/// The algorithm named `name` ("auto", "ring", ..., "one_shot"), if any.
std::optional<CollectiveAlgorithm>
parseCollectiveAlgorithm(llvm::StringRef name);
/// Every algorithm name, "auto" first, joined by `separator`.
std::string collectiveAlgorithmNames(llvm::StringRef separator);

/// Parameters of one socket (one SN40L RDU: two dies, PCUs, PMUs, HBM, DDR).
struct SocketParams {
  double clockHz = 0;
  int64_t pcuCount = 0;
  int64_t pcuSystolicFlopsPerCycle = 0;
  int64_t pcuLanes = 0;
  int64_t pcuSimdFlopsPerCycle = 0;
  int64_t pcuPipelineFillCycles = 0;
  int64_t pmuCount = 0;
  int64_t sramBytesPerPmu = 0;
  int64_t pmuBanks = 0;
  int64_t pmuBytesPerCycle = 0;
  int64_t agcuCount = 0;
  int64_t agcuBytesPerCycle = 0;
  int64_t nocStreamBytesPerCycle = 0;
  int64_t nocHopLatencyCycles = 0;
  int64_t meshRows = 0;
  int64_t meshCols = 0;
  int64_t reconfigCycles = 0;
  int64_t kernelLaunchCycles = 0;
  int64_t hbmBytes = 0;
  double hbmBytesPerS = 0;
  int64_t hbmLatencyCycles = 0;
  int64_t hbmChannels = 0;
  int64_t ddrBytes = 0;
  double ddrBytesPerS = 0;
  int64_t ddrLatencyCycles = 0;
  int64_t ddrChannels = 0;
  // Energy per action (docs/Energy.md): charged on the statistics the
  // components keep, picojoules per FLOP or per bit moved.
  double pcuSystolicPjPerFlop = 0;
  double pcuSimdPjPerFlop = 0;
  double sramReadPjPerBit = 0;
  double sramWritePjPerBit = 0;
  double nocPjPerBitHop = 0;
  double hbmPjPerBit = 0;
  double ddrPjPerBit = 0;
  // Static power, drawn whether or not anything runs (watts per socket).
  double computeStaticW = 0;
  double hbmStaticW = 0;
  double ddrStaticW = 0;
};

/// Parameters of the multi-socket system and its peer network.
struct SystemParams {
  int64_t sockets = 0;
  Topology topology = Topology::Ring;
  int64_t linksPerSocket = 0;
  double linkBytesPerS = 0;
  double linkLatencyNs = 0;
  CollectiveAlgorithm collectiveAlgorithm = CollectiveAlgorithm::Ring;
  double collectiveLaunchNs = 0;
  /// The node's ports to other nodes of a cluster (serving's KV transfers
  /// between prefill and decode nodes, Sim/Serving/Cluster.h).
  int64_t nodeLinks = 0;
  double nodeLinkBytesPerS = 0;
  double nodeLinkLatencyNs = 0;
  /// Energy per bit over a peer link and over a node port.
  double linkPjPerBit = 0;
  double nodeLinkPjPerBit = 0;
  /// The node's own draw beside its sockets (host, switches, NICs), and
  /// the factor from the components' power to the wall's (fans, supply
  /// and regulator losses).
  double hostW = 0;
  double wallPowerFactor = 1;
};

/// One declared parameter of the chip file: where it lives, its unit and its
/// rule.
struct ArchParamInfo {
  /// How the value is written: an integer, a real number, or one of a few
  /// names (topology, algorithm).
  enum class Kind { Integer, Real, Choice };
  const char *section; ///< "socket" or "system"
  const char *key;     ///< snake_case key with the unit in its name
  const char *unit;    ///< unit, for docs and listings
  const char *rule;    ///< validity rule in words ("> 0", ">= 0", "one of ...")
  const char *description;
  Kind kind = Kind::Integer;

  /// "socket.clock_hz".
  std::string dottedKey() const { return std::string(section) + "." + key; }
};

/// The chip model. Immutable once loaded.
class ArchModel {
public:
  /// The schema version this build reads (`snapflow_arch_version`).
  static constexpr int64_t kSchemaVersion = 1;

  /// Parses chip YAML text. `bufferName` is used in file:line:col diagnostics.
  static llvm::Expected<ArchModel> parse(llvm::StringRef yamlText,
                                         llvm::StringRef bufferName);
  /// Reads and parses a chip file from disk.
  static llvm::Expected<ArchModel> loadFile(llvm::StringRef path);
  /// Resolves a built-in chip name (e.g. "sn40l-16") or else a path to a file.
  static llvm::Expected<ArchModel> load(llvm::StringRef nameOrPath);
  /// Names of the chips built into this binary (from arch/chips/*.yaml).
  static std::vector<std::string> builtinNames();
  /// A chip from one text value per declared parameter, keyed "socket.clock_hz"
  /// (as getValueText writes them): every key required once, none unknown,
  /// each checked against its rule like a chip file's. `origin` names the
  /// source in errors (e.g. the IR the values were read from). Sources are
  /// not carried: they document a file, not a value.
  static llvm::Expected<ArchModel>
  fromValues(llvm::StringRef name, llvm::StringRef description,
             llvm::ArrayRef<std::pair<std::string, std::string>> values,
             llvm::StringRef origin);
  /// This chip with some parameters changed, for what-if questions:
  /// `assignments` are "section.key=value" texts (as `--set` takes them),
  /// each checked against its rule like a chip file's value. The name stays;
  /// the fingerprint changes with any changed value, and each changed key's
  /// source says it was set by `origin`. Errors name `origin`, the key (with
  /// the closest declared key when it is unknown) and the rule.
  llvm::Expected<ArchModel>
  withOverrides(llvm::ArrayRef<std::string> assignments,
                llvm::StringRef origin) const;
  /// Every parameter the schema declares, in file order.
  static llvm::ArrayRef<ArchParamInfo> paramInfos();

  const std::string &getName() const { return name; }
  const std::string &getDescription() const { return description; }
  /// Where the chip came from: a file path or "<builtin>/name.yaml".
  const std::string &getOrigin() const { return origin; }
  const SocketParams &socket() const { return socketParams; }
  const SystemParams &system() const { return systemParams; }
  /// The source text of a parameter ("published: ..."), keyed
  /// "socket.clock_hz".
  llvm::StringRef getSource(llvm::StringRef dottedKey) const;
  /// The value of a declared parameter as canonical text: an integer in
  /// decimal, a real number in the shortest form that reads back exactly, a
  /// choice by its name. fromValues reads these back to the same chip.
  std::string getValueText(const ArchParamInfo &param) const;
  /// Every declared parameter whose value differs from `other`'s, one line
  /// each: "socket.hbm_bytes_per_s 1.6e+12 vs 8e+11". Names are not compared.
  std::vector<std::string> differences(const ArchModel &other) const;
  /// A stable hash of every parameter value (not the name, description or
  /// sources), as 16 hex digits: equal for chips that simulate the same.
  std::string fingerprint() const;

  // Derived quantities, so no caller repeats the arithmetic.
  int64_t numSockets() const { return systemParams.sockets; }
  /// Bytes of a tier on one socket.
  int64_t tierBytesPerSocket(MemoryTier tier) const;
  /// Sustained bandwidth of a tier on one socket (SRAM: all PMUs reading).
  double tierBytesPerS(MemoryTier tier) const;
  /// Peak BF16 FLOP/s of one socket in systolic mode.
  double peakSystolicFlopsPerS() const;
  /// The share of the systolic peak a GEMM of `rows` rows (activations
  /// sharing each weight) reaches: the array is filled in whole tiles of
  /// pcu_lanes x stages, the rows along the side that wastes least; 1 for
  /// rows <= 0 (unknown).
  double systolicUtilization(double rows) const;
  /// Peak FLOP/s of one socket in SIMD mode.
  double peakSimdFlopsPerS() const;
  /// Mean distance in switch hops between two units of the mesh,
  /// (rows + cols) / 3: what a tile's crossing takes (time and energy).
  double meanMeshHops() const {
    return double(socketParams.meshRows + socketParams.meshCols) / 3.0;
  }
  /// Static power of one socket: compute dies, HBM and DDR (watts).
  double socketStaticW() const {
    return socketParams.computeStaticW + socketParams.hbmStaticW +
           socketParams.ddrStaticW;
  }
  /// Seconds per cycle of the socket clock.
  double secondsPerCycle() const { return 1.0 / socketParams.clockHz; }

private:
  std::string name, description, origin;
  SocketParams socketParams;
  SystemParams systemParams;
  std::map<std::string, std::string> sources;

  friend class ArchModelParser;
};

} // namespace arch
} // namespace snapflow

#endif // SNAPFLOW_ARCH_ARCHMODEL_H
