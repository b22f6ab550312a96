// Tests that impossible tensor-parallel degrees are errors naming the op and
// the numbers.

// RUN: snapflow import --model llama-3.2-1b --batch 1 --prompt 8 --context 64 | not snapflow-opt --shard-tp="tp=3" 2>&1 | FileCheck %s --check-prefix=HEADS
// HEADS: error: 'llm.attention' op cannot split 32 attention heads over tp = 3

// RUN: snapflow import --model deepseek-v2-lite --batch 1 --prompt 8 --context 64 | not snapflow-opt --shard-tp="tp=32" 2>&1 | FileCheck %s --check-prefix=MLAHEADS
// MLAHEADS: error: 'llm.mla_attention' op cannot split 16 attention heads over tp = 32

// RUN: snapflow import --model deepseek-v2-lite --batch 1 --prompt 8 --context 64 | not snapflow-opt --shard-tp="tp=4 mla-cache=pages" 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: error: shard-tp: mla-cache must be replicate or sequence, got 'pages'

// RUN: snapflow import --model deepseek-v2-lite --batch 1 --prompt 8 --context 64 | not snapflow-opt --shard-tp="tp=4 moe=tokens" 2>&1 | FileCheck %s --check-prefix=MOE
// MOE: error: shard-tp: moe must be expert or split, got 'tokens'

// RUN: snapflow import --model deepseek-v2-lite --batch 1 --prompt 8 --context 66 | not snapflow-opt --shard-tp="tp=4 mla-cache=sequence" 2>&1 | FileCheck %s --check-prefix=SEQ
// SEQ: cannot split a latent cache of 66 slots by sequence over tp = 4

// RUN: not snapflow-opt %s --shard-tp="tp=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: shard-tp: tp must be >= 1 (tp = 0, every socket of the target, needs a df.target), got 0

// A KV-head count that neither divides nor is divided by tp.
// RUN: not snapflow-opt %s --shard-tp="tp=4" 2>&1 | FileCheck %s --check-prefix=KV
// KV: error: 'llm.attention' op cannot split 6 KV heads over tp = 4: neither divides the other
!c = !kv.cache<layers = 1, batch = 1, slots = 8, kv_heads = 6, head_dim = 4, dtype = bf16, policy = #kv.full>
func.func @decode(%x: tensor<1x1x48xbf16>, %c: !c) -> tensor<1x1x48xbf16> {
  %wq = llm.param @q : tensor<48x48xbf16>
  %wk = llm.param @k : tensor<24x48xbf16>
  %wv = llm.param @v : tensor<24x48xbf16>
  %wo = llm.param @o : tensor<48x48xbf16>
  %q = llm.linear %x, %wq : tensor<1x1x48xbf16>, tensor<48x48xbf16> -> tensor<1x1x48xbf16>
  %k = llm.linear %x, %wk : tensor<1x1x48xbf16>, tensor<24x48xbf16> -> tensor<1x1x24xbf16>
  %v = llm.linear %x, %wv : tensor<1x1x48xbf16>, tensor<24x48xbf16> -> tensor<1x1x24xbf16>
  %o, %c1 = llm.attention %q, %k, %v, %c {layer = 0, num_heads = 12, num_kv_heads = 6, head_dim = 4, phase = #llm<phase decode>} : tensor<1x1x48xbf16>, tensor<1x1x24xbf16>, tensor<1x1x24xbf16>, !c -> tensor<1x1x48xbf16>
  %y = llm.linear %o, %wo : tensor<1x1x48xbf16>, tensor<48x48xbf16> -> tensor<1x1x48xbf16>
  return %y : tensor<1x1x48xbf16>
}
