// A MobileNet-style block (grouped stem, depthwise 3x3, pointwise 1x1,
// grouped 3x3 with stride), each with batch norm and ReLU, then ceil_mode
// pooling and adaptive average pooling into a linear classifier: the
// grouped and depthwise convolutions of library-vs-generated.test.
func.func @grouped_conv(%x: tensor<4x4x9x9xf32>, %labels: tensor<4xi32>,
    %w1: tensor<8x2x3x3xf32> {echo.param}, %g1: tensor<8xf32> {echo.param}, %b1: tensor<8xf32> {echo.param},
    %w2: tensor<8x1x3x3xf32> {echo.param}, %g2: tensor<8xf32> {echo.param}, %b2: tensor<8xf32> {echo.param},
    %w3: tensor<12x8x1x1xf32> {echo.param}, %g3: tensor<12xf32> {echo.param}, %b3: tensor<12xf32> {echo.param},
    %w4: tensor<12x3x3x3xf32> {echo.param},
    %wl: tensor<5x48xf32> {echo.param}, %bl: tensor<5xf32> {echo.param}) -> tensor<f32> {
  %0 = "echo.conv2d"(%x, %w1) {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<4x4x9x9xf32>, tensor<8x2x3x3xf32>) -> tensor<4x8x9x9xf32>
  %1 = "echo.batch_norm"(%0, %g1, %b1) {epsilon = 1.000000e-05 : f64} : (tensor<4x8x9x9xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8x9x9xf32>
  %2 = "echo.relu"(%1) : (tensor<4x8x9x9xf32>) -> tensor<4x8x9x9xf32>
  %3 = "echo.conv2d"(%2, %w2) {groups = 8 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<4x8x9x9xf32>, tensor<8x1x3x3xf32>) -> tensor<4x8x5x5xf32>
  %4 = "echo.batch_norm"(%3, %g2, %b2) {epsilon = 1.000000e-05 : f64} : (tensor<4x8x5x5xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8x5x5xf32>
  %5 = "echo.relu"(%4) : (tensor<4x8x5x5xf32>) -> tensor<4x8x5x5xf32>
  %6 = "echo.conv2d"(%5, %w3) {padding = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<4x8x5x5xf32>, tensor<12x8x1x1xf32>) -> tensor<4x12x5x5xf32>
  %7 = "echo.batch_norm"(%6, %g3, %b3) {epsilon = 1.000000e-05 : f64} : (tensor<4x12x5x5xf32>, tensor<12xf32>, tensor<12xf32>) -> tensor<4x12x5x5xf32>
  %8 = "echo.relu"(%7) : (tensor<4x12x5x5xf32>) -> tensor<4x12x5x5xf32>
  %9 = "echo.conv2d"(%8, %w4) {groups = 4 : i64, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<4x12x5x5xf32>, tensor<12x3x3x3xf32>) -> tensor<4x12x3x3xf32>
  %10 = "echo.max_pool2d"(%9) {ceil_mode = true, kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<4x12x3x3xf32>) -> tensor<4x12x2x2xf32>
  %11 = "echo.adaptive_avg_pool2d"(%10) {output_size = array<i64: 2, 2>} : (tensor<4x12x2x2xf32>) -> tensor<4x12x2x2xf32>
  %12 = "echo.reshape"(%11) : (tensor<4x12x2x2xf32>) -> tensor<4x48xf32>
  %13 = "echo.linear"(%12, %wl, %bl) : (tensor<4x48xf32>, tensor<5x48xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %loss = "echo.cross_entropy"(%13, %labels) : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}
