// RUN: echo-opt %s --split-input-file --verify-diagnostics --echo-map-to-gpu | FileCheck %s
// RUN: echo-opt %s --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(func.func(echo-map-to-gpu{block-size=128}))" | FileCheck %s --check-prefix=B128
// RUN: echo-opt %s --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(func.func(echo-map-to-gpu),convert-parallel-loops-to-gpu)" | FileCheck %s --check-prefix=LAUNCH

// RUN: not echo-opt %s --split-input-file --echo-map-to-gpu=block-size=0 2>&1 | FileCheck %s --check-prefix=BAD-BLOCK
// RUN: not echo-opt %s --split-input-file --echo-map-to-gpu=block-size=2048 2>&1 | FileCheck %s --check-prefix=BAD-BLOCK
// BAD-BLOCK: error: echo-map-to-gpu: block-size must be in [1, 1024], got {{0|2048}}

#id = affine_map<(d0, d1) -> (d0, d1)>

// A 2-D elementwise op: one loop over its 8 x 64 = 512 elements, tiled by
// the block size; tiles go to blocks, elements of a tile to threads (with a
// bound check, since the tile count is rounded up).
// CHECK-LABEL: func.func @elementwise
// CHECK: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%{{.*}}) step (%[[C256:.*]])
// CHECK:   scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%[[C256]])
// CHECK:     scf.if
// CHECK:       math.tanh
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// B128-LABEL: func.func @elementwise
// B128: arith.constant 128 : index
// LAUNCH-LABEL: func.func @elementwise
// LAUNCH: gpu.launch blocks
// LAUNCH-NOT: scf.parallel
func.func @elementwise(%x: memref<8x64xf32>, %y: memref<8x64xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x64xf32>) outs(%y : memref<8x64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  }
  return
}

// A loop smaller than a block is one block of exactly its size; copies
// become linalg.copy and then loops too. Views and library calls stay on
// the host.
// CHECK-LABEL: func.func @small_copy
// CHECK: memref.view
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%[[C10:.*]])
// CHECK:   scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[C10]])
// CHECK-NOT: memref.copy
// CHECK: call @echo_gemm
func.func private @echo_gemm(memref<10xf32>)
func.func @small_copy(%x: memref<10xf32>, %arena: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %v = memref.view %arena[%c0][] : memref<64xi8> to memref<10xf32>
  memref.copy %x, %v : memref<10xf32> to memref<10xf32>
  call @echo_gemm(%v) : (memref<10xf32>) -> ()
  return
}

// A sequential scatter (an embedding gradient; rows may repeat an id): the
// loop and the store before it go into one single-thread launch, the row
// loop inside made sequential.
// CHECK-LABEL: func.func @scatter
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]])
// CHECK:   memref.store
// CHECK:   scf.for
// CHECK:     memref.load
// CHECK:     scf.for
// CHECK-NOT: scf.parallel
// CHECK:   gpu.terminator
func.func @scatter(%ids: memref<4xi32>, %dy: memref<4x16xf32>, %table: memref<10x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %table[%c0, %c0] : memref<10x16xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %id = memref.load %ids[%i] : memref<4xi32>
    %row = arith.index_cast %id : i32 to index
    scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
      %g = memref.load %dy[%i, %j] : memref<4x16xf32>
      %t = memref.load %table[%row, %j] : memref<10x16xf32>
      %s = arith.addf %g, %t : f32
      memref.store %s, %table[%row, %j] : memref<10x16xf32>
      scf.reduce
    }
  }
  return
}

// -----

func.func @unplanned(%x: memref<8xf32>) {
  // expected-error @+1 {{'memref.alloc' op echo-map-to-gpu: a GPU step's memory is its arguments and the planned arena; run echo-plan-buffers first}}
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  return
}

// -----

memref.global "private" constant @c : memref<4xf32> = dense<1.0>
func.func @global(%x: memref<4xf32>) {
  // expected-error @+1 {{'memref.get_global' op echo-map-to-gpu: a GPU step's memory}}
  %g = memref.get_global @c : memref<4xf32>
  memref.copy %g, %x : memref<4xf32> to memref<4xf32>
  return
}

// -----

// A buffer whose address depends on device data cannot be passed to the
// runtime on the host (scalar ops of device results are device code).
func.func private @echo_gemm(memref<4xf32>)
func.func @host_use(%x: memref<4xf32>, %arena: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<4xf32>
  %i = arith.fptosi %v : f32 to i64
  %j = arith.index_cast %i : i64 to index
  // expected-error @+1 {{'memref.view' op echo-map-to-gpu: a result of device code is used on the host}}
  %view = memref.view %arena[%j][] : memref<64xi8> to memref<4xf32>
  func.call @echo_gemm(%view) : (memref<4xf32>) -> ()
  return
}

// -----

// A 0-d computation (two scalar losses summed) has no loop: its loads, the
// scalar op between them and the store are one single-thread launch, not
// host code reading device memory.
// CHECK-LABEL: func.func @scalar_sum
// CHECK: gpu.launch
// CHECK:   memref.load
// CHECK:   memref.load
// CHECK:   arith.addf
// CHECK:   memref.store
// CHECK:   gpu.terminator
// CHECK-NOT: memref.load
// CHECK: return
func.func @scalar_sum(%a: memref<f32>, %b: memref<f32>, %out: memref<f32>) {
  %x = memref.load %a[] : memref<f32>
  %y = memref.load %b[] : memref<f32>
  %s = arith.addf %x, %y : f32
  memref.store %s, %out[] : memref<f32>
  return
}

// -----

// A reduction over the outer dimension (a bias gradient: the column sums of
// a [rows, cols] matrix) is interchanged first: its parallel dimension goes
// outermost and to blocks and threads, each thread summing its column in
// order (the same order of additions as before), not one thread for all.
// CHECK-LABEL: func.func @column_sums
// CHECK-NOT: gpu.launch
// CHECK: scf.parallel
// CHECK:   scf.parallel
// CHECK:     scf.if
// CHECK:       scf.for
// CHECK:         arith.addf
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @column_sums(%x: memref<4096x8000xf32>, %y: memref<8000xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<4096x8000xf32>) outs(%y : memref<8000xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// expected-error @+1 {{echo-map-to-gpu: expects a single-block function body (run it before convert-scf-to-cf)}}
func.func @blocks(%x: memref<4xf32>) {
  cf.br ^bb1
^bb1:
  return
}
