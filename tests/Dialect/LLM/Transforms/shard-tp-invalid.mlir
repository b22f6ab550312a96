// RUN: snapflow-opt %s -split-input-file --shard-tp="tp=4" -verify-diagnostics

// Every case asks for 4 sockets in the default modes (mla-cache=replicate,
// moe=expert); the errors of the other modes are in
// shard-tp-mla-sequence.mlir and shard-tp-moe-split.mlir.

// Tests that query heads must divide by tp: 6 heads leave 6 mod 4 = 2 over.
!c = !kv.cache<layers = 1, batch = 1, slots = 8, kv_heads = 2, head_dim = 4, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny">} {
func.func @heads(%x: tensor<1x1x24xbf16>, %c: !c) -> tensor<1x1x24xbf16> {
  %wq = llm.param @q : tensor<24x24xbf16>
  %wk = llm.param @k : tensor<8x24xbf16>
  %wv = llm.param @v : tensor<8x24xbf16>
  %wo = llm.param @o : tensor<24x24xbf16>
  %q = llm.linear %x, %wq : tensor<1x1x24xbf16>, tensor<24x24xbf16> -> tensor<1x1x24xbf16>
  %k = llm.linear %x, %wk : tensor<1x1x24xbf16>, tensor<8x24xbf16> -> tensor<1x1x8xbf16>
  %v = llm.linear %x, %wv : tensor<1x1x24xbf16>, tensor<8x24xbf16> -> tensor<1x1x8xbf16>
  // expected-error @+1 {{'llm.attention' op cannot split 6 attention heads over tp = 4}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 6, num_kv_heads = 2, head_dim = 4, phase = #llm<phase decode>} : tensor<1x1x24xbf16>, tensor<1x1x8xbf16>, tensor<1x1x8xbf16>, !c -> tensor<1x1x24xbf16>
  %y = llm.linear %o, %wo : tensor<1x1x24xbf16>, tensor<24x24xbf16> -> tensor<1x1x24xbf16>
  return %y : tensor<1x1x24xbf16>
}
}

// -----

// Tests that KV heads must divide by tp or divide it: 12 query heads split
// (3 per socket), but 6 KV heads neither split (6 mod 4 = 2) nor replicate
// (4 mod 6 = 4).
!c = !kv.cache<layers = 1, batch = 1, slots = 8, kv_heads = 6, head_dim = 4, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny">} {
func.func @kv_heads(%x: tensor<1x1x48xbf16>, %c: !c) -> tensor<1x1x48xbf16> {
  %wq = llm.param @q : tensor<48x48xbf16>
  %wk = llm.param @k : tensor<24x48xbf16>
  %wv = llm.param @v : tensor<24x48xbf16>
  %wo = llm.param @o : tensor<48x48xbf16>
  %q = llm.linear %x, %wq : tensor<1x1x48xbf16>, tensor<48x48xbf16> -> tensor<1x1x48xbf16>
  %k = llm.linear %x, %wk : tensor<1x1x48xbf16>, tensor<24x48xbf16> -> tensor<1x1x24xbf16>
  %v = llm.linear %x, %wv : tensor<1x1x48xbf16>, tensor<24x48xbf16> -> tensor<1x1x24xbf16>
  // expected-error @+1 {{'llm.attention' op cannot split 6 KV heads over tp = 4: neither divides the other}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 12, num_kv_heads = 6, head_dim = 4, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x24xbf16>, tensor<1x1x24xbf16>, !c -> tensor<1x1x48xbf16>
  %y = llm.linear %o, %wo : tensor<1x1x48xbf16>, tensor<48x48xbf16> -> tensor<1x1x48xbf16>
  return %y : tensor<1x1x48xbf16>
}
}

// -----

// Tests that MLA heads must divide by tp: 2 heads over 4 sockets.
!lat = !kv.latent_cache<layers = 1, batch = 1, slots = 16, latent_dim = 8, rope_dim = 4, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny">} {
func.func @mla_heads(%x: tensor<1x1x32xbf16>, %c: !lat) -> tensor<1x1x32xbf16> {
  %wq = llm.param @q : tensor<24x32xbf16>
  %q = llm.linear %x, %wq : tensor<1x1x32xbf16>, tensor<24x32xbf16> -> tensor<1x1x24xbf16>
  %wa = llm.param @kv_a : tensor<12x32xbf16>
  %l = llm.linear %x, %wa : tensor<1x1x32xbf16>, tensor<12x32xbf16> -> tensor<1x1x12xbf16>
  %wb = llm.param @kv_b : tensor<32x8xbf16>
  %n = llm.param @kv_norm : tensor<8xbf16>
  // expected-error @+1 {{'llm.mla_attention' op cannot split 2 attention heads over tp = 4}}
  %o, %c1 = llm.mla_attention %q, %l, %wb, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 8, qk_rope_head_dim = 4, v_head_dim = 8, kv_lora_rank = 8, phase = #llm<phase decode>} : tensor<1x1x24xbf16>, tensor<1x1x12xbf16>, tensor<32x8xbf16>, tensor<8xbf16>, !lat -> tensor<1x1x16xbf16>
  %wo = llm.param @o : tensor<32x16xbf16>
  %y = llm.linear %o, %wo : tensor<1x1x16xbf16>, tensor<32x16xbf16> -> tensor<1x1x32xbf16>
  return %y : tensor<1x1x32xbf16>
}
}

// -----

// Tests that the heads are split at their projection, which must be there:
// a query passed in as an argument has no weight to split.
!c = !kv.cache<layers = 1, batch = 1, slots = 8, kv_heads = 4, head_dim = 4, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny">} {
func.func @query_argument(%x: tensor<1x1x16xbf16>, %q: tensor<1x1x16xbf16>, %c: !c) -> tensor<1x1x16xbf16> {
  %wk = llm.param @k : tensor<16x16xbf16>
  %wv = llm.param @v : tensor<16x16xbf16>
  %wo = llm.param @o : tensor<16x16xbf16>
  %k = llm.linear %x, %wk : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
  %v = llm.linear %x, %wv : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
  // expected-error @+1 {{'llm.attention' op shard-tp: the query is not produced by llm.linear}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 4, head_dim = 4, phase = #llm<phase decode>} : tensor<1x1x16xbf16>, tensor<1x1x16xbf16>, tensor<1x1x16xbf16>, !c -> tensor<1x1x16xbf16>
  %y = llm.linear %o, %wo : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
  return %y : tensor<1x1x16xbf16>
}
}

// -----

// Tests that the attention's split output must go to one output projection
// only: a second use would see a quarter of the heads.
!c = !kv.cache<layers = 1, batch = 1, slots = 8, kv_heads = 4, head_dim = 4, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny">} {
func.func @two_uses(%x: tensor<1x1x16xbf16>, %c: !c) -> (tensor<1x1x16xbf16>, tensor<1x1x16xbf16>) {
  %wq = llm.param @q : tensor<16x16xbf16>
  %wk = llm.param @k : tensor<16x16xbf16>
  %wv = llm.param @v : tensor<16x16xbf16>
  %wo = llm.param @o : tensor<16x16xbf16>
  %q = llm.linear %x, %wq : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
  %k = llm.linear %x, %wk : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
  %v = llm.linear %x, %wv : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
  // expected-error @+1 {{'llm.attention' op shard-tp: expects one output projection after attention}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 4, head_dim = 4, phase = #llm<phase decode>} : tensor<1x1x16xbf16>, tensor<1x1x16xbf16>, tensor<1x1x16xbf16>, !c -> tensor<1x1x16xbf16>
  %y = llm.linear %o, %wo : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
  return %y, %o : tensor<1x1x16xbf16>, tensor<1x1x16xbf16>
}
}

// -----

// Tests that the attention's output must feed a projection whose columns can
// be split, not any other op.
!c = !kv.cache<layers = 1, batch = 1, slots = 8, kv_heads = 4, head_dim = 4, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny">} {
func.func @no_projection(%x: tensor<1x1x16xbf16>, %c: !c) -> tensor<1x1x16xbf16> {
  %wq = llm.param @q : tensor<16x16xbf16>
  %wk = llm.param @k : tensor<16x16xbf16>
  %wv = llm.param @v : tensor<16x16xbf16>
  %q = llm.linear %x, %wq : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
  %k = llm.linear %x, %wk : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
  %v = llm.linear %x, %wv : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
  // expected-error @+1 {{'llm.attention' op shard-tp: attention output does not feed an llm.linear}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 4, head_dim = 4, phase = #llm<phase decode>} : tensor<1x1x16xbf16>, tensor<1x1x16xbf16>, tensor<1x1x16xbf16>, !c -> tensor<1x1x16xbf16>
  %y = llm.add %o, %x : tensor<1x1x16xbf16>
  return %y : tensor<1x1x16xbf16>
}
}

// -----

// Tests that the output projection's weight must be an llm.param, the only
// weight the pass can give a socket's share of.
!c = !kv.cache<layers = 1, batch = 1, slots = 8, kv_heads = 4, head_dim = 4, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny">} {
func.func @output_argument(%x: tensor<1x1x16xbf16>, %wo: tensor<16x16xbf16>, %c: !c) -> tensor<1x1x16xbf16> {
  %wq = llm.param @q : tensor<16x16xbf16>
  %wk = llm.param @k : tensor<16x16xbf16>
  %wv = llm.param @v : tensor<16x16xbf16>
  %q = llm.linear %x, %wq : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
  %k = llm.linear %x, %wk : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
  %v = llm.linear %x, %wv : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 4, head_dim = 4, phase = #llm<phase decode>} : tensor<1x1x16xbf16>, tensor<1x1x16xbf16>, tensor<1x1x16xbf16>, !c -> tensor<1x1x16xbf16>
  // expected-error @+1 {{'llm.linear' op shard-tp: output projection is not an llm.param}}
  %y = llm.linear %o, %wo : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x16xbf16>
  return %y : tensor<1x1x16xbf16>
}
}

// -----

// Tests that the MLA KV up-projection must be an llm.param to be split by
// heads.
!lat = !kv.latent_cache<layers = 1, batch = 1, slots = 16, latent_dim = 8, rope_dim = 4, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny">} {
func.func @kv_up_argument(%x: tensor<1x1x32xbf16>, %wb: tensor<64x8xbf16>, %c: !lat) -> tensor<1x1x32xbf16> {
  %wq = llm.param @q : tensor<48x32xbf16>
  %q = llm.linear %x, %wq : tensor<1x1x32xbf16>, tensor<48x32xbf16> -> tensor<1x1x48xbf16>
  %wa = llm.param @kv_a : tensor<12x32xbf16>
  %l = llm.linear %x, %wa : tensor<1x1x32xbf16>, tensor<12x32xbf16> -> tensor<1x1x12xbf16>
  %n = llm.param @kv_norm : tensor<8xbf16>
  // expected-error @+1 {{'llm.mla_attention' op shard-tp: KV up-projection is not an llm.param}}
  %o, %c1 = llm.mla_attention %q, %l, %wb, %n, %c {layer = 0, num_heads = 4, qk_nope_head_dim = 8, qk_rope_head_dim = 4, v_head_dim = 8, kv_lora_rank = 8, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x12xbf16>, tensor<64x8xbf16>, tensor<8xbf16>, !lat -> tensor<1x1x32xbf16>
  %wo = llm.param @o : tensor<32x32xbf16>
  %y = llm.linear %o, %wo : tensor<1x1x32xbf16>, tensor<32x32xbf16> -> tensor<1x1x32xbf16>
  return %y : tensor<1x1x32xbf16>
}
}

// -----

// Tests that an MLP width must divide by tp: 6 columns over 4 sockets.
module attributes {df.target = #df.target<"tiny">} {
func.func @mlp_width(%x: tensor<1x1x16xbf16>) -> tensor<1x1x16xbf16> {
  %g = llm.param @gate : tensor<6x16xbf16>
  %u = llm.param @up : tensor<6x16xbf16>
  %d = llm.param @down : tensor<16x6xbf16>
  // expected-error @+1 {{'llm.mlp' op cannot split MLP gate 'tensor<6x16xbf16>' over tp = 4: dimension of 6 does not divide}}
  %y = llm.mlp %x, %g, %u, %d : tensor<1x1x16xbf16>, tensor<6x16xbf16>, tensor<6x16xbf16>, tensor<16x6xbf16>
  return %y : tensor<1x1x16xbf16>
}
}

// -----

// Tests that MLP weights must be llm.params.
module attributes {df.target = #df.target<"tiny">} {
func.func @mlp_argument(%x: tensor<1x1x16xbf16>, %g: tensor<64x16xbf16>) -> tensor<1x1x16xbf16> {
  %u = llm.param @up : tensor<64x16xbf16>
  %d = llm.param @down : tensor<16x64xbf16>
  // expected-error @+1 {{'llm.mlp' op shard-tp: MLP gate is not an llm.param}}
  %y = llm.mlp %x, %g, %u, %d : tensor<1x1x16xbf16>, tensor<64x16xbf16>, tensor<64x16xbf16>, tensor<16x64xbf16>
  return %y : tensor<1x1x16xbf16>
}
}

// -----

// Tests that experts must spread evenly: 6 experts over 4 sockets.
module attributes {df.target = #df.target<"tiny">} {
func.func @experts(%x: tensor<1x1x16xbf16>) -> tensor<1x1x16xbf16> {
  %r = llm.param @router : tensor<6x16xbf16>
  %g = llm.param @gate : tensor<6x4x16xbf16>
  %u = llm.param @up : tensor<6x4x16xbf16>
  %d = llm.param @down : tensor<6x16x4xbf16>
  %y_experts = llm.route %x, %r {top_k = 2} : tensor<1x1x16xbf16>, tensor<6x16xbf16> -> tensor<1x1x2xi32>
  // expected-error @+1 {{'llm.moe' op cannot spread 6 experts over tp = 4}}
  %y = llm.moe %x, %y_experts, %g, %u, %d {num_experts = 6, top_k = 2} : tensor<1x1x16xbf16>, tensor<1x1x2xi32>, tensor<6x4x16xbf16>, tensor<6x4x16xbf16>, tensor<6x16x4xbf16>
  return %y : tensor<1x1x16xbf16>
}
}

// -----

// Tests that routed expert weights must be llm.params.
module attributes {df.target = #df.target<"tiny">} {
func.func @experts_argument(%x: tensor<1x1x16xbf16>, %g: tensor<8x4x16xbf16>) -> tensor<1x1x16xbf16> {
  %r = llm.param @router : tensor<8x16xbf16>
  %u = llm.param @up : tensor<8x4x16xbf16>
  %d = llm.param @down : tensor<8x16x4xbf16>
  %y_experts = llm.route %x, %r {top_k = 2} : tensor<1x1x16xbf16>, tensor<8x16xbf16> -> tensor<1x1x2xi32>
  // expected-error @+1 {{'llm.moe' op shard-tp: routed experts is not an llm.param}}
  %y = llm.moe %x, %y_experts, %g, %u, %d {num_experts = 8, top_k = 2} : tensor<1x1x16xbf16>, tensor<1x1x2xi32>, tensor<8x4x16xbf16>, tensor<8x4x16xbf16>, tensor<8x16x4xbf16>
  return %y : tensor<1x1x16xbf16>
}
}

// -----

// Tests that the shared experts' width must divide by tp: 6 over 4 sockets
// (the 8 routed experts spread fine).
module attributes {df.target = #df.target<"tiny">} {
func.func @shared_width(%x: tensor<1x1x16xbf16>) -> tensor<1x1x16xbf16> {
  %r = llm.param @router : tensor<8x16xbf16>
  %g = llm.param @gate : tensor<8x4x16xbf16>
  %u = llm.param @up : tensor<8x4x16xbf16>
  %d = llm.param @down : tensor<8x16x4xbf16>
  %sg = llm.param @shared_gate : tensor<6x16xbf16>
  %su = llm.param @shared_up : tensor<6x16xbf16>
  %sd = llm.param @shared_down : tensor<16x6xbf16>
  %y_experts = llm.route %x, %r {top_k = 2} : tensor<1x1x16xbf16>, tensor<8x16xbf16> -> tensor<1x1x2xi32>
  %y_routed = llm.moe %x, %y_experts, %g, %u, %d {num_experts = 8, top_k = 2} : tensor<1x1x16xbf16>, tensor<1x1x2xi32>, tensor<8x4x16xbf16>, tensor<8x4x16xbf16>, tensor<8x16x4xbf16>
  // expected-error @+1 {{'llm.mlp' op cannot split shared expert gate 'tensor<6x16xbf16>' over tp = 4: dimension of 6 does not divide}}
  %y_shared = llm.mlp %x, %sg, %su, %sd : tensor<1x1x16xbf16>, tensor<6x16xbf16>, tensor<6x16xbf16>, tensor<16x6xbf16>
  %y = llm.add %y_routed, %y_shared : tensor<1x1x16xbf16>
  return %y : tensor<1x1x16xbf16>
}
}

// -----

// Tests that the embedding table must be an llm.param.
module attributes {df.target = #df.target<"tiny">} {
func.func @embed_argument(%tokens: tensor<1x1xi32>, %w: tensor<64x16xbf16>) -> tensor<1x1x16xbf16> {
  // expected-error @+1 {{'llm.embed' op shard-tp: embedding table is not an llm.param}}
  %h = llm.embed %tokens, %w : tensor<1x1xi32>, tensor<64x16xbf16> -> tensor<1x1x16xbf16>
  return %h : tensor<1x1x16xbf16>
}
}

// -----

// Tests that the output head's weight must be an llm.param.
module attributes {df.target = #df.target<"tiny">} {
func.func @head_argument(%h: tensor<1x1x16xbf16>, %w: tensor<64x16xbf16>) -> tensor<1x1x64xbf16> {
  // expected-error @+1 {{'llm.lm_head' op shard-tp: output head is not an llm.param}}
  %l = llm.lm_head %h, %w : tensor<1x1x16xbf16>, tensor<64x16xbf16> -> tensor<1x1x64xbf16>
  return %l : tensor<1x1x64xbf16>
}
}

// -----

// Tests that tp cannot exceed the sockets of the module's chip: sn40l has 1.
// expected-error @+1 {{shard-tp: tp 4 is not possible on sn40l, which has 1 socket(s)}}
module attributes {df.target = #df.target<"sn40l">} {
func.func @decode(%x: tensor<1x1x16xbf16>) -> tensor<1x1x16xbf16> {
  return %x : tensor<1x1x16xbf16>
}
}

// -----

// Tests that shard-tp refuses an already looped module (it splits layers
// before fuse-layers folds them; a loop's carried cache would keep its
// unsplit type).
module attributes {df.target = #df.target<"tiny">} {
func.func @looped(%h: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  // expected-error @+1 {{'llm.repeat' op shard-tp: the module is already looped; run shard-tp before fuse-layers}}
  %r = llm.repeat 2 layers from 0 (%h) : (tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  ^bb0(%a: tensor<1x1x8xbf16>):
    llm.yield %a : tensor<1x1x8xbf16>
  }
  return %r : tensor<1x1x8xbf16>
}
}

// Bad options are errors naming the value. tp = 0 means every socket of the
// module's chip, so it needs one; negative values are never a group size.
// RUN: echo 'module {}' | not snapflow-opt --shard-tp="tp=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: shard-tp: tp must be >= 1 (tp = 0, every socket of the target, needs a df.target), got 0
// RUN: echo 'module attributes {df.target = #df.target<"tiny">} {}' | not snapflow-opt --shard-tp="tp=-2" 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: error: shard-tp: tp must be >= 1, got -2
// RUN: echo 'module attributes {df.target = #df.target<"tiny">} {}' | not snapflow-opt --shard-tp="tp=4 mla-cache=pages" 2>&1 | FileCheck %s --check-prefix=MLA
// MLA: error: shard-tp: mla-cache must be replicate, sequence or batch, got 'pages'
// RUN: echo 'module attributes {df.target = #df.target<"tiny">} {}' | not snapflow-opt --shard-tp="tp=4 moe=tokens" 2>&1 | FileCheck %s --check-prefix=MOE
// MOE: error: shard-tp: moe must be expert or split, got 'tokens'
