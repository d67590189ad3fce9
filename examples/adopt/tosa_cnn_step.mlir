// A training step of a small CNN in TOSA with its backward pass written out,
// as AOTAutograd or jax.grad hands one over: a 3x3 convolution (8 filters,
// padding 1) of a batch of four 16x16 RGB images, ReLU, a 2x2 average pool,
// flattened into a linear layer of 10 classes, and softmax cross-entropy
// against one-hot labels written out (max, exp, sum, log), averaged over the
// batch. Result #0 is the loss; #1 and #2 are the gradients of the filters
// and of the linear layer. The filters' gradient is itself a convolution:
// the images with batch and channels swapped, convolved with the output's
// gradient as the filter. Echo adopts and plans it, and echo-run runs it:
//
//   echo-run examples/adopt/tosa_cnn_step.mlir --function=@train_step \
//     --loss=0 --strategy=mirror --dump=out --report=report.json
//
func.func @train_step(%x: tensor<4x16x16x3xf32>, %wc: tensor<8x3x3x3xf32>, %wl: tensor<1x512x10xf32>, %y: tensor<1x4x10xf32>) -> (tensor<1x1x1xf32>, tensor<8x3x3x3xf32>, tensor<1x512x10xf32>) {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %bias = "tosa.const"() {values = dense<0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  // Forward.
  %h = tosa.conv2d %x, %wc, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<4x16x16x3xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x16x8xf32>
  %a = tosa.clamp %h {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<4x16x16x8xf32>) -> tensor<4x16x16x8xf32>
  %p = tosa.avg_pool2d %a, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<4x16x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x8x8x8xf32>
  %flat_shape = tosa.const_shape {values = dense<[1, 4, 512]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %flat = tosa.reshape %p, %flat_shape : (tensor<4x8x8x8xf32>, !tosa.shape<3>) -> tensor<1x4x512xf32>
  %logits = tosa.matmul %flat, %wl, %zp, %zp : (tensor<1x4x512xf32>, tensor<1x512x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x10xf32>
  %max = tosa.reduce_max %logits {axis = 2 : i32} : (tensor<1x4x10xf32>) -> tensor<1x4x1xf32>
  %shifted = tosa.sub %logits, %max : (tensor<1x4x10xf32>, tensor<1x4x1xf32>) -> tensor<1x4x10xf32>
  %e = tosa.exp %shifted : (tensor<1x4x10xf32>) -> tensor<1x4x10xf32>
  %z = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x4x10xf32>) -> tensor<1x4x1xf32>
  %lse = tosa.log %z : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %logp = tosa.sub %shifted, %lse : (tensor<1x4x10xf32>, tensor<1x4x1xf32>) -> tensor<1x4x10xf32>
  %ylogp = tosa.mul %y, %logp, %shift : (tensor<1x4x10xf32>, tensor<1x4x10xf32>, tensor<1xi8>) -> tensor<1x4x10xf32>
  %s1 = tosa.reduce_sum %ylogp {axis = 2 : i32} : (tensor<1x4x10xf32>) -> tensor<1x4x1xf32>
  %s2 = tosa.reduce_sum %s1 {axis = 1 : i32} : (tensor<1x4x1xf32>) -> tensor<1x1x1xf32>
  %minus_inv_n = "tosa.const"() {values = dense<-0.25> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %loss = tosa.mul %s2, %minus_inv_n, %shift : (tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x1xf32>
  // Backward: d loss / d logits = (softmax - y) / N.
  %rz = tosa.reciprocal %z : (tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  %softmax = tosa.mul %e, %rz, %shift : (tensor<1x4x10xf32>, tensor<1x4x1xf32>, tensor<1xi8>) -> tensor<1x4x10xf32>
  %sy = tosa.sub %softmax, %y : (tensor<1x4x10xf32>, tensor<1x4x10xf32>) -> tensor<1x4x10xf32>
  %inv_n = "tosa.const"() {values = dense<0.25> : tensor<1x1x1xf32>} : () -> tensor<1x1x1xf32>
  %glogits = tosa.mul %sy, %inv_n, %shift : (tensor<1x4x10xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x10xf32>
  // The linear layer.
  %flat_t = tosa.transpose %flat {perms = array<i32: 0, 2, 1>} : (tensor<1x4x512xf32>) -> tensor<1x512x4xf32>
  %dwl = tosa.matmul %flat_t, %glogits, %zp, %zp : (tensor<1x512x4xf32>, tensor<1x4x10xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x512x10xf32>
  %wl_t = tosa.transpose %wl {perms = array<i32: 0, 2, 1>} : (tensor<1x512x10xf32>) -> tensor<1x10x512xf32>
  %gflat = tosa.matmul %glogits, %wl_t, %zp, %zp : (tensor<1x4x10xf32>, tensor<1x10x512xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x512xf32>
  // The pool: each window's four elements get a quarter of its gradient.
  %gp_shape = tosa.const_shape {values = dense<[4, 8, 1, 8, 1, 8]> : tensor<6xindex>} : () -> !tosa.shape<6>
  %gp = tosa.reshape %gflat, %gp_shape : (tensor<1x4x512xf32>, !tosa.shape<6>) -> tensor<4x8x1x8x1x8xf32>
  %windows = tosa.const_shape {values = dense<[1, 1, 2, 1, 2, 1]> : tensor<6xindex>} : () -> !tosa.shape<6>
  %gtiled = tosa.tile %gp, %windows : (tensor<4x8x1x8x1x8xf32>, !tosa.shape<6>) -> tensor<4x8x2x8x2x8xf32>
  %ga_shape = tosa.const_shape {values = dense<[4, 16, 16, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %gsum = tosa.reshape %gtiled, %ga_shape : (tensor<4x8x2x8x2x8xf32>, !tosa.shape<4>) -> tensor<4x16x16x8xf32>
  %quarter = "tosa.const"() {values = dense<0.25> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
  %ga = tosa.mul %gsum, %quarter, %shift : (tensor<4x16x16x8xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<4x16x16x8xf32>
  // ReLU.
  %zero = "tosa.const"() {values = dense<0.0> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
  %pos = tosa.greater %h, %zero : (tensor<4x16x16x8xf32>, tensor<1x1x1x1xf32>) -> tensor<4x16x16x8xi1>
  %gh = tosa.select %pos, %ga, %zero : (tensor<4x16x16x8xi1>, tensor<4x16x16x8xf32>, tensor<1x1x1x1xf32>) -> tensor<4x16x16x8xf32>
  // The filters: dwc[o, i, j, c] = sum over n, y, x of
  // x_padded[n, y + i, x + j, c] * gh[n, y, x, o].
  %x_t = tosa.transpose %x {perms = array<i32: 3, 1, 2, 0>} : (tensor<4x16x16x3xf32>) -> tensor<3x16x16x4xf32>
  %gh_t = tosa.transpose %gh {perms = array<i32: 3, 1, 2, 0>} : (tensor<4x16x16x8xf32>) -> tensor<8x16x16x4xf32>
  %dwc_t = tosa.conv2d %x_t, %gh_t, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<3x16x16x4xf32>, tensor<8x16x16x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3x3x3x8xf32>
  %dwc = tosa.transpose %dwc_t {perms = array<i32: 3, 1, 2, 0>} : (tensor<3x3x3x8xf32>) -> tensor<8x3x3x3xf32>
  return %loss, %dwc, %dwl : tensor<1x1x1xf32>, tensor<8x3x3x3xf32>, tensor<1x512x10xf32>
}
