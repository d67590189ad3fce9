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

// Other dense constants: the data in a private constant global (renamed when
// the name is taken), copied element by element by a generic whose body
// reads the global, so that the outlined kernel carries it to the device.
// CHECK-DAG: memref.global "private" constant @__echo_constant : memref<2x2xf32> = dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]>
// CHECK-DAG: memref.global "private" constant @__echo_constant_0 : memref<3xi32> = dense<[1, 2, 3]>
// CHECK-LABEL: func.func @dense
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK: %[[A:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<2x2xf32>)
// CHECK:   %[[G:.*]] = memref.get_global @__echo_constant : memref<2x2xf32>
// CHECK:   %[[I:.*]] = linalg.index 0
// CHECK:   %[[J:.*]] = linalg.index 1
// CHECK:   %[[V:.*]] = memref.load %[[G]][%[[I]], %[[J]]]
// CHECK:   linalg.yield %[[V]]
// CHECK: linalg.generic
// CHECK:   memref.get_global @__echo_constant_0 : memref<3xi32>
// CHECK-NOT: arith.constant dense
func.func @dense() -> (tensor<2x2xf32>, tensor<3xi32>) {
  %0 = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %1 = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  return %0, %1 : tensor<2x2xf32>, tensor<3xi32>
}

// -----

// A constant that is not a dense attribute (a resource blob) has no data
// here to put on the device.
func.func @resource() -> tensor<2xf32> {
  // expected-error @+1 {{'arith.constant' op echo-fill-constants: only dense tensor constants can be materialized in device memory}}
  %0 = arith.constant dense_resource<blob> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}
