// RUN: echo-opt %s --echo-fuse-elementwise | FileCheck %s --check-prefix=ALL
// RUN: echo-opt %s --echo-fuse-elementwise=max-operand-bytes=300 | FileCheck %s --check-prefix=BOUND
// RUN: echo-opt %s --echo-fuse-elementwise=max-operand-bytes=0 | FileCheck %s --check-prefix=ALL

// A chain of adds of distinct rank-2 inputs (56-byte descriptors each)
// fuses into one op with every input, unless the fused op's descriptors
// would exceed max-operand-bytes (a GPU kernel's parameter space): with
// 300, a fused op has at most 5 distinct operands (280 bytes), and the 6
// adds end in 3 ops.
// ALL-COUNT-1: linalg.generic
// ALL-NOT: linalg.generic
// ALL: ins(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6 :
// BOUND-COUNT-3: linalg.generic
// BOUND-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%a0: tensor<4x8xf32>, %a1: tensor<4x8xf32>, %a2: tensor<4x8xf32>,
                 %a3: tensor<4x8xf32>, %a4: tensor<4x8xf32>, %a5: tensor<4x8xf32>,
                 %a6: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a0, %a1 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s1, %a2 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %s3 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s2, %a3 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %s4 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s3, %a4 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %s5 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s4, %a5 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %s6 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%s5, %a6 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %s6 : tensor<4x8xf32>
}
