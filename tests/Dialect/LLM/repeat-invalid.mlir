// RUN: snapflow-opt %s -split-input-file -verify-diagnostics

// Tests that an llm.repeat runs at least once.
func.func @f(%h: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  // expected-error @+1 {{'llm.repeat' op count must be >= 1, got 0}}
  %r = llm.repeat 0 layers from 0 (%h) : (tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  ^bb0(%a: tensor<1x1x8xbf16>):
    llm.yield %a : tensor<1x1x8xbf16>
  }
  return %r : tensor<1x1x8xbf16>
}

// -----

// Tests that an llm.repeat starts at a layer index >= 0.
func.func @f(%h: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  // expected-error @+1 {{'llm.repeat' op first_layer must be >= 0, got -1}}
  %r = llm.repeat 2 layers from -1 (%h) : (tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  ^bb0(%a: tensor<1x1x8xbf16>):
    llm.yield %a : tensor<1x1x8xbf16>
  }
  return %r : tensor<1x1x8xbf16>
}

// -----

// Tests that the body takes the loop-carried values.
func.func @f(%h: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  // expected-error @+1 {{'llm.repeat' op body arguments must have the types of the inits}}
  %r = llm.repeat 2 layers from 0 (%h) : (tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  ^bb0(%a: tensor<1x1x4xbf16>):
    llm.yield %h : tensor<1x1x8xbf16>
  }
  return %r : tensor<1x1x8xbf16>
}

// -----

// Tests that the results have the loop-carried types.
func.func @f(%h: tensor<1x1x8xbf16>) -> tensor<1x1x4xbf16> {
  // expected-error @+1 {{'llm.repeat' op results must have the types of the inits}}
  %r = llm.repeat 2 layers from 0 (%h) : (tensor<1x1x8xbf16>) -> tensor<1x1x4xbf16> {
  ^bb0(%a: tensor<1x1x8xbf16>):
    llm.yield %a : tensor<1x1x8xbf16>
  }
  return %r : tensor<1x1x4xbf16>
}

// -----

// Tests that llm.yield passes on values of the loop-carried types.
func.func @f(%h: tensor<1x1x8xbf16>, %g: tensor<1x1x4xbf16>) -> tensor<1x1x8xbf16> {
  // expected-error @+1 {{'llm.repeat' op llm.yield must pass values of the inits' types}}
  %r = llm.repeat 2 layers from 0 (%h) : (tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  ^bb0(%a: tensor<1x1x8xbf16>):
    llm.yield %g : tensor<1x1x4xbf16>
  }
  return %r : tensor<1x1x8xbf16>
}

// -----

// Tests that a strided llm.repeat runs at least one layer per iteration.
func.func @f(%h: tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  // expected-error @+1 {{'llm.repeat' op stride must be >= 1, got 0}}
  %r = llm.repeat 2 x 0 layers from 0 (%h) : (tensor<1x1x8xbf16>) -> tensor<1x1x8xbf16> {
  ^bb0(%a: tensor<1x1x8xbf16>):
    llm.yield %a : tensor<1x1x8xbf16>
  }
  return %r : tensor<1x1x8xbf16>
}
