// RUN: echo-opt %s --echo-library-call-layouts --split-input-file | FileCheck %s

// A buffer of a library call whose layout the runtime cannot take is copied
// into a fresh packed buffer before the call; one it can take is passed as
// it is. `echo.packed_dims` says, per buffer (inputs, then the output), how
// many innermost dims must be packed; it is gone afterwards.

// The gradient of one expert's output in torch.stack([...], -1): a column
// of the stacked gradient [4, 8, 4], inner stride 4. No BLAS takes it, so it
// is copied; the weight (identity layout) and the output are not.
// CHECK-LABEL: func.func @stacked_column
// CHECK-SAME: (%[[STACKED:.*]]: memref<4x8x4xf32>, %[[W:.*]]: memref<8x16xf32>, %[[OUT:.*]]: memref<4x16xf32>)
// CHECK: %[[SLICE:.*]] = memref.subview %[[STACKED]][0, 0, 2] [4, 8, 1] [1, 1, 1]
// CHECK: %[[COLUMN:.*]] = memref.collapse_shape %[[SLICE]]
// CHECK: %[[CW:.*]] = memref.cast %[[W]]
// CHECK: %[[COUT:.*]] = memref.cast %[[OUT]]
// CHECK: %[[PACKED:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT: memref.copy %[[COLUMN]], %[[PACKED]] : memref<4x8xf32, strided<[32, 4], offset: 2>> to memref<4x8xf32>
// CHECK-NEXT: %[[ARG:.*]] = memref.cast %[[PACKED]] : memref<4x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT: call @echo_gemm(%[[ARG]], %[[CW]], %[[COUT]], %{{.*}}, %{{.*}}, %{{.*}}) :
// CHECK-NOT: echo.packed_dims
// CHECK-NEXT: return
func.func private @echo_gemm(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64) attributes {llvm.emit_c_interface}
func.func @stacked_column(%stacked: memref<4x8x4xf32>, %w: memref<8x16xf32>, %out: memref<4x16xf32>) {
  %c0 = arith.constant 0 : i64
  %slice = memref.subview %stacked[0, 0, 2] [4, 8, 1] [1, 1, 1] : memref<4x8x4xf32> to memref<4x8x1xf32, strided<[32, 4, 1], offset: 2>>
  %column = memref.collapse_shape %slice [[0], [1, 2]] : memref<4x8x1xf32, strided<[32, 4, 1], offset: 2>> into memref<4x8xf32, strided<[32, 4], offset: 2>>
  %b = memref.cast %column : memref<4x8xf32, strided<[32, 4], offset: 2>> to memref<4x8xf32, strided<[?, ?], offset: ?>>
  %a = memref.cast %b : memref<4x8xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %cw = memref.cast %w : memref<8x16xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %cout = memref.cast %out : memref<4x16xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @echo_gemm(%a, %cw, %cout, %c0, %c0, %c0) {echo.packed_dims = array<i64: 1, 1, 1>} : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64) -> ()
  return
}

// Rows of unit stride are taken as they are, whatever the row stride (a
// slice of columns: BLAS's leading dimension 16) and the offset; so is a
// matrix of one row or one column whatever its other stride, and a batch of
// any batch stride (a slice of the batch of [8, 4, 8]: a stride of 64).
// CHECK-LABEL: func.func @leading_dimensions
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: call @echo_gemm(
// CHECK: call @echo_gemm(
// CHECK: call @echo_batched_gemm(
// CHECK-NOT: memref.copy
// CHECK: return
func.func private @echo_batched_gemm(memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, i64, i64, i64) attributes {llvm.emit_c_interface}
func.func @leading_dimensions(%x: memref<4x16xf32>, %w: memref<8x16xf32>, %out: memref<4x8xf32>, %row: memref<1x8xf32, strided<[3, 1]>>, %col: memref<8x1xf32, strided<[1, 7]>>, %out2: memref<1x1xf32>, %batch: memref<8x4x8xf32>, %out3: memref<2x4x4xf32>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %half = memref.subview %x[0, 8] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1], offset: 8>>
  %a = memref.cast %half : memref<4x8xf32, strided<[16, 1], offset: 8>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %wh = memref.subview %w[0, 8] [8, 8] [1, 1] : memref<8x16xf32> to memref<8x8xf32, strided<[16, 1], offset: 8>>
  %b = memref.cast %wh : memref<8x8xf32, strided<[16, 1], offset: 8>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %c = memref.cast %out : memref<4x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @echo_gemm(%a, %b, %c, %c0, %c1, %c0) {echo.packed_dims = array<i64: 1, 1, 1>} : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64) -> ()
  %r = memref.cast %row : memref<1x8xf32, strided<[3, 1]>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %k = memref.cast %col : memref<8x1xf32, strided<[1, 7]>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %o = memref.cast %out2 : memref<1x1xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @echo_gemm(%r, %k, %o, %c0, %c0, %c0) {echo.packed_dims = array<i64: 1, 1, 1>} : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64) -> ()
  %bs = memref.subview %batch[2, 0, 0] [2, 4, 8] [3, 1, 1] : memref<8x4x8xf32> to memref<2x4x8xf32, strided<[96, 8, 1], offset: 64>>
  %ba = memref.cast %bs : memref<2x4x8xf32, strided<[96, 8, 1], offset: 64>> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
  %bc = memref.cast %out3 : memref<2x4x4xf32> to memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>
  call @echo_batched_gemm(%ba, %ba, %bc, %c0, %c1, %c0) {echo.packed_dims = array<i64: 1, 1, 1>} : (memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>, i64, i64, i64) -> ()
  return
}

// A transposed view (row stride 1), a slice of every other column (inner
// stride 2) and a buffer whose strides are not known are copied; each call
// gets its own copy, live from the copy to the call.
// CHECK-LABEL: func.func @not_rows
// CHECK: memref.alloc() : memref<8x4xf32>
// CHECK-NEXT: memref.copy %{{.*}} : memref<8x4xf32, strided<[1, 8]>> to memref<8x4xf32>
// CHECK: memref.alloc() : memref<4x4xf32>
// CHECK-NEXT: memref.copy %{{.*}} : memref<4x4xf32, strided<[8, 2]>> to memref<4x4xf32>
// CHECK-NEXT: memref.cast
// CHECK-NEXT: call @echo_gemm(
// CHECK: memref.alloc() : memref<4x4xf32>
// CHECK-NEXT: memref.copy %{{.*}} : memref<4x4xf32, strided<[?, ?], offset: ?>> to memref<4x4xf32>
// CHECK: call @echo_gemm(
func.func @not_rows(%x: memref<4x8xf32>, %dyn: memref<4x4xf32, strided<[?, ?], offset: ?>>, %out: memref<8x4xf32>) {
  %c0 = arith.constant 0 : i64
  %t = memref.transpose %x (d0, d1) -> (d1, d0) : memref<4x8xf32> to memref<8x4xf32, strided<[1, 8]>>
  %a = memref.cast %t : memref<8x4xf32, strided<[1, 8]>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %every = memref.subview %x[0, 0] [4, 4] [1, 2] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 2]>>
  %b = memref.cast %every : memref<4x4xf32, strided<[8, 2]>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %c = memref.cast %out : memref<8x4xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @echo_gemm(%a, %b, %c, %c0, %c0, %c0) {echo.packed_dims = array<i64: 1, 1, 1>} : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64) -> ()
  %d = memref.cast %dyn : memref<4x4xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @echo_gemm(%a, %d, %c, %c0, %c0, %c0) {echo.packed_dims = array<i64: 1, 1, 1>} : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64) -> ()
  return
}

// An output the runtime cannot take is copied in before the call (the call
// may accumulate into it) and back after it.
// CHECK-LABEL: func.func @output
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[C:.*]]: memref<4x4x2xf32>)
// CHECK: %[[VIEW:.*]] = memref.collapse_shape
// CHECK: %[[PACKED:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK-NEXT: memref.copy %[[VIEW]], %[[PACKED]]
// CHECK-NEXT: %[[ARG:.*]] = memref.cast %[[PACKED]]
// CHECK-NEXT: call @echo_gemm(%{{.*}}, %{{.*}}, %[[ARG]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NEXT: memref.copy %[[PACKED]], %[[VIEW]] : memref<4x4xf32> to memref<4x4xf32, strided<[8, 2], offset: 1>>
// CHECK-NEXT: return
func.func @output(%a: memref<4x8xf32>, %c: memref<4x4x2xf32>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %s = memref.subview %c[0, 0, 1] [4, 4, 1] [1, 1, 1] : memref<4x4x2xf32> to memref<4x4x1xf32, strided<[8, 2, 1], offset: 1>>
  %v = memref.collapse_shape %s [[0], [1, 2]] : memref<4x4x1xf32, strided<[8, 2, 1], offset: 1>> into memref<4x4xf32, strided<[8, 2], offset: 1>>
  %ca = memref.cast %a : memref<4x8xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %cv = memref.cast %v : memref<4x4xf32, strided<[8, 2], offset: 1>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @echo_gemm(%ca, %ca, %cv, %c0, %c1, %c1) {echo.packed_dims = array<i64: 1, 1, 1>} : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64) -> ()
  return
}

// Convolutions: images [C, H, W] dense with any image stride (a slice of
// channels: the stride of the batch is 6·8·8), the filter whole. A crop of
// the images (row stride 8, rows of 6) and a filter sliced out of a larger
// one are copied.
// CHECK-LABEL: func.func @convolution
// CHECK-SAME: (%[[X:.*]]: memref<2x6x8x8xf32>, %[[W:.*]]: memref<8x3x3x3xf32>
// CHECK: %[[CHANNELS:.*]] = memref.subview %[[X]][0, 3, 0, 0] [2, 3, 8, 8]
// CHECK: %[[FILTERS:.*]] = memref.subview %[[W]][4, 0, 0, 0] [4, 3, 3, 3]
// CHECK-NOT: memref.alloc
// CHECK: call @echo_conv2d_forward(
// CHECK: %[[CROP:.*]] = memref.subview %[[X]][0, 0, 1, 1] [2, 3, 6, 6]
// CHECK: %[[SOME:.*]] = memref.subview %[[W]][0, 0, 0, 0] [4, 2, 3, 3]
// CHECK: memref.alloc() : memref<2x3x6x6xf32>
// CHECK-NEXT: memref.copy %[[CROP]]
// CHECK: memref.alloc() : memref<4x2x3x3xf32>
// CHECK-NEXT: memref.copy %[[SOME]]
// CHECK: call @echo_conv2d_forward(
func.func private @echo_conv2d_forward(memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
func.func @convolution(%x: memref<2x6x8x8xf32>, %w: memref<8x3x3x3xf32>, %y: memref<2x4x8x8xf32>, %y2: memref<2x4x6x6xf32>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %channels = memref.subview %x[0, 3, 0, 0] [2, 3, 8, 8] [1, 1, 1, 1] : memref<2x6x8x8xf32> to memref<2x3x8x8xf32, strided<[384, 64, 8, 1], offset: 192>>
  %filters = memref.subview %w[4, 0, 0, 0] [4, 3, 3, 3] [1, 1, 1, 1] : memref<8x3x3x3xf32> to memref<4x3x3x3xf32, strided<[27, 9, 3, 1], offset: 108>>
  %cx = memref.cast %channels : memref<2x3x8x8xf32, strided<[384, 64, 8, 1], offset: 192>> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
  %cw = memref.cast %filters : memref<4x3x3x3xf32, strided<[27, 9, 3, 1], offset: 108>> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
  %cy = memref.cast %y : memref<2x4x8x8xf32> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
  call @echo_conv2d_forward(%cx, %cw, %cy, %c1, %c1, %c1, %c1, %c1) {echo.packed_dims = array<i64: 3, 4, 3>} : (memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64) -> ()
  %crop = memref.subview %x[0, 0, 1, 1] [2, 3, 6, 6] [1, 1, 1, 1] : memref<2x6x8x8xf32> to memref<2x3x6x6xf32, strided<[384, 64, 8, 1], offset: 9>>
  %some = memref.subview %w[0, 0, 0, 0] [4, 2, 3, 3] [1, 1, 1, 1] : memref<8x3x3x3xf32> to memref<4x2x3x3xf32, strided<[27, 9, 3, 1]>>
  %ccrop = memref.cast %crop : memref<2x3x6x6xf32, strided<[384, 64, 8, 1], offset: 9>> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
  %csome = memref.cast %some : memref<4x2x3x3xf32, strided<[27, 9, 3, 1]>> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
  %cy2 = memref.cast %y2 : memref<2x4x6x6xf32> to memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>
  call @echo_conv2d_forward(%ccrop, %csome, %cy2, %c1, %c1, %c0, %c0, %c1) {echo.packed_dims = array<i64: 3, 4, 3>} : (memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>, i64, i64, i64, i64, i64) -> ()
  return
}

// -----

// A call without the attribute (not made by echo-library-calls) is left
// alone.
// CHECK-LABEL: func.func @unmarked
// CHECK-NOT: memref.copy
func.func private @echo_gemm(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64)
func.func @unmarked(%x: memref<4x8xf32>, %out: memref<4x4xf32>) {
  %c0 = arith.constant 0 : i64
  %every = memref.subview %x[0, 0] [4, 4] [1, 2] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 2]>>
  %b = memref.cast %every : memref<4x4xf32, strided<[8, 2]>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  %c = memref.cast %out : memref<4x4xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  call @echo_gemm(%b, %b, %c, %c0, %c0, %c0) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64) -> ()
  return
}
