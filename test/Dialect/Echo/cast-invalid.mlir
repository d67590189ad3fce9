// RUN: echo-opt %s -split-input-file -verify-diagnostics

// The shapes of a cast's operand and result match.
func.func @cast_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'echo.cast' op failed to verify that all of {x, result} have same shape}}
  %0 = "echo.cast"(%x) : (tensor<4x8xf32>) -> tensor<8x4xbf16>
  return
}

// -----

// Only f32, f16 and bf16 are cast between.
func.func @cast_f64(%x: tensor<4xf64>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xf64>'}}
  %0 = "echo.cast"(%x) : (tensor<4xf64>) -> tensor<4xf32>
  return
}

// -----

func.func @cast_to_i32(%x: tensor<4xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 32-bit float or 16-bit float or bfloat16 type values, but got 'tensor<4xi32>'}}
  %0 = "echo.cast"(%x) : (tensor<4xf32>) -> tensor<4xi32>
  return
}

// -----

// Statically shaped tensors only.
func.func @cast_dynamic(%x: tensor<?xf32>) {
  // expected-error @+1 {{operand #0 must be statically shaped tensor}}
  %0 = "echo.cast"(%x) : (tensor<?xf32>) -> tensor<?xbf16>
  return
}
