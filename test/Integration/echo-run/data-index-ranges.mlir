// Indices that are data reach gather, scatter_add and one_hot: each op
// declares the range it accepts (IndexOperandOpInterface), so echo-run
// draws them inside it (one_hot's gradient w.r.t. w is the one-hot rows:
// one 1 per row only if every class id is in [0, 3)), and ids read with
// --inputs outside it are refused before the step runs, naming the op
// (the step library checks a caller's ids against the same bounds).
// RUN: rm -rf %t && echo-run %s --dump=%t/draw | FileCheck %s
// CHECK: step 0 loss
// RUN: %python -c "import numpy as np; w = np.load('%t/draw/out3.npy'); print('one per row', bool((w.sum(1) == 1).all() and (w >= 0).all()))" | FileCheck %s --check-prefix=DRAW
// DRAW: one per row True
// RUN: %python %S/Inputs/write_data_indices.py %t/gather 0 5 4
// RUN: not echo-run %s --inputs=%t/gather 2>&1 | FileCheck %s --check-prefix=GATHER
// GATHER: (argument 0): value 4 at [2, 1] is outside [0, 4), the range 'echo.gather' accepts
// RUN: %python %S/Inputs/write_data_indices.py %t/scatter 1 0 -1
// RUN: not echo-run %s --inputs=%t/scatter 2>&1 | FileCheck %s --check-prefix=SCATTER
// SCATTER: (argument 1): value -1 at [0, 0] is outside [0, 6), the range 'echo.scatter_add' accepts
// RUN: %python %S/Inputs/write_data_indices.py %t/classes 2 7 3
// RUN: not echo-run %s --inputs=%t/classes 2>&1 | FileCheck %s --check-prefix=CLASSES
// CLASSES: (argument 2): value 3 at [7] is outside [0, 3), the range 'echo.one_hot' accepts
// At the bounds' edges, they run.
// RUN: %python %S/Inputs/write_data_indices.py %t/edge edge
// RUN: echo-run %s --inputs=%t/edge | FileCheck %s

func.func @data_indices(%g: tensor<8x2xi32>, %s: tensor<8x2xi32>,
                        %c: tensor<8xi32>,
                        %x: tensor<8x4xf32> {echo.param},
                        %y: tensor<8x6xf32> {echo.param},
                        %w: tensor<8x3xf32> {echo.param}) -> tensor<f32> {
  %a = echo.gather %x, %g {axis = 1 : i64}
      : (tensor<8x4xf32>, tensor<8x2xi32>) -> tensor<8x2xf32>
  %sa = echo.reduce_sum %a dims = [0, 1] : (tensor<8x2xf32>) -> tensor<f32>
  %ones = arith.constant dense<1.0> : tensor<8x2xf32>
  %b = echo.scatter_add %y, %s, %ones {axis = 1 : i64}
      : (tensor<8x6xf32>, tensor<8x2xi32>, tensor<8x2xf32>) -> tensor<8x6xf32>
  %bb = echo.mul %b, %b : tensor<8x6xf32>
  %sb = echo.reduce_sum %bb dims = [0, 1] : (tensor<8x6xf32>) -> tensor<f32>
  %h = echo.one_hot %c : (tensor<8xi32>) -> tensor<8x3xf32>
  %hw = echo.mul %h, %w : tensor<8x3xf32>
  %sh = echo.reduce_sum %hw dims = [0, 1] : (tensor<8x3xf32>) -> tensor<f32>
  %l0 = echo.add %sa, %sb : tensor<f32>
  %l = echo.add %l0, %sh : tensor<f32>
  return %l : tensor<f32>
}
