// RUN: snapflow-opt %s -split-input-file --assign-target="chip=tiny" -verify-diagnostics | FileCheck %s

// Tests that a module without a target gets every parameter of the chip.
// CHECK-LABEL: module @plain attributes {df.target = #df.target<"tiny", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 2 : i64, clock_hz = 1.000000e+09 : f64,
// CHECK-SAME:    pcu_count = 4 : i64
// CHECK-SAME:    system = {collective_algorithm = "ring", collective_launch_ns = 0.000000e+00 : f64, host_w = 5.000000e+01 : f64, link_bytes_per_s = 3.200000e+10 : f64, link_latency_ns = 1.000000e+03 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 1.000000e+09 : f64, node_link_latency_ns = 1.000000e+03 : f64, node_link_pj_per_bit = 1.000000e+01 : f64, node_links = 1 : i64, sockets = 4 : i64, topology = "ring", wall_power_factor = 1.250000e+00 : f64}>}
module @plain {
}

// -----

// Tests that a module targeting the same chip keeps its target, even under
// another name (same parameters are the same chip).
// CHECK-LABEL: module @renamed attributes {df.target = #df.target<"my-tiny",
module @renamed attributes {df.target = #df.target<"my-tiny", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 2 : i64, clock_hz = 1.000000e+09 : f64, compute_static_w = 1.000000e+01 : f64, ddr_bytes = 4294967296 : i64, ddr_bytes_per_s = 1.600000e+10 : f64, ddr_channels = 1 : i64, ddr_latency_cycles = 200 : i64, ddr_pj_per_bit = 2.000000e+01 : f64, ddr_static_w = 2.000000e+00 : f64, hbm_bytes = 1073741824 : i64, hbm_bytes_per_s = 6.400000e+10 : f64, hbm_channels = 2 : i64, hbm_latency_cycles = 100 : i64, hbm_pj_per_bit = 1.000000e+01 : f64, hbm_static_w = 1.000000e+00 : f64, kernel_launch_cycles = 0 : i64, mesh_cols = 3 : i64, mesh_rows = 3 : i64, noc_hop_latency_cycles = 1 : i64, noc_pj_per_bit_hop = 5.000000e-01 : f64, noc_stream_bytes_per_cycle = 64 : i64, pcu_count = 4 : i64, pcu_lanes = 8 : i64, pcu_pipeline_fill_cycles = 10 : i64, pcu_simd_flops_per_cycle = 16 : i64, pcu_simd_pj_per_flop = 2.000000e+00 : f64, pcu_systolic_flops_per_cycle = 64 : i64, pcu_systolic_pj_per_flop = 1.000000e+00 : f64, pmu_banks = 4 : i64, pmu_bytes_per_cycle = 64 : i64, pmu_count = 4 : i64, reconfig_cycles = 1000 : i64, sram_bytes_per_pmu = 4194304 : i64, sram_read_pj_per_bit = 1.000000e+00 : f64, sram_write_pj_per_bit = 2.000000e+00 : f64}, system = {collective_algorithm = "ring", collective_launch_ns = 0.0 : f64, host_w = 5.000000e+01 : f64, link_bytes_per_s = 3.2e10 : f64, link_latency_ns = 1000.0 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 1.0e9 : f64, node_link_latency_ns = 1000.0 : f64, node_link_pj_per_bit = 1.000000e+01 : f64, node_links = 1 : i64, sockets = 4 : i64, topology = "ring", wall_power_factor = 1.250000e+00 : f64}>} {
}

// -----

// Tests that a module compiled for another chip is not silently re-targeted:
// the error names both chips and the parameters that differ.
// expected-error @+1 {{assign-target: the module is compiled for 'sn40l' (}}
module @other attributes {df.target = #df.target<"sn40l">} {
}

// The mismatch names what differs.
// RUN: not snapflow-opt %s -split-input-file --assign-target="chip=tiny" 2>&1 | FileCheck %s --check-prefix=DIFF
// DIFF: error: assign-target: the module is compiled for 'sn40l' ({{[0-9a-f]+}}), not 'tiny' ({{[0-9a-f]+}}); they differ in socket.clock_hz 1.6e+09 vs 1e+09, socket.pcu_count 1040 vs 4,

// Two passes cannot map one module for two chips: the second assignment is
// refused (the mapping passes have no chip option of their own).
// RUN: echo 'module {}' | not snapflow-opt --pass-pipeline="builtin.module(assign-target{chip=tiny},assign-target{chip=sn40l})" 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: assign-target: the module is compiled for 'tiny' ({{[0-9a-f]+}}), not 'sn40l'
// RUN: echo 'module {}' | not snapflow-opt --pass-pipeline="builtin.module(tile-and-map{chip=tiny})" 2>&1 | FileCheck %s --check-prefix=NOOPT
// NOOPT: no such option chip

// A chip is needed when the module has none; unknown chips are named.
// RUN: echo 'module {}' | not snapflow-opt --assign-target 2>&1 | FileCheck %s --check-prefix=NOCHIP
// NOCHIP: error: assign-target: give chip=NAME|PATH (the module has no df.target yet)
// RUN: echo 'module {}' | not snapflow-opt --assign-target="chip=sn99" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: assign-target: unknown chip 'sn99' (built-in chips are sn40l-16, sn40l, tiny, or give a path to a .yaml file)
// A path is read like --chip reads it.
// RUN: echo 'module {}' | snapflow-opt --assign-target="chip=%chips/tiny.yaml" | FileCheck %s --check-prefix=PATH
// PATH: module attributes {df.target = #df.target<"tiny", socket = {{{.*}}pcu_count = 4 : i64
