// RUN: echo-opt %s -split-input-file -echo-transfer-calls -verify-diagnostics

// A symbol of the callee's name that is not the callee is an error.
memref.global "private" @echo_offload_f32 : memref<2xf32>
func.func @taken(%x: tensor<4xf32>) {
  // expected-error @+1 {{'echo.offload' op echo-transfer-calls: the symbol 'echo_offload_f32' is taken by something other than a function}}
  %h = echo.offload %x : tensor<4xf32>
  return
}

// -----

// expected-note @+1 {{defined here}}
func.func private @echo_offload_f32(memref<4xf32>)
func.func @clash(%x: tensor<4xf32>) {
  // expected-error @+1 {{'echo.offload' op echo-transfer-calls: 'echo_offload_f32' is already defined with type '(memref<4xf32>) -> ()', not '(memref<*xf32>, i64) -> ()'}}
  %h = echo.offload %x : tensor<4xf32>
  return
}
