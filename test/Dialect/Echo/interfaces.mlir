// Per-op knowledge exposed through DifferentiableOpInterface and
// CostOpInterface: which forward values each gradient reads, FLOP estimates
// and compute-heaviness.
// RUN: echo-opt %s -split-input-file -echo-test-gradient-reads -verify-diagnostics

func.func @activations(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) {
  // expected-remark @+1 {{gradient reads operands [] results []}}
  %0 = "echo.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [] results []}}
  %1 = "echo.sub"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [0, 1] results []}}
  %2 = "echo.mul"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [1] results [0]}}
  %3 = "echo.div"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [] results []}}
  %4 = "echo.neg"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [] results [0]}}
  %5 = "echo.exp"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [0] results []}}
  %6 = "echo.log"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // tanh and sigmoid: the output only.
  // expected-remark @+1 {{gradient reads operands [] results [0]}}
  %7 = "echo.tanh"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [] results [0]}}
  %8 = "echo.sigmoid"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // relu: the input, of which one bit per element suffices.
  // expected-remark @+1 {{gradient reads operands [0] results [] as 1-bit masks}}
  %9 = "echo.relu"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [] results [0]}}
  %10 = "echo.sqrt"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [] results [0]}}
  %11 = "echo.softmax"(%a) {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // dropout: the mask only, a stochastic mask (recomputing it gives the
  // same bits).
  // expected-remark @+1 {{gradient reads operands [] results [1]; stochastic masks [1]}}
  %12, %13 = "echo.dropout"(%a) {ratio = 5.000000e-01 : f64, seed = 1 : i64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
  return
}

// -----

// The activations of the PyTorch importer read their input (as PyTorch's
// backward kernels do); select reads only its mask.
func.func @activations_added(%a: tensor<4x8xf32>, %m: tensor<4x8xi1>) {
  // expected-remark @+1 {{gradient reads operands [0] results []}}
  %0 = "echo.erf"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [0] results []}}
  %1 = "echo.silu"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [0] results []}}
  %2 = "echo.hardswish"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [0] results []}}
  %3 = "echo.hardsigmoid"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [0] results []}}
  %4 = "echo.mish"(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [0] results []}}
  %5 = "echo.gelu"(%a) {tanh_approximation = true} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // clamp: the input, of which one bit (min < x < max) suffices.
  // expected-remark @+1 {{gradient reads operands [0] results [] as 1-bit masks}}
  %6 = "echo.clamp"(%a) {min = 0.0 : f64, max = 6.0 : f64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [0] results []}}
  %7 = "echo.select"(%m, %a, %a) : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @shapes(%x: tensor<4x8xf32>, %v: tensor<8xf32>) {
  // expected-remark @+1 {{gradient reads operands [] results []}}
  %0 = "echo.broadcast"(%v) {dimensions = array<i64: 0>} : (tensor<8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [] results []}}
  %1 = "echo.reduce_sum"(%x) {dimensions = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  // expected-remark @+1 {{gradient reads operands [0] results [0]}}
  %2 = "echo.reduce_max"(%x) {dimensions = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  // expected-remark @+1 {{gradient reads operands [] results []}}
  %3 = "echo.slice"(%x) {offsets = array<i64: 0, 0>, sizes = array<i64: 2, 8>} : (tensor<4x8xf32>) -> tensor<2x8xf32>
  // expected-remark @+1 {{gradient reads operands [] results []}}
  %4 = "echo.concat"(%x, %x) {axis = 0 : i64} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  // expected-remark @+1 {{gradient reads operands [] results []}}
  %5 = "echo.reshape"(%x) : (tensor<4x8xf32>) -> tensor<32xf32>
  // expected-remark @+1 {{gradient reads operands [] results []}}
  %6 = "echo.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return
}

// -----

// The gradients of GEMMs and convolutions read only their inputs.
func.func @compute_heavy(%a: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>,
                         %ba: tensor<2x4x8xf32>, %bb: tensor<2x8x16xf32>,
                         %img: tensor<2x3x8x8xf32>, %f: tensor<4x3x3x3xf32>) {
  // expected-remark @+1 {{gradient reads operands [0, 1] results []}}
  %0 = "echo.matmul"(%a, %w) {transpose_b = true} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  // expected-remark @+1 {{gradient reads operands [0, 1] results []}}
  %1 = "echo.batch_matmul"(%ba, %bb) : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  // expected-remark @+1 {{gradient reads operands [0, 1] results []}}
  %2 = "echo.linear"(%a, %w, %b) : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  // expected-remark @+1 {{gradient reads operands [0, 1] results []}}
  %3 = "echo.conv2d"(%img, %f) {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  return
}

// -----

// Grouped convolution, ceil_mode/count_include_pad pooling, adaptive
// pooling and a shared dropout mask read what their plain forms read: the
// inputs, x for the max, nothing for the averages, the mask for dropout.
func.func @conv_pool_dropout_options(%img: tensor<2x6x8x8xf32>, %f: tensor<4x3x3x3xf32>) {
  // expected-remark @+1 {{gradient reads operands [0, 1] results []}}
  %0 = "echo.conv2d"(%img, %f) {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  // expected-remark @+1 {{gradient reads operands [0] results []}}
  %1 = "echo.max_pool2d"(%img) {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x6x8x8xf32>) -> tensor<2x6x4x4xf32>
  // expected-remark @+1 {{gradient reads operands [] results []}}
  %2 = "echo.avg_pool2d"(%img) {ceil_mode = true, count_include_pad = true, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x6x8x8xf32>) -> tensor<2x6x5x5xf32>
  // expected-remark @+1 {{gradient reads operands [] results []}}
  %3 = "echo.adaptive_avg_pool2d"(%img) {output_size = array<i64: 3, 3>} : (tensor<2x6x8x8xf32>) -> tensor<2x6x3x3xf32>
  // expected-remark @+1 {{gradient reads operands [] results [1]; stochastic masks [1]}}
  %4, %5 = "echo.dropout"(%img) {broadcast_dims = array<i64: 2, 3>, ratio = 5.000000e-01 : f64, seed = 1 : i64} : (tensor<2x6x8x8xf32>) -> (tensor<2x6x8x8xf32>, tensor<2x6x8x8xi1>)
  return
}

// -----

func.func @pool_norm_loss(%img: tensor<2x3x8x8xf32>, %g: tensor<3xf32>, %x: tensor<4x8xf32>,
                          %g8: tensor<8xf32>, %ids: tensor<4xi32>, %t: tensor<10x8xf32>) {
  // expected-remark @+1 {{gradient reads operands [0] results []}}
  %0 = "echo.max_pool2d"(%img) {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  // expected-remark @+1 {{gradient reads operands [] results []}}
  %1 = "echo.avg_pool2d"(%img) {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  // expected-remark @+1 {{gradient reads operands [0, 1] results []}}
  %2 = "echo.batch_norm"(%img, %g, %g) {epsilon = 1.0e-05 : f64} : (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x8x8xf32>
  // expected-remark @+1 {{gradient reads operands [0, 1] results []}}
  %3 = "echo.layer_norm"(%x, %g8, %g8) {epsilon = 1.0e-05 : f64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [0] results []}}
  %4 = "echo.embedding"(%ids, %t) : (tensor<4xi32>, tensor<10x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{gradient reads operands [0, 1] results []}}
  %5 = "echo.cross_entropy"(%x, %ids) : (tensor<4x8xf32>, tensor<4xi32>) -> tensor<f32>
  // expected-remark @+1 {{gradient reads operands [0, 1] results []}}
  %6 = "echo.mse_loss"(%x, %x) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return
}
