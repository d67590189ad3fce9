// RUN: echo-opt %s --split-input-file --echo-fuse-elementwise | FileCheck %s

// A producer right before its consumer fuses: nothing lives longer.
// CHECK-LABEL: func.func @adjacent(
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: math.tanh
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0) -> (d0)>
func.func @adjacent(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.tanh %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  return %b : tensor<64xf32>
}

// -----

// A producer whose inputs die with it and whose only consumer comes later,
// past other work (a forward value read by a backward op), is not fused:
// fusing would keep two tensors (u, v) alive across the gap to save one (p).
// CHECK-LABEL: func.func @far_consumer(
// CHECK: %[[U:.*]] = linalg.generic
// CHECK: %[[V:.*]] = linalg.generic
// CHECK: %[[Q:.*]] = linalg.generic {{.*}} ins(%[[U]], %[[V]]
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[U]], %[[V]]
// CHECK: arith.addf
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[P]], %[[G]], %[[Q]]
#id = affine_map<(d0) -> (d0)>
func.func @far_consumer(%x: tensor<64xf32>, %y: tensor<64xf32>, %w: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %q = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%u, %v : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.mulf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%u, %v : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%w : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.log %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%p, %g, %q : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32, %d: f32, %out: f32):
    %0 = arith.mulf %a, %b : f32
    %1 = arith.addf %0, %d : f32
    linalg.yield %1 : f32
  } -> tensor<64xf32>
  return %c, %g : tensor<64xf32>, tensor<64xf32>
}

// -----

// When the producer's input is read at the consumer anyway (t, read by c),
// fusion keeps nothing alive longer, however far apart they are: p fuses
// into c past g, and the chain ends as one loop nest.
// CHECK-LABEL: func.func @input_alive(
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK-NOT: linalg.generic
// CHECK: return
#id = affine_map<(d0) -> (d0)>
func.func @input_alive(%x: tensor<64xf32>, %w: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%w : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.tanh %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.log %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%p, %t : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.mulf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%c, %g : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  return %d : tensor<64xf32>
}
