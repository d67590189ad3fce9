// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=echo | FileCheck %s
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=none --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: echo-opt %s --echo-autodiff --echo-recompute=strategy=echo --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=ECHO

// A chain whose links (x_i = tanh(x_{i-1} + b), each read by its
// tanh_grad) are joined through values the backward pass does not read
// (the adds). The cut still finds the links: x1 and x4 are stashed, x2 and
// x3 are recomputed from x1 in one region, x5 from x4. A link another
// region rebuilds is yielded to its own readers rather than rebuilt again,
// so no op is recomputed twice: 6 ops, not 4+3+2+1 tanh and their adds.
// CHECK-LABEL: func.func @chain_train
// CHECK: echo.recompute (
// CHECK-NEXT: ^bb0
// CHECK-NEXT: echo.add
// CHECK-NEXT: echo.tanh
// CHECK-NEXT: echo.yield
// CHECK: echo.recompute (
// CHECK-NEXT: ^bb0
// CHECK-NEXT: echo.add
// CHECK-NEXT: echo.tanh
// CHECK-NEXT: echo.add
// CHECK-NEXT: echo.tanh
// CHECK-NEXT: echo.yield
// CHECK-NOT: echo.recompute (
// NONE: "peak_live_bytes": 148484,
// ECHO: "peak_live_bytes": 132100,
// ECHO: "recomputed_ops": 6,
func.func @chain(%x: tensor<256x16xf32>, %w0: tensor<16x16xf32> {echo.param}, %b: tensor<256x16xf32> {echo.param}) -> tensor<f32> {
  %x0 = echo.matmul %x, %w0 : (tensor<256x16xf32>, tensor<16x16xf32>) -> tensor<256x16xf32>
  %s1 = echo.add %x0, %b : tensor<256x16xf32>
  %x1 = echo.tanh %s1 : tensor<256x16xf32>
  %s2 = echo.add %x1, %b : tensor<256x16xf32>
  %x2 = echo.tanh %s2 : tensor<256x16xf32>
  %s3 = echo.add %x2, %b : tensor<256x16xf32>
  %x3 = echo.tanh %s3 : tensor<256x16xf32>
  %s4 = echo.add %x3, %b : tensor<256x16xf32>
  %x4 = echo.tanh %s4 : tensor<256x16xf32>
  %s5 = echo.add %x4, %b : tensor<256x16xf32>
  %x5 = echo.tanh %s5 : tensor<256x16xf32>
  %l = echo.reduce_sum %x5 dims = [0, 1] : (tensor<256x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
