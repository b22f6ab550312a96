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
