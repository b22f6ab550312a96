// RUN: snapflow-opt %s -split-input-file --tile-and-map -verify-diagnostics | FileCheck %s
// RUN: snapflow-opt %s -split-input-file --tile-and-map="max-tiles=2" -verify-diagnostics | FileCheck %s --check-prefix=MAX2

// Every case runs on tiny-64k, the tiny chip (arch/chips/tiny.yaml) with 64
// KiB PMUs written out in full: 4 PCUs of 64
// systolic / 16 SIMD FLOP per cycle, 4 PMUs of 64 KiB, 2 AGCUs, HBM at
// 64 GB/s; its ridge point is 4 x 64 x 1e9 / 6.4e10 = 4 FLOP per byte.

// Tests that one run of ops is one section whose PCUs are shared by compute
// time and whose AGCUs go to the memory-bound stages.
// linear: 2 x 2 x 64 x 256 = 65536 FLOP on 1024 systolic cycles; it streams
//   its 32768-byte weight in one tile (tiles hold at least 64 KiB); 2 FLOP
//   per byte is below the ridge, so it may use both AGCUs.
// rms_norm: 4 x 512 = 2048 FLOP, 128 SIMD cycles; streams its 512-byte
//   weight at 4 FLOP per byte, the ridge: compute-bound, its share of 1.
// add: 512 FLOP, 32 cycles, streams nothing, no AGCU.
// PCUs: one each, and the one left over goes to the largest share of the
// 1184 cycles (linear, 1024/1184 = 0.86 of it): 2, 1, 1.
// PMUs: two per tile (double buffering) plus one per operand and result:
// 2 + 3, 2 + 3, 0 + 3 = 13 > 4, so the section is oversubscribed 13 / 4.
// CHECK-LABEL: func.func @decode(
// CHECK-SAME:    df.sections = [#df.section<name = "part_0", repeat = 1, stages = 3, pcus = 4, pmus = 13, agcus = 2, oversubscribed = 3.250000e+00>]
// CHECK:         llm.param @w {df.section = 0 : i64}
// CHECK:         llm.linear {{.+}}df.stage = #df.stage<gemm, tiles = 1, tile_bytes = 32768, pcus = 2, pmus = 5, agcus = 2>
// CHECK:         llm.rms_norm {{.+}}df.stage = #df.stage<norm, tiles = 1, tile_bytes = 512, pcus = 1, pmus = 5, agcus = 1>
// CHECK:         llm.add {{.+}}df.stage = #df.stage<elementwise, tiles = 1, tile_bytes = 0, pcus = 1, pmus = 3, agcus = 0>
// CHECK:         return {df.section = 0 : i64}
module attributes {df.target = #df.target<"tiny-64k", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 2 : i64, clock_hz = 1.000000e+09 : f64, compute_static_w = 1.000000e+01 : f64, ddr_bytes = 4294967296 : i64, ddr_bytes_per_s = 1.600000e+10 : f64, ddr_channels = 1 : i64, ddr_latency_cycles = 200 : i64, ddr_pj_per_bit = 2.000000e+01 : f64, ddr_static_w = 2.000000e+00 : f64, hbm_bytes = 1073741824 : i64, hbm_bytes_per_s = 6.400000e+10 : f64, hbm_channels = 2 : i64, hbm_latency_cycles = 100 : i64, hbm_pj_per_bit = 1.000000e+01 : f64, hbm_static_w = 1.000000e+00 : f64, kernel_launch_cycles = 0 : i64, mesh_cols = 3 : i64, mesh_rows = 3 : i64, noc_hop_latency_cycles = 1 : i64, noc_pj_per_bit_hop = 5.000000e-01 : f64, noc_stream_bytes_per_cycle = 64 : i64, pcu_count = 4 : i64, pcu_lanes = 8 : i64, pcu_pipeline_fill_cycles = 10 : i64, pcu_simd_flops_per_cycle = 16 : i64, pcu_simd_pj_per_flop = 2.000000e+00 : f64, pcu_systolic_flops_per_cycle = 64 : i64, pcu_systolic_pj_per_flop = 1.000000e+00 : f64, pmu_banks = 4 : i64, pmu_bytes_per_cycle = 64 : i64, pmu_count = 4 : i64, reconfig_cycles = 1000 : i64, sram_bytes_per_pmu = 65536 : i64, sram_read_pj_per_bit = 1.000000e+00 : f64, sram_write_pj_per_bit = 2.000000e+00 : f64}, system = {collective_algorithm = "ring", collective_launch_ns = 0.0 : f64, host_w = 5.000000e+01 : f64, link_bytes_per_s = 3.2e10 : f64, link_latency_ns = 1000.0 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 1.0e9 : f64, node_link_latency_ns = 1000.0 : f64, node_link_pj_per_bit = 1.000000e+01 : f64, node_links = 1 : i64, sockets = 4 : i64, topology = "ring", wall_power_factor = 1.250000e+00 : f64}>} {
func.func @decode(%x: tensor<1x2x64xbf16>) -> tensor<1x2x256xbf16> {
  %w = llm.param @w : tensor<256x64xbf16>
  %y = llm.linear %x, %w : tensor<1x2x64xbf16>, tensor<256x64xbf16> -> tensor<1x2x256xbf16>
  %g = llm.param @g : tensor<256xbf16>
  %n = llm.rms_norm %y, %g {eps = 1.0e-05 : f64} : tensor<1x2x256xbf16>, tensor<256xbf16>
  %s = llm.add %n, %y : tensor<1x2x256xbf16>
  return %s : tensor<1x2x256xbf16>
}
}

// -----

// Tests that a layer loop is a section of its own, repeated, between the
// runs of ops before and after it, and that every op knows its section.
// CHECK-LABEL: func.func @loop(
// CHECK-SAME:    df.sections = [#df.section<name = "part_0", repeat = 1, stages = 1, {{.+}}>, #df.section<name = "layers_3_4", repeat = 2, stages = 1, {{.+}}>, #df.section<name = "part_2", repeat = 1, stages = 1, {{.+}}>]
// CHECK:         llm.add {{.+}}df.section = 0 : i64
// CHECK:         llm.repeat 2 layers from 3
// CHECK:           llm.rms_norm {{.+}}df.section = 1 : i64
// CHECK:           llm.yield {{.+}}df.section = 1 : i64
// CHECK:         llm.add {{.+}}df.section = 2 : i64
module attributes {df.target = #df.target<"tiny-64k", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 2 : i64, clock_hz = 1.000000e+09 : f64, compute_static_w = 1.000000e+01 : f64, ddr_bytes = 4294967296 : i64, ddr_bytes_per_s = 1.600000e+10 : f64, ddr_channels = 1 : i64, ddr_latency_cycles = 200 : i64, ddr_pj_per_bit = 2.000000e+01 : f64, ddr_static_w = 2.000000e+00 : f64, hbm_bytes = 1073741824 : i64, hbm_bytes_per_s = 6.400000e+10 : f64, hbm_channels = 2 : i64, hbm_latency_cycles = 100 : i64, hbm_pj_per_bit = 1.000000e+01 : f64, hbm_static_w = 1.000000e+00 : f64, kernel_launch_cycles = 0 : i64, mesh_cols = 3 : i64, mesh_rows = 3 : i64, noc_hop_latency_cycles = 1 : i64, noc_pj_per_bit_hop = 5.000000e-01 : f64, noc_stream_bytes_per_cycle = 64 : i64, pcu_count = 4 : i64, pcu_lanes = 8 : i64, pcu_pipeline_fill_cycles = 10 : i64, pcu_simd_flops_per_cycle = 16 : i64, pcu_simd_pj_per_flop = 2.000000e+00 : f64, pcu_systolic_flops_per_cycle = 64 : i64, pcu_systolic_pj_per_flop = 1.000000e+00 : f64, pmu_banks = 4 : i64, pmu_bytes_per_cycle = 64 : i64, pmu_count = 4 : i64, reconfig_cycles = 1000 : i64, sram_bytes_per_pmu = 65536 : i64, sram_read_pj_per_bit = 1.000000e+00 : f64, sram_write_pj_per_bit = 2.000000e+00 : f64}, system = {collective_algorithm = "ring", collective_launch_ns = 0.0 : f64, host_w = 5.000000e+01 : f64, link_bytes_per_s = 3.2e10 : f64, link_latency_ns = 1000.0 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 1.0e9 : f64, node_link_latency_ns = 1000.0 : f64, node_link_pj_per_bit = 1.000000e+01 : f64, node_links = 1 : i64, sockets = 4 : i64, topology = "ring", wall_power_factor = 1.250000e+00 : f64}>} {
func.func @loop(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %a = llm.add %x, %x : tensor<1x1x8xbf16>
  %r = llm.repeat 2 layers from 3 (%a) : (tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  ^bb0(%h: tensor<1x1x8xbf16>):
    %g = llm.param @model.layers.3.norm : tensor<8xbf16>
    %n = llm.rms_norm %h, %g {eps = 1.0e-05 : f64} : tensor<1x1x8xbf16>, tensor<8xbf16>
    llm.yield %n : tensor<1x1x8xbf16>
  }
  %b = llm.add %r, %r : tensor<1x1x8xbf16>
  return %b : tensor<1x1x8xbf16>
}
}

// -----

// Tests that an op reading memory at addresses computed in the same step
// starts a kernel: the routed experts (the router's choice) cut the layer
// loop's body in two, attention and router then experts, two sections of
// one loop with its count; outside a loop the cut makes a new part.
// CHECK-LABEL: func.func @moe_loop(
// CHECK-SAME:    df.sections = [#df.section<name = "layers_1_2", repeat = 2, stages = 2, {{.+}}, loop = "layers_1_2">, #df.section<name = "layers_1_2_experts", repeat = 2, stages = 2, {{.+}}, loop = "layers_1_2">, #df.section<name = "part_2", repeat = 1, stages = 1, {{.+}}>, #df.section<name = "part_3", repeat = 1, stages = 1, {{.+}}>]
// CHECK:           llm.rms_norm {{.+}}df.section = 0 : i64
// CHECK:           llm.route {{.+}}df.section = 0 : i64
// CHECK:           llm.moe {{.+}}df.section = 1 : i64
// CHECK:           llm.add {{.+}}df.section = 1 : i64
// CHECK:         llm.route {{.+}}df.section = 2 : i64
// CHECK:         llm.moe {{.+}}df.section = 3 : i64
module attributes {df.target = #df.target<"tiny-64k", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 2 : i64, clock_hz = 1.000000e+09 : f64, compute_static_w = 1.000000e+01 : f64, ddr_bytes = 4294967296 : i64, ddr_bytes_per_s = 1.600000e+10 : f64, ddr_channels = 1 : i64, ddr_latency_cycles = 200 : i64, ddr_pj_per_bit = 2.000000e+01 : f64, ddr_static_w = 2.000000e+00 : f64, hbm_bytes = 1073741824 : i64, hbm_bytes_per_s = 6.400000e+10 : f64, hbm_channels = 2 : i64, hbm_latency_cycles = 100 : i64, hbm_pj_per_bit = 1.000000e+01 : f64, hbm_static_w = 1.000000e+00 : f64, kernel_launch_cycles = 0 : i64, mesh_cols = 3 : i64, mesh_rows = 3 : i64, noc_hop_latency_cycles = 1 : i64, noc_pj_per_bit_hop = 5.000000e-01 : f64, noc_stream_bytes_per_cycle = 64 : i64, pcu_count = 4 : i64, pcu_lanes = 8 : i64, pcu_pipeline_fill_cycles = 10 : i64, pcu_simd_flops_per_cycle = 16 : i64, pcu_simd_pj_per_flop = 2.000000e+00 : f64, pcu_systolic_flops_per_cycle = 64 : i64, pcu_systolic_pj_per_flop = 1.000000e+00 : f64, pmu_banks = 4 : i64, pmu_bytes_per_cycle = 64 : i64, pmu_count = 4 : i64, reconfig_cycles = 1000 : i64, sram_bytes_per_pmu = 65536 : i64, sram_read_pj_per_bit = 1.000000e+00 : f64, sram_write_pj_per_bit = 2.000000e+00 : f64}, system = {collective_algorithm = "ring", collective_launch_ns = 0.0 : f64, host_w = 5.000000e+01 : f64, link_bytes_per_s = 3.2e10 : f64, link_latency_ns = 1000.0 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 1.0e9 : f64, node_link_latency_ns = 1000.0 : f64, node_link_pj_per_bit = 1.000000e+01 : f64, node_links = 1 : i64, sockets = 4 : i64, topology = "ring", wall_power_factor = 1.250000e+00 : f64}>} {
func.func @moe_loop(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %r = llm.repeat 2 layers from 1 (%x) : (tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  ^bb0(%h: tensor<1x1x8xbf16>):
    %g = llm.param @model.layers.1.norm : tensor<8xbf16>
    %n = llm.rms_norm %h, %g {eps = 1.0e-05 : f64} : tensor<1x1x8xbf16>, tensor<8xbf16>
    %w = llm.param @model.layers.1.router : tensor<4x8xbf16>
    %e = llm.route %n, %w {top_k = 2} : tensor<1x1x8xbf16>, tensor<4x8xbf16> -> tensor<1x1x2xi32>
    %gate = llm.param @model.layers.1.gate : tensor<4x4x8xbf16>
    %up = llm.param @model.layers.1.up : tensor<4x4x8xbf16>
    %down = llm.param @model.layers.1.down : tensor<4x8x4xbf16>
    %y = llm.moe %n, %e, %gate, %up, %down {num_experts = 4, top_k = 2} : tensor<1x1x8xbf16>, tensor<1x1x2xi32>, tensor<4x4x8xbf16>, tensor<4x4x8xbf16>, tensor<4x8x4xbf16>
    %s = llm.add %y, %h : tensor<1x1x8xbf16>
    llm.yield %s : tensor<1x1x8xbf16>
  }
  %w2 = llm.param @router : tensor<4x8xbf16>
  %e2 = llm.route %r, %w2 {top_k = 2} : tensor<1x1x8xbf16>, tensor<4x8xbf16> -> tensor<1x1x2xi32>
  %g2 = llm.param @gate : tensor<4x4x8xbf16>
  %u2 = llm.param @up : tensor<4x4x8xbf16>
  %d2 = llm.param @down : tensor<4x8x4xbf16>
  %y2 = llm.moe %r, %e2, %g2, %u2, %d2 {num_experts = 4, top_k = 2} : tensor<1x1x8xbf16>, tensor<1x1x2xi32>, tensor<4x4x8xbf16>, tensor<4x4x8xbf16>, tensor<4x8x4xbf16>
  return %y2 : tensor<1x1x8xbf16>
}
}

// -----

// Tests that a body of two layers (2 layers per iteration) cuts twice for
// the same reason, and the kernels keep distinct names: the second
// layer's experts are `experts_2` (before: a redefinition of the symbol
// layers_0_3_experts in lower-to-df).
// CHECK-LABEL: func.func @moe_pairs(
// CHECK-SAME:    df.sections = [#df.section<name = "layers_0_3", {{[^>]+}}, loop = "layers_0_3">, #df.section<name = "layers_0_3_experts", {{[^>]+}}, loop = "layers_0_3">, #df.section<name = "layers_0_3_experts_2", {{[^>]+}}, loop = "layers_0_3">, #df.section<name = "part_3"
module attributes {df.target = #df.target<"tiny-64k", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 2 : i64, clock_hz = 1.000000e+09 : f64, compute_static_w = 1.000000e+01 : f64, ddr_bytes = 4294967296 : i64, ddr_bytes_per_s = 1.600000e+10 : f64, ddr_channels = 1 : i64, ddr_latency_cycles = 200 : i64, ddr_pj_per_bit = 2.000000e+01 : f64, ddr_static_w = 2.000000e+00 : f64, hbm_bytes = 1073741824 : i64, hbm_bytes_per_s = 6.400000e+10 : f64, hbm_channels = 2 : i64, hbm_latency_cycles = 100 : i64, hbm_pj_per_bit = 1.000000e+01 : f64, hbm_static_w = 1.000000e+00 : f64, kernel_launch_cycles = 0 : i64, mesh_cols = 3 : i64, mesh_rows = 3 : i64, noc_hop_latency_cycles = 1 : i64, noc_pj_per_bit_hop = 5.000000e-01 : f64, noc_stream_bytes_per_cycle = 64 : i64, pcu_count = 4 : i64, pcu_lanes = 8 : i64, pcu_pipeline_fill_cycles = 10 : i64, pcu_simd_flops_per_cycle = 16 : i64, pcu_simd_pj_per_flop = 2.000000e+00 : f64, pcu_systolic_flops_per_cycle = 64 : i64, pcu_systolic_pj_per_flop = 1.000000e+00 : f64, pmu_banks = 4 : i64, pmu_bytes_per_cycle = 64 : i64, pmu_count = 4 : i64, reconfig_cycles = 1000 : i64, sram_bytes_per_pmu = 65536 : i64, sram_read_pj_per_bit = 1.000000e+00 : f64, sram_write_pj_per_bit = 2.000000e+00 : f64}, system = {collective_algorithm = "ring", collective_launch_ns = 0.0 : f64, host_w = 5.000000e+01 : f64, link_bytes_per_s = 3.2e10 : f64, link_latency_ns = 1000.0 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 1.0e9 : f64, node_link_latency_ns = 1000.0 : f64, node_link_pj_per_bit = 1.000000e+01 : f64, node_links = 1 : i64, sockets = 4 : i64, topology = "ring", wall_power_factor = 1.250000e+00 : f64}>} {
func.func @moe_pairs(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %r = llm.repeat 2 x 2 layers from 0 (%x) : (tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  ^bb0(%h: tensor<1x1x8xbf16>):
    %w = llm.param @model.layers.0.router : tensor<4x8xbf16>
    %gate = llm.param @model.layers.0.gate : tensor<4x4x8xbf16>
    %up = llm.param @model.layers.0.up : tensor<4x4x8xbf16>
    %down = llm.param @model.layers.0.down : tensor<4x8x4xbf16>
    %e = llm.route %h, %w {top_k = 2} : tensor<1x1x8xbf16>, tensor<4x8xbf16> -> tensor<1x1x2xi32>
    %y = llm.moe %h, %e, %gate, %up, %down {num_experts = 4, top_k = 2} : tensor<1x1x8xbf16>, tensor<1x1x2xi32>, tensor<4x4x8xbf16>, tensor<4x4x8xbf16>, tensor<4x8x4xbf16>
    %w1 = llm.param @model.layers.1.router : tensor<4x8xbf16>
    %gate1 = llm.param @model.layers.1.gate : tensor<4x4x8xbf16>
    %up1 = llm.param @model.layers.1.up : tensor<4x4x8xbf16>
    %down1 = llm.param @model.layers.1.down : tensor<4x8x4xbf16>
    %e1 = llm.route %y, %w1 {top_k = 2} : tensor<1x1x8xbf16>, tensor<4x8xbf16> -> tensor<1x1x2xi32>
    %y1 = llm.moe %y, %e1, %gate1, %up1, %down1 {num_experts = 4, top_k = 2} : tensor<1x1x8xbf16>, tensor<1x1x2xi32>, tensor<4x4x8xbf16>, tensor<4x4x8xbf16>, tensor<4x8x4xbf16>
    llm.yield %y1 : tensor<1x1x8xbf16>
  }
  return %r : tensor<1x1x8xbf16>
}
}

// -----

// Tests that PCUs go by the cycles a stage takes on one PCU: its compute and
// the crossing of what it writes over the network (64 B a cycle a lane).
// linear: 2 x 2 x 64 x 512 = 131072 FLOPs; its 2 rows fill 2/4 of the 8 x 4
//   array, 32 FLOPs a cycle: 4096 cycles; it writes 2 x 512 x 2 B = 2048 B,
//   32 cycles: 4128.
// add: 2048 x 64 = 131072 f32 elements, 16 a cycle: 8192; it writes
//   524288 B, 8192 cycles: 16384.
// Of 4 PCUs each gets 1, the other 2 go by 4128 : 16384, 0.40 : 1.60: the
// add 1, then the larger remainder (0.60, the add's) 1 more: 1 and 3. By
// compute alone, 4096 : 8192, 0.67 : 1.33, they were 2 and 2, and the add
// pushed 512 KiB over 2 lanes.
// CHECK-LABEL: func.func @crossing(
// CHECK:         llm.linear {{.+}}df.stage = #df.stage<gemm, {{.+}}pcus = 1,
// CHECK:         llm.add {{.+}}df.stage = #df.stage<elementwise, {{.+}}pcus = 3,
module attributes {df.target = #df.target<"tiny-64k", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 2 : i64, clock_hz = 1.000000e+09 : f64, compute_static_w = 1.000000e+01 : f64, ddr_bytes = 4294967296 : i64, ddr_bytes_per_s = 1.600000e+10 : f64, ddr_channels = 1 : i64, ddr_latency_cycles = 200 : i64, ddr_pj_per_bit = 2.000000e+01 : f64, ddr_static_w = 2.000000e+00 : f64, hbm_bytes = 1073741824 : i64, hbm_bytes_per_s = 6.400000e+10 : f64, hbm_channels = 2 : i64, hbm_latency_cycles = 100 : i64, hbm_pj_per_bit = 1.000000e+01 : f64, hbm_static_w = 1.000000e+00 : f64, kernel_launch_cycles = 0 : i64, mesh_cols = 3 : i64, mesh_rows = 3 : i64, noc_hop_latency_cycles = 1 : i64, noc_pj_per_bit_hop = 5.000000e-01 : f64, noc_stream_bytes_per_cycle = 64 : i64, pcu_count = 4 : i64, pcu_lanes = 8 : i64, pcu_pipeline_fill_cycles = 10 : i64, pcu_simd_flops_per_cycle = 16 : i64, pcu_simd_pj_per_flop = 2.000000e+00 : f64, pcu_systolic_flops_per_cycle = 64 : i64, pcu_systolic_pj_per_flop = 1.000000e+00 : f64, pmu_banks = 4 : i64, pmu_bytes_per_cycle = 64 : i64, pmu_count = 4 : i64, reconfig_cycles = 1000 : i64, sram_bytes_per_pmu = 65536 : i64, sram_read_pj_per_bit = 1.000000e+00 : f64, sram_write_pj_per_bit = 2.000000e+00 : f64}, system = {collective_algorithm = "ring", collective_launch_ns = 0.0 : f64, host_w = 5.000000e+01 : f64, link_bytes_per_s = 3.2e10 : f64, link_latency_ns = 1000.0 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 1.0e9 : f64, node_link_latency_ns = 1000.0 : f64, node_link_pj_per_bit = 1.000000e+01 : f64, node_links = 1 : i64, sockets = 4 : i64, topology = "ring", wall_power_factor = 1.250000e+00 : f64}>} {
func.func @crossing(%x: tensor<1x2x64xbf16>, %b: tensor<1x2048x64xf32>) -> (tensor<1x2x512xbf16>, tensor<1x2048x64xf32>) {
  %w = llm.param @w : tensor<512x64xbf16>
  %y = llm.linear %x, %w : tensor<1x2x64xbf16>, tensor<512x64xbf16> -> tensor<1x2x512xbf16>
  %s = llm.add %b, %b : tensor<1x2048x64xf32>
  return %y, %s : tensor<1x2x512xbf16>, tensor<1x2048x64xf32>
}
}

// -----

// Tests that a weight larger than a tile streams in tiles of at least 64 KiB
// and at most max-tiles of them: 512 x 256 bf16 = 262144 B is 4 tiles of
// 65536 by default, and 2 of 131072 with max-tiles = 2. One stage takes all
// 4 PCUs; 2 x 1 + 3 = 5 PMUs (2 x 2 + 3 = 7 with the larger tiles).
// CHECK-LABEL: func.func @big(
// CHECK:         llm.linear {{.+}}df.stage = #df.stage<gemm, tiles = 4, tile_bytes = 65536, pcus = 4, pmus = 5, agcus = 2>
// MAX2-LABEL:  func.func @big(
// MAX2:          llm.linear {{.+}}df.stage = #df.stage<gemm, tiles = 2, tile_bytes = 131072, pcus = 4, pmus = 7, agcus = 2>
module attributes {df.target = #df.target<"tiny-64k", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 2 : i64, clock_hz = 1.000000e+09 : f64, compute_static_w = 1.000000e+01 : f64, ddr_bytes = 4294967296 : i64, ddr_bytes_per_s = 1.600000e+10 : f64, ddr_channels = 1 : i64, ddr_latency_cycles = 200 : i64, ddr_pj_per_bit = 2.000000e+01 : f64, ddr_static_w = 2.000000e+00 : f64, hbm_bytes = 1073741824 : i64, hbm_bytes_per_s = 6.400000e+10 : f64, hbm_channels = 2 : i64, hbm_latency_cycles = 100 : i64, hbm_pj_per_bit = 1.000000e+01 : f64, hbm_static_w = 1.000000e+00 : f64, kernel_launch_cycles = 0 : i64, mesh_cols = 3 : i64, mesh_rows = 3 : i64, noc_hop_latency_cycles = 1 : i64, noc_pj_per_bit_hop = 5.000000e-01 : f64, noc_stream_bytes_per_cycle = 64 : i64, pcu_count = 4 : i64, pcu_lanes = 8 : i64, pcu_pipeline_fill_cycles = 10 : i64, pcu_simd_flops_per_cycle = 16 : i64, pcu_simd_pj_per_flop = 2.000000e+00 : f64, pcu_systolic_flops_per_cycle = 64 : i64, pcu_systolic_pj_per_flop = 1.000000e+00 : f64, pmu_banks = 4 : i64, pmu_bytes_per_cycle = 64 : i64, pmu_count = 4 : i64, reconfig_cycles = 1000 : i64, sram_bytes_per_pmu = 65536 : i64, sram_read_pj_per_bit = 1.000000e+00 : f64, sram_write_pj_per_bit = 2.000000e+00 : f64}, system = {collective_algorithm = "ring", collective_launch_ns = 0.0 : f64, host_w = 5.000000e+01 : f64, link_bytes_per_s = 3.2e10 : f64, link_latency_ns = 1000.0 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 1.0e9 : f64, node_link_latency_ns = 1000.0 : f64, node_link_pj_per_bit = 1.000000e+01 : f64, node_links = 1 : i64, sockets = 4 : i64, topology = "ring", wall_power_factor = 1.250000e+00 : f64}>} {
func.func @big(%x: tensor<1x1x256xbf16>) -> tensor<1x1x512xbf16> {
  %w = llm.param @w : tensor<512x256xbf16>
  %y = llm.linear %x, %w : tensor<1x1x256xbf16>, tensor<512x256xbf16> -> tensor<1x1x512xbf16>
  return %y : tensor<1x1x512xbf16>
}
}

// -----

// Tests that the chip comes from the module, and only from there.
// expected-error @+1 {{tile-and-map: the module has no df.target; run --assign-target{chip=...} first}}
module {
func.func @f(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %a = llm.add %x, %x : tensor<1x1x8xbf16>
  return %a : tensor<1x1x8xbf16>
}
}

// A bad option is an error.
// RUN: echo 'module attributes {df.target = #df.target<"tiny-64k", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 2 : i64, clock_hz = 1.000000e+09 : f64, compute_static_w = 1.000000e+01 : f64, ddr_bytes = 4294967296 : i64, ddr_bytes_per_s = 1.600000e+10 : f64, ddr_channels = 1 : i64, ddr_latency_cycles = 200 : i64, ddr_pj_per_bit = 2.000000e+01 : f64, ddr_static_w = 2.000000e+00 : f64, hbm_bytes = 1073741824 : i64, hbm_bytes_per_s = 6.400000e+10 : f64, hbm_channels = 2 : i64, hbm_latency_cycles = 100 : i64, hbm_pj_per_bit = 1.000000e+01 : f64, hbm_static_w = 1.000000e+00 : f64, kernel_launch_cycles = 0 : i64, mesh_cols = 3 : i64, mesh_rows = 3 : i64, noc_hop_latency_cycles = 1 : i64, noc_pj_per_bit_hop = 5.000000e-01 : f64, noc_stream_bytes_per_cycle = 64 : i64, pcu_count = 4 : i64, pcu_lanes = 8 : i64, pcu_pipeline_fill_cycles = 10 : i64, pcu_simd_flops_per_cycle = 16 : i64, pcu_simd_pj_per_flop = 2.000000e+00 : f64, pcu_systolic_flops_per_cycle = 64 : i64, pcu_systolic_pj_per_flop = 1.000000e+00 : f64, pmu_banks = 4 : i64, pmu_bytes_per_cycle = 64 : i64, pmu_count = 4 : i64, reconfig_cycles = 1000 : i64, sram_bytes_per_pmu = 65536 : i64, sram_read_pj_per_bit = 1.000000e+00 : f64, sram_write_pj_per_bit = 2.000000e+00 : f64}, system = {collective_algorithm = "ring", collective_launch_ns = 0.0 : f64, host_w = 5.000000e+01 : f64, link_bytes_per_s = 3.2e10 : f64, link_latency_ns = 1000.0 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 1.0e9 : f64, node_link_latency_ns = 1000.0 : f64, node_link_pj_per_bit = 1.000000e+01 : f64, node_links = 1 : i64, sockets = 4 : i64, topology = "ring", wall_power_factor = 1.250000e+00 : f64}>} {}' | not snapflow-opt --tile-and-map="max-tiles=0" 2>&1 | FileCheck %s --check-prefix=TILES
// TILES: error: tile-and-map: max-tiles must be >= 1, got 0
