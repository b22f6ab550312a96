// RUN: snapflow-opt %s -allow-unregistered-dialect | snapflow-opt -allow-unregistered-dialect | FileCheck %s

// Tests that the mapping attributes the passes exchange round-trip in their
// typed forms.
// CHECK-LABEL: func.func @mapped()
// CHECK-SAME:    df.memory_plan = #df.memory_plan<weights_bytes = 100, kv_bytes = 20, activation_bytes = 8, sram_bytes = 8, hbm_bytes = 120, ddr_bytes = 0, max_batch = 4>
// CHECK-SAME:    df.sections = [#df.section<name = "layers_0_1", repeat = 2, stages = 1, pcus = 4, pmus = 6, agcus = 1>, #df.section<name = "part_1", repeat = 1, stages = 1, pcus = 8, pmus = 12, agcus = 2, oversubscribed = 2.000000e+00>]
// CHECK:         df.placement = #df.placement<hbm>, df.section = 0 : i64, df.stage = #df.stage<gemm, tiles = 4, tile_bytes = 65536, pcus = 4, pmus = 6, agcus = 1>
// CHECK:         df.placement = #df.placement<sram, live = [3, 7]>
// CHECK:         df.memory_plan = #df.memory_plan<{{.+}}max_batch = 0, diagnostic = "decode needs 70.0 GiB HBM">
func.func @mapped() attributes {df.memory_plan = #df.memory_plan<weights_bytes = 100, kv_bytes = 20, activation_bytes = 8, sram_bytes = 8, hbm_bytes = 120, ddr_bytes = 0, max_batch = 4>, df.sections = [#df.section<name = "layers_0_1", repeat = 2, stages = 1, pcus = 4, pmus = 6, agcus = 1>, #df.section<name = "part_1", repeat = 1, stages = 1, pcus = 8, pmus = 12, agcus = 2, oversubscribed = 2.0>]} {
  "test.a"() {df.placement = #df.placement<hbm>, df.section = 0 : i64, df.stage = #df.stage<gemm, tiles = 4, tile_bytes = 65536, pcus = 4, pmus = 6, agcus = 1>} : () -> ()
  "test.b"() {df.placement = #df.placement<sram, live = [3, 7]>} : () -> ()
  "test.c"() {df.memory_plan = #df.memory_plan<weights_bytes = 0, kv_bytes = 0, activation_bytes = 0, sram_bytes = 0, hbm_bytes = 0, ddr_bytes = 0, max_batch = 0, diagnostic = "decode needs 70.0 GiB HBM">} : () -> ()
  return
}

// Tests that a target reads back in one spelling: values typed as the chip
// model types them, whatever the text wrote (pcu_count = 4.0 is the count
// 4; clock_hz = 1000000000 is the rate 1e9 Hz).
// CHECK-LABEL: module @canonical attributes {df.target = #df.target<"odd-spelling", socket = {
// CHECK-SAME:    clock_hz = 1.000000e+09 : f64
// CHECK-SAME:    pcu_count = 4 : i64
module @canonical attributes {df.target = #df.target<"odd-spelling", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 2 : i64, clock_hz = 1000000000 : i64, compute_static_w = 1.000000e+01 : f64, ddr_bytes = 4294967296 : i64, ddr_bytes_per_s = 1.600000e+10 : f64, ddr_channels = 1 : i64, ddr_latency_cycles = 200 : i64, ddr_pj_per_bit = 2.000000e+01 : f64, ddr_static_w = 2.000000e+00 : f64, hbm_bytes = 1073741824 : i64, hbm_bytes_per_s = 6.400000e+10 : f64, hbm_channels = 2 : i64, hbm_latency_cycles = 100 : i64, hbm_pj_per_bit = 1.000000e+01 : f64, hbm_static_w = 1.000000e+00 : f64, kernel_launch_cycles = 0 : i64, mesh_cols = 3 : i64, mesh_rows = 3 : i64, noc_hop_latency_cycles = 1 : i64, noc_pj_per_bit_hop = 5.000000e-01 : f64, noc_stream_bytes_per_cycle = 64 : i64, pcu_count = 4.0 : f64, pcu_lanes = 8 : i64, pcu_pipeline_fill_cycles = 10 : i64, pcu_simd_flops_per_cycle = 16 : i64, pcu_simd_pj_per_flop = 2.000000e+00 : f64, pcu_systolic_flops_per_cycle = 64 : i64, pcu_systolic_pj_per_flop = 1.000000e+00 : f64, pmu_banks = 4 : i64, pmu_bytes_per_cycle = 64 : i64, pmu_count = 4 : i64, reconfig_cycles = 1000 : i64, sram_bytes_per_pmu = 65536 : i64, sram_read_pj_per_bit = 1.000000e+00 : f64, sram_write_pj_per_bit = 2.000000e+00 : f64}, system = {collective_algorithm = "ring", collective_launch_ns = 0.0 : f64, host_w = 5.000000e+01 : f64, link_bytes_per_s = 3.2e10 : f64, link_latency_ns = 1000.0 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 1.0e9 : f64, node_link_latency_ns = 1000.0 : f64, node_link_pj_per_bit = 1.000000e+01 : f64, node_links = 1 : i64, sockets = 4 : i64, topology = "ring", wall_power_factor = 1.250000e+00 : f64}>} {
}
