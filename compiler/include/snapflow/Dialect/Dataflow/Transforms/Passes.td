//===- Passes.td - df transformation passes ---------------------*- tablegen -*-===//
//
// Passes over df programs, after lower-to-df: SRAM occupancy per section,
// the collectives' algorithms, pipelined kernel loops.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_DATAFLOW_TRANSFORMS_PASSES
#define SNAPFLOW_DIALECT_DATAFLOW_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def PlanSram : Pass<"plan-sram", "::mlir::ModuleOp"> {
  let summary = "Fit what each df section holds at once into SRAM";
  let description = [{
    plan-memory places activations by their live ranges before there are
    streams. Once lower-to-df has built the sections, this pass counts what
    each holds while it runs (all its stages run together): every stream
    buffer at its depth, and every SRAM `df.tensor` whose live range (the
    first to the last section loading or storing it) spans it. While a
    section holds more than a socket's SRAM, the largest SRAM tensor live
    there moves to HBM. A section whose stream buffers alone exceed SRAM
    cannot run: the memory plan's diagnostic says so (with `require-fit`,
    an error), as it does when the moved tensors overflow HBM. The plan's
    `sram_bytes` becomes the busiest section's occupancy and `hbm_bytes`
    grows by what moved. The simulator samples the same occupancy.
  }];
  let options = [
    Option<"requireFit", "require-fit", "bool", "true",
           "Fail when a section cannot fit (else record it in the plan)">,
  ];
  let dependentDialects = ["::snapflow::df::DFDialect"];
}

def ChooseCollectives : Pass<"choose-collectives", "::mlir::ModuleOp"> {
  let summary = "Record the algorithm of every df.collective";
  let description = [{
    Each `df.collective` without a `via` gets the algorithm the module's
    `df.target` gives for its message (its input's tiles x tile bytes over
    `group_size` sockets): the chip's `collective_algorithm`, or with `auto`
    the cheapest by the cost model of arch/Collectives.h (hops x link
    latency + launch + bytes on the busiest link / link bandwidth, on the
    chip's topology and links per socket), as NCCL's tuner picks per
    message. A `via` already written is kept.
  }];
  let dependentDialects = ["::snapflow::df::DFDialect"];
}

def PipelineLoops : Pass<"pipeline-loops", "::mlir::ModuleOp"> {
  let summary = "Run kernel loops as pipelined outer loops, prefetching into spare SRAM";
  let description = [{
    Every `df.section` with `repeat` > 1 becomes `pipelined`: iteration
    i+1's nodes start once they have finished iteration i and their inputs
    exist, so the next layer's weight and KV loads stream while this layer's
    tail (its collectives, its last stages) completes. What a load may run
    ahead is its stream's depth: each load from HBM or DDR gets its
    iteration's tiles on top of its depth, scaled down evenly when the SRAM
    the section leaves (beyond its stream buffers and live SRAM tensors,
    as plan-sram counts them) cannot hold them all. The most any section
    prefetches is recorded as the memory plan's `prefetch_bytes`, and its
    `sram_bytes` becomes the busiest section's occupancy with prefetch. With `overlap=false` the pass changes nothing: layers run
    one after another.
  }];
  let options = [
    Option<"overlap", "overlap", "bool", "true",
           "Overlap consecutive loop iterations">,
  ];
  let dependentDialects = ["::snapflow::df::DFDialect"];
}

#endif // SNAPFLOW_DIALECT_DATAFLOW_TRANSFORMS_PASSES
