// RUN: snapflow-opt %s -split-input-file --choose-collectives -verify-diagnostics | FileCheck %s

// Tests that with sn40l-16's `auto` every collective gets the cheapest
// algorithm for its message (arch/Collectives.h; 1 us launch, 1 us per hop,
// 64 GB/s links on a ring of 16 with route-through):
// - 8 KiB (one tile of 4096 bf16): one-shot, 1 + 8 hops + 32 x 8192 B / 64 GB/s
//   = 13.1 us, against recursive doubling's 1 + 15 + 1.4 = 17.4 us and the
//   ring's 1 + 30 + 0.2 = 31.2 us;
// - 8 MiB (16 tiles of 512 KiB): the bidirectional ring, 31 us of latency +
//   0.9375 x 8 MiB / 64 GB/s = 154 us, against the ring's 277 us and
//   one-shot's 4203 us;
// - a `via` already written is kept.
// CHECK-LABEL: df.section @s
// CHECK:         df.collective all_reduce via one_shot
// CHECK:         df.collective all_reduce via bidirectional_ring
// CHECK:         df.collective all_reduce via tree
module attributes {df.target = #df.target<"sn40l-16">} {
  df.program @p attributes {tp = 16 : i64} {
    df.section @s {
      %a = df.stage gemm () {pcus = 1, flops_per_tile = 0, tiles = 1} : () -> !df.stream<tensor<4096xbf16>, 2>
      %r = df.collective all_reduce %a {group_size = 16} : !df.stream<tensor<4096xbf16>, 2> -> !df.stream<tensor<4096xbf16>, 2>
      %b = df.stage gemm () {pcus = 1, flops_per_tile = 0, tiles = 16} : () -> !df.stream<tensor<256x1024xbf16>, 2>
      %q = df.collective all_reduce %b {group_size = 16} : !df.stream<tensor<256x1024xbf16>, 2> -> !df.stream<tensor<256x1024xbf16>, 2>
      %c = df.stage gemm () {pcus = 1, flops_per_tile = 0, tiles = 1} : () -> !df.stream<tensor<4096xbf16>, 2>
      %k = df.collective all_reduce via tree %c {group_size = 16} : !df.stream<tensor<4096xbf16>, 2> -> !df.stream<tensor<4096xbf16>, 2>
      df.stage elementwise (%r, %q, %k) {pcus = 1, flops_per_tile = 0, tiles = 16} : (!df.stream<tensor<4096xbf16>, 2>, !df.stream<tensor<256x1024xbf16>, 2>, !df.stream<tensor<4096xbf16>, 2>) -> ()
    }
  }
}

// -----

// Tests that a chip naming one algorithm gets it for every message: tiny's
// `ring`.
// CHECK-LABEL: df.section @t
// CHECK:         df.collective all_gather via ring
module attributes {df.target = #df.target<"tiny">} {
  df.program @p attributes {tp = 4 : i64} {
    df.section @t {
      %a = df.stage gemm () {pcus = 1, flops_per_tile = 0, tiles = 1} : () -> !df.stream<tensor<8x64xbf16>, 2>
      %g = df.collective all_gather %a {group_size = 4} : !df.stream<tensor<8x64xbf16>, 2> -> !df.stream<tensor<32x64xbf16>, 2>
      df.stage elementwise (%g) {pcus = 1, flops_per_tile = 0, tiles = 1} : (!df.stream<tensor<32x64xbf16>, 2>) -> ()
    }
  }
}
