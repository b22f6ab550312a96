// The families' graphs, from their published config.json files
// (Inputs/published, sources in its SOURCES.md): each carries what changes
// its costs (MODEL-FAMILIES.md sections 2-4).

// Qwen2.5: biases on q, k and v, none on o.
// RUN: snapflow import --model %S/Inputs/published/Qwen__Qwen2.5-7B-Instruct.json --batch 1 --prompt 16 --context 32 | snapflow-opt | FileCheck %s --check-prefix=QWEN2
// QWEN2: func.func @decode
// QWEN2: llm.param @model.layers.0.self_attn.q_proj.bias {{.*}} : tensor<3584xbf16>
// QWEN2: llm.linear {{.*}} bias {{.*}} -> tensor<1x1x3584xbf16>
// QWEN2: llm.param @model.layers.0.self_attn.k_proj.bias {{.*}} : tensor<512xbf16>
// QWEN2: llm.param @model.layers.0.self_attn.v_proj.bias
// QWEN2: llm.attention
// QWEN2-NOT: o_proj.bias
// QWEN2: llm.lm_head

// Qwen3-32B: head_dim 128 (64 x 128 = 8192 wide q against hidden 5120), and
// an RMS norm over each head of q and k before the rotation.
// RUN: snapflow import --model %S/Inputs/published/Qwen__Qwen3-32B.json --batch 1 --prompt 16 --context 32 | snapflow-opt | FileCheck %s --check-prefix=QWEN3
// QWEN3: func.func @decode
// QWEN3: llm.param @model.layers.0.self_attn.q_proj.weight {{.*}} : tensor<8192x5120xbf16>
// QWEN3: llm.param @model.layers.0.self_attn.q_norm.weight {{.*}} : tensor<128xbf16>
// QWEN3-NEXT: llm.rms_norm {{.*}}group = 128 {{.*}} : tensor<1x1x8192xbf16>, tensor<128xbf16>
// QWEN3-NEXT: llm.rope
// QWEN3: llm.param @model.layers.0.self_attn.k_norm.weight {{.*}} : tensor<128xbf16>
// QWEN3: llm.param @model.layers.0.self_attn.o_proj.weight {{.*}} : tensor<5120x8192xbf16>

// Qwen3-30B-A3B: every layer 128 experts of 768, top 8; no shared expert.
// RUN: snapflow import --model qwen3-30b-a3b --batch 1 --prompt 16 --context 32 | snapflow-opt | FileCheck %s --check-prefix=QMOE
// QMOE: func.func @decode
// QMOE: llm.moe {{.*}}num_experts = 128 : i64, top_k = 8 : i64{{.*}}tensor<128x768x2048xbf16>
// QMOE-NOT: shared_experts
// QMOE-COUNT-47: llm.moe
// QMOE-NOT: llm.mlp

// Gemma 3 (its decoder in text_config): four norms a layer, q/k norms.
// RUN: snapflow import --model gemma-3-27b --batch 1 --prompt 16 --context 32 | snapflow-opt | FileCheck %s --check-prefix=GEMMA3
// GEMMA3: llm.model_type = "gemma3"
// GEMMA3: func.func @decode
// GEMMA3: llm.param @model.layers.0.input_layernorm.weight
// GEMMA3: llm.param @model.layers.0.self_attn.q_norm.weight
// GEMMA3: llm.attention
// GEMMA3: llm.param @model.layers.0.post_attention_layernorm.weight
// GEMMA3: llm.add
// GEMMA3: llm.param @model.layers.0.pre_feedforward_layernorm.weight
// GEMMA3: llm.mlp
// GEMMA3: llm.param @model.layers.0.post_feedforward_layernorm.weight
// GEMMA3: llm.add
// The head is the embedding (tied): no lm_head.weight.
// GEMMA3-NOT: lm_head.weight
// GEMMA3: llm.lm_head

// Llama 4 Scout: every 4th layer is NoPE (no rotation, no q/k norm);
// the others rotate, then normalise q and k without a weight. Every layer
// is MoE (16 experts, top 1) plus a shared expert.
// RUN: snapflow import --model llama-4-scout --batch 1 --prompt 16 --context 32 | snapflow-opt | FileCheck %s --check-prefix=SCOUT
// SCOUT: llm.model_type = "llama4"
// SCOUT: func.func @decode
// SCOUT: llm.rope {{.*}}llm.layer = 2 : i64
// SCOUT: llm.rms_norm {{.*}}group = 128 : i64, llm.layer = 2 : i64} : tensor<1x1x1024xbf16>{{$}}
// SCOUT: llm.attention {{.*}}llm.layer = 2
// SCOUT-NOT: llm.rope
// SCOUT: llm.attention {{.*}}llm.layer = 3
// SCOUT: llm.moe {{.*}}num_experts = 16 : i64, top_k = 1 : i64
// SCOUT: llm.param @model.layers.3.mlp.shared_experts.gate_proj.weight {{.*}} : tensor<8192x5120xbf16>
// SCOUT: llm.rope {{.*}}llm.layer = 4 : i64

// Phi-3.5-MoE: LayerNorms (weight and bias), q/k/v/o biases.
// RUN: snapflow import --model %S/Inputs/published/microsoft__Phi-3.5-MoE-instruct.json --batch 1 --prompt 16 --context 32 | snapflow-opt | FileCheck %s --check-prefix=PHIMOE
// PHIMOE: func.func @decode
// PHIMOE: llm.param @model.layers.0.input_layernorm.bias
// PHIMOE-NEXT: llm.layer_norm
// PHIMOE: llm.param @model.layers.0.self_attn.o_proj.bias
// PHIMOE: llm.moe {{.*}}num_experts = 16 : i64, top_k = 2 : i64

// gpt-oss-120b: q/k/v/o biases, 128 experts of 2880, top 4. Its even
// layers slide over 128 tokens: their K/V is a window cache (the argument
// marked llm.window) of 128 slots, where a 512-token prompt leaves its
// last 128; the odd layers' is the full cache of the prompt's 512. What is
// not built yet, `info` says.
// RUN: snapflow import --model gpt-oss-120b --batch 1 --prompt 512 --context 1024 | snapflow-opt | FileCheck %s --check-prefix=GPTOSS
// GPTOSS: func.func @prefill(%{{.+}}: tensor<1x512xi32>, %{{.+}}: !kv.cache<layers = 18, batch = 1, slots = 512, {{.+}}>, %{{.+}}: !kv.cache<layers = 18, batch = 1, slots = 128, {{.+}}> {llm.window = 128 : i64})
// GPTOSS: llm.attention {{.+}}layer = 0 : i64, llm.layer = 0 : i64, {{.+}}window = 128 : i64}
// GPTOSS: llm.param @model.layers.0.self_attn.o_proj.bias {{.*}} : tensor<2880xbf16>
// GPTOSS: llm.moe {{.*}}num_experts = 128 : i64, top_k = 4 : i64
// GPTOSS: llm.attention {{.+}}layer = 0 : i64, llm.layer = 1 : i64, {{.+}}phase = #llm<phase prefill>}
// GPTOSS: func.func @decode(%{{.+}}: tensor<1x1xi32>, %{{.+}}: !kv.cache<layers = 18, batch = 1, slots = 1024, {{.+}}>, %{{.+}}: !kv.cache<layers = 18, batch = 1, slots = 128, {{.+}}> {llm.window = 128 : i64})
// The parameters (116,789,336,640) and the weights as stored
// (65,169,175,680 B = 60.69 GiB) are derived by hand in
// tests/Unit/FamiliesTest.cpp; the KV: 2 x 8 x 64 x 2 B = 2,048 B a layer
// and token, x 18 full layers = 36,864; the rings 18 x 128 x 2,048 x batch
// 8 = 37,748,736 B = 36.00 MiB; the policy's default budget is a quarter
// of 4096, 1024.
// RUN: snapflow info --model gpt-oss-120b --chip sn40l-16 --context 4096 | FileCheck %s --check-prefix=GPTOSS-INFO
// GPTOSS-INFO: (snapstream:budget=1024,{{.+}} compresses the 18 full layers; the 18 sliding-window layers keep their 128-token ring)
// GPTOSS-INFO: parameters   116.79 B total, 5.71 B active per token
// GPTOSS-INFO-NEXT: weights      60.69 GiB (projections in bf16, routed experts in MXFP4)
// GPTOSS-INFO: KV cache     36864 B per token of one sequence (its 18 full layers)
// GPTOSS-INFO-NEXT: and 18 windowed layers of 128 tokens: 36.00 MiB for the whole batch, not compressed by the policy

// The policy compresses only the full cache: the window cache keeps
// #kv.full and its 128 slots.
// RUN: snapflow import --model gpt-oss-120b --batch 1 --prompt 512 --context 1024 --phase decode | snapflow-opt --kv-compress="policy=snapstream:budget=256" | FileCheck %s --check-prefix=GPTOSS-KV
// GPTOSS-KV: func.func @decode(%{{.+}}: tensor<1x1xi32>, %{{.+}}: !kv.cache<layers = 18, batch = 1, slots = 256, {{.+}}policy = #kv.snapstream<{{.+}}>>, %{{.+}}: !kv.cache<layers = 18, batch = 1, slots = 128, {{.+}}policy = #kv.full> {llm.window = 128 : i64})

// Kimi-K2 is DeepSeek-V3's MLA graph: 64 heads, 384 experts + 1 shared.
// RUN: snapflow import --model %S/Inputs/published/moonshotai__Kimi-K2-Instruct.json --batch 1 --prompt 16 --context 32 | snapflow-opt | FileCheck %s --check-prefix=KIMI
// KIMI: llm.model_type = "kimi_k2"
// KIMI: func.func @decode
// KIMI: llm.mla_attention {{.*}}num_heads = 64
// KIMI: llm.mlp
// KIMI: llm.moe {{.*}}num_experts = 384 : i64, top_k = 8 : i64
// KIMI: shared_experts

// Every published config imports and verifies.
// RUN: for f in %S/Inputs/published/*.json; do snapflow import --model $f --batch 1 --prompt 16 --context 32 | snapflow-opt > /dev/null || echo "FAILED $f"; done | FileCheck %s --allow-empty --check-prefix=ALL
// ALL-NOT: FAILED
