// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=arkvale:budget=32,page=4,topk=4,recall=2" | FileCheck %s
// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=arkvale:ratio=2,page=4" | FileCheck %s --check-prefix=RATIO

// Tests the paged policy with a DDR backup (ArkVale). Every attention's new
// tokens are backed up (kv.backup, which also digests the pages they
// complete) before anything reads the cache. A 64-token prefill into 32
// slots of 4-token pages scores the 16 prompt pages' digests with the last
// query (kv.page_score over the backed-up cache), keeps 1 sink page and 2
// window pages and the top 8 - 1 - 2 = 5 others (kv.topk over pages), and
// gathers those pages.
// CHECK-LABEL: func.func @prefill(
// CHECK-SAME:    policy = #kv.arkvale<budget = 32, page = 4, sinks = 1, window = 2, topk = 4, recall = 2, tokens = 64>
// CHECK:         %[[O:.+]], %[[C:.+]] = llm.attention %[[Q:.+]], %[[K:.+]], %[[V:[^ ]+]], %{{.+}} {{.+}}phase = #llm<phase prefill>
// CHECK-NEXT:    %[[B:.+]] = kv.backup %[[C]][0], %[[K]], %[[V]] : !kv.cache<{{.+}}>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>
// CHECK-NEXT:    %[[S:.+]] = kv.page_score %[[Q]], %[[B]][0] {num_heads = 4 : i64} : tensor<1x64x64xbf16>, !kv.cache<{{.+}}> -> tensor<1x1x16xf32>
// CHECK-NEXT:    %[[I:.+]] = kv.topk %[[S]] {k = 5 : i64, recent = 2 : i64, sinks = 1 : i64} : tensor<1x1x16xf32> -> tensor<1x1x5xi32>
// CHECK-NEXT:    %[[G:.+]] = kv.gather_store %[[B]][0] select %[[I]], %[[K]], %[[V]]
// CHECK-NEXT:    return %[[O]], %[[G]]

// Tests that a ratio resolves to whole pages and the default 30 chosen
// pages are cut to the budget's pages outside sinks and window.
// RATIO-LABEL: func.func @prefill(
// RATIO-SAME:    policy = #kv.arkvale<budget = 32, page = 4, sinks = 1, window = 2, topk = 5, recall = 5, tokens = 64>
!full = !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @prefill(%q: tensor<1x64x64xbf16>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>, %c: !full) -> (tensor<1x64x64xbf16>, !full) {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>, !full -> tensor<1x64x64xbf16>
  return %o, %c1 : tensor<1x64x64xbf16>, !full
}

// -----

// Tests that a prompt within the budget is backed up and selects nothing.
// CHECK-LABEL: func.func @short(
// CHECK:         %{{.+}}, %[[C:.+]] = llm.attention
// CHECK-NEXT:    %[[B:.+]] = kv.backup %[[C]][0], %{{.+}}, %{{.+}} : !kv.cache<{{.+}}>, tensor<1x16x32xbf16>, tensor<1x16x32xbf16>
// CHECK-NOT:     kv.page_score
// CHECK:         return %{{.+}}, %[[B]]
!ctx = !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @short(%q: tensor<1x16x64xbf16>, %k: tensor<1x16x32xbf16>, %v: tensor<1x16x32xbf16>, %c: !ctx) -> (tensor<1x16x64xbf16>, !ctx) {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>} : tensor<1x16x64xbf16>, tensor<1x16x32xbf16>, tensor<1x16x32xbf16>, !ctx -> tensor<1x16x64xbf16>
  return %o, %c1 : tensor<1x16x64xbf16>, !ctx
}

// -----

// Tests a decode step of two layers: before each attention the query
// scores all 16 pages of the 64-token context, the top 4 outside sinks and
// window are chosen and 2 recalled; the attention reads the recalled cache,
// and its new token is backed up; the next layer sees the backed-up cache.
// CHECK-LABEL: func.func @decode(
// CHECK:         %[[S:.+]] = kv.page_score %[[Q:[^,]+]], %[[C0:[^ ]+]][0] {num_heads = 4 : i64} : tensor<1x1x64xbf16>, !kv.cache<{{.+}}> -> tensor<1x1x16xf32>
// CHECK-NEXT:    %[[I:.+]] = kv.topk %[[S]] {k = 4 : i64, recent = 2 : i64, sinks = 1 : i64} : tensor<1x1x16xf32> -> tensor<1x1x4xi32>
// CHECK-NEXT:    %[[R:.+]] = kv.recall %[[C0]][0], %[[I]] {pages = 2 : i64}
// CHECK-NEXT:    %{{.+}}, %[[C1:.+]] = llm.attention %[[Q]], %[[K:[^,]+]], %[[V:[^,]+]], %[[R]] {{.+}}layer = 0
// CHECK-NEXT:    %[[B1:.+]] = kv.backup %[[C1]][0], %[[K]], %[[V]]
// CHECK-NEXT:    kv.page_score %[[Q]], %[[B1]][1]
// CHECK-NEXT:    kv.topk
// CHECK-NEXT:    %[[R2:.+]] = kv.recall %[[B1]][1]
// CHECK-NEXT:    %{{.+}}, %[[C2:.+]] = llm.attention {{.+}}, %[[R2]] {{.+}}layer = 1
// CHECK-NEXT:    %[[B2:.+]] = kv.backup %[[C2]][1]
// CHECK-NEXT:    return %[[B2]]
!ctx2 = !kv.cache<layers = 2, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @decode(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !ctx2) -> !ctx2 {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !ctx2 -> tensor<1x1x64xbf16>
  %o2, %c2 = llm.attention %q, %k, %v, %c1 {layer = 1, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !ctx2 -> tensor<1x1x64xbf16>
  return %c2 : !ctx2
}

// -----

// Tests that an MLA decode step scores and backs up the latent (one group).
// CHECK-LABEL: func.func @mla_decode(
// CHECK:         kv.page_score %{{.+}}, %{{.+}}[0] {num_heads = 2 : i64} : tensor<1x1x48xbf16>, !kv.latent_cache<{{.+}}> -> tensor<1x1x16xf32>
// CHECK:         %{{.+}}, %[[C:.+]] = llm.mla_attention %{{[^,]+}}, %[[L:[^,]+]],
// CHECK-NEXT:    kv.backup %[[C]][0], %[[L]] : !kv.latent_cache<{{.+}}>, tensor<1x1x40xbf16>
!lat = !kv.latent_cache<layers = 1, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>
func.func @mla_decode(%q: tensor<1x1x48xbf16>, %l: tensor<1x1x40xbf16>, %w: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !lat) -> (tensor<1x1x32xbf16>, !lat) {
  %o, %c1 = llm.mla_attention %q, %l, %w, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !lat -> tensor<1x1x32xbf16>
  return %o, %c1 : tensor<1x1x32xbf16>, !lat
}

// -----

// Tests that a chunked prefill backs up each chunk and selects over the
// staged prompt with the last chunk's queries.
// CHECK-LABEL: func.func @chunked(
// CHECK:         %{{.+}}, %[[C:.+]] = llm.attention %[[Q:.+]], %[[K:.+]], %[[V:[^ ]+]], %{{.+}} {{.+}}prefix = 32
// CHECK-NEXT:    %[[B:.+]] = kv.backup %[[C]][0], %[[K]], %[[V]] : !kv.cache<{{.+}}>, tensor<1x32x32xbf16>, tensor<1x32x32xbf16>
// CHECK-NEXT:    %[[P:.+]]:2 = kv.read %[[B]][0] {staged = 64 : i64}
// CHECK-NEXT:    %[[S:.+]] = kv.page_score %[[Q]], %[[B]][0] {{.+}} -> tensor<1x1x16xf32>
// CHECK:         kv.gather_store %[[B]][0] select %{{.+}}, %[[P]]#0, %[[P]]#1
!full64 = !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @chunked(%q: tensor<1x32x64xbf16>, %k: tensor<1x32x32xbf16>, %v: tensor<1x32x32xbf16>, %c: !full64) -> (tensor<1x32x64xbf16>, !full64) attributes {llm.workload = #llm.workload<prefill, batch = 1, tokens = 64, chunks = 2>} {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>, prefix = 32} : tensor<1x32x64xbf16>, tensor<1x32x32xbf16>, tensor<1x32x32xbf16>, !full64 -> tensor<1x32x64xbf16>
  return %o, %c1 : tensor<1x32x64xbf16>, !full64
}
