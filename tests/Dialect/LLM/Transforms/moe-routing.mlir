// Tests that --moe-routing records a seeded count of touched experts on every
// MoE op, and rejects bad options.

// RUN: snapflow import --model deepseek-v2-lite --batch 4 --prompt 8 --context 64 | snapflow-opt --moe-routing="seed=7 trials=16" | FileCheck %s
// CHECK-LABEL: func.func @decode(
// CHECK:         llm.moe {{.+}}expected_active_experts = {{[0-9.e+]+}} : f64

// RUN: snapflow import --model deepseek-v2-lite --batch 1 --prompt 8 --context 64 | not snapflow-opt --mlir-print-op-on-diagnostic=false --moe-routing="trials=0" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: moe-routing: trials must be >= 1 and skew >= 0, got 0 and 0
