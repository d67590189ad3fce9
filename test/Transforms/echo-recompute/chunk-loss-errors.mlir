// chunk-loss= values the pass refuses, and a number of chunks for a loss
// it cannot chunk.
// RUN: not echo-opt %s --echo-autodiff --echo-recompute="chunk-loss=1" 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not echo-opt %s --echo-autodiff --echo-recompute="chunk-loss=bogus" 2>&1 | FileCheck %s --check-prefix=BOGUS
// RUN: not echo-opt %s --echo-autodiff --echo-recompute="strategy=none chunk-loss=2" 2>&1 | FileCheck %s --check-prefix=MSE
// auto leaves such a loss alone.
// RUN: echo-opt %s --echo-autodiff --echo-recompute="heavy-budget=1" | FileCheck %s --check-prefix=AUTO

// ONE: error: echo-recompute: chunk-loss must be auto, off or a number of chunks >= 2, got '1'
// BOGUS: error: echo-recompute: chunk-loss must be auto, off or a number of chunks >= 2, got 'bogus'
// MSE: error: echo-recompute: chunk-loss=2: the loss of @f_train is not a cross-entropy of an output layer that can be chunked
// AUTO-LABEL: func.func @f_train
// AUTO-NOT: echo.chunked_loss
func.func @f(%x: tensor<8x4xf32>, %t: tensor<8x6xf32>,
             %w: tensor<6x4xf32> {echo.param},
             %b: tensor<6xf32> {echo.param}) -> tensor<f32> {
  %z = echo.linear %x, %w, %b : (tensor<8x4xf32>, tensor<6x4xf32>, tensor<6xf32>) -> tensor<8x6xf32>
  %l = echo.mse_loss %z, %t : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
