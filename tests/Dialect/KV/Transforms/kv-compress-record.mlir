// RUN: snapflow-opt %s --kv-compress="policy=snapstream:ratio=4 context=64" | FileCheck %s
// RUN: snapflow-opt %s --kv-compress="policy=full format=kivi2" | FileCheck %s --check-prefix=FULL

// Tests that kv-compress records on the module what it applied, each
// resolved for the context: a ratio of 4 over 64 tokens is a budget of 16,
// its recent window max(obs_window, min(4096, 16/4)) = 8 with obs_window
// min(32, 16/2) = 8; and a format with its defaults filled. Reports name
// the policy from here.
// CHECK: module attributes {kv.format = "bf16", kv.policy = "snapstream:budget=16,sinks=4,recent=8,obs_window=8,kernel=7,pool=max"}
// FULL: module attributes {kv.format = "kivi:bits=2,group=32,residual=128", kv.policy = "full"}

!full = !kv.cache<layers = 1, batch = 1, slots = 64, kv_heads = 2, head_dim = 16, dtype = bf16, policy = #kv.full>
func.func @prefill(%q: tensor<1x64x64xbf16>, %k: tensor<1x64x32xbf16>, %v: tensor<1x64x32xbf16>, %c: !full) -> (tensor<1x64x64xbf16>, !full) {
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 4, num_kv_heads = 2, head_dim = 16, phase = #llm<phase prefill>} : tensor<1x64x64xbf16>, tensor<1x64x32xbf16>, tensor<1x64x32xbf16>, !full -> tensor<1x64x64xbf16>
  return %o, %c1 : tensor<1x64x64xbf16>, !full
}
