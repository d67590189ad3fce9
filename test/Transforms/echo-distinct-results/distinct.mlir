// RUN: echo-opt %s --echo-distinct-results | FileCheck %s
// RUN: echo-opt %s --echo-distinct-results --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --buffer-results-to-out-params="modify-public-functions hoist-static-allocs" | FileCheck %s --check-prefix=BUFFERS

// A value returned three times (the equal gradients of summed parameters)
// is returned once and then as two fresh copies; other results stay.
// CHECK-LABEL: func.func @repeated
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: %[[C1:.*]] = bufferization.alloc_tensor() copy(%[[G]]) : tensor<4xf32>
// CHECK: %[[C2:.*]] = bufferization.alloc_tensor() copy(%[[G]]) : tensor<4xf32>
// CHECK: return %arg1, %[[G]], %[[C1]], %[[C2]], %arg1
// Scalars and distinct values are left alone.
// CHECK-LABEL: func.func @distinct
// CHECK-NOT: bufferization.alloc_tensor
// Each result is then its own out-parameter (buffer-results-to-out-params
// crashed on an allocation returned twice).
// BUFFERS-LABEL: func.func @repeated(%{{.*}}: memref<4xf32>, %{{.*}}: f32, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) -> (f32, f32)
#id = affine_map<(d0) -> (d0)>
func.func @repeated(%x: tensor<4xf32>, %s: f32) -> (f32, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, f32) {
  %e = tensor.empty() : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %s, %g, %g, %g, %s : f32, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, f32
}

func.func @distinct(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %x, %y : tensor<4xf32>, tensor<4xf32>
}
