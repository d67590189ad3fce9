// A training step of a tanh RNN unrolled over three time steps, in TOSA with
// its backward pass (backpropagation through time) written out, as
// AOTAutograd or jax.grad hands one over. A batch of 8 sequences of three
// 32-wide inputs x1, x2, x3; the state h_t = tanh(x_t W + h_{t-1} U) starts
// at zero (so h1 = tanh(x1 W)); the last state is read out by V and the
// loss is the squared error against y: sum((h3 V - y)^2). Result #0 is the
// loss; #1, #2 and #3 are the gradients of W, U and V (those of W and U
// summed over the time steps). Echo adopts and plans it, and echo-run runs
// it:
//
//   echo-run examples/adopt/tosa_rnn_step.mlir --function=@train_step \
//     --loss=0 --strategy=mirror --dump=out --report=report.json
//
func.func @train_step(%x1: tensor<1x8x32xf32>, %x2: tensor<1x8x32xf32>, %x3: tensor<1x8x32xf32>, %w: tensor<1x32x64xf32>, %u: tensor<1x64x64xf32>, %v: tensor<1x64x4xf32>, %y: tensor<1x8x4xf32>) -> (tensor<1x1x1xf32>, tensor<1x32x64xf32>, tensor<1x64x64xf32>, tensor<1x64x4xf32>) {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  // Forward.
  %a1 = tosa.matmul %x1, %w, %zp, %zp : (tensor<1x8x32xf32>, tensor<1x32x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x64xf32>
  %h1 = tosa.tanh %a1 : (tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %i2 = tosa.matmul %x2, %w, %zp, %zp : (tensor<1x8x32xf32>, tensor<1x32x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x64xf32>
  %r2 = tosa.matmul %h1, %u, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x64xf32>
  %a2 = tosa.add %i2, %r2 : (tensor<1x8x64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %h2 = tosa.tanh %a2 : (tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %i3 = tosa.matmul %x3, %w, %zp, %zp : (tensor<1x8x32xf32>, tensor<1x32x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x64xf32>
  %r3 = tosa.matmul %h2, %u, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x64xf32>
  %a3 = tosa.add %i3, %r3 : (tensor<1x8x64xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %h3 = tosa.tanh %a3 : (tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %o = tosa.matmul %h3, %v, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x4xf32>
  %d = tosa.sub %o, %y : (tensor<1x8x4xf32>, tensor<1x8x4xf32>) -> tensor<1x8x4xf32>
  %sq = tosa.mul %d, %d, %shift : (tensor<1x8x4xf32>, tensor<1x8x4xf32>, tensor<1xi8>) -> tensor<1x8x4xf32>
  %s1 = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<1x8x4xf32>) -> tensor<1x1x4xf32>
  %loss = tosa.reduce_sum %s1 {axis = 2 : i32} : (tensor<1x1x4xf32>) -> tensor<1x1x1xf32>
  // Backward: d loss / d o = 2 (o - y), then V.
  %two = "tosa.const"() {values = dense<2.0> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %one = "tosa.const"() {values = dense<1.0> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %go = tosa.mul %d, %two, %shift : (tensor<1x8x4xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x8x4xf32>
  %h3t = tosa.transpose %h3 {perms = array<i32: 0, 2, 1>} : (tensor<1x8x64xf32>) -> tensor<1x64x8xf32>
  %dv = tosa.matmul %h3t, %go, %zp, %zp : (tensor<1x64x8xf32>, tensor<1x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x4xf32>
  %vt = tosa.transpose %v {perms = array<i32: 0, 2, 1>} : (tensor<1x64x4xf32>) -> tensor<1x4x64xf32>
  %gh3 = tosa.matmul %go, %vt, %zp, %zp : (tensor<1x8x4xf32>, tensor<1x4x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x64xf32>
  %ut = tosa.transpose %u {perms = array<i32: 0, 2, 1>} : (tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  // Time step 3.
  %h3sq = tosa.mul %h3, %h3, %shift : (tensor<1x8x64xf32>, tensor<1x8x64xf32>, tensor<1xi8>) -> tensor<1x8x64xf32>
  %dh3 = tosa.sub %one, %h3sq : (tensor<1x1x1xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %ga3 = tosa.mul %gh3, %dh3, %shift : (tensor<1x8x64xf32>, tensor<1x8x64xf32>, tensor<1xi8>) -> tensor<1x8x64xf32>
  %x3t = tosa.transpose %x3 {perms = array<i32: 0, 2, 1>} : (tensor<1x8x32xf32>) -> tensor<1x32x8xf32>
  %dw3 = tosa.matmul %x3t, %ga3, %zp, %zp : (tensor<1x32x8xf32>, tensor<1x8x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x64xf32>
  %h2t = tosa.transpose %h2 {perms = array<i32: 0, 2, 1>} : (tensor<1x8x64xf32>) -> tensor<1x64x8xf32>
  %du3 = tosa.matmul %h2t, %ga3, %zp, %zp : (tensor<1x64x8xf32>, tensor<1x8x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x64xf32>
  %gh2 = tosa.matmul %ga3, %ut, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x64xf32>
  // Time step 2.
  %h2sq = tosa.mul %h2, %h2, %shift : (tensor<1x8x64xf32>, tensor<1x8x64xf32>, tensor<1xi8>) -> tensor<1x8x64xf32>
  %dh2 = tosa.sub %one, %h2sq : (tensor<1x1x1xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %ga2 = tosa.mul %gh2, %dh2, %shift : (tensor<1x8x64xf32>, tensor<1x8x64xf32>, tensor<1xi8>) -> tensor<1x8x64xf32>
  %x2t = tosa.transpose %x2 {perms = array<i32: 0, 2, 1>} : (tensor<1x8x32xf32>) -> tensor<1x32x8xf32>
  %dw2 = tosa.matmul %x2t, %ga2, %zp, %zp : (tensor<1x32x8xf32>, tensor<1x8x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x64xf32>
  %h1t = tosa.transpose %h1 {perms = array<i32: 0, 2, 1>} : (tensor<1x8x64xf32>) -> tensor<1x64x8xf32>
  %du2 = tosa.matmul %h1t, %ga2, %zp, %zp : (tensor<1x64x8xf32>, tensor<1x8x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x64x64xf32>
  %gh1 = tosa.matmul %ga2, %ut, %zp, %zp : (tensor<1x8x64xf32>, tensor<1x64x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x64xf32>
  // Time step 1 (its state's predecessor is zero: no gradient of U).
  %h1sq = tosa.mul %h1, %h1, %shift : (tensor<1x8x64xf32>, tensor<1x8x64xf32>, tensor<1xi8>) -> tensor<1x8x64xf32>
  %dh1 = tosa.sub %one, %h1sq : (tensor<1x1x1xf32>, tensor<1x8x64xf32>) -> tensor<1x8x64xf32>
  %ga1 = tosa.mul %gh1, %dh1, %shift : (tensor<1x8x64xf32>, tensor<1x8x64xf32>, tensor<1xi8>) -> tensor<1x8x64xf32>
  %x1t = tosa.transpose %x1 {perms = array<i32: 0, 2, 1>} : (tensor<1x8x32xf32>) -> tensor<1x32x8xf32>
  %dw1 = tosa.matmul %x1t, %ga1, %zp, %zp : (tensor<1x32x8xf32>, tensor<1x8x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x32x64xf32>
  // Sums over time.
  %dw12 = tosa.add %dw1, %dw2 : (tensor<1x32x64xf32>, tensor<1x32x64xf32>) -> tensor<1x32x64xf32>
  %dw = tosa.add %dw12, %dw3 : (tensor<1x32x64xf32>, tensor<1x32x64xf32>) -> tensor<1x32x64xf32>
  %du = tosa.add %du2, %du3 : (tensor<1x64x64xf32>, tensor<1x64x64xf32>) -> tensor<1x64x64xf32>
  return %loss, %dw, %du, %dv : tensor<1x1x1xf32>, tensor<1x32x64xf32>, tensor<1x64x64xf32>, tensor<1x64x4xf32>
}
