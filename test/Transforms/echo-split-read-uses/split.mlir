// RUN: echo-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(echo-split-read-uses{max-uses=2}))" | FileCheck %s --check-prefix=TWO
// RUN: echo-opt %s --split-input-file --echo-split-read-uses | FileCheck %s --check-prefix=DEFAULT
// RUN: echo-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(echo-split-read-uses{max-uses=0}))" | FileCheck %s --check-prefix=DEFAULT

#id = affine_map<(d0) -> (d0)>

// Three ops read %p: with max-uses=2 the first two read one read-only name
// and the third another, each made right before its group's first reader.
// The default (64) and 0 leave the function as it is.
// TWO-LABEL: func.func @three_readers
// TWO: %[[B0:.*]] = bufferization.to_buffer %arg0 read_only : tensor<8xf32> to memref<8xf32>
// TWO-NEXT: %[[T0:.*]] = bufferization.to_tensor %[[B0]] restrict : memref<8xf32> to tensor<8xf32>
// TWO-NEXT: linalg.generic {{.*}} ins(%arg1, %[[T0]] :
// TWO: linalg.generic {{.*}} ins(%{{.*}}, %[[T0]] :
// TWO: %[[B1:.*]] = bufferization.to_buffer %arg0 read_only
// TWO-NEXT: %[[T1:.*]] = bufferization.to_tensor %[[B1]] restrict
// TWO: linalg.generic {{.*}} ins(%{{.*}}, %[[T1]] :
// DEFAULT-LABEL: func.func @three_readers
// DEFAULT-NOT: bufferization.to_
func.func @three_readers(%p: tensor<8xf32>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %e0 = tensor.empty() : tensor<8xf32>
  %h0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %p : tensor<8xf32>, tensor<8xf32>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %h1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%h0, %p : tensor<8xf32>, tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %h2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%h1, %p : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %h2 : tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// %p is also the init of the last op, which writes its buffer in place:
// splitting the readers would hide that write from the analysis, so %p
// keeps its one name.
// TWO-LABEL: func.func @written_in_place
// TWO-NOT: bufferization.to_
func.func @written_in_place(%p: tensor<8xf32>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %e0 = tensor.empty() : tensor<8xf32>
  %h0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %p : tensor<8xf32>, tensor<8xf32>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %h1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%h0, %p : tensor<8xf32>, tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %h2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%h1, %p : tensor<8xf32>, tensor<8xf32>) outs(%p : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %h2 : tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Readers in a loop body and outside it: each block's readers are grouped
// on their own, the loop's name made inside the loop.
// TWO-LABEL: func.func @loop
// TWO: bufferization.to_buffer %arg0 read_only
// TWO: scf.for
// TWO: bufferization.to_buffer %arg0 read_only
// TWO: linalg.generic
// TWO: linalg.generic
// TWO: scf.yield
func.func @loop(%p: tensor<8xf32>, %x: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e0 = tensor.empty() : tensor<8xf32>
  %h0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %p : tensor<8xf32>, tensor<8xf32>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %l = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0) -> (tensor<8xf32>) {
    %e1 = tensor.empty() : tensor<8xf32>
    %h1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%h, %p : tensor<8xf32>, tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %r = arith.mulf %a, %b : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    %e2 = tensor.empty() : tensor<8xf32>
    %h2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%h1, %p : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    } -> tensor<8xf32>
    scf.yield %h2 : tensor<8xf32>
  }
  return %l : tensor<8xf32>
}
