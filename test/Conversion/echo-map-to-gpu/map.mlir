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

// A sequential scatter (an embedding gradient; rows may repeat an id):
// tokens depend on each other, columns never do, so each thread runs every
// token of its own column, in order (threads over the columns, the token
// loop inside). The store before it gets a single-thread launch.
// CHECK-LABEL: func.func @scatter
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]])
// CHECK:   memref.store
// CHECK:   gpu.terminator
// CHECK:   scf.parallel
// CHECK:     scf.parallel (%[[T:.*]]) =
// CHECK:       %[[J:.*]] = arith.addi %[[T]],
// CHECK:       scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK:         %[[ID:.*]] = memref.load %{{.*}}[%[[I]]] : memref<4xi32>
// CHECK:         %[[ROW:.*]] = arith.index_cast %[[ID]]
// CHECK:         memref.load %{{.*}}[%[[I]], %[[J]]] : memref<4x16xf32>
// CHECK:         memref.load %{{.*}}[%[[ROW]], %[[J]]] : memref<10x16xf32>
// CHECK:         memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[J]]] : memref<10x16xf32>
// CHECK:     } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = block_x
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

// The embedding gradient as bufferization leaves it: an in-place
// elementwise op on row subviews (whole rows: offset 0, all 16 columns).
// CHECK-LABEL: func.func @scatter_rows
// CHECK-NOT: gpu.launch
// CHECK: scf.parallel
// CHECK:   scf.parallel
// CHECK:     scf.for
// CHECK:       memref.subview
// CHECK:       memref.subview
// CHECK:       memref.store
// CHECK:   } {mapping = [#gpu.loop_dim_map<processor = thread_x
func.func @scatter_rows(%ids: memref<4xi32>, %dy: memref<4x16xf32>, %table: memref<10x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %id = memref.load %ids[%i] : memref<4xi32>
    %row = arith.index_cast %id : i32 to index
    %g = memref.subview %dy[%i, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    %t = memref.subview %table[%row, 0] [1, 16] [1, 1] : memref<10x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    scf.parallel (%r, %j) = (%c0, %c0) to (%c1, %c16) step (%c1, %c1) {
      %a = memref.load %g[%r, %j] : memref<1x16xf32, strided<[16, 1], offset: ?>>
      %b = memref.load %t[%r, %j] : memref<1x16xf32, strided<[16, 1], offset: ?>>
      %s = arith.addf %b, %a : f32
      memref.store %s, %t[%r, %j] : memref<1x16xf32, strided<[16, 1], offset: ?>>
      scf.reduce
    }
  }
  return
}

// Loops whose columns meet stay in one thread: a row read from where the
// loop writes (the ids themselves), a view that shifts the columns (thread
// j would write column j + 1, which thread j + 1 reads), an access at a
// column other than the thread's.
// CHECK-LABEL: func.func @reads_what_it_writes
// CHECK: gpu.launch
// CHECK:   scf.for
// CHECK:     scf.for
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @reads_what_it_writes(%table: memref<10x16xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %id = memref.load %table[%i, %c0] : memref<10x16xi32>
    %row = arith.index_cast %id : i32 to index
    scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
      %t = memref.load %table[%row, %j] : memref<10x16xi32>
      %s = arith.addi %t, %id : i32
      memref.store %s, %table[%row, %j] : memref<10x16xi32>
      scf.reduce
    }
  }
  return
}

// CHECK-LABEL: func.func @shifted_columns
// CHECK: gpu.launch
// CHECK:   scf.for
// CHECK:     scf.for
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @shifted_columns(%dy: memref<4x16xf32>, %table: memref<10x17xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.subview %table[%i, 1] [1, 16] [1, 1] : memref<10x17xf32> to memref<1x16xf32, strided<[17, 1], offset: ?>>
    scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
      %a = memref.load %dy[%i, %j] : memref<4x16xf32>
      memref.store %a, %t[%c0, %j] : memref<1x16xf32, strided<[17, 1], offset: ?>>
      scf.reduce
    }
  }
  return
}

// A buffer whose columns are one element (stride 0): every thread would
// write it.
// CHECK-LABEL: func.func @broadcast_columns
// CHECK: gpu.launch
// CHECK:   scf.for
// CHECK:     scf.for
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @broadcast_columns(%dy: memref<4x16xf32>, %table: memref<10x16xf32, strided<[1, 0]>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
      %a = memref.load %dy[%i, %j] : memref<4x16xf32>
      %t = memref.load %table[%i, %j] : memref<10x16xf32, strided<[1, 0]>>
      %s = arith.addf %a, %t : f32
      memref.store %s, %table[%i, %j] : memref<10x16xf32, strided<[1, 0]>>
      scf.reduce
    }
  }
  return
}

// CHECK-LABEL: func.func @other_column
// CHECK: gpu.launch
// CHECK:   scf.for
// CHECK:     scf.for
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @other_column(%table: memref<10x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.parallel (%j) = (%c0) to (%c16) step (%c1) {
      %a = memref.load %table[%i, %c0] : memref<10x16xf32>
      memref.store %a, %table[%i, %j] : memref<10x16xf32>
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
// a [rows, cols] matrix, with more columns than reduceAcrossBlock takes) is
// interchanged first: its parallel dimension goes
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
func.func @column_sums(%x: memref<4096x10000xf32>, %y: memref<10000xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d1)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<4096x10000xf32>) outs(%y : memref<10000xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Few outputs, many values each (a batch-norm statistic: the f64 sum over
// batch and pixels of each of 64 channels): one block per output. Each thread
// folds a strided share of the 32 x 8 x 8 = 2048 values from the neutral
// element, gpu.all_reduce folds the block's, thread 0 adds that to the
// output. The channel comes from the block id, batch and pixel from the
// loop index (pixels fastest: consecutive threads, consecutive addresses).
// CHECK-LABEL: func.func @channel_sums
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C64]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%[[NT:.*]] = %[[C256]],
// CHECK:   %[[ZERO:.*]] = arith.constant {{-?}}0.000000e+00 : f64
// CHECK:   %[[PART:.*]] = scf.for %[[R:.*]] = %[[T]] to %{{.*}} step %[[NT]] iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f64)
// CHECK:     memref.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<32x64x8x8xf32>
// CHECK:     arith.mulf
// CHECK:     arith.extf
// CHECK:     %[[NEXT:.*]] = arith.addf %[[ACC]],
// CHECK:     scf.yield %[[NEXT]] : f64
// CHECK:   %[[SUM:.*]] = gpu.all_reduce add %[[PART]] uniform {
// CHECK:   scf.if
// CHECK:     %[[OLD:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<64xf64>
// CHECK:     %[[NEW:.*]] = arith.addf %[[OLD]], %[[SUM]] : f64
// CHECK:     memref.store %[[NEW]], %{{.*}}[%{{.*}}] : memref<64xf64>
// CHECK:   gpu.terminator
// CHECK-NOT: scf.parallel
// LAUNCH-LABEL: func.func @channel_sums
// LAUNCH: gpu.all_reduce add
func.func @channel_sums(%x: memref<32x64x8x8xf32>, %y: memref<64xf64>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (c)>],
                  iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : memref<32x64x8x8xf32>) outs(%y : memref<64xf64>) {
  ^bb0(%a: f32, %acc: f64):
    %sq = arith.mulf %a, %a : f32
    %e = arith.extf %sq : f32 to f64
    %s = arith.addf %acc, %e : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// Two outputs (a row's maximum and its sum), each with its own combiner
// and all-reduce; linalg.index reads the loop indices (the row from the
// block, the column from the loop).
// CHECK-LABEL: func.func @row_max_and_sum
// CHECK: gpu.launch
// CHECK:   arith.constant 0xFF800000 : f32
// CHECK:   scf.for {{.*}} -> (f32, f32)
// CHECK:     arith.index_cast
// CHECK:     arith.maximumf
// CHECK:     arith.addf
// CHECK:   gpu.all_reduce maximumf
// CHECK:   gpu.all_reduce add
// CHECK:   scf.if
// CHECK:     arith.maximumf
// CHECK:     memref.store
// CHECK:     arith.addf
// CHECK:     memref.store
func.func @row_max_and_sum(%x: memref<16x4096xf32>, %m: memref<16xf32>, %s: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i)>,
                                   affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x4096xf32>) outs(%m, %s : memref<16xf32>, memref<16xf32>) {
  ^bb0(%a: f32, %mx: f32, %acc: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %w = arith.mulf %a, %jf : f32
    %m2 = arith.maximumf %mx, %a : f32
    %s2 = arith.addf %acc, %w : f32
    linalg.yield %m2, %s2 : f32, f32
  }
  return
}

// -----

// Rows of fewer than 1024 values (a layer norm's statistics over 1000
// features) go across a block too, since a thread per row would read rows
// apart: a thread per 4 values, rounded down to a power of 2 (128).
// CHECK-LABEL: func.func @short_rows
// CHECK: %[[T:.*]] = arith.constant 128 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in (%{{.*}} = %[[T]],
// CHECK:   gpu.all_reduce add
func.func @short_rows(%x: memref<16x1000xf32>, %y: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x1000xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// A softmax's rows of 64: a warp per row.
// CHECK-LABEL: func.func @softmax_rows
// CHECK: %[[W:.*]] = arith.constant 32 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}) threads({{.*}}) in (%{{.*}} = %[[W]],
// CHECK:   gpu.all_reduce maximumf
func.func @softmax_rows(%x: memref<512x64xf32>, %y: memref<512xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<512x64xf32>) outs(%y : memref<512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  }
  return
}

// Left to a thread per output: rows of fewer than 32 values, a body that
// is no single combiner (the accumulator is read twice), and many column
// sums of few values each (consecutive threads read consecutive columns).
// CHECK-LABEL: func.func @tiny_rows
// CHECK-NOT: gpu.all_reduce
// CHECK: scf.parallel
// CHECK-LABEL: func.func @not_a_combiner
// CHECK-NOT: gpu.all_reduce
// CHECK: scf.parallel
// CHECK-LABEL: func.func @many_columns
// CHECK-NOT: gpu.all_reduce
// CHECK: scf.parallel
func.func @tiny_rows(%x: memref<512x16xf32>, %y: memref<512xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<512x16xf32>) outs(%y : memref<512xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}
func.func @not_a_combiner(%x: memref<16x4096xf32>, %y: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x4096xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %p = arith.mulf %acc, %a : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  return
}
func.func @many_columns(%x: memref<64x20000xf32>, %y: memref<20000xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<64x20000xf32>) outs(%y : memref<20000xf32>) {
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
