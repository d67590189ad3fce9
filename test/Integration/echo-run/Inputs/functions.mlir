// Functions that are not Echo models, for echo-run --function.
func.func @add(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = tosa.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
func.func @add_f64(%x: tensor<4xf64>, %y: tensor<4xf64>) -> tensor<4xf64> {
  %s = arith.addf %x, %y : tensor<4xf64>
  return %s : tensor<4xf64>
}
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}
func.func @scalar(%x: f32) -> f32 {
  return %x : f32
}
func.func @mask(%x: tensor<4xf32>) -> tensor<4xi1> {
  %z = arith.constant dense<0.0> : tensor<4xf32>
  %m = arith.cmpf ogt, %x, %z : tensor<4xf32>
  return %m : tensor<4xi1>
}
func.func private @external(%x: tensor<4xf32>) -> tensor<4xf32>
func.func @pick(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %x : tensor<2x3xf32>
}
