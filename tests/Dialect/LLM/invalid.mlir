// RUN: snapflow-opt %s -split-input-file -verify-diagnostics

// Tests that an op rejects an operand with a dynamic shape.
func.func @dynamic_operand(%x: tensor<?x4x64xbf16>, %w: tensor<32x64xbf16>) {
  // expected-error @+1 {{'llm.linear' op operand type 'tensor<?x4x64xbf16>' must have a static shape}}
  %y = llm.linear %x, %w : tensor<?x4x64xbf16>, tensor<32x64xbf16> -> tensor<1x4x32xbf16>
  return
}

// -----

// Tests that an op rejects a result with a dynamic shape.
func.func @dynamic_result() {
  // expected-error @+1 {{'llm.param' op result type 'tensor<?x64xbf16>' must have a static shape}}
  %w = llm.param @model.embed_tokens.weight : tensor<?x64xbf16>
  return
}

// -----

// Tests that llm.param needs a parameter name.
func.func @param_empty_name() {
  // expected-error @+1 {{'llm.param' op needs a non-empty parameter name}}
  %w = llm.param @"" : tensor<64xbf16>
  return
}

// -----

// Tests that llm.embed takes a rank-2 token tensor.
func.func @embed_tokens_rank(%t: tensor<4xi32>, %table: tensor<128x64xbf16>) {
  // expected-error @+1 {{'llm.embed' op tokens must be tensor<batch x tokens>, got 'tensor<4xi32>'}}
  %h = llm.embed %t, %table : tensor<4xi32>, tensor<128x64xbf16> -> tensor<1x4x64xbf16>
  return
}

// -----

// Tests that llm.embed takes a rank-2 table.
func.func @embed_table_rank(%t: tensor<1x4xi32>, %table: tensor<2x128x64xbf16>) {
  // expected-error @+1 {{'llm.embed' op table must be tensor<vocab x hidden>, got 'tensor<2x128x64xbf16>'}}
  %h = llm.embed %t, %table : tensor<1x4xi32>, tensor<2x128x64xbf16> -> tensor<1x4x64xbf16>
  return
}

// -----

// Tests that llm.embed returns one row of the table's width per token.
func.func @embed_result_width(%t: tensor<1x4xi32>, %table: tensor<128x64xbf16>) {
  // expected-error @+1 {{'llm.embed' op result must be tensor<1x4x64xT>, got 'tensor<1x4x32xbf16>'}}
  %h = llm.embed %t, %table : tensor<1x4xi32>, tensor<128x64xbf16> -> tensor<1x4x32xbf16>
  return
}

// -----

// Tests that llm.rms_norm takes a 1-D weight as long as the normalised axis.
func.func @rms_norm_weight(%x: tensor<1x4x64xbf16>, %w: tensor<32xbf16>) {
  // expected-error @+1 {{'llm.rms_norm' op weight must be tensor<64xT>, got 'tensor<32xbf16>'}}
  %y = llm.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x4x64xbf16>, tensor<32xbf16>
  return
}

// -----

// Tests that a grouped llm.rms_norm's group divides the axis.
func.func @rms_norm_group(%x: tensor<1x4x64xbf16>) {
  // expected-error @+1 {{'llm.rms_norm' op group (24) must be 0 or divide the last axis (64)}}
  %y = llm.rms_norm %x {eps = 1.0e-05 : f64, group = 24} : tensor<1x4x64xbf16>
  return
}

// -----

// Tests that a grouped llm.rms_norm's weight is a group long.
func.func @rms_norm_group_weight(%x: tensor<1x4x64xbf16>, %w: tensor<64xbf16>) {
  // expected-error @+1 {{'llm.rms_norm' op weight must be tensor<16xT>, got 'tensor<64xbf16>'}}
  %y = llm.rms_norm %x, %w {eps = 1.0e-05 : f64, group = 16} : tensor<1x4x64xbf16>, tensor<64xbf16>
  return
}

// -----

// Tests that llm.rms_norm needs a positive epsilon.
func.func @rms_norm_eps(%x: tensor<1x4x64xbf16>, %w: tensor<64xbf16>) {
  // expected-error @+1 {{'llm.rms_norm' op eps must be > 0}}
  %y = llm.rms_norm %x, %w {eps = 0.0 : f64} : tensor<1x4x64xbf16>, tensor<64xbf16>
  return
}

// -----

// Tests that llm.rope needs a positive head count.
func.func @rope_zero_heads(%x: tensor<1x4x64xbf16>) {
  // expected-error @+1 {{'llm.rope' op num_heads and head_dim must be > 0}}
  %y = llm.rope %x {num_heads = 0, head_dim = 16, rotary_dim = 16, theta = 1.0e+04 : f64} : tensor<1x4x64xbf16>
  return
}

// -----

// Tests that llm.rope's input is num_heads heads of head_dim elements.
func.func @rope_input_width(%x: tensor<1x4x64xbf16>) {
  // expected-error @+1 {{'llm.rope' op input width 64 must be num_heads x head_dim = 2 x 16}}
  %y = llm.rope %x {num_heads = 2, head_dim = 16, rotary_dim = 16, theta = 1.0e+04 : f64} : tensor<1x4x64xbf16>
  return
}

// -----

// Tests that llm.rope rotates an even number of elements of each head.
func.func @rope_odd_rotary_dim(%x: tensor<1x4x64xbf16>) {
  // expected-error @+1 {{'llm.rope' op rotary_dim 7 must be even and in (0, head_dim = 16]}}
  %y = llm.rope %x {num_heads = 4, head_dim = 16, rotary_dim = 7, theta = 1.0e+04 : f64} : tensor<1x4x64xbf16>
  return
}

// -----

// Tests that llm.linear takes a rank-2 weight.
func.func @linear_weight_rank(%x: tensor<1x4x64xbf16>, %w: tensor<64xbf16>) {
  // expected-error @+1 {{'llm.linear' op weight must be tensor<out x in>, got 'tensor<64xbf16>'}}
  %y = llm.linear %x, %w : tensor<1x4x64xbf16>, tensor<64xbf16> -> tensor<1x4x64xbf16>
  return
}

// -----

// Tests that llm.linear's weight is out x in (Hugging Face layout), not
// transposed.
func.func @linear_weight_width(%x: tensor<1x4x64xbf16>, %w: tensor<64x32xbf16>) {
  // expected-error @+1 {{'llm.linear' op weight 'tensor<64x32xbf16>' does not take inputs of width 64}}
  %y = llm.linear %x, %w : tensor<1x4x64xbf16>, tensor<64x32xbf16> -> tensor<1x4x32xbf16>
  return
}

// -----

// Tests that llm.linear's result has the weight's output width.
func.func @linear_result(%x: tensor<1x4x64xbf16>, %w: tensor<32x64xbf16>) {
  // expected-error @+1 {{'llm.linear' op result must be the input shape with width 32, got 'tensor<1x4x64xbf16>'}}
  %y = llm.linear %x, %w : tensor<1x4x64xbf16>, tensor<32x64xbf16> -> tensor<1x4x64xbf16>
  return
}

// -----

// Tests that llm.mlp's gate takes inputs of the hidden width.
func.func @mlp_gate(%x: tensor<1x1x64xbf16>, %g: tensor<128x32xbf16>, %u: tensor<128x64xbf16>, %d: tensor<64x128xbf16>) {
  // expected-error @+1 {{'llm.mlp' op gate must be tensor<I x 64>, got 'tensor<128x32xbf16>'}}
  %y = llm.mlp %x, %g, %u, %d : tensor<1x1x64xbf16>, tensor<128x32xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>
  return
}

// -----

// Tests that llm.mlp's down projection is the transpose of the gate's shape.
func.func @mlp_down(%x: tensor<1x1x64xbf16>, %g: tensor<128x64xbf16>, %u: tensor<128x64xbf16>, %d: tensor<128x64xbf16>) {
  // expected-error @+1 {{'llm.mlp' op down must be tensor<64x128xT>, got 'tensor<128x64xbf16>'}}
  %y = llm.mlp %x, %g, %u, %d : tensor<1x1x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>
  return
}

// -----

// Tests that llm.moe needs at least one expert.
func.func @moe_no_experts(%x: tensor<1x1x64xbf16>, %r: tensor<1x1x2xi32>, %g: tensor<8x32x64xbf16>, %u: tensor<8x32x64xbf16>, %d: tensor<8x64x32xbf16>) {
  // expected-error @+1 {{'llm.moe' op num_experts must be > 0}}
  %y = llm.moe %x, %r, %g, %u, %d {num_experts = 0, top_k = 2} : tensor<1x1x64xbf16>, tensor<1x1x2xi32>, tensor<8x32x64xbf16>, tensor<8x32x64xbf16>, tensor<8x64x32xbf16>
  return
}

// -----

// Tests that llm.moe cannot route a token to more experts than exist.
func.func @moe_top_k(%x: tensor<1x1x64xbf16>, %r: tensor<1x1x9xi32>, %g: tensor<8x32x64xbf16>, %u: tensor<8x32x64xbf16>, %d: tensor<8x64x32xbf16>) {
  // expected-error @+1 {{'llm.moe' op top_k (9) must be in [1, num_experts x expert_shards = 8]}}
  %y = llm.moe %x, %r, %g, %u, %d {num_experts = 8, top_k = 9} : tensor<1x1x64xbf16>, tensor<1x1x9xi32>, tensor<8x32x64xbf16>, tensor<8x32x64xbf16>, tensor<8x64x32xbf16>
  return
}

// -----

// Tests that llm.moe takes the top_k experts its router chose for each token.
func.func @moe_routing(%x: tensor<1x4x64xbf16>, %r: tensor<1x4x3xi32>, %g: tensor<8x32x64xbf16>, %u: tensor<8x32x64xbf16>, %d: tensor<8x64x32xbf16>) {
  // expected-error @+1 {{'llm.moe' op routing must be tensor<1 x 4 x 2 x i32> (the router's top_k per token), got 'tensor<1x4x3xi32>'}}
  %y = llm.moe %x, %r, %g, %u, %d {num_experts = 8, top_k = 2} : tensor<1x4x64xbf16>, tensor<1x4x3xi32>, tensor<8x32x64xbf16>, tensor<8x32x64xbf16>, tensor<8x64x32xbf16>
  return
}

// -----

// Tests that llm.moe's routed gate weights are stacked per expert.
func.func @moe_gate(%x: tensor<1x1x64xbf16>, %r: tensor<1x1x2xi32>, %g: tensor<32x64xbf16>, %u: tensor<8x32x64xbf16>, %d: tensor<8x64x32xbf16>) {
  // expected-error @+1 {{'llm.moe' op gate must be tensor<8 x I x 64>, got 'tensor<32x64xbf16>'}}
  %y = llm.moe %x, %r, %g, %u, %d {num_experts = 8, top_k = 2} : tensor<1x1x64xbf16>, tensor<1x1x2xi32>, tensor<32x64xbf16>, tensor<8x32x64xbf16>, tensor<8x64x32xbf16>
  return
}

// -----

// Tests that a router scores experts of the hidden width.
func.func @route_width(%x: tensor<1x1x64xbf16>, %w: tensor<8x32xbf16>) {
  // expected-error @+1 {{'llm.route' op router must be tensor<E x 64>, got 'tensor<8x32xbf16>'}}
  %e = llm.route %x, %w {top_k = 2} : tensor<1x1x64xbf16>, tensor<8x32xbf16> -> tensor<1x1x2xi32>
  return
}

// -----

// Tests that a router picks at most the experts it scores.
func.func @route_top_k(%x: tensor<1x1x64xbf16>, %w: tensor<8x64xbf16>) {
  // expected-error @+1 {{'llm.route' op top_k (9) must be in [1, 8], the experts the router scores}}
  %e = llm.route %x, %w {top_k = 9} : tensor<1x1x64xbf16>, tensor<8x64xbf16> -> tensor<1x1x9xi32>
  return
}

// -----

// Tests that a router gives top_k expert indices per token.
func.func @route_result(%x: tensor<2x3x64xbf16>, %w: tensor<8x64xbf16>) {
  // expected-error @+1 {{'llm.route' op experts must be tensor<2 x 3 x 2 x i32>, got 'tensor<2x2xi32>'}}
  %e = llm.route %x, %w {top_k = 2} : tensor<2x3x64xbf16>, tensor<8x64xbf16> -> tensor<2x2xi32>
  return
}

// -----

// Tests that llm.moe's routing statistics cannot touch more experts than exist.
func.func @moe_active_experts(%x: tensor<1x1x64xbf16>, %r: tensor<1x1x2xi32>, %g: tensor<8x32x64xbf16>, %u: tensor<8x32x64xbf16>, %d: tensor<8x64x32xbf16>) {
  // expected-error @+1 {{'llm.moe' op expected_active_experts must be in (0, 8]}}
  %y = llm.moe %x, %r, %g, %u, %d {num_experts = 8, top_k = 2, expected_active_experts = 9.0 : f64} : tensor<1x1x64xbf16>, tensor<1x1x2xi32>, tensor<8x32x64xbf16>, tensor<8x32x64xbf16>, tensor<8x64x32xbf16>
  return
}

// -----

// Tests that llm.attention needs positive head counts.
func.func @attention_zero_heads(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.attention' op num_heads, num_kv_heads and head_dim must be > 0}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 0, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x1x64xbf16>
  return
}

// -----

// Tests that llm.attention's query heads split evenly over the KV heads.
func.func @attention_heads_not_divisible(%q: tensor<1x1x48xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.attention' op num_heads (3) is not a multiple of num_kv_heads (2)}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 3, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x1x48xbf16>
  return
}

// -----

// Tests that llm.attention's KV head count matches the cache's.
func.func @attention_gqa_mismatch(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x64xbf16>, %v: tensor<1x1x64xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.attention' op GQA group mismatch: the cache holds 2 KV heads but the op has 4}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 4, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16>, tensor<1x1x64xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x1x64xbf16>
  return
}

// -----

// Tests that llm.attention's head_dim matches the cache's.
func.func @attention_head_dim_mismatch(%q: tensor<1x1x32xbf16>, %k: tensor<1x1x16xbf16>, %v: tensor<1x1x16xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.attention' op cache head_dim 16 does not match head_dim 8}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 8, phase = #llm<phase decode>} : tensor<1x1x32xbf16>, tensor<1x1x16xbf16>, tensor<1x1x16xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x1x32xbf16>
  return
}

// -----

// Tests that llm.attention's layer is one of the cache's layers.
func.func @attention_layer_out_of_range(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.attention' op layer 2 is out of range for a cache of 2 layers}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 2, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x1x64xbf16>
  return
}

// -----

// Tests that llm.attention's query is batch x tokens x width.
func.func @attention_query_rank(%q: tensor<1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.attention' op query must be tensor<B x T x 64>, got 'tensor<1x64xbf16>'}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x64xbf16>
  return
}

// -----

// Tests that llm.attention's batch matches the cache's.
func.func @attention_batch_mismatch(%q: tensor<2x1x64xbf16>, %k: tensor<2x1x32xbf16>, %v: tensor<2x1x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.attention' op batch 2 does not match the cache batch 1}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<2x1x64xbf16>, tensor<2x1x32xbf16>, tensor<2x1x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<2x1x64xbf16>
  return
}

// -----

// Tests that llm.attention's keys are num_kv_heads x head_dim wide.
func.func @attention_key_width(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x64xbf16>, %v: tensor<1x1x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.attention' op key must be tensor<1x1x32xT>, got 'tensor<1x1x64xbf16>'}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x1x64xbf16>
  return
}

// -----

// Tests that llm.attention's result has the query's type.
func.func @attention_result_type(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.attention' op result type must equal the query type}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x1x64xf32>
  return
}

// -----

// Tests that llm.attention cannot decode more tokens than the cache has slots.
func.func @attention_decode_overflow(%q: tensor<1x64x64xbf16>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>) {
  // expected-error @+1 {{'llm.attention' op decodes 64 tokens but the cache has 32 slots}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>> -> tensor<1x64x64xbf16>
  return
}

// -----

// Tests that a block-scaled format has at least one bit a value.
// expected-error @+1 {{element_bits must be in [1, 16], got 0}}
func.func @block_scaled_bits(%w: tensor<4x32xbf16, #llm.block_scaled<element_bits = 0, block = 32, scale_bits = 8>>) {
  return
}

// -----

// Tests that llm.window marks a KV cache argument with a window >= 1.
// expected-error @+1 {{'llm.window' must be a window >= 1 (i64) on a KV cache argument, got 16 : i64 on argument 0}}
func.func @window_not_cache(%x: tensor<1x4x64xbf16> {llm.window = 16 : i64}) {
  return
}

// -----

// Tests that llm.window marks a KV cache argument with a window >= 1.
// expected-error @+1 {{'llm.window' must be a window >= 1 (i64) on a KV cache argument, got 0 : i64 on argument 0}}
func.func @window_zero(%c: !kv.cache<layers = 1, batch = 1, slots = 16, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> {llm.window = 0 : i64}) {
  return
}

// -----

// Tests that a soft-cap is positive.
func.func @lm_head_softcap(%x: tensor<1x1x64xbf16>, %w: tensor<100x64xbf16>) {
  // expected-error @+1 {{'llm.lm_head' op softcap must be > 0, got 0.000000e+00}}
  %l = llm.lm_head %x, %w {softcap = 0.0 : f64} : tensor<1x1x64xbf16>, tensor<100x64xbf16> -> tensor<1x1x100xbf16>
  return
}

// -----

// Tests that a window's ring holds at most the window.
func.func @attention_window_slots(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !kv.cache<layers = 1, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.attention' op a window of 16 tokens keeps at most that many slots; the cache has 32}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>, window = 16} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !kv.cache<layers = 1, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x1x64xbf16>
  return
}

// -----

// Tests that no KV policy compresses a window's ring.
func.func @attention_window_policy(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !kv.cache<layers = 1, batch = 1, slots = 16, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.streaming<sinks = 4, window = 12>>) {
  // expected-error @+1 {{'llm.attention' op a window's cache is not compressed by a KV policy}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>, window = 16} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !kv.cache<layers = 1, batch = 1, slots = 16, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.streaming<sinks = 4, window = 12>> -> tensor<1x1x64xbf16>
  return
}

// -----

// Tests that llm.attention cannot prefill a prompt longer than a full cache.
func.func @attention_prefill_overflow(%q: tensor<1x64x64xbf16>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.attention' op prefill of 64 tokens does not fit a full cache of 32 slots}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x64x64xbf16>
  return
}

// -----

// Tests that llm.mla_attention needs positive head counts and dimensions.
func.func @mla_zero_heads(%q: tensor<1x1x48xbf16>, %kv: tensor<1x1x40xbf16>, %up: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.mla_attention' op num_heads, qk_nope_head_dim, v_head_dim and kv_lora_rank must be > 0 and qk_rope_head_dim >= 0}}
  %o, %c1 = llm.mla_attention %q, %kv, %up, %n, %c {layer = 0, num_heads = 0, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x1x32xbf16>
  return
}

// -----

// Tests that llm.mla_attention's latent rank and rotary width match the latent
// cache.
func.func @mla_cache_mismatch(%q: tensor<1x1x48xbf16>, %kv: tensor<1x1x40xbf16>, %up: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 64, rope_dim = 8, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.mla_attention' op latent cache (latent_dim 64, rope_dim 8) does not match kv_lora_rank 32 and qk_rope_head_dim 8}}
  %o, %c1 = llm.mla_attention %q, %kv, %up, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 64, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x1x32xbf16>
  return
}

// -----

// Tests that llm.mla_attention's layer is one of the latent cache's layers.
func.func @mla_layer_out_of_range(%q: tensor<1x1x48xbf16>, %kv: tensor<1x1x40xbf16>, %up: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.mla_attention' op layer -1 is out of range for a cache of 2 layers}}
  %o, %c1 = llm.mla_attention %q, %kv, %up, %n, %c {layer = -1, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x1x32xbf16>
  return
}

// -----

// Tests that llm.mla_attention's query is batch x tokens x width.
func.func @mla_query_rank(%q: tensor<48xbf16>, %kv: tensor<1x1x40xbf16>, %up: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.mla_attention' op query must be tensor<B x T x 48>, got 'tensor<48xbf16>'}}
  %o, %c1 = llm.mla_attention %q, %kv, %up, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase decode>} : tensor<48xbf16>, tensor<1x1x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x1x32xbf16>
  return
}

// -----

// Tests that llm.mla_attention's batch matches the latent cache's.
func.func @mla_batch_mismatch(%q: tensor<2x1x48xbf16>, %kv: tensor<2x1x40xbf16>, %up: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.mla_attention' op batch 2 does not match the cache batch 1}}
  %o, %c1 = llm.mla_attention %q, %kv, %up, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase decode>} : tensor<2x1x48xbf16>, tensor<2x1x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<2x1x32xbf16>
  return
}

// -----

// Tests that llm.mla_attention's result is num_heads x v_head_dim wide.
func.func @mla_result_width(%q: tensor<1x1x48xbf16>, %kv: tensor<1x1x40xbf16>, %up: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.mla_attention' op result must be tensor<1x1x32xT>, got 'tensor<1x1x48xbf16>'}}
  %o, %c1 = llm.mla_attention %q, %kv, %up, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x1x48xbf16>
  return
}

// -----

// Tests that llm.mla_attention's KV up-projection is
// num_heads*(qk_nope_head_dim + v_head_dim) x kv_lora_rank.
func.func @mla_kv_up(%q: tensor<1x1x48xbf16>, %kv: tensor<1x1x40xbf16>, %up: tensor<32x64xbf16>, %n: tensor<32xbf16>, %c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.mla_attention' op kv_up must be tensor<64x32xT>, got 'tensor<32x64xbf16>'}}
  %o, %c1 = llm.mla_attention %q, %kv, %up, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x40xbf16>, tensor<32x64xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x1x32xbf16>
  return
}

// -----

// Tests that llm.mla_attention cannot decode more tokens than the latent cache
// has slots.
func.func @mla_decode_overflow(%q: tensor<1x64x48xbf16>, %kv: tensor<1x64x40xbf16>, %up: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.mla_attention' op decodes 64 tokens but the cache has 32 slots}}
  %o, %c1 = llm.mla_attention %q, %kv, %up, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase decode>} : tensor<1x64x48xbf16>, tensor<1x64x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x64x32xbf16>
  return
}

// -----

// Tests that llm.mla_attention cannot prefill a prompt longer than a full
// latent cache.
func.func @mla_prefill_overflow(%q: tensor<1x64x48xbf16>, %kv: tensor<1x64x40xbf16>, %up: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.mla_attention' op prefill of 64 tokens does not fit a full cache of 32 slots}}
  %o, %c1 = llm.mla_attention %q, %kv, %up, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase prefill>} : tensor<1x64x48xbf16>, tensor<1x64x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x64x32xbf16>
  return
}

// -----

// Tests that llm.lm_head's input is batch x tokens x hidden.
func.func @lm_head_input_rank(%h: tensor<4x64xbf16>, %w: tensor<128x64xbf16>) {
  // expected-error @+1 {{'llm.lm_head' op input must be tensor<B x T x H>, got 'tensor<4x64xbf16>'}}
  %l = llm.lm_head %h, %w : tensor<4x64xbf16>, tensor<128x64xbf16> -> tensor<1x4x128xbf16>
  return
}

// -----

// Tests that llm.lm_head's weight is vocab x hidden.
func.func @lm_head_weight(%h: tensor<1x4x64xbf16>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'llm.lm_head' op weight must be tensor<V x 64>, got 'tensor<64x128xbf16>'}}
  %l = llm.lm_head %h, %w : tensor<1x4x64xbf16>, tensor<64x128xbf16> -> tensor<1x4x128xbf16>
  return
}

// -----

// Tests that llm.lm_head with last_token_only returns one position per
// sequence.
func.func @lm_head_last_token_only(%h: tensor<1x4x64xbf16>, %w: tensor<128x64xbf16>) {
  // expected-error @+1 {{'llm.lm_head' op result must be tensor<1x1x128xT>, got 'tensor<1x4x128xbf16>'}}
  %l = llm.lm_head %h, %w {last_token_only} : tensor<1x4x64xbf16>, tensor<128x64xbf16> -> tensor<1x4x128xbf16>
  return
}

// -----

// Tests that llm.mtp's depth is 1-based.
func.func @mtp_depth(%h: tensor<1x1x64xbf16>, %e: tensor<1x1x64xbf16>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'llm.mtp' op depth must be >= 1}}
  %m = llm.mtp %h, %e, %w {depth = 0} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16>, tensor<64x128xbf16> -> tensor<1x1x64xbf16>
  return
}

// -----

// Tests that llm.mtp's hidden state, embedding and result share one type.
func.func @mtp_types(%h: tensor<1x1x64xbf16>, %e: tensor<1x1x64xf32>, %w: tensor<64x128xbf16>) {
  // expected-error @+1 {{'llm.mtp' op hidden, embedded and result must have one type}}
  %m = llm.mtp %h, %e, %w {depth = 1} : tensor<1x1x64xbf16>, tensor<1x1x64xf32>, tensor<64x128xbf16> -> tensor<1x1x64xbf16>
  return
}

// -----

// Tests that llm.mtp's projection maps 2H to H.
func.func @mtp_eh_proj(%h: tensor<1x1x64xbf16>, %e: tensor<1x1x64xbf16>, %w: tensor<128x64xbf16>) {
  // expected-error @+1 {{'llm.mtp' op eh_proj must be tensor<64x128xT>, got 'tensor<128x64xbf16>'}}
  %m = llm.mtp %h, %e, %w {depth = 1} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16>, tensor<128x64xbf16> -> tensor<1x1x64xbf16>
  return
}

// -----

// Tests that a collective spans at least one socket.
func.func @all_reduce_group(%x: tensor<4x1x64xbf16>) {
  // expected-error @+1 {{'llm.all_reduce' op group_size must be >= 2, got 0}}
  %y = llm.all_reduce %x {group_size = 0, kind = #llm<reduce sum>} : tensor<4x1x64xbf16>
  return
}

// -----

// Tests that llm.all_gather gathers along a dimension of its input.
func.func @all_gather_dim(%x: tensor<4x1x32xbf16>) {
  // expected-error @+1 {{'llm.all_gather' op dim 3 is out of range for 'tensor<4x1x32xbf16>'}}
  %y = llm.all_gather %x {group_size = 2, dim = 3} : tensor<4x1x32xbf16> -> tensor<4x1x64xbf16>
  return
}

// -----

// Tests that llm.all_gather multiplies the gathered dimension by the group size.
func.func @all_gather_result(%x: tensor<4x1x32xbf16>) {
  // expected-error @+1 {{'llm.all_gather' op result must be the input with dim 2 multiplied by group_size 4, got 'tensor<4x1x64xbf16>'}}
  %y = llm.all_gather %x {group_size = 4, dim = 2} : tensor<4x1x32xbf16> -> tensor<4x1x64xbf16>
  return
}

// -----

// Tests that llm.all_to_all splits the leading dimension evenly over the group.
func.func @all_to_all_split(%x: tensor<6x1x64xbf16>) {
  // expected-error @+1 {{'llm.all_to_all' op leading dimension of 'tensor<6x1x64xbf16>' must split into group_size 4 equal parts}}
  %y = llm.all_to_all %x {group_size = 4} : tensor<6x1x64xbf16> -> tensor<6x1x64xbf16>
  return
}

// -----

// Tests that attention writes keys and values of the cache's element type.
func.func @f(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xf32>, %v: tensor<1x1x32xf32>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.attention' op key and value element type 'f32' does not match the cache dtype 'bf16'}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xf32>, tensor<1x1x32xf32>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x1x64xbf16>
  return
}

// -----

// Tests that MLA caches latents of the cache's element type.
func.func @f(%q: tensor<1x1x48xbf16>, %kv: tensor<1x1x40xf32>, %w: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !kv.latent_cache<layers = 2, batch = 1, slots = 16, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.mla_attention' op latent element type 'f32' does not match the cache dtype 'bf16'}}
  %o, %c1 = llm.mla_attention %q, %kv, %w, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x40xf32>, tensor<64x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 2, batch = 1, slots = 16, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x1x32xbf16>
  return
}

// -----

// Tests that an embedding lookup returns the table's element type.
func.func @f(%t: tensor<1x4xi32>, %w: tensor<100x64xbf16>) {
  // expected-error @+1 {{'llm.embed' op result element type 'f32' does not match the table's 'bf16'}}
  %h = llm.embed %t, %w : tensor<1x4xi32>, tensor<100x64xbf16> -> tensor<1x4x64xf32>
  return
}

// -----

// Tests that experts are spread over at least one socket.
func.func @f(%x: tensor<1x1x16xbf16>, %r: tensor<1x1x2xi32>, %g: tensor<4x8x16xbf16>, %u: tensor<4x8x16xbf16>, %d: tensor<4x16x8xbf16>) {
  // expected-error @+1 {{'llm.moe' op expert_shards must be >= 1, got 0}}
  %y = llm.moe %x, %r, %g, %u, %d {num_experts = 4, top_k = 2, expert_shards = 0} : tensor<1x1x16xbf16>, tensor<1x1x2xi32>, tensor<4x8x16xbf16>, tensor<4x8x16xbf16>, tensor<4x16x8xbf16>
  return
}

// -----

// Tests that a shard slice of an axis that does not divide keeps the padded
// share, ceil(30 / 4) = 8, not the floor.
func.func @f(%x: tensor<1x1x30xbf16>) {
  // expected-error @+1 {{'llm.shard_slice' op result must be the input with dim 2 split into 4 shards of 8, got 'tensor<1x1x7xbf16>'}}
  %y = llm.shard_slice %x {dim = 2, shards = 4} : tensor<1x1x30xbf16> -> tensor<1x1x7xbf16>
  return
}

// -----

// Tests that a shard slice returns the input with one axis divided.
func.func @f(%x: tensor<1x1x32xbf16>) {
  // expected-error @+1 {{'llm.shard_slice' op result must be the input with dim 2 split into 4 shards of 8, got 'tensor<1x1x16xbf16>'}}
  %y = llm.shard_slice %x {dim = 2, shards = 4} : tensor<1x1x32xbf16> -> tensor<1x1x16xbf16>
  return
}

// -----

// Tests that a shard slice names an axis of its input.
func.func @f(%x: tensor<1x1x32xbf16>) {
  // expected-error @+1 {{'llm.shard_slice' op dim 3 is out of range for 'tensor<1x1x32xbf16>'}}
  %y = llm.shard_slice %x {dim = 3, shards = 4} : tensor<1x1x32xbf16> -> tensor<1x1x8xbf16>
  return
}

// -----

// Tests that an op whose costs exceed 64 bits is refused, not wrapped: a
// 2^62-row activation through a 4 x 4 projection.
func.func @costs_overflow(%x: tensor<4611686018427387904x4xbf16>, %w: tensor<4x4xbf16>) -> tensor<4611686018427387904x4xbf16> {
  // expected-error @+1 {{'llm.linear' op the byte size of 'tensor<4611686018427387904x4xbf16>' exceeds a 64-bit count}}
  %y = llm.linear %x, %w : tensor<4611686018427387904x4xbf16>, tensor<4x4xbf16> -> tensor<4611686018427387904x4xbf16>
  return %y : tensor<4611686018427387904x4xbf16>
}

// -----

// Tests that a workload has at least one sequence and one token.
// expected-error @+1 {{llm.workload batch and tokens must be >= 1, got 0 and 64}}
func.func @no_batch() attributes {llm.workload = #llm.workload<decode, batch = 0, tokens = 64>} {
  return
}

// -----

// Tests that MTP speculation belongs to decode.
// expected-error @+1 {{llm.workload: MTP speculation (mtp_depth 1) applies to decode only}}
func.func @mtp_prefill() attributes {llm.workload = #llm.workload<prefill, batch = 1, tokens = 64, mtp_depth = 1, mtp_acceptance = 0.8>} {
  return
}

// -----

// Tests that a draft's acceptance is a probability.
// expected-error @+1 {{llm.workload mtp_acceptance must be in [0, 1], got 1.5}}
func.func @acceptance() attributes {llm.workload = #llm.workload<decode, batch = 1, tokens = 64, mtp_depth = 1, mtp_acceptance = 1.5>} {
  return
}

// -----

// Tests that the llm dialect refuses attributes it does not declare (the
// loose llm.batch of earlier versions is now part of llm.workload).
// expected-error @+1 {{unknown attribute 'llm.batch'; the llm dialect declares llm.workload, llm.model, llm.model_type, llm.model_fingerprint, llm.weights_dtype, llm.tp and llm.layer}}
func.func @loose() attributes {llm.batch = 8 : i64} {
  return
}

// -----

// Tests that the TP group size is recorded on the module, and is >= 1.
// expected-error @+1 {{'llm.tp' must be a group size >= 1 (i64) on the module, got 4 : i64}}
func.func @tp_on_function() attributes {llm.tp = 4 : i64} {
  return
}

// -----

// Tests that a layer index is not negative.
func.func @layer() {
  // expected-error @+1 {{'llm.layer' must be a layer index >= 0 (i64), got -1 : i64}}
  "llm.yield"() {llm.layer = -1 : i64} : () -> ()
}

// -----

// Tests that only a prefill is chunked.
// expected-error @+1 {{llm.workload: chunks (2) applies to prefill only}}
func.func @chunked_decode() attributes {llm.workload = #llm.workload<decode, batch = 1, tokens = 64, chunks = 2>} {
  return
}

// -----

// Tests that no chunk of a chunked prefill is empty.
// expected-error @+1 {{llm.workload: 8 chunks of a prompt of 4 tokens leave a chunk empty}}
func.func @empty_chunk() attributes {llm.workload = #llm.workload<prefill, batch = 1, tokens = 4, chunks = 8>} {
  return
}

// -----

// Tests that a prefix (earlier chunks' tokens) belongs to a prefill.
func.func @attention_prefix_decode(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.attention' op a prefix (16 tokens of earlier chunks) applies to a chunked prefill only}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>, prefix = 16} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x1x64xbf16>
  return
}

// -----

// Tests that a chunk and its prefix fit a full cache.
func.func @attention_prefix_overflow(%q: tensor<1x16x64xbf16>, %k: tensor<1x16x32xbf16>, %v: tensor<1x16x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.attention' op prefill of 48 tokens does not fit a full cache of 32 slots}}
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>, prefix = 32} : tensor<1x16x64xbf16>, tensor<1x16x32xbf16>, tensor<1x16x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x16x64xbf16>
  return
}

// -----

// Tests that a prefix is not negative.
func.func @mla_prefix_negative(%q: tensor<1x4x96xbf16>, %kv: tensor<1x4x40xbf16>, %w: tensor<128x32xbf16>, %n: tensor<32xbf16>, %c: !kv.latent_cache<layers = 1, batch = 1, slots = 8, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'llm.mla_attention' op prefix must be >= 0, got -4}}
  %o, %c1 = llm.mla_attention %q, %kv, %w, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 40, qk_rope_head_dim = 8, v_head_dim = 24, kv_lora_rank = 32, phase = #llm<phase prefill>, prefix = -4} : tensor<1x4x96xbf16>, tensor<1x4x40xbf16>, tensor<128x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 1, batch = 1, slots = 8, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x4x48xbf16>
  return
}

// -----

// Tests that an attention returns probabilities only in decode.
func.func @attention_probs_prefill(%q: tensor<1x4x64xbf16>, %k: tensor<1x4x32xbf16>, %v: tensor<1x4x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>>) {
  // expected-error @+1 {{'llm.attention' op returns attention probabilities only in decode (a prefill's scores are kv.score's)}}
  %o, %c1, %p = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>} : tensor<1x4x64xbf16>, tensor<1x4x32xbf16>, tensor<1x4x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>> -> tensor<1x4x64xbf16>, probs tensor<1x2x4xf32>
  return
}

// -----

// Tests that a decode attention's probabilities are one f32 per KV-head
// group and cache slot.
func.func @attention_probs_shape(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>>) {
  // expected-error @+1 {{'llm.attention' op probs must be tensor<1x2x32xf32> (batch x KV-head groups x cache slots), got 'tensor<1x4x32xf32>'}}
  %o, %c1, %p = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>> -> tensor<1x1x64xbf16>, probs tensor<1x4x32xf32>
  return
}

// -----

// Tests the same for a latent cache: one group.
func.func @mla_probs_shape(%q: tensor<1x1x48xbf16>, %l: tensor<1x1x40xbf16>, %w: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !kv.latent_cache<layers = 1, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>>) {
  // expected-error @+1 {{'llm.mla_attention' op probs must be tensor<1x1x32xf32> (batch x KV-head groups x cache slots), got 'tensor<1x1x32xbf16>'}}
  %o, %c1, %p = llm.mla_attention %q, %l, %w, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 1, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>> -> tensor<1x1x32xbf16>, probs tensor<1x1x32xbf16>
  return
}

// -----

// Tests that a block embedding's tokens_per_row divides the tokens.
func.func @embed_rows(%t: tensor<1x6xi32>, %e: tensor<100x16xbf16>) {
  // expected-error @+1 {{'llm.embed' op tokens_per_row 4 must be >= 1 and divide the 6 tokens}}
  %h = llm.embed %t, %e {tokens_per_row = 4} : tensor<1x6xi32>, tensor<100x16xbf16> -> tensor<1x1x64xbf16>
  return
}

// -----

// Tests that a block embedding concatenates its tokens' rows.
func.func @embed_width(%t: tensor<1x8xi32>, %e: tensor<100x16xbf16>) {
  // expected-error @+1 {{'llm.embed' op result must be tensor<1x2x64xT>, got 'tensor<1x2x16xbf16>'}}
  %h = llm.embed %t, %e {tokens_per_row = 4} : tensor<1x8xi32>, tensor<100x16xbf16> -> tensor<1x2x16xbf16>
  return
}

// -----

// Tests that a layer norm's bias has the normalised axis's length.
func.func @layer_norm_bias(%x: tensor<1x2x64xbf16>, %w: tensor<64xbf16>, %b: tensor<32xbf16>) {
  // expected-error @+1 {{'llm.layer_norm' op bias must be tensor<64xT>, got 'tensor<32xbf16>'}}
  %y = llm.layer_norm %x, %w, %b {eps = 1.0e-05 : f64} : tensor<1x2x64xbf16>, tensor<64xbf16>, tensor<32xbf16>
  return
}

// -----

// Tests that a layer norm's eps is positive.
func.func @layer_norm_eps(%x: tensor<1x2x64xbf16>, %w: tensor<64xbf16>) {
  // expected-error @+1 {{'llm.layer_norm' op eps must be > 0}}
  %y = llm.layer_norm %x, %w, %w {eps = 0.0 : f64} : tensor<1x2x64xbf16>, tensor<64xbf16>, tensor<64xbf16>
  return
}

// -----

// Tests that a projection's bias has its output width.
func.func @linear_bias(%x: tensor<1x2x64xbf16>, %w: tensor<128x64xbf16>, %b: tensor<64xbf16>) {
  // expected-error @+1 {{'llm.linear' op bias must be tensor<128xT>, got 'tensor<64xbf16>'}}
  %y = llm.linear %x, %w bias %b : tensor<1x2x64xbf16>, tensor<128x64xbf16> bias tensor<64xbf16> -> tensor<1x2x128xbf16>
  return
}

// -----

// Tests that a GELU MLP's down projection returns to the hidden width.
func.func @gelu_mlp_down(%x: tensor<1x2x64xbf16>, %u: tensor<256x64xbf16>, %ub: tensor<256xbf16>, %d: tensor<64x128xbf16>, %db: tensor<64xbf16>) {
  // expected-error @+1 {{'llm.gelu_mlp' op down must be tensor<64x256xT>, got 'tensor<64x128xbf16>'}}
  %y = llm.gelu_mlp %x, %u, %ub, %d, %db : tensor<1x2x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>, tensor<64x128xbf16>, tensor<64xbf16>
  return
}

// -----

// Tests that a GELU MLP's first bias has the intermediate width.
func.func @gelu_mlp_bias(%x: tensor<1x2x64xbf16>, %u: tensor<256x64xbf16>, %ub: tensor<64xbf16>, %d: tensor<64x256xbf16>, %db: tensor<64xbf16>) {
  // expected-error @+1 {{'llm.gelu_mlp' op up_bias must be tensor<256xT>, got 'tensor<64xbf16>'}}
  %y = llm.gelu_mlp %x, %u, %ub, %d, %db : tensor<1x2x64xbf16>, tensor<256x64xbf16>, tensor<64xbf16>, tensor<64x256xbf16>, tensor<64xbf16>
  return
}

// -----

// Tests that a reshape keeps the elements.
func.func @reshape_elements(%x: tensor<1x1x128xbf16>) {
  // expected-error @+1 {{'llm.reshape' op result 'tensor<1x3x64xbf16>' must hold the input's elements, 'tensor<1x1x128xbf16>'}}
  %y = llm.reshape %x : tensor<1x1x128xbf16> -> tensor<1x3x64xbf16>
  return
}

// -----

// Tests that local attention takes keys and values in pairs.
func.func @local_pairs(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x64xbf16>) {
  // expected-error @+1 {{'llm.local_attention' op kv must be pairs of keys and values, got 3 values}}
  %o = llm.local_attention %q over (%k, %k, %k) {num_heads = 4, num_kv_heads = 4, head_dim = 16} : tensor<1x1x64xbf16> over (tensor<1x1x64xbf16>, tensor<1x1x64xbf16>, tensor<1x1x64xbf16>) -> tensor<1x1x64xbf16>
  return
}

// -----

// Tests that the last pair of a local attention is the queries' own rows.
func.func @local_own(%q: tensor<1x1x64xbf16>, %k: tensor<1x2x64xbf16>) {
  // expected-error @+1 {{'llm.local_attention' op key 0 must be tensor<1x1x64xT>, got 'tensor<1x2x64xbf16>'}}
  %o = llm.local_attention %q over (%k, %k) {num_heads = 4, num_kv_heads = 4, head_dim = 16} : tensor<1x1x64xbf16> over (tensor<1x2x64xbf16>, tensor<1x2x64xbf16>) -> tensor<1x1x64xbf16>
  return
}

// -----

// Tests that local attention's keys have its KV heads' width.
func.func @local_width(%q: tensor<1x1x64xbf16>, %k: tensor<1x2x32xbf16>, %o: tensor<1x1x64xbf16>) {
  // expected-error @+1 {{'llm.local_attention' op key 0 must be tensor<1xTx64xT>, got 'tensor<1x2x32xbf16>'}}
  %r = llm.local_attention %q over (%k, %k, %o, %o) {num_heads = 4, num_kv_heads = 4, head_dim = 16} : tensor<1x1x64xbf16> over (tensor<1x2x32xbf16>, tensor<1x2x32xbf16>, tensor<1x1x64xbf16>, tensor<1x1x64xbf16>) -> tensor<1x1x64xbf16>
  return
}

// -----

// Tests that sampling gives one token per position.
func.func @sample_shape(%l: tensor<1x2x100xbf16>) {
  // expected-error @+1 {{'llm.sample' op tokens must be tensor<1x2xi32> for logits 'tensor<1x2x100xbf16>'}}
  %t = llm.sample %l : tensor<1x2x100xbf16> -> tensor<1x1xi32>
  return
}

// -----

// Tests that a block of tokens per step is a decode's.
// expected-error @+1 {{llm.workload: block_tokens (4) applies to decode only}}
func.func @workload_block() attributes {llm.workload = #llm.workload<prefill, batch = 1, tokens = 8, block_tokens = 4>} {
  return
}

// -----

// Tests that the model's config fingerprint is a string on the module.
// expected-error @+1 {{'llm.model_fingerprint' must be a string on the module, got 7 : i64}}
module attributes {llm.model_fingerprint = 7} {
}

// -----

// Tests that the weights' dtype is one the builder gives them.
// expected-error @+1 {{'llm.weights_dtype' must be "bf16" or "fp8" on the module, got "int4"}}
module attributes {llm.weights_dtype = "int4"} {
}

// -----

// Tests that a layout change names both dimensions.
func.func @all_to_all_half(%x: tensor<8x1x64xbf16>) {
  // expected-error @+1 {{'llm.all_to_all' op takes split_dim and concat_dim together}}
  %y = llm.all_to_all %x {group_size = 4, split_dim = 0} : tensor<8x1x64xbf16> -> tensor<2x1x256xbf16>
  return
}

// -----

// Tests that a layout change splits one dimension and stacks another.
func.func @all_to_all_layout(%x: tensor<8x1x64xbf16>) {
  // expected-error @+1 {{'llm.all_to_all' op result 'tensor<2x1x128xbf16>' is not 'tensor<8x1x64xbf16>' split along dim 0 and stacked along dim 2 over 4 sockets}}
  %y = llm.all_to_all %x {group_size = 4, split_dim = 0, concat_dim = 2} : tensor<8x1x64xbf16> -> tensor<2x1x128xbf16>
  return
}
