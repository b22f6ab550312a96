// RUN: snapflow-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(fuse-layers))" | FileCheck %s

// Tests that identical consecutive layers fold into one llm.repeat of the
// first layer's body: three layers (norm, projection, residual add) that
// differ only in their layer marker and parameter names become
// `llm.repeat 3 layers from 0` carrying the hidden state; the body is layer
// 0's, its ops without their marker, the repeat carries the marker of its
// first layer, and the op after the layers reads the loop's result.
// CHECK-LABEL: func.func @decode(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x8xbf16>)
// CHECK-NEXT:    %[[E:.+]] = llm.add %[[X]], %[[X]] : tensor<1x1x8xbf16>
// CHECK-NEXT:    %[[R:.+]] = llm.repeat 3 layers from 0 (%[[E]]) {llm.layer = 0 : i64} : (tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
// CHECK-NEXT:    ^bb0(%[[H:.+]]: tensor<1x1x8xbf16>):
// CHECK-NEXT:      %[[G:.+]] = llm.param @model.layers.0.norm : tensor<8xbf16>
// CHECK-NEXT:      %[[N:.+]] = llm.rms_norm %[[H]], %[[G]] {eps = 1.000000e-05 : f64} : tensor<1x1x8xbf16>, tensor<8xbf16>
// CHECK-NEXT:      %[[W:.+]] = llm.param @model.layers.0.proj : tensor<8x8xbf16>
// CHECK-NEXT:      %[[P:.+]] = llm.linear %[[N]], %[[W]] : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xbf16>
// CHECK-NEXT:      %[[Y:.+]] = llm.add %[[H]], %[[P]] : tensor<1x1x8xbf16>
// CHECK-NEXT:      llm.yield %[[Y]] : tensor<1x1x8xbf16>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[F:.+]] = llm.add %[[R]], %[[R]] : tensor<1x1x8xbf16>
// CHECK-NEXT:    return %[[F]]
func.func @decode(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %e = llm.add %x, %x : tensor<1x1x8xbf16>
  %g0 = llm.param @model.layers.0.norm {llm.layer = 0 : i64} : tensor<8xbf16>
  %n0 = llm.rms_norm %e, %g0 {eps = 1.0e-05 : f64, llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %w0 = llm.param @model.layers.0.proj {llm.layer = 0 : i64} : tensor<8x8xbf16>
  %p0 = llm.linear %n0, %w0 {llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xbf16>
  %h0 = llm.add %e, %p0 {llm.layer = 0 : i64} : tensor<1x1x8xbf16>
  %g1 = llm.param @model.layers.1.norm {llm.layer = 1 : i64} : tensor<8xbf16>
  %n1 = llm.rms_norm %h0, %g1 {eps = 1.0e-05 : f64, llm.layer = 1 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %w1 = llm.param @model.layers.1.proj {llm.layer = 1 : i64} : tensor<8x8xbf16>
  %p1 = llm.linear %n1, %w1 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xbf16>
  %h1 = llm.add %h0, %p1 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>
  %g2 = llm.param @model.layers.2.norm {llm.layer = 2 : i64} : tensor<8xbf16>
  %n2 = llm.rms_norm %h1, %g2 {eps = 1.0e-05 : f64, llm.layer = 2 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %w2 = llm.param @model.layers.2.proj {llm.layer = 2 : i64} : tensor<8x8xbf16>
  %p2 = llm.linear %n2, %w2 {llm.layer = 2 : i64} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xbf16>
  %h2 = llm.add %h1, %p2 {llm.layer = 2 : i64} : tensor<1x1x8xbf16>
  %f = llm.add %h2, %h2 : tensor<1x1x8xbf16>
  return %f : tensor<1x1x8xbf16>
}

// -----

// Tests that the loop carries every value a layer passes to the next, here
// the hidden state and the KV cache, in the order the first layer uses them;
// the attention inside keeps layer 0's cache index (it stands for layer
// 0 + i in iteration i), although layer 1's attention said 1.
// CHECK-LABEL: func.func @decode(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x8xbf16>, %[[C:.+]]: !kv.cache<{{.+}}>)
// CHECK-NEXT:    %[[R:.+]]:2 = llm.repeat 2 layers from 0 (%[[X]], %[[C]]) {llm.layer = 0 : i64} : (tensor<1x1x8xbf16>, !kv.cache<{{.+}}>) -> (tensor<1x1x8xbf16>, !kv.cache<{{.+}}>) {
// CHECK-NEXT:    ^bb0(%[[H:.+]]: tensor<1x1x8xbf16>, %[[HC:.+]]: !kv.cache<{{.+}}>):
// CHECK:           %[[O:.+]], %[[C1:.+]] = llm.attention %{{.+}}, %{{.+}}, %{{.+}}, %[[HC]] {head_dim = 4 : i64, layer = 0 : i64, num_heads = 2 : i64, num_kv_heads = 2 : i64, phase = #llm<phase decode>}
// CHECK:           %[[Y:.+]] = llm.add %[[H]], %{{.+}} : tensor<1x1x8xbf16>
// CHECK-NEXT:      llm.yield %[[Y]], %[[C1]] : tensor<1x1x8xbf16>, !kv.cache<{{.+}}>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]#0, %[[R]]#1
!c = !kv.cache<layers = 2, batch = 1, slots = 8, kv_heads = 2, head_dim = 4, dtype = bf16, policy = #kv.full>
func.func @decode(%x: tensor<1x1x8xbf16>, %c: !c) -> (tensor<1x1x8xbf16>, !c) {
  %wq0 = llm.param @model.layers.0.q {llm.layer = 0 : i64} : tensor<8x8xbf16>
  %q0 = llm.linear %x, %wq0 {llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xbf16>
  %wk0 = llm.param @model.layers.0.k {llm.layer = 0 : i64} : tensor<8x8xbf16>
  %k0 = llm.linear %x, %wk0 {llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xbf16>
  %wv0 = llm.param @model.layers.0.v {llm.layer = 0 : i64} : tensor<8x8xbf16>
  %v0 = llm.linear %x, %wv0 {llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xbf16>
  %o0, %c0 = llm.attention %q0, %k0, %v0, %c {layer = 0, num_heads = 2, num_kv_heads = 2, head_dim = 4, phase = #llm<phase decode>, llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<1x1x8xbf16>, tensor<1x1x8xbf16>, !c -> tensor<1x1x8xbf16>
  %wo0 = llm.param @model.layers.0.o {llm.layer = 0 : i64} : tensor<8x8xbf16>
  %y0 = llm.linear %o0, %wo0 {llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xbf16>
  %h0 = llm.add %x, %y0 {llm.layer = 0 : i64} : tensor<1x1x8xbf16>
  %wq1 = llm.param @model.layers.1.q {llm.layer = 1 : i64} : tensor<8x8xbf16>
  %q1 = llm.linear %h0, %wq1 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xbf16>
  %wk1 = llm.param @model.layers.1.k {llm.layer = 1 : i64} : tensor<8x8xbf16>
  %k1 = llm.linear %h0, %wk1 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xbf16>
  %wv1 = llm.param @model.layers.1.v {llm.layer = 1 : i64} : tensor<8x8xbf16>
  %v1 = llm.linear %h0, %wv1 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xbf16>
  %o1, %c1 = llm.attention %q1, %k1, %v1, %c0 {layer = 1, num_heads = 2, num_kv_heads = 2, head_dim = 4, phase = #llm<phase decode>, llm.layer = 1 : i64} : tensor<1x1x8xbf16>, tensor<1x1x8xbf16>, tensor<1x1x8xbf16>, !c -> tensor<1x1x8xbf16>
  %wo1 = llm.param @model.layers.1.o {llm.layer = 1 : i64} : tensor<8x8xbf16>
  %y1 = llm.linear %o1, %wo1 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xbf16>
  %h1 = llm.add %h0, %y1 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>
  return %h1, %c1 : tensor<1x1x8xbf16>, !c
}

// -----

// Tests that layers that differ are not folded together: two dense (MLP)
// layers then three MoE layers, as in DeepSeek, give two loops, the MoE loop
// starting at layer 2 from the dense loop's result.
// CHECK-LABEL: func.func @decode(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x8xbf16>)
// CHECK-NEXT:    %[[D:.+]] = llm.repeat 2 layers from 0 (%[[X]]) {llm.layer = 0 : i64}
// CHECK:           llm.mlp
// CHECK:           llm.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[M:.+]] = llm.repeat 3 layers from 2 (%[[D]]) {llm.layer = 2 : i64}
// CHECK:           llm.param @model.layers.2.router
// CHECK:           llm.moe
// CHECK:           llm.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[M]]
func.func @decode(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %g0 = llm.param @model.layers.0.gate {llm.layer = 0 : i64} : tensor<16x8xbf16>
  %u0 = llm.param @model.layers.0.up {llm.layer = 0 : i64} : tensor<16x8xbf16>
  %d0 = llm.param @model.layers.0.down {llm.layer = 0 : i64} : tensor<8x16xbf16>
  %m0 = llm.mlp %x, %g0, %u0, %d0 {llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<16x8xbf16>, tensor<16x8xbf16>, tensor<8x16xbf16>
  %h0 = llm.add %x, %m0 {llm.layer = 0 : i64} : tensor<1x1x8xbf16>
  %g1 = llm.param @model.layers.1.gate {llm.layer = 1 : i64} : tensor<16x8xbf16>
  %u1 = llm.param @model.layers.1.up {llm.layer = 1 : i64} : tensor<16x8xbf16>
  %d1 = llm.param @model.layers.1.down {llm.layer = 1 : i64} : tensor<8x16xbf16>
  %m1 = llm.mlp %h0, %g1, %u1, %d1 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>, tensor<16x8xbf16>, tensor<16x8xbf16>, tensor<8x16xbf16>
  %h1 = llm.add %h0, %m1 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>
  %r2 = llm.param @model.layers.2.router {llm.layer = 2 : i64} : tensor<4x8xbf16>
  %g2 = llm.param @model.layers.2.gate {llm.layer = 2 : i64} : tensor<4x4x8xbf16>
  %u2 = llm.param @model.layers.2.up {llm.layer = 2 : i64} : tensor<4x4x8xbf16>
  %d2 = llm.param @model.layers.2.down {llm.layer = 2 : i64} : tensor<4x8x4xbf16>
  %m2_experts = llm.route %h1, %r2 {top_k = 2, llm.layer = 2 : i64} : tensor<1x1x8xbf16>, tensor<4x8xbf16> -> tensor<1x1x2xi32>
  %m2 = llm.moe %h1, %m2_experts, %g2, %u2, %d2 {num_experts = 4, top_k = 2, llm.layer = 2 : i64} : tensor<1x1x8xbf16>, tensor<1x1x2xi32>, tensor<4x4x8xbf16>, tensor<4x4x8xbf16>, tensor<4x8x4xbf16>
  %h2 = llm.add %h1, %m2 {llm.layer = 2 : i64} : tensor<1x1x8xbf16>
  %r3 = llm.param @model.layers.3.router {llm.layer = 3 : i64} : tensor<4x8xbf16>
  %g3 = llm.param @model.layers.3.gate {llm.layer = 3 : i64} : tensor<4x4x8xbf16>
  %u3 = llm.param @model.layers.3.up {llm.layer = 3 : i64} : tensor<4x4x8xbf16>
  %d3 = llm.param @model.layers.3.down {llm.layer = 3 : i64} : tensor<4x8x4xbf16>
  %m3_experts = llm.route %h2, %r3 {top_k = 2, llm.layer = 3 : i64} : tensor<1x1x8xbf16>, tensor<4x8xbf16> -> tensor<1x1x2xi32>
  %m3 = llm.moe %h2, %m3_experts, %g3, %u3, %d3 {num_experts = 4, top_k = 2, llm.layer = 3 : i64} : tensor<1x1x8xbf16>, tensor<1x1x2xi32>, tensor<4x4x8xbf16>, tensor<4x4x8xbf16>, tensor<4x8x4xbf16>
  %h3 = llm.add %h2, %m3 {llm.layer = 3 : i64} : tensor<1x1x8xbf16>
  %r4 = llm.param @model.layers.4.router {llm.layer = 4 : i64} : tensor<4x8xbf16>
  %g4 = llm.param @model.layers.4.gate {llm.layer = 4 : i64} : tensor<4x4x8xbf16>
  %u4 = llm.param @model.layers.4.up {llm.layer = 4 : i64} : tensor<4x4x8xbf16>
  %d4 = llm.param @model.layers.4.down {llm.layer = 4 : i64} : tensor<4x8x4xbf16>
  %m4_experts = llm.route %h3, %r4 {top_k = 2, llm.layer = 4 : i64} : tensor<1x1x8xbf16>, tensor<4x8xbf16> -> tensor<1x1x2xi32>
  %m4 = llm.moe %h3, %m4_experts, %g4, %u4, %d4 {num_experts = 4, top_k = 2, llm.layer = 4 : i64} : tensor<1x1x8xbf16>, tensor<1x1x2xi32>, tensor<4x4x8xbf16>, tensor<4x4x8xbf16>, tensor<4x8x4xbf16>
  %h4 = llm.add %h3, %m4 {llm.layer = 4 : i64} : tensor<1x1x8xbf16>
  return %h4 : tensor<1x1x8xbf16>
}

// -----

// Tests that a layer that differs from both neighbours stays as it is,
// markers and all: one dense layer then two MoE layers (DeepSeek-V2-Lite's
// pattern) fold only the MoE layers, from layer 1.
// CHECK-LABEL: func.func @decode(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x8xbf16>)
// CHECK-NEXT:    llm.param @model.layers.0.gate {llm.layer = 0 : i64}
// CHECK-NEXT:    llm.param @model.layers.0.up {llm.layer = 0 : i64}
// CHECK-NEXT:    llm.param @model.layers.0.down {llm.layer = 0 : i64}
// CHECK-NEXT:    %[[M0:.+]] = llm.mlp %[[X]], {{.+}} {llm.layer = 0 : i64}
// CHECK-NEXT:    %[[H0:.+]] = llm.add %[[X]], %[[M0]] {llm.layer = 0 : i64}
// CHECK-NEXT:    %[[R:.+]] = llm.repeat 2 layers from 1 (%[[H0]]) {llm.layer = 1 : i64}
// CHECK:           llm.moe
// CHECK:           llm.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]
func.func @decode(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %g0 = llm.param @model.layers.0.gate {llm.layer = 0 : i64} : tensor<16x8xbf16>
  %u0 = llm.param @model.layers.0.up {llm.layer = 0 : i64} : tensor<16x8xbf16>
  %d0 = llm.param @model.layers.0.down {llm.layer = 0 : i64} : tensor<8x16xbf16>
  %m0 = llm.mlp %x, %g0, %u0, %d0 {llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<16x8xbf16>, tensor<16x8xbf16>, tensor<8x16xbf16>
  %h0 = llm.add %x, %m0 {llm.layer = 0 : i64} : tensor<1x1x8xbf16>
  %r1 = llm.param @model.layers.1.router {llm.layer = 1 : i64} : tensor<4x8xbf16>
  %g1 = llm.param @model.layers.1.gate {llm.layer = 1 : i64} : tensor<4x4x8xbf16>
  %u1 = llm.param @model.layers.1.up {llm.layer = 1 : i64} : tensor<4x4x8xbf16>
  %d1 = llm.param @model.layers.1.down {llm.layer = 1 : i64} : tensor<4x8x4xbf16>
  %m1_experts = llm.route %h0, %r1 {top_k = 2, llm.layer = 1 : i64} : tensor<1x1x8xbf16>, tensor<4x8xbf16> -> tensor<1x1x2xi32>
  %m1 = llm.moe %h0, %m1_experts, %g1, %u1, %d1 {num_experts = 4, top_k = 2, llm.layer = 1 : i64} : tensor<1x1x8xbf16>, tensor<1x1x2xi32>, tensor<4x4x8xbf16>, tensor<4x4x8xbf16>, tensor<4x8x4xbf16>
  %h1 = llm.add %h0, %m1 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>
  %r2 = llm.param @model.layers.2.router {llm.layer = 2 : i64} : tensor<4x8xbf16>
  %g2 = llm.param @model.layers.2.gate {llm.layer = 2 : i64} : tensor<4x4x8xbf16>
  %u2 = llm.param @model.layers.2.up {llm.layer = 2 : i64} : tensor<4x4x8xbf16>
  %d2 = llm.param @model.layers.2.down {llm.layer = 2 : i64} : tensor<4x8x4xbf16>
  %m2_experts = llm.route %h1, %r2 {top_k = 2, llm.layer = 2 : i64} : tensor<1x1x8xbf16>, tensor<4x8xbf16> -> tensor<1x1x2xi32>
  %m2 = llm.moe %h1, %m2_experts, %g2, %u2, %d2 {num_experts = 4, top_k = 2, llm.layer = 2 : i64} : tensor<1x1x8xbf16>, tensor<1x1x2xi32>, tensor<4x4x8xbf16>, tensor<4x4x8xbf16>, tensor<4x8x4xbf16>
  %h2 = llm.add %h1, %m2 {llm.layer = 2 : i64} : tensor<1x1x8xbf16>
  return %h2 : tensor<1x1x8xbf16>
}

// -----

// Tests that every attribute but the layer index and the parameter names
// must match: layer 0's norm has another eps (1e-06), so it stays, and only
// layers 1 and 2 fold.
// CHECK-LABEL: func.func @decode(
// CHECK:         llm.rms_norm {{.+}}eps = 9.99{{[0-9]+}}E-7 : f64, llm.layer = 0 : i64
// CHECK:         %[[H0:.+]] = llm.add {{.+}}llm.layer = 0 : i64
// CHECK-NEXT:    llm.repeat 2 layers from 1 (%[[H0]]) {llm.layer = 1 : i64}
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      llm.param @model.layers.1.norm : tensor<8xbf16>
// CHECK-NEXT:      llm.rms_norm {{.+}} {eps = 1.000000e-05 : f64}
func.func @decode(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %g0 = llm.param @model.layers.0.norm {llm.layer = 0 : i64} : tensor<8xbf16>
  %n0 = llm.rms_norm %x, %g0 {eps = 1.0e-06 : f64, llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %h0 = llm.add %x, %n0 {llm.layer = 0 : i64} : tensor<1x1x8xbf16>
  %g1 = llm.param @model.layers.1.norm {llm.layer = 1 : i64} : tensor<8xbf16>
  %n1 = llm.rms_norm %h0, %g1 {eps = 1.0e-05 : f64, llm.layer = 1 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %h1 = llm.add %h0, %n1 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>
  %g2 = llm.param @model.layers.2.norm {llm.layer = 2 : i64} : tensor<8xbf16>
  %n2 = llm.rms_norm %h1, %g2 {eps = 1.0e-05 : f64, llm.layer = 2 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %h2 = llm.add %h1, %n2 {llm.layer = 2 : i64} : tensor<1x1x8xbf16>
  return %h2 : tensor<1x1x8xbf16>
}

// -----

// Tests that identical layers that do not feed one another are not a loop:
// both layers read the function's argument.
// CHECK-LABEL: func.func @parallel(
// CHECK-NOT:     llm.repeat
// CHECK:         llm.add {{.+}}llm.layer = 0 : i64
// CHECK:         llm.add {{.+}}llm.layer = 1 : i64
// CHECK-NOT:     llm.repeat
func.func @parallel(%x: tensor<1x1x8xbf16>) -> (tensor<1x1x8xbf16>, tensor<1x1x8xbf16>) {
  %g0 = llm.param @model.layers.0.norm {llm.layer = 0 : i64} : tensor<8xbf16>
  %n0 = llm.rms_norm %x, %g0 {eps = 1.0e-05 : f64, llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %h0 = llm.add %x, %n0 {llm.layer = 0 : i64} : tensor<1x1x8xbf16>
  %g1 = llm.param @model.layers.1.norm {llm.layer = 1 : i64} : tensor<8xbf16>
  %n1 = llm.rms_norm %x, %g1 {eps = 1.0e-05 : f64, llm.layer = 1 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %h1 = llm.add %x, %n1 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>
  return %h0, %h1 : tensor<1x1x8xbf16>, tensor<1x1x8xbf16>
}

// -----

// Tests that IR without layer markers is left alone.
// CHECK-LABEL: func.func @unmarked(
// CHECK-NEXT:    llm.add
// CHECK-NEXT:    llm.add
// CHECK-NEXT:    return
func.func @unmarked(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %y = llm.add %x, %x : tensor<1x1x8xbf16>
  %z = llm.add %y, %y : tensor<1x1x8xbf16>
  return %z : tensor<1x1x8xbf16>
}

// -----

// Tests that a layer whose value is also used after the run is not folded
// into a loop's middle: layer 0's %h0 is returned, so only layers 1 and 2
// fold (a loop keeps no middle iteration's values).
// CHECK-LABEL: func.func @middle_escapes(
// CHECK:         %[[H0:.+]] = llm.add %{{.+}}, %{{.+}} {llm.layer = 0 : i64}
// CHECK-NEXT:    %[[R:.+]] = llm.repeat 2 layers from 1 (%[[H0]])
// CHECK:         return %[[R]], %[[H0]]
func.func @middle_escapes(%x: tensor<1x1x8xbf16>) -> (tensor<1x1x8xbf16>, tensor<1x1x8xbf16>) {
  %g0 = llm.param @model.layers.0.norm {llm.layer = 0 : i64} : tensor<8xbf16>
  %n0 = llm.rms_norm %x, %g0 {eps = 1.0e-05 : f64, llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %h0 = llm.add %n0, %x {llm.layer = 0 : i64} : tensor<1x1x8xbf16>
  %g1 = llm.param @model.layers.1.norm {llm.layer = 1 : i64} : tensor<8xbf16>
  %n1 = llm.rms_norm %h0, %g1 {eps = 1.0e-05 : f64, llm.layer = 1 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %h1 = llm.add %n1, %h0 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>
  %g2 = llm.param @model.layers.2.norm {llm.layer = 2 : i64} : tensor<8xbf16>
  %n2 = llm.rms_norm %h1, %g2 {eps = 1.0e-05 : f64, llm.layer = 2 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %h2 = llm.add %n2, %h1 {llm.layer = 2 : i64} : tensor<1x1x8xbf16>
  return %h2, %h0 : tensor<1x1x8xbf16>, tensor<1x1x8xbf16>
}

// -----

// Tests that a last layer with a value besides the carried ones stays out of
// the loop: layer 2's norm %n2 is returned, and a loop's results are only
// its carried values, so layers 0 and 1 fold and layer 2 follows them.
// CHECK-LABEL: func.func @last_escapes(
// CHECK:         %[[R:.+]] = llm.repeat 2 layers from 0 (%{{.+}})
// CHECK:         %[[N2:.+]] = llm.rms_norm %[[R]], %{{.+}} {eps = 1.000000e-05 : f64, llm.layer = 2 : i64}
// CHECK-NEXT:    %[[H2:.+]] = llm.add %[[N2]], %[[R]] {llm.layer = 2 : i64}
// CHECK-NEXT:    return %[[H2]], %[[N2]]
func.func @last_escapes(%x: tensor<1x1x8xbf16>) -> (tensor<1x1x8xbf16>, tensor<1x1x8xbf16>) {
  %g0 = llm.param @model.layers.0.norm {llm.layer = 0 : i64} : tensor<8xbf16>
  %n0 = llm.rms_norm %x, %g0 {eps = 1.0e-05 : f64, llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %h0 = llm.add %n0, %x {llm.layer = 0 : i64} : tensor<1x1x8xbf16>
  %g1 = llm.param @model.layers.1.norm {llm.layer = 1 : i64} : tensor<8xbf16>
  %n1 = llm.rms_norm %h0, %g1 {eps = 1.0e-05 : f64, llm.layer = 1 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %h1 = llm.add %n1, %h0 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>
  %g2 = llm.param @model.layers.2.norm {llm.layer = 2 : i64} : tensor<8xbf16>
  %n2 = llm.rms_norm %h1, %g2 {eps = 1.0e-05 : f64, llm.layer = 2 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %h2 = llm.add %n2, %h1 {llm.layer = 2 : i64} : tensor<1x1x8xbf16>
  return %h2, %n2 : tensor<1x1x8xbf16>, tensor<1x1x8xbf16>
}

// -----

// Tests that a function returning the last layer's non-carried value keeps
// computing that value: it returns %n2, not the loop's hidden state.
// CHECK-LABEL: func.func @returns_norm(
// CHECK:         %[[R:.+]] = llm.repeat 2 layers from 0
// CHECK:         %[[N2:.+]] = llm.rms_norm %[[R]], %{{.+}} {eps = 1.000000e-05 : f64, llm.layer = 2 : i64}
// CHECK:         return %[[N2]]
func.func @returns_norm(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %g0 = llm.param @model.layers.0.norm {llm.layer = 0 : i64} : tensor<8xbf16>
  %n0 = llm.rms_norm %x, %g0 {eps = 1.0e-05 : f64, llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %h0 = llm.add %n0, %x {llm.layer = 0 : i64} : tensor<1x1x8xbf16>
  %g1 = llm.param @model.layers.1.norm {llm.layer = 1 : i64} : tensor<8xbf16>
  %n1 = llm.rms_norm %h0, %g1 {eps = 1.0e-05 : f64, llm.layer = 1 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %h1 = llm.add %n1, %h0 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>
  %g2 = llm.param @model.layers.2.norm {llm.layer = 2 : i64} : tensor<8xbf16>
  %n2 = llm.rms_norm %h1, %g2 {eps = 1.0e-05 : f64, llm.layer = 2 : i64} : tensor<1x1x8xbf16>, tensor<8xbf16>
  %h2 = llm.add %n2, %h1 {llm.layer = 2 : i64} : tensor<1x1x8xbf16>
  return %n2 : tensor<1x1x8xbf16>
}

// -----

// Tests that layers repeating in groups fold into a strided loop: as in a
// model with cross-layer attention, layer 0 projects a value that layer 1
// reuses, layers 2 and 3 do the same, so no layer equals its neighbour but
// the pairs (0, 1) and (2, 3) match. The loop runs 2 iterations of 2 layers
// and its body is layers 0 and 1 (the reused value stays inside it).
// CHECK-LABEL: func.func @decode(
// CHECK-SAME:    %[[X:.+]]: tensor<1x1x8xbf16>)
// CHECK-NEXT:    %[[R:.+]] = llm.repeat 2 x 2 layers from 0 (%[[X]]) {llm.layer = 0 : i64} : (tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
// CHECK-NEXT:    ^bb0(%[[H:.+]]: tensor<1x1x8xbf16>):
// CHECK-NEXT:      %[[W:.+]] = llm.param @model.layers.0.k_proj : tensor<8x8xbf16>
// CHECK-NEXT:      %[[K:.+]] = llm.linear %[[H]], %[[W]] : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xbf16>
// CHECK-NEXT:      %[[A:.+]] = llm.add %[[H]], %[[K]] : tensor<1x1x8xbf16>
// CHECK-NEXT:      %[[B:.+]] = llm.add %[[A]], %[[K]] : tensor<1x1x8xbf16>
// CHECK-NEXT:      llm.yield %[[B]] : tensor<1x1x8xbf16>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %[[R]]
func.func @decode(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %w0 = llm.param @model.layers.0.k_proj {llm.layer = 0 : i64} : tensor<8x8xbf16>
  %k0 = llm.linear %x, %w0 {llm.layer = 0 : i64} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xbf16>
  %h0 = llm.add %x, %k0 {llm.layer = 0 : i64} : tensor<1x1x8xbf16>
  %h1 = llm.add %h0, %k0 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>
  %w2 = llm.param @model.layers.2.k_proj {llm.layer = 2 : i64} : tensor<8x8xbf16>
  %k2 = llm.linear %h1, %w2 {llm.layer = 2 : i64} : tensor<1x1x8xbf16>, tensor<8x8xbf16> -> tensor<1x1x8xbf16>
  %h2 = llm.add %h1, %k2 {llm.layer = 2 : i64} : tensor<1x1x8xbf16>
  %h3 = llm.add %h2, %k2 {llm.layer = 3 : i64} : tensor<1x1x8xbf16>
  return %h3 : tensor<1x1x8xbf16>
}

// -----

// Tests that a strided loop is taken only where it covers more layers than
// single layers do: five identical layers fold as `5 layers` (stride 2
// would cover only 4).
// CHECK-LABEL: func.func @decode(
// CHECK:         llm.repeat 5 layers from 0
func.func @decode(%x: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  %h0 = llm.add %x, %x {llm.layer = 0 : i64} : tensor<1x1x8xbf16>
  %h1 = llm.add %h0, %h0 {llm.layer = 1 : i64} : tensor<1x1x8xbf16>
  %h2 = llm.add %h1, %h1 {llm.layer = 2 : i64} : tensor<1x1x8xbf16>
  %h3 = llm.add %h2, %h2 {llm.layer = 3 : i64} : tensor<1x1x8xbf16>
  %h4 = llm.add %h3, %h3 {llm.layer = 4 : i64} : tensor<1x1x8xbf16>
  return %h4 : tensor<1x1x8xbf16>
}
