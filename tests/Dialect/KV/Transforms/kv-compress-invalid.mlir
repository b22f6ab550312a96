// Tests that bad policies are errors naming the policy string and what is
// wrong. A policy string is an option: one input per option, split out of
// this file.
// RUN: rm -rf %t && split-file %s %t

// Tests that a policy that cannot apply to the module's context is an error
// at the module: a 128-token budget for a 64-token cache, a ring larger than
// the budget.
// RUN: snapflow-opt %t/context.mlir --kv-compress="policy=snapstream:budget=128" -verify-diagnostics
// RUN: snapflow-opt %t/ring.mlir --kv-compress="policy=snapstream:budget=32,recent=40" -verify-diagnostics

// Tests that an unknown key or policy is refused before any IR is touched.
// RUN: not snapflow-opt %t/ok.mlir --kv-compress="policy=snapstream:budgett=8" 2>&1 | FileCheck %s --check-prefix=KEY
// KEY: error: kv-compress: KV policy 'snapstream:budgett=8': unknown key 'budgett' for snapstream (keys: budget | ratio
// RUN: not snapflow-opt %t/ok.mlir --kv-compress="policy=lru" 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: error: kv-compress: unknown KV policy 'lru' (expected full, streaming, snapkv, snapstream, h2o, scissorhands, arkvale; see `snapflow list`)
// RUN: not snapflow-opt %t/ok.mlir --kv-compress="policy=full:budget=4" 2>&1 | FileCheck %s --check-prefix=FULLKEY
// FULLKEY: error: kv-compress: KV policy 'full:budget=4': unknown key 'budget' for full

//--- context.mlir
// expected-error @+1 {{kv-compress: --kv snapstream:budget=128: KV budget of 128 tokens exceeds the context of 64 tokens}}
module {
func.func @decode(%c: !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) -> !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> {
  return %c : !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
}
}

//--- ring.mlir
// expected-error @+1 {{kv-compress: --kv snapstream:budget=32,recent=40: snapstream sinks + recent (4 + 40) exceeds the budget (32)}}
module {
func.func @decode(%c: !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>) -> !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full> {
  return %c : !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
}
}

//--- ok.mlir
module {
}
