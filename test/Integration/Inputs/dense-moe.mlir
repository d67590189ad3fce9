// A dense mixture of experts: test/Python/Inputs/dense_moe.py's moe_sum (4
// experts stacked along a new last dim, mixed by a softmax gate), imported
// at batch 4 (run in test/Python/Inputs):
// python3 -m echo.import_torch dense_moe:moe_sum --input 4x16:f32 --loss cross_entropy --labels 4 -o dense-moe.mlir --weights DIR
func.func @moe_sum(
    %x: tensor<4x16xf32>,
    %labels: tensor<4xi32>,
    %experts_0_0_weight: tensor<32x16xf32> {echo.param},
    %experts_0_0_bias: tensor<32xf32> {echo.param},
    %experts_0_2_weight: tensor<16x32xf32> {echo.param},
    %experts_0_2_bias: tensor<16xf32> {echo.param},
    %experts_1_0_weight: tensor<32x16xf32> {echo.param},
    %experts_1_0_bias: tensor<32xf32> {echo.param},
    %experts_1_2_weight: tensor<16x32xf32> {echo.param},
    %experts_1_2_bias: tensor<16xf32> {echo.param},
    %experts_2_0_weight: tensor<32x16xf32> {echo.param},
    %experts_2_0_bias: tensor<32xf32> {echo.param},
    %experts_2_2_weight: tensor<16x32xf32> {echo.param},
    %experts_2_2_bias: tensor<16xf32> {echo.param},
    %experts_3_0_weight: tensor<32x16xf32> {echo.param},
    %experts_3_0_bias: tensor<32xf32> {echo.param},
    %experts_3_2_weight: tensor<16x32xf32> {echo.param},
    %experts_3_2_bias: tensor<16xf32> {echo.param},
    %gate_weight: tensor<4x16xf32> {echo.param},
    %gate_bias: tensor<4xf32> {echo.param},
    %head_weight: tensor<5x16xf32> {echo.param},
    %head_bias: tensor<5xf32> {echo.param}) -> tensor<f32> {
  %1 = "echo.linear"(%x, %experts_0_0_weight, %experts_0_0_bias) : (tensor<4x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %2 = "echo.tanh"(%1) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %4 = "echo.linear"(%2, %experts_0_2_weight, %experts_0_2_bias) : (tensor<4x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %6 = "echo.linear"(%x, %experts_1_0_weight, %experts_1_0_bias) : (tensor<4x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %7 = "echo.tanh"(%6) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %9 = "echo.linear"(%7, %experts_1_2_weight, %experts_1_2_bias) : (tensor<4x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %11 = "echo.linear"(%x, %experts_2_0_weight, %experts_2_0_bias) : (tensor<4x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %12 = "echo.tanh"(%11) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %14 = "echo.linear"(%12, %experts_2_2_weight, %experts_2_2_bias) : (tensor<4x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %16 = "echo.linear"(%x, %experts_3_0_weight, %experts_3_0_bias) : (tensor<4x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<4x32xf32>
  %17 = "echo.tanh"(%16) : (tensor<4x32xf32>) -> tensor<4x32xf32>
  %19 = "echo.linear"(%17, %experts_3_2_weight, %experts_3_2_bias) : (tensor<4x32xf32>, tensor<16x32xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %20 = "echo.reshape"(%4) : (tensor<4x16xf32>) -> tensor<4x16x1xf32>
  %21 = "echo.reshape"(%9) : (tensor<4x16xf32>) -> tensor<4x16x1xf32>
  %22 = "echo.reshape"(%14) : (tensor<4x16xf32>) -> tensor<4x16x1xf32>
  %23 = "echo.reshape"(%19) : (tensor<4x16xf32>) -> tensor<4x16x1xf32>
  %24 = "echo.concat"(%20, %21, %22, %23) {axis = 2 : i64} : (tensor<4x16x1xf32>, tensor<4x16x1xf32>, tensor<4x16x1xf32>, tensor<4x16x1xf32>) -> tensor<4x16x4xf32>
  %26 = "echo.linear"(%x, %gate_weight, %gate_bias) : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %27 = "echo.softmax"(%26) {axis = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %28 = "echo.reshape"(%27) : (tensor<4x4xf32>) -> tensor<4x1x4xf32>
  %29 = "echo.reshape"(%28) : (tensor<4x1x4xf32>) -> tensor<4x4xf32>
  %30 = "echo.broadcast"(%29) {dimensions = array<i64: 1>} : (tensor<4x4xf32>) -> tensor<4x16x4xf32>
  %31 = "echo.mul"(%24, %30) : (tensor<4x16x4xf32>, tensor<4x16x4xf32>) -> tensor<4x16x4xf32>
  %32 = "echo.reduce_sum"(%31) {dimensions = array<i64: 2>} : (tensor<4x16x4xf32>) -> tensor<4x16xf32>
  %33 = "echo.tanh"(%32) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %35 = "echo.linear"(%33, %head_weight, %head_bias) : (tensor<4x16xf32>, tensor<5x16xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %36 = "echo.cross_entropy"(%35, %labels) {ignore_index = -100 : i64} : (tensor<4x5xf32>, tensor<4xi32>) -> tensor<f32>
  return %36 : tensor<f32>
}
