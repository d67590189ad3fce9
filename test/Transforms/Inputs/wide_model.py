"""Prints a model with N arguments of 2^50 bytes each (tensor<2^48 x f32>),
unused, and one small parameter: echo-verify-model-total-bytes.test."""
import sys

n = int(sys.argv[1])
args = ", ".join("%%a%d: tensor<281474976710656xf32>" % i for i in range(n))
print("func.func @wide(%s, %%w: tensor<4xf32> {echo.param}) -> tensor<f32> {"
      % args)
print("  %l = echo.reduce_sum %w dims = [0] : (tensor<4xf32>) -> tensor<f32>")
print("  return %l : tensor<f32>")
print("}")
