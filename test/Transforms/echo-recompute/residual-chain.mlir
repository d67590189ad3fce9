// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=echo | FileCheck %s
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=none --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=echo --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=ECHO

// A residual stream (ResNet-like blocks y_i = relu(LN(y_{i-1} W) + y_{i-1})):
// every y_i is read by the next block's weight gradient, and recomputing
// y_i needs y_{i-1}. Recomputing all of them chains each region back to the
// start (all values live at once, or cloned again per reader: 231684 bytes
// at best). Cutting the chain (every link a region would rebuild after
// another one is stashed) leaves no region rebuilding more than one block:
// an LN and an add, or a relu, an LN and an add. 182404 bytes.
// CHECK-LABEL: func.func @residual_train
// CHECK: echo.recompute (
// CHECK-NEXT: ^bb0
// CHECK-NEXT: echo.layer_norm
// CHECK-NEXT: echo.add
// CHECK-NEXT: echo.yield
// CHECK: echo.recompute (
// CHECK-NEXT: ^bb0
// CHECK-NEXT: echo.relu
// CHECK-NEXT: echo.layer_norm
// CHECK-NEXT: echo.add
// CHECK-NEXT: echo.yield
// CHECK: echo.recompute (
// CHECK-NEXT: ^bb0
// CHECK-NEXT: echo.layer_norm
// CHECK-NEXT: echo.add
// CHECK-NEXT: echo.relu
// CHECK-NEXT: echo.yield
// CHECK-NOT: echo.recompute (
// NONE: "peak_live_bytes": 247940,
// ECHO: "peak_live_bytes": 182404,
func.func @residual(%x: tensor<256x16xf32>, %w0: tensor<16x16xf32> {echo.param},
                    %w: tensor<16x16xf32> {echo.param}, %g: tensor<16xf32> {echo.param},
                    %b: tensor<16xf32> {echo.param}) -> tensor<f32> {
  %y0 = echo.matmul %x, %w0 : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %c1 = echo.matmul %y0, %w : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %n1 = echo.layer_norm %c1, %g, %b {epsilon = 1.000000e-05 : f64} : (tensor<256x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<256x16xf32>
  %s1 = echo.add %n1, %y0 : tensor<256x16xf32>
  %y1 = echo.relu %s1 : tensor<256x16xf32>
  %c2 = echo.matmul %y1, %w : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %n2 = echo.layer_norm %c2, %g, %b {epsilon = 1.000000e-05 : f64} : (tensor<256x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<256x16xf32>
  %s2 = echo.add %n2, %y1 : tensor<256x16xf32>
  %y2 = echo.relu %s2 : tensor<256x16xf32>
  %c3 = echo.matmul %y2, %w : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %n3 = echo.layer_norm %c3, %g, %b {epsilon = 1.000000e-05 : f64} : (tensor<256x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<256x16xf32>
  %s3 = echo.add %n3, %y2 : tensor<256x16xf32>
  %y3 = echo.relu %s3 : tensor<256x16xf32>
  %c4 = echo.matmul %y3, %w : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %n4 = echo.layer_norm %c4, %g, %b {epsilon = 1.000000e-05 : f64} : (tensor<256x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<256x16xf32>
  %s4 = echo.add %n4, %y3 : tensor<256x16xf32>
  %y4 = echo.relu %s4 : tensor<256x16xf32>
  %l = echo.reduce_sum %y4 dims = [0, 1] : (tensor<256x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
