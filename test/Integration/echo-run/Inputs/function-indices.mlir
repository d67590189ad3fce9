// A function whose i32 argument indexes a table (echo.embedding declares
// the range it accepts): echo-run --function draws it inside the range and
// refuses a caller's value outside it (function-indices.test).
func.func @lookup(%ids: tensor<4xi32>, %table: tensor<3x8xf32>) -> tensor<4x8xf32> {
  %e = echo.embedding %ids, %table : (tensor<4xi32>, tensor<3x8xf32>) -> tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
