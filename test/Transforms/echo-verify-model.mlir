// RUN: echo-opt %s -split-input-file -echo-verify-model -verify-diagnostics | FileCheck %s

// A well-formed model passes and is left unchanged.
// CHECK-LABEL: func.func @good
// CHECK: echo.linear
func.func @good(%x: tensor<8x4xf32>, %w: tensor<2x4xf32> {echo.param},
                %b: tensor<2xf32> {echo.param}, %y: tensor<8xi32>) -> tensor<f32> {
  %c = arith.constant dense<1.0> : tensor<8x4xf32>
  %s = "echo.mul"(%x, %c) : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %h = "echo.linear"(%s, %w, %b) : (tensor<8x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<8x2xf32>
  %l = "echo.cross_entropy"(%h, %y) : (tensor<8x2xf32>, tensor<8xi32>) -> tensor<f32>
  return %l : tensor<f32>
}

// Training steps and declarations are not models.
func.func private @external(tensor<4xf32>) -> tensor<4xf32>
func.func @step(%w: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32>) attributes {echo.train_step} {
  %l = "echo.reduce_sum"(%w) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{model @vector_loss must return exactly one scalar loss of type tensor<f32>, but returns 'tensor<4xf32>'}}
func.func @vector_loss(%w: tensor<4xf32> {echo.param}) -> tensor<4xf32> {
  %t = "echo.tanh"(%w) : (tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

// expected-error @+1 {{model @two_results must return exactly one scalar loss}}
func.func @two_results(%w: tensor<4xf32> {echo.param}) -> (tensor<f32>, tensor<f32>) {
  %l = "echo.reduce_sum"(%w) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l, %l : tensor<f32>, tensor<f32>
}

// -----

// expected-error @+1 {{model @f16_loss must return exactly one scalar loss of type tensor<f32>}}
func.func @f16_loss(%w: tensor<4xf16> {echo.param}) -> tensor<f16> {
  %l = "echo.reduce_sum"(%w) {dimensions = array<i64: 0>} : (tensor<4xf16>) -> tensor<f16>
  return %l : tensor<f16>
}

// -----

// expected-error @+1 {{model @no_params has no argument marked 'echo.param'}}
func.func @no_params(%x: tensor<4xf32>) -> tensor<f32> {
  %l = "echo.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @foreign_op(%w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  // expected-error @+1 {{'math.tanh' in model @foreign_op is not a differentiable Echo forward op}}
  %t = math.tanh %w : tensor<4xf32>
  %l = "echo.reduce_sum"(%t) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Transfer ops belong to a rewritten training step, not to a model.
func.func @offload_in_model(%w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  // expected-error @+1 {{'echo.offload' in model @offload_in_model is not a differentiable Echo forward op}}
  %h = echo.offload %w : tensor<4xf32>
  // expected-error @+1 {{'echo.fetch' in model @offload_in_model is not a differentiable Echo forward op}}
  %y = echo.fetch %h : tensor<4xf32>
  %l = "echo.reduce_sum"(%y) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @gradient_op_in_model(%w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  // expected-error @+1 {{'echo.tanh_grad' in model @gradient_op_in_model is not a differentiable Echo forward op}}
  %t = "echo.tanh_grad"(%w, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %l = "echo.reduce_sum"(%t) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{model @branchy must have a single block}}
func.func @branchy(%w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  %l = "echo.reduce_sum"(%w) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  cf.br ^bb1
^bb1:
  return %l : tensor<f32>
}


// -----

// An argument too large to count (an unused one too: echo-run would draw
// its data). Ops bound their own tensors (BoundedTensors).
// expected-error @+1 {{argument #0 of model @huge_arg of type 'tensor<2305843009213693952xf32>' has a byte count that does not fit in int64, more than the largest tensor Echo accepts (2^50 bytes, 1 PiB)}}
func.func @huge_arg(%big: tensor<2305843009213693952xf32>, %w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  %l = echo.reduce_sum %w dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A constant too large to count.
func.func @huge_constant(%w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  // expected-error @+1 {{a result of type 'tensor<562949953421313x2xf32>' takes 4503599627370504 bytes, more than the largest tensor Echo accepts (2^50 bytes, 1 PiB)}}
  %c = arith.constant dense<1.0> : tensor<562949953421313x2xf32>
  %l = echo.reduce_sum %w dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
