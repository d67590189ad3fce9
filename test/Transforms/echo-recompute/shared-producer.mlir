// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=echo | FileCheck %s
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=echo | grep -c "echo.batch_norm %" | FileCheck %s --check-prefix=COUNT
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=none --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=echo --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=ECHO

// A recompute region per first backward reader, and each op of R cloned
// once. A DS2-style recurrence: one batch norm over the input projection of
// all six steps, sliced per step; each step multiplies its slice by the
// previous step's output (both read by the mul's gradient, and the product
// by the next matmul's gradient). The slices and products are recomputed
// right before each step's gradient; the batch norm is recomputed once, by
// the first region, which yields its output to the others (not once per
// region, and not all steps' values at once at the first reader). A
// step's slice, read by the mul's gradient two ops after the product's
// region, is yielded by that region rather than sliced again in a region of
// its own (reuse within a few ops; same peak, 12 recomputed ops instead of
// 17): five regions read the batch norm's output, one per step.
// CHECK-LABEL: func.func @shared_train
// CHECK: %[[R:.*]]:3 = echo.recompute
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[N:.*]] = echo.batch_norm
// CHECK: echo.yield %{{.*}}, %[[N]], %{{.*}} :
// CHECK-COUNT-5: echo.recompute (%[[R]]#1
// CHECK-NOT: echo.recompute (%[[R]]#1
// The model's batch norm, the training step's, and one clone:
// COUNT: 3
// NONE: "peak_live_bytes": 171140,
// ECHO: "peak_live_bytes": 167044,
func.func @shared(%x: tensor<384x16xf32>, %w: tensor<16x16xf32> {echo.param}, %g: tensor<16xf32> {echo.param}, %b: tensor<16xf32> {echo.param}, %v: tensor<16x16xf32> {echo.param}) -> tensor<f32> {
  %p = echo.matmul %x, %w : (tensor<384x16xf32>, tensor<16x16xf32>) -> tensor<384x16xf32>
  %n = echo.batch_norm %p, %g, %b {epsilon = 1.000000e-05 : f64} : (tensor<384x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<384x16xf32>
  %s0 = echo.slice %n {offsets = array<i64: 0, 0>, sizes = array<i64: 64, 16>} : (tensor<384x16xf32>) -> tensor<64x16xf32>
  %h0 = echo.matmul %s0, %v : (tensor<64x16xf32>, tensor<16x16xf32>) -> tensor<64x16xf32>
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
  %l = echo.reduce_sum %h5 dims = [0, 1] : (tensor<64x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
