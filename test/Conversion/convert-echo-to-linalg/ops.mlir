// RUN: echo-opt %s --split-input-file --convert-echo-to-linalg | FileCheck %s

// Elementwise ops are one linalg.generic each.
// CHECK-LABEL: func.func @elementwise
// CHECK: linalg.generic
// CHECK:   math.tanh
// CHECK: linalg.generic
// CHECK:   arith.mulf
// CHECK:   arith.subf
// CHECK:   arith.mulf
// CHECK-NOT: echo.
func.func @elementwise(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = echo.tanh %x : tensor<4x8xf32>
  %dx = echo.tanh_grad %y, %dy : tensor<4x8xf32>
  return %dx : tensor<4x8xf32>
}

// -----

// The activations of the PyTorch importer are one linalg.generic each. erf
// is math.erf (echo-approximate-math approximates it on the CPU, libdevice
// computes it on nvvm); the gelu forms differ in erf and tanh.
// CHECK-LABEL: func.func @activations
// CHECK: linalg.generic
// CHECK:   math.erf
// CHECK-NEXT: linalg.yield
// CHECK: linalg.generic
// CHECK:   math.erf
// CHECK-NOT: math.tanh
// CHECK: linalg.yield
// CHECK: linalg.generic
// CHECK:   math.tanh
// CHECK-NOT: math.erf
// CHECK: linalg.yield
// mish's softplus cannot overflow: max(x, 0) + log1p(exp(-|x|)).
// CHECK: linalg.generic
// CHECK:   arith.maximumf
// CHECK:   math.absf
// CHECK:   arith.negf
// CHECK:   math.exp
// CHECK:   math.log1p
// CHECK:   math.tanh
// CHECK: linalg.generic
// CHECK:   math.exp
// CHECK:   arith.divf
// CHECK:   arith.mulf
// CHECK-NOT: echo.
func.func @activations(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = echo.erf %x : tensor<4x8xf32>
  %1 = echo.gelu %x : tensor<4x8xf32>
  %2 = echo.gelu %x {tanh_approximation = true} : tensor<4x8xf32>
  %3 = echo.mish %x : tensor<4x8xf32>
  %4 = echo.silu %x : tensor<4x8xf32>
  return %0, %1, %2, %3, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// clamp, hardsigmoid and hardswish bound with maximumf/minimumf, which
// propagate NaN as PyTorch does; a one-sided clamp keeps its infinite bound.
// CHECK-LABEL: func.func @bounded
// CHECK: linalg.generic
// CHECK:   %[[LO:.*]] = arith.constant -1.500000e+00 : f32
// CHECK:   %[[A:.*]] = arith.maximumf %{{.*}}, %[[LO]] : f32
// CHECK:   %[[HI:.*]] = arith.constant 2.000000e+00 : f32
// CHECK:   arith.minimumf %[[A]], %[[HI]] : f32
// CHECK: linalg.generic
// CHECK:   arith.constant 0xFF800000 : f32
// CHECK: linalg.generic
// CHECK:   arith.addf
// CHECK:   arith.maximumf
// CHECK:   arith.minimumf
// CHECK:   arith.divf
// CHECK: linalg.generic
// CHECK:   arith.minimumf
// CHECK:   arith.mulf
// CHECK:   arith.divf
func.func @bounded(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = echo.clamp %x {min = -1.5 : f64, max = 2.0 : f64} : tensor<4x8xf32>
  %1 = echo.clamp %x {min = 0xFFF0000000000000 : f64, max = 2.0 : f64} : tensor<4x8xf32>
  %2 = echo.hardsigmoid %x : tensor<4x8xf32>
  %3 = echo.hardswish %x : tensor<4x8xf32>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// The gradients at the bounds follow PyTorch's kernels: clamp_grad and
// hardsigmoid_grad pass dy strictly inside with ordered comparisons (a NaN x
// gives 0); hardswish_grad replaces dy·(x/3 + 1/2) by dy where x >= 3 and by
// 0 where x < -3 (a NaN x gives NaN).
// CHECK-LABEL: func.func @bounded_gradients
// CHECK: linalg.generic
// CHECK:   %[[GT:.*]] = arith.cmpf ogt, %[[X:.*]], %{{.*}} : f32
// CHECK:   %[[LT:.*]] = arith.cmpf olt, %[[X]], %{{.*}} : f32
// CHECK:   %[[IN:.*]] = arith.andi %[[GT]], %[[LT]] : i1
// CHECK:   arith.select %[[IN]], %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic
// CHECK:   arith.cmpf ogt
// CHECK:   arith.cmpf olt
// CHECK:   arith.andi
// CHECK:   arith.select
// CHECK: linalg.generic
// CHECK:   %[[MID:.*]] = arith.mulf %[[DY:.*]], %{{.*}} : f32
// CHECK:   %[[THREE:.*]] = arith.constant 3.000000e+00 : f32
// CHECK:   %[[GE:.*]] = arith.cmpf oge, %{{.*}}, %[[THREE]] : f32
// CHECK:   %[[UP:.*]] = arith.select %[[GE]], %[[DY]], %[[MID]] : f32
// CHECK:   %[[NEG3:.*]] = arith.constant -3.000000e+00 : f32
// CHECK:   %[[BELOW:.*]] = arith.cmpf olt, %{{.*}}, %[[NEG3]] : f32
// CHECK:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:   arith.select %[[BELOW]], %[[ZERO]], %[[UP]] : f32
// A clamp_grad of a mask selects by it.
// CHECK: linalg.generic {{.*}} ins(%arg2, %arg1 : tensor<4x8xi1>, tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[M:.*]]: i1, %[[D:.*]]: f32, %{{.*}}: f32):
// CHECK-NOT: arith.cmpf
// CHECK:   arith.select %[[M]], %[[D]], %{{.*}} : f32
func.func @bounded_gradients(%x: tensor<4x8xf32>, %dy: tensor<4x8xf32>, %m: tensor<4x8xi1>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = echo.clamp_grad %x, %dy {min = 0.0 : f64, max = 6.0 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  %1 = echo.hardsigmoid_grad %x, %dy : tensor<4x8xf32>
  %2 = echo.hardswish_grad %x, %dy : tensor<4x8xf32>
  %3 = echo.clamp_grad %m, %dy {min = 0.0 : f64, max = 6.0 : f64} : tensor<4x8xi1>, tensor<4x8xf32>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// select is arith.select on the mask; the other gradients are one generic
// each over x and dy. The derivatives of mish and of gelu's tanh form take
// tanh(u) and 1 - tanh(u)^2 from exp(-2|u|), without math.tanh, whose 1 -
// t^2 would cancel.
// CHECK-LABEL: func.func @select_and_gradients
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1, %arg2 : tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:   arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic {{.*}} ins(%arg1, %arg2 : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:   math.exp
// CHECK: linalg.generic {{.*}} ins(%arg1, %arg2 : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:   math.exp
// CHECK: linalg.generic {{.*}} ins(%arg1, %arg2 : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:   math.log1p
// CHECK-NOT: math.tanh
// CHECK:   math.exp
// CHECK: linalg.generic {{.*}} ins(%arg1, %arg2 : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:   math.erf
// CHECK:   math.exp
// CHECK: linalg.generic {{.*}} ins(%arg1, %arg2 : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-NOT: math.tanh
// CHECK:   math.absf
// CHECK:   math.exp
// CHECK-NOT: echo.
func.func @select_and_gradients(%m: tensor<4x8xi1>, %x: tensor<4x8xf32>, %dy: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = echo.select %m, %x, %dy : tensor<4x8xi1>, tensor<4x8xf32>
  %1 = echo.erf_grad %x, %dy : tensor<4x8xf32>
  %2 = echo.silu_grad %x, %dy : tensor<4x8xf32>
  %3 = echo.mish_grad %x, %dy : tensor<4x8xf32>
  %4 = echo.gelu_grad %x, %dy : tensor<4x8xf32>
  %5 = echo.gelu_grad %x, %dy {tanh_approximation = true} : tensor<4x8xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// The matmul family uses the named ops with transposed indexing maps; linear
// accumulates into the broadcast bias.
// CHECK-DAG: #[[A_T:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[B_T:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @matmuls
// CHECK: linalg.matmul indexing_maps = [#[[A_T]], {{.*}}]
// CHECK: %[[BIAS:.*]] = linalg.broadcast ins(%{{.*}} : tensor<16xf32>) outs(%{{.*}} : tensor<4x16xf32>) dimensions = [0]
// CHECK: linalg.matmul indexing_maps = [{{.*}}, #[[B_T]], {{.*}}] ins({{.*}}) outs(%[[BIAS]] : tensor<4x16xf32>)
// CHECK: linalg.batch_matmul
func.func @matmuls(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>, %x: tensor<4x8xf32>,
                   %w: tensor<16x8xf32>, %bias: tensor<16xf32>,
                   %p: tensor<2x4x8xf32>, %q: tensor<2x8x3xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x4x3xf32>) {
  %0 = echo.matmul %a, %b {transpose_a = true} : (tensor<8x4xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = echo.linear %x, %w, %bias : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = echo.batch_matmul %p, %q : (tensor<2x4x8xf32>, tensor<2x8x3xf32>) -> tensor<2x4x3xf32>
  return %0, %1, %2 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x4x3xf32>
}

// -----

// Dropout: one generic yielding y and the mask, drawn from the element's
// row-major index and the seed (seed 1: 0x9E3779B97F4A7C15 is added to the
// index), kept iff the top 24 bits of the hash are >= ratio * 2^24.
// CHECK-LABEL: func.func @dropout
// CHECK: %{{.*}}:2 = linalg.generic
// CHECK:   linalg.index 0
// CHECK:   linalg.index 1
// CHECK:   arith.constant -7046029254386353131 : i64
// CHECK:   arith.constant 40 : i64
// CHECK:   %[[T:.*]] = arith.constant 4194304 : i64
// CHECK:   %[[KEEP:.*]] = arith.cmpi uge, %{{.*}}, %[[T]] : i64
// CHECK:   linalg.yield %{{.*}}, %[[KEEP]] : f32, i1
func.func @dropout(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>) {
  %y, %m = echo.dropout %x {ratio = 2.500000e-01 : f64, seed = 1 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
  return %y, %m : tensor<4x8xf32>, tensor<4x8xi1>
}

// -----

// Recompute regions are inlined where they stood; the recomputed tanh is a
// new value, not the forward one.
// CHECK-LABEL: func.func @recompute
// CHECK: %[[FWD:.*]] = linalg.generic {{.*}} ins(%[[X:[a-z0-9]+]] : tensor<4xf32>)
// CHECK:   math.tanh
// CHECK: %[[RE:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4xf32>)
// CHECK:   math.tanh
// CHECK: return %[[FWD]], %[[RE]]
func.func @recompute(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y = echo.tanh %x : tensor<4xf32>
  %r = echo.recompute (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %t = echo.tanh %a : tensor<4xf32>
    echo.yield %t : tensor<4xf32>
  }
  return %y, %r : tensor<4xf32>, tensor<4xf32>
}

// -----

// pack_mask pads 35 bits to 40 and ORs bit j of each byte; unpack_mask
// shifts them back out and drops the padding.
// CHECK-LABEL: func.func @masks
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<5x7xi1> into tensor<35xi1>
// CHECK: tensor.pad %{{.*}} low[0] high[5]
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [5, 8] : tensor<40xi1> into tensor<5x8xi1>
// CHECK: linalg.generic
// CHECK:   arith.shli
// CHECK:   arith.ori
// CHECK: linalg.generic
// CHECK:   arith.shrui
// CHECK:   arith.trunci
// CHECK: tensor.extract_slice %{{.*}}[0] [35] [1] : tensor<40xi1> to tensor<35xi1>
func.func @masks(%m: tensor<5x7xi1>) -> tensor<5x7xi1> {
  %p = echo.pack_mask %m : (tensor<5x7xi1>) -> tensor<5xi8>
  %u = echo.unpack_mask %p : (tensor<5xi8>) -> tensor<5x7xi1>
  return %u : tensor<5x7xi1>
}

// -----

// Average pooling's gradient gathers: one generic over dx and the windows
// that contain each position (here ceil(2 / 2) = 1 per axis), reading the
// shares with tensor.extract, whatever the window; no slice per offset. The
// window loops come before dx's (h, w), so that the innermost is parallel.
// CHECK-LABEL: func.func @pool_grad
// CHECK: %[[SHARE:.*]] = linalg.generic
// CHECK: arith.divf
// CHECK: %[[WINDOWS:.*]] = tensor.empty() : tensor<1x1xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]} ins(%[[WINDOWS]] : tensor<1x1xf32>) outs(%{{.*}} : tensor<2x3x4x4xf32>)
// CHECK: tensor.extract %[[SHARE]]
// CHECK-NOT: tensor.insert_slice
func.func @pool_grad(%dy: tensor<2x3x2x2xf32>) -> tensor<2x3x4x4xf32> {
  %dx = echo.avg_pool2d_grad %dy {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x2x2xf32>) -> tensor<2x3x4x4xf32>
  return %dx : tensor<2x3x4x4xf32>
}

// -----

// A global pooling's gradient is one pass too (it was one slice per window
// offset: 256 here), average or max.
// CHECK-LABEL: func.func @global_pool_grad
// CHECK: tensor.empty() : tensor<1x1xf32>
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]
// CHECK-NOT: tensor.insert_slice
// CHECK-LABEL: func.func @global_max_pool_grad
// CHECK: tensor.empty() : tensor<1x1xf32>
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]
// CHECK-NOT: tensor.insert_slice
func.func @global_pool_grad(%dy: tensor<2x3x1x1xf32>) -> tensor<2x3x16x16xf32> {
  %dx = echo.avg_pool2d_grad %dy {kernel = array<i64: 16, 16>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x1x1xf32>) -> tensor<2x3x16x16xf32>
  return %dx : tensor<2x3x16x16xf32>
}
func.func @global_max_pool_grad(%x: tensor<2x3x16x16xf32>, %dy: tensor<2x3x1x1xf32>) -> tensor<2x3x16x16xf32> {
  %dx = echo.max_pool2d_grad %x, %dy {kernel = array<i64: 16, 16>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x16x16xf32>, tensor<2x3x1x1xf32>) -> tensor<2x3x16x16xf32>
  return %dx : tensor<2x3x16x16xf32>
}

// -----

// Max pooling's gradient gathers too, whatever the window: the maximum is
// recomputed, each window's first maximum found by a min-reduction over its
// row-major offsets (i64, INT64_MAX = none), and each input position sums
// the adjoints of the windows whose first maximum it is.
// CHECK-LABEL: func.func @max_pool_grad
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x2x2xf32>)
// CHECK: arith.maximumf
// CHECK: %[[NONE:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<2x3x2x2xi64>)
// CHECK: %[[ARG:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[Y]], %{{.*}} : tensor<2x3x4x4xf32>, tensor<2x3x2x2xf32>, tensor<2x2xf32>) outs(%[[NONE]] : tensor<2x3x2x2xi64>)
// CHECK: arith.cmpf oeq
// CHECK: arith.minsi
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]} ins(%{{.*}} : tensor<1x1xf32>) outs(%{{.*}} : tensor<2x3x4x4xf32>)
// CHECK: tensor.extract %[[ARG]]
// CHECK: tensor.extract %arg1
// CHECK-NOT: tensor.insert_slice
func.func @max_pool_grad(%x: tensor<2x3x4x4xf32>, %dy: tensor<2x3x2x2xf32>) -> tensor<2x3x4x4xf32> {
  %dx = echo.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>, tensor<2x3x2x2xf32>) -> tensor<2x3x4x4xf32>
  return %dx : tensor<2x3x4x4xf32>
}

// -----

// A grouped convolution views the channel dims as [groups, per group] and
// contracts with the group as one more parallel loop: x [N,C,H,W] becomes
// [N,G,C/G,H,W], the filter [G,F/G,C/G,KH,KW], the result [N,G,F/G,OH,OW],
// collapsed back; nothing is copied.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @grouped_conv
// CHECK: %[[XG:.*]] = tensor.expand_shape %arg0 {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 5, 5] : tensor<2x4x5x5xf32> into tensor<2x2x2x5x5xf32>
// CHECK: %[[WG:.*]] = tensor.expand_shape %arg1 {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
// CHECK: %[[YG:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[W]], #[[Y]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[XG]], %[[WG]] : {{.*}}) outs(%{{.*}} : tensor<2x2x3x3x3xf32>)
// CHECK: tensor.collapse_shape %[[YG]] {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x3x3x3xf32> into tensor<2x6x3x3xf32>
// The filter gradient splits dy along its channels and the result along
// its filters.
// CHECK-LABEL: func.func @grouped_conv_grad_filter
// CHECK: tensor.expand_shape %arg1 {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 3, 3, 3]
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel", "parallel", "reduction", "reduction", "parallel", "parallel", "parallel"]{{.*}} outs(%{{.*}} : tensor<2x3x2x3x3xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3], [4]] : tensor<2x3x2x3x3xf32> into tensor<6x2x3x3xf32>
// The input gradient: per kernel offset, a grouped [F/G, C/G] contraction
// per group, merged back and added into its strided window.
// CHECK-LABEL: func.func @grouped_conv_grad_input
// CHECK: tensor.expand_shape %arg1 {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 3, 3, 3]
// CHECK-COUNT-9: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [2, 3, 2] : tensor<6x2xf32> into tensor<2x3x2xf32>
func.func @grouped_conv(%x: tensor<2x4x5x5xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x6x3x3xf32> {
  %y = echo.conv2d %x, %w {groups = 2 : i64, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x4x5x5xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x3x3xf32>
  return %y : tensor<2x6x3x3xf32>
}
func.func @grouped_conv_grad_filter(%x: tensor<2x4x5x5xf32>, %dy: tensor<2x6x3x3xf32>) -> tensor<6x2x3x3xf32> {
  %dw = echo.conv2d_grad_filter %x, %dy {groups = 2 : i64, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x4x5x5xf32>, tensor<2x6x3x3xf32>) -> tensor<6x2x3x3xf32>
  return %dw : tensor<6x2x3x3xf32>
}
func.func @grouped_conv_grad_input(%w: tensor<6x2x3x3xf32>, %dy: tensor<2x6x3x3xf32>) -> tensor<2x4x5x5xf32> {
  %dx = echo.conv2d_grad_input %w, %dy {groups = 2 : i64, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<6x2x3x3xf32>, tensor<2x6x3x3xf32>) -> tensor<2x4x5x5xf32>
  return %dx : tensor<2x4x5x5xf32>
}

// -----

// ceil_mode: the last window [4, 7) runs past the 6 input rows, so the
// input is padded by one more row and column on the far side (-inf for the
// max, 0 for the sum). count_include_pad counts what lies inside the padded
// input (here no padding: the clipped window counts 2 of its 3 rows).
// CHECK-LABEL: func.func @ceil_pool
// CHECK: tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: : tensor<1x1x6x6xf32> to tensor<1x1x7x7xf32>
// CHECK: arith.constant dense<{{\[}}[9.000000e+00, 9.000000e+00, 6.000000e+00], [9.000000e+00, 9.000000e+00, 6.000000e+00], [6.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<3x3xf32>
// CHECK: arith.divf
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NEGINF]]
// CHECK: arith.maximumf
// With padding 1 (windows from row -1, 1, 3, 5 of the 6 rows),
// count_include_pad counts the padding (3 rows for the first window) but
// not the row past it that the last, ceil_mode window adds (2 rows, not 3);
// without it, only input rows count (2, 3, 3, 1).
// CHECK-LABEL: func.func @include_pad
// CHECK: tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 2, 2]
// CHECK: arith.constant dense<{{\[}}[9.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [9.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [9.000000e+00, 9.000000e+00, 9.000000e+00, 6.000000e+00], [6.000000e+00, 6.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<4x4xf32>
// CHECK-LABEL: func.func @exclude_pad
// CHECK: arith.constant dense<{{\[}}[4.000000e+00, 6.000000e+00, 6.000000e+00, 2.000000e+00], [6.000000e+00, 9.000000e+00, 9.000000e+00, 3.000000e+00], [6.000000e+00, 9.000000e+00, 9.000000e+00, 3.000000e+00], [2.000000e+00, 3.000000e+00, 3.000000e+00, 1.000000e+00]]> : tensor<4x4xf32>
func.func @ceil_pool(%x: tensor<1x1x6x6xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>) {
  %y = echo.avg_pool2d %x {ceil_mode = true, count_include_pad = true, kernel = array<i64: 3, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x1x6x6xf32>) -> tensor<1x1x3x3xf32>
  %z = echo.max_pool2d %x {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x1x6x6xf32>) -> tensor<1x1x3x3xf32>
  return %y, %z : tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>
}
func.func @include_pad(%x: tensor<1x1x6x6xf32>) -> tensor<1x1x4x4xf32> {
  %y = echo.avg_pool2d %x {ceil_mode = true, count_include_pad = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x6x6xf32>) -> tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
}
func.func @exclude_pad(%x: tensor<1x1x6x6xf32>) -> tensor<1x1x4x4xf32> {
  %y = echo.avg_pool2d %x {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x6x6xf32>) -> tensor<1x1x4x4xf32>
  return %y : tensor<1x1x4x4xf32>
}

// -----

// Adaptive pooling 5x7 -> 3x2: rows [0,2) [1,4) [3,5), columns [0,4)
// [3,7). One generic runs kh/kw over the largest window (3x4, carried by an
// unread tensor) from row floor(oh·5/3) (a floordiv in the map) of an input
// padded by one row, selects the positions inside the window, and divides
// by the window sizes.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, (d2 * 5) floordiv 3 + d4, (d3 * 7) floordiv 2 + d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, (d2 * 3) floordiv 5 + d4, (d3 * 2) floordiv 7 + d5)>
// CHECK-LABEL: func.func @adaptive
// CHECK: %[[XP:.*]] = tensor.pad %arg0 low[0, 0, 0, 0] high[0, 0, 1, 0]
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[XP]], %[[WIN]] : tensor<2x3x6x7xf32>, tensor<3x4xf32>)
// CHECK: arith.cmpi ult
// CHECK: arith.select
// CHECK: arith.constant dense<{{\[}}[8.000000e+00, 8.000000e+00], [1.200000e+01, 1.200000e+01], [8.000000e+00, 8.000000e+00]]> : tensor<3x2xf32>
// CHECK: arith.divf
// The gradient divides dy by the window sizes and gathers, for each input
// row h, the windows floor(h·3/5) + jh that contain it (at most 2 per axis).
// CHECK-LABEL: func.func @adaptive_grad
// CHECK: %[[SHARE:.*]] = linalg.generic
// CHECK: arith.divf
// CHECK: %[[SP:.*]] = tensor.pad %[[SHARE]] low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: %[[J:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[OUT]], {{.*}}]{{.*}} ins(%[[SP]], %[[J]] : tensor<2x3x4x3xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<2x3x5x7xf32>)
// CHECK: arith.cmpi ule
// CHECK: arith.select
func.func @adaptive(%x: tensor<2x3x5x7xf32>) -> tensor<2x3x3x2xf32> {
  %y = echo.adaptive_avg_pool2d %x {output_size = array<i64: 3, 2>} : (tensor<2x3x5x7xf32>) -> tensor<2x3x3x2xf32>
  return %y : tensor<2x3x3x2xf32>
}
func.func @adaptive_grad(%dy: tensor<2x3x3x2xf32>) -> tensor<2x3x5x7xf32> {
  %dx = echo.adaptive_avg_pool2d_grad %dy : (tensor<2x3x3x2xf32>) -> tensor<2x3x5x7xf32>
  return %dx : tensor<2x3x5x7xf32>
}

// -----

// Dropout with broadcast_dims = [2, 3]: the counter is the row-major index
// over (n, c) alone, so the spatial loops never enter it.
// CHECK-LABEL: func.func @dropout_broadcast
// CHECK: %{{.*}}:2 = linalg.generic
// CHECK: %[[N:.*]] = linalg.index 0
// CHECK: arith.addi %{{.*}}, %[[N]]
// CHECK: %[[C:.*]] = linalg.index 1
// CHECK: %[[NC:.*]] = arith.addi %{{.*}}, %[[C]]
// CHECK-NOT: linalg.index
// CHECK: arith.index_castui %[[NC]] : index to i64
// CHECK: linalg.yield
func.func @dropout_broadcast(%x: tensor<2x3x4x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x4x5xi1>) {
  %y, %m = echo.dropout %x {broadcast_dims = array<i64: 2, 3>, ratio = 5.000000e-01 : f64, seed = 1 : i64} : (tensor<2x3x4x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x4x5xi1>)
  return %y, %m : tensor<2x3x4x5xf32>, tensor<2x3x4x5xi1>
}

// -----

// Elementwise arith on tensors (echo-recompute's ReLU masks) becomes a
// linalg.generic; arith on scalars and constants stay.
// CHECK-LABEL: func.func @relu_mask
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %[[ZERO]] : tensor<4x8xf32>, tensor<4x8xf32>) outs(%{{.*}} : tensor<4x8xi1>)
// CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
// CHECK-NOT: arith.cmpf ogt, %{{.*}}, %{{.*}} : tensor
func.func @relu_mask(%x: tensor<4x8xf32>) -> tensor<4x8xi1> {
  %zero = arith.constant dense<0.000000e+00> : tensor<4x8xf32>
  %m = arith.cmpf ogt, %x, %zero : tensor<4x8xf32>
  return %m : tensor<4x8xi1>
}

// -----

// A concatenation is one tensor.concat, whatever the number of inputs (a
// chain of insert_slice ops made one-shot bufferization quadratic in it).
// CHECK-LABEL: func.func @concat
// CHECK: %[[C:.*]] = tensor.concat dim(1) %arg0, %arg1, %arg0 : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[C]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x11xf32> {
  %c = "echo.concat"(%a, %b, %a) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
  return %c : tensor<2x11xf32>
}

// -----

// Sums of more than 16 f32 terms accumulate in f64 and are rounded to f32
// once (a mean's 1/n applied before the rounding); shorter sums stay in f32.
// CHECK-LABEL: func.func @sums
// CHECK: %[[ACC:.*]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]} ins(%arg0 : tensor<64x8xf32>) outs(%{{.*}} : tensor<8xf64>)
// CHECK:   %[[E:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK:   arith.addf %{{.*}}, %[[E]] : f64
// CHECK: linalg.generic {{.*}} ins(%[[ACC]] : tensor<8xf64>) outs(%{{.*}} : tensor<8xf32>)
// CHECK:   arith.truncf %{{.*}} : f64 to f32
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%arg1 : tensor<4x16xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK-NOT: arith.extf
// CHECK:   arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: arith.truncf
// CHECK: return
func.func @sums(%x: tensor<64x8xf32>, %y: tensor<4x16xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  %0 = echo.reduce_sum %x dims = [0] : (tensor<64x8xf32>) -> tensor<8xf32>
  %1 = echo.reduce_sum %y dims = [1] : (tensor<4x16xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<8xf32>, tensor<4xf32>
}

// -----

// A batch norm's mean and variance are f64 sums over N*H*W, scaled by 1/n in
// f64 and rounded once.
// CHECK-LABEL: func.func @norm_stats
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<3xf64>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<3xf64>)
// CHECK:   %[[M:.*]] = arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK:   arith.truncf %[[M]] : f64 to f32
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<3xf64>)
// CHECK:   arith.subf %{{.*}}, %{{.*}} : f32
func.func @norm_stats(%x: tensor<2x3x4x4xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x4x4xf32> {
  %y = echo.batch_norm %x, %g, %b {epsilon = 1.000000e-05 : f64} : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x4xf32>
  return %y : tensor<2x3x4x4xf32>
}

// -----

// NaN propagates as in PyTorch: relu keeps x unless x <= 0 (cmpf ugt is true
// for NaN), and dropout multiplies by its mask's scale (a dropped NaN is
// NaN * 0) instead of selecting zero.
// CHECK-LABEL: func.func @nan
// CHECK: linalg.generic
// CHECK:   %[[P:.*]] = arith.cmpf ugt, %{{.*}}, %{{.*}} : f32
// CHECK:   arith.select %[[P]], %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic
// CHECK:   %[[S:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:   %[[Y:.*]] = arith.mulf %{{.*}}, %[[S]] : f32
// CHECK:   linalg.yield %[[Y]], %{{.*}} : f32, i1
func.func @nan(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi1>) {
  %r = echo.relu %x : tensor<4x8xf32>
  %y, %m = echo.dropout %x {ratio = 2.500000e-01 : f64, seed = 1 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
  return %r, %y, %m : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi1>
}

// -----

// The chunked loss's ops: cross_entropy_terms keeps one term per row (no
// sum over the rows: the terms' op is parallel), cross_entropy_grad with
// total_rows scales by 1/total_rows (here 1/8, not the chunk's 1/4), and a
// slice of i32 labels is a tensor.extract_slice.
// CHECK-LABEL: func.func @chunk_loss
// CHECK: %[[TERMS:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel"]}
// CHECK: math.log
// CHECK: arith.subf
// CHECK: } -> tensor<4xf32>
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: tensor.extract_slice %{{.*}}[2] [2] [1] : tensor<4xi32> to tensor<2xi32>
// CHECK: return %[[TERMS]]
func.func @chunk_loss(%l: tensor<4x10xf32>, %y: tensor<4xi32>, %d: tensor<f32>) -> (tensor<4xf32>, tensor<4x10xf32>, tensor<2xi32>) {
  %t = echo.cross_entropy_terms %l, %y : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<4xf32>
  %g = echo.cross_entropy_grad %l, %y, %d {total_rows = 8 : i64} : (tensor<4x10xf32>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xf32>
  %s = echo.slice %y {offsets = array<i64: 2>, sizes = array<i64: 2>} : (tensor<4xi32>) -> tensor<2xi32>
  return %t, %g, %s : tensor<4xf32>, tensor<4x10xf32>, tensor<2xi32>
}

// -----

// A sum of slice gradients (a tensor read one slice at a time) adds each
// slice in place: the first gradient is the zero-filled accumulator, every
// later one is added into its slice of the sum's buffer (a generic on a
// subview, in the add's operand order), each sum a tensor of its own
// (to_tensor restrict writable); no second full-size tensor. A slice
// gradient with another user stays whole, and so does a sum whose
// accumulator is read again (%s4, returned).
// CHECK-LABEL: func.func @slice_grad_sum
// CHECK-SAME: (%[[A:.*]]: tensor<4x1x8xf32>, %[[B:.*]]: tensor<4x1x8xf32>, %[[C:.*]]: tensor<4x1x8xf32>)
// CHECK: %[[ACC:.*]] = tensor.insert_slice %[[A]] into %{{.*}}[0, 2, 0] [4, 1, 8] [1, 1, 1] : tensor<4x1x8xf32> into tensor<4x3x8xf32>
// CHECK: %[[BUF:.*]] = bufferization.to_buffer %[[ACC]] : tensor<4x3x8xf32> to memref<4x3x8xf32>
// CHECK: %[[BB:.*]] = bufferization.to_buffer %[[B]] read_only
// CHECK: %[[V1:.*]] = memref.subview %[[BUF]][0, 1, 0] [4, 1, 8] [1, 1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[BB]] : {{.*}}) outs(%[[V1]] : {{.*}})
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: arith.addf %[[IN]], %[[OUT]] : f32
// CHECK: %[[ACC1:.*]] = bufferization.to_tensor %[[BUF]] restrict writable
// CHECK: %[[BUF1:.*]] = bufferization.to_buffer %[[ACC1]] : tensor<4x3x8xf32> to memref<4x3x8xf32>
// CHECK: %[[CB:.*]] = bufferization.to_buffer %[[C]] read_only
// CHECK: %[[V0:.*]] = memref.subview %[[BUF1]][0, 0, 0] [4, 1, 8] [1, 1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[CB]] : {{.*}}) outs(%[[V0]] : {{.*}})
// CHECK-NEXT: ^bb0(%[[IN0:.*]]: f32, %[[OUT0:.*]]: f32):
// CHECK-NEXT: arith.addf %[[OUT0]], %[[IN0]] : f32
// CHECK: %[[ACC2:.*]] = bufferization.to_tensor %[[BUF1]] restrict writable
// CHECK: %[[KEPT:.*]] = tensor.insert_slice %[[C]] into %{{.*}}[0, 0, 0] [4, 1, 8] [1, 1, 1] : tensor<4x1x8xf32> into tensor<4x3x8xf32>
// CHECK: %[[S3:.*]] = linalg.generic {{.*}} ins(%[[ACC2]], %[[KEPT]] :
// CHECK: %[[G4:.*]] = tensor.insert_slice %[[B]] into %{{.*}}[0, 1, 0]
// CHECK: %[[S4:.*]] = linalg.generic {{.*}} ins(%[[S3]], %[[G4]] :
// CHECK: return %[[S4]], %[[KEPT]], %[[S3]]
func.func @slice_grad_sum(%a: tensor<4x1x8xf32>, %b: tensor<4x1x8xf32>, %c: tensor<4x1x8xf32>) -> (tensor<4x3x8xf32>, tensor<4x3x8xf32>, tensor<4x3x8xf32>) {
  %ga = echo.slice_grad %a {offsets = array<i64: 0, 2, 0>} : (tensor<4x1x8xf32>) -> tensor<4x3x8xf32>
  %gb = echo.slice_grad %b {offsets = array<i64: 0, 1, 0>} : (tensor<4x1x8xf32>) -> tensor<4x3x8xf32>
  %s1 = echo.add %gb, %ga : tensor<4x3x8xf32>
  %gc = echo.slice_grad %c {offsets = array<i64: 0, 0, 0>} : (tensor<4x1x8xf32>) -> tensor<4x3x8xf32>
  %s2 = echo.add %s1, %gc : tensor<4x3x8xf32>
  %kept = echo.slice_grad %c {offsets = array<i64: 0, 0, 0>} : (tensor<4x1x8xf32>) -> tensor<4x3x8xf32>
  %s3 = echo.add %s2, %kept : tensor<4x3x8xf32>
  %g4 = echo.slice_grad %b {offsets = array<i64: 0, 1, 0>} : (tensor<4x1x8xf32>) -> tensor<4x3x8xf32>
  %s4 = echo.add %s3, %g4 : tensor<4x3x8xf32>
  return %s4, %kept, %s3 : tensor<4x3x8xf32>, tensor<4x3x8xf32>, tensor<4x3x8xf32>
}

// -----

// A slice of an embedding taking whole rows gathers the sliced ids: the
// [4, 3, 8] embedding is never made (no gather of 12 rows, two of 4). An
// embedding with a user that takes part of each row, or any other user,
// stays whole.
// CHECK-LABEL: func.func @slice_of_embedding
// CHECK-SAME: (%[[IDS:.*]]: tensor<4x3xi32>, %[[T:.*]]: tensor<10x8xf32>)
// CHECK-NOT: tensor<4x3x8xf32>
// CHECK: %[[I0:.*]] = tensor.extract_slice %[[IDS]][0, 0] [4, 1] [1, 1] : tensor<4x3xi32> to tensor<4x1xi32>
// CHECK: linalg.generic {{.*}} ins(%[[I0]] : tensor<4x1xi32>) outs(%{{.*}} : tensor<4x1x8xf32>)
// CHECK: %[[I2:.*]] = tensor.extract_slice %[[IDS]][0, 2] [4, 1] [1, 1] : tensor<4x3xi32> to tensor<4x1xi32>
// CHECK: linalg.generic {{.*}} ins(%[[I2]] : tensor<4x1xi32>) outs(%{{.*}} : tensor<4x1x8xf32>)
// CHECK-LABEL: func.func @embedding_kept
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x3xi32>) outs(%{{.*}} : tensor<4x3x8xf32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0] [4, 1, 8]
// CHECK: tensor.extract_slice %{{.*}}[0, 1, 0] [4, 1, 4]
func.func @slice_of_embedding(%ids: tensor<4x3xi32>, %t: tensor<10x8xf32>) -> (tensor<4x1x8xf32>, tensor<4x1x8xf32>) {
  %e = echo.embedding %ids, %t : (tensor<4x3xi32>, tensor<10x8xf32>) -> tensor<4x3x8xf32>
  %a = echo.slice %e {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 4, 1, 8>} : (tensor<4x3x8xf32>) -> tensor<4x1x8xf32>
  %b = echo.slice %e {offsets = array<i64: 0, 2, 0>, sizes = array<i64: 4, 1, 8>} : (tensor<4x3x8xf32>) -> tensor<4x1x8xf32>
  return %a, %b : tensor<4x1x8xf32>, tensor<4x1x8xf32>
}
func.func @embedding_kept(%ids: tensor<4x3xi32>, %t: tensor<10x8xf32>) -> (tensor<4x1x8xf32>, tensor<4x1x4xf32>) {
  %e = echo.embedding %ids, %t : (tensor<4x3xi32>, tensor<10x8xf32>) -> tensor<4x3x8xf32>
  %a = echo.slice %e {offsets = array<i64: 0, 0, 0>, sizes = array<i64: 4, 1, 8>} : (tensor<4x3x8xf32>) -> tensor<4x1x8xf32>
  %b = echo.slice %e {offsets = array<i64: 0, 1, 0>, sizes = array<i64: 4, 1, 4>} : (tensor<4x3x8xf32>) -> tensor<4x1x4xf32>
  return %a, %b : tensor<4x1x8xf32>, tensor<4x1x4xf32>
}

// -----

// The gradient of an embedding read one step at a time (a sum of slice
// gradients that take whole rows) scatters each step's rows where that
// step's gradient is made: the table is zero-filled once, each scatter adds
// into its buffer (an scf.for of row generics on subviews, the sum named by
// to_tensor restrict writable), in program order (ids' column 2, 1, 0); the
// [4, 3, 8] sum of the rows' gradients is never made. Where the table's
// gradient is not the step's result and is larger than that sum
// (@embedding_grad_kept: 20 x 8 values against 4 x 3 x 8), it stays one scatter of
// the summed rows.
// CHECK-LABEL: func.func @embedding_grad_by_slice
// CHECK-SAME: (%[[IDS:.*]]: tensor<4x3xi32>, %[[A:.*]]: tensor<4x1x8xf32>, %[[B:.*]]: tensor<4x1x8xf32>, %[[C:.*]]: tensor<4x1x8xf32>)
// CHECK-NOT: tensor<4x3x8xf32>
// CHECK: %[[I2:.*]] = tensor.extract_slice %[[IDS]][0, 2] [4, 1] [1, 1] : tensor<4x3xi32> to tensor<4x1xi32>
// CHECK: %[[Z:.*]] = linalg.fill {{.*}} -> tensor<20x8xf32>
// CHECK: %[[T0:.*]] = bufferization.to_buffer %[[Z]] : tensor<20x8xf32> to memref<20x8xf32>
// CHECK: tensor.collapse_shape %[[A]]
// CHECK: scf.for
// CHECK: memref.load
// CHECK: %[[ROW0:.*]] = memref.subview %[[T0]][%{{.*}}, 0] [1, 8] [1, 1]
// CHECK: linalg.generic {{.*}} outs(%[[ROW0]] :
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: %[[S0:.*]] = bufferization.to_tensor %[[T0]] restrict writable
// CHECK: tensor.extract_slice %[[IDS]][0, 1] [4, 1] [1, 1]
// CHECK: %[[T1:.*]] = bufferization.to_buffer %[[S0]] : tensor<20x8xf32> to memref<20x8xf32>
// CHECK: tensor.collapse_shape %[[B]]
// CHECK: scf.for
// CHECK: memref.subview %[[T1]]
// CHECK: %[[S1:.*]] = bufferization.to_tensor %[[T1]] restrict writable
// CHECK: tensor.extract_slice %[[IDS]][0, 0] [4, 1] [1, 1]
// CHECK: %[[T2:.*]] = bufferization.to_buffer %[[S1]]
// CHECK: tensor.collapse_shape %[[C]]
// CHECK: scf.for
// CHECK: memref.subview %[[T2]]
// CHECK: %[[S2:.*]] = bufferization.to_tensor %[[T2]] restrict writable
// CHECK: return %[[S2]]
// CHECK-LABEL: func.func @embedding_grad_kept
// CHECK: tensor<4x3x8xf32>
// CHECK: %[[Z:.*]] = linalg.fill {{.*}} -> tensor<20x8xf32>
// CHECK: %[[T:.*]] = bufferization.to_buffer %[[Z]]
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<4x3xi32> into tensor<12xi32>
// CHECK: scf.for
// CHECK: memref.subview %[[T]]
// CHECK-NOT: scf.for
// CHECK: return
func.func @embedding_grad_by_slice(%ids: tensor<4x3xi32>, %a: tensor<4x1x8xf32>, %b: tensor<4x1x8xf32>, %c: tensor<4x1x8xf32>) -> tensor<20x8xf32> {
  %ga = echo.slice_grad %a {offsets = array<i64: 0, 2, 0>} : (tensor<4x1x8xf32>) -> tensor<4x3x8xf32>
  %gb = echo.slice_grad %b {offsets = array<i64: 0, 1, 0>} : (tensor<4x1x8xf32>) -> tensor<4x3x8xf32>
  %s1 = echo.add %ga, %gb : tensor<4x3x8xf32>
  %gc = echo.slice_grad %c {offsets = array<i64: 0, 0, 0>} : (tensor<4x1x8xf32>) -> tensor<4x3x8xf32>
  %s2 = echo.add %s1, %gc : tensor<4x3x8xf32>
  %t = echo.embedding_grad %ids, %s2 : (tensor<4x3xi32>, tensor<4x3x8xf32>) -> tensor<20x8xf32>
  return %t : tensor<20x8xf32>
}
func.func @embedding_grad_kept(%ids: tensor<4x3xi32>, %a: tensor<4x1x8xf32>, %b: tensor<4x1x8xf32>) -> tensor<20x8xf32> {
  %ga = echo.slice_grad %a {offsets = array<i64: 0, 2, 0>} : (tensor<4x1x8xf32>) -> tensor<4x3x8xf32>
  %gb = echo.slice_grad %b {offsets = array<i64: 0, 1, 0>} : (tensor<4x1x8xf32>) -> tensor<4x3x8xf32>
  %s1 = echo.add %ga, %gb : tensor<4x3x8xf32>
  %t = echo.embedding_grad %ids, %s1 : (tensor<4x3xi32>, tensor<4x3x8xf32>) -> tensor<20x8xf32>
  %u = echo.mul %t, %t : tensor<20x8xf32>
  return %u : tensor<20x8xf32>
}

// -----

// broadcast is a linalg.generic reading x without the added dims (so
// elementwise fusion can fold it into its consumers).
// CHECK-DAG: #[[DROP:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @broadcast
// CHECK: %[[B:.*]] = linalg.generic {indexing_maps = [#[[DROP]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<4x8xf32>) outs(%{{.*}} : tensor<4x3x8xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK-NOT: linalg.broadcast
func.func @broadcast(%q: tensor<4x8xf32>, %k: tensor<4x3x8xf32>) -> tensor<4x3x8xf32> {
  %b = echo.broadcast %q dims = [1] : (tensor<4x8xf32>) -> tensor<4x3x8xf32>
  %s = echo.add %k, %b : tensor<4x3x8xf32>
  return %s : tensor<4x3x8xf32>
}

// -----

// A product over a contraction of length 1 is an elementwise generic on
// the operands with their unit dim collapsed away (an outer product).
// CHECK-DAG: #[[M:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[N:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[BM:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[BN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @outer_products
// CHECK-SAME: (%[[A:.*]]: tensor<12x1xf32>, %[[B:.*]]: tensor<1x8xf32>, %[[AT:.*]]: tensor<1x12xf32>, %[[BT:.*]]: tensor<8x1xf32>, %[[X:.*]]: tensor<2x3x1xf32>, %[[Y:.*]]: tensor<2x1x5xf32>)
// CHECK-DAG: %[[A1:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1]] : tensor<12x1xf32> into tensor<12xf32>
// CHECK-DAG: %[[B1:.*]] = tensor.collapse_shape %[[B]] {{\[}}[0, 1]] : tensor<1x8xf32> into tensor<8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[M]], #[[N]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[A1]], %[[B1]] : tensor<12xf32>, tensor<8xf32>)
// CHECK: arith.mulf
// CHECK: tensor.collapse_shape %[[AT]] {{\[}}[0, 1]] : tensor<1x12xf32> into tensor<12xf32>
// CHECK: tensor.collapse_shape %[[BT]] {{\[}}[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[M]], #[[N]], #{{.*}}]
// CHECK: tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2]] : tensor<2x3x1xf32> into tensor<2x3xf32>
// CHECK: tensor.collapse_shape %[[Y]] {{\[}}[0], [1, 2]] : tensor<2x1x5xf32> into tensor<2x5xf32>
// CHECK: linalg.generic {indexing_maps = [#[[BM]], #[[BN]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-NOT: linalg.matmul
// CHECK-NOT: linalg.batch_matmul
func.func @outer_products(%a: tensor<12x1xf32>, %b: tensor<1x8xf32>, %at: tensor<1x12xf32>, %bt: tensor<8x1xf32>,
                          %x: tensor<2x3x1xf32>, %y: tensor<2x1x5xf32>) -> (tensor<12x8xf32>, tensor<12x8xf32>, tensor<2x3x5xf32>) {
  %p = echo.matmul %a, %b : (tensor<12x1xf32>, tensor<1x8xf32>) -> tensor<12x8xf32>
  %q = echo.matmul %at, %bt {transpose_a = true, transpose_b = true} : (tensor<1x12xf32>, tensor<8x1xf32>) -> tensor<12x8xf32>
  %r = echo.batch_matmul %x, %y : (tensor<2x3x1xf32>, tensor<2x1x5xf32>) -> tensor<2x3x5xf32>
  return %p, %q, %r : tensor<12x8xf32>, tensor<12x8xf32>, tensor<2x3x5xf32>
}
