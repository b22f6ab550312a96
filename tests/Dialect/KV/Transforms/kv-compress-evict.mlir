// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=h2o:budget=32,recent=8" | FileCheck %s --check-prefix=H2O
// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=scissorhands:budget=32,sinks=4,recent=10,history=16" | FileCheck %s --check-prefix=SH
// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=h2o:ratio=2" | FileCheck %s --check-prefix=RATIO

// Tests the policies that evict by attention. At the end of a 64-token
// prefill into 32 slots, H2O scores every prompt token by the attention of
// all 64 prompt queries (no pooling) and keeps the top 24 older tokens with
// the last 8; gather_store starts the kept slots' scores from the same
// scores. Scissorhands scores with the last `history` = 16 queries and keeps
// 4 sinks + 18 chosen + 10 recent.
// H2O-LABEL: func.func @prefill(
// H2O-SAME:    policy = #kv.h2o<budget = 32, recent = 8>
// H2O:         %[[O:.+]], %[[C:.+]] = llm.attention %[[Q:.+]], %[[K:.+]], %[[V:[^ ]+]], %{{.+}} {{.+}}phase = #llm<phase prefill>
// H2O-NOT:     probs
// H2O-NEXT:    %[[S:.+]] = kv.score %[[Q]], %[[K]] {num_groups = 2 : i64, num_heads = 4 : i64, obs_window = 64 : i64} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16> -> tensor<1x2x64xf32>
// H2O-NEXT:    %[[I:.+]] = kv.topk %[[S]] {k = 24 : i64, recent = 8 : i64, sinks = 0 : i64} : tensor<1x2x64xf32> -> tensor<1x2x24xi32>
// H2O-NEXT:    %[[G:.+]] = kv.gather_store %[[C]][0] select %[[I]] scores %[[S]], %[[K]], %[[V]]
// H2O:         return %{{.+}}, %[[G]]

// SH-LABEL: func.func @prefill(
// SH:         %[[S:.+]] = kv.score {{.+}}obs_window = 16 : i64
// SH-NEXT:    %[[I:.+]] = kv.topk %[[S]] {k = 18 : i64, recent = 10 : i64, sinks = 4 : i64}
// SH-NEXT:    kv.gather_store %{{.+}}[0] select %[[I]] scores %[[S]]

// RATIO-LABEL: func.func @prefill(
// RATIO-SAME:    policy = #kv.h2o<budget = 32, recent = 16>
!full = !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @prefill(%q: tensor<1x64x64xbf16>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>, %c: !full) -> (tensor<1x64x64xbf16>, !full) {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>, !full -> tensor<1x64x64xbf16>
  return %o, %c1 : tensor<1x64x64xbf16>, !full
}

// -----

// Tests that each decode attention returns its probabilities over the 32
// slots per KV-head group and a kv.evict consumes them; the next layer's
// attention and the function's result see the cache after the eviction.
// H2O-LABEL: func.func @decode(
// H2O:         %[[O:.+]], %[[C1:.+]], %[[P:.+]] = llm.attention {{.+}}phase = #llm<phase decode>{{.+}} -> tensor<1x1x64xbf16>, probs tensor<1x2x32xf32>
// H2O-NEXT:    %[[E1:.+]] = kv.evict %[[C1]][0], %[[P]] : !kv.cache<{{.+}}policy = #kv.h2o<budget = 32, recent = 8>>, tensor<1x2x32xf32>
// H2O-NEXT:    %{{.+}}, %[[C2:.+]], %[[P2:.+]] = llm.attention %{{.+}}, %{{.+}}, %{{.+}}, %[[E1]] {{{.+}}layer = 1 : i64
// H2O-NEXT:    %[[E2:.+]] = kv.evict %[[C2]][1], %[[P2]]
// H2O-NEXT:    return %[[E2]]

// SH-LABEL: func.func @decode(
// SH:         kv.evict {{.+}}policy = #kv.scissorhands<budget = 32, sinks = 4, recent = 10, history = 16>>, tensor<1x2x32xf32>
!ctx = !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @decode(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !ctx) -> !ctx {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !ctx -> tensor<1x1x64xbf16>
  %o2, %c2 = llm.attention %q, %k, %v, %c1 {layer = 1, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !ctx -> tensor<1x1x64xbf16>
  return %c2 : !ctx
}

// -----

// Tests that an MLA decode attention returns one group of probabilities
// (the latent is shared by every head).
// H2O-LABEL: func.func @mla_decode(
// H2O:         %{{.+}}, %[[C:.+]], %[[P:.+]] = llm.mla_attention {{.+}} -> tensor<1x1x32xbf16>, probs tensor<1x1x32xf32>
// H2O-NEXT:    kv.evict %[[C]][0], %[[P]] : !kv.latent_cache<{{.+}}>, tensor<1x1x32xf32>
!lat = !kv.latent_cache<layers = 1, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>
func.func @mla_decode(%q: tensor<1x1x48xbf16>, %l: tensor<1x1x40xbf16>, %w: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !lat) -> (tensor<1x1x32xbf16>, !lat) {
  %o, %c1 = llm.mla_attention %q, %l, %w, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !lat -> tensor<1x1x32xbf16>
  return %o, %c1 : tensor<1x1x32xbf16>, !lat
}
