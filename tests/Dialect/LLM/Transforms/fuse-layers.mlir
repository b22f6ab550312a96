// Tests that --fuse-layers folds runs of identical decoder layers into one
// llm.repeat of the first layer's body.

// Llama-3.2-1B: all 16 layers are identical, one loop carrying the hidden
// state and the cache; the body is layer 0's and its ops lose their marker.
// RUN: snapflow import --model llama-3.2-1b --batch 1 --prompt 8 --context 64 | snapflow-opt --pass-pipeline="builtin.module(func.func(fuse-layers))" | FileCheck %s --check-prefix=LLAMA
// LLAMA-LABEL: func.func @decode(
// LLAMA:         %[[E:.+]] = llm.embed
// LLAMA-NEXT:    %[[R:.+]]:2 = llm.repeat 16 layers from 0 (%[[E]], %arg1) {llm.layer = 0 : i64} : (tensor<1x1x2048xbf16>, !kv.cache<{{.+}}>) -> (tensor<1x1x2048xbf16>, !kv.cache<{{.+}}>) {
// LLAMA-NEXT:    ^bb0(%[[H:.+]]: tensor<1x1x2048xbf16>, %[[C:.+]]: !kv.cache<{{.+}}>):
// LLAMA-NEXT:      llm.param @model.layers.0.input_layernorm.weight : tensor<2048xbf16>
// LLAMA:           llm.attention {{.+}}, %[[C]] {head_dim = 64 : i64, layer = 0 : i64,
// LLAMA:           llm.yield %{{.+}}, %{{.+}} : tensor<1x1x2048xbf16>, !kv.cache
// LLAMA-NEXT:    }
// LLAMA-NEXT:    llm.param @model.norm.weight
// LLAMA:         llm.rms_norm %[[R]]#0
// LLAMA:         return %{{.+}}, %[[R]]#1
// LLAMA-NOT:     llm.layer = 1

// DeepSeek-V2-Lite: layer 0 is dense and differs from its neighbours, so it
// stays; the 26 MoE layers become one loop.
// RUN: snapflow import --model deepseek-v2-lite --batch 1 --prompt 8 --context 64 | snapflow-opt --pass-pipeline="builtin.module(func.func(fuse-layers))" | FileCheck %s --check-prefix=V2L
// V2L-LABEL: func.func @decode(
// V2L:         llm.mla_attention {{.+}}layer = 0 : i64, llm.layer = 0 : i64
// V2L:         llm.mlp {{.+}}llm.layer = 0 : i64
// V2L:         llm.repeat 26 layers from 1 (
// V2L:           llm.moe
// V2L:           llm.yield

// DeepSeek-R1 after compression and TP: two loops, 3 dense and 58 MoE layers,
// the SnapKV selection inside the prefill body.
// RUN: snapflow import --model deepseek-r1 --batch 8 --prompt 64 --context 1024 | snapflow-opt --pass-pipeline="builtin.module(kv-compress{policy=snapstream:budget=32,recent=16},shard-tp{tp=16},func.func(fuse-layers))" | FileCheck %s --check-prefix=R1
// R1-LABEL: func.func @prefill(
// R1:         llm.repeat 3 layers from 0 (
// R1:           kv.gather_store
// R1:         llm.repeat 58 layers from 3 (
// R1:           kv.gather_store
// R1-LABEL: func.func @decode(
// R1:         llm.repeat 3 layers from 0 (
// R1:         llm.repeat 58 layers from 3 (

// IR without layer markers is left alone.
// RUN: snapflow-opt %s --pass-pipeline="builtin.module(func.func(fuse-layers))" | FileCheck %s --check-prefix=NONE
// NONE-LABEL: func.func @unmarked(
// NONE-NOT:     llm.repeat
func.func @unmarked(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %y = llm.add %x, %x : tensor<1x1x8xbf16>
  %z = llm.add %y, %y : tensor<1x1x8xbf16>
  return %z : tensor<1x1x8xbf16>
}
