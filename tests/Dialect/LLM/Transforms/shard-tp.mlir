// RUN: snapflow-opt %s -split-input-file --shard-tp="tp=4" | FileCheck %s
// RUN: snapflow-opt %s -split-input-file --shard-tp="tp=0" | FileCheck %s --check-prefix=ALL
// RUN: snapflow-opt %s -split-input-file --shard-tp="tp=1" | FileCheck %s --check-prefix=ONE

// The default modes (mla-cache=replicate, moe=expert); the others are tested
// in shard-tp-mla-sequence.mlir and shard-tp-moe-split.mlir, the errors in
// shard-tp-invalid.mlir. Most cases run on the tiny chip, whose 4 sockets
// tp = 0 also takes.

// Tests that query and KV heads split over 4 sockets and the output
// projection sums its partial products: 16 query heads of 4 give 4 per
// socket (q_proj 4 x 4 = 16 of its 64 rows, its rope 4 heads), 8 KV heads
// give 2 (k_proj and v_proj 2 x 4 = 8 of their 32 rows, the cache 2 KV
// heads), the output projection keeps 16 of its 64 input columns and an
// all-reduce over the 4 sockets sums its output; the module records tp.
// CHECK-LABEL: module @heads attributes {df.target = #df.target<"tiny", {{.+}}>, llm.tp = 4 : i64}
// CHECK:         func.func @decode(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x64xbf16>, %[[C:.+]]: !kv.cache<layers = 1, batch = 1, slots = 8, kv_heads = 2, head_dim = 4, dtype = bf16, policy = #kv.full>)
// CHECK-SAME:    -> (tensor<1x1x64xbf16>, !kv.cache<layers = 1, batch = 1, slots = 8, kv_heads = 2, head_dim = 4, dtype = bf16, policy = #kv.full>)
// CHECK-NEXT:    %[[WQ:.+]] = llm.param @q : tensor<16x64xbf16>
// CHECK-NEXT:    %[[WK:.+]] = llm.param @k : tensor<8x64xbf16>
// CHECK-NEXT:    %[[WV:.+]] = llm.param @v : tensor<8x64xbf16>
// CHECK-NEXT:    %[[WO:.+]] = llm.param @o : tensor<64x16xbf16>
// CHECK-NEXT:    %[[Q:.+]] = llm.linear %[[X]], %[[WQ]] : tensor<1x1x64xbf16>, tensor<16x64xbf16> -> tensor<1x1x16xbf16>
// CHECK-NEXT:    %[[QR:.+]] = llm.rope %[[Q]] {head_dim = 4 : i64, num_heads = 4 : i64, rotary_dim = 4 : i64, theta = 5.000000e+05 : f64} : tensor<1x1x16xbf16>
// CHECK-NEXT:    %[[K:.+]] = llm.linear %[[X]], %[[WK]] : tensor<1x1x64xbf16>, tensor<8x64xbf16> -> tensor<1x1x8xbf16>
// CHECK-NEXT:    %[[KR:.+]] = llm.rope %[[K]] {head_dim = 4 : i64, num_heads = 2 : i64, rotary_dim = 4 : i64, theta = 5.000000e+05 : f64} : tensor<1x1x8xbf16>
// CHECK-NEXT:    %[[V:.+]] = llm.linear %[[X]], %[[WV]] : tensor<1x1x64xbf16>, tensor<8x64xbf16> -> tensor<1x1x8xbf16>
// CHECK-NEXT:    %[[O:.+]], %[[C1:.+]] = llm.attention %[[QR]], %[[KR]], %[[V]], %[[C]] {head_dim = 4 : i64, layer = 0 : i64, num_heads = 4 : i64, num_kv_heads = 2 : i64, phase = #llm<phase decode>} : tensor<1x1x16xbf16>, tensor<1x1x8xbf16>, tensor<1x1x8xbf16>, !kv.cache<{{.+}}kv_heads = 2{{.+}}> -> tensor<1x1x16xbf16>
// CHECK-NEXT:    %[[Y:.+]] = llm.linear %[[O]], %[[WO]] : tensor<1x1x16xbf16>, tensor<64x16xbf16> -> tensor<1x1x64xbf16>
// CHECK-NEXT:    %[[S:.+]] = llm.all_reduce %[[Y]] {group_size = 4 : i64, kind = #llm<reduce sum>} : tensor<1x1x64xbf16>
// CHECK-NEXT:    return %[[S]], %[[C1]]
!c = !kv.cache<layers = 1, batch = 1, slots = 8, kv_heads = 8, head_dim = 4, dtype = bf16, policy = #kv.full>
module @heads attributes {df.target = #df.target<"tiny">} {
func.func @decode(%x: tensor<1x1x64xbf16>, %c: !c) -> (tensor<1x1x64xbf16>, !c) {
  %wq = llm.param @q : tensor<64x64xbf16>
  %wk = llm.param @k : tensor<32x64xbf16>
  %wv = llm.param @v : tensor<32x64xbf16>
  %wo = llm.param @o : tensor<64x64xbf16>
  %q = llm.linear %x, %wq : tensor<1x1x64xbf16>, tensor<64x64xbf16> -> tensor<1x1x64xbf16>
  %qr = llm.rope %q {num_heads = 16, head_dim = 4, rotary_dim = 4, theta = 5.0e+05 : f64} : tensor<1x1x64xbf16>
  %k = llm.linear %x, %wk : tensor<1x1x64xbf16>, tensor<32x64xbf16> -> tensor<1x1x32xbf16>
  %kr = llm.rope %k {num_heads = 8, head_dim = 4, rotary_dim = 4, theta = 5.0e+05 : f64} : tensor<1x1x32xbf16>
  %v = llm.linear %x, %wv : tensor<1x1x64xbf16>, tensor<32x64xbf16> -> tensor<1x1x32xbf16>
  %o, %c1 = llm.attention %qr, %kr, %v, %c {layer = 0, num_heads = 16, num_kv_heads = 8, head_dim = 4, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !c -> tensor<1x1x64xbf16>
  %y = llm.linear %o, %wo : tensor<1x1x64xbf16>, tensor<64x64xbf16> -> tensor<1x1x64xbf16>
  return %y, %c1 : tensor<1x1x64xbf16>, !c
}
}

// -----

// Tests that fewer KV heads than sockets are replicated: 2 KV heads over 4
// sockets leave 1 per socket (each head held by 4 / 2 = 2 sockets), k_proj
// and v_proj 1 x 4 = 4 of their 8 rows, a cache of 1 KV head; the 8 query
// heads still split, 2 per socket (2 x 4 = 8 of the 32 q_proj rows).
// CHECK-LABEL: func.func @replicated_kv(
// CHECK-SAME:    !kv.cache<layers = 1, batch = 1, slots = 8, kv_heads = 1, head_dim = 4, dtype = bf16, policy = #kv.full>
// CHECK:         llm.param @q : tensor<8x32xbf16>
// CHECK-NEXT:    llm.param @k : tensor<4x32xbf16>
// CHECK-NEXT:    llm.param @v : tensor<4x32xbf16>
// CHECK-NEXT:    llm.param @o : tensor<32x8xbf16>
// CHECK:         llm.attention {{.+}}num_heads = 2 : i64, num_kv_heads = 1 : i64{{.+}} : tensor<1x1x8xbf16>, tensor<1x1x4xbf16>, tensor<1x1x4xbf16>, !kv.cache<{{.+}}kv_heads = 1{{.+}}> -> tensor<1x1x8xbf16>
!c = !kv.cache<layers = 1, batch = 1, slots = 8, kv_heads = 2, head_dim = 4, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny">} {
func.func @replicated_kv(%x: tensor<1x1x32xbf16>, %c: !c) -> (tensor<1x1x32xbf16>, !c) {
  %wq = llm.param @q : tensor<32x32xbf16>
  %wk = llm.param @k : tensor<8x32xbf16>
  %wv = llm.param @v : tensor<8x32xbf16>
  %wo = llm.param @o : tensor<32x32xbf16>
  %q = llm.linear %x, %wq : tensor<1x1x32xbf16>, tensor<32x32xbf16> -> tensor<1x1x32xbf16>
  %k = llm.linear %x, %wk : tensor<1x1x32xbf16>, tensor<8x32xbf16> -> tensor<1x1x8xbf16>
  %v = llm.linear %x, %wv : tensor<1x1x32xbf16>, tensor<8x32xbf16> -> tensor<1x1x8xbf16>
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 8, num_kv_heads = 2, head_dim = 4, phase = #llm<phase decode>} : tensor<1x1x32xbf16>, tensor<1x1x8xbf16>, tensor<1x1x8xbf16>, !c -> tensor<1x1x32xbf16>
  %y = llm.linear %o, %wo : tensor<1x1x32xbf16>, tensor<32x32xbf16> -> tensor<1x1x32xbf16>
  return %y, %c1 : tensor<1x1x32xbf16>, !c
}
}

// -----

// Tests that an MLP splits its 64 intermediate columns: gate and up keep
// 64 / 4 = 16 of their rows, down 16 of its columns, and an all-reduce sums
// the partial outputs; the all-reduce belongs to the MLP's layer, so
// --fuse-layers keeps it in the layer's body.
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x16xbf16>)
// CHECK-NEXT:    %[[G:.+]] = llm.param @gate : tensor<16x16xbf16>
// CHECK-NEXT:    %[[U:.+]] = llm.param @up : tensor<16x16xbf16>
// CHECK-NEXT:    %[[D:.+]] = llm.param @down : tensor<16x16xbf16>
// CHECK-NEXT:    %[[M:.+]] = llm.mlp %[[X]], %[[G]], %[[U]], %[[D]] {llm.layer = 3 : i64} : tensor<1x1x16xbf16>, tensor<16x16xbf16>, tensor<16x16xbf16>, tensor<16x16xbf16>
// CHECK-NEXT:    %[[S:.+]] = llm.all_reduce %[[M]] {group_size = 4 : i64, kind = #llm<reduce sum>, llm.layer = 3 : i64} : tensor<1x1x16xbf16>
// CHECK-NEXT:    return %[[S]]
module attributes {df.target = #df.target<"tiny">} {
func.func @mlp(%x: tensor<1x1x16xbf16>) -> tensor<1x1x16xbf16> {
  %g = llm.param @gate : tensor<64x16xbf16>
  %u = llm.param @up : tensor<64x16xbf16>
  %d = llm.param @down : tensor<16x64xbf16>
  %y = llm.mlp %x, %g, %u, %d {llm.layer = 3 : i64} : tensor<1x1x16xbf16>, tensor<64x16xbf16>, tensor<64x16xbf16>, tensor<16x64xbf16>
  return %y : tensor<1x1x16xbf16>
}
}

// -----

// Tests that the vocabulary splits by rows: the 64-row table shared by the
// embedding and the output head is split once, to 64 / 4 = 16 rows; each
// socket looks up the tokens it holds and an all-reduce sums the lookups;
// each socket's 16 logits are gathered into 4 x 16 = 64.
// CHECK-LABEL: func.func @vocab(
// CHECK-SAME:    %[[T:.+]]: tensor<1x1xi32>)
// CHECK-NEXT:    %[[W:.+]] = llm.param @embed : tensor<16x16xbf16>
// CHECK-NEXT:    %[[E:.+]] = llm.embed %[[T]], %[[W]] : tensor<1x1xi32>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
// CHECK-NEXT:    %[[H:.+]] = llm.all_reduce %[[E]] {group_size = 4 : i64, kind = #llm<reduce sum>} : tensor<1x1x16xbf16>
// CHECK-NEXT:    %[[L:.+]] = llm.lm_head %[[H]], %[[W]] : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
// CHECK-NEXT:    %[[A:.+]] = llm.all_gather %[[L]] {dim = 2 : i64, group_size = 4 : i64} : tensor<1x1x16xbf16> -> tensor<1x1x64xbf16>
// CHECK-NEXT:    return %[[A]] : tensor<1x1x64xbf16>
module attributes {df.target = #df.target<"tiny">} {
func.func @vocab(%tokens: tensor<1x1xi32>) -> tensor<1x1x64xbf16> {
  %w = llm.param @embed : tensor<64x16xbf16>
  %h = llm.embed %tokens, %w : tensor<1x1xi32>, tensor<64x16xbf16> -> tensor<1x1x16xbf16>
  %l = llm.lm_head %h, %w : tensor<1x1x16xbf16>, tensor<64x16xbf16> -> tensor<1x1x64xbf16>
  return %l : tensor<1x1x64xbf16>
}
}

// -----

// Tests that a vocabulary that does not divide is padded up: 10 rows over 4
// sockets are ceil(10 / 4) = 3 per socket, and the gathered logits are
// 4 x 3 = 12 wide, the 2 padding columns included.
// CHECK-LABEL: func.func @padded_vocab(
// CHECK-SAME:    -> tensor<1x1x12xbf16>
// CHECK-NEXT:    %[[W:.+]] = llm.param @lm_head : tensor<3x16xbf16>
// CHECK-NEXT:    %[[L:.+]] = llm.lm_head %{{.+}}, %[[W]] : tensor<1x1x16xbf16>, tensor<3x16xbf16> -> tensor<1x1x3xbf16>
// CHECK-NEXT:    %[[A:.+]] = llm.all_gather %[[L]] {dim = 2 : i64, group_size = 4 : i64} : tensor<1x1x3xbf16> -> tensor<1x1x12xbf16>
// CHECK-NEXT:    return %[[A]]
module attributes {df.target = #df.target<"tiny">} {
func.func @padded_vocab(%h: tensor<1x1x16xbf16>) -> tensor<1x1x10xbf16> {
  %w = llm.param @lm_head : tensor<10x16xbf16>
  %l = llm.lm_head %h, %w : tensor<1x1x16xbf16>, tensor<10x16xbf16> -> tensor<1x1x10xbf16>
  return %l : tensor<1x1x10xbf16>
}
}

// -----

// Tests that MLA splits by heads with the latent cache replicated: of 4 heads
// (no-rope 8, rope 4, value 8) each socket keeps 1: q_proj 1 x (8 + 4) = 12
// of its 48 rows and a rope of 1 head, the KV up-projection 1 x (8 + 8) = 16
// of its 64 rows, a result of 1 x 8 = 8 and the output projection 8 of its 32
// columns, then an all-reduce. The latent down-projection (12 x 32) and the
// cache stay whole on every socket.
// CHECK-LABEL: func.func @mla(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x32xbf16>, %[[C:.+]]: !kv.latent_cache<layers = 1, batch = 1, slots = 16, latent_dim = 8, rope_dim = 4, dtype = bf16, policy = #kv.full>)
// CHECK-NEXT:    %[[WQ:.+]] = llm.param @q : tensor<12x32xbf16>
// CHECK-NEXT:    %[[Q:.+]] = llm.linear %[[X]], %[[WQ]] : tensor<1x1x32xbf16>, tensor<12x32xbf16> -> tensor<1x1x12xbf16>
// CHECK-NEXT:    %[[QR:.+]] = llm.rope %[[Q]] {head_dim = 12 : i64, num_heads = 1 : i64, rotary_dim = 4 : i64, theta = 1.000000e+04 : f64} : tensor<1x1x12xbf16>
// CHECK-NEXT:    %[[WA:.+]] = llm.param @kv_a : tensor<12x32xbf16>
// CHECK-NEXT:    %[[L:.+]] = llm.linear %[[X]], %[[WA]] : tensor<1x1x32xbf16>, tensor<12x32xbf16> -> tensor<1x1x12xbf16>
// CHECK-NEXT:    %[[WB:.+]] = llm.param @kv_b : tensor<16x8xbf16>
// CHECK-NEXT:    %[[N:.+]] = llm.param @kv_norm : tensor<8xbf16>
// CHECK-NEXT:    %[[O:.+]], %[[C1:.+]] = llm.mla_attention %[[QR]], %[[L]], %[[WB]], %[[N]], %[[C]] {kv_lora_rank = 8 : i64, layer = 0 : i64, num_heads = 1 : i64, {{.+}}} : tensor<1x1x12xbf16>, tensor<1x1x12xbf16>, tensor<16x8xbf16>, tensor<8xbf16>, !kv.latent_cache<{{.+}}slots = 16{{.+}}> -> tensor<1x1x8xbf16>
// CHECK-NEXT:    %[[WO:.+]] = llm.param @o : tensor<32x8xbf16>
// CHECK-NEXT:    %[[Y:.+]] = llm.linear %[[O]], %[[WO]] : tensor<1x1x8xbf16>, tensor<32x8xbf16> -> tensor<1x1x32xbf16>
// CHECK-NEXT:    %[[S:.+]] = llm.all_reduce %[[Y]] {group_size = 4 : i64, kind = #llm<reduce sum>} : tensor<1x1x32xbf16>
// CHECK-NEXT:    return %[[S]], %[[C1]]
!lat = !kv.latent_cache<layers = 1, batch = 1, slots = 16, latent_dim = 8, rope_dim = 4, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny">} {
func.func @mla(%x: tensor<1x1x32xbf16>, %c: !lat) -> (tensor<1x1x32xbf16>, !lat) {
  %wq = llm.param @q : tensor<48x32xbf16>
  %q = llm.linear %x, %wq : tensor<1x1x32xbf16>, tensor<48x32xbf16> -> tensor<1x1x48xbf16>
  %qr = llm.rope %q {num_heads = 4, head_dim = 12, rotary_dim = 4, theta = 1.0e+04 : f64} : tensor<1x1x48xbf16>
  %wa = llm.param @kv_a : tensor<12x32xbf16>
  %l = llm.linear %x, %wa : tensor<1x1x32xbf16>, tensor<12x32xbf16> -> tensor<1x1x12xbf16>
  %wb = llm.param @kv_b : tensor<64x8xbf16>
  %n = llm.param @kv_norm : tensor<8xbf16>
  %o, %c1 = llm.mla_attention %qr, %l, %wb, %n, %c {layer = 0, num_heads = 4, qk_nope_head_dim = 8, qk_rope_head_dim = 4, v_head_dim = 8, kv_lora_rank = 8, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x12xbf16>, tensor<64x8xbf16>, tensor<8xbf16>, !lat -> tensor<1x1x32xbf16>
  %wo = llm.param @o : tensor<32x32xbf16>
  %y = llm.linear %o, %wo : tensor<1x1x32xbf16>, tensor<32x32xbf16> -> tensor<1x1x32xbf16>
  return %y, %c1 : tensor<1x1x32xbf16>, !lat
}
}

// -----

// Tests that experts spread over the sockets: of 8 experts each socket holds
// 8 / 4 = 2 (expert_shards = 4), while the router keeps all 8 rows; the
// shared expert (the MLP added to their output), 16 wide, splits like an
// MLP to 16 / 4 = 4; one all-reduce after the sum adds the partial outputs.
// CHECK-LABEL: func.func @moe(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x16xbf16>)
// CHECK-NEXT:    %[[R:.+]] = llm.param @router : tensor<8x16xbf16>
// CHECK-NEXT:    %[[G:.+]] = llm.param @gate : tensor<2x4x16xbf16>
// CHECK-NEXT:    %[[U:.+]] = llm.param @up : tensor<2x4x16xbf16>
// CHECK-NEXT:    %[[D:.+]] = llm.param @down : tensor<2x16x4xbf16>
// CHECK-NEXT:    %[[SG:.+]] = llm.param @shared_gate : tensor<4x16xbf16>
// CHECK-NEXT:    %[[SU:.+]] = llm.param @shared_up : tensor<4x16xbf16>
// CHECK-NEXT:    %[[SD:.+]] = llm.param @shared_down : tensor<16x4xbf16>
// CHECK-NEXT:    %[[E:.+]] = llm.route %[[X]], %[[R]] {top_k = 2 : i64} : tensor<1x1x16xbf16>, tensor<8x16xbf16> -> tensor<1x1x2xi32>
// CHECK-NEXT:    %[[Y:.+]] = llm.moe %[[X]], %[[E]], %[[G]], %[[U]], %[[D]] {expert_shards = 4 : i64, num_experts = 2 : i64, top_k = 2 : i64}
// CHECK-NEXT:    %[[M:.+]] = llm.mlp %[[X]], %[[SG]], %[[SU]], %[[SD]]
// CHECK-NEXT:    %[[A:.+]] = llm.add %[[Y]], %[[M]]
// CHECK-NEXT:    %[[S:.+]] = llm.all_reduce %[[A]] {group_size = 4 : i64, kind = #llm<reduce sum>} : tensor<1x1x16xbf16>
// CHECK-NEXT:    return %[[S]]
module attributes {df.target = #df.target<"tiny">} {
func.func @moe(%x: tensor<1x1x16xbf16>) -> tensor<1x1x16xbf16> {
  %r = llm.param @router : tensor<8x16xbf16>
  %g = llm.param @gate : tensor<8x4x16xbf16>
  %u = llm.param @up : tensor<8x4x16xbf16>
  %d = llm.param @down : tensor<8x16x4xbf16>
  %sg = llm.param @shared_gate : tensor<16x16xbf16>
  %su = llm.param @shared_up : tensor<16x16xbf16>
  %sd = llm.param @shared_down : tensor<16x16xbf16>
  %y_experts = llm.route %x, %r {top_k = 2} : tensor<1x1x16xbf16>, tensor<8x16xbf16> -> tensor<1x1x2xi32>
  %y_routed = llm.moe %x, %y_experts, %g, %u, %d {num_experts = 8, top_k = 2} : tensor<1x1x16xbf16>, tensor<1x1x2xi32>, tensor<8x4x16xbf16>, tensor<8x4x16xbf16>, tensor<8x16x4xbf16>
  %y_shared = llm.mlp %x, %sg, %su, %sd : tensor<1x1x16xbf16>, tensor<16x16xbf16>, tensor<16x16xbf16>, tensor<16x16xbf16>
  %y = llm.add %y_routed, %y_shared : tensor<1x1x16xbf16>
  return %y : tensor<1x1x16xbf16>
}
}

// -----

// Tests that a SnapKV selection (inserted by --kv-compress) follows the
// attention's local heads: 8 query heads and 4 KV-head groups become 2 heads
// and 1 group per socket, so the scores, pooled scores and selected indices
// have 1 group instead of 4; the 20 selected tokens per group do not change.
// CHECK-LABEL: func.func @prefill(
// CHECK:         %[[Q:.+]] = llm.linear {{.+}} -> tensor<1x64x8xbf16>
// CHECK-NEXT:    %[[K:.+]] = llm.linear {{.+}} -> tensor<1x64x4xbf16>
// CHECK:         %[[S:.+]] = kv.score %[[Q]], %[[K]] {num_groups = 1 : i64, num_heads = 2 : i64, obs_window = 8 : i64} : tensor<1x64x8xbf16>, tensor<1x64x4xbf16> -> tensor<1x1x64xf32>
// CHECK-NEXT:    %[[P:.+]] = kv.pool %[[S]] {kernel = 3 : i64, kind = #kv<pool max>} : tensor<1x1x64xf32>
// CHECK-NEXT:    %[[I:.+]] = kv.topk %[[P]] {k = 20 : i64, recent = 8 : i64, sinks = 4 : i64} : tensor<1x1x64xf32> -> tensor<1x1x20xi32>
// CHECK-NEXT:    kv.gather_store %{{.+}}[0] select %[[I]], %[[K]], %{{.+}} : !kv.cache<{{.+}}kv_heads = 1{{.+}}> select tensor<1x1x20xi32>, tensor<1x64x4xbf16>, tensor<1x64x4xbf16>
!snap = !kv.cache<layers = 1, batch = 1, slots = 32, kv_heads = 4, head_dim = 4, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>
module attributes {df.target = #df.target<"tiny">} {
func.func @prefill(%x: tensor<1x64x32xbf16>, %c: !snap) -> (tensor<1x64x32xbf16>, !snap) {
  %wq = llm.param @q : tensor<32x32xbf16>
  %wk = llm.param @k : tensor<16x32xbf16>
  %wv = llm.param @v : tensor<16x32xbf16>
  %wo = llm.param @o : tensor<32x32xbf16>
  %q = llm.linear %x, %wq : tensor<1x64x32xbf16>, tensor<32x32xbf16> -> tensor<1x64x32xbf16>
  %k = llm.linear %x, %wk : tensor<1x64x32xbf16>, tensor<16x32xbf16> -> tensor<1x64x16xbf16>
  %v = llm.linear %x, %wv : tensor<1x64x32xbf16>, tensor<16x32xbf16> -> tensor<1x64x16xbf16>
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 8, num_kv_heads = 4, head_dim = 4, phase = #llm<phase prefill>} : tensor<1x64x32xbf16>, tensor<1x64x16xbf16>, tensor<1x64x16xbf16>, !snap -> tensor<1x64x32xbf16>
  %s = kv.score %q, %k {num_heads = 8, num_groups = 4, obs_window = 8} : tensor<1x64x32xbf16>, tensor<1x64x16xbf16> -> tensor<1x4x64xf32>
  %p = kv.pool %s {kernel = 3, kind = #kv<pool max>} : tensor<1x4x64xf32>
  %i = kv.topk %p {k = 20, sinks = 4, recent = 8} : tensor<1x4x64xf32> -> tensor<1x4x20xi32>
  %c2 = kv.gather_store %c1[0] select %i, %k, %v : !snap select tensor<1x4x20xi32>, tensor<1x64x16xbf16>, tensor<1x64x16xbf16>
  %y = llm.linear %o, %wo : tensor<1x64x32xbf16>, tensor<32x32xbf16> -> tensor<1x64x32xbf16>
  return %y, %c2 : tensor<1x64x32xbf16>, !snap
}
}

// -----

// Tests that tp = 0 takes every socket of the module's chip: sn40l-16 has 16
// sockets, so the MLP keeps 64 / 16 = 4 of its columns and the all-reduce
// spans 16 sockets (tp = 4 splits it to 16 columns, as any tp would).
// ALL-LABEL: module @sn40l_16 attributes {df.target = #df.target<"sn40l-16", {{.+}}>, llm.tp = 16 : i64}
// ALL-NEXT:    func.func @all_sockets(
// ALL-NEXT:    llm.param @gate : tensor<4x16xbf16>
// ALL-NEXT:    llm.param @up : tensor<4x16xbf16>
// ALL-NEXT:    llm.param @down : tensor<16x4xbf16>
// ALL-NEXT:    %[[M:.+]] = llm.mlp
// ALL-NEXT:    llm.all_reduce %[[M]] {group_size = 16 : i64, kind = #llm<reduce sum>}
// CHECK-LABEL: func.func @all_sockets(
// CHECK-NEXT:    llm.param @gate : tensor<16x16xbf16>
module @sn40l_16 attributes {df.target = #df.target<"sn40l-16">} {
func.func @all_sockets(%x: tensor<1x1x16xbf16>) -> tensor<1x1x16xbf16> {
  %g = llm.param @gate : tensor<64x16xbf16>
  %u = llm.param @up : tensor<64x16xbf16>
  %d = llm.param @down : tensor<16x64xbf16>
  %y = llm.mlp %x, %g, %u, %d : tensor<1x1x16xbf16>, tensor<64x16xbf16>, tensor<64x16xbf16>, tensor<16x64xbf16>
  return %y : tensor<1x1x16xbf16>
}
}

// -----

// Tests that tp = 1 leaves the program as it is and only records llm.tp = 1:
// the same attention and MLP keep their weights and gain no collective.
// ONE-LABEL: module @one_socket attributes {df.target = #df.target<"tiny", {{.+}}>, llm.tp = 1 : i64}
// ONE-NEXT:    func.func @one_socket(
// ONE-SAME:    !kv.cache<{{.+}}kv_heads = 2{{.+}}>
// ONE-NEXT:    llm.param @q : tensor<32x32xbf16>
// ONE-NEXT:    llm.param @k : tensor<8x32xbf16>
// ONE-NEXT:    llm.param @v : tensor<8x32xbf16>
// ONE-NEXT:    llm.param @o : tensor<32x32xbf16>
// ONE:         llm.attention {{.+}}num_heads = 8 : i64, num_kv_heads = 2 : i64
// ONE-NEXT:    %[[Y:.+]] = llm.linear
// ONE-NEXT:    llm.param @gate : tensor<64x32xbf16>
// ONE-NEXT:    llm.param @up : tensor<64x32xbf16>
// ONE-NEXT:    llm.param @down : tensor<32x64xbf16>
// ONE-NEXT:    %[[M:.+]] = llm.mlp %[[Y]]
// ONE-NEXT:    return %[[M]]
// ONE-NOT:     llm.all_
!c = !kv.cache<layers = 1, batch = 1, slots = 8, kv_heads = 2, head_dim = 4, dtype = bf16, policy = #kv.full>
module @one_socket attributes {df.target = #df.target<"tiny">} {
func.func @one_socket(%x: tensor<1x1x32xbf16>, %c: !c) -> (tensor<1x1x32xbf16>, !c) {
  %wq = llm.param @q : tensor<32x32xbf16>
  %wk = llm.param @k : tensor<8x32xbf16>
  %wv = llm.param @v : tensor<8x32xbf16>
  %wo = llm.param @o : tensor<32x32xbf16>
  %q = llm.linear %x, %wq : tensor<1x1x32xbf16>, tensor<32x32xbf16> -> tensor<1x1x32xbf16>
  %k = llm.linear %x, %wk : tensor<1x1x32xbf16>, tensor<8x32xbf16> -> tensor<1x1x8xbf16>
  %v = llm.linear %x, %wv : tensor<1x1x32xbf16>, tensor<8x32xbf16> -> tensor<1x1x8xbf16>
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 8, num_kv_heads = 2, head_dim = 4, phase = #llm<phase decode>} : tensor<1x1x32xbf16>, tensor<1x1x8xbf16>, tensor<1x1x8xbf16>, !c -> tensor<1x1x32xbf16>
  %y = llm.linear %o, %wo : tensor<1x1x32xbf16>, tensor<32x32xbf16> -> tensor<1x1x32xbf16>
  %g = llm.param @gate : tensor<64x32xbf16>
  %u = llm.param @up : tensor<64x32xbf16>
  %d = llm.param @down : tensor<32x64xbf16>
  %m = llm.mlp %y, %g, %u, %d : tensor<1x1x32xbf16>, tensor<64x32xbf16>, tensor<64x32xbf16>, tensor<32x64xbf16>
  return %m, %c1 : tensor<1x1x32xbf16>, !c
}
}

// -----

// Tests that a count of touched experts made for the whole expert set is
// dropped when the experts are spread: 6 of 8 experts is no count for the 2
// experts of one socket (at most 2); the routing formula, or --moe-routing
// after this pass, counts again.
// CHECK-LABEL: func.func @stale_count(
// CHECK:         llm.moe {{.+}} {expert_shards = 4 : i64, num_experts = 2 : i64, top_k = 2 : i64}
// CHECK-NOT:     expected_active_experts
module attributes {df.target = #df.target<"tiny">} {
func.func @stale_count(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %r = llm.param @r : tensor<8x8xbf16>
  %g = llm.param @g : tensor<8x4x8xbf16>
  %u = llm.param @u : tensor<8x4x8xbf16>
  %d = llm.param @d : tensor<8x8x4xbf16>
  %y_experts = llm.route %x, %r {top_k = 2} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x2xi32>
  %y = llm.moe %x, %y_experts, %g, %u, %d {num_experts = 8, top_k = 2, expected_active_experts = 6.0 : f64} : tensor<1x1x8xbf16>, tensor<1x1x2xi32>, tensor<8x4x8xbf16>, tensor<8x4x8xbf16>, tensor<8x8x4xbf16>
  return %y : tensor<1x1x8xbf16>
}
}

// -----

// Tests that the per-head ops between a projection and the attention split
// with it: Qwen3's q norm (before the rotation), Llama 4's weightless k
// norm (after it), and Qwen2's q/k/v biases (16 of 64 and 8 of 32 rows
// each). A norm's weight is one head's (4) and stays whole; the output
// projection's bias is added once, after the all-reduce's sum.
// CHECK-LABEL: module @head_ops
// CHECK:         llm.param @q.bias : tensor<16xbf16>
// CHECK:         llm.param @k.bias : tensor<8xbf16>
// CHECK:         llm.param @qn : tensor<4xbf16>
// CHECK:         %[[Q:.+]] = llm.linear {{.+}} bias {{.+}} -> tensor<1x1x16xbf16>
// CHECK-NEXT:    %[[QN:.+]] = llm.rms_norm %[[Q]], %{{.+}} {eps = {{.+}}, group = 4 : i64} : tensor<1x1x16xbf16>, tensor<4xbf16>
// CHECK-NEXT:    %[[QR:.+]] = llm.rope %[[QN]] {head_dim = 4 : i64, num_heads = 4 : i64, {{.+}}} : tensor<1x1x16xbf16>
// CHECK-NEXT:    %[[K:.+]] = llm.linear {{.+}} bias {{.+}} -> tensor<1x1x8xbf16>
// CHECK-NEXT:    %[[KR:.+]] = llm.rope %[[K]] {head_dim = 4 : i64, num_heads = 2 : i64, {{.+}}} : tensor<1x1x8xbf16>
// CHECK-NEXT:    %[[KN:.+]] = llm.rms_norm %[[KR]] {eps = {{.+}}, group = 4 : i64} : tensor<1x1x8xbf16>{{$}}
// CHECK:         llm.attention %[[QR]], %[[KN]]
// CHECK:         llm.all_reduce
!c = !kv.cache<layers = 1, batch = 1, slots = 8, kv_heads = 8, head_dim = 4, dtype = bf16, policy = #kv.full>
module @head_ops attributes {df.target = #df.target<"tiny">} {
func.func @decode(%x: tensor<1x1x64xbf16>, %c: !c) -> (tensor<1x1x64xbf16>, !c) {
  %wq = llm.param @q : tensor<64x64xbf16>
  %bq = llm.param @q.bias : tensor<64xbf16>
  %wk = llm.param @k : tensor<32x64xbf16>
  %bk = llm.param @k.bias : tensor<32xbf16>
  %wv = llm.param @v : tensor<32x64xbf16>
  %wo = llm.param @o : tensor<64x64xbf16>
  %qn = llm.param @qn : tensor<4xbf16>
  %q = llm.linear %x, %wq bias %bq : tensor<1x1x64xbf16>, tensor<64x64xbf16> bias tensor<64xbf16> -> tensor<1x1x64xbf16>
  %qnorm = llm.rms_norm %q, %qn {eps = 1.0e-06 : f64, group = 4} : tensor<1x1x64xbf16>, tensor<4xbf16>
  %qr = llm.rope %qnorm {num_heads = 16, head_dim = 4, rotary_dim = 4, theta = 5.0e+05 : f64} : tensor<1x1x64xbf16>
  %k = llm.linear %x, %wk bias %bk : tensor<1x1x64xbf16>, tensor<32x64xbf16> bias tensor<32xbf16> -> tensor<1x1x32xbf16>
  %kr = llm.rope %k {num_heads = 8, head_dim = 4, rotary_dim = 4, theta = 5.0e+05 : f64} : tensor<1x1x32xbf16>
  %knorm = llm.rms_norm %kr {eps = 1.0e-05 : f64, group = 4} : tensor<1x1x32xbf16>
  %v = llm.linear %x, %wv : tensor<1x1x64xbf16>, tensor<32x64xbf16> -> tensor<1x1x32xbf16>
  %o, %c1 = llm.attention %qr, %knorm, %v, %c {layer = 0, num_heads = 16, num_kv_heads = 8, head_dim = 4, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !c -> tensor<1x1x64xbf16>
  %y = llm.linear %o, %wo : tensor<1x1x64xbf16>, tensor<64x64xbf16> -> tensor<1x1x64xbf16>
  return %y, %c1 : tensor<1x1x64xbf16>, !c
}
}
