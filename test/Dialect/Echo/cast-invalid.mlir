// Verifier errors of echo.cast and of the mixed-precision loss forms.
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

// -----

// A loss has the logits' element type or f32 (low-precision logits, an f32
// loss); another type is an error.
func.func @cross_entropy_f16_of_bf16(%l: tensor<4x10xbf16>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'echo.cross_entropy' op the result must be f32 or of the logits' element type, not 'f16'}}
  %0 = "echo.cross_entropy"(%l, %y) : (tensor<4x10xbf16>, tensor<4xi32>) -> tensor<f16>
  return
}

// -----

func.func @cross_entropy_terms_bf16_of_f16(%l: tensor<4x10xf16>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'echo.cross_entropy_terms' op the result must be f32 or of the logits' element type, not 'bf16'}}
  %0 = "echo.cross_entropy_terms"(%l, %y) : (tensor<4x10xf16>, tensor<4xi32>) -> tensor<4xbf16>
  return
}

// -----

func.func @cross_entropy_grad_dloss(%l: tensor<4x10xbf16>, %y: tensor<4xi32>, %d: tensor<f16>) {
  // expected-error @+1 {{'echo.cross_entropy_grad' op 'dloss' must be f32 or of the logits' element type, not 'f16'}}
  %0 = "echo.cross_entropy_grad"(%l, %y, %d) : (tensor<4x10xbf16>, tensor<4xi32>, tensor<f16>) -> tensor<4x10xbf16>
  return
}
