// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=echo | FileCheck %s
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=none --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=echo --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=ECHO

// A concat of every step's value, read by the classifier's weight gradient
// right after the loss. Recomputing it there would rebuild every step's
// product (each read again by its own step's gradients much later) and
// keep them all alive until then: 195716 bytes, above none's. Weighed in
// bytes times positions, stashing the concat is cheaper (it is made just
// before the loss), so only the per-step values are recomputed, each at
// its own step: 185476 bytes.
// CHECK-LABEL: func.func @concat_train
// CHECK: %[[C:.*]] = echo.concat
// CHECK: echo.matmul %[[C]], %{{.*}} {transpose_a = true}
// CHECK-NOT: echo.concat
// CHECK: return
// NONE: "peak_live_bytes": 189572,
// ECHO: "peak_live_bytes": 185476,
func.func @concat(%x: tensor<384x16xf32>, %w: tensor<16x16xf32> {echo.param}, %g: tensor<16xf32> {echo.param}, %b: tensor<16xf32> {echo.param},
                   %v: tensor<16x16xf32> {echo.param}, %u: tensor<16x16xf32> {echo.param}) -> tensor<f32> {
  %p = echo.matmul %x, %w : (tensor<384x16xf32>, tensor<16x16xf32>) -> tensor<384x16xf32>
  %n = echo.batch_norm %p, %g, %b {epsilon = 1.000000e-05 : f64} : (tensor<384x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<384x16xf32>
  %s0 = echo.slice %n {offsets = array<i64: 0, 0>, sizes = array<i64: 64, 16>} : (tensor<384x16xf32>) -> tensor<64x16xf32>
  %a0 = echo.tanh %s0 : tensor<64x16xf32>
  %h0 = echo.matmul %a0, %v : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %s1 = echo.slice %n {offsets = array<i64: 64, 0>, sizes = array<i64: 64, 16>} : (tensor<384x16xf32>) -> tensor<64x16xf32>
  %a1 = echo.mul %s1, %h0 : tensor<64x16xf32>
  %h1 = echo.matmul %a1, %v : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %s2 = echo.slice %n {offsets = array<i64: 128, 0>, sizes = array<i64: 64, 16>} : (tensor<384x16xf32>) -> tensor<64x16xf32>
  %a2 = echo.mul %s2, %h1 : tensor<64x16xf32>
  %h2 = echo.matmul %a2, %v : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %s3 = echo.slice %n {offsets = array<i64: 192, 0>, sizes = array<i64: 64, 16>} : (tensor<384x16xf32>) -> tensor<64x16xf32>
  %a3 = echo.mul %s3, %h2 : tensor<64x16xf32>
  %h3 = echo.matmul %a3, %v : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %s4 = echo.slice %n {offsets = array<i64: 256, 0>, sizes = array<i64: 64, 16>} : (tensor<384x16xf32>) -> tensor<64x16xf32>
  %a4 = echo.mul %s4, %h3 : tensor<64x16xf32>
  %h4 = echo.matmul %a4, %v : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %s5 = echo.slice %n {offsets = array<i64: 320, 0>, sizes = array<i64: 64, 16>} : (tensor<384x16xf32>) -> tensor<64x16xf32>
  %a5 = echo.mul %s5, %h4 : tensor<64x16xf32>
  %h5 = echo.matmul %a5, %v : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
  %c = echo.concat %a0, %a1, %a2, %a3, %a4, %a5 {axis = 0 : i64} : (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<384x16xf32>
  %o = echo.matmul %c, %u : (tensor<384x16xf32>, tensor<16x16xf32>) -> tensor<384x16xf32>
  %l = echo.reduce_sum %o dims = [0, 1] : (tensor<384x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
