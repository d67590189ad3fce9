// RUN: echo-opt %s --echo-vectorize-contractions=min-flops=0 | FileCheck %s
// RUN: echo-opt %s --echo-vectorize-contractions="tile-m=2 tile-n=8 tile-k=4 min-flops=0" | FileCheck %s --check-prefix=SMALL
// RUN: echo-opt %s --echo-vectorize-contractions | FileCheck %s --check-prefix=MIN

// By default contractions below 65536 multiply-adds stay scalar.
// MIN-LABEL: func.func @matmul
// MIN: linalg.matmul
// MIN-NOT: vector.contract

// Tiles are the largest divisors no larger than the limits (4x16x16 by
// default; 6 rows give a tile of 3), then each tile is one vector.contract.
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C3]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C16]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C16]]
// CHECK: vector.contract {{.*}} vector<3x16xf32>, vector<16x16xf32> into vector<3x16xf32>
// CHECK-NOT: linalg.matmul
// SMALL-LABEL: func.func @matmul
// SMALL: vector.contract {{.*}} vector<2x4xf32>, vector<4x8xf32> into vector<2x8xf32>
func.func @matmul(%a: tensor<6x32xf32>, %b: tensor<32x64xf32>, %c: tensor<6x64xf32>) -> tensor<6x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<6x32xf32>, tensor<32x64xf32>) outs(%c : tensor<6x64xf32>) -> tensor<6x64xf32>
  return %0 : tensor<6x64xf32>
}

// Batch loops get tile 1; a transposed operand keeps its map in the
// contraction.
// CHECK-LABEL: func.func @batch_matmul_transposed
// CHECK: vector.contract {{.*}} : vector<1x4x8xf32>, vector<1x16x8xf32> into vector<1x4x16xf32>
func.func @batch_matmul_transposed(%a: tensor<2x4x8xf32>, %b: tensor<2x16x8xf32>, %c: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  %0 = linalg.batch_matmul indexing_maps = [
      affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>,
      affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>,
      affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
      ins(%a, %b : tensor<2x4x8xf32>, tensor<2x16x8xf32>) outs(%c : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// Other linalg ops are left alone.
// CHECK-LABEL: func.func @generic
// CHECK: linalg.generic
// CHECK-NOT: vector.
func.func @generic(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
