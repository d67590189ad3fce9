// --inputs reads argN.npy, --dump writes the first step's results; both are
// checked against NumPy: loss = mean((x·w + b − t)²) and its gradients.
// Also: a bad .npy (wrong dtype, wrong shape) is rejected with the argument
// named, and --report writes losses and the step time.
// RUN: rm -rf %t && mkdir -p %t/in
// RUN: %python %S/Inputs/npy_check.py write %t/in
// RUN: echo-run %s --inputs=%t/in --dump=%t/out --steps=2 --report=%t/report.json | FileCheck %s
// CHECK: step 0 loss
// CHECK: step 1 loss
// RUN: %python %S/Inputs/npy_check.py check %t/in %t/out %t/report.json
// RUN: %python %S/Inputs/npy_check.py bad-dtype %t/bad1
// RUN: not echo-run %s --inputs=%t/bad1 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: arg1.npy (argument 1): dtype must be '<f4'
// RUN: %python %S/Inputs/npy_check.py bad-shape %t/bad2
// RUN: not echo-run %s --inputs=%t/bad2 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: arg1.npy (argument 1): shape 4x2x does not match the argument's 3x2x

func.func @reg(%x: tensor<4x3xf32>, %w: tensor<3x2xf32> {echo.param},
               %b: tensor<4x2xf32> {echo.param}, %t: tensor<4x2xf32>) -> tensor<f32> {
  %0 = echo.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %1 = echo.add %0, %b : tensor<4x2xf32>
  %l = echo.mse_loss %1, %t : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
