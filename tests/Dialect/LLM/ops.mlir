// RUN: snapflow-opt %s | snapflow-opt | FileCheck %s
// RUN: snapflow-opt %s --mlir-print-op-generic | snapflow-opt | FileCheck %s

// Tests that llm.param names a weight of every supported element type.
// CHECK-LABEL: func.func @param()
// CHECK:         %[[WQ:.+]] = llm.param @model.layers.0.self_attn.q_proj.weight : tensor<64x64xbf16>
// CHECK:         %[[NORM:.+]] = llm.param @model.norm.weight : tensor<64xf16>
// CHECK:         %[[LN:.+]] = llm.param @model.layers.0.input_layernorm.weight : tensor<64xf32>
// CHECK:         %[[GATE:.+]] = llm.param @model.layers.0.mlp.gate_proj.weight : tensor<64x64xf8E4M3FN>
// CHECK:         %[[UP:.+]] = llm.param @model.layers.0.mlp.up_proj.weight : tensor<64x64xf8E5M2>
// CHECK:         return %[[WQ]], %[[NORM]], %[[LN]], %[[GATE]], %[[UP]]
func.func @param() -> (tensor<64x64xbf16>, tensor<64xf16>, tensor<64xf32>, tensor<64x64xf8E4M3FN>, tensor<64x64xf8E5M2>) {
  %wq = llm.param @model.layers.0.self_attn.q_proj.weight : tensor<64x64xbf16>
  %norm = llm.param @model.norm.weight : tensor<64xf16>
  %ln = llm.param @model.layers.0.input_layernorm.weight : tensor<64xf32>
  %gate = llm.param @model.layers.0.mlp.gate_proj.weight : tensor<64x64xf8E4M3FN>
  %up = llm.param @model.layers.0.mlp.up_proj.weight : tensor<64x64xf8E5M2>
  return %wq, %norm, %ln, %gate, %up : tensor<64x64xbf16>, tensor<64xf16>, tensor<64xf32>, tensor<64x64xf8E4M3FN>, tensor<64x64xf8E5M2>
}

// Tests that llm.embed looks up i32 and i64 tokens.
// CHECK-LABEL: func.func @embed(
// CHECK-SAME:    %[[TOK:.+]]: tensor<1x4xi32>, %[[TOK64:.+]]: tensor<2x1xi64>, %[[TABLE:.+]]: tensor<128x64xbf16>)
// CHECK:         %[[H:.+]] = llm.embed %[[TOK]], %[[TABLE]] : tensor<1x4xi32>, tensor<128x64xbf16> -> tensor<1x4x64xbf16>
// CHECK:         %[[H64:.+]] = llm.embed %[[TOK64]], %[[TABLE]] : tensor<2x1xi64>, tensor<128x64xbf16> -> tensor<2x1x64xbf16>
// CHECK:         return %[[H]], %[[H64]]
func.func @embed(%tokens: tensor<1x4xi32>, %tokens64: tensor<2x1xi64>, %table: tensor<128x64xbf16>) -> (tensor<1x4x64xbf16>, tensor<2x1x64xbf16>) {
  %h = llm.embed %tokens, %table : tensor<1x4xi32>, tensor<128x64xbf16> -> tensor<1x4x64xbf16>
  %h64 = llm.embed %tokens64, %table : tensor<2x1xi64>, tensor<128x64xbf16> -> tensor<2x1x64xbf16>
  return %h, %h64 : tensor<1x4x64xbf16>, tensor<2x1x64xbf16>
}

// Tests that llm.rms_norm, llm.add and llm.rope (rotating part of each head)
// keep the activation type.
// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME:    %[[X:.+]]: tensor<1x4x64xf16>, %[[W:.+]]: tensor<64xf16>)
// CHECK:         %[[N:.+]] = llm.rms_norm %[[X]], %[[W]] {eps = 1.000000e-05 : f64} : tensor<1x4x64xf16>, tensor<64xf16>
// CHECK:         %[[S:.+]] = llm.add %[[N]], %[[X]] : tensor<1x4x64xf16>
// CHECK:         %[[R:.+]] = llm.rope %[[S]] {head_dim = 16 : i64, num_heads = 4 : i64, rotary_dim = 8 : i64, theta = 5.000000e+05 : f64} : tensor<1x4x64xf16>
// CHECK:         return %[[R]]
func.func @elementwise(%x: tensor<1x4x64xf16>, %w: tensor<64xf16>) -> tensor<1x4x64xf16> {
  %n = llm.rms_norm %x, %w {eps = 1.0e-05 : f64} : tensor<1x4x64xf16>, tensor<64xf16>
  %s = llm.add %n, %x : tensor<1x4x64xf16>
  %r = llm.rope %s {num_heads = 4, head_dim = 16, rotary_dim = 8, theta = 5.0e+05 : f64} : tensor<1x4x64xf16>
  return %r : tensor<1x4x64xf16>
}

// Tests that llm.rms_norm normalises each head of a query (group = the
// head's width) with a weight of that width, or without a weight.
// CHECK-LABEL: func.func @head_norms(
// CHECK:         llm.rms_norm %{{.+}}, %{{.+}} {eps = {{.+}} : f64, group = 16 : i64} : tensor<1x4x64xbf16>, tensor<16xbf16>
// CHECK:         llm.rms_norm %{{.+}} {eps = 1.000000e-05 : f64, group = 16 : i64} : tensor<1x4x64xbf16>{{$}}
func.func @head_norms(%q: tensor<1x4x64xbf16>, %w: tensor<16xbf16>) -> tensor<1x4x64xbf16> {
  %n = llm.rms_norm %q, %w {eps = 1.0e-06 : f64, group = 16} : tensor<1x4x64xbf16>, tensor<16xbf16>
  %m = llm.rms_norm %n {eps = 1.0e-05 : f64, group = 16} : tensor<1x4x64xbf16>
  return %m : tensor<1x4x64xbf16>
}

// Tests that a weight stored block-scaled (MXFP4) keeps its encoding.
// CHECK-LABEL: func.func @block_scaled(
// CHECK:         llm.param @experts : tensor<4x64x32xbf16, #llm.block_scaled<element_bits = 4, block = 32, scale_bits = 8>>
func.func @block_scaled() -> tensor<4x64x32xbf16, #llm.block_scaled<element_bits = 4, block = 32, scale_bits = 8>> {
  %w = llm.param @experts : tensor<4x64x32xbf16, #llm.block_scaled<element_bits = 4, block = 32, scale_bits = 8>>
  return %w : tensor<4x64x32xbf16, #llm.block_scaled<element_bits = 4, block = 32, scale_bits = 8>>
}

// Tests that llm.linear and llm.mlp project activations.
// CHECK-LABEL: func.func @dense(
// CHECK-SAME:    %[[X:.+]]: tensor<1x4x64xbf16>, %[[WQ:.+]]: tensor<32x64xbf16>, %[[G:.+]]: tensor<128x64xbf16>, %[[U:.+]]: tensor<128x64xbf16>, %[[D:.+]]: tensor<64x128xbf16>)
// CHECK:         %[[Q:.+]] = llm.linear %[[X]], %[[WQ]] : tensor<1x4x64xbf16>, tensor<32x64xbf16> -> tensor<1x4x32xbf16>
// CHECK:         %[[Y:.+]] = llm.mlp %[[X]], %[[G]], %[[U]], %[[D]] : tensor<1x4x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>
// CHECK:         return %[[Q]], %[[Y]]
func.func @dense(%x: tensor<1x4x64xbf16>, %wq: tensor<32x64xbf16>, %g: tensor<128x64xbf16>, %u: tensor<128x64xbf16>, %d: tensor<64x128xbf16>) -> (tensor<1x4x32xbf16>, tensor<1x4x64xbf16>) {
  %q = llm.linear %x, %wq : tensor<1x4x64xbf16>, tensor<32x64xbf16> -> tensor<1x4x32xbf16>
  %y = llm.mlp %x, %g, %u, %d : tensor<1x4x64xbf16>, tensor<128x64xbf16>, tensor<128x64xbf16>, tensor<64x128xbf16>
  return %q, %y : tensor<1x4x32xbf16>, tensor<1x4x64xbf16>
}

// Tests that an MoE layer is its router (llm.route: each token's top_k
// experts), the routed experts that read them (llm.moe, with or without
// routing statistics), and shared experts as an MLP added to their output.
// CHECK-LABEL: func.func @moe(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x64xbf16>, %[[R:.+]]: tensor<8x64xbf16>, %[[G:.+]]: tensor<8x32x64xbf16>, %[[U:.+]]: tensor<8x32x64xbf16>, %[[D:.+]]: tensor<8x64x32xbf16>, %[[SG:.+]]: tensor<64x64xbf16>, %[[SU:.+]]: tensor<64x64xbf16>, %[[SD:.+]]: tensor<64x64xbf16>)
// CHECK:         %[[E:.+]] = llm.route %[[X]], %[[R]] {top_k = 2 : i64} : tensor<1x1x64xbf16>, tensor<8x64xbf16> -> tensor<1x1x2xi32>
// CHECK:         %[[ROUTED:.+]] = llm.moe %[[X]], %[[E]], %[[G]], %[[U]], %[[D]] {num_experts = 8 : i64, top_k = 2 : i64} : tensor<1x1x64xbf16>, tensor<1x1x2xi32>, tensor<8x32x64xbf16>, tensor<8x32x64xbf16>, tensor<8x64x32xbf16>{{$}}
// CHECK:         %[[STATS:.+]] = llm.moe %[[X]], %[[E]], %[[G]], %[[U]], %[[D]] {expected_active_experts = 3.500000e+00 : f64, num_experts = 8 : i64, top_k = 2 : i64}
// CHECK:         %[[SHARED:.+]] = llm.mlp %[[X]], %[[SG]], %[[SU]], %[[SD]]
// CHECK:         %[[SUM:.+]] = llm.add %[[STATS]], %[[SHARED]]
// CHECK:         return %[[ROUTED]], %[[SUM]]
func.func @moe(%x: tensor<1x1x64xbf16>, %r: tensor<8x64xbf16>, %g: tensor<8x32x64xbf16>, %u: tensor<8x32x64xbf16>, %d: tensor<8x64x32xbf16>, %sg: tensor<64x64xbf16>, %su: tensor<64x64xbf16>, %sd: tensor<64x64xbf16>) -> (tensor<1x1x64xbf16>, tensor<1x1x64xbf16>) {
  %e = llm.route %x, %r {top_k = 2} : tensor<1x1x64xbf16>, tensor<8x64xbf16> -> tensor<1x1x2xi32>
  %routed = llm.moe %x, %e, %g, %u, %d {num_experts = 8, top_k = 2} : tensor<1x1x64xbf16>, tensor<1x1x2xi32>, tensor<8x32x64xbf16>, tensor<8x32x64xbf16>, tensor<8x64x32xbf16>
  %stats = llm.moe %x, %e, %g, %u, %d {num_experts = 8, top_k = 2, expected_active_experts = 3.5 : f64} : tensor<1x1x64xbf16>, tensor<1x1x2xi32>, tensor<8x32x64xbf16>, tensor<8x32x64xbf16>, tensor<8x64x32xbf16>
  %shared = llm.mlp %x, %sg, %su, %sd : tensor<1x1x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>
  %sum = llm.add %stats, %shared : tensor<1x1x64xbf16>
  return %routed, %sum : tensor<1x1x64xbf16>, tensor<1x1x64xbf16>
}

// Tests that a windowed llm.attention prefills a prompt longer than its
// ring (64 tokens into 16 slots: it keeps the last 16).
// CHECK-LABEL: func.func @attention_window(
// CHECK:         llm.attention {{.+}}phase = #llm<phase prefill>, window = 16 : i64}
func.func @attention_window(%q: tensor<1x64x64xbf16>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>, %c: !kv.cache<layers = 1, batch = 1, slots = 16, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> {llm.window = 16 : i64}) -> tensor<1x64x64xbf16> {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>, window = 16} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>, !kv.cache<layers = 1, batch = 1, slots = 16, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x64x64xbf16>
  return %o : tensor<1x64x64xbf16>
}

// Tests that llm.attention and llm.lm_head take Gemma 2's soft-caps.
// CHECK-LABEL: func.func @softcaps(
// CHECK:         llm.attention {{.+}}softcap = 5.000000e+01 : f64}
// CHECK:         llm.lm_head {{.+}} {softcap = 3.000000e+01 : f64}
func.func @softcaps(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !kv.cache<layers = 1, batch = 1, slots = 16, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, %w: tensor<100x64xbf16>) -> tensor<1x1x100xbf16> {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>, softcap = 50.0 : f64} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !kv.cache<layers = 1, batch = 1, slots = 16, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x1x64xbf16>
  %l = llm.lm_head %o, %w {softcap = 30.0 : f64} : tensor<1x1x64xbf16>, tensor<100x64xbf16> -> tensor<1x1x100xbf16>
  return %l : tensor<1x1x100xbf16>
}

// Tests that llm.attention decodes one token per sequence over a full cache
// (4 query heads sharing 2 KV heads).
// CHECK-LABEL: func.func @attention_decode(
// CHECK-SAME:    %[[Q:.+]]: tensor<1x1x64xbf16>, %[[K:.+]]: tensor<1x1x32xbf16>, %[[V:.+]]: tensor<1x1x32xbf16>, %[[C:.+]]: !kv.cache<{{.+}}>)
// CHECK:         %[[O:.+]], %[[C1:.+]] = llm.attention %[[Q]], %[[K]], %[[V]], %[[C]] {head_dim = 16 : i64, layer = 1 : i64, num_heads = 4 : i64, num_kv_heads = 2 : i64, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x1x64xbf16>
// CHECK:         return %[[O]], %[[C1]]
func.func @attention_decode(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) -> (tensor<1x1x64xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 1, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x1x64xbf16>
  return %o, %c1 : tensor<1x1x64xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
}

// Tests that llm.attention prefills a prompt longer than a compressed cache.
// CHECK-LABEL: func.func @attention_prefill(
// CHECK-SAME:    %[[Q:.+]]: tensor<1x64x64xbf16>, %[[K:.+]]: tensor<1x64x32xbf16>, %[[V:.+]]: tensor<1x64x32xbf16>, %[[C:.+]]: !kv.cache<{{.+}}>)
// CHECK:         %[[O:.+]], %[[C1:.+]] = llm.attention %[[Q]], %[[K]], %[[V]], %[[C]] {head_dim = 16 : i64, layer = 0 : i64, num_heads = 4 : i64, num_kv_heads = 2 : i64, phase = #llm<phase prefill>} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>> -> tensor<1x64x64xbf16>
// CHECK:         return %[[O]], %[[C1]]
func.func @attention_prefill(%q: tensor<1x64x64xbf16>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>) -> (tensor<1x64x64xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>) {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>> -> tensor<1x64x64xbf16>
  return %o, %c1 : tensor<1x64x64xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>
}

// Tests that llm.mla_attention decodes over a latent cache.
// CHECK-LABEL: func.func @mla_attention_decode(
// CHECK-SAME:    %[[Q:.+]]: tensor<1x1x48xbf16>, %[[KV:.+]]: tensor<1x1x40xbf16>, %[[UP:.+]]: tensor<64x32xbf16>, %[[N:.+]]: tensor<32xbf16>, %[[C:.+]]: !kv.latent_cache<{{.+}}>)
// CHECK:         %[[O:.+]], %[[C1:.+]] = llm.mla_attention %[[Q]], %[[KV]], %[[UP]], %[[N]], %[[C]] {kv_lora_rank = 32 : i64, layer = 1 : i64, num_heads = 2 : i64, phase = #llm<phase decode>, qk_nope_head_dim = 16 : i64, qk_rope_head_dim = 8 : i64, v_head_dim = 16 : i64} : tensor<1x1x48xbf16>, tensor<1x1x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x1x32xbf16>
// CHECK:         return %[[O]], %[[C1]]
func.func @mla_attention_decode(%q: tensor<1x1x48xbf16>, %kv: tensor<1x1x40xbf16>, %up: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) -> (tensor<1x1x32xbf16>, !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) {
  %o, %c1 = llm.mla_attention %q, %kv, %up, %n, %c {layer = 1, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x1x32xbf16>
  return %o, %c1 : tensor<1x1x32xbf16>, !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>
}

// Tests that llm.mla_attention prefills a prompt that fits a full latent cache.
// CHECK-LABEL: func.func @mla_attention_prefill(
// CHECK-SAME:    %[[Q:.+]]: tensor<2x16x48xbf16>, %[[KV:.+]]: tensor<2x16x40xbf16>, %[[UP:.+]]: tensor<64x32xbf16>, %[[N:.+]]: tensor<32xbf16>, %[[C:.+]]: !kv.latent_cache<{{.+}}>)
// CHECK:         %[[O:.+]], %[[C1:.+]] = llm.mla_attention %[[Q]], %[[KV]], %[[UP]], %[[N]], %[[C]] {kv_lora_rank = 32 : i64, layer = 0 : i64, num_heads = 2 : i64, phase = #llm<phase prefill>, qk_nope_head_dim = 16 : i64, qk_rope_head_dim = 8 : i64, v_head_dim = 16 : i64} : tensor<2x16x48xbf16>, tensor<2x16x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 2, batch = 2, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<2x16x32xbf16>
// CHECK:         return %[[O]], %[[C1]]
func.func @mla_attention_prefill(%q: tensor<2x16x48xbf16>, %kv: tensor<2x16x40xbf16>, %up: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !kv.latent_cache<layers = 2, batch = 2, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) -> (tensor<2x16x32xbf16>, !kv.latent_cache<layers = 2, batch = 2, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) {
  %o, %c1 = llm.mla_attention %q, %kv, %up, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase prefill>} : tensor<2x16x48xbf16>, tensor<2x16x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 2, batch = 2, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<2x16x32xbf16>
  return %o, %c1 : tensor<2x16x32xbf16>, !kv.latent_cache<layers = 2, batch = 2, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>
}

// Tests that llm.lm_head projects every position, or only the last one with
// last_token_only.
// CHECK-LABEL: func.func @lm_head(
// CHECK-SAME:    %[[H:.+]]: tensor<1x4x64xbf16>, %[[W:.+]]: tensor<128x64xbf16>)
// CHECK:         %[[ALL:.+]] = llm.lm_head %[[H]], %[[W]] : tensor<1x4x64xbf16>, tensor<128x64xbf16> -> tensor<1x4x128xbf16>
// CHECK:         %[[LAST:.+]] = llm.lm_head %[[H]], %[[W]] {last_token_only} : tensor<1x4x64xbf16>, tensor<128x64xbf16> -> tensor<1x1x128xbf16>
// CHECK:         return %[[ALL]], %[[LAST]]
func.func @lm_head(%h: tensor<1x4x64xbf16>, %w: tensor<128x64xbf16>) -> (tensor<1x4x128xbf16>, tensor<1x1x128xbf16>) {
  %all = llm.lm_head %h, %w : tensor<1x4x64xbf16>, tensor<128x64xbf16> -> tensor<1x4x128xbf16>
  %last = llm.lm_head %h, %w {last_token_only} : tensor<1x4x64xbf16>, tensor<128x64xbf16> -> tensor<1x1x128xbf16>
  return %all, %last : tensor<1x4x128xbf16>, tensor<1x1x128xbf16>
}

// Tests that llm.mtp combines a hidden state with the next token's embedding.
// CHECK-LABEL: func.func @mtp(
// CHECK-SAME:    %[[H:.+]]: tensor<1x1x64xbf16>, %[[E:.+]]: tensor<1x1x64xbf16>, %[[W:.+]]: tensor<64x128xbf16>)
// CHECK:         %[[M:.+]] = llm.mtp %[[H]], %[[E]], %[[W]] {depth = 1 : i64} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16>, tensor<64x128xbf16> -> tensor<1x1x64xbf16>
// CHECK:         return %[[M]]
func.func @mtp(%h: tensor<1x1x64xbf16>, %e: tensor<1x1x64xbf16>, %w: tensor<64x128xbf16>) -> tensor<1x1x64xbf16> {
  %m = llm.mtp %h, %e, %w {depth = 1} : tensor<1x1x64xbf16>, tensor<1x1x64xbf16>, tensor<64x128xbf16> -> tensor<1x1x64xbf16>
  return %m : tensor<1x1x64xbf16>
}

// Tests that the collectives take both reduction kinds and that all_gather
// multiplies the gathered dimension by the group size.
// CHECK-LABEL: func.func @collectives(
// CHECK-SAME:    %[[X:.+]]: tensor<4x1x64xbf16>, %[[SHARD:.+]]: tensor<4x1x32xbf16>)
// CHECK:         %[[SUM:.+]] = llm.all_reduce %[[X]] {group_size = 4 : i64, kind = #llm<reduce sum>} : tensor<4x1x64xbf16>
// CHECK:         %[[MAX:.+]] = llm.all_reduce %[[X]] {group_size = 4 : i64, kind = #llm<reduce max>} : tensor<4x1x64xbf16>
// CHECK:         %[[GATHERED:.+]] = llm.all_gather %[[SHARD]] {dim = 2 : i64, group_size = 2 : i64} : tensor<4x1x32xbf16> -> tensor<4x1x64xbf16>
// CHECK:         %[[EXCHANGED:.+]] = llm.all_to_all %[[X]] {group_size = 4 : i64} : tensor<4x1x64xbf16> -> tensor<4x1x64xbf16>
// CHECK:         return %[[SUM]], %[[MAX]], %[[GATHERED]], %[[EXCHANGED]]
func.func @collectives(%x: tensor<4x1x64xbf16>, %shard: tensor<4x1x32xbf16>) -> (tensor<4x1x64xbf16>, tensor<4x1x64xbf16>, tensor<4x1x64xbf16>, tensor<4x1x64xbf16>) {
  %sum = llm.all_reduce %x {group_size = 4, kind = #llm<reduce sum>} : tensor<4x1x64xbf16>
  %max = llm.all_reduce %x {group_size = 4, kind = #llm<reduce max>} : tensor<4x1x64xbf16>
  %gathered = llm.all_gather %shard {group_size = 2, dim = 2} : tensor<4x1x32xbf16> -> tensor<4x1x64xbf16>
  %exchanged = llm.all_to_all %x {group_size = 4} : tensor<4x1x64xbf16> -> tensor<4x1x64xbf16>
  return %sum, %max, %gathered, %exchanged : tensor<4x1x64xbf16>, tensor<4x1x64xbf16>, tensor<4x1x64xbf16>, tensor<4x1x64xbf16>
}

// Tests that an all-to-all changes the layout: the query heads of a batch
// of 6 sequences (8 of 32 heads of width 4 per socket) become every head of
// ceil(6 / 4) = 2 sequences per socket (the last part padded), and back;
// and that a shard slice of a batch of 6 over 4 sockets keeps 2 sequences.
// CHECK-LABEL: func.func @layout(
// CHECK:         llm.all_to_all %{{.+}} {concat_dim = 2 : i64, group_size = 4 : i64, split_dim = 0 : i64} : tensor<6x1x32xbf16> -> tensor<2x1x128xbf16>
// CHECK:         llm.all_to_all %{{.+}} {concat_dim = 0 : i64, group_size = 4 : i64, split_dim = 2 : i64} : tensor<2x1x128xbf16> -> tensor<6x1x32xbf16>
// CHECK:         llm.shard_slice %{{.+}} {dim = 0 : i64, shards = 4 : i64} : tensor<6x1x16xbf16> -> tensor<2x1x16xbf16>
func.func @layout(%q: tensor<6x1x32xbf16>, %l: tensor<6x1x16xbf16>) -> (tensor<6x1x32xbf16>, tensor<2x1x16xbf16>) {
  %dp = llm.all_to_all %q {group_size = 4, split_dim = 0, concat_dim = 2} : tensor<6x1x32xbf16> -> tensor<2x1x128xbf16>
  %tp = llm.all_to_all %dp {group_size = 4, split_dim = 2, concat_dim = 0} : tensor<2x1x128xbf16> -> tensor<6x1x32xbf16>
  %mine = llm.shard_slice %l {dim = 0, shards = 4} : tensor<6x1x16xbf16> -> tensor<2x1x16xbf16>
  return %tp, %mine : tensor<6x1x32xbf16>, tensor<2x1x16xbf16>
}

// Tests that tensor-parallel forms round-trip: experts spread over 4 sockets
// (the router still scores all 16) and a socket's slice of a replicated
// tensor.
// CHECK-LABEL: func.func @tensor_parallel(
// CHECK:         llm.route %{{.+}}, %{{.+}} {top_k = 2 : i64} : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x2xi32>
// CHECK:         llm.moe %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {expert_shards = 4 : i64, num_experts = 4 : i64, top_k = 2 : i64}
// CHECK:         llm.shard_slice %{{.+}} {dim = 2 : i64, shards = 4 : i64} : tensor<1x1x16xbf16> -> tensor<1x1x4xbf16>
func.func @tensor_parallel(%x: tensor<1x1x16xbf16>, %r: tensor<16x16xbf16>, %g: tensor<4x8x16xbf16>, %u: tensor<4x8x16xbf16>, %d: tensor<4x16x8xbf16>) -> tensor<1x1x4xbf16> {
  %e = llm.route %x, %r {top_k = 2} : tensor<1x1x16xbf16>, tensor<16x16xbf16> -> tensor<1x1x2xi32>
  %y = llm.moe %x, %e, %g, %u, %d {num_experts = 4, top_k = 2, expert_shards = 4} : tensor<1x1x16xbf16>, tensor<1x1x2xi32>, tensor<4x8x16xbf16>, tensor<4x8x16xbf16>, tensor<4x16x8xbf16>
  %s = llm.shard_slice %y {dim = 2, shards = 4} : tensor<1x1x16xbf16> -> tensor<1x1x4xbf16>
  return %s : tensor<1x1x4xbf16>
}

// Tests that a chunk of a chunked prefill records the prefix earlier chunks
// wrote, and the function the chunks it runs.
// CHECK-LABEL: func.func @chunk(
// CHECK-SAME:    llm.workload = #llm.workload<prefill, batch = 1, tokens = 30, chunks = 2>
// CHECK:         llm.attention {{.+}} {head_dim = 16 : i64, layer = 0 : i64, num_heads = 4 : i64, num_kv_heads = 2 : i64, phase = #llm<phase prefill>, prefix = 16 : i64}
func.func @chunk(%q: tensor<1x16x64xbf16>, %k: tensor<1x16x32xbf16>, %v: tensor<1x16x32xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) -> tensor<1x16x64xbf16> attributes {llm.workload = #llm.workload<prefill, batch = 1, tokens = 30, chunks = 2>} {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>, prefix = 16} : tensor<1x16x64xbf16>, tensor<1x16x32xbf16>, tensor<1x16x32xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x16x64xbf16>
  return %o : tensor<1x16x64xbf16>
}

// Tests that a later layer of a cross-layer-attention group (`reuse_kv`)
// takes its group's keys and values and round-trips the flag, GQA and MLA.
// CHECK-LABEL: func.func @attention_reuse_kv(
// CHECK:         llm.attention {{.+}}phase = #llm<phase decode>, reuse_kv}
// CHECK:         llm.mla_attention {{.+}}phase = #llm<phase decode>, qk_nope_head_dim = 16 : i64, qk_rope_head_dim = 8 : i64, reuse_kv, v_head_dim = 16 : i64}
func.func @attention_reuse_kv(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !kv.cache<layers = 1, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, %mq: tensor<1x1x48xbf16>, %kv: tensor<1x1x40xbf16>, %up: tensor<64x32xbf16>, %n: tensor<32xbf16>, %mc: !kv.latent_cache<layers = 1, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) -> (tensor<1x1x64xbf16>, tensor<1x1x32xbf16>) {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>, reuse_kv} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !kv.cache<layers = 1, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x1x64xbf16>
  %mo, %mc1 = llm.mla_attention %mq, %kv, %up, %n, %mc {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase decode>, reuse_kv} : tensor<1x1x48xbf16>, tensor<1x1x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !kv.latent_cache<layers = 1, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x1x32xbf16>
  return %o, %mo : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>
}

// Tests that an llm.repeat whose body is a group of layers prints its
// stride (`8 x 2 layers`: 8 iterations of 2 decoder layers).
// CHECK-LABEL: func.func @repeat_stride(
// CHECK:         llm.repeat 8 x 2 layers from 0 (%{{.+}}) : (tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
func.func @repeat_stride(%h: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %r = llm.repeat 8 x 2 layers from 0 (%h) : (tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  ^bb0(%a: tensor<1x1x8xbf16>):
    llm.yield %a : tensor<1x1x8xbf16>
  }
  return %r : tensor<1x1x8xbf16>
}

// Tests the ops of the Block Transformer (GPT-NeoX decoders): the block
// embedding (4 tokens' rows concatenated), layer norm, a projection with a
// bias, the GELU MLP, the expansion's reshape into 2 prefix vectors, the
// token decoder's local attention over the block's earlier keys and values,
// and greedy sampling.
// CHECK-LABEL: func.func @block_transformer_ops(
// CHECK:         llm.embed %{{.+}}, %{{.+}} {tokens_per_row = 4 : i64} : tensor<1x8xi32>, tensor<100x16xbf16> -> tensor<1x2x64xbf16>
// CHECK:         llm.layer_norm %{{.+}}, %{{.+}}, %{{.+}} {eps = 1.000000e-05 : f64} : tensor<1x2x64xbf16>, tensor<64xbf16>, tensor<64xbf16>
// CHECK:         llm.linear %{{.+}}, %{{.+}} bias %{{.+}} : tensor<1x2x64xbf16>, tensor<128x64xbf16> bias tensor<128xbf16> -> tensor<1x2x128xbf16>
// CHECK:         llm.gelu_mlp %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<1x2x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>, tensor<64x256xbf16>, tensor<64xbf16>
// CHECK:         llm.reshape %{{.+}} : tensor<1x2x128xbf16> -> tensor<1x4x64xbf16>
// CHECK:         llm.local_attention %{{.+}} over (%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) {head_dim = 16 : i64, num_heads = 4 : i64, num_kv_heads = 4 : i64} : tensor<1x1x64xbf16> over (tensor<1x4x64xbf16>, tensor<1x4x64xbf16>, tensor<1x1x64xbf16>, tensor<1x1x64xbf16>) -> tensor<1x1x64xbf16>
// CHECK:         llm.sample %{{.+}} : tensor<1x1x100xbf16> -> tensor<1x1xi32>
func.func @block_transformer_ops(%t: tensor<1x8xi32>, %e: tensor<100x16xbf16>, %w: tensor<64xbf16>, %b: tensor<64xbf16>, %pw: tensor<128x64xbf16>, %pb: tensor<128xbf16>, %u: tensor<256x64xbf16>, %ub: tensor<256xbf16>, %d: tensor<64x256xbf16>, %q: tensor<1x1x64xbf16>, %k: tensor<1x1x64xbf16>, %l: tensor<1x1x100xbf16>) -> (tensor<1x2x64xbf16>, tensor<1x1x64xbf16>, tensor<1x1xi32>) {
  %h = llm.embed %t, %e {tokens_per_row = 4} : tensor<1x8xi32>, tensor<100x16xbf16> -> tensor<1x2x64xbf16>
  %n = llm.layer_norm %h, %w, %b {eps = 1.0e-05 : f64} : tensor<1x2x64xbf16>, tensor<64xbf16>, tensor<64xbf16>
  %p = llm.linear %n, %pw bias %pb : tensor<1x2x64xbf16>, tensor<128x64xbf16> bias tensor<128xbf16> -> tensor<1x2x128xbf16>
  %m = llm.gelu_mlp %n, %u, %ub, %d, %b : tensor<1x2x64xbf16>, tensor<256x64xbf16>, tensor<256xbf16>, tensor<64x256xbf16>, tensor<64xbf16>
  %r = llm.reshape %p : tensor<1x2x128xbf16> -> tensor<1x4x64xbf16>
  %o = llm.local_attention %q over (%r, %r, %k, %k) {num_heads = 4, num_kv_heads = 4, head_dim = 16} : tensor<1x1x64xbf16> over (tensor<1x4x64xbf16>, tensor<1x4x64xbf16>, tensor<1x1x64xbf16>, tensor<1x1x64xbf16>) -> tensor<1x1x64xbf16>
  %s = llm.sample %l : tensor<1x1x100xbf16> -> tensor<1x1xi32>
  return %m, %o, %s : tensor<1x2x64xbf16>, tensor<1x1x64xbf16>, tensor<1x1xi32>
}
