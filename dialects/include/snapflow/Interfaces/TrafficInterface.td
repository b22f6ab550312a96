//===- TrafficInterface.td - What a stage moves -----------------*- tablegen -*-===//

#ifndef SNAPFLOW_INTERFACES_TRAFFICINTERFACE
#define SNAPFLOW_INTERFACES_TRAFFICINTERFACE

include "mlir/IR/OpBase.td"

def TrafficOpInterface : OpInterface<"TrafficOpInterface"> {
  let description = [{
    What an llm or kv op becomes as a pipeline stage, declared beside the op
    instead of in the passes that map and lower it: the mode its PCUs run
    in (tile-and-map), and what it moves besides its operand streams and
    weights (lower-to-df): the KV-cache tokens it writes, whether it streams
    the cache's slots, a policy's or format's per-layer tensors it reads and
    writes, and whether it belongs to the end-of-prefill selection. Every op
    tile-and-map can run as a stage implements it; the rest (params, views,
    loops, collectives) do not.
  }];
  let cppNamespace = "::snapflow";
  let methods = [
    InterfaceMethod<[{What the op computes as a stage (gemm on the systolic
      arrays, the rest on the SIMD lanes); none when, as it stands, it is no
      stage (a kv.read of the staged prompt is a view its consumers load).}],
      "::std::optional<::snapflow::arch::StageKind>", "getStageKind">,
    InterfaceMethod<[{New KV-cache tokens the op writes, over the whole
      batch (cache positions: a Block Transformer's are blocks); 0 when it
      writes none.}],
      "int64_t", "getKVTokensWritten", (ins), [{}], [{ return 0; }]>,
    InterfaceMethod<[{The tokens its KV writes move together: 1, or a
      recalled page's tokens (whole pages move).}],
      "int64_t", "getKVWriteRun", (ins), [{}], [{ return 1; }]>,
    InterfaceMethod<[{Whether it streams the cache's slots (a decode
      attention, kv.read).}],
      "bool", "readsKVSlots", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<[{Bytes it reads and writes of the per-layer tensors
      beside the cache's slots: a policy's per-slot state, page digests,
      backup pages, a format's residual and the stored slots it rewrites.}],
      "::llvm::SmallVector<::snapflow::KVAccess, 3>", "getKVAccesses", (ins),
      [{}], [{ return {}; }]>,
    InterfaceMethod<[{Whether it is part of the end-of-prefill selection,
      which a chunked prefill runs in its last chunk only.}],
      "bool", "isKVSelection", (ins), [{}], [{ return false; }]>,
  ];
}

#endif // SNAPFLOW_INTERFACES_TRAFFICINTERFACE
