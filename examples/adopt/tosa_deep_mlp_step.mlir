// A training step of a deeper MLP in TOSA with its backward pass written
// out, as jax.grad or AOTAutograd hands one over: three hidden layers, each
// a matmul, ReLU and tanh (a batch of 64 rows of 128 features, 256 units),
// a linear read-out of 10 and the summed squared error against y. Result #0
// is the loss; #1 to #4 are the gradients of the four weights. The backward
// pass reads each layer's ReLU input (its mask) and tanh output (its
// derivative, the next weight's gradient) in reverse order, the first
// layer's last: what mirror and echo keep from being stashed for long.
//
//   echo-run examples/adopt/tosa_deep_mlp_step.mlir --function=@train_step \
//     --loss=0 --strategy=mirror --dump=out --report=report.json
//
func.func @train_step(%x: tensor<1x64x128xf32>, %w1: tensor<1x128x256xf32>, %w2: tensor<1x256x256xf32>, %w3: tensor<1x256x256xf32>, %w4: tensor<1x256x10xf32>, %y: tensor<1x64x10xf32>) -> (tensor<1x1x1xf32>, tensor<1x128x256xf32>, tensor<1x256x256xf32>, tensor<1x256x256xf32>, tensor<1x256x10xf32>) {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  // Forward: three layers of matmul, ReLU, tanh, then the read-out.
  %h1 = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x64x128xf32>, tensor<1x128x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x256xf32>
  %a1 = tosa.clamp %h1 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
  %t1 = tosa.tanh %a1 : (tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
  %h2 = tosa.matmul %t1, %w2, %zp, %zp : (tensor<1x64x256xf32>, tensor<1x256x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x256xf32>
  %a2 = tosa.clamp %h2 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
  %t2 = tosa.tanh %a2 : (tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
  %h3 = tosa.matmul %t2, %w3, %zp, %zp : (tensor<1x64x256xf32>, tensor<1x256x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x256xf32>
  %a3 = tosa.clamp %h3 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
  %t3 = tosa.tanh %a3 : (tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
  %o = tosa.matmul %t3, %w4, %zp, %zp : (tensor<1x64x256xf32>, tensor<1x256x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x10xf32>
  %d = tosa.sub %o, %y : (tensor<1x64x10xf32>, tensor<1x64x10xf32>) -> tensor<1x64x10xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<1x64x10xf32>, tensor<1x64x10xf32>, tensor<1xi8>) -> tensor<1x64x10xf32>
  %s1 = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<1x64x10xf32>) -> tensor<1x1x10xf32>
  %loss = tosa.reduce_sum %s1 {axis = 2 : i32} : (tensor<1x1x10xf32>) -> tensor<1x1x1xf32>
  // Backward: d loss / d o = 2 (o - y), then the layers in reverse.
  %two = "tosa.const"() {values = dense<2.0> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %one = "tosa.const"() {values = dense<1.0> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %zero = "tosa.const"() {values = dense<0.0> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %go = tosa.mul %d, %two, %shift : (tensor<1x64x10xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x64x10xf32>
  %t3t = tosa.transpose %t3 {perms = array<i32: 0, 2, 1>} : (tensor<1x64x256xf32>) -> tensor<1x256x64xf32>
  %dw4 = tosa.matmul %t3t, %go, %zp, %zp : (tensor<1x256x64xf32>, tensor<1x64x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x256x10xf32>
  %w4t = tosa.transpose %w4 {perms = array<i32: 0, 2, 1>} : (tensor<1x256x10xf32>) -> tensor<1x10x256xf32>
  %g3 = tosa.matmul %go, %w4t, %zp, %zp : (tensor<1x64x10xf32>, tensor<1x10x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x256xf32>
  %t3sq = tosa.mul %t3, %t3, %shift : (tensor<1x64x256xf32>, tensor<1x64x256xf32>, tensor<1xi8>) -> tensor<1x64x256xf32>
  %dt3 = tosa.sub %one, %t3sq : (tensor<1x1x1xf32>, tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
  %ga3 = tosa.mul %g3, %dt3, %shift : (tensor<1x64x256xf32>, tensor<1x64x256xf32>, tensor<1xi8>) -> tensor<1x64x256xf32>
  %pos3 = tosa.greater %h3, %zero : (tensor<1x64x256xf32>, tensor<1x1x1xf32>) -> tensor<1x64x256xi1>
  %gh3 = tosa.select %pos3, %ga3, %zero : (tensor<1x64x256xi1>, tensor<1x64x256xf32>, tensor<1x1x1xf32>) -> tensor<1x64x256xf32>
  %in3t = tosa.transpose %t2 {perms = array<i32: 0, 2, 1>} : (tensor<1x64x256xf32>) -> tensor<1x256x64xf32>
  %dw3 = tosa.matmul %in3t, %gh3, %zp, %zp : (tensor<1x256x64xf32>, tensor<1x64x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x256x256xf32>
  %w3t = tosa.transpose %w3 {perms = array<i32: 0, 2, 1>} : (tensor<1x256x256xf32>) -> tensor<1x256x256xf32>
  %g2 = tosa.matmul %gh3, %w3t, %zp, %zp : (tensor<1x64x256xf32>, tensor<1x256x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x256xf32>
  %t2sq = tosa.mul %t2, %t2, %shift : (tensor<1x64x256xf32>, tensor<1x64x256xf32>, tensor<1xi8>) -> tensor<1x64x256xf32>
  %dt2 = tosa.sub %one, %t2sq : (tensor<1x1x1xf32>, tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
  %ga2 = tosa.mul %g2, %dt2, %shift : (tensor<1x64x256xf32>, tensor<1x64x256xf32>, tensor<1xi8>) -> tensor<1x64x256xf32>
  %pos2 = tosa.greater %h2, %zero : (tensor<1x64x256xf32>, tensor<1x1x1xf32>) -> tensor<1x64x256xi1>
  %gh2 = tosa.select %pos2, %ga2, %zero : (tensor<1x64x256xi1>, tensor<1x64x256xf32>, tensor<1x1x1xf32>) -> tensor<1x64x256xf32>
  %in2t = tosa.transpose %t1 {perms = array<i32: 0, 2, 1>} : (tensor<1x64x256xf32>) -> tensor<1x256x64xf32>
  %dw2 = tosa.matmul %in2t, %gh2, %zp, %zp : (tensor<1x256x64xf32>, tensor<1x64x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x256x256xf32>
  %w2t = tosa.transpose %w2 {perms = array<i32: 0, 2, 1>} : (tensor<1x256x256xf32>) -> tensor<1x256x256xf32>
  %g1 = tosa.matmul %gh2, %w2t, %zp, %zp : (tensor<1x64x256xf32>, tensor<1x256x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x256xf32>
  %t1sq = tosa.mul %t1, %t1, %shift : (tensor<1x64x256xf32>, tensor<1x64x256xf32>, tensor<1xi8>) -> tensor<1x64x256xf32>
  %dt1 = tosa.sub %one, %t1sq : (tensor<1x1x1xf32>, tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
  %ga1 = tosa.mul %g1, %dt1, %shift : (tensor<1x64x256xf32>, tensor<1x64x256xf32>, tensor<1xi8>) -> tensor<1x64x256xf32>
  %pos1 = tosa.greater %h1, %zero : (tensor<1x64x256xf32>, tensor<1x1x1xf32>) -> tensor<1x64x256xi1>
  %gh1 = tosa.select %pos1, %ga1, %zero : (tensor<1x64x256xi1>, tensor<1x64x256xf32>, tensor<1x1x1xf32>) -> tensor<1x64x256xf32>
  %in1t = tosa.transpose %x {perms = array<i32: 0, 2, 1>} : (tensor<1x64x128xf32>) -> tensor<1x128x64xf32>
  %dw1 = tosa.matmul %in1t, %gh1, %zp, %zp : (tensor<1x128x64xf32>, tensor<1x64x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x128x256xf32>
  return %loss, %dw1, %dw2, %dw3, %dw4 : tensor<1x1x1xf32>, tensor<1x128x256xf32>, tensor<1x256x256xf32>, tensor<1x256x256xf32>, tensor<1x256x10xf32>
}
