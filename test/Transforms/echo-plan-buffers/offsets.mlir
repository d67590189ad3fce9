// RUN: echo-opt %s --echo-plan-buffers --echo-verify-buffer-plan --split-input-file | FileCheck %s
// RUN: echo-opt %s --echo-plan-buffers="alignment=256" --echo-verify-buffer-plan --split-input-file | FileCheck %s --check-prefix=ALIGN

#id = affine_map<(d0) -> (d0)>

// In-place chain: each elementwise op reads its input for the last time and
// writes a buffer of the same size through the same map, so all three
// buffers share offset 0 and the arena is one buffer (64 floats). The
// timeline is the step's bytes at each op: the arguments (512) and, while
// the chain runs, the one slot (256).
// CHECK-LABEL: func.func @chain
// CHECK-SAME: echo.buffer_plan = {alignment = 64 : i64, arena_bytes = 256 : i64, argument_bytes = 512 : i64, buffers = 3 : i64, heuristic = "breadth/best-fit", in_place = 2 : i64, lower_bound_bytes = 256 : i64, timeline = array<i64: 512, 768, 768, 768, 768, 768, 768, 512, 512, 512, 512, 512>, unplanned_bytes = 0 : i64}
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64, echo.arena} : memref<256xi8>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[ARENA]][%[[C0]]][] : memref<256xi8> to memref<64xf32>
// CHECK-NOT: memref.alloc
// CHECK: arith.constant 0 : index
// CHECK: arith.constant 0 : index
// CHECK-NOT: memref.alloc
// CHECK: return
// ALIGN-LABEL: func.func @chain
// ALIGN-SAME: alignment = 256 : i64, arena_bytes = 256 : i64
// ALIGN: memref.alloc() {alignment = 256 : i64, echo.arena} : memref<256xi8>
func.func @chain(%x: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  %b = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.tanh %in : f32
    linalg.yield %e : f32
  }
  %c = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : memref<64xf32>) outs(%c : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = arith.mulf %in, %in : f32
    linalg.yield %e : f32
  }
  memref.copy %c, %out : memref<64xf32> to memref<64xf32>
  return
}

// -----

#id = affine_map<(d0) -> (d0)>

// Fan-out: %a is read by two ops, so the first cannot write over it; %b gets
// its own bytes. The second op reads %a and %b for the last time and writes
// %c over %a. Arena: two buffers.
// CHECK-LABEL: func.func @fanout
// CHECK-SAME: arena_bytes = 512 : i64, argument_bytes = 512 : i64, buffers = 3 : i64, {{.*}}in_place = 1 : i64, lower_bound_bytes = 512 : i64
// CHECK: arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view {{.*}} : memref<512xi8> to memref<64xf32>
// CHECK: arith.constant 256 : index
// CHECK-NEXT: %[[B:.*]] = memref.view
// CHECK: arith.constant 0 : index
// CHECK-NEXT: %[[C:.*]] = memref.view
// CHECK: linalg.generic {{.*}} ins(%[[A]], %[[B]] : memref<64xf32>, memref<64xf32>) outs(%[[C]] : memref<64xf32>)
func.func @fanout(%x: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  %b = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.tanh %in : f32
    linalg.yield %e : f32
  }
  %c = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : memref<64xf32>, memref<64xf32>) outs(%c : memref<64xf32>) {
  ^bb0(%i0: f32, %i1: f32, %o: f32):
    %e = arith.addf %i0, %i1 : f32
    linalg.yield %e : f32
  }
  memref.copy %c, %out : memref<64xf32> to memref<64xf32>
  return
}

// -----

// Reuse after death: %a dies at the first copy, so %c (live later) takes
// its bytes; %b overlaps both in time. Sizes 1024, 256, 1024 bytes.
// CHECK-LABEL: func.func @reuse
// CHECK-SAME: arena_bytes = 1280 : i64, argument_bytes = 2560 : i64, buffers = 3 : i64, {{.*}}in_place = 0 : i64, lower_bound_bytes = 1280 : i64
// CHECK: arith.constant 0 : index
// CHECK-NEXT: memref.view {{.*}} : memref<1280xi8> to memref<256xf32>
// CHECK: arith.constant 1024 : index
// CHECK-NEXT: memref.view {{.*}} : memref<1280xi8> to memref<64xf32>
// CHECK: memref.copy
// CHECK: arith.constant 0 : index
// CHECK-NEXT: memref.view {{.*}} : memref<1280xi8> to memref<256xf32>
func.func @reuse(%x: memref<256xf32>, %y: memref<64xf32>,
                 %o1: memref<64xf32>, %o2: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  memref.copy %x, %a : memref<256xf32> to memref<256xf32>
  %b = memref.alloc() : memref<64xf32>
  memref.copy %y, %b : memref<64xf32> to memref<64xf32>
  memref.copy %a, %o2 : memref<256xf32> to memref<256xf32>
  %c = memref.alloc() : memref<256xf32>
  memref.copy %x, %c : memref<256xf32> to memref<256xf32>
  memref.copy %b, %o1 : memref<64xf32> to memref<64xf32>
  memref.copy %c, %o2 : memref<256xf32> to memref<256xf32>
  return
}

// -----

// Padding: every buffer starts on the alignment, so two live 4-byte buffers
// take 128 bytes (512 with alignment=256). A subview keeps its buffer live.
// CHECK-LABEL: func.func @padding
// CHECK-SAME: arena_bytes = 128 : i64, argument_bytes = 12 : i64, buffers = 2 : i64, {{.*}}lower_bound_bytes = 128 : i64
// ALIGN-LABEL: func.func @padding
// ALIGN-SAME: arena_bytes = 512 : i64
func.func @padding(%x: memref<f32>, %o: memref<2xf32>) {
  %a = memref.alloc() : memref<1xf32>
  %b = memref.alloc() : memref<1xf32>
  %sub = memref.subview %a[0] [1] [1] : memref<1xf32> to memref<1xf32, strided<[1]>>
  %c0 = arith.constant 0 : index
  %v = memref.load %x[] : memref<f32>
  memref.store %v, %b[%c0] : memref<1xf32>
  memref.store %v, %sub[%c0] : memref<1xf32, strided<[1]>>
  %s0 = memref.subview %o[0] [1] [1] : memref<2xf32> to memref<1xf32, strided<[1]>>
  %s1 = memref.subview %o[1] [1] [1] : memref<2xf32> to memref<1xf32, strided<[1], offset: 1>>
  memref.copy %b, %s0 : memref<1xf32> to memref<1xf32, strided<[1]>>
  memref.copy %sub, %s1 : memref<1xf32, strided<[1]>> to memref<1xf32, strided<[1], offset: 1>>
  return
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>

// No in-place reuse where an element would be read after it was written
// over: a transposed read, a reduction, and an op that reads its init.
// Existing deallocs of planned buffers are erased (the arena replaces them).
// CHECK-LABEL: func.func @not_in_place
// CHECK-SAME: in_place = 0 : i64
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @not_in_place(%x: memref<8x8xf32>, %o: memref<8x8xf32>, %r: memref<8xf32>) {
  %a = memref.alloc() : memref<8x8xf32>
  memref.copy %x, %a : memref<8x8xf32> to memref<8x8xf32>
  %t = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x8xf32>) outs(%t : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %a : memref<8x8xf32>
  %b = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  }
  %s = memref.alloc() : memref<8xf32>
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%b : memref<8x8xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.addf %in, %out : f32
    linalg.yield %m : f32
  }
  memref.copy %s, %r : memref<8xf32> to memref<8xf32>
  memref.dealloc %s : memref<8xf32>
  return
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// In place through reshapes: a [12, 8] buffer read as [4, 3, 8] (its
// expand_shape: the same elements in the same order) by the op that writes
// a [4, 3, 8] buffer gives it its bytes, and that one gives them on to the
// next; the verifier accepts the chain.
// CHECK-LABEL: func.func @in_place_through_reshapes
// CHECK-SAME: in_place = 2 : i64
func.func @in_place_through_reshapes(%x: memref<12x8xf32>, %y: memref<4x3x8xf32>, %o: memref<12x8xf32>) {
  %a = memref.alloc() : memref<12x8xf32>
  memref.copy %x, %a : memref<12x8xf32> to memref<12x8xf32>
  %v = memref.expand_shape %a [[0, 1], [2]] output_shape [4, 3, 8] : memref<12x8xf32> into memref<4x3x8xf32>
  %b = memref.alloc() : memref<4x3x8xf32>
  linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%v, %y : memref<4x3x8xf32>, memref<4x3x8xf32>) outs(%b : memref<4x3x8xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  }
  %c = memref.alloc() : memref<4x3x8xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b : memref<4x3x8xf32>) outs(%c : memref<4x3x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  %cv = memref.collapse_shape %c [[0, 1], [2]] : memref<4x3x8xf32> into memref<12x8xf32>
  memref.copy %cv, %o : memref<12x8xf32> to memref<12x8xf32>
  return
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#tr3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>

// Not in place: the reshaped input is read transposed, and a reshaped
// input of another shape than the init's (through a collapse to [4, 24]
// and an expand to [4, 8, 3], the same loops reach other elements).
// CHECK-LABEL: func.func @not_in_place_through_reshapes
// CHECK-SAME: in_place = 0 : i64
func.func @not_in_place_through_reshapes(%x: memref<12x8xf32>, %o: memref<4x3x8xf32>, %p: memref<4x8x3xf32>) {
  %a = memref.alloc() : memref<12x8xf32>
  memref.copy %x, %a : memref<12x8xf32> to memref<12x8xf32>
  %v = memref.expand_shape %a [[0, 1], [2]] output_shape [4, 3, 8] : memref<12x8xf32> into memref<4x3x8xf32>
  %b = memref.alloc() : memref<4x8x3xf32>
  linalg.generic {indexing_maps = [#tr3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%v : memref<4x3x8xf32>) outs(%b : memref<4x8x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %f = memref.collapse_shape %b [[0], [1, 2]] : memref<4x8x3xf32> into memref<4x24xf32>
  %g = memref.expand_shape %f [[0], [1, 2]] output_shape [4, 3, 8] : memref<4x24xf32> into memref<4x3x8xf32>
  %c = memref.alloc() : memref<4x8x3xf32>
  linalg.generic {indexing_maps = [#tr3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g : memref<4x3x8xf32>) outs(%c : memref<4x8x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.copy %c, %p : memref<4x8x3xf32> to memref<4x8x3xf32>
  return
}

// -----

// A planned function is left as it is by a second run.
// CHECK-LABEL: func.func @planned
// CHECK-SAME: arena_bytes = 7 : i64
// CHECK: memref.alloc() {alignment = 64 : i64, echo.arena} : memref<7xi8>
// CHECK-NOT: memref.alloc
func.func @planned(%o: memref<f32>) attributes {echo.buffer_plan = {alignment = 64 : i64, arena_bytes = 7 : i64, buffers = 0 : i64, heuristic = "size", in_place = 0 : i64, lower_bound_bytes = 0 : i64}} {
  %arena = memref.alloc() {alignment = 64 : i64, echo.arena} : memref<7xi8>
  return
}

// -----

// A temporary of a loop body that stays in the body takes one place in the
// arena for every iteration; it is live at the loop only, so %a (dead before
// the loop) and %b (born after it) share its bytes.
// CHECK-LABEL: func.func @loop_local
// CHECK-SAME: arena_bytes = 64 : i64, argument_bytes = 32 : i64, buffers = 3 : i64
// CHECK: scf.for
// CHECK: arith.constant 0 : index
// CHECK-NEXT: memref.view {{.*}} : memref<64xi8> to memref<4xf32>
// CHECK-NOT: memref.alloc()
func.func @loop_local(%x: memref<4xf32>, %o: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  memref.copy %a, %o : memref<4xf32> to memref<4xf32>
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.alloc() : memref<4xf32>
    memref.copy %o, %t : memref<4xf32> to memref<4xf32>
    memref.copy %t, %o : memref<4xf32> to memref<4xf32>
  }
  %b = memref.alloc() : memref<4xf32>
  memref.copy %o, %b : memref<4xf32> to memref<4xf32>
  memref.copy %b, %o : memref<4xf32> to memref<4xf32>
  return
}

// -----

// What the step needs besides the arena (the memory report's step_bytes):
// its memref arguments (4 + 16 bytes; an index is not a buffer) and the
// allocations left out of the arena (16 bytes with a layout; a dynamically
// shaped one has no static size and is not counted).
// CHECK-LABEL: func.func @outside
// CHECK-SAME: arena_bytes = 64 : i64, argument_bytes = 20 : i64
// CHECK-SAME: unplanned_bytes = 16 : i64
func.func @outside(%n: index, %x: memref<f32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[] : memref<f32>
  %d = memref.alloc(%n) : memref<?xf32>
  memref.store %v, %d[%c0] : memref<?xf32>
  %l = memref.alloc() : memref<4xf32, strided<[1], offset: 2>>
  memref.store %v, %l[%c0] : memref<4xf32, strided<[1], offset: 2>>
  %a = memref.alloc() : memref<4xf32>
  memref.store %v, %a[%c0] : memref<4xf32>
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  return
}
