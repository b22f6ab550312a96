// RUN: snapflow-opt %s -split-input-file --shard-tp="tp=4 moe=split" -verify-diagnostics | FileCheck %s

// Tests that moe=split splits every expert like an MLP instead of spreading
// the experts: all 6 experts stay on every socket (6 would not spread over
// 4 sockets), each keeps 16 / 4 = 4 of its 16 intermediate columns (gate and
// up rows, down columns), the router is untouched, the shared experts (the
// MLP added to the routed experts' output) split from 16 to 4 as well, and
// one all-reduce after the sum adds the partial outputs.
// CHECK-LABEL: func.func @moe(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x16xbf16>)
// CHECK-NEXT:    %[[R:.+]] = llm.param @router : tensor<6x16xbf16>
// CHECK-NEXT:    %[[G:.+]] = llm.param @gate : tensor<6x4x16xbf16>
// CHECK-NEXT:    %[[U:.+]] = llm.param @up : tensor<6x4x16xbf16>
// CHECK-NEXT:    %[[D:.+]] = llm.param @down : tensor<6x16x4xbf16>
// CHECK-NEXT:    %[[SG:.+]] = llm.param @shared_gate : tensor<4x16xbf16>
// CHECK-NEXT:    %[[SU:.+]] = llm.param @shared_up : tensor<4x16xbf16>
// CHECK-NEXT:    %[[SD:.+]] = llm.param @shared_down : tensor<16x4xbf16>
// CHECK-NEXT:    %[[E:.+]] = llm.route %[[X]], %[[R]] {top_k = 2 : i64} : tensor<1x1x16xbf16>, tensor<6x16xbf16> -> tensor<1x1x2xi32>
// CHECK-NEXT:    %[[Y:.+]] = llm.moe %[[X]], %[[E]], %[[G]], %[[U]], %[[D]] {num_experts = 6 : i64, top_k = 2 : i64}
// CHECK-NEXT:    %[[M:.+]] = llm.mlp %[[X]], %[[SG]], %[[SU]], %[[SD]]
// CHECK-NEXT:    %[[A:.+]] = llm.add %[[Y]], %[[M]]
// CHECK-NEXT:    %[[S:.+]] = llm.all_reduce %[[A]] {group_size = 4 : i64, kind = #llm<reduce sum>} : tensor<1x1x16xbf16>
// CHECK-NEXT:    return %[[S]]
module attributes {df.target = #df.target<"tiny">} {
func.func @moe(%x: tensor<1x1x16xbf16>) -> tensor<1x1x16xbf16> {
  %r = llm.param @router : tensor<6x16xbf16>
  %g = llm.param @gate : tensor<6x16x16xbf16>
  %u = llm.param @up : tensor<6x16x16xbf16>
  %d = llm.param @down : tensor<6x16x16xbf16>
  %sg = llm.param @shared_gate : tensor<16x16xbf16>
  %su = llm.param @shared_up : tensor<16x16xbf16>
  %sd = llm.param @shared_down : tensor<16x16xbf16>
  %y_experts = llm.route %x, %r {top_k = 2} : tensor<1x1x16xbf16>, tensor<6x16xbf16> -> tensor<1x1x2xi32>
  %y_routed = llm.moe %x, %y_experts, %g, %u, %d {num_experts = 6, top_k = 2} : tensor<1x1x16xbf16>, tensor<1x1x2xi32>, tensor<6x16x16xbf16>, tensor<6x16x16xbf16>, tensor<6x16x16xbf16>
  %y_shared = llm.mlp %x, %sg, %su, %sd : tensor<1x1x16xbf16>, tensor<16x16xbf16>, tensor<16x16xbf16>, tensor<16x16xbf16>
  %y = llm.add %y_routed, %y_shared : tensor<1x1x16xbf16>
  return %y : tensor<1x1x16xbf16>
}
}

// -----

// Tests that split experts need a width that divides by tp: 6 intermediate
// columns over 4 sockets.
module attributes {df.target = #df.target<"tiny">} {
func.func @expert_width(%x: tensor<1x1x16xbf16>) -> tensor<1x1x16xbf16> {
  %r = llm.param @router : tensor<8x16xbf16>
  %g = llm.param @gate : tensor<8x6x16xbf16>
  %u = llm.param @up : tensor<8x6x16xbf16>
  %d = llm.param @down : tensor<8x16x6xbf16>
  %y_experts = llm.route %x, %r {top_k = 2} : tensor<1x1x16xbf16>, tensor<8x16xbf16> -> tensor<1x1x2xi32>
  // expected-error @+1 {{'llm.moe' op cannot split expert gate 'tensor<8x6x16xbf16>' over tp = 4: dimension of 6 does not divide}}
  %y = llm.moe %x, %y_experts, %g, %u, %d {num_experts = 8, top_k = 2} : tensor<1x1x16xbf16>, tensor<1x1x2xi32>, tensor<8x6x16xbf16>, tensor<8x6x16xbf16>, tensor<8x16x6xbf16>
  return %y : tensor<1x1x16xbf16>
}
}
