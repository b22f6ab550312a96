// RUN: snapflow-opt %s -split-input-file --plan-memory -verify-diagnostics | FileCheck %s

// Every case plans one socket of tiny-64k, the tiny chip
// (arch/chips/tiny.yaml) with 64 KiB PMUs written out in full: SRAM
// 4 PMUs x 64 KiB = 262,144 B, HBM 1 GiB, DDR 4 GiB.

// Tests that weights and the KV cache go to HBM, activations to SRAM with
// their live ranges, and that the plan sums them.
// Op positions (pre-order, the function is 0): param @w 1, linear 2,
// param @g 3, rms_norm 4, return 5. %y lives from 2 to its last use, 4;
// %n from 4 to the return, 5. Both are live at 4: a peak of 2 x 512 B.
// Weights 256 x 64 x 2 + 256 x 2 = 33,280 B; KV 1 layer x 1 sequence x 64
// slots x (2 x 2 heads x 16) x 2 B = 8,192 B; HBM 41,472 B.
// Largest batch: per sequence 8,192 B of KV and 1,024 B of activations; HBM
// room 1 GiB - 33,280 = 1,073,708,544 B holds 131,067 caches, but SRAM only
// 262,144 / 1,024 = 256 sequences' activations, so activations spill too:
// (1,073,708,544 + 262,144) / (8,192 + 1,024) = 116,533.
// CHECK-LABEL: func.func @decode(
// CHECK-SAME:    df.memory_plan = #df.memory_plan<weights_bytes = 33280, kv_bytes = 8192, activation_bytes = 1024, sram_bytes = 1024, hbm_bytes = 41472, ddr_bytes = 0, max_batch = 116533>
// CHECK:         llm.param @w {df.placement = #df.placement<hbm>}
// CHECK:         llm.linear {{.+}}df.placement = #df.placement<sram, live = [2, 4]>
// CHECK:         llm.param @g {df.placement = #df.placement<hbm>}
// CHECK:         llm.rms_norm {{.+}}df.placement = #df.placement<sram, live = [4, 5]>
!c = !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
module attributes {df.target = #df.target<"tiny-64k", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 2 : i64, clock_hz = 1.000000e+09 : f64, compute_static_w = 1.000000e+01 : f64, ddr_bytes = 4294967296 : i64, ddr_bytes_per_s = 1.600000e+10 : f64, ddr_channels = 1 : i64, ddr_latency_cycles = 200 : i64, ddr_pj_per_bit = 2.000000e+01 : f64, ddr_static_w = 2.000000e+00 : f64, hbm_bytes = 1073741824 : i64, hbm_bytes_per_s = 6.400000e+10 : f64, hbm_channels = 2 : i64, hbm_latency_cycles = 100 : i64, hbm_pj_per_bit = 1.000000e+01 : f64, hbm_static_w = 1.000000e+00 : f64, kernel_launch_cycles = 0 : i64, mesh_cols = 3 : i64, mesh_rows = 3 : i64, noc_hop_latency_cycles = 1 : i64, noc_pj_per_bit_hop = 5.000000e-01 : f64, noc_stream_bytes_per_cycle = 64 : i64, pcu_count = 4 : i64, pcu_lanes = 8 : i64, pcu_pipeline_fill_cycles = 10 : i64, pcu_simd_flops_per_cycle = 16 : i64, pcu_simd_pj_per_flop = 2.000000e+00 : f64, pcu_systolic_flops_per_cycle = 64 : i64, pcu_systolic_pj_per_flop = 1.000000e+00 : f64, pmu_banks = 4 : i64, pmu_bytes_per_cycle = 64 : i64, pmu_count = 4 : i64, reconfig_cycles = 1000 : i64, sram_bytes_per_pmu = 65536 : i64, sram_read_pj_per_bit = 1.000000e+00 : f64, sram_write_pj_per_bit = 2.000000e+00 : f64}, system = {collective_algorithm = "ring", collective_launch_ns = 0.0 : f64, host_w = 5.000000e+01 : f64, link_bytes_per_s = 3.2e10 : f64, link_latency_ns = 1000.0 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 1.0e9 : f64, node_link_latency_ns = 1000.0 : f64, node_link_pj_per_bit = 1.000000e+01 : f64, node_links = 1 : i64, sockets = 4 : i64, topology = "ring", wall_power_factor = 1.250000e+00 : f64}>} {
func.func @decode(%x: tensor<1x1x64xbf16>, %c: !c) -> (tensor<1x1x256xbf16>, !c) attributes {llm.workload = #llm.workload<decode, batch = 1, tokens = 64>} {
  %w = llm.param @w : tensor<256x64xbf16>
  %y = llm.linear %x, %w : tensor<1x1x64xbf16>, tensor<256x64xbf16> -> tensor<1x1x256xbf16>
  %g = llm.param @g : tensor<256xbf16>
  %n = llm.rms_norm %y, %g {eps = 1.0e-05 : f64} : tensor<1x1x256xbf16>, tensor<256xbf16>
  return %n, %c : tensor<1x1x256xbf16>, !c
}
}

// -----

// Tests that an activation larger than SRAM is spilled to HBM, keeping its
// live range: 1 x 1 x 262,144 x bf16 = 512 KiB against 256 KiB of SRAM.
// CHECK-LABEL: func.func @spill(
// CHECK-SAME:    activation_bytes = 524288, sram_bytes = 0, hbm_bytes = 34078720
// CHECK:         llm.linear {{.+}}df.placement = #df.placement<hbm, live = [2, 3]>
module attributes {df.target = #df.target<"tiny-64k", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 2 : i64, clock_hz = 1.000000e+09 : f64, compute_static_w = 1.000000e+01 : f64, ddr_bytes = 4294967296 : i64, ddr_bytes_per_s = 1.600000e+10 : f64, ddr_channels = 1 : i64, ddr_latency_cycles = 200 : i64, ddr_pj_per_bit = 2.000000e+01 : f64, ddr_static_w = 2.000000e+00 : f64, hbm_bytes = 1073741824 : i64, hbm_bytes_per_s = 6.400000e+10 : f64, hbm_channels = 2 : i64, hbm_latency_cycles = 100 : i64, hbm_pj_per_bit = 1.000000e+01 : f64, hbm_static_w = 1.000000e+00 : f64, kernel_launch_cycles = 0 : i64, mesh_cols = 3 : i64, mesh_rows = 3 : i64, noc_hop_latency_cycles = 1 : i64, noc_pj_per_bit_hop = 5.000000e-01 : f64, noc_stream_bytes_per_cycle = 64 : i64, pcu_count = 4 : i64, pcu_lanes = 8 : i64, pcu_pipeline_fill_cycles = 10 : i64, pcu_simd_flops_per_cycle = 16 : i64, pcu_simd_pj_per_flop = 2.000000e+00 : f64, pcu_systolic_flops_per_cycle = 64 : i64, pcu_systolic_pj_per_flop = 1.000000e+00 : f64, pmu_banks = 4 : i64, pmu_bytes_per_cycle = 64 : i64, pmu_count = 4 : i64, reconfig_cycles = 1000 : i64, sram_bytes_per_pmu = 65536 : i64, sram_read_pj_per_bit = 1.000000e+00 : f64, sram_write_pj_per_bit = 2.000000e+00 : f64}, system = {collective_algorithm = "ring", collective_launch_ns = 0.0 : f64, host_w = 5.000000e+01 : f64, link_bytes_per_s = 3.2e10 : f64, link_latency_ns = 1000.0 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 1.0e9 : f64, node_link_latency_ns = 1000.0 : f64, node_link_pj_per_bit = 1.000000e+01 : f64, node_links = 1 : i64, sockets = 4 : i64, topology = "ring", wall_power_factor = 1.250000e+00 : f64}>} {
func.func @spill(%x: tensor<1x1x64xbf16>) -> tensor<1x1x262144xbf16> attributes {llm.workload = #llm.workload<decode, batch = 1, tokens = 1>} {
  %w = llm.param @w : tensor<262144x64xbf16>
  %y = llm.linear %x, %w : tensor<1x1x64xbf16>, tensor<262144x64xbf16> -> tensor<1x1x262144xbf16>
  return %y : tensor<1x1x262144xbf16>
}
}

// -----

// Tests that a program larger than HBM is an error naming the phase, batch,
// context, policy, tier, need and capacity: weights of 768 + 512 MiB
// against 1 GiB of HBM (plan-memory-ddr.mlir: the same with allow-ddr).
module attributes {df.target = #df.target<"tiny-64k", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 2 : i64, clock_hz = 1.000000e+09 : f64, compute_static_w = 1.000000e+01 : f64, ddr_bytes = 4294967296 : i64, ddr_bytes_per_s = 1.600000e+10 : f64, ddr_channels = 1 : i64, ddr_latency_cycles = 200 : i64, ddr_pj_per_bit = 2.000000e+01 : f64, ddr_static_w = 2.000000e+00 : f64, hbm_bytes = 1073741824 : i64, hbm_bytes_per_s = 6.400000e+10 : f64, hbm_channels = 2 : i64, hbm_latency_cycles = 100 : i64, hbm_pj_per_bit = 1.000000e+01 : f64, hbm_static_w = 1.000000e+00 : f64, kernel_launch_cycles = 0 : i64, mesh_cols = 3 : i64, mesh_rows = 3 : i64, noc_hop_latency_cycles = 1 : i64, noc_pj_per_bit_hop = 5.000000e-01 : f64, noc_stream_bytes_per_cycle = 64 : i64, pcu_count = 4 : i64, pcu_lanes = 8 : i64, pcu_pipeline_fill_cycles = 10 : i64, pcu_simd_flops_per_cycle = 16 : i64, pcu_simd_pj_per_flop = 2.000000e+00 : f64, pcu_systolic_flops_per_cycle = 64 : i64, pcu_systolic_pj_per_flop = 1.000000e+00 : f64, pmu_banks = 4 : i64, pmu_bytes_per_cycle = 64 : i64, pmu_count = 4 : i64, reconfig_cycles = 1000 : i64, sram_bytes_per_pmu = 65536 : i64, sram_read_pj_per_bit = 1.000000e+00 : f64, sram_write_pj_per_bit = 2.000000e+00 : f64}, system = {collective_algorithm = "ring", collective_launch_ns = 0.0 : f64, host_w = 5.000000e+01 : f64, link_bytes_per_s = 3.2e10 : f64, link_latency_ns = 1000.0 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 1.0e9 : f64, node_link_latency_ns = 1000.0 : f64, node_link_pj_per_bit = 1.000000e+01 : f64, node_links = 1 : i64, sockets = 4 : i64, topology = "ring", wall_power_factor = 1.250000e+00 : f64}>} {
// expected-error @+1 {{'func.func' op decode batch 1 context 8 kv=full needs 1.2 GiB HBM per socket; tiny-64k has 1.0 GiB (weights 1.2 GiB, KV 0.0 GiB, spilled activations 0.0 GiB)}}
func.func @toobig() attributes {llm.workload = #llm.workload<decode, batch = 1, tokens = 8>} {
  %a = llm.param @a : tensor<8x50331648xbf16>
  %b = llm.param @b : tensor<8x33554432xbf16>
  return
}
}

// -----

// Tests that the chip comes from the module, and only from there.
// expected-error @+1 {{plan-memory: the module has no df.target; run --assign-target{chip=...} first}}
module {
}
