// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=none --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=sublinear --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=SUB
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=sublinear | FileCheck %s --check-prefix=IR

// A chain of 16 tanh ops after a mul (17 ops of 1024 bytes). `none` stashes
// the 16 tanh outputs. The budget search (estimated peak = checkpoints +
// largest segment) settles on a checkpoint every third op: 5 checkpoints
// (5120 bytes) and 6 segments, each recomputed by one region right before
// its gradients (5 x 2 tanh + mul and tanh from the arguments = 12 ops).
// NONE: "feature_map_bytes": 16384,
// SUB: "feature_map_bytes": 5120,
// SUB: "recomputed_ops": 12,
// IR-LABEL: func.func @chain16_train
// IR-COUNT-5: echo.recompute (%{{.*}}) : (tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>)
// IR: echo.recompute (%{{.*}}, %{{.*}}) : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
// IR-NOT: echo.recompute

func.func @chain16(%x: tensor<4x64xf32>, %t: tensor<4x64xf32>,
                   %a: tensor<4x64xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.mul %x, %a : tensor<4x64xf32>
  %1 = echo.tanh %0 : tensor<4x64xf32>
  %2 = echo.tanh %1 : tensor<4x64xf32>
  %3 = echo.tanh %2 : tensor<4x64xf32>
  %4 = echo.tanh %3 : tensor<4x64xf32>
  %5 = echo.tanh %4 : tensor<4x64xf32>
  %6 = echo.tanh %5 : tensor<4x64xf32>
  %7 = echo.tanh %6 : tensor<4x64xf32>
  %8 = echo.tanh %7 : tensor<4x64xf32>
  %9 = echo.tanh %8 : tensor<4x64xf32>
  %10 = echo.tanh %9 : tensor<4x64xf32>
  %11 = echo.tanh %10 : tensor<4x64xf32>
  %12 = echo.tanh %11 : tensor<4x64xf32>
  %13 = echo.tanh %12 : tensor<4x64xf32>
  %14 = echo.tanh %13 : tensor<4x64xf32>
  %15 = echo.tanh %14 : tensor<4x64xf32>
  %16 = echo.tanh %15 : tensor<4x64xf32>
  %l = echo.mse_loss %16, %t : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
