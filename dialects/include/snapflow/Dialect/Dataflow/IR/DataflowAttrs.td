//===- DataflowAttrs.td - The compiler-simulator contract -------*- tablegen -*-===//
//
// Everything the mapping passes decide and the Loader reads is one of these
// typed attributes, verified where it is parsed or built: the target chip
// (every parameter), how an op runs as a pipeline stage, each section's
// summary, where a tensor lives, and a phase's memory plan. The dialect
// declares which discardable `df.*` attributes exist (DataflowDialect.td);
// any other `df.*` name is an error.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWATTRS
#define SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWATTRS

include "snapflow/Dialect/SnapflowBase.td"
include "snapflow/Dialect/Dataflow/IR/DataflowDialect.td"
include "mlir/IR/AttrTypeBase.td"

class DF_Attr<string name, string attrMnemonic> : AttrDef<DF_Dialect, name> {
  let mnemonic = attrMnemonic;
}

/// The memory tier: `arch::MemoryTier`, the one tier enum of the chip model,
/// compiler and simulator, spelled `sram`, `hbm` or `ddr`.
def DF_TierParameter : AttrParameter<"::snapflow::arch::MemoryTier",
                                     "memory tier (sram, hbm or ddr)"> {
  let parser = "::snapflow::df::parseTierKeyword($_parser)";
  let printer = "$_printer << ::snapflow::arch::tierName($_self)";
}

/// The model operator a node works for: `arch::OpKind`, the one operator
/// enum of compiler, simulator and reports, spelled `qkv_projection`,
/// `routed_experts`, ... (arch/OpKind.h).
def DF_OpKindParameter : AttrParameter<"::snapflow::arch::OpKind",
                                       "model operator kind"> {
  let parser = "::snapflow::df::parseOpKindKeyword($_parser)";
  let printer = "$_printer << ::snapflow::arch::opKindName($_self)";
}

/// What a stage computes: `arch::StageKind` (arch/StageKind.h), spelled
/// `gemm`, `elementwise`, `reduce`, `softmax`, `norm`, `topk`, `gather`.
def DF_StageKindParameter : AttrParameter<"::snapflow::arch::StageKind",
                                          "stage kind"> {
  let parser = "::snapflow::df::parseStageKindKeyword($_parser)";
  let printer = "$_printer << ::snapflow::arch::stageKindName($_self)";
}

/// A collective's kind: `arch::CollectiveKind` (arch/Collectives.h),
/// spelled `all_reduce`, `all_gather`, `all_to_all`.
def DF_CollectiveKindParameter
    : AttrParameter<"::snapflow::arch::CollectiveKind", "collective kind"> {
  let parser = "::snapflow::df::parseCollectiveKindKeyword($_parser)";
  let printer = "$_printer << ::snapflow::arch::collectiveKindName($_self)";
}

/// A collective's algorithm: `arch::CollectiveAlgorithm` (arch/ArchModel.h),
/// whose schedules and costs are in arch/Collectives.h; the IR records a
/// concrete one, never `auto`.
def DF_CollectiveAlgorithmParameter
    : AttrParameter<"::snapflow::arch::CollectiveAlgorithm",
                    "collective algorithm"> {
  let parser = "::snapflow::df::parseCollectiveAlgorithmKeyword($_parser)";
  let printer =
      "$_printer << ::snapflow::arch::collectiveAlgorithmName($_self)";
}

/// An attribute holding one value of an arch enum: `#df.stage_kind<gemm>`;
/// as an op's argument its accessor returns the enum and the op writes the
/// bare keyword (a custom<> directive of the same name). Parsed by the
/// parameter's function, so a wrong keyword gets one error naming the right
/// ones.
class DF_EnumAttr<string name, string attrMnemonic, AttrParameter param,
                  string summaryText>
    : DF_Attr<name, attrMnemonic> {
  let summary = summaryText;
  let parameters = (ins param:$value);
  let hasCustomAssemblyFormat = 1;
  let returnType = param.cppType;
  let convertFromStorage = "$_self.getValue()";
  let constBuilderCall =
      "::snapflow::df::" # name # "Attr::get($_builder.getContext(), $0)";
}

def DF_StageKindAttr : DF_EnumAttr<"StageKind", "stage_kind",
                                   DF_StageKindParameter,
                                   "what a stage computes">;
def DF_CollectiveKindAttr : DF_EnumAttr<"CollectiveKind", "collective_kind",
                                        DF_CollectiveKindParameter,
                                        "what a collective computes">;
def DF_CollectiveAlgorithmAttr
    : DF_EnumAttr<"CollectiveAlgorithm", "collective_algorithm",
                  DF_CollectiveAlgorithmParameter,
                  "how a collective moves data between the sockets">;

def DF_TargetAttr : DF_Attr<"Target", "target"> {
  let summary = "the chip a module is compiled for, with every parameter";
  let description = [{
    The one record of the target: every parameter of the chip's `ArchModel`
    (`arch/lib/Arch/ArchModel.cpp` declares them), as typed values keyed as
    in a chip file. The mapping passes, the Loader and the simulator read the
    chip from here, so a program simulates on exactly the chip it was
    compiled for, whatever file or name it came from. The verifier applies a
    chip file's rules. `#df.target<"tiny">` (a built-in chip's name alone) is
    read as that built-in chip's full parameter set; the printer always
    writes every parameter.

    Example: `#df.target<"tiny">`, or
    `#df.target<"my-chip", socket = {clock_hz = 1.0e+09 : f64, ...}, system = {sockets = 1 : i64, topology = "ring", ...}>`
  }];
  let parameters = (ins "::mlir::StringAttr":$name,
                        "::mlir::DictionaryAttr":$socket,
                        "::mlir::DictionaryAttr":$system);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The attribute holding every parameter of `chip`.
    static TargetAttr get(::mlir::MLIRContext *context,
                          const ::snapflow::arch::ArchModel &chip);
    /// The chip model (the attribute is verified, so this cannot fail),
    /// built once and cached by the dialect (DFDialect::chipOf).
    const ::snapflow::arch::ArchModel &getArchModel() const;
    /// `system.sockets`, without building the chip model.
    int64_t getSockets() const;
    /// An integer `socket.KEY` (pcu_count, agcu_count, ...), without
    /// building the chip model.
    int64_t getSocketInteger(::llvm::StringRef key) const;
  }];
}

def DF_TierAttr : DF_Attr<"Tier", "tier"> {
  let summary = "a memory tier";
  let description = [{
    Example: `#df.tier<hbm>`; as an op's inherent attribute it is written
    as the bare keyword (`df.tensor @w : tensor<4x4xbf16> in hbm`).
  }];
  let parameters = (ins DF_TierParameter:$value);
  let assemblyFormat = "`<` $value `>`";
}

def DF_OpKindAttr : DF_Attr<"OpKind", "op_kind"> {
  let summary = "the model operator a df node works for";
  let description = [{
    What lower-to-df tags a load, store or stage with, so that a run's
    profile can charge the node's time, bytes and FLOPs to an operator of
    the model. Written as the bare keyword after `for` on the node
    (`df.load @w tiles 32 for qkv_projection`); the kinds are those of
    `arch/OpKind.h` that the compiler tags (collectives are named by their
    kind, kernel launches by the simulator).
  }];
  let parameters = (ins DF_OpKindParameter:$value);
  let assemblyFormat = "$value";
}

def DF_StageMapAttr : DF_Attr<"StageMap", "stage"> {
  let summary = "how tile-and-map runs an op as a pipeline stage";
  let description = [{
    `kind` selects the PCU mode (gemm: systolic, the rest SIMD); the weights
    and KV the stage streams come in `tiles` tiles of `tile_bytes`; it runs
    on `pcus` PCUs with `pmus` PMUs for double-buffered tiles and stream
    ends, and its loads may use `agcus` AGCU lanes.

    Example: `#df.stage<gemm, tiles = 64, tile_bytes = 5505024, pcus = 720, pmus = 24, agcus = 32>`
  }];
  let parameters = (ins DF_StageKindParameter:$kind, "int64_t":$tiles,
                        "int64_t":$tile_bytes, "int64_t":$pcus,
                        "int64_t":$pmus, "int64_t":$agcus);
  let assemblyFormat =
      "`<` $kind `,` struct($tiles, $tile_bytes, $pcus, $pmus, $agcus) `>`";
  let genVerifyDecl = 1;
}

def DF_SectionMapAttr : DF_Attr<"SectionMap", "section"> {
  let summary = "one section's summary: its loop count and the units it uses";
  let description = [{
    A section is one chip configuration: a layer loop's body (`repeat` > 1)
    or a run of ops between loops. `pcus` and `pmus` are the units its stages
    use in all; `agcus` the lanes of its busiest stage. A section needing
    more PCUs or PMUs than the chip has is `oversubscribed` by that ratio
    (its stages share units in time); 1 otherwise, and then not printed.

    A layer loop of several kernels has a section per kernel, each naming
    the `loop` (default empty, elided).

    Example: `#df.section<name = "layers_0_31", repeat = 32, stages = 12, pcus = 1040, pmus = 410, agcus = 32>`,
    `#df.section<name = "layers_3_60_moe", repeat = 58, stages = 4, pcus = 1040, pmus = 80, agcus = 32, loop = "layers_3_60">`
  }];
  let parameters = (ins StringRefParameter<"section name">:$name,
                        "int64_t":$repeat, "int64_t":$stages, "int64_t":$pcus,
                        "int64_t":$pmus, "int64_t":$agcus,
                        SF_F64Parameter<"oversubscription ratio", "::llvm::APFloat(1.0)">:$oversubscribed,
                        StringRefParameter<"the kernel loop it is part of", "\"\"">:$loop);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DF_PlacementAttr : DF_Attr<"Placement", "placement"> {
  let summary = "where plan-memory puts a tensor, and when it is live";
  let description = [{
    On the op that defines a tensor: its memory tier, and for activations
    the live range `[first, last]` in op positions of the phase function
    (weights and caches live throughout and carry none).

    Example: `#df.placement<hbm>`, `#df.placement<sram, live = [3, 7]>`
  }];
  let parameters = (ins DF_TierParameter:$tier,
                        OptionalArrayRefParameter<"int64_t">:$live);
  let assemblyFormat = "`<` $tier (`,` `live` `=` `[` $live^ `]`)? `>`";
  let genVerifyDecl = 1;
}

def DF_MemoryPlanAttr : DF_Attr<"MemoryPlan", "memory_plan"> {
  let summary = "a phase's memory plan on one socket";
  let description = [{
    Bytes per kind (weights, KV cache, peak live activations) and per tier,
    and the largest batch whose weights, KV and activations fit.
    `prefetch_bytes` (part of `sram_bytes`) is the SRAM pipeline-loops gives
    the next iteration's loads of a pipelined loop. The plan
    fits when `diagnostic` is empty; otherwise it says which tier binds, by
    how much, and why (shown as is by `snapflow compile` and `run`).

    Example: `#df.memory_plan<weights_bytes = 16060522496, kv_bytes = 536870912, activation_bytes = 262144, sram_bytes = 262144, hbm_bytes = 16597393408, ddr_bytes = 0, max_batch = 98>`
  }];
  let parameters = (ins "int64_t":$weights_bytes, "int64_t":$kv_bytes,
                        "int64_t":$activation_bytes, "int64_t":$sram_bytes,
                        "int64_t":$hbm_bytes, "int64_t":$ddr_bytes,
                        "int64_t":$max_batch,
                        DefaultValuedParameter<"int64_t", "0">:$prefetch_bytes,
                        StringRefParameter<"why it does not fit", "\"\"">:$diagnostic);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Whether the phase fits its chip.
    bool fits() const { return getDiagnostic().empty(); }
  }];
}

def DF_KVUpkeepAttr : DF_Attr<"KVUpkeep", "kv_upkeep"> {
  let summary = "what a phase's KV policy and format add per step on one socket";
  let description = [{
    The FLOPs and the bytes (read and written) of one step's KV upkeep per
    socket: the kv ops a policy or format emits (eviction, scoring, recall,
    backup, quantization) and an attention's share (the probabilities kept
    for eviction, dequantizing what it reads, a format's rotations), summed
    over CostOpInterface's getKVUpkeepFlops/Bytes on the phase function
    lower-to-df lowers, loops counted. Reported as `kv_upkeep.*`.

    Example: `#df.kv_upkeep<flops = 2097152, bytes = 4194304>`
  }];
  let parameters = (ins "int64_t":$flops, "int64_t":$bytes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWATTRS
