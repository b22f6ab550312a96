// Tests that --tile-and-map gives every stage a kind, tiles and units, and
// every section a summary within the chip's PCUs, PMUs and AGCUs.

// Llama-3.1-8B decode on one SN40L socket (1040 PCUs, 32 AGCUs), layers
// fused: three sections (embedding, the 32-layer loop, the head). In the loop,
// the MLP does 352 MFLOP of the layer's 504 and gets most PCUs; every stage
// streaming weights or KV gets at least one AGCU and the loop uses all 32.
// The MLP's 352,321,536 weight bytes in 64 tiles of 5,505,024 B.
// RUN: snapflow import --model llama-3.1-8b --batch 1 --prompt 16 --context 4096 | snapflow-opt --pass-pipeline="builtin.module(func.func(fuse-layers),tile-and-map{chip=sn40l})" | FileCheck %s
// CHECK: module @model attributes {df.chip = "sn40l"
// CHECK-LABEL: func.func @decode(
// CHECK-SAME:    df.sections = [{agcus = 32 : i64, name = "part_0", pcus = 1 : i64, pmus = {{[0-9]+}} : i64, repeat = 1 : i64, stages = 1 : i64}, {agcus = 32 : i64, name = "layers_0_31", pcus = 1040 : i64, pmus = {{[0-9]+}} : i64, repeat = 32 : i64, stages = 12 : i64}, {agcus = 32 : i64, name = "part_2", pcus = 1040 : i64, pmus = {{[0-9]+}} : i64, repeat = 1 : i64, stages = 2 : i64}]
// CHECK:         llm.embed {{.+}}df.kind = "gather"
// CHECK:         llm.repeat 32 layers
// CHECK:           llm.rms_norm {{.+}}df.kind = "norm", df.pcus = 1 : i64
// CHECK:           llm.attention {{.+}}df.kind = "gemm"
// CHECK:           llm.mlp {{.+}}df.agcus = {{[0-9]+}} : i64, df.kind = "gemm", df.pcus = 720 : i64, df.pmus = {{[0-9]+}} : i64, df.section = 1 : i64, df.tile_bytes = 5505024 : i64, df.tiles = 64 : i64

// The tiny chip (4 PCUs) cannot give each of a layer's 12 stages a PCU: the
// section is marked oversubscribed (stages share PCUs in time).
// RUN: snapflow import --model llama-3.2-1b --batch 1 --prompt 16 --context 64 | snapflow-opt --pass-pipeline="builtin.module(func.func(fuse-layers),tile-and-map{chip=tiny})" | FileCheck %s --check-prefix=TINY
// TINY: name = "layers_0_15", oversubscribed = {{.+}} : f64, pcus = 12 : i64

// Bad options are errors.
// RUN: snapflow import --model llama-3.2-1b --batch 1 --prompt 16 --context 64 | not snapflow-opt --mlir-print-op-on-diagnostic=false --tile-and-map="chip=sn99" 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: tile-and-map: unknown chip 'sn99'
// RUN: snapflow import --model llama-3.2-1b --batch 1 --prompt 16 --context 64 | not snapflow-opt --mlir-print-op-on-diagnostic=false --tile-and-map="max-tiles=0" 2>&1 | FileCheck %s --check-prefix=TILES
// TILES: error: tile-and-map: max-tiles must be >= 1, got 0
