//===- DataflowTypes.td - Streams of tiles ----------------------*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWTYPES
#define SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWTYPES

include "snapflow/Dialect/Dataflow/IR/DataflowDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypes.td"

def DF_StreamType : TypeDef<DF_Dialect, "Stream"> {
  let mnemonic = "stream";
  let summary = "a bounded FIFO of tiles between a producer and its consumers";
  let description = [{
    Carries tiles of type `tile` (a statically shaped tensor); at most `depth`
    tiles are in flight, so a full stream stalls its producer (back-pressure).

    Example: `!df.stream<tensor<64x128xbf16>, 4>`
  }];
  let parameters = (ins "::mlir::RankedTensorType":$tile, "int64_t":$depth);
  let assemblyFormat = "`<` $tile `,` $depth `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Bytes of one tile.
    int64_t getTileBytes() const;
  }];
}

#endif // SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWTYPES
