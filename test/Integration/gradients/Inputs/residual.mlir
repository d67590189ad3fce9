// A conv-batch norm-ReLU residual block as PyTorch users write it (conv
// biases before the batch norms, max pooling, a mean over H and W),
// imported by echo.import_torch from:
//   y = relu(bn1(conv1(x))); y = relu(bn2(conv2(y)) + x)
//   logits = fc(max_pool2d(y, 2).mean((2, 3)))
func.func @residual(
    %x: tensor<3x4x8x8xf32>,
    %labels: tensor<3xi32>,
    %c1_weight: tensor<4x4x3x3xf32> {echo.param},
    %c1_bias: tensor<4xf32> {echo.param},
    %b1_weight: tensor<4xf32> {echo.param},
    %b1_bias: tensor<4xf32> {echo.param},
    %c2_weight: tensor<4x4x3x3xf32> {echo.param},
    %c2_bias: tensor<4xf32> {echo.param},
    %b2_weight: tensor<4xf32> {echo.param},
    %b2_bias: tensor<4xf32> {echo.param},
    %fc_weight: tensor<5x4xf32> {echo.param},
    %fc_bias: tensor<5xf32> {echo.param}) -> tensor<f32> {
  %0 = "echo.conv2d"(%x, %c1_weight) {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<3x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<3x4x8x8xf32>
  %1 = "echo.broadcast"(%c1_bias) {dimensions = array<i64: 0, 2, 3>} : (tensor<4xf32>) -> tensor<3x4x8x8xf32>
  %2 = "echo.add"(%0, %1) : (tensor<3x4x8x8xf32>, tensor<3x4x8x8xf32>) -> tensor<3x4x8x8xf32>
  %3 = "echo.batch_norm"(%2, %b1_weight, %b1_bias) {epsilon = 1.000000e-05 : f64} : (tensor<3x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<3x4x8x8xf32>
  %4 = "echo.relu"(%3) : (tensor<3x4x8x8xf32>) -> tensor<3x4x8x8xf32>
  %5 = "echo.conv2d"(%4, %c2_weight) {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<3x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<3x4x8x8xf32>
  %6 = "echo.broadcast"(%c2_bias) {dimensions = array<i64: 0, 2, 3>} : (tensor<4xf32>) -> tensor<3x4x8x8xf32>
  %7 = "echo.add"(%5, %6) : (tensor<3x4x8x8xf32>, tensor<3x4x8x8xf32>) -> tensor<3x4x8x8xf32>
  %8 = "echo.batch_norm"(%7, %b2_weight, %b2_bias) {epsilon = 1.000000e-05 : f64} : (tensor<3x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<3x4x8x8xf32>
  %9 = "echo.add"(%8, %x) : (tensor<3x4x8x8xf32>, tensor<3x4x8x8xf32>) -> tensor<3x4x8x8xf32>
  %10 = "echo.relu"(%9) : (tensor<3x4x8x8xf32>) -> tensor<3x4x8x8xf32>
  %11 = "echo.max_pool2d"(%10) {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<3x4x8x8xf32>) -> tensor<3x4x4x4xf32>
  %12 = "echo.reduce_sum"(%11) {dimensions = array<i64: 2, 3>} : (tensor<3x4x4x4xf32>) -> tensor<3x4xf32>
  %13 = arith.constant dense<6.250000e-02> : tensor<3x4xf32>
  %14 = "echo.mul"(%12, %13) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %15 = "echo.linear"(%14, %fc_weight, %fc_bias) : (tensor<3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<3x5xf32>
  %16 = "echo.cross_entropy"(%15, %labels) : (tensor<3x5xf32>, tensor<3xi32>) -> tensor<f32>
  return %16 : tensor<f32>
}

