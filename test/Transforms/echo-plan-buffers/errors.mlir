// RUN: echo-opt %s --echo-plan-buffers --split-input-file --verify-diagnostics
// RUN: not echo-opt %s --echo-plan-buffers="alignment=48" 2>&1 | FileCheck %s --check-prefix=ALIGN
// RUN: not echo-opt %s --echo-plan-buffers="arena=heap" 2>&1 | FileCheck %s --check-prefix=ARENA

// ALIGN: error: echo-plan-buffers: alignment must be a power of two, not 48
// ARENA: for the --arena option: Cannot find option named 'heap'!

// expected-error @+1 {{echo-plan-buffers: needs a function body of one block (run it before convert-scf-to-cf)}}
func.func @blocks(%c: i1) {
  %a = memref.alloc() : memref<4xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return
^bb2:
  return
}

// -----

func.func @owned(%c: i1) {
  %a = memref.alloc() : memref<4xf32>
  // expected-error @+1 {{echo-plan-buffers: run it before buffer-deallocation-pipeline (the IR already has bufferization.dealloc)}}
  bufferization.dealloc (%a : memref<4xf32>) if (%c)
  return
}

// -----

// Allocations the arena cannot hold stay as they are, with a warning.
func.func @unplanned(%n: index, %x: f32) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-warning @+1 {{echo-plan-buffers: allocation left out of the arena because it is dynamically shaped}}
  %d = memref.alloc(%n) : memref<?xf32>
  memref.store %x, %d[%c0] : memref<?xf32>
  // expected-warning @+1 {{echo-plan-buffers: allocation left out of the arena because it has a layout}}
  %l = memref.alloc() : memref<4xf32, strided<[1], offset: 2>>
  memref.store %x, %l[%c0] : memref<4xf32, strided<[1], offset: 2>>
  // expected-warning @+1 {{echo-plan-buffers: allocation left out of the arena because it is in a memory space}}
  %s = memref.alloc() : memref<4xf32, 1>
  memref.store %x, %s[%c0] : memref<4xf32, 1>
  %init = memref.alloc() : memref<4xf32>
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %init) -> memref<4xf32> {
    // expected-warning @+1 {{echo-plan-buffers: allocation left out of the arena because it is used outside the region that allocates it}}
    %r = memref.alloc() : memref<4xf32>
    memref.copy %prev, %r : memref<4xf32> to memref<4xf32>
    scf.yield %r : memref<4xf32>
  }
  memref.store %x, %last[%c0] : memref<4xf32>
  // expected-warning @+1 {{echo-plan-buffers: allocation left out of the arena because the function returns it}}
  %ret = memref.alloc() : memref<4xf32>
  %cast = memref.cast %ret : memref<4xf32> to memref<4xf32>
  return %cast : memref<4xf32>
}

