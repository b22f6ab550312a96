// RUN: snapflow-opt %s -split-input-file --shard-tp="tp=4 mla-cache=batch" -verify-diagnostics | FileCheck %s

// Tests that mla-cache=batch makes a decode's MLA data-parallel over the
// batch (SnapStream's deployment): the query projection splits by heads as
// with a replicated cache (48 / 4 = 12 rows, one of the 4 heads of 12); an
// all-to-all turns this socket's head of the 6 sequences into all 4 heads
// (48 wide) of its ceil(6 / 4) = 2 sequences; the step's latent, computed
// for the whole batch, is a view of those 2; the attention keeps the whole
// up-projection (64 rows) and the cache holds 2 sequences (batch_shards =
// 4); a second all-to-all turns its 2 x 32 result back into one head (8
// wide) of the 6 sequences for the split output projection and its
// all-reduce. The inserted ops belong to the layer.
// CHECK-LABEL: func.func @decode(
// CHECK-SAME:    %[[X:.+]]: tensor<6x1x32xbf16>, %[[C:.+]]: !kv.latent_cache<layers = 1, batch = 2, slots = 16, latent_dim = 8, rope_dim = 4, dtype = bf16, policy = #kv.full, batch_shards = 4>)
// CHECK-NEXT:    %[[WQ:.+]] = llm.param @q : tensor<12x32xbf16>
// CHECK-NEXT:    %[[Q:.+]] = llm.linear %[[X]], %[[WQ]] : tensor<6x1x32xbf16>, tensor<12x32xbf16> -> tensor<6x1x12xbf16>
// CHECK-NEXT:    %[[QR:.+]] = llm.rope %[[Q]] {head_dim = 12 : i64, num_heads = 1 : i64, rotary_dim = 4 : i64, theta = 1.000000e+04 : f64} : tensor<6x1x12xbf16>
// CHECK-NEXT:    %[[WA:.+]] = llm.param @kv_a : tensor<12x32xbf16>
// CHECK-NEXT:    %[[L:.+]] = llm.linear %[[X]], %[[WA]] : tensor<6x1x32xbf16>, tensor<12x32xbf16> -> tensor<6x1x12xbf16>
// CHECK-NEXT:    %[[WB:.+]] = llm.param @kv_b : tensor<64x8xbf16>
// CHECK-NEXT:    %[[N:.+]] = llm.param @kv_norm : tensor<8xbf16>
// CHECK-NEXT:    %[[QB:.+]] = llm.all_to_all %[[QR]] {concat_dim = 2 : i64, group_size = 4 : i64, llm.layer = 0 : i64, split_dim = 0 : i64} : tensor<6x1x12xbf16> -> tensor<2x1x48xbf16>
// CHECK-NEXT:    %[[LB:.+]] = llm.shard_slice %[[L]] {dim = 0 : i64, llm.layer = 0 : i64, shards = 4 : i64} : tensor<6x1x12xbf16> -> tensor<2x1x12xbf16>
// CHECK-NEXT:    %[[O:.+]], %[[C1:.+]] = llm.mla_attention %[[QB]], %[[LB]], %[[WB]], %[[N]], %[[C]] {kv_lora_rank = 8 : i64, layer = 0 : i64, llm.layer = 0 : i64, num_heads = 4 : i64, {{.+}}} : tensor<2x1x48xbf16>, tensor<2x1x12xbf16>, tensor<64x8xbf16>, tensor<8xbf16>, !kv.latent_cache<{{.+}}batch = 2{{.+}}batch_shards = 4> -> tensor<2x1x32xbf16>
// CHECK-NEXT:    %[[OH:.+]] = llm.all_to_all %[[O]] {concat_dim = 0 : i64, group_size = 4 : i64, llm.layer = 0 : i64, split_dim = 2 : i64} : tensor<2x1x32xbf16> -> tensor<6x1x8xbf16>
// CHECK-NEXT:    %[[WO:.+]] = llm.param @o : tensor<32x8xbf16>
// CHECK-NEXT:    %[[Y:.+]] = llm.linear %[[OH]], %[[WO]] {llm.layer = 0 : i64} : tensor<6x1x8xbf16>, tensor<32x8xbf16> -> tensor<6x1x32xbf16>
// CHECK-NEXT:    %[[Z:.+]] = llm.all_reduce %[[Y]] {group_size = 4 : i64, kind = #llm<reduce sum>, llm.layer = 0 : i64} : tensor<6x1x32xbf16>
// CHECK-NEXT:    return %[[Z]], %[[C1]]
!lat = !kv.latent_cache<layers = 1, batch = 6, slots = 16, latent_dim = 8, rope_dim = 4, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny">} {
func.func @decode(%x: tensor<6x1x32xbf16>, %c: !lat) -> (tensor<6x1x32xbf16>, !lat) attributes {llm.workload = #llm.workload<decode, batch = 6, tokens = 16>} {
  %wq = llm.param @q : tensor<48x32xbf16>
  %q = llm.linear %x, %wq : tensor<6x1x32xbf16>, tensor<48x32xbf16> -> tensor<6x1x48xbf16>
  %qr = llm.rope %q {num_heads = 4, head_dim = 12, rotary_dim = 4, theta = 1.0e+04 : f64} : tensor<6x1x48xbf16>
  %wa = llm.param @kv_a : tensor<12x32xbf16>
  %l = llm.linear %x, %wa : tensor<6x1x32xbf16>, tensor<12x32xbf16> -> tensor<6x1x12xbf16>
  %wb = llm.param @kv_b : tensor<64x8xbf16>
  %n = llm.param @kv_norm : tensor<8xbf16>
  %o, %c1 = llm.mla_attention %qr, %l, %wb, %n, %c {layer = 0, num_heads = 4, qk_nope_head_dim = 8, qk_rope_head_dim = 4, v_head_dim = 8, kv_lora_rank = 8, phase = #llm<phase decode>, llm.layer = 0 : i64} : tensor<6x1x48xbf16>, tensor<6x1x12xbf16>, tensor<64x8xbf16>, tensor<8xbf16>, !lat -> tensor<6x1x32xbf16>
  %wo = llm.param @o : tensor<32x32xbf16>
  %y = llm.linear %o, %wo {llm.layer = 0 : i64} : tensor<6x1x32xbf16>, tensor<32x32xbf16> -> tensor<6x1x32xbf16>
  return %y, %c1 : tensor<6x1x32xbf16>, !lat
}
}

// -----

// Tests that a prefill (one prompt at a time) attends by heads under
// mla-cache=batch, as with a replicated cache: the query projection and the
// up-projection split by heads, the cache stays whole, one all-reduce.
// CHECK-LABEL: func.func @prefill(
// CHECK-SAME:    !kv.latent_cache<layers = 1, batch = 1, slots = 16, latent_dim = 8, rope_dim = 4, dtype = bf16, policy = #kv.full>)
// CHECK:         llm.param @q : tensor<12x32xbf16>
// CHECK:         llm.param @kv_b : tensor<16x8xbf16>
// CHECK-NOT:     llm.all_to_all
// CHECK:         llm.mla_attention
// CHECK-SAME:    num_heads = 1 : i64
// CHECK:         llm.all_reduce
!lat = !kv.latent_cache<layers = 1, batch = 1, slots = 16, latent_dim = 8, rope_dim = 4, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny">} {
func.func @prefill(%x: tensor<1x4x32xbf16>, %c: !lat) -> (tensor<1x4x32xbf16>, !lat) attributes {llm.workload = #llm.workload<prefill, batch = 1, tokens = 4>} {
  %wq = llm.param @q : tensor<48x32xbf16>
  %q = llm.linear %x, %wq : tensor<1x4x32xbf16>, tensor<48x32xbf16> -> tensor<1x4x48xbf16>
  %wa = llm.param @kv_a : tensor<12x32xbf16>
  %l = llm.linear %x, %wa : tensor<1x4x32xbf16>, tensor<12x32xbf16> -> tensor<1x4x12xbf16>
  %wb = llm.param @kv_b : tensor<64x8xbf16>
  %n = llm.param @kv_norm : tensor<8xbf16>
  %o, %c1 = llm.mla_attention %q, %l, %wb, %n, %c {layer = 0, num_heads = 4, qk_nope_head_dim = 8, qk_rope_head_dim = 4, v_head_dim = 8, kv_lora_rank = 8, phase = #llm<phase prefill>} : tensor<1x4x48xbf16>, tensor<1x4x12xbf16>, tensor<64x8xbf16>, tensor<8xbf16>, !lat -> tensor<1x4x32xbf16>
  %wo = llm.param @o : tensor<32x32xbf16>
  %y = llm.linear %o, %wo : tensor<1x4x32xbf16>, tensor<32x32xbf16> -> tensor<1x4x32xbf16>
  return %y, %c1 : tensor<1x4x32xbf16>, !lat
}
}

// -----

// Tests that a paged policy's backup is not modelled for a cache split by
// batch, and says which layout is.
!lat = !kv.latent_cache<layers = 1, batch = 4, slots = 16, latent_dim = 8, rope_dim = 4, dtype = bf16, policy = #kv.arkvale<budget = 16, page = 4, sinks = 1, window = 1, topk = 1, recall = 1, tokens = 64>>
module attributes {df.target = #df.target<"tiny">} {
func.func @decode(%x: tensor<4x1x32xbf16>, %c: !lat) -> (tensor<4x1x32xbf16>, !lat) attributes {llm.workload = #llm.workload<decode, batch = 4, tokens = 64>} {
  %wq = llm.param @q : tensor<48x32xbf16>
  %q = llm.linear %x, %wq : tensor<4x1x32xbf16>, tensor<48x32xbf16> -> tensor<4x1x48xbf16>
  %wa = llm.param @kv_a : tensor<12x32xbf16>
  %l = llm.linear %x, %wa : tensor<4x1x32xbf16>, tensor<12x32xbf16> -> tensor<4x1x12xbf16>
  %wb = llm.param @kv_b : tensor<64x8xbf16>
  %n = llm.param @kv_norm : tensor<8xbf16>
  // expected-error @+1 {{'llm.mla_attention' op --mla-cache batch does not model the page backup of arkvale:budget=16,page=4,sinks=1,window=1,topk=1,recall=1,tokens=64; use the replicated latent cache (--mla-cache replicate)}}
  %o, %c1 = llm.mla_attention %q, %l, %wb, %n, %c {layer = 0, num_heads = 4, qk_nope_head_dim = 8, qk_rope_head_dim = 4, v_head_dim = 8, kv_lora_rank = 8, phase = #llm<phase decode>} : tensor<4x1x48xbf16>, tensor<4x1x12xbf16>, tensor<64x8xbf16>, tensor<8xbf16>, !lat -> tensor<4x1x32xbf16>
  %wo = llm.param @o : tensor<32x32xbf16>
  %y = llm.linear %o, %wo : tensor<4x1x32xbf16>, tensor<32x32xbf16> -> tensor<4x1x32xbf16>
  return %y, %c1 : tensor<4x1x32xbf16>, !lat
}
}
