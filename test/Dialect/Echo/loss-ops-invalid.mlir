// Verifier errors of the per-row cross-entropy and its gradient.
// RUN: echo-opt %s -split-input-file -verify-diagnostics

func.func @rows_shape(%l: tensor<4x10xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'echo.cross_entropy_rows' op result has shape [3] but [4] was expected}}
  %0 = echo.cross_entropy_rows %l, %y : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @rows_type(%l: tensor<4x10xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'echo.cross_entropy_rows' op result must be f32 or of the logits' element type, not 'bf16'}}
  %0 = echo.cross_entropy_rows %l, %y : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4xbf16>
  return
}

// -----

func.func @rows_labels(%l: tensor<4x10xf32>, %y: tensor<5xi32>) {
  // expected-error @+1 {{'echo.cross_entropy_rows' op}}
  %0 = echo.cross_entropy_rows %l, %y : (tensor<4x10xf32>, tensor<5xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @rows_smoothing(%l: tensor<4x10xf32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{'echo.cross_entropy_rows' op}}
  %0 = echo.cross_entropy_rows %l, %y {label_smoothing = 1.5 : f64} : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @grad_dloss_shape(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %d: tensor<2xf32>) {
  // expected-error @+1 {{'echo.cross_entropy_rows_grad' op 'dloss' has shape [2] but [4] was expected}}
  %0 = echo.cross_entropy_rows_grad %l, %y, %d : (tensor<4x10xf32>, tensor<4xi32>, tensor<2xf32>) -> tensor<4x10xf32>
  return
}

// -----

func.func @grad_dloss_type(%l: tensor<4x10xbf16>, %y: tensor<4xi32>, %d: tensor<4xf16>) {
  // expected-error @+1 {{'echo.cross_entropy_rows_grad' op 'dloss' must be f32 or of the logits' element type, not 'f16'}}
  %0 = echo.cross_entropy_rows_grad %l, %y, %d : (tensor<4x10xbf16>, tensor<4xi32>, tensor<4xf16>) -> tensor<4x10xbf16>
  return
}
