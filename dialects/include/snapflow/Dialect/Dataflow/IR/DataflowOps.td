//===- DataflowOps.td - Dataflow program ops --------------------*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWOPS
#define SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWOPS

include "snapflow/Dialect/SnapflowBase.td"
include "snapflow/Dialect/Dataflow/IR/DataflowDialect.td"
include "snapflow/Dialect/Dataflow/IR/DataflowTypes.td"
include "snapflow/Dialect/Dataflow/IR/DataflowAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class DF_Op<string mnemonic, list<Trait> traits = []>
    : Op<DF_Dialect, mnemonic, traits>;

def DF_ProgramOp : DF_Op<"program", [SymbolTable, Symbol, NoTerminator,
    SingleBlock, IsolatedFromAbove]> {
  let summary = "a compiled dataflow program for one inference phase";
  let description = [{
    Holds tensor declarations and sections; sections run in order. `tp` is
    the number of sockets it spans. The chip it was mapped for is the
    enclosing module's `df.target`, which every program needs.

    Example:
    ```mlir
    module attributes {df.target = #df.target<"sn40l-16">} {
    df.program @decode attributes {tp = 16 : i64} {
      df.tensor @wq : tensor<4096x4096xbf16> in hbm
      df.section @layer repeat 32 {
        %t = df.load @wq tiles 16 : !df.stream<tensor<1024x1024xbf16>, 2>
        df.stage gemm (%t) {pcus = 8 : i64, flops_per_tile = 2097152 : i64, tiles = 16 : i64} : (!df.stream<tensor<1024x1024xbf16>, 2>) -> ()
      }
    }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, SF_I64Attr:$tp);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def DF_TensorOp : DF_Op<"tensor", [Symbol, HasParent<"ProgramOp">]> {
  let summary = "declare a tensor the program keeps in a memory tier";
  let description = [{
    A weight, KV-cache region or spilled activation of type `type` placed in
    `tier` by memory planning. Loads and stores refer to it by symbol. The
    KV cache is marked `kv_cache` (the simulator counts its bytes apart and
    serving tracks its live share); its name carries no meaning.

    Example:
    ```mlir
    df.tensor @wq : tensor<4096x4096xbf16> in hbm
    df.tensor @kv : tensor<32x1x4096x2048xbf16> in hbm kv_cache
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttrOf<AnyRankedTensor>:$type,
                       DF_TierAttr:$tier, UnitAttr:$kv_cache);
  let assemblyFormat =
      "$sym_name `:` $type `in` custom<Tier>($tier) (`kv_cache` $kv_cache^)? attr-dict";
  let hasVerifier = 1;
}

def DF_SectionOp : DF_Op<"section", [Symbol, HasParent<"ProgramOp">, NoTerminator,
    SingleBlock, DeclareOpInterfaceMethods<RegionKindInterface>]> {
  let summary = "one kernel: a chip configuration, called `repeat` times";
  let description = [{
    The body is a graph: stages, buffers, loads, stores and collectives that run
    concurrently, connected by streams. Each run is a call of the kernel: it
    starts with its streams empty and ends when every node has finished, and
    its launch costs a program load (unless the same section just ran) and
    the argument load and execute of the call. `repeat` > 1 calls it again
    without reconfiguring. A `pipelined` loop is kernel looping: one call
    with a pipelined outer loop, each node starting iteration i+1 as soon as
    it has finished iteration i and its inputs exist, so the next
    iteration's loads (into their streams' depth) overlap this iteration's
    tail; a load of a tensor the section also stores (other than the KV
    cache, whose layers are separate) waits for the previous iteration's
    stores to it.

    A layer loop whose body is several kernels (an MoE layer: the attention
    and the router, then the experts that wait for the router's choice) is
    consecutive sections `in` the same loop, with the loop's `repeat`:
    iteration i calls each of them in turn, then iteration i+1. Such a loop
    cannot be pipelined (consecutive calls are of different kernels), and
    every call pays its launch.

    Example:
    ```mlir
    df.section @layers repeat 32 pipelined {
      %a = df.load @x tiles 4 : !df.stream<tensor<64x64xbf16>, 2>
      df.store %a to @y : !df.stream<tensor<64x64xbf16>, 2>
    }
    df.section @moe_attn repeat 58 in "moe" { ... }
    df.section @moe_experts repeat 58 in "moe" { ... }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       DefaultValuedAttr<SF_I64Attr, "1">:$repeat,
                       UnitAttr:$pipelined,
                       OptionalAttr<StrAttr>:$loop);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name (`repeat` $repeat^)? (`pipelined` $pipelined^)? (`in` $loop^)?
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
}

def DF_LoadOp : DF_Op<"load", [HasParent<"SectionOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "stream a declared tensor from its tier into the chip, tile by tile";
  let description = [{
    `agcus` AGCU/DMA engines (default 1) read `tiles` tiles of the tensor
    `@src` from its declared tier and push them into the result stream. The tile's element
    type and rank must be the tensor's and its shape must tile the tensor
    evenly; `tiles` may exceed the tensor's tile count when the tensor is read
    more than once (e.g. weights streamed again for each batch tile).
    In a chunked prefill (the program's `llm.workload` has n `chunks`),
    `prefix_tiles` of the tiles read earlier chunks' tokens: chunk j
    (0-based) reads `tiles - prefix_tiles + ceil(prefix_tiles * j / (n-1))`,
    all of them in the last chunk and none of the prefix in the first.
    A `last_chunk` load runs in the last chunk only (the selection at the
    end of a chunked prefill reads the staged prompt then). `for KIND`
    names the model operator the load works for (`#df.op_kind`, arch's
    OpKind), which a run's profile charges its time and bytes to.

    Example:
    ```mlir
    %s = df.load @wq tiles 16 for qkv_projection : !df.stream<tensor<1024x1024xbf16>, 2>
    ```
  }];
  let arguments = (ins OptionalAttr<DF_OpKindAttr>:$op_kind,
                       FlatSymbolRefAttr:$src, SF_I64Attr:$tiles,
                       DefaultValuedAttr<SF_I64Attr, "1">:$agcus,
                       DefaultValuedAttr<SF_I64Attr, "0">:$prefix_tiles,
                       UnitAttr:$last_chunk);
  let results = (outs DF_StreamType:$result);
  let assemblyFormat = "$src `tiles` $tiles (`for` custom<OpKind>($op_kind)^)? attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def DF_StoreOp : DF_Op<"store", [HasParent<"SectionOp">,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "drain a stream into a declared tensor in its tier";
  let description = [{
    `for KIND` names the model operator the store works for, as on
    `df.load`.

    Example:
    ```mlir
    df.store %s to @kv for attention : !df.stream<tensor<1x1024xbf16>, 2>
    ```
  }];
  let arguments = (ins OptionalAttr<DF_OpKindAttr>:$op_kind,
                       DF_StreamType:$input, FlatSymbolRefAttr:$dst);
  let assemblyFormat = "$input `to` $dst (`for` custom<OpKind>($op_kind)^)? attr-dict `:` qualified(type($input))";
}

def DF_StageOp : DF_Op<"stage", [HasParent<"SectionOp">]> {
  let summary = "a pipeline stage on a group of PCUs";
  let description = [{
    Runs `tiles` steps, each computing `flops_per_tile` FLOPs on `pcus` PCUs
    (systolic mode for `gemm`, SIMD otherwise). Inputs are consumed in
    proportion to progress: an input stream of n tiles has delivered
    ceil((s + 1) n / tiles) tiles before step s runs. Output k carries
    `output_tiles[k]` tiles (default `tiles`), produced in the same
    proportion. In a chunked prefill, `prefix_tiles` of the steps are work
    on earlier chunks' tokens and scale as a load's do (see `df.load`); the
    outputs keep their counts. A `last_chunk` stage runs in the last chunk
    only: in the others it takes its inputs and emits nothing. `for KIND`
    names the model operator it computes for, as on `df.load`. A `gemm`
    stage's `rows` are its GEMM's M, the activations sharing each weight or
    key it streams: the systolic arrays fill in whole tiles, so few rows
    leave part of them idle (absent: the shape fills them).

    Example:
    ```mlir
    %o = df.stage gemm for mlp (%a, %b) {pcus = 8 : i64, flops_per_tile = 262144 : i64, tiles = 64 : i64} : (!df.stream<tensor<64x64xbf16>, 2>, !df.stream<tensor<64x64xbf16>, 2>) -> !df.stream<tensor<64x64xbf16>, 2>
    ```
  }];
  let arguments = (ins OptionalAttr<DF_OpKindAttr>:$op_kind,
                       DF_StageKindAttr:$kind, Variadic<DF_StreamType>:$inputs,
                       SF_I64Attr:$pcus, SF_I64Attr:$flops_per_tile, SF_I64Attr:$tiles,
                       OptionalAttr<DenseI64ArrayAttr>:$output_tiles,
                       DefaultValuedAttr<SF_I64Attr, "0">:$prefix_tiles,
                       UnitAttr:$last_chunk, OptionalAttr<SF_I64Attr>:$rows);
  let results = (outs Variadic<DF_StreamType>:$outputs);
  let assemblyFormat = [{
    custom<StageKind>($kind) (`for` custom<OpKind>($op_kind)^)? `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)
  }];
  let hasVerifier = 1;
}

def DF_BufferOp : DF_Op<"buffer", [HasParent<"SectionOp">]> {
  let summary = "a PMU buffer staging tiles between a producer and its consumers";
  let description = [{
    Holds up to `bytes` on `pmus` PMUs with `banks` banks each; with
    `double_buffered` a producer fills one half while consumers drain the other,
    so `bytes` must hold two halves of `depth` output tiles each. With `reads`
    > 1 the buffer keeps every input tile and emits the whole sequence `reads`
    times (an operand reused by every step of its consumer).
    The output stream carries the same tiles as the input.

    Example:
    ```mlir
    %b = df.buffer %s {pmus = 2 : i64, bytes = 262144 : i64, banks = 16 : i64} : !df.stream<tensor<64x64xbf16>, 2> -> !df.stream<tensor<64x64xbf16>, 8>
    ```
  }];
  let arguments = (ins DF_StreamType:$input, SF_I64Attr:$pmus, SF_I64Attr:$bytes,
                       SF_I64Attr:$banks, UnitAttr:$double_buffered,
                       DefaultValuedAttr<SF_I64Attr, "1">:$reads);
  let results = (outs DF_StreamType:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def DF_CollectiveOp : DF_Op<"collective", [HasParent<"SectionOp">]> {
  let summary = "a collective across the `group_size` sockets of the TP group";
  let description = [{
    Applies `kind` tile by tile over the peer links: all-reduce keeps the tile
    type; all-gather multiplies the tile's leading dimension by `group_size`;
    all-to-all keeps it. `via` names the algorithm (choose-collectives
    records the one the chip's `collective_algorithm` gives for the message);
    without it the simulator picks with the chip it runs on.

    Example:
    ```mlir
    %r = df.collective all_reduce via one_shot %s {group_size = 16 : i64} : !df.stream<tensor<8x7168xbf16>, 2> -> !df.stream<tensor<8x7168xbf16>, 2>
    ```
  }];
  let arguments = (ins DF_CollectiveKindAttr:$kind, DF_StreamType:$input,
                       SF_I64Attr:$group_size,
                       OptionalAttr<DF_CollectiveAlgorithmAttr>:$algorithm);
  let results = (outs DF_StreamType:$result);
  let assemblyFormat = [{
    custom<CollectiveKind>($kind) (`via` custom<CollectiveAlgorithm>($algorithm)^)? $input attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

#endif // SNAPFLOW_DIALECT_DATAFLOW_DATAFLOWOPS
