// RUN: echo-opt %s --split-input-file --echo-outline-kernels | FileCheck %s
// RUN: echo-opt %s --split-input-file --echo-outline-kernels="min-ops=3" | FileCheck %s --check-prefix=MIN
// RUN: echo-opt %s --split-input-file --echo-outline-kernels="parallel-min-work=1024" | FileCheck %s --check-prefix=PAR

// Each top-level linalg op on buffers becomes a noinline private function
// taking its operands and the values its body uses from above; scalar
// constants are cloned into it. The step calls the kernels in order.
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[C:.*]]: memref<4xf32>, %[[S:.*]]: f32)
// CHECK-NEXT: call @step_kernel_0(%[[A]], %[[B]], %[[S]]) : (memref<4xf32>, memref<4xf32>, f32) -> ()
// CHECK: call @step_kernel_1(%[[B]], %[[C]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK-NEXT: return
// CHECK: func.func private @step_kernel_0(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>, %[[CAP:.*]]: f32) attributes {passthrough = ["noinline"]}
// CHECK: arith.addf %{{.*}}, %[[CAP]]
// CHECK: func.func private @step_kernel_1(%[[X:.*]]: memref<4xf32>, %[[Y:.*]]: memref<4xf32>) attributes {passthrough = ["noinline"]}
// CHECK-NEXT: %[[TWO:.*]] = arith.constant 2.0
// CHECK-NEXT: linalg.generic
// CHECK-SAME: ins(%[[X]] : memref<4xf32>) outs(%[[Y]] : memref<4xf32>)
// CHECK: arith.mulf %{{.*}}, %[[TWO]]

// MIN-LABEL: func.func @step(
// MIN-NOT: call
// MIN: linalg.generic
// MIN: linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @step(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>, %s: f32) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %s : f32
    linalg.yield %0 : f32
  }
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.mulf %x, %two : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Ops on tensors and ops inside regions stay where they are.
// CHECK-LABEL: func.func @tensors(
// CHECK-NOT: call
// CHECK: linalg.generic
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK-NOT: func.func private
#id = affine_map<(d0) -> (d0)>
func.func @tensors(%a: tensor<4xf32>, %m: memref<4xf32>, %n: memref<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%m : memref<4xf32>) outs(%n : memref<4xf32>) {
    ^bb0(%x: f32, %y: f32):
      linalg.yield %x : f32
    }
  }
  return %r : tensor<4xf32>
}

// -----

// Identical ops on buffers of the same types (an unrolled RNN's steps) call
// one kernel; a different op or type gets its own.
// CHECK-LABEL: func.func @steps(
// CHECK-SAME: %[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[C:.*]]: memref<4xf32>, %[[D:.*]]: memref<8xf32>, %[[E:.*]]: memref<8xf32>)
// CHECK-NEXT: call @steps_kernel_0(%[[A]], %[[B]])
// CHECK-NEXT: call @steps_kernel_0(%[[B]], %[[C]])
// CHECK-NEXT: call @steps_kernel_1(%[[D]], %[[E]])
// CHECK-NEXT: call @steps_kernel_2(%[[C]], %[[A]])
// CHECK-NEXT: return
// CHECK-COUNT-3: func.func private @steps_kernel_
// CHECK-NOT: func.func private @steps_kernel_
#id = affine_map<(d0) -> (d0)>
func.func @steps(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>, %d: memref<8xf32>, %e: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = math.tanh %x : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = math.tanh %x : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%d : memref<8xf32>) outs(%e : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = math.tanh %x : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%c : memref<4xf32>) outs(%a : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = math.exp %x : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// parallel-min-work: a kernel of at least that many iterations (64 x 32)
// runs its op in a part over [lo, hi) of its outermost parallel loop (the
// rows here, a reduction's kept rows below: never the reduced loop), on
// views of its operands; the kernel calls the part on the whole range.
// Smaller kernels (4 x 32) and the default (0) split nothing.
// PAR-LABEL: func.func @split(
// PAR: call @split_kernel_0(
// PAR: call @split_kernel_1(
// PAR: call @split_kernel_2(
// PAR: func.func private @split_kernel_0(%[[A:.*]]: memref<64x32xf32>, %[[B:.*]]: memref<64x32xf32>, %[[S:.*]]: f32)
// PAR-NEXT: %[[LO:.*]] = arith.constant 0 : index
// PAR-NEXT: %[[HI:.*]] = arith.constant 64 : index
// PAR-NEXT: call @split_kernel_0_part(%[[A]], %[[B]], %[[S]], %[[LO]], %[[HI]])
// PAR-NEXT: return
// PAR: func.func private @split_kernel_0_part(%[[PA:.*]]: memref<64x32xf32>, %[[PB:.*]]: memref<64x32xf32>, %{{.*}}: f32, %[[PLO:.*]]: index, %[[PHI:.*]]: index) attributes {echo.parallel_part, passthrough = ["noinline"]}
// PAR-NEXT: %[[N:.*]] = arith.subi %[[PHI]], %[[PLO]] : index
// PAR-NEXT: %[[VA:.*]] = memref.subview %[[PA]][%[[PLO]], 0] [%[[N]], 32] [1, 1]
// PAR-NEXT: %[[VB:.*]] = memref.subview %[[PB]][%[[PLO]], 0] [%[[N]], 32] [1, 1]
// PAR-NEXT: linalg.generic
// PAR-SAME: ins(%[[VA]] : memref<?x32xf32, strided<[32, 1], offset: ?>>) outs(%[[VB]] : memref<?x32xf32, strided<[32, 1], offset: ?>>)
// PAR: func.func private @split_kernel_1_part(
// PAR: memref.subview %{{.*}}[%{{.*}}, 0] [%{{.*}}, 32] [1, 1] : memref<64x32xf32> to memref<?x32xf32
// PAR: memref.subview %{{.*}}[%{{.*}}] [%{{.*}}] [1] : memref<64xf32> to memref<?xf32
// PAR: iterator_types = ["parallel", "reduction"]
// PAR: func.func private @split_kernel_2(
// PAR-NOT: echo.parallel_part
// PAR: linalg.generic
// CHECK-LABEL: func.func @split(
// CHECK-NOT: echo.parallel_part
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @split(%a: memref<64x32xf32>, %b: memref<64x32xf32>, %c: memref<64xf32>, %d: memref<4x32xf32>, %s: f32) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x32xf32>) outs(%b : memref<64x32xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %s : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%b : memref<64x32xf32>) outs(%c : memref<64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%d : memref<4x32xf32>) {
  ^bb0(%y: f32):
    linalg.yield %s : f32
  }
  return
}

// -----

// A copy into a strided view (a padded buffer's interior) becomes a
// linalg.copy kernel; a contiguous copy stays a memref.copy (memcpy).
// CHECK-LABEL: func.func @copies(
// CHECK: %[[VIEW:.*]] = memref.subview
// CHECK-NEXT: call @copies_kernel_0(%{{.*}}, %[[VIEW]])
// CHECK-NEXT: memref.copy
// CHECK: func.func private @copies_kernel_0(
// CHECK: linalg.copy ins(%{{.*}} : memref<4x4xf32>) outs(%{{.*}} : memref<4x4xf32, strided<[6, 1], offset: 7>>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @copies(%a: memref<4x4xf32>, %padded: memref<6x6xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  %view = memref.subview %padded[1, 1] [4, 4] [1, 1] : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %a, %view : memref<4x4xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %a, %b : memref<4x4xf32> to memref<4x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<4x4xf32>) outs(%c : memref<4x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

// A body that writes memory (a store into a captured buffer) would race
// across threads: its kernel is not split; one that only reads a captured
// buffer (a gather) is.
// PAR-LABEL: func.func @effects(
// PAR: func.func private @effects_kernel_0(
// PAR-NOT: _part
// PAR: memref.store
// PAR: func.func private @effects_kernel_1(
// PAR: call @effects_kernel_1_part(
// PAR: func.func private @effects_kernel_1_part(
// PAR-SAME: echo.parallel_part
// PAR: memref.load
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @effects(%a: memref<64x32xf32>, %b: memref<64x32xf32>, %log: memref<1xf32>, %table: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x32xf32>) outs(%b : memref<64x32xf32>) {
  ^bb0(%x: f32, %y: f32):
    memref.store %x, %log[%c0] : memref<1xf32>
    linalg.yield %x : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x32xf32>) outs(%b : memref<64x32xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = memref.load %table[%c0] : memref<8xf32>
    %s = arith.addf %x, %t : f32
    linalg.yield %s : f32
  }
  return
}
