// echo-update-in-place drops the results of a step that are its arguments'
// own buffers (upstream's drop-equivalent-buffer-results, which leaves
// public functions alone: the step is made private for the call); a result
// that one-shot bufferization had to write elsewhere is copied back into its
// argument first, with a warning.
// RUN: echo-opt %s -split-input-file --convert-echo-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --echo-update-in-place -verify-diagnostics | FileCheck %s

// The update is the last reader of the parameter and the state: written in
// place, both results are dropped and the loss is all that is returned.
// CHECK-LABEL: func.func @in_place
// CHECK-SAME: (%[[P:[^:]*]]: memref<16xf32>, %[[G:[^:]*]]: memref<16xf32>, %[[V:[^:]*]]: memref<16xf32>,
// CHECK-SAME: -> memref<f32> {
// CHECK-NOT: memref.alloc() {{.*}} : memref<16xf32>
// CHECK: linalg.generic {{.*}} outs(%[[P]], %[[V]] : memref<16xf32>, memref<16xf32>)
// CHECK-NOT: memref.copy
// CHECK: return %{{.*}} : memref<f32>
func.func @in_place(%p: tensor<16xf32>, %g: tensor<16xf32>, %v: tensor<16xf32>, %lr: tensor<f32>, %mu: tensor<f32>, %wd: tensor<f32>)
    -> (tensor<f32>, tensor<16xf32>, tensor<16xf32>) attributes {echo.updated_arguments = array<i64: -1, 0, 2>} {
  %l = echo.reduce_sum %p dims = [0] : (tensor<16xf32>) -> tensor<f32>
  %p1, %v1 = echo.momentum_update %p, %g, %v, %lr, %mu, %wd : tensor<16xf32>
  return %l, %p1, %v1 : tensor<f32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// The old parameter is read after the update: one-shot bufferization writes
// the new one into a copy, which goes back into the argument at the end of
// the step; the state is still written in place.
// CHECK-LABEL: func.func @conflict
// CHECK-SAME: (%[[P:[^:]*]]: memref<16xf32>, %[[G:[^:]*]]: memref<16xf32>, %[[V:[^:]*]]: memref<16xf32>,
// CHECK-SAME: -> memref<f32> {
// CHECK: %[[NEW:.*]] = memref.alloc() {{.*}} : memref<16xf32>
// CHECK: linalg.generic {{.*}} outs(%[[NEW]], %[[V]] : memref<16xf32>, memref<16xf32>)
// CHECK: memref.copy %[[NEW]], %[[P]] : memref<16xf32> to memref<16xf32>
// CHECK-NEXT: return %{{.*}} : memref<f32>
// expected-warning @+1 {{result 1 (the new value of argument 0) could not be written in place: a reader of the old value follows the update; it is copied back at the end of the step}}
func.func @conflict(%p: tensor<16xf32>, %g: tensor<16xf32>, %v: tensor<16xf32>, %lr: tensor<f32>, %mu: tensor<f32>, %wd: tensor<f32>)
    -> (tensor<f32>, tensor<16xf32>, tensor<16xf32>) attributes {echo.updated_arguments = array<i64: -1, 0, 2>} {
  %p1, %v1 = echo.momentum_update %p, %g, %v, %lr, %mu, %wd : tensor<16xf32>
  %l = echo.reduce_sum %p dims = [0] : (tensor<16xf32>) -> tensor<f32>
  return %l, %p1, %v1 : tensor<f32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// Only the functions that say which results are updates are changed: this
// one still returns its argument (and stays public).
// CHECK-LABEL: func.func @untouched
// CHECK-SAME: -> memref<4xf32>
// CHECK: return %{{.*}} : memref<4xf32>
func.func @untouched(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{'echo.updated_arguments' lists 2 results, but the function returns 3}}
func.func @mismatch(%p: tensor<16xf32>, %g: tensor<16xf32>, %v: tensor<16xf32>, %lr: tensor<f32>, %mu: tensor<f32>, %wd: tensor<f32>)
    -> (tensor<f32>, tensor<16xf32>, tensor<16xf32>) attributes {echo.updated_arguments = array<i64: -1, 0>} {
  %l = echo.reduce_sum %p dims = [0] : (tensor<16xf32>) -> tensor<f32>
  %p1, %v1 = echo.momentum_update %p, %g, %v, %lr, %mu, %wd : tensor<16xf32>
  return %l, %p1, %v1 : tensor<f32>, tensor<16xf32>, tensor<16xf32>
}
