// RUN: snapflow-opt %s -split-input-file --pipeline-loops -verify-diagnostics | FileCheck %s
// RUN: snapflow-opt %s -split-input-file --pipeline-loops="overlap=false" -verify-diagnostics | FileCheck %s --check-prefix=OFF

// Tests that a layer loop on the tiny chip (4 PMUs of 65536 B = 262144 B of
// SRAM) becomes pipelined, and that its load from HBM may run a whole
// iteration ahead: 4 tiles of 4096 B on top of its depth of 2 = 6, i.e.
// 16384 B of prefetch, which fits beside the plan's 1024 B of SRAM and the
// section's 1 PMU (65536 B). The load from SRAM (the carry) keeps its depth;
// the section that is not a loop stays as it was. The plan records the
// prefetch in sram_bytes (1024 + 16384 = 17408) and prefetch_bytes.
// CHECK-LABEL: df.program @p attributes {df.memory_plan = #df.memory_plan<weights_bytes = 32768, kv_bytes = 0, activation_bytes = 1024, sram_bytes = 17408, hbm_bytes = 32768, ddr_bytes = 0, max_batch = 1, prefetch_bytes = 16384>
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

// Tests that prefetch shrinks to the SRAM left: 128 tiles of 4096 B want
// 524288 B, but 262144 - 1024 (plan) - 0 (no PMUs recorded) = 261120 B are
// free, so every load gets floor(128 x 261120 / 524288) = 63 tiles more
// (depth 65, 258048 B).
// CHECK-LABEL: df.program @big
// CHECK-SAME:    prefetch_bytes = 258048
// CHECK:         df.load @w tiles 128 : !df.stream<tensor<1x2048xbf16>, 65>
module attributes {df.target = #df.target<"tiny">} {
  df.program @big attributes {df.memory_plan = #df.memory_plan<weights_bytes = 524288, kv_bytes = 0, activation_bytes = 1024, sram_bytes = 1024, hbm_bytes = 524288, ddr_bytes = 0, max_batch = 1>, tp = 1 : i64} {
    df.tensor @w : tensor<128x2048xbf16> in hbm
    df.section @layers repeat 2 {
      %w = df.load @w tiles 128 : !df.stream<tensor<1x2048xbf16>, 2>
      df.stage elementwise (%w) {pcus = 1, flops_per_tile = 0, tiles = 128} : (!df.stream<tensor<1x2048xbf16>, 2>) -> ()
    }
  }
}
