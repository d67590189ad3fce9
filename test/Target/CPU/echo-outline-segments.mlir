// RUN: echo-opt %s --echo-outline-segments="max-ops=2" --split-input-file | FileCheck %s
// RUN: echo-opt %s --echo-outline-segments --split-input-file | FileCheck %s --check-prefix=DEFAULT
// RUN: not echo-opt %s --echo-outline-segments="max-ops=0" --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: echo-outline-segments: max-ops must be at least 1, not 0
// DEFAULT-NOT: segment

func.func private @use(memref<4xf32>)

// Five ops with effects (an alloc, three calls, a dealloc) become three
// segments of at most two. The views are not cut: each segment that uses
// one clones it (with its constant); the arena goes from the segment that
// allocates it to the later ones.
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %[[X:.*]]: memref<4xf32>)
// CHECK-NEXT: %[[A:.*]] = call @step_segment_0(%[[X]]) : (memref<4xf32>) -> memref<32xi8>
// CHECK-NEXT: call @step_segment_1(%[[A]]) : (memref<32xi8>) -> ()
// CHECK-NEXT: call @step_segment_2(%[[A]]) : (memref<32xi8>) -> ()
// CHECK-NEXT: return
// CHECK: func.func private @step_segment_0(%[[X0:.*]]: memref<4xf32>) -> memref<32xi8> attributes {passthrough = ["noinline"]}
// CHECK-NEXT: %[[ALLOC:.*]] = memref.alloc() : memref<32xi8>
// CHECK-NEXT: call @use(%[[X0]])
// CHECK-NEXT: return %[[ALLOC]]
// CHECK: func.func private @step_segment_1(%[[AR:.*]]: memref<32xi8>) attributes {passthrough = ["noinline"]}
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[VA:.*]] = memref.view %[[AR]][%[[C0]]][]
// CHECK-DAG: %[[VB:.*]] = memref.view %[[AR]][%[[C16]]][]
// CHECK: call @use(%[[VA]])
// CHECK-NEXT: call @use(%[[VB]])
// CHECK-NEXT: return
// CHECK: func.func private @step_segment_2(%[[AR2:.*]]: memref<32xi8>) attributes {passthrough = ["noinline"]}
// CHECK-NEXT: memref.dealloc %[[AR2]]
// CHECK-NEXT: return
func.func @step(%x: memref<4xf32>) {
  %arena = memref.alloc() : memref<32xi8>
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %a = memref.view %arena[%c0][] : memref<32xi8> to memref<4xf32>
  %b = memref.view %arena[%c16][] : memref<32xi8> to memref<4xf32>
  call @use(%x) : (memref<4xf32>) -> ()
  call @use(%a) : (memref<4xf32>) -> ()
  call @use(%b) : (memref<4xf32>) -> ()
  memref.dealloc %arena : memref<32xi8>
  return
}

// -----

func.func private @use(memref<4xf32>)

// A value a segment defines and the terminator returns is a result of the
// segment; an op with a region takes what its region uses from above.
// CHECK-LABEL: func.func @returns(
// CHECK-SAME: %[[C:.*]]: i1)
// CHECK-NEXT: %[[M:.*]] = call @returns_segment_0(%[[C]]) : (i1) -> memref<4xf32>
// CHECK-NEXT: call @returns_segment_1(%[[M]]) : (memref<4xf32>) -> ()
// CHECK-NEXT: return %[[M]]
// CHECK: func.func private @returns_segment_0(%[[C0:.*]]: i1) -> memref<4xf32>
// CHECK-NEXT: %[[ALLOC:.*]] = memref.alloc()
// CHECK-NEXT: scf.if %[[C0]] {
// CHECK-NEXT: func.call @use(%[[ALLOC]])
// CHECK: return %[[ALLOC]]
func.func @returns(%c: i1) -> memref<4xf32> {
  %m = memref.alloc() : memref<4xf32>
  scf.if %c {
    func.call @use(%m) : (memref<4xf32>) -> ()
  }
  call @use(%m) : (memref<4xf32>) -> ()
  return %m : memref<4xf32>
}

// -----

func.func private @use(memref<4xf32>)

// At most max-ops ops: left alone.
// CHECK-LABEL: func.func @short(
// CHECK-NEXT: call @use
// CHECK-NEXT: call @use
// CHECK-NEXT: return
// CHECK-NOT: segment
func.func @short(%x: memref<4xf32>) {
  call @use(%x) : (memref<4xf32>) -> ()
  call @use(%x) : (memref<4xf32>) -> ()
  return
}

// -----

func.func private @use(memref<4xf32>)

// Stack memory would die with the segment that allocates it: a function
// with a top-level alloca stays whole.
// CHECK-LABEL: func.func @stack(
// CHECK-NEXT: memref.alloca
// CHECK-COUNT-3: call @use
// CHECK-NOT: segment
func.func @stack(%x: memref<4xf32>) {
  %s = memref.alloca() : memref<4xf32>
  call @use(%s) : (memref<4xf32>) -> ()
  call @use(%x) : (memref<4xf32>) -> ()
  call @use(%s) : (memref<4xf32>) -> ()
  return
}
