// RUN: echo-opt %s --split-input-file --echo-collapse-contiguous-loops | FileCheck %s

// A batch norm applied with its per-channel statistics: (n, c, h, w) with
// the statistics read as (c) becomes (n, c, h*w), every [N, C, H, W] buffer
// viewed as [N, C, H*W]; the body is unchanged.
// CHECK-LABEL: func.func @norm_apply
// CHECK-DAG: %[[X:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : memref<2x3x4x5xbf16> into memref<2x3x20xbf16>
// CHECK-DAG: %[[Y:.*]] = memref.collapse_shape %arg2 {{\[}}[0], [1], [2, 3]] : memref<2x3x4x5xbf16> into memref<2x3x20xbf16>
// CHECK: linalg.generic {indexing_maps = [#[[ID:.*]], #[[CH:.*]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %arg1 : memref<2x3x20xbf16>, memref<3xf32>) outs(%[[Y]] : memref<2x3x20xbf16>)
// CHECK: arith.extf
// CHECK: arith.subf
// CHECK: arith.truncf
func.func @norm_apply(%x: memref<2x3x4x5xbf16>, %mean: memref<3xf32>, %y: memref<2x3x4x5xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mean : memref<2x3x4x5xbf16>, memref<3xf32>) outs(%y : memref<2x3x4x5xbf16>) {
  ^bb0(%a: bf16, %m: f32, %o: bf16):
    %w = arith.extf %a : bf16 to f32
    %d = arith.subf %w, %m : f32
    %r = arith.truncf %d : f32 to bf16
    linalg.yield %r : bf16
  }
  return
}

// -----

// Every operand indexes all loops in order: one loop over the whole
// buffer, also through a subview with a dynamic offset whose strides nest
// (a kernel's part of the batch).
// CHECK-LABEL: func.func @elementwise_part
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : memref<?x8x16xf32, strided<[128, 16, 1], offset: ?>> into memref<?xf32, strided<[1], offset: ?>>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]}
func.func @elementwise_part(%x: memref<4x8x16xf32>, %y: memref<4x8x16xf32>, %lo: index, %n: index) {
  %xs = memref.subview %x[%lo, 0, 0] [%n, 8, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<?x8x16xf32, strided<[128, 16, 1], offset: ?>>
  %ys = memref.subview %y[%lo, 0, 0] [%n, 8, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<?x8x16xf32, strided<[128, 16, 1], offset: ?>>
  linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%xs : memref<?x8x16xf32, strided<[128, 16, 1], offset: ?>>) outs(%ys : memref<?x8x16xf32, strided<[128, 16, 1], offset: ?>>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Left as they are: a transpose (no two loops consecutive in both maps), a
// reduction, a body that reads linalg.index (dropout's element numbers),
// buffers whose strides do not nest (a column slice), and a generic on
// tensors.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: collapse_shape
// CHECK: iterator_types = ["parallel", "parallel"]
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: iterator_types = ["parallel", "parallel"]
// CHECK: linalg.index
// CHECK: iterator_types = ["parallel", "parallel"]
// CHECK: iterator_types = ["parallel", "parallel"]
// CHECK-NOT: collapse_shape
func.func @kept(%x: memref<4x8xf32>, %t: memref<8x4xf32>, %s: memref<4xf32>, %z: memref<4x16xf32>, %u: tensor<4x8xf32>) -> tensor<4x8xf32> {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j, i)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x8xf32>) outs(%t : memref<8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x8xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%x : memref<4x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    linalg.yield %f : f32
  }
  %cols = memref.subview %z[0, 0] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1]>>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x8xf32>) outs(%cols : memref<4x8xf32, strided<[16, 1]>>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%u : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A broadcast written as TOSA lowers it, a constant index in a map: left
// as it is (upstream's collapse would view the [1, 4, 1] buffer with a
// fourth dim it does not have).
// CHECK-LABEL: func.func @constant_index_broadcast
// CHECK-NOT: memref.collapse_shape
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg1 : memref<1x4x10xf32>, memref<1x4x1xf32>)
func.func @constant_index_broadcast(%l: memref<1x4x10xf32>, %m: memref<1x4x1xf32>, %o: memref<1x4x10xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%l, %m : memref<1x4x10xf32>, memref<1x4x1xf32>) outs(%o : memref<1x4x10xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  }
  return
}
