// RUN: echo-opt %s --echo-plan-buffers="arena=argument" --echo-verify-buffer-plan --split-input-file --verify-diagnostics | FileCheck %s

// The caller passes the arena: a trailing memref<Nxi8> argument marked
// echo.arena, and no allocation is left in the function.
// CHECK-LABEL: func.func @step(
// CHECK-SAME: %{{.*}}: memref<16xf32>, %{{.*}}: memref<16xf32>, %[[ARENA:.*]]: memref<128xi8> {echo.arena})
// CHECK-SAME: arena_bytes = 128 : i64
// CHECK-NOT: memref.alloc
// CHECK: memref.view %[[ARENA]]
// CHECK: memref.view %[[ARENA]]
// CHECK-NOT: memref.alloc
// CHECK: return
func.func @step(%x: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  memref.copy %x, %a : memref<16xf32> to memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  memref.copy %x, %b : memref<16xf32> to memref<16xf32>
  memref.copy %a, %out : memref<16xf32> to memref<16xf32>
  memref.copy %b, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// expected-error @+1 {{echo-plan-buffers: arena=argument changes the signature; @callee must have no callers}}
func.func @callee() {
  %a = memref.alloc() : memref<4xf32>
  return
}
func.func @caller() {
  call @callee() : () -> ()
  return
}

// -----

// expected-error @+1 {{echo-plan-buffers: arena=argument changes the signature; @hidden must be public}}
func.func private @hidden() {
  %a = memref.alloc() : memref<4xf32>
  return
}
