// RUN: snapflow-opt %s | snapflow-opt | FileCheck %s
// RUN: snapflow-opt %s --mlir-print-op-generic | snapflow-opt | FileCheck %s

// Tests that the module records its target chip with every parameter: the
// built-in short form is read as the full set and printed in full.
// CHECK-LABEL: module attributes {df.target = #df.target<"sn40l-16", socket = {agcu_bytes_per_cycle = 64 : i64, agcu_count = 32 : i64, clock_hz = 1.600000e+09 : f64,
// CHECK-SAME:    hbm_bytes_per_s = 1.600000e+12 : f64
// CHECK-SAME:    system = {collective_algorithm = "auto", collective_launch_ns = 1.000000e+03 : f64, host_w = 1.000000e+03 : f64, link_bytes_per_s = 6.400000e+10 : f64, link_latency_ns = 1.000000e+03 : f64, link_pj_per_bit = 5.000000e+00 : f64, links_per_socket = 2 : i64, node_link_bytes_per_s = 5.000000e+10 : f64, node_link_latency_ns = 5.000000e+03 : f64, node_link_pj_per_bit = 5.600000e+00 : f64, node_links = 8 : i64, sockets = 16 : i64, topology = "ring", wall_power_factor = 1.050000e+00 : f64}>} {
module attributes {df.target = #df.target<"sn40l-16">} {
// Tests that a program declares tensors in every memory tier.
// CHECK-LABEL: df.program @tiers attributes {df.kv_upkeep = #df.kv_upkeep<flops = 1472, bytes = 4112>, tp = 1 : i64} {
// CHECK-NEXT:    df.tensor @act : tensor<64x64xbf16> in sram
// CHECK-NEXT:    df.tensor @weights : tensor<64x64xbf16> in hbm
// CHECK-NEXT:    df.tensor @spill : tensor<256x64xf32> in ddr
// CHECK-NEXT:  }
df.program @tiers attributes {tp = 1 : i64, df.kv_upkeep = #df.kv_upkeep<flops = 1472, bytes = 4112>} {
  df.tensor @act : tensor<64x64xbf16> in sram
  df.tensor @weights : tensor<64x64xbf16> in hbm
  df.tensor @spill : tensor<256x64xf32> in ddr
}

// Tests that a section loads tiles, computes with gemm, softmax, reduce,
// elementwise and norm stages, buffers a stream and stores the result; a
// gemm may say its rows (the 32 queries sharing each key).
// CHECK-LABEL: df.program @attention attributes {tp = 1 : i64} {
// CHECK:         df.section @layer {
// CHECK-NEXT:      %[[X:.+]] = df.load @x tiles 4 : !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      %[[W:.+]] = df.load @wq tiles 4 : !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      %[[Q:.+]] = df.stage gemm(%[[X]], %[[W]]) {flops_per_tile = 65536 : i64, pcus = 4 : i64, tiles = 4 : i64} : (!df.stream<tensor<32x32xbf16>, 2>, !df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      %[[K:.+]] = df.load @k tiles 16 : !df.stream<tensor<32x32xbf16>, 1>
// CHECK-NEXT:      %[[KB:.+]] = df.buffer %[[K]] {banks = 16 : i64, bytes = 8192 : i64, pmus = 2 : i64} : !df.stream<tensor<32x32xbf16>, 1> -> !df.stream<tensor<32x32xbf16>, 4>
// CHECK-NEXT:      %[[S:.+]] = df.stage gemm(%[[Q]], %[[KB]]) {flops_per_tile = 65536 : i64, pcus = 8 : i64, rows = 32 : i64, tiles = 16 : i64} : (!df.stream<tensor<32x32xbf16>, 2>, !df.stream<tensor<32x32xbf16>, 4>) -> !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      %[[P:.+]] = df.stage softmax(%[[S]]) {flops_per_tile = 5120 : i64, pcus = 2 : i64, tiles = 16 : i64} : (!df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      %[[R:.+]] = df.stage reduce(%[[P]]) {flops_per_tile = 1024 : i64, pcus = 1 : i64, tiles = 16 : i64} : (!df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      %[[E:.+]] = df.stage elementwise(%[[R]]) {flops_per_tile = 1024 : i64, pcus = 1 : i64, tiles = 4 : i64} : (!df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      %[[N:.+]] = df.stage norm(%[[E]]) {flops_per_tile = 4096 : i64, pcus = 1 : i64, tiles = 4 : i64} : (!df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      df.store %[[N]] to @y : !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:    }
df.program @attention attributes {tp = 1 : i64} {
  df.tensor @x : tensor<64x64xbf16> in sram
  df.tensor @wq : tensor<64x64xbf16> in hbm
  df.tensor @k : tensor<256x64xbf16> in ddr
  df.tensor @y : tensor<64x64xbf16> in hbm
  df.section @layer {
    %x = df.load @x tiles 4 : !df.stream<tensor<32x32xbf16>, 2>
    %w = df.load @wq tiles 4 : !df.stream<tensor<32x32xbf16>, 2>
    %q = df.stage gemm (%x, %w) {pcus = 4, flops_per_tile = 65536, tiles = 4} : (!df.stream<tensor<32x32xbf16>, 2>, !df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
    %k = df.load @k tiles 16 : !df.stream<tensor<32x32xbf16>, 1>
    %kb = df.buffer %k {pmus = 2, bytes = 8192, banks = 16} : !df.stream<tensor<32x32xbf16>, 1> -> !df.stream<tensor<32x32xbf16>, 4>
    %s = df.stage gemm (%q, %kb) {pcus = 8, flops_per_tile = 65536, tiles = 16, rows = 32} : (!df.stream<tensor<32x32xbf16>, 2>, !df.stream<tensor<32x32xbf16>, 4>) -> !df.stream<tensor<32x32xbf16>, 2>
    %p = df.stage softmax (%s) {pcus = 2, flops_per_tile = 5120, tiles = 16} : (!df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
    %r = df.stage reduce (%p) {pcus = 1, flops_per_tile = 1024, tiles = 16} : (!df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
    %e = df.stage elementwise (%r) {pcus = 1, flops_per_tile = 1024, tiles = 4} : (!df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
    %n = df.stage norm (%e) {pcus = 1, flops_per_tile = 4096, tiles = 4} : (!df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
    df.store %n to @y : !df.stream<tensor<32x32xbf16>, 2>
  }
}

// Tests that a kernel-looped section selects with topk and gather stages,
// double-buffers, and runs every collective kind.
// CHECK-LABEL: df.program @moe attributes {tp = 4 : i64} {
// CHECK:         df.section @experts repeat 2 pipelined {
// CHECK-NEXT:      %[[H:.+]] = df.load @h tiles 4 : !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      %[[T:.+]] = df.stage topk(%[[H]]) {flops_per_tile = 1024 : i64, pcus = 1 : i64, tiles = 4 : i64} : (!df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      %[[G:.+]] = df.stage gather(%[[T]]) {flops_per_tile = 0 : i64, pcus = 1 : i64, tiles = 4 : i64} : (!df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      %[[B:.+]] = df.buffer %[[G]] {banks = 8 : i64, bytes = 16384 : i64, double_buffered, pmus = 4 : i64} : !df.stream<tensor<32x32xbf16>, 2> -> !df.stream<tensor<32x32xbf16>, 4>
// CHECK-NEXT:      %[[AR:.+]] = df.collective all_reduce %[[B]] {group_size = 4 : i64} : !df.stream<tensor<32x32xbf16>, 4> -> !df.stream<tensor<32x32xbf16>, 4>
// CHECK-NEXT:      %[[AA:.+]] = df.collective all_to_all via recursive_doubling %[[AR]] {group_size = 4 : i64} : !df.stream<tensor<32x32xbf16>, 4> -> !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      %[[AG:.+]] = df.collective all_gather via one_shot %[[AA]] {group_size = 4 : i64} : !df.stream<tensor<32x32xbf16>, 2> -> !df.stream<tensor<128x32xbf16>, 2>
// CHECK-NEXT:      df.store %[[AG]] to @out : !df.stream<tensor<128x32xbf16>, 2>
// CHECK-NEXT:    }
df.program @moe attributes {tp = 4 : i64} {
  df.tensor @h : tensor<64x64xbf16> in sram
  df.tensor @out : tensor<128x64xbf16> in hbm
  df.section @experts repeat 2 pipelined {
    %h = df.load @h tiles 4 : !df.stream<tensor<32x32xbf16>, 2>
    %t = df.stage topk (%h) {pcus = 1, flops_per_tile = 1024, tiles = 4} : (!df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
    %g = df.stage gather (%t) {pcus = 1, flops_per_tile = 0, tiles = 4} : (!df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
    %b = df.buffer %g {pmus = 4, bytes = 16384, banks = 8, double_buffered} : !df.stream<tensor<32x32xbf16>, 2> -> !df.stream<tensor<32x32xbf16>, 4>
    %ar = df.collective all_reduce %b {group_size = 4} : !df.stream<tensor<32x32xbf16>, 4> -> !df.stream<tensor<32x32xbf16>, 4>
    %aa = df.collective all_to_all via recursive_doubling %ar {group_size = 4} : !df.stream<tensor<32x32xbf16>, 4> -> !df.stream<tensor<32x32xbf16>, 2>
    %ag = df.collective all_gather via one_shot %aa {group_size = 4} : !df.stream<tensor<32x32xbf16>, 2> -> !df.stream<tensor<128x32xbf16>, 2>
    df.store %ag to @out : !df.stream<tensor<128x32xbf16>, 2>
  }
}

// Tests that a loop whose body is several kernels is consecutive sections
// naming the loop, each with its count: an MoE layer's attention with the
// router, then the experts the router chose.
// CHECK-LABEL: df.program @two_kernels attributes {tp = 1 : i64} {
// CHECK:         df.section @layers_0_1 repeat 2 in "layers_0_1" {
// CHECK:         df.section @layers_0_1_experts repeat 2 in "layers_0_1" {
// CHECK:         df.section @part_2 {
df.program @two_kernels attributes {tp = 1 : i64} {
  df.tensor @h : tensor<64xbf16> in sram
  df.tensor @routing : tensor<8xi32> in sram
  df.section @layers_0_1 repeat 2 in "layers_0_1" {
    %h = df.load @h tiles 1 for router : !df.stream<tensor<64xbf16>, 2>
    %r = df.stage topk for router(%h) {pcus = 1, flops_per_tile = 64, tiles = 1} : (!df.stream<tensor<64xbf16>, 2>) -> !df.stream<tensor<8xi32>, 2>
    df.store %r to @routing for router : !df.stream<tensor<8xi32>, 2>
  }
  df.section @layers_0_1_experts repeat 2 in "layers_0_1" {
    %r = df.load @routing tiles 1 for routed_experts : !df.stream<tensor<8xi32>, 2>
    %e = df.stage gather for routed_experts(%r) {pcus = 1, flops_per_tile = 0, tiles = 1} : (!df.stream<tensor<8xi32>, 2>) -> !df.stream<tensor<64xbf16>, 2>
    df.store %e to @h for routed_experts : !df.stream<tensor<64xbf16>, 2>
  }
  df.section @part_2 {
    %h = df.load @h tiles 1 : !df.stream<tensor<64xbf16>, 2>
    df.store %h to @h : !df.stream<tensor<64xbf16>, 2>
  }
}

// Tests that a section is a graph region: a stream may be used before its
// producer and have several consumers, and stages may have only outputs or
// only inputs.
// CHECK-LABEL: df.program @graph attributes {tp = 1 : i64} {
// CHECK-NEXT:    df.section @cycle {
// CHECK-NEXT:      %[[B:.+]] = df.stage elementwise(%[[A:.+]]) {flops_per_tile = 64 : i64, pcus = 1 : i64, tiles = 8 : i64} : (!df.stream<tensor<8x8xf32>, 2>) -> !df.stream<tensor<8x8xf32>, 2>
// CHECK-NEXT:      %[[A]] = df.stage elementwise() {flops_per_tile = 64 : i64, pcus = 1 : i64, tiles = 8 : i64} : () -> !df.stream<tensor<8x8xf32>, 2>
// CHECK-NEXT:      df.stage reduce(%[[B]], %[[A]]) {flops_per_tile = 64 : i64, pcus = 1 : i64, tiles = 8 : i64} : (!df.stream<tensor<8x8xf32>, 2>, !df.stream<tensor<8x8xf32>, 2>) -> (){{$}}
// CHECK-NEXT:    }
df.program @graph attributes {tp = 1 : i64} {
  df.section @cycle {
    %b = df.stage elementwise (%a) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x8xf32>, 2>) -> !df.stream<tensor<8x8xf32>, 2>
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x8xf32>, 2>
    df.stage reduce (%b, %a) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x8xf32>, 2>, !df.stream<tensor<8x8xf32>, 2>) -> ()
  }
}

// Tests that per-output tile counts and re-reading buffers round-trip.
// CHECK-LABEL: df.program @counts
// CHECK:         df.stage gemm() {{.+}}output_tiles = array<i64: 4, 2>
// CHECK:         df.buffer %{{.+}} {{.+}}reads = 3 : i64
df.program @counts attributes {tp = 1 : i64} {
  df.section @s {
    %a, %b = df.stage gemm () {pcus = 1, flops_per_tile = 64, tiles = 4, output_tiles = array<i64: 4, 2>} : () -> (!df.stream<tensor<8x8xf32>, 2>, !df.stream<tensor<8x8xf32>, 2>)
    %c = df.buffer %a {pmus = 1, bytes = 4096, banks = 16, reads = 3} : !df.stream<tensor<8x8xf32>, 2> -> !df.stream<tensor<8x8xf32>, 2>
    df.stage elementwise (%c, %b) {pcus = 1, flops_per_tile = 64, tiles = 12} : (!df.stream<tensor<8x8xf32>, 2>, !df.stream<tensor<8x8xf32>, 2>) -> ()
  }
}

// Tests that loads, stores and stages name the model operator they work
// for (the profile's rows), in the custom form and the generic one.
// CHECK-LABEL: df.program @tagged attributes {tp = 1 : i64} {
// CHECK:         df.section @layer {
// CHECK-NEXT:      %[[X:.+]] = df.load @x tiles 4 for norm : !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      %[[W:.+]] = df.load @wq tiles 4 for qkv_projection {agcus = 2 : i64} : !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      %[[Q:.+]] = df.stage gemm for qkv_projection(%[[X]], %[[W]]) {flops_per_tile = 65536 : i64, pcus = 4 : i64, tiles = 4 : i64} : (!df.stream<tensor<32x32xbf16>, 2>, !df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      %[[E:.+]] = df.stage elementwise(%[[Q]]) {flops_per_tile = 1024 : i64, pcus = 1 : i64, tiles = 4 : i64} : (!df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:      df.store %[[E]] to @y for routed_experts : !df.stream<tensor<32x32xbf16>, 2>
// CHECK-NEXT:    }
df.program @tagged attributes {tp = 1 : i64} {
  df.tensor @x : tensor<64x64xbf16> in sram
  df.tensor @wq : tensor<64x64xbf16> in hbm
  df.tensor @y : tensor<64x64xbf16> in hbm
  df.section @layer {
    %x = df.load @x tiles 4 for norm : !df.stream<tensor<32x32xbf16>, 2>
    %w = df.load @wq tiles 4 for qkv_projection {agcus = 2} : !df.stream<tensor<32x32xbf16>, 2>
    %q = df.stage gemm for qkv_projection (%x, %w) {pcus = 4, flops_per_tile = 65536, tiles = 4} : (!df.stream<tensor<32x32xbf16>, 2>, !df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
    %e = df.stage elementwise (%q) {pcus = 1, flops_per_tile = 1024, tiles = 4} : (!df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
    df.store %e to @y for routed_experts : !df.stream<tensor<32x32xbf16>, 2>
  }
}
}

