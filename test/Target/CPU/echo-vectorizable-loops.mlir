// RUN: echo-opt %s --split-input-file --echo-vectorizable-loops | FileCheck %s
// RUN: echo-opt %s --split-input-file --echo-vectorizable-loops=min-lanes=4 | FileCheck %s --check-prefix=LANES4

// A batch norm's statistic: summed over (n, h, w) per channel, its
// innermost loop w a contiguous reduction. In lanes: w becomes parallel,
// each w summing (n, h) in order into a zero-filled [C, W] accumulator of
// the output's type, then the lanes are added, in order, to the output.
// CHECK-LABEL: func.func @lanes
// CHECK: %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<3xf64>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<3x8xf64>
// CHECK: %[[LANEINIT:.*]] = linalg.fill ins(%[[ZERO]] : f64) outs(%[[EMPTY]] : tensor<3x8xf64>)
// CHECK: %[[L:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[LANEMAP:.*]]], iterator_types = ["reduction", "parallel", "reduction", "parallel"]} ins(%arg0 : tensor<4x3x5x8xf32>) outs(%[[LANEINIT]] : tensor<3x8xf64>)
// CHECK:   arith.mulf
// CHECK:   arith.extf
// CHECK:   arith.addf %out, %{{.*}} : f64
// CHECK: %[[S:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[L]] : tensor<3x8xf64>) outs(%[[INIT]] : tensor<3xf64>)
// CHECK:   arith.addf %out, %in : f64
// CHECK: return %[[S]]
func.func @lanes(%x: tensor<4x3x5x8xf32>) -> tensor<3xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3xf64>
  %i = linalg.fill ins(%z : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%x : tensor<4x3x5x8xf32>) outs(%i : tensor<3xf64>) {
  ^bb0(%a: f32, %acc: f64):
    %t = arith.mulf %a, %a : f32
    %w = arith.extf %t : f32 to f64
    %s = arith.addf %acc, %w : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>
  return %r : tensor<3xf64>
}

// -----

// A whole bf16 tensor summed in f32 (the term on the left of the add), with
// a second input broadcast along the lanes' loop (not read by it).
// CHECK-LABEL: func.func @lanes_bf16
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]} ins(%arg0, %arg1 : tensor<6x16xbf16>, tensor<6xbf16>) outs(%{{.*}} : tensor<16xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%{{.*}} : tensor<16xf32>) outs(%{{.*}} : tensor<f32>)
func.func @lanes_bf16(%x: tensor<6x16xbf16>, %m: tensor<6xbf16>, %i: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a)>, affine_map<(a, b) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x, %m : tensor<6x16xbf16>, tensor<6xbf16>) outs(%i : tensor<f32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %d = arith.subf %a, %b : bf16
    %w = arith.extf %d : bf16 to f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Left alone: an innermost loop shorter than min-lanes (7 < 8; with
// min-lanes=4 it is split), ...
// CHECK-LABEL: func.func @short_lanes
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
// CHECK-NOT: linalg.generic
// LANES4-LABEL: func.func @short_lanes
// LANES4: linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction", "parallel"]}{{.*}}outs(%{{.*}} : tensor<3x7xf64>)
func.func @short_lanes(%x: tensor<4x3x5x7xf32>, %i: tensor<3xf64>) -> tensor<3xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%x : tensor<4x3x5x7xf32>) outs(%i : tensor<3xf64>) {
  ^bb0(%a: f32, %acc: f64):
    %w = arith.extf %a : f32 to f64
    %s = arith.addf %acc, %w : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>
  return %r : tensor<3xf64>
}

// -----

// ... a sum over its innermost loop alone (a row sum), ...
// CHECK-LABEL: func.func @row_sum
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]}
// CHECK-NOT: linalg.generic
func.func @row_sum(%x: tensor<4x64xf32>, %i: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(r, k) -> (r, k)>, affine_map<(r, k) -> (r)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x64xf32>) outs(%i : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// ... an input that reads the innermost loop in another index than its last
// (a transposed read: the lanes would not be contiguous), ...
// CHECK-LABEL: func.func @transposed
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction"]}
// CHECK-NOT: linalg.generic
func.func @transposed(%x: tensor<16x3x8xf32>, %i: tensor<3xf32>) -> tensor<3xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(a, c, b) -> (b, c, a)>, affine_map<(a, c, b) -> (c)>], iterator_types = ["reduction", "parallel", "reduction"]} ins(%x : tensor<16x3x8xf32>) outs(%i : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

// ... and a reduction that is not a sum (a maximum), or a sum whose output
// value is read in the term too.
// CHECK-LABEL: func.func @not_sums
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction"]}
// CHECK:   arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "reduction"]}
// CHECK:   arith.mulf %in, %out
// CHECK-NOT: linalg.generic
func.func @not_sums(%x: tensor<16x3x8xf32>, %i: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %m = linalg.generic {indexing_maps = [affine_map<(a, c, b) -> (a, c, b)>, affine_map<(a, c, b) -> (c)>], iterator_types = ["reduction", "parallel", "reduction"]} ins(%x : tensor<16x3x8xf32>) outs(%i : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maximumf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, c, b) -> (a, c, b)>, affine_map<(a, c, b) -> (c)>], iterator_types = ["reduction", "parallel", "reduction"]} ins(%x : tensor<16x3x8xf32>) outs(%i : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.mulf %a, %acc : f32
    %s = arith.addf %acc, %t : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %m, %r : tensor<3xf32>, tensor<3xf32>
}

// -----

// A pooling window: (n, c, oh, ow, kh, kw) with the input read at
// ow * 2 + kw. The window loops move before ow, the output's last dim
// (which every input reads in its last index only); linalg.index follows
// its loop. Each output still folds kh, kw in the same order.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d3, d5 * 2 + d4)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>
// CHECK-LABEL: func.func @window
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[Y]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
// CHECK:   linalg.index 3 : index
// CHECK:   linalg.index 4 : index
// CHECK:   arith.maximumf
func.func @window(%x: tensor<2x3x9x9xf32>, %i: tensor<2x3x4x4xi64>) -> tensor<2x3x4x4xi64> {
  %k = tensor.empty() : tensor<3x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>, affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>, affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %k : tensor<2x3x9x9xf32>, tensor<3x3xf32>) outs(%i : tensor<2x3x4x4xi64>) {
  ^bb0(%a: f32, %unused: f32, %acc: i64):
    %kh = linalg.index 4 : index
    %kw = linalg.index 5 : index
    %f = arith.addi %kh, %kw : index
    %v = arith.index_cast %f : index to i64
    %m = arith.maximumf %a, %a : f32
    %c = arith.fptosi %m : f32 to i64
    %s = arith.addi %v, %c : i64
    %r = arith.minsi %acc, %s : i64
    linalg.yield %r : i64
  } -> tensor<2x3x4x4xi64>
  return %r : tensor<2x3x4x4xi64>
}

// -----

// Left alone: a contraction (m, n, k), whose inputs read n (B[k, n]) but
// never together with k in one index, and a window generic whose output's
// last dim is not the last parallel loop.
// CHECK-LABEL: func.func @not_windows
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
func.func @not_windows(%a: tensor<4x5xf32>, %b: tensor<5x6xf32>, %c: tensor<4x6xf32>, %x: tensor<2x3x9x9xf32>, %i: tensor<2x3x4x4xf32>) -> (tensor<4x6xf32>, tensor<2x3x4x4xf32>) {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4x5xf32>, tensor<5x6xf32>) outs(%c : tensor<4x6xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %t = arith.mulf %p, %q : f32
    %s = arith.maximumf %acc, %t : f32
    linalg.yield %s : f32
  } -> tensor<4x6xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(n, c, ow, oh, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>, affine_map<(n, c, ow, oh, kh, kw) -> (kh, kw)>, affine_map<(n, c, ow, oh, kh, kw) -> (n, c, oh, ow)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %k : tensor<2x3x9x9xf32>, tensor<3x3xf32>) outs(%i : tensor<2x3x4x4xf32>) {
  ^bb0(%v: f32, %unused: f32, %acc: f32):
    %s = arith.maximumf %acc, %v : f32
    linalg.yield %s : f32
  } -> tensor<2x3x4x4xf32>
  return %r, %w : tensor<4x6xf32>, tensor<2x3x4x4xf32>
}
