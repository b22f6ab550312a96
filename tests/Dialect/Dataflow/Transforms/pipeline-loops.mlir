// RUN: snapflow-opt %s -split-input-file --pipeline-loops -verify-diagnostics | FileCheck %s
// RUN: snapflow-opt %s -split-input-file --pipeline-loops="overlap=false" -verify-diagnostics | FileCheck %s --check-prefix=OFF

// Tests that a layer loop on the tiny chip (4 PMUs of 4 MiB = 16777216 B of
// SRAM) becomes pipelined, and that its load from HBM may run a whole
// iteration ahead: 4 tiles of 4096 B on top of its depth of 2 = 6, i.e.
// 16384 B of prefetch, which fits beside what the section holds (its
// streams at their depth, 2 x 4096 + 2 x 1024 + 2 x 1024 = 12288 B, and the
// carry's 1024 B). The load from SRAM (the carry) keeps its depth; the
// section that is not a loop stays as it was. The plan's sram_bytes becomes
// the busiest section with its prefetch: 6 x 4096 + 2048 + 2048 + 1024 =
// 29696; prefetch_bytes records the 16384.
// CHECK-LABEL: df.program @p attributes {df.memory_plan = #df.memory_plan<weights_bytes = 32768, kv_bytes = 0, activation_bytes = 1024, sram_bytes = 29696, hbm_bytes = 32768, ddr_bytes = 0, max_batch = 1, prefetch_bytes = 16384>
// CHECK:         df.section @once {
// CHECK-NEXT:      df.load @w tiles 4 : !df.stream<tensor<1x2048xbf16>, 2>
// CHECK:         df.section @layers repeat 2 pipelined {
// CHECK-NEXT:      df.load @w tiles 4 : !df.stream<tensor<1x2048xbf16>, 6>
// CHECK-NEXT:      df.load @carry tiles 1 : !df.stream<tensor<512xbf16>, 2>
// OFF-LABEL: df.program @p
// OFF-SAME:    sram_bytes = 1024
// OFF-NOT:     prefetch_bytes
// OFF:         df.section @layers repeat 2 {
// OFF-NEXT:      df.load @w tiles 4 : !df.stream<tensor<1x2048xbf16>, 2>
module attributes {df.target = #df.target<"tiny">} {
  df.program @p attributes {df.memory_plan = #df.memory_plan<weights_bytes = 32768, kv_bytes = 0, activation_bytes = 1024, sram_bytes = 1024, hbm_bytes = 32768, ddr_bytes = 0, max_batch = 1>, df.sections = [#df.section<name = "once", repeat = 1, stages = 1, pcus = 1, pmus = 1, agcus = 1>, #df.section<name = "layers", repeat = 2, stages = 1, pcus = 1, pmus = 1, agcus = 1>], tp = 1 : i64} {
    df.tensor @w : tensor<8x2048xbf16> in hbm
    df.tensor @carry : tensor<512xbf16> in sram
    df.section @once {
      %w = df.load @w tiles 4 : !df.stream<tensor<1x2048xbf16>, 2>
      df.stage elementwise (%w) {pcus = 1, flops_per_tile = 0, tiles = 4} : (!df.stream<tensor<1x2048xbf16>, 2>) -> ()
    }
    df.section @layers repeat 2 {
      %w = df.load @w tiles 4 : !df.stream<tensor<1x2048xbf16>, 2>
      %c = df.load @carry tiles 1 : !df.stream<tensor<512xbf16>, 2>
      %o = df.stage gemm (%c, %w) {pcus = 1, flops_per_tile = 0, tiles = 4} : (!df.stream<tensor<512xbf16>, 2>, !df.stream<tensor<1x2048xbf16>, 2>) -> !df.stream<tensor<512xbf16>, 2>
      df.store %o to @carry : !df.stream<tensor<512xbf16>, 2>
    }
  }
}

// -----

// Tests that prefetch shrinks to the SRAM left: 8192 tiles of 4096 B want
// 33554432 B, but 16777216 - 8192 (the stream at depth 2) = 16769024 B are
// free, so every load gets floor(8192 x 16769024 / 33554432) = 4094 tiles
// more (depth 4096, 16769024 B), and the section then holds all of SRAM.
// CHECK-LABEL: df.program @big
// CHECK-SAME:    sram_bytes = 16777216
// CHECK-SAME:    prefetch_bytes = 16769024
// CHECK:         df.load @w tiles 8192 : !df.stream<tensor<1x2048xbf16>, 4096>
module attributes {df.target = #df.target<"tiny">} {
  df.program @big attributes {df.memory_plan = #df.memory_plan<weights_bytes = 33554432, kv_bytes = 0, activation_bytes = 1024, sram_bytes = 1024, hbm_bytes = 33554432, ddr_bytes = 0, max_batch = 1>, tp = 1 : i64} {
    df.tensor @w : tensor<8192x2048xbf16> in hbm
    df.section @layers repeat 2 {
      %w = df.load @w tiles 8192 : !df.stream<tensor<1x2048xbf16>, 2>
      df.stage elementwise (%w) {pcus = 1, flops_per_tile = 0, tiles = 8192} : (!df.stream<tensor<1x2048xbf16>, 2>) -> ()
    }
  }
}

// -----

// Tests that a layer loop of two kernels (sections of one loop) is not
// pipelined: its calls alternate between the kernels, so no call is
// followed by one of the same kernel; its loads keep their depth.
// CHECK-LABEL: df.program @two
// CHECK:         df.section @a repeat 2 in "L" {
// CHECK-NEXT:      df.load @w tiles 4 : !df.stream<tensor<1x2048xbf16>, 2>
// CHECK:         df.section @b repeat 2 in "L" {
// CHECK-NEXT:      df.load @w tiles 4 : !df.stream<tensor<1x2048xbf16>, 2>
module attributes {df.target = #df.target<"tiny">} {
  df.program @two attributes {df.memory_plan = #df.memory_plan<weights_bytes = 32768, kv_bytes = 0, activation_bytes = 0, sram_bytes = 0, hbm_bytes = 32768, ddr_bytes = 0, max_batch = 1>, df.sections = [#df.section<name = "a", repeat = 2, stages = 1, pcus = 1, pmus = 1, agcus = 1, loop = "L">, #df.section<name = "b", repeat = 2, stages = 1, pcus = 1, pmus = 1, agcus = 1, loop = "L">], tp = 1 : i64} {
    df.tensor @w : tensor<8x2048xbf16> in hbm
    df.section @a repeat 2 in "L" {
      %w = df.load @w tiles 4 : !df.stream<tensor<1x2048xbf16>, 2>
      df.stage elementwise (%w) {pcus = 1, flops_per_tile = 0, tiles = 4} : (!df.stream<tensor<1x2048xbf16>, 2>) -> ()
    }
    df.section @b repeat 2 in "L" {
      %w = df.load @w tiles 4 : !df.stream<tensor<1x2048xbf16>, 2>
      df.stage elementwise (%w) {pcus = 1, flops_per_tile = 0, tiles = 4} : (!df.stream<tensor<1x2048xbf16>, 2>) -> ()
    }
  }
}
