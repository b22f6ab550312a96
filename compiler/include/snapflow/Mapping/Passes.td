//===- Passes.td - chip-aware mapping passes --------------------*- tablegen -*-===//
//
// Passes that decide how the llm program uses one chip: tile shapes and PCU/PMU
// counts per op, and which memory tier holds each tensor. They read the chip
// from its ArchModel and record their decisions as attributes, which
// --lower-to-df turns into the df program.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_MAPPING_PASSES
#define SNAPFLOW_MAPPING_PASSES

include "mlir/Pass/PassBase.td"

def TileAndMap : Pass<"tile-and-map", "::mlir::ModuleOp"> {
  let summary = "Choose tiles, PCUs, PMUs and AGCUs for every op of each section";
  let description = [{
    A section is one chip configuration: each `llm.repeat` body, and each run
    of ops between loops. Within a section every compute op becomes a
    pipeline stage; this pass decides, from the chip's ArchModel:
    - `df.kind`: gemm (systolic) or elementwise, norm, softmax, reduce, topk,
      gather (SIMD);
    - `df.tile_bytes` and `df.tiles`: the weights and KV a stage streams are
      cut into at most `max-tiles` tiles (at least 64 KiB each);
    - `df.pcus`: the section's PCUs shared in proportion to each stage's
      compute time, so pipeline stages are balanced by work (at least one);
    - `df.pmus`: enough PMUs for two tiles (double buffering) plus one per
      stream end;
    - `df.agcus`: the AGCU lanes a stage's loads may use. The AGCUs are a
      pool the section's loads share in time (the simulator arbitrates it):
      a memory-bound stage (FLOPs per streamed byte below the chip's ridge
      point) may use all of them, a compute-bound one its share by bytes.
    Ops get `df.section`, the section's index; the enclosing region gets
    `df.sections` with the PCUs and PMUs each section uses and the AGCU lanes
    of its busiest stage. A section that needs more PCUs or PMUs than the
    chip has gets an
    `oversubscribed` ratio in its entry (its stages share the units in time;
    the simulator slows them by that ratio).
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sn40l-16\"",
           "Built-in chip name or path to a chip YAML file">,
    Option<"maxTiles", "max-tiles", "int64_t", "64",
           "Most weight tiles per op (bounds simulator events)">,
  ];
  let dependentDialects = ["::snapflow::llm::LLMDialect"];
}

def PlanMemory : Pass<"plan-memory", "::mlir::ModuleOp"> {
  let summary = "Place every tensor in SRAM, HBM or DDR and check it fits";
  let description = [{
    For each phase function, on one socket of `chip`:
    - weights (`llm.param`, once per layer of an `llm.repeat`) and the KV
      cache are persistent; activations live from their definition to their
      last use (a repeated body reuses its buffers every iteration);
    - activations go to SRAM while their peak live size fits the PMUs, the
      largest are spilled to HBM otherwise;
    - weights and KV go to HBM; with `allow-ddr` the least-read weights
      (routed experts first) are moved to DDR when HBM is full (the KV cache
      stays in HBM).
    Each tensor gets `df.tier` (and activations `df.live = [first, last]` op
    positions); the function gets `df.memory_plan` with bytes per tier, per
    kind, `fits`, and `max_batch`, the largest batch whose weights + KV +
    activations fit. When the program does not fit, the error names the phase,
    batch, context, KV policy, tier, need and capacity.
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sn40l-16\"",
           "Built-in chip name or path to a chip YAML file">,
    Option<"allowDdr", "allow-ddr", "bool", "false",
           "Let weights overflow from HBM into DDR">,
    Option<"requireFit", "require-fit", "bool", "true",
           "Fail when the program does not fit (else record fits = false)">,
  ];
  let dependentDialects = ["::snapflow::llm::LLMDialect"];
}

#endif // SNAPFLOW_MAPPING_PASSES
