// An AOTAutograd-style joint graph in linalg on tensors: y = tanh(x * w)
// elementwise, the tangent of y (argument #2) comes in, the gradient of w
// goes out beside y.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @joint(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>, %ty: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %e = tensor.empty() : tensor<64x64xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %w : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%p: f32, %o: f32):
    %t = math.tanh %p : f32
    linalg.yield %t : f32
  } -> tensor<64x64xf32>
  // d w = ty * (1 - y^2) * x
  %gw = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%ty, %y, %x : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%t: f32, %v: f32, %p: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %v2 = arith.mulf %v, %v : f32
    %d = arith.subf %one, %v2 : f32
    %g = arith.mulf %t, %d : f32
    %r = arith.mulf %g, %p : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %y, %gw : tensor<64x64xf32>, tensor<64x64xf32>
}
