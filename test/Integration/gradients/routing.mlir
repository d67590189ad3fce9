// Gradient check of a top-2 mixture-of-experts block written four ways:
// softmax router, topk, the two weights renormalized, then the experts'
// outputs combined by gather (the chosen experts' rows), by scatter and by
// scatter_add of the weights into dense gates, and by one_hot of the
// chosen experts. The router's gradient reaches it through the topk
// values (scattered to their indices), the gathered probabilities, and
// the scattered weights; the experts' through gather's scatter_add and
// the dense gates. Indices and one_hot get none.
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// RUN: echo-run %s --check-gradients --check-samples=0 --strategy=none | FileCheck %s
// RUN: echo-run %s --check-gradients --check-samples=0 --strategy=mirror | FileCheck %s
// CHECK-COUNT-4: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED

func.func @routing(%x: tensor<8x6xf32>, %t: tensor<8x6xf32>,
                   %wr: tensor<4x6xf32> {echo.param},
                   %br: tensor<4xf32> {echo.param},
                   %we: tensor<24x6xf32> {echo.param},
                   %be: tensor<24xf32> {echo.param}) -> tensor<f32> {
  %logits = echo.linear %x, %wr, %br
      : (tensor<8x6xf32>, tensor<4x6xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %probs = echo.softmax %logits {axis = 1 : i64} : tensor<8x4xf32>
  %v, %i = echo.topk %probs : (tensor<8x4xf32>) -> (tensor<8x2xf32>, tensor<8x2xi32>)
  %vs = echo.reduce_sum %v dims = [1] : (tensor<8x2xf32>) -> tensor<8xf32>
  %vsb = echo.broadcast %vs dims = [1] : (tensor<8xf32>) -> tensor<8x2xf32>
  %gate = echo.div %v, %vsb : tensor<8x2xf32>
  // Four experts, each a 6 -> 6 linear map, run densely.
  %e2 = echo.linear %x, %we, %be
      : (tensor<8x6xf32>, tensor<24x6xf32>, tensor<24xf32>) -> tensor<8x24xf32>
  %experts = echo.reshape %e2 : (tensor<8x24xf32>) -> tensor<8x4x6xf32>
  // gather: the rows of the two chosen experts.
  %i3 = echo.broadcast %i dims = [2] : (tensor<8x2xi32>) -> tensor<8x2x6xi32>
  %chosen = echo.gather %experts, %i3 {axis = 1 : i64}
      : (tensor<8x4x6xf32>, tensor<8x2x6xi32>) -> tensor<8x2x6xf32>
  %gb = echo.broadcast %gate dims = [2] : (tensor<8x2xf32>) -> tensor<8x2x6xf32>
  %wa = echo.mul %chosen, %gb : tensor<8x2x6xf32>
  %outa = echo.reduce_sum %wa dims = [1] : (tensor<8x2x6xf32>) -> tensor<8x6xf32>
  // scatter and scatter_add: dense gates.
  %zeros = arith.constant dense<0.0> : tensor<8x4xf32>
  %dense = echo.scatter %zeros, %i, %gate {axis = 1 : i64}
      : (tensor<8x4xf32>, tensor<8x2xi32>, tensor<8x2xf32>) -> tensor<8x4xf32>
  %dense2 = echo.scatter_add %dense, %i, %v {axis = 1 : i64}
      : (tensor<8x4xf32>, tensor<8x2xi32>, tensor<8x2xf32>) -> tensor<8x4xf32>
  // one_hot: the weights spread over the experts.
  %oh = echo.one_hot %i : (tensor<8x2xi32>) -> tensor<8x2x4xf32>
  %gob = echo.broadcast %gate dims = [2] : (tensor<8x2xf32>) -> tensor<8x2x4xf32>
  %spread = echo.mul %oh, %gob : tensor<8x2x4xf32>
  %dense3 = echo.reduce_sum %spread dims = [1] : (tensor<8x2x4xf32>) -> tensor<8x4xf32>
  %gates = echo.add %dense2, %dense3 : tensor<8x4xf32>
  %gates3 = echo.broadcast %gates dims = [2] : (tensor<8x4xf32>) -> tensor<8x4x6xf32>
  %wb = echo.mul %experts, %gates3 : tensor<8x4x6xf32>
  %outb = echo.reduce_sum %wb dims = [1] : (tensor<8x4x6xf32>) -> tensor<8x6xf32>
  // The chosen probabilities gathered back from the router's output.
  %gp = echo.gather %probs, %i {axis = 1 : i64}
      : (tensor<8x4xf32>, tensor<8x2xi32>) -> tensor<8x2xf32>
  %gps = echo.reduce_sum %gp dims = [1] : (tensor<8x2xf32>) -> tensor<8xf32>
  %gpb = echo.broadcast %gps dims = [1] : (tensor<8xf32>) -> tensor<8x6xf32>
  %out0 = echo.add %outa, %outb : tensor<8x6xf32>
  %out = echo.mul %out0, %gpb : tensor<8x6xf32>
  %loss = echo.mse_loss %out, %t : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
