// Tests that --plan-memory places every tensor and checks the chip's HBM.

// Llama-3.1-8B decode, batch 1, context 4096 on one SN40L socket: weights
// 16,060,522,496 B (8,030,261,248 bf16 parameters) and KV 4096 x 131,072 =
// 536,870,912 B go to HBM (16,597,393,408 B of 64 GiB); activations stay in
// SRAM. Largest batch: (64 GiB - weights) / 131,072 B / 4096 = 98.
// RUN: snapflow import --model llama-3.1-8b --batch 1 --prompt 16 --context 4096 | snapflow-opt --plan-memory="chip=sn40l" | FileCheck %s --check-prefix=L8B
// L8B-LABEL: func.func @decode(
// L8B-SAME:    df.memory_plan = {activation_bytes = {{[0-9]+}} : i64, ddr_bytes = 0 : i64, diagnostic = "", fits = true, hbm_bytes = 16597393408 : i64, kv_bytes = 536870912 : i64, max_batch = 98 : i64, sram_bytes = {{[0-9]+}} : i64, weights_bytes = 16060522496 : i64}
// L8B:         llm.param @model.embed_tokens.weight {df.tier = "hbm"}
// L8B:         llm.embed {{.+}}df.live = array<i64: [[E:[0-9]+]], {{[0-9]+}}>, df.tier = "sram"

// Weights inside a layer loop count once per layer: the fused program has the
// same plan.
// RUN: snapflow import --model llama-3.1-8b --batch 1 --prompt 16 --context 4096 | snapflow-opt --pass-pipeline="builtin.module(func.func(fuse-layers),plan-memory{chip=sn40l})" | FileCheck %s --check-prefix=FUSED
// FUSED-LABEL: func.func @decode(
// FUSED-SAME:    hbm_bytes = 16597393408 : i64, kv_bytes = 536870912 : i64, max_batch = 98 : i64

// With allow-ddr, DeepSeek-V2-Lite in bf16 (31.4 GB) on the tiny chip (1 GiB
// HBM, 4 GiB DDR per socket) still does not fit.
// RUN: snapflow import --model deepseek-v2-lite --batch 1 --prompt 16 --context 64 | not snapflow-opt --mlir-print-op-on-diagnostic=false --plan-memory="chip=tiny allow-ddr=true" 2>&1 | FileCheck %s --check-prefix=DDR
// DDR: error: 'func.func' op prefill batch 1 context 16 kv=full needs {{.+}} GiB DDR per socket; tiny has 4.0 GiB

// The error names the phase, batch, context, policy, tier, need and capacity.
// RUN: snapflow import --model llama-3.1-8b --batch 16 --prompt 16 --context 131072 | not snapflow-opt --mlir-print-op-on-diagnostic=false --plan-memory="chip=sn40l" 2>&1 | FileCheck %s --check-prefix=FIT
// FIT: error: 'func.func' op decode batch 16 context 131072 kv=full needs 271.0 GiB HBM per socket; sn40l has 64.0 GiB (weights 15.0 GiB, KV 256.0 GiB, spilled activations 0.0 GiB)

// An unknown chip is an error naming it.
// RUN: snapflow import --model llama-3.2-1b --batch 1 --prompt 16 --context 64 | not snapflow-opt --mlir-print-op-on-diagnostic=false --plan-memory="chip=sn50" 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: plan-memory: unknown chip 'sn50'
