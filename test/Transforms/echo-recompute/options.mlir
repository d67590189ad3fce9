// RUN: echo-opt %s --echo-autodiff --echo-recompute | FileCheck %s --check-prefix=DEFAULT
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=none | FileCheck %s --check-prefix=NONE
// RUN: not echo-opt %s --echo-autodiff --echo-recompute=strategy=bogus 2>&1 | FileCheck %s --check-prefix=BOGUS
// RUN: not echo-opt %s --echo-autodiff --echo-recompute --echo-recompute 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: echo-opt %s --echo-recompute | FileCheck %s --check-prefix=NOSTEP

// The default strategy is echo; the strategy is recorded on the step.
// DEFAULT: func.func @f_train({{.*}} attributes {echo.recompute_strategy = "echo", echo.train_step}
// NONE: func.func @f_train({{.*}} attributes {echo.recompute_strategy = "none", echo.train_step}
// NONE-NOT: echo.recompute (
// BOGUS: for the --strategy option: Cannot find option named 'bogus'!
// TWICE: error: echo-recompute: @f_train was already rewritten with strategy 'echo'
// Models that are not training steps are left alone.
// NOSTEP-NOT: echo.recompute_strategy

func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = echo.tanh %0 : tensor<4x8xf32>
  %2 = echo.matmul %1, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %l = echo.reduce_sum %2 dims = [0, 1] : (tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
