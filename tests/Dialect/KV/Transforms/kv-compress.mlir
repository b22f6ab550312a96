// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=snapstream:budget=32,sinks=4,recent=8,obs_window=8,kernel=3,pool=max" | FileCheck %s
// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=streaming:sinks=4,window=28" | FileCheck %s --check-prefix=STREAM
// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=full" | FileCheck %s --check-prefix=FULL

// Tests that a GQA prefill of 64 tokens into a 32-slot SnapStream cache
// selects per KV-head group: 4 sinks + 20 selected + 8 recent = 32 slots,
// the gather-store result feeding every later use of the cache; and that the
// cache in the signature takes the budget and the policy.
// CHECK-LABEL: func.func @prefill(
// CHECK-SAME:    !kv.cache<layers = 1, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>
// CHECK:         %[[O:.+]], %[[C:.+]] = llm.attention %[[Q:.+]], %[[K:.+]], %[[V:[^ ]+]], %{{.+}} {{.+}}phase = #llm<phase prefill>
// CHECK-NEXT:    %[[S:.+]] = kv.score %[[Q]], %[[K]] {num_groups = 2 : i64, num_heads = 4 : i64, obs_window = 8 : i64} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16> -> tensor<1x2x64xf32>
// CHECK-NEXT:    %[[P:.+]] = kv.pool %[[S]] {kernel = 3 : i64, kind = #kv<pool max>}
// CHECK-NEXT:    %[[I:.+]] = kv.topk %[[P]] {k = 20 : i64, recent = 8 : i64, sinks = 4 : i64} : tensor<1x2x64xf32> -> tensor<1x2x20xi32>
// CHECK-NEXT:    %[[G:.+]] = kv.gather_store %[[C]][0] select %[[I]], %[[K]], %[[V]]
// CHECK:         return %{{.+}}, %[[G]]

// STREAM-LABEL: func.func @prefill(
// STREAM:         kv.gather_store %{{.+}}[0], %{{.+}}, %{{.+}} : !kv.cache<layers = 1, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.streaming<sinks = 4, window = 28>>
// STREAM-NOT:     kv.score

// FULL-LABEL: func.func @prefill(
// FULL-SAME:    slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
// FULL-NOT:     kv.{{score|pool|topk|gather_store}}

!full = !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @prefill(%q: tensor<1x64x64xbf16>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>, %c: !full) -> (tensor<1x64x64xbf16>, !full) {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>, !full -> tensor<1x64x64xbf16>
  return %o, %c1 : tensor<1x64x64xbf16>, !full
}

// -----

// Tests that a prompt no longer than the budget needs no selection, and that
// decode attends over exactly the budget (the context of 64 is resolved from
// the largest cache, here the decode cache).
// CHECK-LABEL: func.func @short_prefill(
// CHECK-NOT:     kv.score
// CHECK-LABEL: func.func @decode(
// CHECK-SAME:    slots = 32
// CHECK:         llm.attention {{.+}}phase = #llm<phase decode>{{.+}}slots = 32
// CHECK-NOT:     kv.{{score|pool|topk|gather_store}}
!small = !kv.cache<layers = 1, batch = 1, slots = 16, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
!ctx = !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @short_prefill(%q: tensor<1x16x64xbf16>, %k: tensor<1x16x32xbf16>, %v: tensor<1x16x32xbf16>, %c: !small) -> !small {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>} : tensor<1x16x64xbf16>, tensor<1x16x32xbf16>, tensor<1x16x32xbf16>, !small -> tensor<1x16x64xbf16>
  return %c1 : !small
}
func.func @decode(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !ctx) -> !ctx {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !ctx -> tensor<1x1x64xbf16>
  return %c1 : !ctx
}

// -----

// Tests that an MLA prefill selects once per layer with absorbed queries: the
// KV up-projection folds each window query into latent space.
// CHECK-LABEL: func.func @mla_prefill(
// CHECK:         %[[O:.+]], %[[C:.+]] = llm.mla_attention %[[Q:.+]], %[[L:.+]], %[[W:.+]], %{{.+}}, %{{.+}} {
// CHECK-NEXT:    %[[S:.+]] = kv.score %[[Q]], %[[L]] absorb %[[W]] {num_groups = 1 : i64, num_heads = 2 : i64, obs_window = 8 : i64} : tensor<1x64x48xbf16>, tensor<1x64x40xbf16>, tensor<64x32xbf16> -> tensor<1x1x64xf32>
// CHECK:         kv.topk {{.+}} -> tensor<1x1x20xi32>
// CHECK-NEXT:    kv.gather_store %[[C]][0] select %{{.+}}, %[[L]] : !kv.latent_cache<layers = 1, batch = 1, slots = 32,
!lat = !kv.latent_cache<layers = 1, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>
func.func @mla_prefill(%q: tensor<1x64x48xbf16>, %l: tensor<1x64x40xbf16>, %w: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !lat) -> !lat {
  %o, %c1 = llm.mla_attention %q, %l, %w, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase prefill>} : tensor<1x64x48xbf16>, tensor<1x64x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !lat -> tensor<1x64x32xbf16>
  return %c1 : !lat
}

// -----

// Tests that a chunked prefill (two chunks of 32 over a 64-token prompt)
// selects over the whole prompt its chunks staged: a staged read of the 64
// tokens after the last chunk's attention feeds the scores (with that
// chunk's queries) and the gather, and later uses see the filled cache.
// CHECK-LABEL: func.func @chunked(
// CHECK:         %[[O:.+]], %[[C:.+]] = llm.attention %[[Q:.+]], %{{.+}}, %{{.+}}, %{{.+}} {{.+}}prefix = 32
// CHECK-NEXT:    %[[K:.+]]:2 = kv.read %[[C]][0] {staged = 64 : i64} : {{.+}} -> tensor<1x64x32xbf16>, tensor<1x64x32xbf16>
// CHECK-NEXT:    %[[S:.+]] = kv.score %[[Q]], %[[K]]#0 {{.+}} : tensor<1x32x64xbf16>, tensor<1x64x32xbf16> -> tensor<1x2x64xf32>
// CHECK:         %[[G:.+]] = kv.gather_store %[[C]][0] select %{{.+}}, %[[K]]#0, %[[K]]#1
// CHECK:         return %{{.+}}, %[[G]]
!full64 = !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @chunked(%q: tensor<1x32x64xbf16>, %k: tensor<1x32x32xbf16>, %v: tensor<1x32x32xbf16>, %c: !full64) -> (tensor<1x32x64xbf16>, !full64) attributes {llm.workload = #llm.workload<prefill, batch = 1, tokens = 64, chunks = 2>} {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>, prefix = 32} : tensor<1x32x64xbf16>, tensor<1x32x32xbf16>, tensor<1x32x32xbf16>, !full64 -> tensor<1x32x64xbf16>
  return %o, %c1 : tensor<1x32x64xbf16>, !full64
}
