// tangents= (AOTAutograd style, a joint graph of primals and tangents): the
// forward pass is every op no tangent argument reaches. The loss need not
// be the first result.
// RUN: echo-opt %s --echo-adopt-training-step="function=joint tangents=2" | FileCheck %s

// CHECK-LABEL: func.func @joint
// CHECK-SAME: echo.adopted
// CHECK: linalg.matmul
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}echo.backward_begin
// CHECK: arith.select
func.func @joint(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>, %g: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %h = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %dh = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%h, %g : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    %s = arith.select %p, %b, %zero : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %dh, %r : tensor<4x8xf32>, tensor<4x8xf32>
}
