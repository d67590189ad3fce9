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
// shares with tensor.extract, whatever the window; no slice per offset.
// CHECK-LABEL: func.func @pool_grad
// CHECK: %[[SHARE:.*]] = linalg.generic
// CHECK: arith.divf
// CHECK: %[[WINDOWS:.*]] = tensor.empty() : tensor<1x1xf32>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[WINDOWS]] : tensor<1x1xf32>) outs(%{{.*}} : tensor<2x3x4x4xf32>)
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
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-NOT: tensor.insert_slice
// CHECK-LABEL: func.func @global_max_pool_grad
// CHECK: tensor.empty() : tensor<1x1xf32>
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
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
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}} : tensor<1x1xf32>) outs(%{{.*}} : tensor<2x3x4x4xf32>)
// CHECK: tensor.extract %[[ARG]]
// CHECK: tensor.extract %arg1
// CHECK-NOT: tensor.insert_slice
func.func @max_pool_grad(%x: tensor<2x3x4x4xf32>, %dy: tensor<2x3x2x2xf32>) -> tensor<2x3x4x4xf32> {
  %dx = echo.max_pool2d_grad %x, %dy {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x4x4xf32>, tensor<2x3x2x2xf32>) -> tensor<2x3x4x4xf32>
  return %dx : tensor<2x3x4x4xf32>
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
