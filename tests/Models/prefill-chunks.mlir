// Tests the chunk boundaries of a chunked prefill (--prefill-chunk C): the
// static graph processes C tokens, runs ceil(L / C) times, and each chunk's
// attention also reads the tokens earlier chunks wrote (`prefix`, the last
// chunk's: (chunks - 1) x C). The cache holds the chunks' slots.

// A prompt of exactly C tokens is one chunk: no prefix, no chunks recorded.
// RUN: snapflow import --model llama-3.2-1b --phase prefill --batch 1 --prompt 64 --prefill-chunk 64 | FileCheck %s --check-prefix=EXACT
// EXACT:      func.func @prefill(%{{.+}}: tensor<1x64xi32>, %{{.+}}: !kv.cache<layers = 16, batch = 1, slots = 64,
// EXACT-SAME: llm.workload = #llm.workload<prefill, batch = 1, tokens = 64>
// EXACT-NOT:  prefix =
// EXACT:      llm.attention
// EXACT-NOT:  prefix =

// C + 1 tokens take two chunks of C; the second attends to the first
// (prefix C) and is padded; the cache holds 2C slots.
// RUN: snapflow import --model llama-3.2-1b --phase prefill --batch 1 --prompt 65 --prefill-chunk 64 | FileCheck %s --check-prefix=PLUS1
// PLUS1:      func.func @prefill(%{{.+}}: tensor<1x64xi32>, %{{.+}}: !kv.cache<layers = 16, batch = 1, slots = 128,
// PLUS1-SAME: llm.workload = #llm.workload<prefill, batch = 1, tokens = 65, chunks = 2>
// PLUS1:      llm.attention {{.+}}prefix = 64 : i64
// PLUS1-SAME: : tensor<1x64x2048xbf16>

// One token in chunks of 64 is one chunk of one token.
// RUN: snapflow import --model llama-3.2-1b --phase prefill --batch 1 --prompt 1 --prefill-chunk 64 | FileCheck %s --check-prefix=ONE
// ONE:        func.func @prefill(%{{.+}}: tensor<1x1xi32>, %{{.+}}: !kv.cache<layers = 16, batch = 1, slots = 1,
// ONE-SAME:   llm.workload = #llm.workload<prefill, batch = 1, tokens = 1>

// Three and a half chunks: four chunks, the last one's prefix is 3C.
// RUN: snapflow import --model deepseek-v2-lite --phase prefill --batch 1 --prompt 224 --prefill-chunk 64 | FileCheck %s --check-prefix=MLA
// MLA:        llm.workload = #llm.workload<prefill, batch = 1, tokens = 224, chunks = 4>
// MLA:        llm.mla_attention {{.+}}prefix = 192 : i64

// Bad chunks are errors naming the flag.
// RUN: not snapflow import --model llama-3.2-1b --phase prefill --prompt 64 --prefill-chunk 0 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: --prefill-chunk must be a number of tokens >= 1 (8192, 8k) or auto, got '0'
// RUN: not snapflow compile --model llama-3.2-1b --phase prefill --prefill-chunk lots 2>&1 | FileCheck %s --check-prefix=WORD
// WORD: error: --prefill-chunk must be a number of tokens >= 1 (8192, 8k) or auto, got 'lots'
