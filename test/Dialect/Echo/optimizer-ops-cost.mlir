// FLOP estimates of the optimizer updates (CostOpInterface): per element of
// the parameter, 6 for momentum and 18 for Adam/AdamW.
// RUN: echo-opt %s -echo-test-cost -verify-diagnostics -o /dev/null

func.func @cost(%p: tensor<4x8xf32>, %q: tensor<16xbf16>, %h: tensor<f32>) {
  // expected-remark @+1 {{flops = 192}}
  %p1, %v1 = echo.momentum_update %p, %p, %p, %h, %h, %h : tensor<4x8xf32>
  // expected-remark @+1 {{flops = 288}}
  %q1, %m1, %v2 = echo.adam_update %q, %q, %q, %q, %h, %h, %h, %h, %h, %h : tensor<16xbf16>
  // expected-remark @+1 {{flops = 576}}
  %r:3 = echo.adam_update %p, %p, %p, %p, %h, %h, %h, %h, %h, %h {decoupled_weight_decay = true} : tensor<4x8xf32>
  return
}
