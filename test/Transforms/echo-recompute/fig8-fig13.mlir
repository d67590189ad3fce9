// Echo paper Fig. 8 / 13: T = 4 vectors [N] broadcast-added to one shared
// [T x N] tensor, then tanh, each feeding a matmul. `none` stashes the T
// tanh outputs (T*T*N); echo recomputes all T branches from the shared
// tensor and the T vectors, counting the shared tensor once: 2*T*N.
// N = 64 f32 (256 bytes): T*T*N = 4096 bytes, 2*T*N = 2048 bytes.
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=none --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=echo --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=ECHO
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=echo | FileCheck %s --check-prefix=IR
// NONE: "feature_map_bytes": 4096,
// ECHO: "feature_map_bytes": 2048,
// ECHO: "recomputed_ops": 12,
// One region per branch, right before its gradient, reading the shared
// tensor and the branch's vector; the matmuls are not re-run.
// IR-LABEL: func.func @fig8_train
// IR-COUNT-4: echo.recompute (%{{.*}}, %{{.*}}) : (tensor<64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
// IR-NOT: echo.recompute

func.func @fig8(%x: tensor<4x64xf32>, %h0: tensor<1x64xf32>, %h1: tensor<1x64xf32>,
                %h2: tensor<1x64xf32>, %h3: tensor<1x64xf32>,
                %w: tensor<64x64xf32> {echo.param},
                %u: tensor<64x64xf32> {echo.param},
                %w2: tensor<64x64xf32> {echo.param}) -> tensor<f32> {
  %X = echo.matmul %x, %w : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %m0 = echo.matmul %h0, %u : (tensor<1x64xf32>, tensor<64x64xf32>) -> tensor<1x64xf32>
  %r0 = echo.reshape %m0 : (tensor<1x64xf32>) -> tensor<64xf32>
  %b0 = echo.broadcast %r0 dims = [0] : (tensor<64xf32>) -> tensor<4x64xf32>
  %a0 = echo.add %X, %b0 : tensor<4x64xf32>
  %t0 = echo.tanh %a0 : tensor<4x64xf32>
  %y0 = echo.matmul %t0, %w2 : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %m1 = echo.matmul %h1, %u : (tensor<1x64xf32>, tensor<64x64xf32>) -> tensor<1x64xf32>
  %r1 = echo.reshape %m1 : (tensor<1x64xf32>) -> tensor<64xf32>
  %b1 = echo.broadcast %r1 dims = [0] : (tensor<64xf32>) -> tensor<4x64xf32>
  %a1 = echo.add %X, %b1 : tensor<4x64xf32>
  %t1 = echo.tanh %a1 : tensor<4x64xf32>
  %y1 = echo.matmul %t1, %w2 : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %m2 = echo.matmul %h2, %u : (tensor<1x64xf32>, tensor<64x64xf32>) -> tensor<1x64xf32>
  %r2 = echo.reshape %m2 : (tensor<1x64xf32>) -> tensor<64xf32>
  %b2 = echo.broadcast %r2 dims = [0] : (tensor<64xf32>) -> tensor<4x64xf32>
  %a2 = echo.add %X, %b2 : tensor<4x64xf32>
  %t2 = echo.tanh %a2 : tensor<4x64xf32>
  %y2 = echo.matmul %t2, %w2 : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %m3 = echo.matmul %h3, %u : (tensor<1x64xf32>, tensor<64x64xf32>) -> tensor<1x64xf32>
  %r3 = echo.reshape %m3 : (tensor<1x64xf32>) -> tensor<64xf32>
  %b3 = echo.broadcast %r3 dims = [0] : (tensor<64xf32>) -> tensor<4x64xf32>
  %a3 = echo.add %X, %b3 : tensor<4x64xf32>
  %t3 = echo.tanh %a3 : tensor<4x64xf32>
  %y3 = echo.matmul %t3, %w2 : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %s0 = echo.add %y0, %y1 : tensor<4x64xf32>
  %s1 = echo.add %s0, %y2 : tensor<4x64xf32>
  %s2 = echo.add %s1, %y3 : tensor<4x64xf32>
  %l = echo.reduce_sum %s2 dims = [0, 1] : (tensor<4x64xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
