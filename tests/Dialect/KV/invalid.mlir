// RUN: snapflow-opt %s -split-input-file -verify-diagnostics

// Tests that a streaming policy keeps a non-negative number of sinks.
func.func @streaming_sinks(
  // expected-error @+2 {{streaming sinks must be >= 0, got -1}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 27, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.streaming<sinks = -1, window = 28>>) {
  return
}

// -----

// Tests that a streaming policy has a non-empty window.
func.func @streaming_window(
  // expected-error @+2 {{streaming window must be > 0, got 0}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 4, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.streaming<sinks = 4, window = 0>>) {
  return
}

// -----

// Tests that a snapkv policy has a positive budget.
func.func @snapkv_budget(
  // expected-error @+2 {{snapkv budget must be > 0, got 0}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapkv<budget = 0, obs_window = 8, kernel = 5, pool = max>>) {
  return
}

// -----

// Tests that a snapstream policy has a non-empty observation window.
func.func @snapstream_obs_window(
  // expected-error @+2 {{snapstream obs_window must be > 0, got 0}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 0, kernel = 3, pool = max>>) {
  return
}

// -----

// Tests that a snapkv policy pools with an odd kernel.
func.func @snapkv_even_kernel(
  // expected-error @+2 {{snapkv pooling kernel must be a positive odd number, got 4}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapkv<budget = 32, obs_window = 8, kernel = 4, pool = max>>) {
  return
}

// -----

// Tests that a snapkv observation window leaves room for selected tokens.
func.func @snapkv_obs_window_budget(
  // expected-error @+2 {{snapkv obs_window (32) must be smaller than the budget (32)}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapkv<budget = 32, obs_window = 32, kernel = 5, pool = avg>>) {
  return
}

// -----

// Tests that a snapstream policy keeps a non-negative number of sinks.
func.func @snapstream_sinks(
  // expected-error @+2 {{snapstream sinks must be >= 0, got -4}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = -4, recent = 8, obs_window = 8, kernel = 3, pool = max>>) {
  return
}

// -----

// Tests that a snapstream policy has a non-empty recent ring.
func.func @snapstream_recent(
  // expected-error @+2 {{snapstream recent must be > 0, got 0}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 0, obs_window = 8, kernel = 3, pool = max>>) {
  return
}

// -----

// Tests that a snapstream policy's sinks and recent ring fit its budget.
func.func @snapstream_sinks_recent_budget(
  // expected-error @+2 {{snapstream sinks + recent (4 + 32) exceeds the budget (32)}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 32, obs_window = 8, kernel = 3, pool = max>>) {
  return
}

// -----

// Tests that a snapstream observation window lies inside the recent tokens.
func.func @snapstream_obs_window_recent(
  // expected-error @+2 {{snapstream obs_window (16) must not exceed recent (8): the observation window is part of the recent tokens}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 16, kernel = 3, pool = max>>) {
  return
}

// -----

// Tests that a cache has at least one layer, sequence and slot.
func.func @cache_zero_layers(
  // expected-error @+1 {{cache layers, batch and slots must be > 0, got 0, 1, 32}}
  %c: !kv.cache<layers = 0, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  return
}

// -----

// Tests that a cache holds integer or float elements.
func.func @cache_dtype(
  // expected-error @+1 {{cache dtype must be an integer or float type}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = index, policy = #kv.full>) {
  return
}

// -----

// Tests that a cache's policy must be a kv policy attribute.
func.func @cache_policy_kind(
  // expected-error @+2 {{invalid kind of attribute specified}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #llm<phase decode>>) {
  return
}

// -----

// Tests that a compressed cache has exactly the policy's budget of slots.
func.func @cache_slots_budget(
  // expected-error @+1 {{cache has 64 slots per sequence but its policy keeps 32 tokens; a compressed cache has exactly the policy's budget}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>) {
  return
}

// -----

// Tests that a cache has at least one KV head.
func.func @cache_kv_heads(
  // expected-error @+1 {{cache kv_heads and head_dim must be > 0, got 0, 16}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 0, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  return
}

// -----

// Tests that a latent cache has a non-empty latent and a non-negative rotary
// part.
func.func @latent_cache_dims(
  // expected-error @+1 {{latent cache latent_dim must be > 0 and rope_dim >= 0, got 32, -8}}
  %c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = -8, dtype = bf16, policy = #kv.full>) {
  return
}

// -----

// Tests that kv.append takes (k, v) for a GQA cache.
func.func @append_gqa_count(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, %k: tensor<1x1x32xbf16>) {
  // expected-error @+1 {{'kv.append' op expects 2 appended tensor(s) for '!kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>', got 1}}
  %c1 = kv.append %c[0], %k : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, tensor<1x1x32xbf16>
  return
}

// -----

// Tests that kv.append takes (latent) alone for a latent cache.
func.func @append_latent_count(%c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>, %l: tensor<1x1x40xbf16>) {
  // expected-error @+1 {{'kv.append' op expects 1 appended tensor(s) for '!kv.latent_cache<}}
  %c1 = kv.append %c[0], %l, %l : !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>, tensor<1x1x40xbf16>, tensor<1x1x40xbf16>
  return
}

// -----

// Tests that kv.append writes batch x tokens x width tensors.
func.func @append_rank(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, %k: tensor<1x32xbf16>, %v: tensor<1x32xbf16>) {
  // expected-error @+1 {{'kv.append' op appended must be tensor<batch x tokens x 32>, got 'tensor<1x32xbf16>'}}
  %c1 = kv.append %c[0], %k, %v : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, tensor<1x32xbf16>, tensor<1x32xbf16>
  return
}

// -----

// Tests that kv.append's tensors are kv_heads x head_dim wide.
func.func @append_width(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, %k: tensor<1x1x64xbf16>, %v: tensor<1x1x64xbf16>) {
  // expected-error @+1 {{'kv.append' op appended 'tensor<1x1x64xbf16>' does not match the cache: expected batch 1 and width 32}}
  %c1 = kv.append %c[0], %k, %v : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, tensor<1x1x64xbf16>, tensor<1x1x64xbf16>
  return
}

// -----

// Tests that kv.append's element type is the cache's.
func.func @append_dtype(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, %k: tensor<1x1x32xf16>, %v: tensor<1x1x32xf16>) {
  // expected-error @+1 {{'kv.append' op appended element type 'f16' does not match the cache dtype 'bf16'}}
  %c1 = kv.append %c[0], %k, %v : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, tensor<1x1x32xf16>, tensor<1x1x32xf16>
  return
}

// -----

// Tests that kv.append's keys and values cover the same tokens.
func.func @append_token_count(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, %k: tensor<1x1x32xbf16>, %v: tensor<1x2x32xbf16>) {
  // expected-error @+1 {{'kv.append' op appended tensors disagree on the token count}}
  %c1 = kv.append %c[0], %k, %v : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, tensor<1x1x32xbf16>, tensor<1x2x32xbf16>
  return
}

// -----

// Tests that kv.append writes one of the cache's layers.
func.func @append_layer(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>) {
  // expected-error @+1 {{'kv.append' op layer 2 is out of range for a cache of 2 layers}}
  %c1 = kv.append %c[2], %k, %v : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>
  return
}

// -----

// Tests that kv.append into a compressed cache fits the recent ring.
func.func @append_ring_overflow(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>, %k: tensor<1x16x32xbf16>, %v: tensor<1x16x32xbf16>) {
  // expected-error @+1 {{'kv.append' op appends 16 tokens but the recent ring holds only 8}}
  %c1 = kv.append %c[0], %k, %v : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>, tensor<1x16x32xbf16>, tensor<1x16x32xbf16>
  return
}

// -----

// Tests that kv.append into a full cache fits its slots.
func.func @append_full_overflow(%c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>, %l: tensor<1x64x40xbf16>) {
  // expected-error @+1 {{'kv.append' op appends 64 tokens but the cache holds only 32}}
  %c1 = kv.append %c[0], %l : !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>, tensor<1x64x40xbf16>
  return
}

// -----

// Tests that kv.read returns (latent) alone for a latent cache.
func.func @read_latent_count(%c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'kv.read' op expects 1 result tensor(s) for '!kv.latent_cache<}}
  %a, %b = kv.read %c[0] : !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full> -> tensor<1x32x40xbf16>, tensor<1x32x40xbf16>
  return
}

// -----

// Tests that kv.read returns every slot of the layer.
func.func @read_slots(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'kv.read' op reads 16 tokens but the cache has 32 slots}}
  %k, %v = kv.read %c[0] : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> -> tensor<1x16x32xbf16>, tensor<1x16x32xbf16>
  return
}

// -----

// Tests that kv.score works on rank-3 tensors.
func.func @score_rank(%q: tensor<64x64xbf16>, %k: tensor<1x64x32xbf16>) {
  // expected-error @+1 {{'kv.score' op queries, keys and scores must have rank 3}}
  %s = kv.score %q, %k {num_heads = 4, num_groups = 2, obs_window = 8} : tensor<64x64xbf16>, tensor<1x64x32xbf16> -> tensor<1x2x64xf32>
  return
}

// -----

// Tests that kv.score's query heads split evenly over the KV-head groups.
func.func @score_groups(%q: tensor<1x64x48xbf16>, %k: tensor<1x64x32xbf16>) {
  // expected-error @+1 {{'kv.score' op num_heads (3) must be a positive multiple of num_groups (2)}}
  %s = kv.score %q, %k {num_heads = 3, num_groups = 2, obs_window = 8} : tensor<1x64x48xbf16>, tensor<1x64x32xbf16> -> tensor<1x2x64xf32>
  return
}

// -----

// Tests that kv.score's query width splits evenly over the heads.
func.func @score_query_width(%q: tensor<1x64x66xbf16>, %k: tensor<1x64x32xbf16>) {
  // expected-error @+1 {{'kv.score' op query width 66 is not divisible by num_heads 4}}
  %s = kv.score %q, %k {num_heads = 4, num_groups = 2, obs_window = 8} : tensor<1x64x66xbf16>, tensor<1x64x32xbf16> -> tensor<1x2x64xf32>
  return
}

// -----

// Tests that kv.score's key width splits evenly over the groups.
func.func @score_key_groups(%q: tensor<1x64x64xbf16>, %k: tensor<1x64x33xbf16>) {
  // expected-error @+1 {{'kv.score' op key width 33 is not divisible by num_groups 2}}
  %s = kv.score %q, %k {num_heads = 4, num_groups = 2, obs_window = 8} : tensor<1x64x64xbf16>, tensor<1x64x33xbf16> -> tensor<1x2x64xf32>
  return
}

// -----

// Tests that without absorption a query head is as wide as a key.
func.func @score_key_width(%q: tensor<1x64x64xbf16>, %k: tensor<1x64x64xbf16>) {
  // expected-error @+1 {{'kv.score' op query head width 16 differs from key width 32; only absorbed (MLA) scoring may differ}}
  %s = kv.score %q, %k {num_heads = 4, num_groups = 2, obs_window = 8} : tensor<1x64x64xbf16>, tensor<1x64x64xbf16> -> tensor<1x2x64xf32>
  return
}

// -----

// Tests that absorbed (MLA) scoring has one group per layer.
func.func @score_absorb_groups(%q: tensor<1x64x48xbf16>, %l: tensor<1x64x80xbf16>, %w: tensor<64x32xbf16>) {
  // expected-error @+1 {{'kv.score' op absorbed (MLA) scoring has one group per layer}}
  %s = kv.score %q, %l absorb %w {num_heads = 2, num_groups = 2, obs_window = 8} : tensor<1x64x48xbf16>, tensor<1x64x80xbf16>, tensor<64x32xbf16> -> tensor<1x2x64xf32>
  return
}

// -----

// Tests that the absorbed up-projection fits the query and latent widths.
func.func @score_absorb_shape(%q: tensor<1x64x48xbf16>, %l: tensor<1x64x40xbf16>, %w: tensor<64x48xbf16>) {
  // expected-error @+1 {{'kv.score' op absorb weight 'tensor<64x48xbf16>' must be tensor<num_heads*(nope + v) x kv_lora_rank> with kv_lora_rank < key width 40 and nope < query width 24}}
  %s = kv.score %q, %l absorb %w {num_heads = 2, num_groups = 1, obs_window = 8} : tensor<1x64x48xbf16>, tensor<1x64x40xbf16>, tensor<64x48xbf16> -> tensor<1x1x64xf32>
  return
}

// -----

// Tests that kv.score's queries cover at least the observation window (the
// last chunk of a chunked prefill may be shorter than the prompt).
func.func @score_tokens(%q: tensor<1x4x64xbf16>, %k: tensor<1x64x32xbf16>) {
  // expected-error @+1 {{'kv.score' op queries cover 4 tokens but keys cover 64; the queries are the prompt (or its last chunk) and at least the observation window}}
  %s = kv.score %q, %k {num_heads = 4, num_groups = 2, obs_window = 8} : tensor<1x4x64xbf16>, tensor<1x64x32xbf16> -> tensor<1x2x64xf32>
  return
}

// -----

// Tests that kv.score's queries span no more than the keys.
func.func @score_more_queries(%q: tensor<1x96x64xbf16>, %k: tensor<1x64x32xbf16>) {
  // expected-error @+1 {{'kv.score' op queries cover 96 tokens but keys cover 64}}
  %s = kv.score %q, %k {num_heads = 4, num_groups = 2, obs_window = 8} : tensor<1x96x64xbf16>, tensor<1x64x32xbf16> -> tensor<1x2x64xf32>
  return
}

// -----

// Tests that a staged read returns the staged prompt's tokens.
func.func @read_staged(%c: !kv.cache<layers = 2, batch = 1, slots = 16, kv_heads = 2, head_dim = 4, dtype = bf16, policy = #kv.snapkv<budget = 16, obs_window = 8, kernel = 7, pool = max>>) {
  // expected-error @+1 {{'kv.read' op reads 32 tokens but 64 are staged}}
  %k, %v = kv.read %c[0] {staged = 64} : !kv.cache<layers = 2, batch = 1, slots = 16, kv_heads = 2, head_dim = 4, dtype = bf16, policy = #kv.snapkv<budget = 16, obs_window = 8, kernel = 7, pool = max>> -> tensor<1x32x8xbf16>, tensor<1x32x8xbf16>
  return
}

// -----

// Tests that kv.score's prompt is at least as long as the observation window.
func.func @score_short_prompt(%q: tensor<1x4x64xbf16>, %k: tensor<1x4x32xbf16>) {
  // expected-error @+1 {{'kv.score' op prompt of 4 tokens is shorter than the observation window (8)}}
  %s = kv.score %q, %k {num_heads = 4, num_groups = 2, obs_window = 8} : tensor<1x4x64xbf16>, tensor<1x4x32xbf16> -> tensor<1x2x4xf32>
  return
}

// -----

// Tests that kv.score returns one score per batch entry, group and prompt token.
func.func @score_shape(%q: tensor<1x64x64xbf16>, %k: tensor<1x64x32xbf16>) {
  // expected-error @+1 {{'kv.score' op scores must be tensor<1x2x64xf32>}}
  %s = kv.score %q, %k {num_heads = 4, num_groups = 2, obs_window = 8} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16> -> tensor<1x4x64xf32>
  return
}

// -----

// Tests that kv.score returns f32 scores.
func.func @score_f32(%q: tensor<1x64x64xbf16>, %k: tensor<1x64x32xbf16>) {
  // expected-error @+1 {{'kv.score' op scores must be f32}}
  %s = kv.score %q, %k {num_heads = 4, num_groups = 2, obs_window = 8} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16> -> tensor<1x2x64xbf16>
  return
}

// -----

// Tests that kv.pool pools f32 scores.
func.func @pool_scores(%s: tensor<1x2x64xf16>) {
  // expected-error @+1 {{'kv.pool' op scores must be tensor<B x G x L x f32>}}
  %p = kv.pool %s {kernel = 3, kind = #kv<pool max>} : tensor<1x2x64xf16>
  return
}

// -----

// Tests that kv.pool's kernel is odd, so the padding is symmetric.
func.func @pool_even_kernel(%s: tensor<1x2x64xf32>) {
  // expected-error @+1 {{'kv.pool' op kernel must be a positive odd number, got 2}}
  %p = kv.pool %s {kernel = 2, kind = #kv<pool avg>} : tensor<1x2x64xf32>
  return
}

// -----

// Tests that kv.pool's kernel is no wider than the scored tokens.
func.func @pool_wide_kernel(%s: tensor<1x2x4xf32>) {
  // expected-error @+1 {{'kv.pool' op kernel 7 is wider than the 4 scored tokens}}
  %p = kv.pool %s {kernel = 7, kind = #kv<pool max>} : tensor<1x2x4xf32>
  return
}

// -----

// Tests that kv.topk selects from rank-3 f32 scores.
func.func @topk_scores(%s: tensor<2x64xf32>) {
  // expected-error @+1 {{'kv.topk' op scores must be tensor<B x G x L x f32>}}
  %i = kv.topk %s {k = 20, sinks = 4, recent = 8} : tensor<2x64xf32> -> tensor<1x2x20xi32>
  return
}

// -----

// Tests that kv.topk selects at least one token.
func.func @topk_zero_k(%s: tensor<1x2x64xf32>) {
  // expected-error @+1 {{'kv.topk' op k must be > 0 and sinks, recent >= 0}}
  %i = kv.topk %s {k = 0, sinks = 4, recent = 8} : tensor<1x2x64xf32> -> tensor<1x2x0xi32>
  return
}

// -----

// Tests that kv.topk's budget does not exceed the prompt.
func.func @topk_budget(%s: tensor<1x2x16xf32>) {
  // expected-error @+1 {{'kv.topk' op budget sinks + k + recent = 4 + 20 + 8 = 32 exceeds the context of 16 prompt tokens}}
  %i = kv.topk %s {k = 20, sinks = 4, recent = 8} : tensor<1x2x16xf32> -> tensor<1x2x20xi32>
  return
}

// -----

// Tests that kv.topk returns k i32 positions per batch entry and group.
func.func @topk_indices(%s: tensor<1x2x64xf32>) {
  // expected-error @+1 {{'kv.topk' op indices must be tensor<1x2x20xi32>}}
  %i = kv.topk %s {k = 20, sinks = 4, recent = 8} : tensor<1x2x64xf32> -> tensor<1x2x20xi64>
  return
}

// -----

// Tests that kv.gather_store needs a cache whose policy evicts tokens.
func.func @gather_store_full(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, %i: tensor<1x2x20xi32>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>) {
  // expected-error @+1 {{'kv.gather_store' op needs a compressing cache policy, got #kv.full}}
  %c1 = kv.gather_store %c[0] select %i, %k, %v : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> select tensor<1x2x20xi32>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>
  return
}

// -----

// Tests that kv.gather_store takes (k, v) for a GQA cache.
func.func @gather_store_gqa_count(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>, %i: tensor<1x2x20xi32>, %k: tensor<1x64x32xbf16>) {
  // expected-error @+1 {{'kv.gather_store' op expects 2 prompt tensor(s) for '!kv.cache<}}
  %c1 = kv.gather_store %c[0] select %i, %k : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>> select tensor<1x2x20xi32>, tensor<1x64x32xbf16>
  return
}

// -----

// Tests that kv.gather_store's budget does not exceed the prompt.
func.func @gather_store_short_prompt(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>, %i: tensor<1x2x20xi32>, %k: tensor<1x16x32xbf16>, %v: tensor<1x16x32xbf16>) {
  // expected-error @+1 {{'kv.gather_store' op budget of 32 slots exceeds the context of 16 prompt tokens; no selection is needed}}
  %c1 = kv.gather_store %c[0] select %i, %k, %v : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>> select tensor<1x2x20xi32>, tensor<1x16x32xbf16>, tensor<1x16x32xbf16>
  return
}

// -----

// Tests that kv.gather_store into a GQA cache takes one selection per KV-head
// group.
func.func @gather_store_gqa_indices(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>, %i: tensor<1x1x20xi32>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>) {
  // expected-error @+1 {{'kv.gather_store' op indices must be tensor<1x2xKxi32> (one selection per KV-head group)}}
  %c1 = kv.gather_store %c[0] select %i, %k, %v : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>> select tensor<1x1x20xi32>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>
  return
}

// -----

// Tests that kv.gather_store into a latent cache takes one selection per layer.
func.func @gather_store_latent_indices(%c: !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.snapkv<budget = 32, obs_window = 8, kernel = 5, pool = avg>>, %i: tensor<1x2x24xi32>, %l: tensor<1x64x40xbf16>) {
  // expected-error @+1 {{'kv.gather_store' op indices must be tensor<1x1xKxi32> (one selection per layer)}}
  %c1 = kv.gather_store %c[0] select %i, %l : !kv.latent_cache<layers = 2, batch = 1, slots = 32, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.snapkv<budget = 32, obs_window = 8, kernel = 5, pool = avg>> select tensor<1x2x24xi32>, tensor<1x64x40xbf16>
  return
}

// -----

// Tests that kv.gather_store's sinks, selected and recent tokens fill the
// cache's slots exactly.
func.func @gather_store_fill(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>, %i: tensor<1x2x16xi32>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>) {
  // expected-error @+1 {{'kv.gather_store' op sinks + selected + recent = 28 tokens but the cache has 32 slots}}
  %c1 = kv.gather_store %c[0] select %i, %k, %v : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>> select tensor<1x2x16xi32>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>
  return
}

// -----

// Tests that score queries and keys come from the same batch.
func.func @f(%q: tensor<1x8x64xbf16>, %k: tensor<2x8x32xbf16>) {
  // expected-error @+1 {{'kv.score' op queries have batch 1 but keys have batch 2}}
  %s = kv.score %q, %k {num_heads = 4, num_groups = 2, obs_window = 2} : tensor<1x8x64xbf16>, tensor<2x8x32xbf16> -> tensor<1x2x8xf32>
  return
}

// -----

// Tests that a sequence-sharded latent cache splits over at least one socket.
// expected-error @+1 {{seq_shards must be >= 1, got 0}}
func.func @f(%c: !kv.latent_cache<layers = 1, batch = 1, slots = 8, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full, seq_shards = 0>) {
  return
}

// -----

// Tests that a batch-sharded latent cache splits over at least one socket.
// expected-error @+1 {{batch_shards must be >= 1, got 0}}
func.func @f(%c: !kv.latent_cache<layers = 1, batch = 1, slots = 8, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full, batch_shards = 0>) {
  return
}

// -----

// Tests that a latent cache is split by sequence or by batch, not both.
// expected-error @+1 {{a latent cache is split by sequence or by batch, not both (seq_shards 2, batch_shards 4)}}
func.func @f(%c: !kv.latent_cache<layers = 1, batch = 1, slots = 8, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full, seq_shards = 2, batch_shards = 4>) {
  return
}

// -----

// Tests that a sequence-sharded compressed cache holds the budget over all its
// shards: 4 shards of 16 slots are 64 slots, not the budget of 32.
// expected-error @+1 {{cache has 64 slots per sequence but its policy keeps 32 tokens}}
func.func @f(%c: !kv.latent_cache<layers = 1, batch = 1, slots = 16, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>, seq_shards = 4>) {
  return
}

// -----

// Tests that a cache holds a resolved policy: a ratio is resolved against
// the context by kv-compress, never left in a cache type.
func.func @unresolved_cache(
  // expected-error @+1 {{cache policy #kv.snapstream<ratio = 4> is not resolved; a cache holds a policy with every number fixed (kv-compress resolves it for the context)}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<ratio = 4>>) {
  return
}

// -----

// Tests that a selecting policy has a budget or a ratio, not both.
// expected-error @+1 {{snapstream needs budget=N or ratio=R, not both}}
func.func @both() attributes {p = #kv.snapstream<budget = 32, ratio = 4>} {
  return
}

// -----

// Tests that a policy's sinks and recent tokens cannot wrap past its budget.
// expected-error @+1 {{snapstream sinks + recent (9223372036854775807 + 9223372036854775807) exceeds the budget (4096)}}
func.func @wrap() attributes {p = #kv.snapstream<budget = 4096, sinks = 9223372036854775807, recent = 9223372036854775807>} {
  return
}

// -----

// Tests that h2o needs exactly one of budget and ratio.
func.func @h2o_neither(
  // expected-error @+2 {{h2o needs budget=N or ratio=R, not neither}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<recent = 8>>) {
  return
}

// -----

// Tests that h2o keeps at least one heavy hitter beside its recent tokens.
func.func @h2o_recent_budget(
  // expected-error @+2 {{h2o recent (32) must be smaller than the budget (32): the rest are the heavy hitters}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 32>>) {
  return
}

// -----

// Tests that h2o's recent window is positive.
func.func @h2o_recent(
  // expected-error @+2 {{h2o recent must be > 0, got 0}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 0>>) {
  return
}

// -----

// Tests that scissorhands' history window is positive.
func.func @scissorhands_history(
  // expected-error @+2 {{scissorhands history must be from 1 to 134217728 steps (the longest context a model declares), got 0}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.scissorhands<budget = 32, sinks = 4, recent = 10, history = 0>>) {
  return
}

// -----

// Tests that scissorhands chooses at least one slot beside sinks and recent.
func.func @scissorhands_budget(
  // expected-error @+2 {{scissorhands sinks + recent (4 + 28) must be smaller than the budget (32): at least one slot is chosen}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.scissorhands<budget = 32, sinks = 4, recent = 28, history = 400>>) {
  return
}

// -----

// Tests that scissorhands has a non-negative number of sinks, and needs a
// budget or a ratio.
func.func @scissorhands_sinks(
  // expected-error @+2 {{scissorhands sinks must be >= 0, got -1}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.scissorhands<budget = 32, sinks = -1, recent = 10, history = 400>>) {
  return
}

// -----

func.func @scissorhands_both(
  // expected-error @+2 {{scissorhands needs budget=N or ratio=R, not both}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'policy'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.scissorhands<budget = 32, ratio = 2, sinks = 4, recent = 10, history = 400>>) {
  return
}

// -----

// Tests that kv.evict needs a policy that keeps per-slot state.
func.func @evict_stateless(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>, %p: tensor<1x2x32xf32>) {
  // expected-error @+1 {{'kv.evict' op needs a policy that evicts by attention (per-slot state), got #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>}}
  %e = kv.evict %c[0], %p : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>, tensor<1x2x32xf32>
  return
}

// -----

// Tests that kv.evict's probabilities are one f32 per group and slot.
func.func @evict_probs(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>>, %p: tensor<1x4x32xf32>) {
  // expected-error @+1 {{'kv.evict' op probs must be tensor<1x2x32xf32> (batch x KV-head groups x slots), got 'tensor<1x4x32xf32>'}}
  %e = kv.evict %c[0], %p : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>>, tensor<1x4x32xf32>
  return
}

// -----

// Tests that kv.evict's layer is one of the cache's.
func.func @evict_layer(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>>, %p: tensor<1x2x32xf32>) {
  // expected-error @+1 {{'kv.evict' op layer 2 is out of range for a cache of 2 layers}}
  %e = kv.evict %c[2], %p : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>>, tensor<1x2x32xf32>
  return
}

// -----

// Tests that a stateful policy's gather_store takes the selection's scores.
func.func @gather_store_no_scores(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>>, %i: tensor<1x2x24xi32>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>) {
  // expected-error @+1 {{'kv.gather_store' op needs the selection's indices and scores: #kv.h2o<budget = 32, recent = 8> keeps per-slot state}}
  %g = kv.gather_store %c[0] select %i, %k, %v : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>> select tensor<1x2x24xi32>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>
  return
}

// -----

// Tests that a stateless policy's gather_store takes no scores.
func.func @gather_store_stray_scores(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>>, %i: tensor<1x2x20xi32>, %s: tensor<1x2x64xf32>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>) {
  // expected-error @+1 {{'kv.gather_store' op takes scores only for a policy with per-slot state, not #kv.snapstream}}
  %g = kv.gather_store %c[0] select %i scores %s, %k, %v : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>> select tensor<1x2x20xi32> scores tensor<1x2x64xf32>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>
  return
}

// -----

// Tests that gather_store's scores cover every prompt token per group.
func.func @gather_store_scores_shape(%c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>>, %i: tensor<1x2x24xi32>, %s: tensor<1x2x32xf32>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>) {
  // expected-error @+1 {{'kv.gather_store' op scores must be tensor<1x2x64xf32> (one per prompt token and group), got 'tensor<1x2x32xf32>'}}
  %g = kv.gather_store %c[0] select %i scores %s, %k, %v : !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>> select tensor<1x2x24xi32> scores tensor<1x2x32xf32>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>
  return
}

// -----

// Tests that a scissorhands history is no longer than any context (its bits
// per slot overflowed the state size into 0).
// expected-error @+1 {{scissorhands history must be from 1 to 134217728 steps (the longest context a model declares), got 134217729}}
func.func @scissorhands_long_history() attributes {p = #kv.scissorhands<budget = 32, history = 134217729>} {
  return
}

// -----

// Tests that an arkvale page holds at least two tokens (its selection is in
// pages; one token per page is a token-level selection).
// expected-error @+1 {{arkvale page must be >= 2 tokens (a one-token page is a token-level selection: snapkv, h2o), got 1}}
func.func @arkvale_one_token_page() attributes {p = #kv.arkvale<budget = 32, page = 1>} {
  return
}

// -----

// Tests that an arkvale budget is a whole number of pages.
// expected-error @+1 {{arkvale budget (30 tokens) must be a whole number of 4-token pages}}
func.func @arkvale_pages() attributes {p = #kv.arkvale<budget = 30, page = 4>} {
  return
}

// -----

// Tests that arkvale recalls only pages it chose.
// expected-error @+1 {{arkvale recall (5 pages per step) exceeds topk (4): only chosen pages are recalled}}
func.func @arkvale_recall() attributes {p = #kv.arkvale<budget = 32, topk = 4, recall = 5>} {
  return
}

// -----

// Tests that arkvale's sinks, window and chosen pages fit the budget.
// expected-error @+1 {{arkvale sinks + window + topk (1 + 2 + 6 pages) exceed the budget of 8 pages}}
func.func @arkvale_fit() attributes {p = #kv.arkvale<budget = 32, page = 4, sinks = 1, window = 2, topk = 6>} {
  return
}

// -----

// Tests that arkvale's sums do not wrap.
// expected-error @+1 {{arkvale sinks + window + topk (9223372036854775807 + 2 + 4 pages) exceed the budget of 8 pages}}
func.func @arkvale_wrap() attributes {p = #kv.arkvale<budget = 32, page = 4, sinks = 9223372036854775807, window = 2, topk = 4>} {
  return
}

// -----

// Tests that an arkvale budget does not exceed the context it is sized for.
// expected-error @+1 {{arkvale budget (64 tokens) exceeds the context (32)}}
func.func @arkvale_context() attributes {p = #kv.arkvale<budget = 64, tokens = 32>} {
  return
}

// -----

// Tests that arkvale's window and recall are positive.
// expected-error @+1 {{arkvale window must be > 0 pages, got 0}}
func.func @arkvale_window() attributes {p = #kv.arkvale<budget = 32, window = 0>} {
  return
}

// -----

// Tests that the paged ops need a policy with a page backup.
func.func @page_score_no_backup(%q: tensor<1x1x64xbf16>, %c: !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>>) {
  // expected-error @+1 {{'kv.page_score' op needs a policy that backs pages up (such as #kv.arkvale), got #kv.h2o<budget = 32, recent = 8>}}
  %s = kv.page_score %q, %c[0] {num_heads = 4} : tensor<1x1x64xbf16>, !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.h2o<budget = 32, recent = 8>> -> tensor<1x1x16xf32>
  return
}

// -----

!ark = !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.arkvale<budget = 32, page = 4, sinks = 1, window = 2, topk = 4, recall = 2, tokens = 64>>

// Tests that kv.page_score scores at most the backed-up pages.
func.func @page_score_pages(%q: tensor<1x1x64xbf16>, %c: !ark) {
  // expected-error @+1 {{'kv.page_score' op scores must be tensor<1x1xPxf32> for 1 <= P <= the 16 backed-up pages, got 'tensor<1x1x17xf32>'}}
  %s = kv.page_score %q, %c[0] {num_heads = 4} : tensor<1x1x64xbf16>, !ark -> tensor<1x1x17xf32>
  return
}

// -----

!ark = !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.arkvale<budget = 32, page = 4, sinks = 1, window = 2, topk = 4, recall = 2, tokens = 64>>

// Tests that kv.page_score's heads cover the cache's KV-head groups.
func.func @page_score_heads(%q: tensor<1x1x64xbf16>, %c: !ark) {
  // expected-error @+1 {{'kv.page_score' op num_heads (3) must be a positive multiple of the cache's 2 KV-head group(s)}}
  %s = kv.page_score %q, %c[0] {num_heads = 3} : tensor<1x1x64xbf16>, !ark -> tensor<1x1x16xf32>
  return
}

// -----

!ark = !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.arkvale<budget = 32, page = 4, sinks = 1, window = 2, topk = 4, recall = 2, tokens = 64>>

// Tests that kv.recall recalls no more pages than were chosen.
func.func @recall_pages(%c: !ark, %i: tensor<1x1x4xi32>) {
  // expected-error @+1 {{'kv.recall' op recalls 5 pages per step but only 4 are chosen}}
  %r = kv.recall %c[0], %i {pages = 5} : !ark, tensor<1x1x4xi32>
  return
}

// -----

!ark = !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.arkvale<budget = 32, page = 4, sinks = 1, window = 2, topk = 4, recall = 2, tokens = 64>>

// Tests that kv.recall's indices are one page ranking per sequence.
func.func @recall_indices(%c: !ark, %i: tensor<1x2x4xi32>) {
  // expected-error @+1 {{'kv.recall' op indices must be tensor<1x1xKxi32> (the chosen pages), got 'tensor<1x2x4xi32>'}}
  %r = kv.recall %c[0], %i {pages = 2} : !ark, tensor<1x2x4xi32>
  return
}

// -----

!ark = !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.arkvale<budget = 32, page = 4, sinks = 1, window = 2, topk = 4, recall = 2, tokens = 64>>

// Tests that kv.backup takes no more tokens than the backup holds.
func.func @backup_tokens(%c: !ark, %k: tensor<1x65x32xbf16>, %v: tensor<1x65x32xbf16>) {
  // expected-error @+1 {{'kv.backup' op backs up 65 tokens per sequence but the backup holds 64}}
  %b = kv.backup %c[0], %k, %v : !ark, tensor<1x65x32xbf16>, tensor<1x65x32xbf16>
  return
}

// -----

!ark = !kv.cache<layers = 2, batch = 1, slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.arkvale<budget = 32, page = 4, sinks = 1, window = 2, topk = 4, recall = 2, tokens = 64>>

// Tests that gather_store's indices are pages for a paged policy.
func.func @gather_store_pages(%c: !ark, %i: tensor<1x1x20xi32>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>) {
  // expected-error @+1 {{'kv.gather_store' op sinks + selected + recent = 92 tokens but the cache has 32 slots}}
  %g = kv.gather_store %c[0] select %i, %k, %v : !ark select tensor<1x1x20xi32>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>
  return
}

// -----

// Tests that a page backup is not modelled for a latent cache split by
// sequence.
// expected-error @+1 {{the page backup of #kv.arkvale<budget = 32, page = 4, sinks = 1, window = 2, topk = 4, recall = 2, tokens = 64> is not modelled for a cache split by sequence (seq_shards 2); replicate the latent cache}}
func.func @arkvale_split(%c: !kv.latent_cache<layers = 2, batch = 1, slots = 16, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.arkvale<budget = 32, page = 4, sinks = 1, window = 2, topk = 4, recall = 2, tokens = 64>, seq_shards = 2>) {
  return
}

// -----

// Tests that KIVI quantizes at 2 or 4 bits only.
func.func @kivi_bits(
  // expected-error @+2 {{kivi bits must be 2 or 4 (the official kernels' widths), got 3}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'format'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 3, group = 32, residual = 128>>) {
  return
}

// -----

// Tests that a KIVI group holds at least one element.
func.func @kivi_group(
  // expected-error @+2 {{kivi group must be > 0, got 0}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'format'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 0, residual = 128>>) {
  return
}

// -----

// Tests that KIVI's residual holds whole key groups: 100 is not a multiple
// of 32.
func.func @kivi_residual(
  // expected-error @+2 {{kivi residual must be a positive multiple of the group (32), got 100}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'format'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 100>>) {
  return
}

// -----

// Tests that KIVI's value groups divide a token's value: 1 head x 48 is not
// a multiple of 32 channels.
func.func @kivi_value_width(
  // expected-error @+1 {{kivi quantizes values per token in groups of 32 channels, but a token's value has 48}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 1, head_dim = 48, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 128>>) {
  return
}

// -----

// Tests that QuaRot quantizes at 2 to 8 bits.
func.func @quarot_bits(
  // expected-error @+2 {{quarot bits must be 2 to 8, got 9}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'format'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.quarot<bits = 9>>) {
  return
}

// -----

// Tests that QuaRot's Hadamard transform needs a power-of-2 head: 96 is not.
func.func @quarot_head_dim(
  // expected-error @+1 {{quarot rotates each head by a Hadamard transform, which needs a power-of-2 head width, got 96}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 96, dtype = bf16, policy = #kv.full, format = #kv.quarot<bits = 4>>) {
  return
}

// -----

// Tests that QuaRot rotates a latent cache's latent (without its rotary
// part), which must be a power of 2: 48 is not.
func.func @quarot_latent(
  // expected-error @+1 {{quarot rotates each head by a Hadamard transform, which needs a power-of-2 head width, got 48}}
  %c: !kv.latent_cache<layers = 2, batch = 1, slots = 64, latent_dim = 48, rope_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.quarot<bits = 4>>) {
  return
}

// -----

// Tests that ZipCache's salient tokens take at least the bits of the rest.
func.func @zipcache_low_high(
  // expected-error @+2 {{zipcache needs 1 <= low <= high <= 8 bits, got low 4, high 2}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'format'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 2, low = 4, salient = 60, gap = 100, probes = 10>>) {
  return
}

// -----

// Tests that ZipCache's salient share is a percent.
func.func @zipcache_salient(
  // expected-error @+2 {{zipcache salient is a percent (0 to 100), got 101}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'format'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 4, low = 2, salient = 101, gap = 100, probes = 10>>) {
  return
}

// -----

// Tests that ZipCache re-quantizes after at least one step.
func.func @zipcache_gap(
  // expected-error @+2 {{zipcache gap must be >= 1 step, got 0}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'format'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 0, probes = 10>>) {
  return
}

// -----

// Tests that ZipCache scores with at least one percent of the prompt's
// queries.
func.func @zipcache_probes(
  // expected-error @+2 {{zipcache probes is a percent (1 to 100), got 0}}
  // expected-error @+1 {{failed to parse KV_CacheType parameter 'format'}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 0>>) {
  return
}

// -----

// Tests that a cache holds a resolved format: defaults are filled in by
// kv-compress (kv::parseFormat), never left open in a cache type.
func.func @unresolved_format(
  // expected-error @+1 {{cache format #kv.kivi<bits = 2> is not resolved; a cache holds a format with every number fixed}}
  %c: !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2>>) {
  return
}

// -----

// Tests that kv.quantize needs a cache with a format.
func.func @quantize_no_format(%c: !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) {
  // expected-error @+1 {{'kv.quantize' op needs a cache with a format (#kv.kivi, #kv.zipcache, ...), got '!kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>'}}
  %q = kv.quantize %c[0] {every = 1, tokens = 1} : !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
  return
}

// -----

!kivi = !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 128>>

// Tests that kv.quantize quantizes at least one token.
func.func @quantize_no_tokens(%c: !kivi) {
  // expected-error @+1 {{'kv.quantize' op quantizes 0 tokens per sequence; expected 1 to the cache's 256 slots}}
  %q = kv.quantize %c[0] {every = 1, tokens = 0} : !kivi
  return
}

// -----

!kivi = !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 128>>

// Tests that kv.quantize quantizes no more tokens than the cache's slots.
func.func @quantize_too_many_tokens(%c: !kivi) {
  // expected-error @+1 {{'kv.quantize' op quantizes 257 tokens per sequence; expected 1 to the cache's 256 slots}}
  %q = kv.quantize %c[0] {every = 1, tokens = 257} : !kivi
  return
}

// -----

!kivi = !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 128>>

// Tests that kv.quantize runs at least once a step.
func.func @quantize_every(%c: !kivi) {
  // expected-error @+1 {{'kv.quantize' op every must be >= 1 step, got 0}}
  %q = kv.quantize %c[0] {every = 0, tokens = 1} : !kivi
  return
}

// -----

!kivi = !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 128>>

// Tests that kv.quantize's layer is one of the cache's.
func.func @quantize_layer(%c: !kivi) {
  // expected-error @+1 {{'kv.quantize' op layer 2 is out of range for a cache of 2 layers}}
  %q = kv.quantize %c[2] {every = 1, tokens = 1} : !kivi
  return
}

// -----

!zip = !kv.cache<layers = 2, batch = 2, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>>

// Tests that kv.quantize's salient set is one ranking per sequence and
// group (2 x 2), here one per sequence only.
func.func @quantize_salient_shape(%c: !zip, %s: tensor<2x1x20xi32>) {
  // expected-error @+1 {{'kv.quantize' op salient must be tensor<2x2xKxi32> with 1 <= K <= 32 (the tokens), got 'tensor<2x1x20xi32>'}}
  %q = kv.quantize %c[0] salient %s {every = 1, tokens = 32} : !zip salient tensor<2x1x20xi32>
  return
}

// -----

!zip = !kv.cache<layers = 2, batch = 2, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>>

// Tests that kv.quantize's salient set is no larger than the tokens it
// quantizes: 40 salient of 32 tokens.
func.func @quantize_salient_count(%c: !zip, %s: tensor<2x2x40xi32>) {
  // expected-error @+1 {{'kv.quantize' op salient must be tensor<2x2xKxi32> with 1 <= K <= 32 (the tokens), got 'tensor<2x2x40xi32>'}}
  %q = kv.quantize %c[0] salient %s {every = 1, tokens = 32} : !zip salient tensor<2x2x40xi32>
  return
}

// -----

!zip = !kv.cache<layers = 2, batch = 2, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>>

// Tests that a salient set is chosen at prefill only, not periodically.
func.func @quantize_salient_every(%c: !zip, %s: tensor<2x2x20xi32>) {
  // expected-error @+1 {{'kv.quantize' op a salient set is chosen once, at prefill: every must be 1}}
  %q = kv.quantize %c[0] salient %s {every = 2, tokens = 32} : !zip salient tensor<2x2x20xi32>
  return
}

// -----

!zip = !kv.cache<layers = 2, batch = 2, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>>

// Tests that kv.requantize's heads split evenly over the cache's 2 KV-head
// groups.
func.func @requantize_heads(%c: !zip, %q: tensor<2x1x48xbf16>) {
  // expected-error @+1 {{'kv.requantize' op num_heads must be a positive multiple of the 2 group(s), got 3}}
  %r = kv.requantize %q, %c[0] {every = 100, num_heads = 3} : tensor<2x1x48xbf16>, !zip
  return
}

// -----

!zip = !kv.cache<layers = 2, batch = 2, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>>

// Tests that kv.requantize runs at least once a step.
func.func @requantize_every(%c: !zip, %q: tensor<2x1x64xbf16>) {
  // expected-error @+1 {{'kv.requantize' op every must be >= 1 step, got 0}}
  %r = kv.requantize %q, %c[0] {every = 0, num_heads = 4} : tensor<2x1x64xbf16>, !zip
  return
}

// -----

!zip = !kv.cache<layers = 2, batch = 2, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>>

// Tests that kv.requantize's queries have the cache's batch (2, not 1).
func.func @requantize_batch(%c: !zip, %q: tensor<1x1x64xbf16>) {
  // expected-error @+1 {{'kv.requantize' op queries must be tensor<2 x T x num_heads*D>, got 'tensor<1x1x64xbf16>'}}
  %r = kv.requantize %q, %c[0] {every = 100, num_heads = 4} : tensor<1x1x64xbf16>, !zip
  return
}

// -----

!zip = !kv.cache<layers = 2, batch = 2, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>>

// Tests that kv.requantize's query width splits into num_heads heads: 66
// is not a multiple of 4.
func.func @requantize_width(%c: !zip, %q: tensor<2x1x66xbf16>) {
  // expected-error @+1 {{'kv.requantize' op queries must be tensor<2 x T x num_heads*D>, got 'tensor<2x1x66xbf16>'}}
  %r = kv.requantize %q, %c[0] {every = 100, num_heads = 4} : tensor<2x1x66xbf16>, !zip
  return
}

// -----

// Tests that kv.requantize needs a cache with a format.
func.func @requantize_no_format(%c: !kv.cache<layers = 2, batch = 2, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>, %q: tensor<2x1x64xbf16>) {
  // expected-error @+1 {{'kv.requantize' op needs a cache with a format (#kv.kivi, #kv.zipcache, ...), got '!kv.cache<layers = 2, batch = 2, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>'}}
  %r = kv.requantize %q, %c[0] {every = 100, num_heads = 4} : tensor<2x1x64xbf16>, !kv.cache<layers = 2, batch = 2, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
  return
}

// -----

// Tests that kv.policy (what kv-compress applied) is a non-empty string on
// the module.
// expected-error @+1 {{'kv.policy' must be a non-empty string on the module, got ""}}
module attributes {kv.policy = ""} {
}

// -----

// Tests that the kv dialect refuses attributes it does not declare.
// expected-error @+1 {{unknown attribute 'kv.budget'; the kv dialect declares kv.policy and kv.format}}
module attributes {kv.budget = 8} {
}
