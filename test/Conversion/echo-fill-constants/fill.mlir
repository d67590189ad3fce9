// RUN: echo-opt %s --echo-fill-constants --split-input-file --verify-diagnostics | FileCheck %s

// A splat tensor constant becomes a fill of an empty tensor (which
// bufferizes to a planned buffer filled on the device, not a host global);
// scalar constants and constants outside functions stay.
// CHECK-LABEL: func.func @splat
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[EMPTY:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[SCALAR:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: return %[[FILL]], %[[SCALAR]]
func.func @splat() -> (tensor<4x16xf32>, f32) {
  %0 = arith.constant dense<0.0> : tensor<4x16xf32>
  %1 = arith.constant 2.0 : f32
  return %0, %1 : tensor<4x16xf32>, f32
}

// CHECK-LABEL: func.func @integer
// CHECK: linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : tensor<8xi32>)
func.func @integer() -> tensor<8xi32> {
  %0 = arith.constant dense<7> : tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

func.func @not_splat() -> tensor<2xf32> {
  // expected-error @+1 {{'arith.constant' op echo-fill-constants: only splat tensor constants can be materialized in device memory}}
  %0 = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
