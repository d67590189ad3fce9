// Echo paper Fig. 7 / 11 / 12: two fully-connected layers, an add and a
// tanh before a third one. Recomputing add+tanh would need both FC outputs
// (2N) to save tanh's output (N): echo trims the whole path and equals
// `none`; mirror recomputes it anyway and stashes twice as much (Fig. 7b).
// N = 4x64 f32 = 1024 bytes.
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=none --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=echo --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=ECHO
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=mirror --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=MIRROR
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=echo | FileCheck %s --check-prefix=IR
// NONE: "feature_map_bytes": 1024,
// NONE: "recomputed_ops": 0,
// NONE: "strategy": "none"
// ECHO: "feature_map_bytes": 1024,
// ECHO: "recompute_flops": 0,
// ECHO: "recomputed_ops": 0,
// ECHO: "strategy": "echo"
// MIRROR: "feature_map_bytes": 2048,
// MIRROR: "recomputed_ops": 2,
// IR-LABEL: func.func @fig7_train
// IR-SAME: echo.recompute_strategy = "echo"
// IR-NOT: echo.recompute (
// IR: return

func.func @fig7(%x: tensor<4x64xf32>, %w1: tensor<64x64xf32> {echo.param},
                %w2: tensor<64x64xf32> {echo.param},
                %w3: tensor<64x64xf32> {echo.param},
                %b: tensor<64xf32> {echo.param}) -> tensor<f32> {
  %f1 = echo.linear %x, %w1, %b : (tensor<4x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  %f2 = echo.linear %x, %w2, %b : (tensor<4x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  %s = echo.add %f1, %f2 : tensor<4x64xf32>
  %t = echo.tanh %s : tensor<4x64xf32>
  %f3 = echo.linear %t, %w3, %b : (tensor<4x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<4x64xf32>
  %l = echo.reduce_sum %f3 dims = [0, 1] : (tensor<4x64xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
