func.func @bad(%w: tensor<3xf32> {echo.param}) -> tensor<3xf32> {
  %0 = echo.mul %w, %w : tensor<3xf32>
  return %0 : tensor<3xf32>
}
