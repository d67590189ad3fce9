// FLOP estimates and compute-heaviness of the ops of EchoMoreOps.td.
// RUN: echo-opt %s -split-input-file -echo-test-cost -verify-diagnostics -o /dev/null

func.func @cost(%x: tensor<2x8x4x4xf32>, %w: tensor<8x4x3x3xf32>,
                %a: tensor<4x8xf32>, %u: tensor<2x3x4x4xf32>) {
  // conv2d_grad_input's count with x as dy: 2·N·C·H·W·(F/groups)·KH·KW =
  // 2·2·8·16·4·9.
  // expected-remark @+1 {{flops = 18432, compute-heavy}}
  %0 = echo.conv_transpose2d %x, %w {output_padding = array<i64: 1, 1>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<2x4x8x8xf32>
  // Free: the result is x's buffer.
  // expected-remark @+1 {{flops = 0}}
  %1 = echo.stop_gradient %a : tensor<4x8xf32>
  // A transcendental function: 4 per element, as exp.
  // expected-remark @+1 {{flops = 128}}
  %2 = echo.sin %a : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 128}}
  %3 = echo.cos %a : tensor<4x8xf32>
  // One read per output element (nearest), 7 operations (bilinear).
  // expected-remark @+1 {{flops = 384}}
  %4 = echo.upsample_nearest2d %u : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  // expected-remark @+1 {{flops = 2688}}
  %5 = echo.upsample_bilinear2d %u : (tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  // expected-remark @+1 {{flops = 2688}}
  %6 = echo.upsample_bilinear2d_grad %5 : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return
}
