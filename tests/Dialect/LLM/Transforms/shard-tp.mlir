// Tests that --shard-tp turns each phase function into one socket's program.

// GQA over 4 sockets (Llama-3.2-1B: 32 heads, 8 KV heads of 64, MLP 8192,
// tied 128256-row embedding): 8 query and 2 KV heads per socket, the output
// projection and MLP down-projection split by columns and followed by an
// all-reduce, the vocabulary split by rows (128256 / 4 = 32064) with an
// all-reduce after the lookup and an all-gather of the logits; the tied
// embedding is split once.
// RUN: snapflow import --model llama-3.2-1b --batch 2 --prompt 8 --context 64 | snapflow-opt --shard-tp="tp=4" | FileCheck %s --check-prefix=GQA
// GQA: module @model attributes {llm.model = "llama-3.2-1b", llm.model_type = "llama", llm.tp = 4 : i64}
// GQA-LABEL: func.func @decode(
// GQA-SAME:    !kv.cache<layers = 16, batch = 2, slots = 64, kv_heads = 2, head_dim = 64,
// GQA:         %[[E:.+]] = llm.param @model.embed_tokens.weight {{.*}}: tensor<32064x2048xbf16>
// GQA-NEXT:    %[[H:.+]] = llm.embed %{{.+}}, %[[E]] : tensor<2x1xi32>, tensor<32064x2048xbf16> -> tensor<2x1x2048xbf16>
// GQA-NEXT:    llm.all_reduce %[[H]] {group_size = 4 : i64, kind = #llm<reduce sum>}
// GQA:         llm.param @model.layers.0.self_attn.q_proj.weight {{.*}}: tensor<512x2048xbf16>
// GQA:         llm.rope {{.+}}num_heads = 8 : i64
// GQA:         llm.param @model.layers.0.self_attn.k_proj.weight {{.*}}: tensor<128x2048xbf16>
// GQA:         llm.attention {{.+}}num_heads = 8 : i64, num_kv_heads = 2 : i64
// GQA:         llm.param @model.layers.0.self_attn.o_proj.weight {{.*}}: tensor<2048x512xbf16>
// GQA-NEXT:    %[[O:.+]] = llm.linear
// GQA-NEXT:    llm.all_reduce %[[O]]
// GQA:         llm.param @model.layers.0.mlp.gate_proj.weight {{.*}}: tensor<2048x2048xbf16>
// GQA:         llm.param @model.layers.0.mlp.down_proj.weight {{.*}}: tensor<2048x2048xbf16>
// GQA-NEXT:    %[[M:.+]] = llm.mlp
// GQA-NEXT:    llm.all_reduce %[[M]]
// GQA:         %[[L:.+]] = llm.lm_head %{{.+}}, %[[E]] : tensor<2x1x2048xbf16>, tensor<32064x2048xbf16> -> tensor<2x1x32064xbf16>
// GQA-NEXT:    %[[G:.+]] = llm.all_gather %[[L]] {dim = 2 : i64, group_size = 4 : i64} : tensor<2x1x32064xbf16> -> tensor<2x1x128256xbf16>
// GQA-NEXT:    return %[[G]]

// 16 sockets and 8 KV heads: each socket keeps one KV head (each replicated
// on 2 sockets) and 2 query heads.
// RUN: snapflow import --model llama-3.2-1b --batch 1 --prompt 8 --context 64 | snapflow-opt --shard-tp="tp=16" | FileCheck %s --check-prefix=REPL
// REPL: llm.attention {{.+}}num_heads = 2 : i64, num_kv_heads = 1 : i64

// MLA (DeepSeek-V2-Lite, 16 heads, no q compression) over 4 sockets with the
// latent cache replicated: heads and the KV up-projection split by heads, the
// latent down-projection (576 x 2048) replicated; 64 experts spread 16 per
// socket (expert_shards = 4, router over all 64), the 2 shared experts (2 x
// 1408 = 2816 wide) split to 704.
// RUN: snapflow import --model deepseek-v2-lite --batch 1 --prompt 8 --context 64 | snapflow-opt --shard-tp="tp=4" | FileCheck %s --check-prefix=MLA
// MLA-LABEL: func.func @decode(
// MLA-SAME:    !kv.latent_cache<layers = 27, batch = 1, slots = 64, latent_dim = 512, rope_dim = 64, dtype = bf16, policy = #kv.full>
// MLA:         llm.param @model.layers.0.self_attn.q_proj.weight {{.*}}: tensor<768x2048xbf16>
// MLA:         llm.param @model.layers.0.self_attn.kv_a_proj_with_mqa.weight {{.*}}: tensor<576x2048xbf16>
// MLA:         llm.param @model.layers.0.self_attn.kv_b_proj.weight {{.*}}: tensor<1024x512xbf16>
// MLA:         llm.mla_attention {{.+}}num_heads = 4 : i64
// MLA-SAME:    -> tensor<1x1x512xbf16>
// MLA:         llm.param @model.layers.1.mlp.gate.weight {{.*}}: tensor<64x2048xbf16>
// MLA:         llm.param @model.layers.1.mlp.experts.gate_proj.weight {{.*}}: tensor<16x1408x2048xbf16>
// MLA:         llm.param @model.layers.1.mlp.shared_experts.gate_proj.weight {{.*}}: tensor<704x2048xbf16>
// MLA:         %[[Y:.+]] = llm.moe {{.+}}{expert_shards = 4 : i64, {{.+}}num_experts = 16 : i64, top_k = 6 : i64}
// MLA-NEXT:    llm.all_reduce %[[Y]]

// MLA with the latent cache split by sequence: every socket attends all 16
// heads over 64 / 4 = 16 slots, the partial results are summed and each socket
// keeps its 4 heads (4 x 128 = 512 wide) for the split output projection.
// RUN: snapflow import --model deepseek-v2-lite --batch 1 --prompt 8 --context 64 | snapflow-opt --shard-tp="tp=4 mla-cache=sequence" | FileCheck %s --check-prefix=SEQ
// SEQ-LABEL: func.func @decode(
// SEQ-SAME:    !kv.latent_cache<layers = 27, batch = 1, slots = 16, latent_dim = 512, rope_dim = 64, dtype = bf16, policy = #kv.full, seq_shards = 4>
// SEQ:         %[[A:.+]], %{{.+}} = llm.mla_attention {{.+}}num_heads = 16 : i64{{.+}} -> tensor<1x1x2048xbf16>
// SEQ-NEXT:    %[[R:.+]] = llm.all_reduce %[[A]]
// SEQ-NEXT:    %[[S:.+]] = llm.shard_slice %[[R]] {dim = 2 : i64, {{.*}}shards = 4 : i64} : tensor<1x1x2048xbf16> -> tensor<1x1x512xbf16>
// SEQ-NEXT:    llm.param @model.layers.0.self_attn.o_proj.weight {{.*}}: tensor<2048x512xbf16>
// SEQ-NEXT:    llm.linear %[[S]]

// Splitting every expert instead: 64 experts of 1408 / 4 = 352.
// RUN: snapflow import --model deepseek-v2-lite --batch 1 --prompt 8 --context 64 | snapflow-opt --shard-tp="tp=4 moe=split" | FileCheck %s --check-prefix=SPLIT
// SPLIT: llm.param @model.layers.1.mlp.experts.gate_proj.weight {{.*}}: tensor<64x352x2048xbf16>
// SPLIT: llm.param @model.layers.1.mlp.experts.down_proj.weight {{.*}}: tensor<64x2048x352xbf16>
// SPLIT: llm.moe {{.+}}num_experts = 64 : i64, top_k = 6 : i64}

// tp = 1 leaves the program as it is.
// RUN: snapflow import --model llama-3.2-1b --batch 1 --prompt 8 --context 64 | snapflow-opt --shard-tp="tp=1" | FileCheck %s --check-prefix=ONE
// ONE: llm.tp = 1
// ONE-NOT: llm.all_reduce
