// Tests that bad policies are errors naming the bad key or number.

// RUN: not snapflow-opt %s --kv-compress="policy=snapstream:budgett=8" 2>&1 | FileCheck %s --check-prefix=KEY
// KEY: error: kv-compress: KV policy 'snapstream:budgett=8': unknown key 'budgett' for snapstream

// RUN: not snapflow-opt %s --kv-compress="policy=snapstream:budget=128" 2>&1 | FileCheck %s --check-prefix=CTX
// CTX: error: kv-compress: --kv snapstream:budget=128: KV budget of 128 tokens exceeds the context of 64 tokens

// RUN: not snapflow-opt %s --kv-compress="policy=snapstream:budget=32,recent=40" 2>&1 | FileCheck %s --check-prefix=RING
// RING: snapstream sinks + recent (4 + 40) exceeds the budget (32)

// RUN: not snapflow-opt %s --kv-compress="policy=lru" 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: unknown KV policy 'lru'; expected full, streaming, snapkv or snapstream

!full = !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @decode(%c: !full) -> !full {
  return %c : !full
}
