// RUN: not snapflow-opt %s --kv-compress="policy=full format=kivi2" --shard-tp="tp=4" 2>&1 | FileCheck %s --check-prefix=SHARD
// RUN: snapflow-opt %s --kv-compress="policy=full format=kivi2" --shard-tp="tp=1" | FileCheck %s --check-prefix=ONE
// RUN: snapflow-opt %s --kv-compress="policy=full format=fp8" --shard-tp="tp=4" | FileCheck %s --check-prefix=FP8

// Regression: a format checked against the whole cache must still fit each
// socket's share. KIVI quantizes values per token in groups of 32 channels:
// the whole cache's 8 KV heads of 4 give 32 value channels (one group), a
// socket's 2 heads at TP 4 only 8, which no group of 32 divides. shard-tp
// used to build that per-socket type without a check, leaving an invalid
// cache costed as if it were valid; it now names the flag's format and the
// split. At TP 1 the cache is whole and fine; fp8 has no groups.
// SHARD: error: shard-tp: tp 4 leaves each socket a cache the format kivi:bits=2,group=32,residual=128 cannot store: kivi quantizes values per token in groups of 32 channels, but a token's value has 8
// ONE: !kv.cache<layers = 1, batch = 1, slots = 256, kv_heads = 8, head_dim = 4, dtype = bf16, policy = #kv.full, format = #kv.kivi<bits = 2, group = 32, residual = 128>>
// FP8: !kv.cache<layers = 1, batch = 1, slots = 256, kv_heads = 2, head_dim = 4, dtype = bf16, policy = #kv.full, format = #kv.fp8>
!c = !kv.cache<layers = 1, batch = 1, slots = 256, kv_heads = 8, head_dim = 4, dtype = bf16, policy = #kv.full>
module @heads attributes {df.target = #df.target<"tiny">} {
func.func @decode(%x: tensor<1x1x64xbf16>, %c: !c) -> (tensor<1x1x64xbf16>, !c) {
  %wq = llm.param @q : tensor<64x64xbf16>
  %wk = llm.param @k : tensor<32x64xbf16>
  %wv = llm.param @v : tensor<32x64xbf16>
  %wo = llm.param @o : tensor<64x64xbf16>
  %q = llm.linear %x, %wq : tensor<1x1x64xbf16>, tensor<64x64xbf16> -> tensor<1x1x64xbf16>
  %k = llm.linear %x, %wk : tensor<1x1x64xbf16>, tensor<32x64xbf16> -> tensor<1x1x32xbf16>
  %v = llm.linear %x, %wv : tensor<1x1x64xbf16>, tensor<32x64xbf16> -> tensor<1x1x32xbf16>
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 16, num_kv_heads = 8, head_dim = 4, phase = #llm<phase decode>} : tensor<1x1x64xbf16>, tensor<1x1x32xbf16>, tensor<1x1x32xbf16>, !c -> tensor<1x1x64xbf16>
  %y = llm.linear %o, %wo : tensor<1x1x64xbf16>, tensor<64x64xbf16> -> tensor<1x1x64xbf16>
  return %y, %c1 : tensor<1x1x64xbf16>, !c
}
}
