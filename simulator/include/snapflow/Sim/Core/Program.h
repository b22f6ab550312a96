//===- Program.h - The df program as plain C++ -----------------*- C++ -*-===//
//
// What the simulator runs: the df program's sections, nodes and streams as
// plain structs, with no MLIR types. The Loader (the only MLIR-aware part of
// the simulator) fills them from df IR text.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_CORE_PROGRAM_H
#define SNAPFLOW_SIM_CORE_PROGRAM_H

#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Arch/Collectives.h"
#include "snapflow/Arch/OpKind.h"
#include "snapflow/Arch/Phase.h"
#include "snapflow/Arch/StageKind.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace snapflow {
namespace sim {

// The chip model's enums, one per concept for compiler and simulator.
using arch::CollectiveKind;
using arch::StageKind;
enum class NodeKind { Load, Store, Stage, Buffer, Collective };
constexpr int kNumNodeKinds = static_cast<int>(NodeKind::Collective) + 1;

/// A declared tensor of the program (weights, KV cache, activation homes).
struct Tensor {
  std::string name;
  int64_t bytes = 0;
  arch::MemoryTier tier = arch::MemoryTier::HBM;
  bool isKV = false; ///< the KV cache (df.tensor ... kv_cache)
};

/// A bounded FIFO of tiles from one producer to its consumers.
struct Stream {
  int64_t tileBytes = 0;
  int64_t depth = 1;
  int64_t tiles = 0; ///< tiles carried per section run
  int producer = -1;
  std::vector<int> consumers; ///< node indices
  std::string label;          ///< for diagnostics ("%3 of df.stage gemm")
};

/// One operation of a section.
struct Node {
  NodeKind kind = NodeKind::Stage;
  std::string label; ///< "df.stage gemm #3" etc., with its source line
  /// The model operator it works for (df `for KIND`; a collective's kind;
  /// Other when untagged): the row of the run's profile it is charged to.
  arch::OpKind opKind = arch::OpKind::Other;
  // Load / store.
  int tensor = -1;
  int64_t tiles = 0;
  /// Of a load's or stage's tiles, those on earlier chunks' tokens in a
  /// chunked prefill (df `prefix_tiles`): chunk j of n runs
  /// tiles - prefixTiles + ceil(prefixTiles j / (n - 1)).
  int64_t agcus = 1;
  // Stage.
  StageKind stageKind = StageKind::Gemm;
  int64_t prefixTiles = 0;
  /// Runs in the last chunk of a chunked prefill only (df `last_chunk`: the
  /// end-of-prefill selection); a stage takes its inputs and emits nothing
  /// in the others.
  bool lastChunk = false;
  int64_t pcus = 1;
  int64_t flopsPerTile = 0;
  /// A gemm's rows (df `rows`: activations sharing each weight), which set
  /// how much of the systolic arrays it fills; 0 when unknown (full).
  int64_t gemmRows = 0;
  std::vector<int> inputs, outputs; ///< stream indices
  std::vector<int64_t> outputTiles; ///< per output stream
  // Buffer.
  int64_t pmus = 1, bytes = 0, reads = 1;
  // Collective.
  CollectiveKind collective = CollectiveKind::AllReduce;
  int64_t group = 1;
  /// The compiler's choice (df.collective's `algorithm`); Auto when the IR
  /// names none, resolved on the simulated chip.
  arch::CollectiveAlgorithm algorithm = arch::CollectiveAlgorithm::Auto;
};

/// One chip configuration, run `repeat` times.
struct Section {
  std::string name;
  int64_t repeat = 1;
  /// A kernel loop run as a pipelined outer loop (df.section `pipelined`):
  /// iteration i+1's nodes start as soon as their own iteration i is done
  /// and their inputs exist, so its loads overlap iteration i's tail.
  bool pipelined = false;
  /// The layer loop of several kernels it is one of (df.section `in`;
  /// empty: none): consecutive sections of one loop run in turn, `repeat`
  /// times.
  std::string loop;
  std::vector<Node> nodes;
  std::vector<Stream> streams;

  /// Tiles of every node and stream in chunk `chunk` of `chunks` (all of
  /// them in the last chunk, as the df program states them). Without
  /// `selection`, the end-of-prefill selection (Node::lastChunk) is idle in
  /// the last chunk too.
  struct ChunkTiles {
    std::vector<int64_t> nodes, streams;
  };
  ChunkTiles tilesInChunk(int64_t chunk, int64_t chunks,
                          bool selection = true) const;
};

/// A node's tiles in chunk `chunk` of `chunks`.
int64_t tilesInChunk(int64_t tiles, int64_t prefixTiles, int64_t chunk,
                     int64_t chunks);

/// The keys of Program::provenance, each a report key (empty there when the
/// program has none).
constexpr const char *kProvenanceKeys[] = {
    "compile_options", "compiled_by",       "kv",           "kv_format",
    "model",           "model_fingerprint", "weights_dtype"};

/// A whole program for one socket of a TP group of `tp` sockets.
struct Program {
  std::string name; ///< its symbol: "decode", "prefill", or a hand-written one
  /// The chip it was mapped for: the module's df.target, every parameter.
  arch::ArchModel target;
  /// The phase its workload runs; none for a hand-written program without
  /// one.
  std::optional<arch::Phase> phase;
  /// What reports and traces call it: its phase, else its name.
  std::string phaseLabel() const {
    return phase ? arch::phaseName(*phase).str() : name;
  }
  int64_t tp = 1;
  int64_t batch = 1;
  int64_t tokens = 0;       ///< context (decode) or prompt (prefill) tokens
  double tokensPerStep = 1; ///< accepted tokens per sequence per step (MTP)
  /// A chunked prefill: one step runs every section once per chunk, the
  /// nodes' prefix tiles growing with the chunk (llm.workload `chunks`).
  int64_t chunks = 1;
  std::vector<Tensor> tensors;
  std::vector<Section> sections;
  // The compiler's memory plan, per socket (0 when absent).
  int64_t weightBytes = 0, kvBytes = 0, activationBytes = 0;
  int64_t prefetchBytes = 0; ///< SRAM of the pipelined loops' prefetch
  /// Of the KV, the sliding and chunked layers' rings (`kv_window`), which
  /// no policy compresses; 0 for none.
  int64_t kvWindowBytes = 0;
  int64_t maxBatch = 0;
  /// What the KV policy and format add per step per socket (df.kv_upkeep;
  /// 0 when absent): FLOPs, and bytes read and written.
  int64_t kvUpkeepFlops = 0, kvUpkeepBytes = 0;
  /// What made the program, from the module's `df.provenance`
  /// dictionary: snapflow's version, the model and a hash of its config,
  /// the KV policy and format as resolved, and every compile option that
  /// changes a result, as (key, value) text in key order. Reports, traces
  /// and CSVs repeat it. Empty for a hand-written program.
  std::vector<std::pair<std::string, std::string>> provenance;

  /// Bytes of declared tensors in `tier`.
  int64_t tensorBytes(arch::MemoryTier tier) const;
  /// Whether a node is part of the end-of-prefill selection (lastChunk).
  bool hasSelection() const;
};

} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_CORE_PROGRAM_H
