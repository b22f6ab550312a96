// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=full format=kivi2" | FileCheck %s --check-prefix=KIVI
// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=full format=kivi2" | FileCheck %s --check-prefix=ALL
// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=full format=zipcache" | FileCheck %s --check-prefix=ZIP
// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=snapstream:budget=32,sinks=4,recent=8,obs_window=8,kernel=3,pool=max format=zipcache" | FileCheck %s --check-prefix=SZIP
// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=snapstream:budget=32,sinks=4,recent=8,obs_window=8,kernel=3,pool=max format=fp8" | FileCheck %s --check-prefix=SFP8
// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=snapstream:budget=32,sinks=4,recent=8,obs_window=8,kernel=3,pool=max format=quarot4" | FileCheck %s --check-prefix=SQR
// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=h2o:budget=32,recent=8 format=kivi2" | FileCheck %s --check-prefix=H2O

// Tests that a bad format is an error naming the format string and what is
// wrong: an unknown name and a bad key are refused before any IR is
// touched; a format whose KIVI group (64) does not divide a token's value
// (2 KV heads x 16 = 32 channels) is an error naming the flag.
// RUN: not snapflow-opt %s -split-input-file --kv-compress="policy=full format=int4" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: kv-compress: unknown KV format 'int4' (expected bf16, fp8, kivi, quarot, zipcache, kivi2, kivi4, quarot4; see `snapflow list`)
// RUN: not snapflow-opt %s -split-input-file --kv-compress="policy=full format=kivi:bits=3" 2>&1 | FileCheck %s --check-prefix=BADKEY
// BADKEY: error: kv-compress: KV format 'kivi:bits=3': kivi bits must be 2 or 4 (the official kernels' widths), got 3
// RUN: not snapflow-opt %s -split-input-file --kv-compress="policy=full format=kivi:bits=2,group=64" 2>&1 | FileCheck %s --check-prefix=GROUP
// GROUP: error: kv-compress: --kv-format kivi:bits=2,group=64: kivi quantizes values per token in groups of 64 channels, but a token's value has 32

// Tests that with a format every cache type of the module (arguments,
// results, attention results, under any policy, `full` included) takes it:
// no cache is left at its dtype.
// ALL-NOT: policy = #kv.full>

// Tests a decode step of two layers. Under KIVI every cache gets the resolved
// format (kivi2 = bits 2 with the defaults group 32, residual 128), and
// after each decode attention one token leaves the residual
// (kv.quantize with tokens = 1 every step); the next layer's attention and
// the return read the cache after it.
// KIVI-LABEL: func.func @decode(
// KIVI-SAME:    !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 128>>
// KIVI:         %{{.+}}, %[[C1:.+]] = llm.attention {{.+}}layer = 0
// KIVI-NEXT:    %[[Q1:.+]] = kv.quantize %[[C1]][0] {every = 1 : i64, tokens = 1 : i64} : !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 128>>
// KIVI-NEXT:    %{{.+}}, %[[C2:.+]] = llm.attention %{{.+}}, %{{.+}}, %{{.+}}, %[[Q1]] {{.+}}layer = 1
// KIVI-NEXT:    %[[Q2:.+]] = kv.quantize %[[C2]][1] {every = 1 : i64, tokens = 1 : i64}
// KIVI-NEXT:    return %[[Q2]]

// ZipCache: after each decode attention kv.requantize from the step's query
// (the attention's 4 heads) every gap = 100 steps, chained the same way.
// ZIP-LABEL: func.func @decode(
// ZIP-SAME:    policy = #kv.full, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>>
// ZIP:         %{{.+}}, %[[C1:.+]] = llm.attention %[[Q:[^,]+]], {{.+}}layer = 0
// ZIP-NEXT:    %[[R1:.+]] = kv.requantize %[[Q]], %[[C1]][0] {every = 100 : i64, num_heads = 4 : i64} : tensor<1x1x64xbf16>, !kv.cache<{{.+}}format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>>
// ZIP-NEXT:    %{{.+}}, %[[C2:.+]] = llm.attention %[[Q]], %{{.+}}, %{{.+}}, %[[R1]] {{.+}}layer = 1
// ZIP-NEXT:    %[[R2:.+]] = kv.requantize %[[Q]], %[[C2]][1] {every = 100 : i64, num_heads = 4 : i64}
// ZIP-NEXT:    return %[[R2]]

// Under a compressing policy the format composes with the budget: 32 slots
// and the format in the same type, the decode work unchanged.
// SZIP-LABEL: func.func @decode(
// SZIP-SAME:    slots = 32, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>, format = #kv.zipcache<high = 4, low = 2, salient = 60, gap = 100, probes = 10>>
// SZIP:         kv.requantize {{.+}}[0] {every = 100 : i64, num_heads = 4 : i64}
// SZIP:         kv.requantize {{.+}}[1] {every = 100 : i64, num_heads = 4 : i64}

// fp8 and QuaRot quantize as the attention writes: only the type changes.
// SFP8-LABEL: func.func @decode(
// SFP8-SAME:    policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>, format = #kv.fp8>
// SFP8-NOT:     kv.{{quantize|requantize}}
// SFP8:         return
// SQR-LABEL: func.func @decode(
// SQR-SAME:    policy = #kv.snapstream<budget = 32, sinks = 4, recent = 8, obs_window = 8, kernel = 3, pool = max>, format = #kv.quarot<bits = 4>>
// SQR-NOT:     kv.{{quantize|requantize}}
// SQR:         return

// Under a policy that evicts by attention the format's work is built
// first, so the upkeep (kv.evict) comes between the attention and it; the
// next layer reads the quantized cache.
// H2O-LABEL: func.func @decode(
// H2O:         %{{.+}}, %[[C1:.+]], %[[P1:.+]] = llm.attention {{.+}}layer = 0
// H2O-NEXT:    %[[E1:.+]] = kv.evict %[[C1]][0], %[[P1]]
// H2O-NEXT:    %[[Q1:.+]] = kv.quantize %[[E1]][0] {every = 1 : i64, tokens = 1 : i64}
// H2O-NEXT:    llm.attention %{{.+}}, %{{.+}}, %{{.+}}, %[[Q1]] {{.+}}layer = 1
!ctx2 = !kv.cache<layers = 2, batch = 1, slots = 256, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @decode(%q: tensor<1x1x64xbf16>, %k: tensor<1x1x32xbf16>, %v: tensor<1x1x32xbf16>, %c: !ctx2) -> !ctx2 {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !ctx2 -> tensor<1x1x64xbf16>
  %o2, %c2 = llm.attention %q, %k, %v, %c1 {layer = 1, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !ctx2 -> tensor<1x1x64xbf16>
  return %c2 : !ctx2
}

// -----

// Tests a 64-token prefill into a 64-slot cache: the prompt fits.
// KIVI quantizes the prompt as the attention writes it: no op.
// KIVI-LABEL: func.func @prefill(
// KIVI-NOT:     kv.quantize
// KIVI:         return

// ZipCache writes the prompt at the dtype, then scores it with its last
// probes = ceil(10% x 64) = ceil(6.4) = 7 queries (kv.score obs_window),
// keeps the salient = ceil(60% x 64) = ceil(38.4) = 39 best per KV-head
// group (kv.topk) and quantizes all 64 prompt tokens with them at high
// precision (kv.quantize salient); the return reads the quantized cache.
// ZIP-LABEL: func.func @prefill(
// ZIP:         %{{.+}}, %[[C:.+]] = llm.attention %[[Q:.+]], %[[K:.+]], %{{.+}}, %{{.+}} {{.+}}phase = #llm<phase prefill>
// ZIP-NEXT:    %[[S:.+]] = kv.score %[[Q]], %[[K]] {num_groups = 2 : i64, num_heads = 4 : i64, obs_window = 7 : i64} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16> -> tensor<1x2x64xf32>
// ZIP-NEXT:    %[[I:.+]] = kv.topk %[[S]] {k = 39 : i64, recent = 0 : i64, sinks = 0 : i64} : tensor<1x2x64xf32> -> tensor<1x2x39xi32>
// ZIP-NEXT:    %[[Z:.+]] = kv.quantize %[[C]][0] salient %[[I]] {every = 1 : i64, tokens = 64 : i64} : !kv.cache<{{.+}}> salient tensor<1x2x39xi32>
// ZIP-NEXT:    return %{{.+}}, %[[Z]]

// Under SnapStream with a budget of 32 the same prompt is long: the
// policy's selection and kv.gather_store come first (4 sinks + 20 chosen +
// 8 recent = 32 slots), then ZipCache's work over the kept tokens: probes
// still ceil(10% x 64) = 7 prompt queries, salient = ceil(60% x 32) =
// ceil(19.2) = 20, and kv.quantize of the 32 kept tokens after the store.
// SZIP-LABEL: func.func @prefill(
// SZIP:         %{{.+}}, %[[C:.+]] = llm.attention %[[Q:.+]], %[[K:.+]], %{{.+}}, %{{.+}} {{.+}}phase = #llm<phase prefill>
// SZIP-NEXT:    kv.score %[[Q]], %[[K]] {num_groups = 2 : i64, num_heads = 4 : i64, obs_window = 8 : i64}
// SZIP-NEXT:    kv.pool
// SZIP-NEXT:    kv.topk {{.+}} {k = 20 : i64, recent = 8 : i64, sinks = 4 : i64}
// SZIP-NEXT:    %[[G:.+]] = kv.gather_store %[[C]][0] select
// SZIP-NEXT:    %[[S:.+]] = kv.score %[[Q]], %[[K]] {num_groups = 2 : i64, num_heads = 4 : i64, obs_window = 7 : i64} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16> -> tensor<1x2x64xf32>
// SZIP-NEXT:    %[[I:.+]] = kv.topk %[[S]] {k = 20 : i64, recent = 0 : i64, sinks = 0 : i64} : tensor<1x2x64xf32> -> tensor<1x2x20xi32>
// SZIP-NEXT:    %[[Z:.+]] = kv.quantize %[[G]][0] salient %[[I]] {every = 1 : i64, tokens = 32 : i64} : !kv.cache<layers = 1, batch = 1, slots = 32, {{.+}}format = #kv.zipcache<{{.+}}>> salient tensor<1x2x20xi32>
// SZIP-NEXT:    return %{{.+}}, %[[Z]]

// fp8 and QuaRot quantize as kv.gather_store writes: after the store
// nothing but the type changes.
// SFP8-LABEL: func.func @prefill(
// SFP8:         %[[G:.+]] = kv.gather_store {{.+}} : !kv.cache<layers = 1, batch = 1, slots = 32, {{.+}}format = #kv.fp8>
// SFP8-NEXT:    return %{{.+}}, %[[G]]
// SQR-LABEL: func.func @prefill(
// SQR:         %[[G:.+]] = kv.gather_store {{.+}} : !kv.cache<layers = 1, batch = 1, slots = 32, {{.+}}format = #kv.quarot<bits = 4>>
// SQR-NEXT:    return %{{.+}}, %[[G]]
!full = !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @prefill(%q: tensor<1x64x64xbf16>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>, %c: !full) -> (tensor<1x64x64xbf16>, !full) {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>, !full -> tensor<1x64x64xbf16>
  return %o, %c1 : tensor<1x64x64xbf16>, !full
}

// -----

// Tests a 16-token prefill into a 64-slot cache, within the budget of 32
// too: no selection, and ZipCache quantizes the 16 prompt tokens (not the
// cache's slots) with probes = ceil(10% x 16) = ceil(1.6) = 2 and salient =
// ceil(60% x 16) = ceil(9.6) = 10, under either policy.
// ZIP-LABEL: func.func @prefill_short(
// ZIP:         %{{.+}}, %[[C:.+]] = llm.attention
// ZIP-NEXT:    %[[S:.+]] = kv.score %{{.+}}, %{{.+}} {num_groups = 2 : i64, num_heads = 4 : i64, obs_window = 2 : i64} : tensor<1x16x64xbf16>, tensor<1x16x32xbf16> -> tensor<1x2x16xf32>
// ZIP-NEXT:    %[[I:.+]] = kv.topk %[[S]] {k = 10 : i64, recent = 0 : i64, sinks = 0 : i64} : tensor<1x2x16xf32> -> tensor<1x2x10xi32>
// ZIP-NEXT:    %[[Z:.+]] = kv.quantize %[[C]][0] salient %[[I]] {every = 1 : i64, tokens = 16 : i64}
// ZIP-NEXT:    return %[[Z]]
// SZIP-LABEL: func.func @prefill_short(
// SZIP-NOT:     kv.gather_store
// SZIP:         kv.score {{.+}}obs_window = 2 : i64
// SZIP-NEXT:    kv.topk {{.+}}k = 10 : i64
// SZIP-NEXT:    kv.quantize {{.+}}tokens = 16 : i64
!ctx = !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @prefill_short(%q: tensor<1x16x64xbf16>, %k: tensor<1x16x32xbf16>, %v: tensor<1x16x32xbf16>, %c: !ctx) -> !ctx {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>} : tensor<1x16x64xbf16>, tensor<1x16x32xbf16>, tensor<1x16x32xbf16>, !ctx -> tensor<1x16x64xbf16>
  return %c1 : !ctx
}

// -----

// Tests an MLA model (a latent cache) under KIVI. The latent cache takes
// the format (it has no value width for the group to divide: the latent is
// quantized as keys are); a decode attention is followed by kv.quantize of
// one residual token; a prefill needs no op (quantized as written).
// KIVI-LABEL: func.func @mla_decode(
// KIVI-SAME:    !kv.latent_cache<layers = 1, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 128>>
// KIVI:         %{{.+}}, %[[C:.+]] = llm.mla_attention
// KIVI-NEXT:    %[[Q:.+]] = kv.quantize %[[C]][0] {every = 1 : i64, tokens = 1 : i64} : !kv.latent_cache<layers = 1, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 128>>
// KIVI-NEXT:    return %{{.+}}, %[[Q]]
// KIVI-LABEL: func.func @mla_prefill(
// KIVI-NOT:     kv.quantize
// KIVI:         return

// ZipCache on MLA: the step's query, the attention's 2 heads (one group);
// the prefill scores with absorbed queries as one group: probes = 7 and
// salient = 39 of the 64 prompt tokens as for GQA above.
// ZIP-LABEL: func.func @mla_decode(
// ZIP:         kv.requantize %{{.+}}, %{{.+}}[0] {every = 100 : i64, num_heads = 2 : i64} : tensor<1x1x48xbf16>, !kv.latent_cache<{{.+}}format = #kv.zipcache<{{.+}}>>
// ZIP-LABEL: func.func @mla_prefill(
// ZIP:         %{{.+}}, %[[C:.+]] = llm.mla_attention %[[Q:.+]], %[[L:.+]], %[[W:.+]], %{{.+}}, %{{.+}} {
// ZIP-NEXT:    %[[S:.+]] = kv.score %[[Q]], %[[L]] absorb %[[W]] {num_groups = 1 : i64, num_heads = 2 : i64, obs_window = 7 : i64} : tensor<1x64x48xbf16>, tensor<1x64x40xbf16>, tensor<64x32xbf16> -> tensor<1x1x64xf32>
// ZIP-NEXT:    %[[I:.+]] = kv.topk %[[S]] {k = 39 : i64, recent = 0 : i64, sinks = 0 : i64} : tensor<1x1x64xf32> -> tensor<1x1x39xi32>
// ZIP-NEXT:    %[[Z:.+]] = kv.quantize %[[C]][0] salient %[[I]] {every = 1 : i64, tokens = 64 : i64} : !kv.latent_cache<{{.+}}> salient tensor<1x1x39xi32>
// ZIP-NEXT:    return %[[Z]]
!lat = !kv.latent_cache<layers = 1, batch = 1, slots = 64, latent_dim = 32, rope_dim = 8, dtype = bf16, policy = #kv.full>
func.func @mla_decode(%q: tensor<1x1x48xbf16>, %l: tensor<1x1x40xbf16>, %w: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !lat) -> (tensor<1x1x32xbf16>, !lat) {
  %o, %c1 = llm.mla_attention %q, %l, %w, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !lat -> tensor<1x1x32xbf16>
  return %o, %c1 : tensor<1x1x32xbf16>, !lat
}
func.func @mla_prefill(%q: tensor<1x64x48xbf16>, %l: tensor<1x64x40xbf16>, %w: tensor<64x32xbf16>, %n: tensor<32xbf16>, %c: !lat) -> !lat {
  %o, %c1 = llm.mla_attention %q, %l, %w, %n, %c {layer = 0, num_heads = 2, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, kv_lora_rank = 32, phase = #llm<phase prefill>} : tensor<1x64x48xbf16>, tensor<1x64x40xbf16>, tensor<64x32xbf16>, tensor<32xbf16>, !lat -> tensor<1x64x32xbf16>
  return %c1 : !lat
}

// -----

// Regression: a format added under a policy that keeps the slots keeps a
// latent cache's split by sequence too (it used to reset seq_shards to 1,
// turning a 256-token sequence into a 64-token one).
// RUN: snapflow-opt %s -split-input-file --kv-compress="policy=full format=fp8" | FileCheck %s --check-prefix=SHARDS
// SHARDS: !kv.latent_cache<layers = 1, batch = 1, slots = 64, latent_dim = 16, rope_dim = 8, dtype = bf16, policy = #kv.full, seq_shards = 4, format = #kv.fp8>
func.func @split(%c: !kv.latent_cache<layers = 1, batch = 1, slots = 64, latent_dim = 16, rope_dim = 8, dtype = bf16, policy = #kv.full, seq_shards = 4>) -> !kv.latent_cache<layers = 1, batch = 1, slots = 64, latent_dim = 16, rope_dim = 8, dtype = bf16, policy = #kv.full, seq_shards = 4> {
  return %c : !kv.latent_cache<layers = 1, batch = 1, slots = 64, latent_dim = 16, rope_dim = 8, dtype = bf16, policy = #kv.full, seq_shards = 4>
}
