// Models that do not follow the convention get a located error.
// RUN: echo-opt %s -split-input-file -echo-autodiff -verify-diagnostics

// expected-error @+1 {{model @vector_loss must return exactly one scalar loss of type tensor<f32>}}
func.func @vector_loss(%w: tensor<4xf32> {echo.param}) -> tensor<4xf32> {
  %t = "echo.tanh"(%w) : (tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

// expected-error @+1 {{model @no_params has no argument marked 'echo.param'}}
func.func @no_params(%x: tensor<4xf32>) -> tensor<f32> {
  %l = "echo.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// expected-error @+1 {{cannot add the training step of @taken: symbol @taken_train already exists}}
func.func @taken(%w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  %l = "echo.reduce_sum"(%w) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func private @taken_train()

// -----

// The chunked loss's per-row terms are echo-recompute's (chunk-loss=), not
// a model's: they have no gradient.
func.func @terms(%x: tensor<4x10xf32>, %y: tensor<4xi32>, %w: tensor<10x10xf32> {echo.param}) -> tensor<f32> {
  %z = "echo.matmul"(%x, %w) : (tensor<4x10xf32>, tensor<10x10xf32>) -> tensor<4x10xf32>
  // expected-error @+1 {{'echo.cross_entropy_terms' in model @terms is not a differentiable Echo forward op}}
  %t = "echo.cross_entropy_terms"(%z, %y) : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4xf32>
  %l = "echo.reduce_sum"(%t) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @foreign(%w: tensor<4xf32> {echo.param}) -> tensor<f32> {
  // expected-error @+1 {{'math.exp' in model @foreign is not a differentiable Echo forward op}}
  %e = math.exp %w : tensor<4xf32>
  %l = "echo.reduce_sum"(%e) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
