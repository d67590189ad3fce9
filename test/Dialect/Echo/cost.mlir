// FLOP estimates and compute-heaviness from CostOpInterface.
// RUN: echo-opt %s -split-input-file -echo-test-cost -verify-diagnostics -o /dev/null

// A grouped convolution costs 1/groups of the dense one (its filter holds
// C/groups channels); adaptive pooling adds each window position once
// (Σ window rows = H + OH − gcd(H, OH), 7 and 8 here) and divides once per
// output; ceil_mode pooling counts its extra windows whole.
func.func @grouped_and_adaptive(%x: tensor<2x6x8x8xf32>, %w: tensor<4x3x3x3xf32>,
                                %d: tensor<6x1x3x3xf32>, %dy: tensor<2x4x8x8xf32>,
                                %a: tensor<2x3x5x7xf32>, %da: tensor<2x3x3x2xf32>) {
  // 2·N·F·OH·OW·(C/groups)·KH·KW: half of 55296.
  // expected-remark @+1 {{flops = 27648, compute-heavy}}
  %0 = echo.conv2d %x, %w {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  // expected-remark @+1 {{flops = 27648, compute-heavy}}
  %1 = echo.conv2d_grad_input %w, %dy {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<4x3x3x3xf32>, tensor<2x4x8x8xf32>) -> tensor<2x6x8x8xf32>
  // expected-remark @+1 {{flops = 27648, compute-heavy}}
  %2 = echo.conv2d_grad_filter %x, %dy {groups = 2 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  // Depthwise: 2·2·6·64·1·9.
  // expected-remark @+1 {{flops = 13824, compute-heavy}}
  %3 = echo.conv2d %x, %d {groups = 6 : i64, padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<2x6x8x8xf32>
  // 2·3·7·8 adds + 36 divisions, the same for the gradient.
  // expected-remark @+1 {{flops = 372}}
  %4 = echo.adaptive_avg_pool2d %a {output_size = array<i64: 3, 2>} : (tensor<2x3x5x7xf32>) -> tensor<2x3x3x2xf32>
  // expected-remark @+1 {{flops = 372}}
  %5 = echo.adaptive_avg_pool2d_grad %da : (tensor<2x3x3x2xf32>) -> tensor<2x3x5x7xf32>
  // 2·6·16 windows of 9.
  // expected-remark @+1 {{flops = 1728}}
  %6 = echo.max_pool2d %x {ceil_mode = true, kernel = array<i64: 3, 3>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x6x8x8xf32>) -> tensor<2x6x4x4xf32>
  return
}

// -----

func.func @cost(%a: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>,
                %ba: tensor<2x4x8xf32>, %bb: tensor<2x8x16xf32>,
                %img: tensor<2x3x8x8xf32>, %f: tensor<4x3x3x3xf32>, %dy: tensor<2x4x8x8xf32>,
                %labels: tensor<4xi32>, %logits: tensor<4x10xf32>, %sq: tensor<8x8xf32>) {
  // 6 FLOPs per element.
  // expected-remark @+1 {{flops = 192}}
  %0 = echo.tanh %a : tensor<4x8xf32>
  // Reductions count the elements they read.
  // expected-remark @+1 {{flops = 32}}
  %1 = echo.reduce_sum %a dims = [1] : (tensor<4x8xf32>) -> tensor<4xf32>
  // 2·M·N·K
  // expected-remark @+1 {{flops = 1024, compute-heavy}}
  %2 = echo.matmul %a, %w {transpose_b = true} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  // 2·M·N·K + M·N for the bias.
  // expected-remark @+1 {{flops = 1088, compute-heavy}}
  %3 = echo.linear %a, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  // expected-remark @+1 {{flops = 2048, compute-heavy}}
  %4 = echo.batch_matmul %ba, %bb : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  // 2·N·F·OH·OW·C·KH·KW, the same for both gradients.
  // expected-remark @+1 {{flops = 27648, compute-heavy}}
  %5 = echo.conv2d %img, %f {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  // expected-remark @+1 {{flops = 27648, compute-heavy}}
  %6 = echo.conv2d_grad_input %f, %dy {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<4x3x3x3xf32>, tensor<2x4x8x8xf32>) -> tensor<2x3x8x8xf32>
  // expected-remark @+1 {{flops = 27648, compute-heavy}}
  %7 = echo.conv2d_grad_filter %img, %dy {padding = array<i64: 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x3x3x3xf32>
  // Output elements times window size.
  // expected-remark @+1 {{flops = 384}}
  %8 = echo.max_pool2d %img {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  // expected-remark @+1 {{flops = 200}}
  %9 = echo.cross_entropy %logits, %labels : (tensor<4x10xf32>, tensor<4xi32>) -> tensor<f32>
  // A recompute region costs what its body costs (512 + 192).
  // expected-remark @+1 {{flops = 704}}
  %10 = echo.recompute (%a, %sq) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8x8xf32>):
    // expected-remark @+1 {{flops = 512, compute-heavy}}
    %m = echo.matmul %x, %y : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    // expected-remark @+1 {{flops = 192}}
    %t = echo.tanh %m : tensor<4x8xf32>
    // expected-remark @+1 {{flops = 0}}
    echo.yield %t : tensor<4x8xf32>
  }
  return
}

// -----

// The activations of the PyTorch importer: a transcendental function counts
// as exp, log1p 4 and tanh, erf 6; other arithmetic 1 each.
func.func @activations(%a: tensor<4x8xf32>, %m: tensor<4x8xi1>) {
  // expected-remark @+1 {{flops = 192}}
  %0 = echo.erf %a : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 256}}
  %1 = echo.erf_grad %a, %a : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 160}}
  %2 = echo.silu %a : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 288}}
  %3 = echo.silu_grad %a, %a : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 160}}
  %4 = echo.hardswish %a : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 160}}
  %5 = echo.hardswish_grad %a, %a : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 128}}
  %6 = echo.hardsigmoid %a : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 96}}
  %7 = echo.hardsigmoid_grad %a, %a : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 608}}
  %8 = echo.mish %a : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 1024}}
  %9 = echo.mish_grad %a, %a : tensor<4x8xf32>
  // The two forms of gelu cost differently: 10 and 14 per element.
  // expected-remark @+1 {{flops = 320}}
  %10 = echo.gelu %a : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 448}}
  %11 = echo.gelu %a {tanh_approximation = true} : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 608}}
  %12 = echo.gelu_grad %a, %a : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 832}}
  %13 = echo.gelu_grad %a, %a {tanh_approximation = true} : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 64}}
  %14 = echo.clamp %a {min = 0.0 : f64, max = 6.0 : f64} : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 64}}
  %15 = echo.clamp_grad %a, %a {min = 0.0 : f64, max = 6.0 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  // expected-remark @+1 {{flops = 32}}
  %16 = echo.select %m, %a, %a : tensor<4x8xi1>, tensor<4x8xf32>
  return
}
