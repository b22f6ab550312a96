// RUN: snapflow-opt %s -split-input-file --lower-to-df -verify-diagnostics | FileCheck %s

// Tests that a mapped decode function becomes a df program: tensors first
// (weights stacked over their layers in the tier plan-memory chose, the KV
// cache marked as such, homes for values that leave a section), then one
// section per #df.section with its repeat; weights stream in the mapped
// tiles; the attention reads its layer's cache and stores one new token;
// the program keeps the workload, the memory plan and the sections.
// Attention FLOPs: 4 heads x 64 slots x (4 x 16 + 5) = 17,664, 8,832 per
// tile over 2 tiles; the KV layer, 64 slots x 64 values x 2 B = 8,192 B,
// streams in 2 tiles of the mapped 4,096 B. Every node is tagged with the
// operator it works for: the linears feeding the attention are its QKV
// projection, the one after it its output projection. Each gemm carries its
// rows, the activations sharing each weight or key: one token for the
// linears, and for the attention the 4 / 2 = 2 query heads sharing each KV
// head.
// CHECK-LABEL: df.program @decode attributes {df.kv_upkeep = #df.kv_upkeep<flops = 0, bytes = 0>, df.memory_plan = #df.memory_plan<weights_bytes = 24576, {{.+}}>, df.sections = [#df.section<name = "attn", {{.+}}>, #df.section<name = "out", repeat = 3, {{.+}}>], llm.workload = #llm.workload<decode, batch = 1, tokens = 64>, tp = 1 : i64} {
// CHECK-NEXT:    df.tensor @kv_cache : tensor<1x1x64x64xbf16> in hbm kv_cache
// CHECK-NEXT:    df.tensor @tokens : tensor<64xbf16> in sram
// CHECK-NEXT:    df.tensor @wq : tensor<1x64x64xbf16> in hbm
// CHECK-NEXT:    df.tensor @wk : tensor<1x32x64xbf16> in hbm
// CHECK-NEXT:    df.tensor @wv : tensor<1x32x64xbf16> in ddr
// CHECK-NEXT:    df.tensor @[[HOME:act[0-9]+]] : tensor<64xbf16> in sram
// CHECK-NEXT:    df.tensor @wo : tensor<1x64x64xbf16> in hbm
// CHECK-NEXT:    df.tensor @[[OUT:act[0-9]+]] : tensor<64xbf16> in sram
// CHECK-NEXT:    df.section @attn {
// CHECK-NEXT:      %[[X:.+]] = df.load @tokens tiles 1 for qkv_projection : !df.stream<tensor<64xbf16>, 2>
// CHECK-NEXT:      %[[WQ:.+]] = df.load @wq tiles 2 for qkv_projection {agcus = 2 : i64} : !df.stream<tensor<1x32x64xbf16>, 2>
// CHECK-NEXT:      %[[Q:.+]] = df.stage gemm for qkv_projection(%[[X]], %[[WQ]]) {flops_per_tile = 4096 : i64, output_tiles = array<i64: 2>, pcus = 1 : i64, rows = 1 : i64, tiles = 2 : i64}
// CHECK:           %[[KV:.+]] = df.load @kv_cache tiles 2 for attention {agcus = 2 : i64} : !df.stream<tensor<1x1x32x64xbf16>, 2>
// CHECK-NEXT:      %[[A:.+]]:2 = df.stage gemm for attention(%[[Q]], %{{.+}}, %{{.+}}, %[[KV]]) {flops_per_tile = 8832 : i64, output_tiles = array<i64: 2, 1>, pcus = 1 : i64, rows = 2 : i64, tiles = 2 : i64}
// CHECK-NEXT:      df.store %[[A]]#0 to @[[HOME]] for attention
// CHECK-NEXT:      df.store %[[A]]#1 to @kv_cache for attention : !df.stream<tensor<1x1x1x64xbf16>, 2>
// CHECK-NEXT:    }
// CHECK-NEXT:    df.section @out repeat 3 {
// CHECK-NEXT:      %[[O:.+]] = df.load @[[HOME]] tiles 1 for output_projection
// CHECK-NEXT:      %[[WO:.+]] = df.load @wo tiles 2 for output_projection {agcus = 2 : i64}
// CHECK-NEXT:      %[[Y:.+]] = df.stage gemm for output_projection(%[[O]], %[[WO]]) {flops_per_tile = 4096 : i64, output_tiles = array<i64: 2>, pcus = 4 : i64, rows = 1 : i64, tiles = 2 : i64}
// CHECK-NEXT:      df.store %[[Y]] to @[[OUT]] for output_projection
// CHECK-NEXT:    }
!c = !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny">, llm.tp = 1 : i64} {
func.func @decode(%x: tensor<1x1x64xbf16>, %c: !c) -> (tensor<1x1x64xbf16>, !c) attributes {llm.workload = #llm.workload<decode, batch = 1, tokens = 64>, df.sections = [#df.section<name = "attn", repeat = 1, stages = 4, pcus = 4, pmus = 16, agcus = 2, oversubscribed = 4.0>, #df.section<name = "out", repeat = 3, stages = 1, pcus = 4, pmus = 5, agcus = 2, oversubscribed = 1.25>], df.memory_plan = #df.memory_plan<weights_bytes = 24576, kv_bytes = 8192, activation_bytes = 256, sram_bytes = 256, hbm_bytes = 32768, ddr_bytes = 0, max_batch = 100>} {
  %wq = llm.param @wq {df.section = 0 : i64, df.placement = #df.placement<hbm>} : tensor<64x64xbf16>
  %wk = llm.param @wk {df.section = 0 : i64, df.placement = #df.placement<hbm>} : tensor<32x64xbf16>
  %wv = llm.param @wv {df.section = 0 : i64, df.placement = #df.placement<ddr>} : tensor<32x64xbf16>
  %q = llm.linear %x, %wq {df.section = 0 : i64, df.stage = #df.stage<gemm, tiles = 2, tile_bytes = 4096, pcus = 1, pmus = 4, agcus = 2>, df.placement = #df.placement<sram, live = [4, 7]>} : tensor<1x1x64xbf16>, tensor<64x64xbf16> -> tensor<1x1x64xbf16>
  %k = llm.linear %x, %wk {df.section = 0 : i64, df.stage = #df.stage<gemm, tiles = 1, tile_bytes = 4096, pcus = 1, pmus = 4, agcus = 1>, df.placement = #df.placement<sram, live = [5, 7]>} : tensor<1x1x64xbf16>, tensor<32x64xbf16> -> tensor<1x1x32xbf16>
  %v = llm.linear %x, %wv {df.section = 0 : i64, df.stage = #df.stage<gemm, tiles = 1, tile_bytes = 4096, pcus = 1, pmus = 4, agcus = 1>, df.placement = #df.placement<sram, live = [6, 7]>} : tensor<1x1x64xbf16>, tensor<32x64xbf16> -> tensor<1x1x32xbf16>
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase decode>, df.section = 0 : i64, df.stage = #df.stage<gemm, tiles = 2, tile_bytes = 4096, pcus = 1, pmus = 4, agcus = 2>, df.placement = #df.placement<sram, live = [7, 8]>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !c -> tensor<1x1x64xbf16>
  %wo = llm.param @wo {df.section = 1 : i64, df.placement = #df.placement<hbm>} : tensor<64x64xbf16>
  %y = llm.linear %o, %wo {df.section = 1 : i64, df.stage = #df.stage<gemm, tiles = 2, tile_bytes = 4096, pcus = 4, pmus = 5, agcus = 2>, df.placement = #df.placement<sram, live = [9, 10]>} : tensor<1x1x64xbf16>, tensor<64x64xbf16> -> tensor<1x1x64xbf16>
  return {df.section = 1 : i64} %y, %c1 : tensor<1x1x64xbf16>, !c
}
}

// -----

// Tests that a layer loop cut into kernels (tile-and-map's sections of one
// loop) becomes consecutive sections naming the loop: each iteration calls
// the norm's kernel, then the residual's; the norm's result crosses through
// a home, and both read the loop's carry, which the last kernel writes.
// CHECK-LABEL: df.program @decode
// CHECK:         df.tensor @[[CARRY:"0_carry0"]] : tensor<64xbf16> in sram
// CHECK:         df.tensor @[[HOME:act[0-9]+]] : tensor<64xbf16> in sram
// CHECK-NEXT:    df.section @layers_0_1 repeat 2 in "layers_0_1" {
// CHECK-NEXT:      df.load @[[CARRY]] tiles 1 for norm
// CHECK-NEXT:      df.load @model.layers.0.norm tiles 1 for norm
// CHECK-NEXT:      %[[N:.+]] = df.stage norm for norm
// CHECK-NEXT:      df.store %[[N]] to @[[HOME]] for norm
// CHECK-NEXT:    }
// CHECK-NEXT:    df.section @layers_0_1_b repeat 2 in "layers_0_1" {
// CHECK-NEXT:      df.load @[[HOME]] tiles 1 for residual
// CHECK-NEXT:      df.load @[[CARRY]] tiles 1 for residual
// CHECK-NEXT:      %[[S:.+]] = df.stage elementwise for residual
// CHECK-NEXT:      df.store %[[S]] to @[[CARRY]] for residual
// CHECK-NEXT:    }
module attributes {df.target = #df.target<"tiny">, llm.tp = 1 : i64} {
func.func @decode(%x: tensor<1x1x64xbf16>) -> tensor<1x1x64xbf16> attributes {llm.workload = #llm.workload<decode, batch = 1, tokens = 64>, df.sections = [#df.section<name = "layers_0_1", repeat = 2, stages = 1, pcus = 1, pmus = 3, agcus = 1, loop = "layers_0_1">, #df.section<name = "layers_0_1_b", repeat = 2, stages = 1, pcus = 1, pmus = 3, agcus = 0, loop = "layers_0_1">], df.memory_plan = #df.memory_plan<weights_bytes = 256, kv_bytes = 0, activation_bytes = 256, sram_bytes = 256, hbm_bytes = 256, ddr_bytes = 0, max_batch = 100>} {
  %r = llm.repeat 2 layers from 0 (%x) : (tensor<1x1x64xbf16>) -> tensor<1x1x64xbf16> {
  ^bb0(%h: tensor<1x1x64xbf16>):
    %g = llm.param @model.layers.0.norm {df.section = 0 : i64, df.placement = #df.placement<hbm>} : tensor<64xbf16>
    %n = llm.rms_norm %h, %g {eps = 1.0e-05 : f64, df.section = 0 : i64, df.stage = #df.stage<norm, tiles = 1, tile_bytes = 128, pcus = 1, pmus = 3, agcus = 1>, df.placement = #df.placement<sram, live = [1, 2]>} : tensor<1x1x64xbf16>, tensor<64xbf16>
    %s = llm.add %n, %h {df.section = 1 : i64, df.stage = #df.stage<elementwise, tiles = 1, tile_bytes = 0, pcus = 1, pmus = 3, agcus = 0>, df.placement = #df.placement<sram, live = [2, 3]>} : tensor<1x1x64xbf16>
    llm.yield %s : tensor<1x1x64xbf16> {df.section = 1 : i64}
  }
  return {df.section = 1 : i64} %r : tensor<1x1x64xbf16>
}
}

// -----

// Tests that every stage of a mapped function needs its #df.stage.
module attributes {df.target = #df.target<"tiny">} {
func.func @decode(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> attributes {df.sections = [#df.section<name = "s", repeat = 1, stages = 1, pcus = 1, pmus = 3, agcus = 0>]} {
  // expected-error @+1 {{'llm.add' op has no df.stage; run --tile-and-map first}}
  %a = llm.add %x, %x {df.section = 0 : i64} : tensor<1x1x8xbf16>
  return {df.section = 0 : i64} %a : tensor<1x1x8xbf16>
}
}

// -----

// Tests that a function needs its sections.
module attributes {df.target = #df.target<"tiny">} {
// expected-error @+1 {{'func.func' op has no df.sections; run --tile-and-map first}}
func.func @decode(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  return %x : tensor<1x1x8xbf16>
}
}

// -----

// Tests that an op's section is one of the function's sections.
module attributes {df.target = #df.target<"tiny">} {
// expected-error @+1 {{'func.func' op df.section 3 is not one of its 1 df.sections}}
func.func @decode(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> attributes {df.sections = [#df.section<name = "s", repeat = 1, stages = 1, pcus = 1, pmus = 3, agcus = 0>]} {
  %a = llm.add %x, %x {df.section = 3 : i64, df.stage = #df.stage<elementwise, tiles = 1, tile_bytes = 0, pcus = 1, pmus = 3, agcus = 0>} : tensor<1x1x8xbf16>
  return {df.section = 3 : i64} %a : tensor<1x1x8xbf16>
}
}

// -----

// Tests that the target chip comes from the module.
// expected-error @+1 {{lower-to-df: the module has no df.target; run --assign-target, --tile-and-map and --plan-memory first}}
module {
}
