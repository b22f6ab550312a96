// Tests that --mtp puts DeepSeek's multi-token-prediction module into @decode.

// DeepSeek-V2-Lite has no MTP module.
// RUN: not snapflow import --model deepseek-v2-lite --mtp 1 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: error: --mtp 1: deepseek-v2-lite has no multi-token-prediction layers

// DeepSeek-R1 with 2 draft depths: @decode verifies 3 tokens per sequence;
// each depth takes the tokens the head before it predicts (llm.sample of
// its logits: the main head's, then depth 1's), combines their embedding
// with the hidden state through the MTP module's eh_proj (layer 61, reused
// by depth 2), runs its decoder layer and the shared head, and returns
// draft logits; the cache holds 61 + 2 layers. Prefill is unchanged.
// RUN: snapflow import --model deepseek-r1 --batch 2 --prompt 8 --context 64 --mtp 2 | snapflow-opt | FileCheck %s
// CHECK-LABEL: func.func @prefill(
// CHECK-SAME:    !kv.latent_cache<layers = 61,
// CHECK-LABEL: func.func @decode(
// CHECK-SAME:    %{{.+}}: tensor<2x3xi32>, %{{.+}}: !kv.latent_cache<layers = 63,
// CHECK-SAME:    -> (tensor<2x3x129280xbf16>, tensor<2x3x129280xbf16>, tensor<2x3x129280xbf16>, !kv.latent_cache
// CHECK:         %[[MAIN:.+]] = llm.lm_head
// CHECK:         %[[T1:.+]] = llm.sample %[[MAIN]] {llm.layer = 61 : i64} : tensor<2x3x129280xbf16> -> tensor<2x3xi32>
// CHECK:         llm.embed %[[T1]]
// CHECK:         llm.param @model.layers.61.eh_proj.weight {{.*}}: tensor<7168x14336xf8E4M3FN>
// CHECK:         llm.mtp {{.+}}{depth = 1 : i64, llm.layer = 61 : i64}
// CHECK:         llm.mla_attention {{.+}}layer = 61 : i64
// CHECK:         llm.moe
// CHECK:         llm.param @model.layers.61.shared_head.norm.weight
// CHECK:         %[[DRAFT1:.+]] = llm.lm_head
// CHECK:         %[[T2:.+]] = llm.sample %[[DRAFT1]] {llm.layer = 62 : i64}
// CHECK:         llm.embed %[[T2]]
// CHECK:         llm.mtp {{.+}}{depth = 2 : i64, llm.layer = 62 : i64}
// CHECK:         llm.mla_attention {{.+}}layer = 62 : i64
