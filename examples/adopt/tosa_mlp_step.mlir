// A training step of a two-layer MLP (matmul, ReLU, tanh, matmul, squared
// error) written in TOSA with its backward pass by hand, as jax.grad or
// AOTAutograd hands one over: result #0 is the loss, the others are the
// weights' gradients. Echo adopts it and plans what to recompute:
//
//   echo-opt examples/adopt/tosa_mlp_step.mlir \
//     --echo-adopt-training-step="function=train_step loss=0" \
//     --echo-recompute=strategy=mirror --echo-memory-report=output=- \
//     --echo-finalize-recompute
//
// (docs/guides/embedding.md, "Adopting a differentiated step").
func.func @train_step(%x: tensor<1x64x128xf32>, %w1: tensor<1x128x256xf32>, %w2: tensor<1x256x10xf32>, %y: tensor<1x64x10xf32>) -> (tensor<1x1x1xf32>, tensor<1x128x256xf32>, tensor<1x256x10xf32>) {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %h1 = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x64x128xf32>, tensor<1x128x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x256xf32>
  %a1 = tosa.clamp %h1 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
  %t = tosa.tanh %a1 : (tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
  %o = tosa.matmul %t, %w2, %zp, %zp : (tensor<1x64x256xf32>, tensor<1x256x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x10xf32>
  %d = tosa.sub %o, %y : (tensor<1x64x10xf32>, tensor<1x64x10xf32>) -> tensor<1x64x10xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<1x64x10xf32>, tensor<1x64x10xf32>, tensor<1xi8>) -> tensor<1x64x10xf32>
  %s1 = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<1x64x10xf32>) -> tensor<1x1x10xf32>
  %loss = tosa.reduce_sum %s1 {axis = 2 : i32} : (tensor<1x1x10xf32>) -> tensor<1x1x1xf32>
  // Backward: d loss / d o = 2 (o - y).
  %two = "tosa.const"() {values = dense<2.0> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %go = tosa.mul %d, %two, %shift : (tensor<1x64x10xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x64x10xf32>
  %tt = tosa.transpose %t {perms = array<i32: 0, 2, 1>} : (tensor<1x64x256xf32>) -> tensor<1x256x64xf32>
  %dw2 = tosa.matmul %tt, %go, %zp, %zp : (tensor<1x256x64xf32>, tensor<1x64x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x256x10xf32>
  %w2t = tosa.transpose %w2 {perms = array<i32: 0, 2, 1>} : (tensor<1x256x10xf32>) -> tensor<1x10x256xf32>
  %gt = tosa.matmul %go, %w2t, %zp, %zp : (tensor<1x64x10xf32>, tensor<1x10x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x256xf32>
  %one = "tosa.const"() {values = dense<1.0> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %t2 = tosa.mul %t, %t, %shift : (tensor<1x64x256xf32>, tensor<1x64x256xf32>, tensor<1xi8>) -> tensor<1x64x256xf32>
  %dt = tosa.sub %one, %t2 : (tensor<1x1x1xf32>, tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
  %ga1 = tosa.mul %gt, %dt, %shift : (tensor<1x64x256xf32>, tensor<1x64x256xf32>, tensor<1xi8>) -> tensor<1x64x256xf32>
  %zero = "tosa.const"() {values = dense<0.0> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %pos = tosa.greater %h1, %zero : (tensor<1x64x256xf32>, tensor<1x1x1xf32>) -> tensor<1x64x256xi1>
  %gh1 = tosa.select %pos, %ga1, %zero : (tensor<1x64x256xi1>, tensor<1x64x256xf32>, tensor<1x1x1xf32>) -> tensor<1x64x256xf32>
  %xt = tosa.transpose %x {perms = array<i32: 0, 2, 1>} : (tensor<1x64x128xf32>) -> tensor<1x128x64xf32>
  %dw1 = tosa.matmul %xt, %gh1, %zp, %zp : (tensor<1x128x64xf32>, tensor<1x64x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x128x256xf32>
  return %loss, %dw1, %dw2 : tensor<1x1x1xf32>, tensor<1x128x256xf32>, tensor<1x256x10xf32>
}
