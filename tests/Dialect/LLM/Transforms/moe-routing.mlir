// RUN: snapflow-opt %s -split-input-file --moe-routing="seed=7 trials=1024" | FileCheck %s
// RUN: snapflow-opt %s -split-input-file --moe-routing="seed=7 trials=1024 skew=60" | FileCheck %s --check-prefix=SKEW

// Same seed, same result; another seed draws other numbers.
// RUN: snapflow-opt %s -split-input-file --moe-routing="seed=7 trials=1024" -o %t.seed7
// RUN: snapflow-opt %s -split-input-file --moe-routing="seed=7 trials=1024" -o %t.again
// RUN: diff %t.seed7 %t.again
// RUN: snapflow-opt %s -split-input-file --moe-routing="seed=8 trials=1024" -o %t.seed8
// RUN: not diff %t.seed7 %t.seed8

// The uniform formula is E (1 - (1 - k / (E x S))^N) for N tokens choosing k
// of the router's E x S experts, E of them on this socket. Where draws vary,
// the mean of 1024 of them is checked within 0.05 of the formula: about 2.8
// standard deviations of that mean in both cases below. With skew 60 the
// expert of popularity rank r is r^60 times less likely than the first
// (2^60 = 1.2e18), so every token picks the k most popular experts.

// Tests that one token touches exactly top_k experts, whatever the seed and
// the skew: 2 of 4, as the formula says, 4 (1 - (1 - 2/4)^1) = 2.
// CHECK-LABEL: func.func @one_token(
// CHECK:         llm.moe {{.+}}{expected_active_experts = 2.000000e+00 : f64, num_experts = 4 : i64, top_k = 2 : i64}
// SKEW-LABEL:  func.func @one_token(
// SKEW:          llm.moe {{.+}}{expected_active_experts = 2.000000e+00 : f64, num_experts = 4 : i64, top_k = 2 : i64}
func.func @one_token(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %r = llm.param @router : tensor<4x8xbf16>
  %g = llm.param @gate : tensor<4x4x8xbf16>
  %u = llm.param @up : tensor<4x4x8xbf16>
  %d = llm.param @down : tensor<4x8x4xbf16>
  %y_experts = llm.route %x, %r {top_k = 2} : tensor<1x1x8xbf16>, tensor<4x8xbf16> -> tensor<1x1x2xi32>
  %y = llm.moe %x, %y_experts, %g, %u, %d {num_experts = 4, top_k = 2} : tensor<1x1x8xbf16>, tensor<1x1x2xi32>, tensor<4x4x8xbf16>, tensor<4x4x8xbf16>, tensor<4x8x4xbf16>
  return %y : tensor<1x1x8xbf16>
}

// -----

// Tests that uniform draws agree with the formula and that skew concentrates
// the tokens. Two tokens (a batch of 2) each choosing 2 of 4 experts: the
// second token's pair is the first's (1 in 6: 2 experts), shares one expert
// with it (4 in 6: 3) or none (1 in 6: 4), a mean of (2 + 4 x 3 + 4) / 6 = 3,
// which is 4 (1 - (1 - 2/4)^2) = 3, with a variance of
// (4 + 4 x 9 + 16) / 6 - 9 = 1/3. With skew 60 both tokens pick the same two
// most popular experts: 2.
// CHECK-LABEL: func.func @two_tokens(
// CHECK:         llm.moe {{.+}}{expected_active_experts = {{(2\.9[5-9]|3\.0[0-4])[0-9]*(e\+00)?}} : f64, num_experts = 4 : i64, top_k = 2 : i64}
// SKEW-LABEL:  func.func @two_tokens(
// SKEW:          llm.moe {{.+}}{expected_active_experts = 2.000000e+00 : f64,
func.func @two_tokens(%x: tensor<2x1x8xbf16>) -> tensor<2x1x8xbf16> {
  %r = llm.param @router : tensor<4x8xbf16>
  %g = llm.param @gate : tensor<4x4x8xbf16>
  %u = llm.param @up : tensor<4x4x8xbf16>
  %d = llm.param @down : tensor<4x8x4xbf16>
  %y_experts = llm.route %x, %r {top_k = 2} : tensor<2x1x8xbf16>, tensor<4x8xbf16> -> tensor<2x1x2xi32>
  %y = llm.moe %x, %y_experts, %g, %u, %d {num_experts = 4, top_k = 2} : tensor<2x1x8xbf16>, tensor<2x1x2xi32>, tensor<4x4x8xbf16>, tensor<4x4x8xbf16>, tensor<4x8x4xbf16>
  return %y : tensor<2x1x8xbf16>
}

// -----

// Tests that every row of the input is a token: a prefill of 2 tokens
// (1 x 2) routes like a decode of 2 sequences (2 x 1), so both ops get the
// same count, in the band of 3 above, not the 2 of one token.
// CHECK-LABEL: func.func @rows(
// CHECK:         llm.moe {{.+}}{expected_active_experts = [[N:(2\.9[5-9]|3\.0[0-4])[0-9]*(e\+00)?]] : f64,
// CHECK:         llm.moe {{.+}}{expected_active_experts = [[N]] : f64,
func.func @rows(%p: tensor<1x2x8xbf16>, %d2: tensor<2x1x8xbf16>) -> (tensor<1x2x8xbf16>, tensor<2x1x8xbf16>) {
  %r = llm.param @router : tensor<4x8xbf16>
  %g = llm.param @gate : tensor<4x4x8xbf16>
  %u = llm.param @up : tensor<4x4x8xbf16>
  %d = llm.param @down : tensor<4x8x4xbf16>
  %y_experts = llm.route %p, %r {top_k = 2} : tensor<1x2x8xbf16>, tensor<4x8xbf16> -> tensor<1x2x2xi32>
  %y = llm.moe %p, %y_experts, %g, %u, %d {num_experts = 4, top_k = 2} : tensor<1x2x8xbf16>, tensor<1x2x2xi32>, tensor<4x4x8xbf16>, tensor<4x4x8xbf16>, tensor<4x8x4xbf16>
  %z_experts = llm.route %d2, %r {top_k = 2} : tensor<2x1x8xbf16>, tensor<4x8xbf16> -> tensor<2x1x2xi32>
  %z = llm.moe %d2, %z_experts, %g, %u, %d {num_experts = 4, top_k = 2} : tensor<2x1x8xbf16>, tensor<2x1x2xi32>, tensor<4x4x8xbf16>, tensor<4x4x8xbf16>, tensor<4x8x4xbf16>
  return %y, %z : tensor<1x2x8xbf16>, tensor<2x1x8xbf16>
}

// -----

// Tests that only this socket's experts count under expert parallelism: it
// holds 2 of the router's 2 x 4 = 8 experts. A token choosing all 8 touches
// its 2 (not 8). A token choosing 2 touches 0, 1 or 2 of them (15, 12 and 1
// in 28 of the pairs): a mean of 14 / 28 = 0.5, which is
// 2 (1 - (1 - 2/8)^1) = 0.5, with a variance of 16 / 28 - 0.25 = 9/28.
// CHECK-LABEL: func.func @sharded(
// CHECK:         llm.moe {{.+}}{expected_active_experts = 2.000000e+00 : f64, expert_shards = 4 : i64, num_experts = 2 : i64, top_k = 8 : i64}
// CHECK:         llm.moe {{.+}}{expected_active_experts = {{0\.(4[5-9]|5[0-4])[0-9]*}} : f64, expert_shards = 4 : i64, num_experts = 2 : i64, top_k = 2 : i64}
// SKEW-LABEL:  func.func @sharded(
// SKEW:          llm.moe {{.+}}{expected_active_experts = 2.000000e+00 : f64, expert_shards = 4 : i64, num_experts = 2 : i64, top_k = 8 : i64}
func.func @sharded(%x: tensor<1x1x8xbf16>) -> (tensor<1x1x8xbf16>, tensor<1x1x8xbf16>) {
  %r = llm.param @router : tensor<8x8xbf16>
  %g = llm.param @gate : tensor<2x4x8xbf16>
  %u = llm.param @up : tensor<2x4x8xbf16>
  %d = llm.param @down : tensor<2x8x4xbf16>
  %all_experts = llm.route %x, %r {top_k = 8} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xi32>
  %all = llm.moe %x, %all_experts, %g, %u, %d {num_experts = 2, top_k = 8, expert_shards = 4} : tensor<1x1x8xbf16>, tensor<1x1x8xi32>, tensor<2x4x8xbf16>, tensor<2x4x8xbf16>, tensor<2x8x4xbf16>
  %two_experts = llm.route %x, %r {top_k = 2} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x2xi32>
  %two = llm.moe %x, %two_experts, %g, %u, %d {num_experts = 2, top_k = 2, expert_shards = 4} : tensor<1x1x8xbf16>, tensor<1x1x2xi32>, tensor<2x4x8xbf16>, tensor<2x4x8xbf16>, tensor<2x8x4xbf16>
  return %all, %two : tensor<1x1x8xbf16>, tensor<1x1x8xbf16>
}

// -----

// Tests that a count recorded earlier (3.5) is replaced by the pass's own:
// one token, 2 experts.
// CHECK-LABEL: func.func @recount(
// CHECK:         llm.moe {{.+}}{expected_active_experts = 2.000000e+00 : f64,
func.func @recount(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %r = llm.param @router : tensor<4x8xbf16>
  %g = llm.param @gate : tensor<4x4x8xbf16>
  %u = llm.param @up : tensor<4x4x8xbf16>
  %d = llm.param @down : tensor<4x8x4xbf16>
  %y_experts = llm.route %x, %r {top_k = 2} : tensor<1x1x8xbf16>, tensor<4x8xbf16> -> tensor<1x1x2xi32>
  %y = llm.moe %x, %y_experts, %g, %u, %d {num_experts = 4, top_k = 2, expected_active_experts = 3.5 : f64} : tensor<1x1x8xbf16>, tensor<1x1x2xi32>, tensor<4x4x8xbf16>, tensor<4x4x8xbf16>, tensor<4x8x4xbf16>
  return %y : tensor<1x1x8xbf16>
}

// Bad options are errors naming both values.
// RUN: echo 'module {}' | not snapflow-opt --moe-routing="trials=0" 2>&1 | FileCheck %s --check-prefix=TRIALS
// TRIALS: error: moe-routing: trials must be >= 1 and skew a finite number >= 0, got 0 and 0.000000e+00
// RUN: echo 'module {}' | not snapflow-opt --moe-routing="skew=-1" 2>&1 | FileCheck %s --check-prefix=SKEWNEG
// SKEWNEG: error: moe-routing: trials must be >= 1 and skew a finite number >= 0, got 64 and -1.000000e+00

// A skew that is not a finite number is refused (NaN weights would leave the
// experts' order undefined).
// RUN: echo 'module {}' | not snapflow-opt --moe-routing="skew=nan" 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: error: moe-routing: trials must be >= 1 and skew a finite number >= 0, got 64 and nan
