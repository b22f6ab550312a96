// RUN: snapflow-opt %s -split-input-file --shard-tp="tp=4 mla-cache=sequence" -verify-diagnostics | FileCheck %s

// Tests that mla-cache=sequence splits the latent cache by tokens instead of
// the MLA heads: each socket holds 16 / 4 = 4 of the 16 slots (seq_shards = 4)
// and attends all 4 heads over them, so the query projection (48 rows), its
// rope and the KV up-projection (64 rows) stay whole; an all-reduce sums the
// partial results, 4 x 8 = 32 wide, and each socket slices out its own head
// (32 / 4 = 8) for the output projection, split to 8 of its 32 columns and
// followed by a second all-reduce. The inserted ops belong to the layer.
// CHECK-LABEL: func.func @decode(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x32xbf16>, %[[C:.+]]: !kv.latent_cache<layers = 1, batch = 1, slots = 4, latent_dim = 8, rope_dim = 4, dtype = bf16, policy = #kv.full, seq_shards = 4>)
// CHECK-NEXT:    %[[WQ:.+]] = llm.param @q : tensor<48x32xbf16>
// CHECK-NEXT:    %[[Q:.+]] = llm.linear %[[X]], %[[WQ]] : tensor<1x1x32xbf16>, tensor<48x32xbf16> -> tensor<1x1x48xbf16>
// CHECK-NEXT:    %[[QR:.+]] = llm.rope %[[Q]] {head_dim = 12 : i64, num_heads = 4 : i64, rotary_dim = 4 : i64, theta = 1.000000e+04 : f64} : tensor<1x1x48xbf16>
// CHECK-NEXT:    %[[WA:.+]] = llm.param @kv_a : tensor<12x32xbf16>
// CHECK-NEXT:    %[[L:.+]] = llm.linear %[[X]], %[[WA]]
// CHECK-NEXT:    %[[WB:.+]] = llm.param @kv_b : tensor<64x8xbf16>
// CHECK-NEXT:    %[[N:.+]] = llm.param @kv_norm : tensor<8xbf16>
// CHECK-NEXT:    %[[O:.+]], %[[C1:.+]] = llm.mla_attention %[[QR]], %[[L]], %[[WB]], %[[N]], %[[C]] {kv_lora_rank = 8 : i64, layer = 0 : i64, llm.layer = 0 : i64, num_heads = 4 : i64, {{.+}}} : tensor<1x1x48xbf16>, tensor<1x1x12xbf16>, tensor<64x8xbf16>, tensor<8xbf16>, !kv.latent_cache<{{.+}}slots = 4{{.+}}seq_shards = 4> -> tensor<1x1x32xbf16>
// CHECK-NEXT:    %[[R:.+]] = llm.all_reduce %[[O]] {group_size = 4 : i64, kind = #llm<reduce sum>, llm.layer = 0 : i64} : tensor<1x1x32xbf16>
// CHECK-NEXT:    %[[S:.+]] = llm.shard_slice %[[R]] {dim = 2 : i64, llm.layer = 0 : i64, shards = 4 : i64} : tensor<1x1x32xbf16> -> tensor<1x1x8xbf16>
// CHECK-NEXT:    %[[WO:.+]] = llm.param @o : tensor<32x8xbf16>
// CHECK-NEXT:    %[[Y:.+]] = llm.linear %[[S]], %[[WO]] {llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<32x8xbf16> -> tensor<1x1x32xbf16>
// CHECK-NEXT:    %[[Z:.+]] = llm.all_reduce %[[Y]] {group_size = 4 : i64, kind = #llm<reduce sum>, llm.layer = 0 : i64} : tensor<1x1x32xbf16>
// CHECK-NEXT:    return %[[Z]], %[[C1]]
!lat = !kv.latent_cache<layers = 1, batch = 1, slots = 16, latent_dim = 8, rope_dim = 4, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny">} {
func.func @decode(%x: tensor<1x1x32xbf16>, %c: !lat) -> (tensor<1x1x32xbf16>, !lat) {
  %wq = llm.param @q : tensor<48x32xbf16>
  %q = llm.linear %x, %wq : tensor<1x1x32xbf16>, tensor<48x32xbf16> -> tensor<1x1x48xbf16>
  %qr = llm.rope %q {num_heads = 4, head_dim = 12, rotary_dim = 4, theta = 1.0e+04 : f64} : tensor<1x1x48xbf16>
  %wa = llm.param @kv_a : tensor<12x32xbf16>
  %l = llm.linear %x, %wa : tensor<1x1x32xbf16>, tensor<12x32xbf16> -> tensor<1x1x12xbf16>
  %wb = llm.param @kv_b : tensor<64x8xbf16>
  %n = llm.param @kv_norm : tensor<8xbf16>
  %o, %c1 = llm.mla_attention %qr, %l, %wb, %n, %c {layer = 0, num_heads = 4, qk_nope_head_dim = 8, qk_rope_head_dim = 4, v_head_dim = 8, kv_lora_rank = 8, phase = #llm<phase decode>, llm.layer = 0 : i64} : tensor<1x1x48xbf16>, tensor<1x1x12xbf16>, tensor<64x8xbf16>, tensor<8xbf16>, !lat -> tensor<1x1x32xbf16>
  %wo = llm.param @o : tensor<32x32xbf16>
  %y = llm.linear %o, %wo {llm.layer = 0 : i64} : tensor<1x1x32xbf16>, tensor<32x32xbf16> -> tensor<1x1x32xbf16>
  return %y, %c1 : tensor<1x1x32xbf16>, !lat
}
}

// -----

// Tests that a latent cache split by sequence needs slots that divide by tp:
// 10 slots leave 10 mod 4 = 2 over.
!lat = !kv.latent_cache<layers = 1, batch = 1, slots = 10, latent_dim = 8, rope_dim = 4, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny">} {
// expected-error @+1 {{'func.func' op cannot split a latent cache of 10 slots by sequence over tp = 4}}
func.func @decode(%c: !lat) -> !lat {
  return %c : !lat
}
}
