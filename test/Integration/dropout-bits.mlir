// The dropout mask is the documented pure function of (seed, index): the
// gradient of sum(dropout(w)) is mask / (1 - ratio), which the script
// compares bit for bit with a NumPy re-implementation of the generator, and
// checks the kept fraction. Two dropouts with the same seed agree exactly:
// otherwise the gradient of the squared difference would not vanish.
// RUN: rm -rf %t && echo-run %s --dump=%t | FileCheck %s
// CHECK: step 0 loss
// RUN: %python %S/Inputs/check_dropout_bits.py %t/out1.npy 7 0.3

func.func @f(%w: tensor<64x33xf32> {echo.param}) -> tensor<f32> {
  %y, %m = echo.dropout %w {ratio = 3.000000e-01 : f64, seed = 7 : i64} : (tensor<64x33xf32>) -> (tensor<64x33xf32>, tensor<64x33xi1>)
  %y2, %m2 = echo.dropout %w {ratio = 3.000000e-01 : f64, seed = 7 : i64} : (tensor<64x33xf32>) -> (tensor<64x33xf32>, tensor<64x33xi1>)
  %s = echo.reduce_sum %y dims = [0, 1] : (tensor<64x33xf32>) -> tensor<f32>
  // d/dw sum((y - y2)^2) = 2 (y - y2)(m - m2) / (1 - ratio): zero iff the
  // two masks agree.
  %d = echo.sub %y, %y2 : tensor<64x33xf32>
  %dd = echo.mul %d, %d : tensor<64x33xf32>
  %z = echo.reduce_sum %dd dims = [0, 1] : (tensor<64x33xf32>) -> tensor<f32>
  %l = echo.add %s, %z : tensor<f32>
  return %l : tensor<f32>
}
