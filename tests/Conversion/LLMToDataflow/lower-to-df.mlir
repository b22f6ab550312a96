// Tests that --lower-to-df turns mapped phase functions into df programs.

// Llama-3.1-8B decode on one socket: tensors declared first (weights stacked
// over the 32 layers of the loop, the KV cache as layers x batch x slots x
// K+V width), then one section per mapped section; in the loop, weights
// stream in the mapped tiles (q_proj 32 MiB in 64 tiles of 64 rows), the
// attention reads its layer's 4096 slots (64 tiles of 64) and stores one new
// token; the hidden state goes home between iterations.
// RUN: snapflow import --model llama-3.1-8b --batch 1 --prompt 16 --context 4096 | snapflow-opt --pass-pipeline="builtin.module(func.func(fuse-layers),tile-and-map{chip=sn40l},plan-memory{chip=sn40l},lower-to-df)" | FileCheck %s
// CHECK-LABEL: df.program @decode attributes {chip = "sn40l"
// CHECK-SAME:    tp = 1 : i64
// CHECK-DAG:     df.tensor @kv_cache : tensor<32x1x4096x2048xbf16> in hbm
// CHECK-DAG:     df.tensor @model.layers.0.self_attn.q_proj.weight : tensor<32x4096x4096xbf16> in hbm
// CHECK-DAG:     df.tensor @"0_carry0" : tensor<4096xbf16> in sram
// CHECK:         df.section @part_0 {
// CHECK:           df.stage gather
// CHECK:         df.section @layers_0_31 repeat 32 {
// CHECK:           %[[H:.+]] = df.load @"0_carry0" tiles 1
// CHECK:           df.load @model.layers.0.self_attn.q_proj.weight tiles 64 {agcus = {{[0-9]+}} : i64} : !df.stream<tensor<1x64x4096xbf16>, 2>
// CHECK:           %[[KV:.+]] = df.load @kv_cache tiles 64 {{.*}}: !df.stream<tensor<1x1x64x2048xbf16>, 2>
// CHECK:           %[[A:.+]]:2 = df.stage gemm({{.+}}, %[[KV]]) {{.+}}output_tiles = array<i64: 64, 1>
// CHECK-NEXT:      df.store %[[A]]#1 to @kv_cache : !df.stream<tensor<1x1x1x2048xbf16>, 2>
// CHECK:           df.store %{{.+}} to @"0_carry0"
// CHECK:         df.section @part_2 {
// CHECK-NOT:     func.func

// Under TP the program carries its collectives: the all-reduce after each
// attention output and MLP, the all-gather of the logits.
// RUN: snapflow import --model llama-3.2-1b --batch 2 --prompt 16 --context 256 | snapflow-opt --pass-pipeline="builtin.module(shard-tp{tp=4},func.func(fuse-layers),tile-and-map{chip=sn40l-16},plan-memory{chip=sn40l-16},lower-to-df)" | FileCheck %s --check-prefix=TP
// TP-LABEL: df.program @decode attributes {chip = "sn40l-16"
// TP-SAME:    tp = 4 : i64
// TP:         df.section @layers_0_15 repeat 16 {
// TP:           df.collective all_reduce
// TP:           df.collective all_reduce
// TP:         df.section @part_2 {
// TP:           df.collective all_gather {{.+}}{group_size = 4 : i64}

// Routed experts stream only as far as they are expected to be touched:
// DeepSeek-V2-Lite decode, batch 1: 6 of 64 experts.
// RUN: snapflow import --model deepseek-v2-lite --batch 1 --prompt 16 --context 256 | snapflow-opt --pass-pipeline="builtin.module(func.func(fuse-layers),tile-and-map{chip=sn40l},plan-memory{chip=sn40l},lower-to-df)" | FileCheck %s --check-prefix=MOE
// MOE: df.tensor @model.layers.1.mlp.experts.gate_proj.weight : tensor<26x64x1408x2048xbf16> in hbm
// MOE: df.load @model.layers.1.mlp.experts.gate_proj.weight tiles 6 {{.*}}: !df.stream<tensor<1x1x1408x2048xbf16>, 2>

// Lowering needs the mapping.
// RUN: snapflow import --model llama-3.2-1b --batch 1 --prompt 16 --context 64 | not snapflow-opt --mlir-print-op-on-diagnostic=false --lower-to-df 2>&1 | FileCheck %s --check-prefix=NOMAP
// NOMAP: error: lower-to-df: no df.chip; run --tile-and-map first
