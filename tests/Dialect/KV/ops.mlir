// RUN: snapflow-opt %s | snapflow-opt | FileCheck %s
// RUN: snapflow-opt %s --mlir-print-op-generic | snapflow-opt | FileCheck %s

// Tests that both cache types round-trip with every policy, both pooling
// kinds, integer and float element types, and a latent cache without a rotary
// part.
// CHECK-LABEL: func.func @types(
// CHECK-SAME:    %[[FULL:.+]]: !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>,
// CHECK-SAME:    %[[STREAMING:.+]]: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = f16, policy = #kv.streaming<sinks = 4, window = 28>>,
// CHECK-SAME:    %[[SNAPKV:.+]]: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = f8E4M3FN, policy = #kv.snapkv<budget = 32, obs_window = 8, kernel = 5, pool = avg>>,
// CHECK-SAME:    %[[SNAPSTREAM:.+]]: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = i8, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>,
// CHECK-SAME:    %[[LATENT:.+]]: !kv.latent_cache<layers = 2, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>,
// CHECK-SAME:    %[[NOROPE:.+]]: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 0, dtype = f32, policy = #kv.snapstream<budget = 32, sinks = 0, recent = 16, obs_window = 16, kernel = 1, pool = avg>>)
func.func @types(%full: !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>,
                 %streaming: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = f16, policy = #kv.streaming<sinks = 4, window = 28>>,
                 %snapkv: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = f8E4M3FN, policy = #kv.snapkv<budget = 32, obs_window = 8, kernel = 5, pool = avg>>,
                 %snapstream: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = i8, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>,
                 %latent: !kv.latent_cache<layers = 2, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>,
                 %norope: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 0, dtype = f32, policy = #kv.snapstream<budget = 32, sinks = 0, recent = 16, obs_window = 16, kernel = 1, pool = avg>>) {
  return
}

// Tests that kv.append writes (k, v) into a full cache and (latent) into a
// streaming latent cache.
// CHECK-LABEL: func.func @append(
// CHECK-SAME:    %[[C:.+]]: !kv.cache<{{.+}}>, %[[K:.+]]: tensor<1x1x32xbf16>, %[[V:.+]]: tensor<1x1x32xbf16>, %[[LC:.+]]: !kv.latent_cache<{{.+}}>, %[[L:.+]]: tensor<2x4x40xbf16>)
// CHECK:         %[[C1:.+]] = kv.append %[[C]][1], %[[K]], %[[V]] : !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>
// CHECK:         %[[LC1:.+]] = kv.append %[[LC]][0], %[[L]] : !kv.latent_cache<layers = 2, batch = 2, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.streaming<sinks = 4, window = 28>>, tensor<2x4x40xbf16>
// CHECK:         return %[[C1]], %[[LC1]]
func.func @append(%c: !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %lc: !kv.latent_cache<layers = 2, batch = 2, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.streaming<sinks = 4, window = 28>>, %l: tensor<2x4x40xbf16>) -> (!kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, !kv.latent_cache<layers = 2, batch = 2, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.streaming<sinks = 4, window = 28>>) {
  %c1 = kv.append %c[1], %k, %v : !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>
  %lc1 = kv.append %lc[0], %l : !kv.latent_cache<layers = 2, batch = 2, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.streaming<sinks = 4, window = 28>>, tensor<2x4x40xbf16>
  return %c1, %lc1 : !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, !kv.latent_cache<layers = 2, batch = 2, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.streaming<sinks = 4, window = 28>>
}

// Tests that kv.read returns (k, v) of a cache and (latent) of a latent cache
// for every slot.
// CHECK-LABEL: func.func @read(
// CHECK-SAME:    %[[C:.+]]: !kv.cache<{{.+}}>, %[[LC:.+]]: !kv.latent_cache<{{.+}}>)
// CHECK:         %[[KV:.+]]:2 = kv.read %[[C]][1] : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = f16, policy = #kv.snapkv<budget = 32, obs_window = 8, kernel = 5, pool = avg>> -> tensor<1x32x32xf16>, tensor<1x32x32xf16>
// CHECK:         %[[L:.+]] = kv.read %[[LC]][0] : !kv.latent_cache<layers = 2, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x64x40xbf16>
// CHECK:         return %[[KV]]#0, %[[KV]]#1, %[[L]]
func.func @read(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = f16, policy = #kv.snapkv<budget = 32, obs_window = 8, kernel = 5, pool = avg>>, %lc: !kv.latent_cache<layers = 2, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) -> (tensor<1x32x32xf16>, tensor<1x32x32xf16>, tensor<1x64x40xbf16>) {
  %k, %v = kv.read %c[1] : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = f16, policy = #kv.snapkv<budget = 32, obs_window = 8, kernel = 5, pool = avg>> -> tensor<1x32x32xf16>, tensor<1x32x32xf16>
  %l = kv.read %lc[0] : !kv.latent_cache<layers = 2, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x64x40xbf16>
  return %k, %v, %l : tensor<1x32x32xf16>, tensor<1x32x32xf16>, tensor<1x64x40xbf16>
}

// Tests that the SnapStream end-of-prefill selection of a GQA cache chains:
// score per KV-head group, max-pool, pick the best tokens between the sinks
// and the recent window (4 + 20 + 8 = 32 slots) and store them.
// CHECK-LABEL: func.func @select_gqa(
// CHECK-SAME:    %[[Q:.+]]: tensor<1x64x64xbf16>, %[[K:.+]]: tensor<1x64x32xbf16>, %[[V:.+]]: tensor<1x64x32xbf16>, %[[C:.+]]: !kv.cache<{{.+}}>) -> !kv.cache
// CHECK:         %[[S:.+]] = kv.score %[[Q]], %[[K]] {num_groups = 2 : i64, num_heads = 4 : i64, obs_window = 8 : i64} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16> -> tensor<1x2x64xf32>
// CHECK:         %[[P:.+]] = kv.pool %[[S]] {kernel = 3 : i64, kind = #kv<pool max>} : tensor<1x2x64xf32>
// CHECK:         %[[I:.+]] = kv.topk %[[P]] {k = 20 : i64, recent = 8 : i64, sinks = 4 : i64} : tensor<1x2x64xf32> -> tensor<1x2x20xi32>
// CHECK:         %[[C1:.+]] = kv.gather_store %[[C]][0] select %[[I]], %[[K]], %[[V]] : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>> select tensor<1x2x20xi32>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>
// CHECK:         return %[[C1]]
func.func @select_gqa(%q: tensor<1x64x64xbf16>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>) -> !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>> {
  %s = kv.score %q, %k {num_heads = 4, num_groups = 2, obs_window = 8} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16> -> tensor<1x2x64xf32>
  %p = kv.pool %s {kernel = 3, kind = #kv<pool max>} : tensor<1x2x64xf32>
  %i = kv.topk %p {k = 20, sinks = 4, recent = 8} : tensor<1x2x64xf32> -> tensor<1x2x20xi32>
  %c1 = kv.gather_store %c[0] select %i, %k, %v : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>> select tensor<1x2x20xi32>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>
  return %c1 : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>
}

// Tests that the SnapKV end-of-prefill selection of a latent cache chains: one
// group of absorbed queries over the latents, average-pooled, no sinks and the
// observation window kept as the recent tokens (0 + 24 + 8 = 32 slots).
// CHECK-LABEL: func.func @select_mla(
// CHECK-SAME:    %[[Q:.+]]: tensor<1x64x48xbf16>, %[[L:.+]]: tensor<1x64x40xbf16>, %[[W:.+]]: tensor<64x32xbf16>, %[[C:.+]]: !kv.latent_cache<{{.+}}>) -> !kv.latent_cache
// CHECK:         %[[S:.+]] = kv.score %[[Q]], %[[L]] absorb %[[W]] {num_groups = 1 : i64, num_heads = 2 : i64, obs_window = 8 : i64} : tensor<1x64x48xbf16>, tensor<1x64x40xbf16>, tensor<64x32xbf16> -> tensor<1x1x64xf32>
// CHECK:         %[[P:.+]] = kv.pool %[[S]] {kernel = 5 : i64, kind = #kv<pool avg>} : tensor<1x1x64xf32>
// CHECK:         %[[I:.+]] = kv.topk %[[P]] {k = 24 : i64, recent = 8 : i64, sinks = 0 : i64} : tensor<1x1x64xf32> -> tensor<1x1x24xi32>
// CHECK:         %[[C1:.+]] = kv.gather_store %[[C]][1] select %[[I]], %[[L]] : !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.snapkv<budget = 32, obs_window = 8, kernel = 5, pool = avg>> select tensor<1x1x24xi32>, tensor<1x64x40xbf16>
// CHECK:         return %[[C1]]
func.func @select_mla(%q: tensor<1x64x48xbf16>, %l: tensor<1x64x40xbf16>, %w: tensor<64x32xbf16>, %c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.snapkv<budget = 32, obs_window = 8, kernel = 5, pool = avg>>) -> !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.snapkv<budget = 32, obs_window = 8, kernel = 5, pool = avg>> {
  %s = kv.score %q, %l absorb %w {num_heads = 2, num_groups = 1, obs_window = 8} : tensor<1x64x48xbf16>, tensor<1x64x40xbf16>, tensor<64x32xbf16> -> tensor<1x1x64xf32>
  %p = kv.pool %s {kernel = 5, kind = #kv<pool avg>} : tensor<1x1x64xf32>
  %i = kv.topk %p {k = 24, sinks = 0, recent = 8} : tensor<1x1x64xf32> -> tensor<1x1x24xi32>
  %c1 = kv.gather_store %c[1] select %i, %l : !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.snapkv<budget = 32, obs_window = 8, kernel = 5, pool = avg>> select tensor<1x1x24xi32>, tensor<1x64x40xbf16>
  return %c1 : !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.snapkv<budget = 32, obs_window = 8, kernel = 5, pool = avg>>
}

// Tests that a StreamingLLM prefill keeps sinks and the recent window with no
// selection: kv.gather_store without `select`.
// CHECK-LABEL: func.func @streaming_prefill(
// CHECK:         kv.gather_store %{{.+}}[0], %{{.+}} : !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.streaming<sinks = 4, window = 28>>, tensor<1x64x40xbf16>
func.func @streaming_prefill(%l: tensor<1x64x40xbf16>, %c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.streaming<sinks = 4, window = 28>>) -> !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.streaming<sinks = 4, window = 28>> {
  %c1 = kv.gather_store %c[0], %l : !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.streaming<sinks = 4, window = 28>>, tensor<1x64x40xbf16>
  return %c1 : !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.streaming<sinks = 4, window = 28>>
}

// Tests that a latent cache split by sequence over 4 sockets round-trips, and
// that the default of 1 shard is elided.
// CHECK-LABEL: func.func @seq_sharded(
// CHECK-SAME:    policy = #kv.full, seq_shards = 4>
// CHECK-SAME:    policy = #kv.full>)
func.func @seq_sharded(%a: !kv.latent_cache<layers = 1, batch = 1, slots = 16, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full, seq_shards = 4>, %b: !kv.latent_cache<layers = 1, batch = 1, slots = 16, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full, seq_shards = 1>) {
  return
}

// Tests that a latent cache split by batch over 16 sockets (each holds 4
// sequences of a batch of 64) round-trips, after the format.
// CHECK-LABEL: func.func @batch_sharded(
// CHECK-SAME:    !kv.latent_cache<layers = 61, batch = 4, slots = 32768, latent_dim = 512, rope_dim = 64, dtype = bf16, policy = #kv.full, batch_shards = 16>
// CHECK-SAME:    policy = #kv.full, format = #kv.fp8, batch_shards = 16>)
func.func @batch_sharded(%a: !kv.latent_cache<layers = 61, batch = 4, slots = 32768, latent_dim = 512, rope_dim = 64, dtype = bf16, policy = #kv.full, batch_shards = 16>, %b: !kv.latent_cache<layers = 61, batch = 4, slots = 32768, latent_dim = 512, rope_dim = 64, dtype = bf16, policy = #kv.full, format = #kv.fp8, batch_shards = 16>) {
  return
}

// Tests that policies may be written unresolved (a ratio, defaults left
// open), as command-line strings are parsed, and print as written.
// CHECK-LABEL: func.func @unresolved()
// CHECK-SAME:    a = #kv.snapstream<ratio = 4>
// CHECK-SAME:    b = #kv.snapkv<budget = 64, pool = avg>
// CHECK-SAME:    c = #kv.streaming<window = 100>
// CHECK-SAME:    d = #kv.snapstream<ratio = 8, sinks = 2, kernel = 5>
func.func @unresolved() attributes {a = #kv.snapstream<ratio = 4>, b = #kv.snapkv<budget = 64, pool = avg>, c = #kv.streaming<window = 100>, d = #kv.snapstream<kernel = 5, ratio = 8, sinks = 2>} {
  return
}

// Tests the policies that evict by attention, resolved and unresolved: H2O
// (heavy hitters + recent) and Scissorhands (sinks, recent, history).
// CHECK-LABEL: func.func @evicting_policies(
// CHECK-SAME:    !kv.cache<{{.+}}policy = #kv.h2o<budget = 32, recent = 8>>
// CHECK-SAME:    !kv.latent_cache<{{.+}}policy = #kv.scissorhands<budget = 32, sinks = 4, recent = 10, history = 400>>
// CHECK-SAME:    a = #kv.h2o<ratio = 5>
// CHECK-SAME:    b = #kv.scissorhands<ratio = 4, history = 100>
func.func @evicting_policies(%h: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>>, %s: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.scissorhands<budget = 32, sinks = 4, recent = 10, history = 400>>) attributes {a = #kv.h2o<ratio = 5>, b = #kv.scissorhands<history = 100, ratio = 4>} {
  return
}

// Tests that kv.evict updates a cache from a decode attention's
// probabilities (one row per KV-head group, one group for a latent cache),
// that the attention returns them, and that gather_store takes the scores
// a stateful policy starts from.
// CHECK-LABEL: func.func @evict(
// CHECK:         %{{.+}}, %[[C1:.+]], %[[P:.+]] = llm.attention {{.+}} -> tensor<1x1x64xbf16>, probs tensor<1x2x32xf32>
// CHECK:         %[[E:.+]] = kv.evict %[[C1]][1], %[[P]] : !kv.cache<{{.+}}policy = #kv.h2o<budget = 32, recent = 8>>, tensor<1x2x32xf32>
// CHECK:         kv.evict %{{.+}}[0], %{{.+}} : !kv.latent_cache<{{.+}}>, tensor<1x1x32xf32>
// CHECK:         kv.gather_store %{{.+}}[0] select %{{.+}} scores %{{.+}}, %{{.+}}, %{{.+}} : !kv.cache<{{.+}}> select tensor<1x2x24xi32> scores tensor<1x2x64xf32>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>
!h2o = !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>>
!sh = !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.scissorhands<budget = 32, sinks = 4, recent = 10, history = 400>>
func.func @evict(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !h2o, %lc: !sh, %lp: tensor<1x1x32xf32>, %i: tensor<1x2x24xi32>, %s: tensor<1x2x64xf32>, %pk: tensor<1x64x32xbf16>, %pv: tensor<1x64x32xbf16>) -> (!h2o, !sh, !h2o) {
  %o, %c1, %p = llm.attention %q, %k, %v, %c {layer = 1, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !h2o -> tensor<1x1x64xbf16>, probs tensor<1x2x32xf32>
  %e = kv.evict %c1[1], %p : !h2o, tensor<1x2x32xf32>
  %le = kv.evict %lc[0], %lp : !sh, tensor<1x1x32xf32>
  %g = kv.gather_store %c[0] select %i scores %s, %pk, %pv : !h2o select tensor<1x2x24xi32> scores tensor<1x2x64xf32>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>
  return %e, %le, %g : !h2o, !sh, !h2o
}

// Tests the paged policy with a DDR backup (ArkVale), resolved and
// unresolved, and its ops: a decode step scores the 16 backed-up pages'
// digests with the query, takes the top 4 outside 1 sink page and 2 window
// pages, recalls 2 of them, and backs the new token up; a prefill keeps
// 8 - 1 - 2 = 5 chosen pages of 4 tokens (gather_store's indices are pages).
// CHECK-LABEL: func.func @paged(
// CHECK-SAME:    policy = #kv.arkvale<budget = 32, page = 4, sinks = 1, window = 2, topk = 4, recall = 2, tokens = 64>
// CHECK-SAME:    a = #kv.arkvale<ratio = 8>
// CHECK:         %[[S:.+]] = kv.page_score %{{.+}}, %[[C:.+]][1] {num_heads = 4 : i64} : tensor<1x1x64xbf16>, !kv.cache<{{.+}}> -> tensor<1x1x16xf32>
// CHECK:         %[[I:.+]] = kv.topk %[[S]] {k = 4 : i64, recent = 2 : i64, sinks = 1 : i64}
// CHECK:         %[[R:.+]] = kv.recall %[[C]][1], %[[I]] {pages = 2 : i64} : !kv.cache<{{.+}}>, tensor<1x1x4xi32>
// CHECK:         %{{.+}}, %[[A:.+]] = llm.attention %{{.+}}, %{{.+}}, %{{.+}}, %[[R]]
// CHECK:         kv.backup %[[A]][1], %{{.+}}, %{{.+}} : !kv.cache<{{.+}}>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>
// CHECK:         kv.gather_store %[[C]][0] select %{{.+}}, %{{.+}}, %{{.+}} : !kv.cache<{{.+}}> select tensor<1x1x5xi32>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>
!ark = !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.arkvale<budget = 32, page = 4, sinks = 1, window = 2, topk = 4, recall = 2, tokens = 64>>
func.func @paged(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !ark, %pi: tensor<1x1x5xi32>, %pk: tensor<1x64x32xbf16>, %pv: tensor<1x64x32xbf16>) -> (!ark, !ark) attributes {a = #kv.arkvale<ratio = 8>} {
  %s = kv.page_score %q, %c[1] {num_heads = 4} : tensor<1x1x64xbf16>, !ark -> tensor<1x1x16xf32>
  %i = kv.topk %s {k = 4, sinks = 1, recent = 2} : tensor<1x1x16xf32> -> tensor<1x1x4xi32>
  %r = kv.recall %c[1], %i {pages = 2} : !ark, tensor<1x1x4xi32>
  %o, %a = llm.attention %q, %k, %v, %r {layer = 1, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !ark -> tensor<1x1x64xbf16>
  %b = kv.backup %a[1], %k, %v : !ark, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>
  %g = kv.gather_store %c[0] select %pi, %pk, %pv : !ark select tensor<1x1x5xi32>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>
  return %b, %g : !ark, !ark
}

// Tests that a GQA cache round-trips with each element format, resolved
// (every number written), the format printed last.
// CHECK-LABEL: func.func @formats_gqa(
// CHECK-SAME:    !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.fp8>
// CHECK-SAME:    !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 128>>
// CHECK-SAME:    !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.quarot<bits = 4>>
// CHECK-SAME:    !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>>)
func.func @formats_gqa(%fp8: !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.fp8>,
                       %kivi: !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 128>>,
                       %quarot: !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.quarot<bits = 4>>,
                       %zip: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>>) {
  return
}

// Tests that a latent cache round-trips with each element format, after
// seq_shards when that is not the default.
// CHECK-LABEL: func.func @formats_latent(
// CHECK-SAME:    !kv.latent_cache<layers = 2, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full, format = #kv.fp8>
// CHECK-SAME:    !kv.latent_cache<layers = 2, batch = 1, slots = 256, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 4, group = 32, residual = 128>>
// CHECK-SAME:    !kv.latent_cache<layers = 2, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full, seq_shards = 2, format = #kv.quarot<bits = 4>>
// CHECK-SAME:    !kv.latent_cache<layers = 2, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 8, low = 4, salient = 20, gap = 50, probes = 5>>)
func.func @formats_latent(%fp8: !kv.latent_cache<layers = 2, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full, format = #kv.fp8>,
                          %kivi: !kv.latent_cache<layers = 2, batch = 1, slots = 256, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 4, group = 32, residual = 128>>,
                          %quarot: !kv.latent_cache<layers = 2, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full, seq_shards = 2, format = #kv.quarot<bits = 4>>,
                          %zip: !kv.latent_cache<layers = 2, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 8, low = 4, salient = 20, gap = 50, probes = 5>>) {
  return
}

// Tests that formats may be written unresolved (defaults left open), as
// command-line strings are parsed, and print as written: only the keys
// given, in declaration order, and `<>` for none.
// CHECK-LABEL: func.func @unresolved_formats()
// CHECK-SAME:    a = #kv.kivi<bits = 2>
// CHECK-SAME:    b = #kv.kivi<bits = 4, residual = 64>
// CHECK-SAME:    c = #kv.quarot<>
// CHECK-SAME:    d = #kv.zipcache<>
// CHECK-SAME:    e = #kv.zipcache<high = 8, gap = 50>
func.func @unresolved_formats() attributes {a = #kv.kivi<bits = 2>, b = #kv.kivi<residual = 64, bits = 4>, c = #kv.quarot<>, d = #kv.zipcache<>, e = #kv.zipcache<gap = 50, high = 8>} {
  return
}

// Tests the format ops: KIVI's per-step quantization of one residual token
// (no salient set), ZipCache's prefill quantization of 32 prompt tokens with
// the 20 salient ones per group at high precision, and ZipCache's periodic
// re-quantization from the step's query (4 heads over 2 groups).
// CHECK-LABEL: func.func @format_ops(
// CHECK-SAME:    %[[KC:[^:]+]]: !kv.cache<{{.+}}>, %[[ZC:[^:]+]]: !kv.cache<{{.+}}>, %[[S:[^:]+]]: tensor<2x2x20xi32>, %[[Q:[^:]+]]: tensor<2x1x64xbf16>)
// CHECK:         %[[K1:.+]] = kv.quantize %[[KC]][1] {every = 1 : i64, tokens = 1 : i64} : !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 128>>
// CHECK-NEXT:    %[[Z1:.+]] = kv.quantize %[[ZC]][0] salient %[[S]] {every = 1 : i64, tokens = 32 : i64} : !kv.cache<layers = 2, batch = 2, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>> salient tensor<2x2x20xi32>
// CHECK-NEXT:    %[[Z2:.+]] = kv.requantize %[[Q]], %[[Z1]][0] {every = 100 : i64, num_heads = 4 : i64} : tensor<2x1x64xbf16>, !kv.cache<layers = 2, batch = 2, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>>
// CHECK-NEXT:    return %[[K1]], %[[Z2]]
!kivi = !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 128>>
!zip = !kv.cache<layers = 2, batch = 2, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>>
func.func @format_ops(%kc: !kivi, %zc: !zip, %s: tensor<2x2x20xi32>, %q: tensor<2x1x64xbf16>) -> (!kivi, !zip) {
  %k1 = kv.quantize %kc[1] {every = 1, tokens = 1} : !kivi
  %z1 = kv.quantize %zc[0] salient %s {every = 1, tokens = 32} : !zip salient tensor<2x2x20xi32>
  %z2 = kv.requantize %q, %z1[0] {every = 100, num_heads = 4} : tensor<2x1x64xbf16>, !zip
  return %k1, %z2 : !kivi, !zip
}
