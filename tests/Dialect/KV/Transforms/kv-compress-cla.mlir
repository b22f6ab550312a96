// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=h2o:budget=32,recent=8 format=kivi2" | FileCheck %s --check-prefix=H2O
// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=snapstream:budget=32,sinks=4,recent=8,obs_window=8,kernel=3" | FileCheck %s --check-prefix=SNAP

// Tests that under cross-layer attention only the first layer of a group
// gets the policy's and the format's work: its decode returns the
// probabilities H2O's kv.evict consumes and is followed by KIVI's
// kv.quantize; the `reuse_kv` layer reads the cache after both and gets
// neither probabilities nor ops of its own.
// H2O-LABEL: func.func @decode(
// H2O:         %{{.+}}, %[[C1:.+]], %[[P:.+]] = llm.attention %arg0, %arg2, %arg3, %arg4 {{.+}}probs
// H2O-NEXT:    %[[E:.+]] = kv.evict %[[C1]][0], %[[P]]
// H2O-NEXT:    %[[Q:.+]] = kv.quantize %[[E]][0] {every = 1 : i64, tokens = 1 : i64}
// H2O-NEXT:    %[[O:.+]], %[[C2:.+]] = llm.attention %arg1, %arg2, %arg3, %[[Q]] {{{.+}}reuse_kv} : {{.+}} -> tensor<1x1x64xbf16>{{$}}
// H2O-NEXT:    return %[[O]], %[[C2]]
!c = !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @decode(%q0: tensor<1x1x64xbf16>, %q1: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !c) -> (tensor<1x1x64xbf16>, !c) {
  %o0, %c1 = llm.attention %q0, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !c -> tensor<1x1x64xbf16>
  %o1, %c2 = llm.attention %q1, %k, %v, %c1 {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>, reuse_kv} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !c -> tensor<1x1x64xbf16>
  return %o1, %c2 : tensor<1x1x64xbf16>, !c
}

// -----

// Tests that a prefill selects once per group: SnapKV's score, pool and
// top-k over the first layer's queries and keys, kv.gather_store into the
// group's cache layer, and the `reuse_kv` layer attending over the same
// keys and values with the filled cache, without a selection of its own.
// SNAP-LABEL: func.func @prefill(
// SNAP:         %{{.+}}, %[[C1:.+]] = llm.attention %arg0, %arg2, %arg3, %arg4
// SNAP-NEXT:    kv.score %arg0, %arg2
// SNAP-NEXT:    kv.pool
// SNAP-NEXT:    %[[I:.+]] = kv.topk
// SNAP-NEXT:    %[[S:.+]] = kv.gather_store %[[C1]][0] select %[[I]], %arg2, %arg3
// SNAP-NEXT:    %[[O:.+]], %[[C2:.+]] = llm.attention %arg1, %arg2, %arg3, %[[S]] {{{.+}}reuse_kv}
// SNAP-NEXT:    return %[[O]], %[[C2]]
!c = !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @prefill(%q0: tensor<1x64x64xbf16>, %q1: tensor<1x64x64xbf16>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>, %c: !c) -> (tensor<1x64x64xbf16>, !c) {
  %o0, %c1 = llm.attention %q0, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>, !c -> tensor<1x64x64xbf16>
  %o1, %c2 = llm.attention %q1, %k, %v, %c1 {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>, reuse_kv} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>, !c -> tensor<1x64x64xbf16>
  return %o1, %c2 : tensor<1x64x64xbf16>, !c
}
