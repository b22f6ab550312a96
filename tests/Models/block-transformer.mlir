// Tests the Block Transformer (published 1.2B config: blocks of 4 tokens,
// 12 + 12 GPT-NeoX layers of 2048, 16 heads, 2 prefix vectors).

// @prefill: a prompt of 10 tokens is left-padded to 3 blocks (12 tokens);
// the lookup embedder concatenates each block's 4 rows of 512 into one
// 2048-wide block embedding, and the block decoder attends causally over
// the 3 blocks, writing its cache of one slot per block. No logits and no
// final norm (it feeds only the expansion): the prompt never enters the
// token decoder.
// @decode (context 64 = 16 blocks): the last block's 4 tokens become one
// block embedding, the block decoder takes one step over its 16 slots, the
// expansion layer (2048 -> 2 x 2048, with a bias) is read as 2 prefix rows,
// and the token decoder runs 4 forwards: the first over the 2 prefix rows,
// each next over the token the previous one sampled, its local attention
// seeing the block's earlier keys and values (layer 0's of forward 0 again
// in forward 1). The step returns 4 logits and the cache, and decodes a
// block of 4 tokens (block_tokens = 4).
// RUN: snapflow import --model block-transformer-1.2b --batch 2 --prompt 10 --context 64 | snapflow-opt | FileCheck %s
// CHECK-LABEL: func.func @prefill(
// CHECK-SAME:    %{{.+}}: tensor<2x12xi32>, %{{.+}}: !kv.cache<layers = 12, batch = 2, slots = 3, kv_heads = 16, head_dim = 128, dtype = bf16, policy = #kv.full>) -> !kv.cache<
// CHECK-SAME:    llm.workload = #llm.workload<prefill, batch = 2, tokens = 12>
// CHECK:         llm.embed %{{.+}} {tokens_per_row = 4 : i64} : tensor<2x12xi32>, tensor<50304x512xbf16> -> tensor<2x3x2048xbf16>
// CHECK:         llm.layer_norm
// CHECK:         llm.param @block_decoder.gpt_neox.layers.0.attention.query_key_value.q.weight {llm.layer = 0 : i64} : tensor<2048x2048xbf16>
// CHECK:         llm.rope %{{.+}} {head_dim = 128 : i64, llm.layer = 0 : i64, num_heads = 16 : i64, rotary_dim = 32 : i64, theta = 1.000000e+04 : f64}
// CHECK:         llm.attention {{.+}}phase = #llm<phase prefill>
// CHECK:         llm.gelu_mlp {{.+}} : tensor<2x3x2048xbf16>, tensor<8192x2048xbf16>, tensor<8192xbf16>, tensor<2048x8192xbf16>, tensor<2048xbf16>
// CHECK-NOT:     final_layer_norm
// CHECK-NOT:     llm.lm_head
// CHECK:         return %{{.+}} : !kv.cache
// CHECK-LABEL: func.func @decode(
// CHECK-SAME:    %{{.+}}: tensor<2x4xi32>, %{{.+}}: !kv.cache<layers = 12, batch = 2, slots = 16,
// CHECK-SAME:    -> (tensor<2x1x50304xbf16>, tensor<2x1x50304xbf16>, tensor<2x1x50304xbf16>, tensor<2x1x50304xbf16>, !kv.cache
// CHECK-SAME:    llm.workload = #llm.workload<decode, batch = 2, tokens = 64, block_tokens = 4>
// CHECK:         llm.embed %{{.+}} {tokens_per_row = 4 : i64} : tensor<2x4xi32>, tensor<50304x512xbf16> -> tensor<2x1x2048xbf16>
// CHECK:         llm.attention {{.+}}phase = #llm<phase decode>
// CHECK:         llm.param @token_decoder.expansion_layer.weight : tensor<4096x2048xbf16>
// CHECK:         llm.linear %{{.+}} bias %{{.+}} : tensor<2x1x2048xbf16>, tensor<4096x2048xbf16> bias tensor<4096xbf16> -> tensor<2x1x4096xbf16>
// CHECK-NEXT:    llm.reshape %{{.+}} : tensor<2x1x4096xbf16> -> tensor<2x2x2048xbf16>
// CHECK:         llm.param @token_decoder.gpt_neox.layers.0.attention.query_key_value.k.weight
// CHECK:         %[[K0:.+]] = llm.rope
// CHECK:         %[[V0:.+]] = llm.linear
// CHECK-NEXT:    llm.local_attention %{{.+}} over (%[[K0]], %[[V0]]) {{.+}} : tensor<2x2x2048xbf16> over (tensor<2x2x2048xbf16>, tensor<2x2x2048xbf16>) -> tensor<2x2x2048xbf16>
// CHECK:         %[[L0:.+]] = llm.lm_head %{{.+}} {last_token_only} : tensor<2x2x2048xbf16>, tensor<50304x2048xbf16> -> tensor<2x1x50304xbf16>
// CHECK-NEXT:    %[[T0:.+]] = llm.sample %[[L0]] : tensor<2x1x50304xbf16> -> tensor<2x1xi32>
// CHECK-NEXT:    llm.embed %[[T0]], %{{.+}} : tensor<2x1xi32>, tensor<50304x2048xbf16> -> tensor<2x1x2048xbf16>
// CHECK:         llm.local_attention %{{.+}} over (%[[K0]], %[[V0]], %{{.+}}, %{{.+}}) {{.+}} : tensor<2x1x2048xbf16> over (tensor<2x2x2048xbf16>, tensor<2x2x2048xbf16>, tensor<2x1x2048xbf16>, tensor<2x1x2048xbf16>)
// CHECK-COUNT-2: llm.sample
// CHECK:         llm.local_attention %{{.+}} over (%[[K0]], %[[V0]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}})
// CHECK:         llm.lm_head
// CHECK-NOT:     llm.sample
// CHECK:         return

// A Block Transformer has no MTP module, and CLA does not apply.
// RUN: not snapflow import --model block-transformer-1.2b --mtp 1 2>&1 | FileCheck %s --check-prefix=MTP
// MTP: error: --mtp 1: block-transformer-1.2b has no multi-token-prediction layers
// RUN: not snapflow import --model block-transformer-1.2b --cla 2 2>&1 | FileCheck %s --check-prefix=CLA
// CLA: error: --cla applies to Llama and DeepSeek configs; block-transformer-1.2b is a Block Transformer

// A config whose embedder does not make the block decoder's width is
// refused where it says so.
// RUN: not snapflow import --model %S/Inputs/bt-bad-width.json 2>&1 | FileCheck %s --check-prefix=WIDTH
// WIDTH: bt-bad-width.json:6:3: error: the lookup embedder's concatenated block (embedder.hidden_size 256 x block_length 4) must be the block decoder's hidden_size (2048)
// RUN: not snapflow import --model %S/Inputs/bt-bad-strategy.json 2>&1 | FileCheck %s --check-prefix=STRATEGY
// STRATEGY: bt-bad-strategy.json:{{[0-9]+}}:5: error: field 'token_decoder.decoding_strategy' is 'summation'; snapflow models prefix

// The embedder's own vocab_size sizes its lookup table (it was ignored for
// the top-level one).
// RUN: snapflow import --model %S/Inputs/bt-embedder-vocab.json --batch 1 --prompt 8 --context 16 --phase decode | FileCheck %s --check-prefix=VOCAB
// VOCAB: llm.param @embedder.embeddings.weight : tensor<1000x512xbf16>
