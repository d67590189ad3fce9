// chunk-loss= values the pass refuses, and a number of chunks for a loss
// it cannot chunk.
// RUN: not echo-opt %s -split-input-file --echo-autodiff --echo-recompute="chunk-loss=1" 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not echo-opt %s -split-input-file --echo-autodiff --echo-recompute="chunk-loss=bogus" 2>&1 | FileCheck %s --check-prefix=BOGUS
// RUN: not echo-opt %s -split-input-file --echo-autodiff --echo-recompute="strategy=none chunk-loss=2" 2>&1 | FileCheck %s --check-prefix=MSE
// auto leaves such losses alone.
// RUN: echo-opt %s -split-input-file --echo-autodiff --echo-recompute | FileCheck %s --check-prefix=AUTO

// ONE: error: echo-recompute: chunk-loss must be auto, off or a number of chunks >= 2, got '1'
// BOGUS: error: echo-recompute: chunk-loss must be auto, off or a number of chunks >= 2, got 'bogus'
// MSE: error: echo-recompute: chunk-loss=2: the loss of @f_train is not a cross-entropy of an output layer that can be chunked
// MSE: error: echo-recompute: chunk-loss=2: the loss of @read_before_train is not a cross-entropy of an output layer that can be chunked
// AUTO-LABEL: func.func @f_train
// AUTO-NOT: echo.chunked_loss
// AUTO-LABEL: func.func @read_before_train
// AUTO-NOT: echo.chunked_loss
func.func @f(%x: tensor<8x4xf32>, %t: tensor<8x6xf32>,
             %w: tensor<6x4xf32> {echo.param},
             %b: tensor<6xf32> {echo.param}) -> tensor<f32> {
  %z = echo.linear %x, %w, %b : (tensor<8x4xf32>, tensor<6x4xf32>, tensor<6xf32>) -> tensor<8x6xf32>
  %l = echo.mse_loss %z, %t : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A training step (written as one, not by echo-autodiff) that reads its
// loss before the loss's gradient: the chunked loss is formed where the
// gradient is, so it cannot serve that reader.
func.func @read_before_train(%x: tensor<64x4xf32>, %labels: tensor<64xi32>,
                             %w: tensor<500x4xf32> {echo.param},
                             %b: tensor<500xf32> {echo.param})
    -> (tensor<f32>, tensor<500x4xf32>, tensor<500xf32>)
    attributes {echo.train_step} {
  %z = echo.linear %x, %w, %b : (tensor<64x4xf32>, tensor<500x4xf32>, tensor<500xf32>) -> tensor<64x500xf32>
  %l = echo.cross_entropy %z, %labels : (tensor<64x500xf32>, tensor<64xi32>) -> tensor<f32>
  %s = echo.mul %l, %l : tensor<f32>
  %dz = echo.cross_entropy_grad %z, %labels, %s : (tensor<64x500xf32>, tensor<64xi32>, tensor<f32>) -> tensor<64x500xf32>
  %dw = echo.matmul %dz, %x {transpose_a = true} : (tensor<64x500xf32>, tensor<64x4xf32>) -> tensor<500x4xf32>
  %db = echo.reduce_sum %dz dims = [0] : (tensor<64x500xf32>) -> tensor<500xf32>
  return %l, %dw, %db : tensor<f32>, tensor<500x4xf32>, tensor<500xf32>
}
