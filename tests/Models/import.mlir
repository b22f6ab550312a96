// Tests that the IR emitted for every shipped model verifies and has every
// layer, with dense and MoE layers as each config says.

// RUN: snapflow import --model llama-3.2-1b --batch 2 --prompt 128 --context 256 | snapflow-opt | FileCheck %s --check-prefix=L1B
// L1B: module @model attributes {llm.model = "llama-3.2-1b", llm.model_fingerprint = "{{[0-9a-f]+}}", llm.model_type = "llama", llm.weights_dtype = "bf16"}
// L1B: func.func @prefill(%{{.*}}: tensor<2x128xi32>, %{{.*}}: !kv.cache<layers = 16, batch = 2, slots = 128, kv_heads = 8, head_dim = 64, dtype = bf16, policy = #kv.full>)
// L1B-COUNT-16: llm.attention
// L1B: llm.lm_head {{.*}}last_token_only
// L1B: func.func @decode(%{{.*}}: tensor<2x1xi32>, %{{.*}}: !kv.cache<layers = 16, batch = 2, slots = 256,
// L1B-COUNT-16: llm.attention {{.*}}phase = #llm<phase decode>

// RUN: snapflow import --model llama-3.1-8b --batch 1 --context 4096 | snapflow-opt > /dev/null
// RUN: snapflow import --model llama-3.1-70b --batch 1 --context 4096 | snapflow-opt > /dev/null
// RUN: snapflow import --model %models/llama-3.1-8b.json --batch 1 --context 4096 | snapflow-opt > /dev/null

// RUN: snapflow import --model deepseek-v2-lite --batch 1 --prompt 64 --context 64 | snapflow-opt | FileCheck %s --check-prefix=V2L
// V2L: func.func @prefill
// V2L: llm.mla_attention {{.*}}layer = 0
// V2L: llm.mlp
// V2L: llm.mla_attention {{.*}}layer = 1
// V2L: llm.route {{.*}}top_k = 6 : i64{{.*}} -> tensor<1x64x6xi32>
// V2L: llm.moe {{.*}}num_experts = 64 : i64, top_k = 6 : i64
// V2L: llm.param @model.layers.1.mlp.shared_experts.gate_proj.weight
// V2L: llm.mlp
// V2L: llm.add
// V2L-COUNT-25: llm.moe
// V2L: func.func @decode

// RUN: snapflow import --model deepseek-r1 --batch 8 --prompt 16 --context 131072 | snapflow-opt | FileCheck %s --check-prefix=R1
// R1: func.func @decode(%{{.*}}: tensor<8x1xi32>, %{{.*}}: !kv.latent_cache<layers = 61, batch = 8, slots = 131072, latent_dim = 512, rope_dim = 64, dtype = bf16, policy = #kv.full>)
// R1: llm.param @model.layers.0.self_attn.q_a_proj.weight {{.*}}: tensor<1536x7168xf8E4M3FN>
// R1-COUNT-3: llm.mlp
// R1-COUNT-58: llm.moe {{.*}}num_experts = 256 : i64, top_k = 8 : i64
// R1: llm.lm_head
