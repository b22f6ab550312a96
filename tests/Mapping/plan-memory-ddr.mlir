// RUN: snapflow-opt %s -split-input-file --plan-memory="allow-ddr=true" | FileCheck %s
// RUN: snapflow-opt %s -split-input-file --plan-memory="require-fit=false" | FileCheck %s --check-prefix=RECORD

// Tests that allow-ddr moves the least-read, then largest weights to DDR
// until HBM fits: of 768 MiB (@a) and 512 MiB (@b) against the tiny chip's
// 1 GiB of HBM, @a goes to DDR (805,306,368 B) and @b stays.
// CHECK-LABEL: func.func @toobig(
// CHECK-SAME:    hbm_bytes = 536870912, ddr_bytes = 805306368
// CHECK:         llm.param @a {df.placement = #df.placement<ddr>}
// CHECK:         llm.param @b {df.placement = #df.placement<hbm>}
// Tests that without require-fit the plan records why the program does not
// fit instead of failing.
// RECORD-LABEL: func.func @toobig(
// RECORD-SAME:    max_batch = 0, diagnostic = "decode batch 1 context 8 kv=full needs 1.2 GiB HBM per socket; tiny has 1.0 GiB (weights 1.2 GiB, KV 0.0 GiB, spilled activations 0.0 GiB)">
module attributes {df.target = #df.target<"tiny">} {
func.func @toobig() attributes {llm.workload = #llm.workload<decode, batch = 1, tokens = 8>} {
  %a = llm.param @a : tensor<8x50331648xbf16>
  %b = llm.param @b : tensor<8x33554432xbf16>
  return
}
}
