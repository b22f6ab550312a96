//===- DataflowDialect.td - Tiled dataflow programs -------------*- tablegen -*-===//
//
// The df dialect is the program an SN40L-like chip runs: sections (one chip
// configuration each) of stages on PCUs connected by bounded streams of tiles,
// PMU buffers, loads and stores through AGCUs, and collectives across sockets.
// The compiler decides the mapping; it never writes cycle counts. Its text form
// is the interchange format the simulator reads.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWDIALECT
#define SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWDIALECT

include "mlir/IR/OpBase.td"

def DF_Dialect : Dialect {
  let name = "df";
  let summary = "tiled dataflow programs for reconfigurable dataflow chips";
  let description = [{
    A `df.program` holds `df.section`s executed in order. Inside a section, SSA
    values of type `!df.stream<tile, depth>` connect producers (`df.load`,
    `df.stage`, `df.buffer`, `df.collective`) to consumers. A section may
    `repeat` (kernel looping); switching sections costs a reconfiguration.
  }];
  let cppNamespace = "::snapflow::df";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // The discardable attributes the passes and the Loader exchange; each is
  // typed (DataflowAttrs.td) and checked by verifyOperationAttribute, which
  // also refuses any other `df.*` name.
  let discardableAttrs = (ins
    // On the module: the chip every pass and the simulator use.
    "TargetAttr":$target,
    // On each op of a mapped phase function: the section it runs in.
    "::mlir::IntegerAttr":$section,
    // On each op tile-and-map runs as a pipeline stage.
    "StageMapAttr":$stage,
    // On a mapped phase function and its df.program: SectionMapAttr each.
    "::mlir::ArrayAttr":$sections,
    // On each op defining a tensor plan-memory placed.
    "PlacementAttr":$placement,
    // On a planned phase function and its df.program.
    "MemoryPlanAttr":$memory_plan,
    // On a df.program: its KV policy's and format's upkeep per step.
    "KVUpkeepAttr":$kv_upkeep,
    // On the module: what compiled it (record-provenance), string values.
    "::mlir::DictionaryAttr":$provenance
  );
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The chip model of `target`, built once per target attribute (they
    /// are uniqued) and kept for the context's life: every pass and the
    /// Loader read the same object instead of rebuilding it from the IR.
    const ::snapflow::arch::ArchModel &chipOf(TargetAttr target);

  private:
    ::llvm::DenseMap<::mlir::Attribute,
                     std::unique_ptr<::snapflow::arch::ArchModel>> chips;
    ::std::mutex chipsMutex;

  public:
  }];
}

#endif // SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWDIALECT
