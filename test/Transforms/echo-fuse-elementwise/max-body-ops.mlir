// RUN: echo-opt %s --echo-fuse-elementwise | FileCheck %s --check-prefix=ALL
// RUN: echo-opt %s --echo-fuse-elementwise=max-body-ops=0 | FileCheck %s --check-prefix=ALL
// RUN: echo-opt %s --echo-fuse-elementwise=max-body-ops=2 | FileCheck %s --check-prefix=BOUND

// A chain of four single-op generics fuses into one op of four body ops
// (the default bound, 256, and 0, unbounded), or, with max-body-ops=2, into
// ops of at most two body ops: the first two fuse, the third cannot join
// them (3 > 2) and fuses with the fourth.
// ALL-COUNT-1: linalg.generic
// ALL-NOT: linalg.generic
// ALL: math.tanh
// ALL-NEXT: math.exp
// ALL-NEXT: math.tanh
// ALL-NEXT: math.exp
// ALL-NEXT: linalg.yield
// BOUND: linalg.generic
// BOUND: ^bb0
// BOUND-NEXT: math.tanh
// BOUND-NEXT: math.exp
// BOUND-NEXT: linalg.yield
// BOUND: linalg.generic
// BOUND: ^bb0
// BOUND-NEXT: math.tanh
// BOUND-NEXT: math.exp
// BOUND-NEXT: linalg.yield
// BOUND-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %s0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.tanh %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %s1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s0 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %s2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s1 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.tanh %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %s3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s2 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %s3 : tensor<4x8xf32>
}
