//===- Passes.td - chip-aware mapping passes --------------------*- tablegen -*-===//
//
// Passes that decide how the llm program uses one chip: which chip (recorded
// once, in the module's df.target), tile shapes and PCU/PMU counts per op, and
// which memory tier holds each tensor. They read the chip from the module and
// record their decisions as typed df attributes, which --lower-to-df turns into
// the df program.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_MAPPING_PASSES
#define SNAPFLOW_MAPPING_PASSES

include "mlir/Pass/PassBase.td"

def AssignTarget : Pass<"assign-target", "::mlir::ModuleOp"> {
  let summary = "Record the chip the module is compiled for (df.target)";
  let description = [{
    Loads `chip` (a built-in name or a chip YAML path) and records every one
    of its parameters in the module's `df.target`; every later pass and the
    simulator read the chip from there and nowhere else, so a program always
    simulates on the chip it was compiled for. A module that already has a
    `df.target` keeps it when `chip` has the same parameters; a different
    chip is an error that names both and the parameters that differ.
    `set` changes parameters of the chip for a what-if (`KEY=VALUE`, comma
    separated, each checked by its key's rule); the target keeps the chip's
    name and records the changed values, so its fingerprint differs.
  }];
  let options = [
    Option<"chip", "chip", "std::string", "",
           "Built-in chip name or path to a chip YAML file">,
    Option<"set", "set", "std::string", "",
           "Chip parameters to change, KEY=VALUE separated by commas">,
  ];
  let dependentDialects = ["::snapflow::df::DFDialect"];
}

def RecordProvenance : Pass<"record-provenance", "::mlir::ModuleOp"> {
  let summary = "Record what compiled the module (df.provenance)";
  let description = [{
    Sets the module's `df.provenance` to `{snapflow = VERSION, pipeline =
    OPTIONS}`: the version and source revision of the snapflow that ran the
    pipeline, and every option of the pipeline as
    `snapflow-opt --snapflow-pipeline` takes them, so a program read back
    from a file can say what made it. With the model's `llm.model` and
    `llm.model_fingerprint`, the `df.target` and kv-compress's `kv.policy`
    and `kv.format`, it is what reports, traces and CSV rows record.
  }];
  let options = [
    Option<"pipeline", "pipeline", "std::string", "",
           "The pipeline's options, recorded as given">,
  ];
  let dependentDialects = ["::snapflow::df::DFDialect"];
}

def TileAndMap : Pass<"tile-and-map", "::mlir::ModuleOp"> {
  let summary = "Choose tiles, PCUs, PMUs and AGCUs for every op of each section";
  let description = [{
    A section is one chip configuration: each `llm.repeat` body, and each run
    of ops between loops. Within a section every compute op becomes a
    pipeline stage; this pass decides, from the module's `df.target`, each
    stage's `#df.stage`:
    - `kind`: gemm (systolic) or elementwise, norm, softmax, reduce, topk,
      gather (SIMD);
    - `tile_bytes` and `tiles`: the weights and KV a stage streams are cut
      into at most `max-tiles` tiles (at least 64 KiB each);
    - `pcus`: the section's PCUs shared in proportion to each stage's compute
      time, so pipeline stages are balanced by work (at least one);
    - `pmus`: enough PMUs for two tiles (double buffering) plus one per
      stream end;
    - `agcus`: the AGCU lanes a stage's loads may use. The AGCUs are a pool
      the section's loads share in time (the simulator arbitrates it): a
      memory-bound stage (FLOPs per streamed byte below the chip's ridge
      point) may use all of them, a compute-bound one its share by bytes.
    Every op gets `df.section`, its section's index; the function gets
    `df.sections`, a `#df.section` per section with the PCUs and PMUs it
    uses and the AGCU lanes of its busiest stage. A section that needs more
    PCUs or PMUs than the chip has is `oversubscribed` by that ratio (its
    stages share the units in time; the simulator slows them by it).
  }];
  let options = [
    Option<"maxTiles", "max-tiles", "int64_t", "64",
           "Most weight tiles per op (bounds simulator events)">,
  ];
  let dependentDialects = ["::snapflow::llm::LLMDialect",
                           "::snapflow::df::DFDialect"];
}

def PlanMemory : Pass<"plan-memory", "::mlir::ModuleOp"> {
  let summary = "Place every tensor in SRAM, HBM or DDR and check it fits";
  let description = [{
    For each phase function, on one socket of the module's `df.target`:
    - weights (`llm.param`, once per layer of an `llm.repeat`) and the KV
      cache are persistent; activations live from their definition to their
      last use (a repeated body reuses its buffers every iteration);
    - activations go to SRAM while their peak live size fits the PMUs, the
      largest are spilled to HBM otherwise;
    - weights and KV go to HBM; with `allow-ddr` the least-read weights
      (routed experts first) are moved to DDR when HBM is full (the KV cache
      stays in HBM).
    The op defining each tensor gets `#df.placement` (its tier, and for
    activations the live range in op positions); the function gets
    `#df.memory_plan` with bytes per kind and tier and `max_batch`, the
    largest batch whose weights + KV + activations fit. When the program does
    not fit, the plan's diagnostic (and with `require-fit` the error) names
    the phase, batch, context, KV policy, tier, need and capacity.
  }];
  let options = [
    Option<"allowDdr", "allow-ddr", "bool", "false",
           "Let weights overflow from HBM into DDR">,
    Option<"requireFit", "require-fit", "bool", "true",
           "Fail when the program does not fit (else record fits = false)">,
  ];
  let dependentDialects = ["::snapflow::llm::LLMDialect",
                           "::snapflow::df::DFDialect"];
}

#endif // SNAPFLOW_MAPPING_PASSES
