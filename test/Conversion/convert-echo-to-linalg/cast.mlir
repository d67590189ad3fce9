// RUN: echo-opt %s --split-input-file --convert-echo-to-linalg | FileCheck %s

// A cast is one linalg.generic: extf to a wider type, truncf to a narrower
// one, and through f32 between f16 and bf16.
// CHECK-LABEL: func.func @casts
// CHECK: linalg.generic
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
// CHECK: linalg.generic
// CHECK:   %[[W:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK:   arith.truncf %[[W]] : f32 to f16
// CHECK: linalg.generic
// CHECK:   arith.extf %{{.*}} : f16 to f32
// CHECK-NOT: echo.
func.func @casts(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = echo.cast %x : tensor<4x8xf32> to tensor<4x8xbf16>
  %1 = echo.cast %0 : tensor<4x8xbf16> to tensor<4x8xf16>
  %2 = echo.cast %1 : tensor<4x8xf16> to tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// bf16 logits with an f32 loss: each logit is widened where it is read, the
// sums and the loss are in f32, and no f32 tensor of the logits' shape is
// made; the gradient is computed in f32 and rounded to bf16 once.
// CHECK-LABEL: func.func @mixed_loss
// CHECK-NOT: tensor<4x10xf32>
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: math.exp %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: return %{{.*}}, %{{.*}} : tensor<f32>, tensor<4x10xbf16>
func.func @mixed_loss(%l: tensor<4x10xbf16>, %y: tensor<4xi32>) -> (tensor<f32>, tensor<4x10xbf16>) {
  %loss = echo.cross_entropy %l, %y : (tensor<4x10xbf16>, tensor<4xi32>) -> tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %dl = echo.cross_entropy_grad %l, %y, %one : (tensor<4x10xbf16>, tensor<4xi32>, tensor<f32>) -> tensor<4x10xbf16>
  return %loss, %dl : tensor<f32>, tensor<4x10xbf16>
}

// -----

// A norm on bf16 data computes in f32, as PyTorch's: the statistics are f32
// tensors (summed in f64), x̂ and the affine map are f32 arithmetic on the
// widened data and parameters, and y is rounded to bf16 once.
// CHECK-LABEL: func.func @bf16_norm
// CHECK-NOT: arith.{{(addf|subf|mulf|divf)}} {{.*}} : bf16
// CHECK-NOT: math.rsqrt {{.*}} : bf16
// CHECK: -> tensor<3xf64>
// CHECK: -> tensor<3xf32>
// CHECK: math.rsqrt %{{.*}} : f32
// CHECK: ins(%{{.*}} : tensor<2x3x4x4xbf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xbf16>, tensor<3xbf16>)
// CHECK-COUNT-3: arith.extf
// CHECK: %[[Y:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: linalg.yield %[[Y]] : bf16
func.func @bf16_norm(%x: tensor<2x3x4x4xbf16>, %g: tensor<3xbf16>, %b: tensor<3xbf16>) -> tensor<2x3x4x4xbf16> {
  %y = echo.batch_norm %x, %g, %b {epsilon = 1.0e-5 : f64} : (tensor<2x3x4x4xbf16>, tensor<3xbf16>, tensor<3xbf16>) -> tensor<2x3x4x4xbf16>
  return %y : tensor<2x3x4x4xbf16>
}

// -----

// Its gradient: x̂, dx̂ = dy·γ and their sums in f32; dx, dγ and dβ are each
// rounded to bf16 once, and no bf16 arithmetic is done.
// CHECK-LABEL: func.func @bf16_norm_grad
// CHECK-NOT: arith.{{(addf|subf|mulf|divf)}} {{.*}} : bf16
// CHECK: outs(%{{.*}} : tensor<4x6xf32>)
// CHECK: ins(%{{.*}} : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4x6xbf16>)
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x6xbf16>, tensor<6xbf16>, tensor<6xbf16>
func.func @bf16_norm_grad(%x: tensor<4x6xbf16>, %g: tensor<6xbf16>, %dy: tensor<4x6xbf16>) -> (tensor<4x6xbf16>, tensor<6xbf16>, tensor<6xbf16>) {
  %dx, %dg, %db = echo.layer_norm_grad %x, %g, %dy {epsilon = 1.0e-5 : f64} : (tensor<4x6xbf16>, tensor<6xbf16>, tensor<4x6xbf16>) -> (tensor<4x6xbf16>, tensor<6xbf16>, tensor<6xbf16>)
  return %dx, %dg, %db : tensor<4x6xbf16>, tensor<6xbf16>, tensor<6xbf16>
}

// -----

// An elementwise op on 16-bit floats computes in f32 and rounds its result
// once, as PyTorch's kernels do: sigmoid (exp, add, div), gelu's gradient
// and silu are several arithmetic ops, none of them on bf16 or f16.
// CHECK-LABEL: func.func @bf16_elementwise
// CHECK-NOT: arith.{{(addf|subf|mulf|divf|negf)}} {{.*}} : {{(bf16|f16)}}
// CHECK-NOT: math.{{(exp|erf|tanh)}} {{.*}} : {{(bf16|f16)}}
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: arith.negf %[[W]] : f32
// CHECK-NEXT: math.exp
// CHECK: arith.divf %{{.*}} : f32
// CHECK-NEXT: %[[S:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: linalg.yield %[[S]] : bf16
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[GX:.*]]: bf16, %[[GDY:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: arith.extf %[[GX]] : bf16 to f32
// CHECK-NEXT: arith.extf %[[GDY]] : bf16 to f32
// CHECK-COUNT-1: arith.truncf
// CHECK-NEXT: linalg.yield %{{.*}} : bf16
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[H:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: arith.extf %[[H]] : f16 to f32
// CHECK: %[[R:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
func.func @bf16_elementwise(%x: tensor<4x8xbf16>, %dy: tensor<4x8xbf16>, %h: tensor<4x8xf16>) -> (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xf16>) {
  %s = echo.sigmoid %x : tensor<4x8xbf16>
  %g = echo.gelu_grad %x, %dy : tensor<4x8xbf16>
  %t = echo.silu %h : tensor<4x8xf16>
  return %s, %g, %t : tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xf16>
}
