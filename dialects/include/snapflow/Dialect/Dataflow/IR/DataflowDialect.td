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
}

#endif // SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWDIALECT
