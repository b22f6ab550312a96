// RUN: snapflow-opt %s -split-input-file --plan-sram -verify-diagnostics | FileCheck %s
// RUN: snapflow-opt %s -split-input-file --plan-sram="require-fit=false" | FileCheck %s --check-prefix=NOFIT

// Every case runs on tiny-64k, the tiny chip (arch/chips/tiny.yaml) with
// 64 KiB PMUs written out in full: 4 x 65536 = 262144 B of SRAM.

// Tests that a section holding more than SRAM at once moves the largest
// SRAM tensor live across it to HBM. Section @s1 holds its two streams at
// depth 2 (2 x 32768 + 2 x 32768 = 131072 B) beside @a (131072 B, live in
// @s1 only) and @b (65536 B, live from @s1, which stores it, to @s2, which
// loads it): 327680 B > 262144. @a moves: @s1 then holds 196608 B, @s2
// 65536 + 65536 = 131072 B. The plan's SRAM is the busiest section's
// 196608 B; its HBM grows by @a's 131072 B.
// CHECK-LABEL: df.program @p attributes {df.memory_plan = #df.memory_plan<weights_bytes = 0, kv_bytes = 0, activation_bytes = 196608, sram_bytes = 196608, hbm_bytes = 131072, ddr_bytes = 0, max_batch = 1>
// CHECK-NEXT:    df.tensor @a : tensor<65536xbf16> in hbm
// CHECK-NEXT:    df.tensor @b : tensor<32768xbf16> in sram
module attributes {df.target = #df.target<"tiny-64k", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 2 : i64, clock_hz = 1.000000e+09 : f64, compute_static_w = 1.000000e+01 : f64, ddr_bytes = 4294967296 : i64, ddr_bytes_per_s = 1.600000e+10 : f64, ddr_channels = 1 : i64, ddr_latency_cycles = 200 : i64, ddr_pj_per_bit = 2.000000e+01 : f64, ddr_static_w = 2.000000e+00 : f64, hbm_bytes = 1073741824 : i64, hbm_bytes_per_s = 6.400000e+10 : f64, hbm_channels = 2 : i64, hbm_latency_cycles = 100 : i64, hbm_pj_per_bit = 1.000000e+01 : f64, hbm_static_w = 1.000000e+00 : f64, kernel_launch_cycles = 0 : i64, mesh_cols = 3 : i64, mesh_rows = 3 : i64, noc_hop_latency_cycles = 1 : i64, noc_pj_per_bit_hop = 5.000000e-01 : f64, noc_stream_bytes_per_cycle = 64 : i64, pcu_count = 4 : i64, pcu_lanes = 8 : i64, pcu_pipeline_fill_cycles = 10 : i64, pcu_simd_flops_per_cycle = 16 : i64, pcu_simd_pj_per_flop = 2.000000e+00 : f64, pcu_systolic_flops_per_cycle = 64 : i64, pcu_systolic_pj_per_flop = 1.000000e+00 : f64, pmu_banks = 4 : i64, pmu_bytes_per_cycle = 64 : i64, pmu_count = 4 : i64, reconfig_cycles = 1000 : i64, sram_bytes_per_pmu = 65536 : i64, sram_read_pj_per_bit = 1.000000e+00 : f64, sram_write_pj_per_bit = 2.000000e+00 : f64}, system = {collective_algorithm = "ring", collective_launch_ns = 0.0 : f64, host_w = 5.000000e+01 : f64, link_bytes_per_s = 3.2e10 : f64, link_latency_ns = 1000.0 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 1.0e9 : f64, node_link_latency_ns = 1000.0 : f64, node_link_pj_per_bit = 1.000000e+01 : f64, node_links = 1 : i64, sockets = 4 : i64, topology = "ring", wall_power_factor = 1.250000e+00 : f64}>} {
  df.program @p attributes {df.memory_plan = #df.memory_plan<weights_bytes = 0, kv_bytes = 0, activation_bytes = 196608, sram_bytes = 196608, hbm_bytes = 0, ddr_bytes = 0, max_batch = 1>, tp = 1 : i64} {
    df.tensor @a : tensor<65536xbf16> in sram
    df.tensor @b : tensor<32768xbf16> in sram
    df.section @s1 {
      %a = df.load @a tiles 4 : !df.stream<tensor<16384xbf16>, 2>
      %o = df.stage elementwise (%a) {pcus = 1, flops_per_tile = 0, tiles = 4} : (!df.stream<tensor<16384xbf16>, 2>) -> !df.stream<tensor<16384xbf16>, 2>
      df.store %o to @b : !df.stream<tensor<16384xbf16>, 2>
    }
    df.section @s2 {
      %b = df.load @b tiles 2 : !df.stream<tensor<16384xbf16>, 2>
      df.stage elementwise (%b) {pcus = 1, flops_per_tile = 0, tiles = 2} : (!df.stream<tensor<16384xbf16>, 2>) -> ()
    }
  }
}

// -----

// Tests that a section whose stream buffers alone exceed SRAM cannot run:
// 2 x 131072 + 2 x 32768 = 327680 B with nothing to move. With require-fit
// it is an error; without, the plan records why it does not fit.
// NOFIT-LABEL: df.program @q
// NOFIT-SAME:    diagnostic = "q: section s holds 0.3 MB of stream buffers at once (its stages run together); a socket of tiny-64k has 0.3 MB of SRAM"
module attributes {df.target = #df.target<"tiny-64k", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 2 : i64, clock_hz = 1.000000e+09 : f64, compute_static_w = 1.000000e+01 : f64, ddr_bytes = 4294967296 : i64, ddr_bytes_per_s = 1.600000e+10 : f64, ddr_channels = 1 : i64, ddr_latency_cycles = 200 : i64, ddr_pj_per_bit = 2.000000e+01 : f64, ddr_static_w = 2.000000e+00 : f64, hbm_bytes = 1073741824 : i64, hbm_bytes_per_s = 6.400000e+10 : f64, hbm_channels = 2 : i64, hbm_latency_cycles = 100 : i64, hbm_pj_per_bit = 1.000000e+01 : f64, hbm_static_w = 1.000000e+00 : f64, kernel_launch_cycles = 0 : i64, mesh_cols = 3 : i64, mesh_rows = 3 : i64, noc_hop_latency_cycles = 1 : i64, noc_pj_per_bit_hop = 5.000000e-01 : f64, noc_stream_bytes_per_cycle = 64 : i64, pcu_count = 4 : i64, pcu_lanes = 8 : i64, pcu_pipeline_fill_cycles = 10 : i64, pcu_simd_flops_per_cycle = 16 : i64, pcu_simd_pj_per_flop = 2.000000e+00 : f64, pcu_systolic_flops_per_cycle = 64 : i64, pcu_systolic_pj_per_flop = 1.000000e+00 : f64, pmu_banks = 4 : i64, pmu_bytes_per_cycle = 64 : i64, pmu_count = 4 : i64, reconfig_cycles = 1000 : i64, sram_bytes_per_pmu = 65536 : i64, sram_read_pj_per_bit = 1.000000e+00 : f64, sram_write_pj_per_bit = 2.000000e+00 : f64}, system = {collective_algorithm = "ring", collective_launch_ns = 0.0 : f64, host_w = 5.000000e+01 : f64, link_bytes_per_s = 3.2e10 : f64, link_latency_ns = 1000.0 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 1.0e9 : f64, node_link_latency_ns = 1000.0 : f64, node_link_pj_per_bit = 1.000000e+01 : f64, node_links = 1 : i64, sockets = 4 : i64, topology = "ring", wall_power_factor = 1.250000e+00 : f64}>} {
  // expected-error @+1 {{'df.program' op q: section s holds 0.3 MB of stream buffers at once (its stages run together); a socket of tiny-64k has 0.3 MB of SRAM}}
  df.program @q attributes {df.memory_plan = #df.memory_plan<weights_bytes = 1048576, kv_bytes = 0, activation_bytes = 0, sram_bytes = 0, hbm_bytes = 1048576, ddr_bytes = 0, max_batch = 1>, tp = 1 : i64} {
    df.tensor @w : tensor<524288xbf16> in hbm
    df.section @s {
      %w = df.load @w tiles 8 : !df.stream<tensor<65536xbf16>, 2>
      %o = df.stage elementwise (%w) {pcus = 1, flops_per_tile = 0, tiles = 8} : (!df.stream<tensor<65536xbf16>, 2>) -> !df.stream<tensor<16384xbf16>, 2>
      df.stage elementwise (%o) {pcus = 1, flops_per_tile = 0, tiles = 8} : (!df.stream<tensor<16384xbf16>, 2>) -> ()
    }
  }
}
