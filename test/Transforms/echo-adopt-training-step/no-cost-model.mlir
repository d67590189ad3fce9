// A forward op with no Echo cost model (tosa.resize) is named in a warning;
// no strategy clones it: mirror recomputes the tanh behind it but stashes
// the resize's result.
// RUN: echo-opt %s -verify-diagnostics --echo-adopt-training-step="function=f loss=0"
// RUN: echo-opt %s --echo-adopt-training-step="function=f loss=0" --echo-recompute=strategy=mirror 2>/dev/null | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK: %[[R:.*]] = tosa.resize
// CHECK: echo.recompute (%[[R]])
// CHECK-NOT: tosa.resize
// CHECK: tosa.tanh
// CHECK: echo.yield
func.func @f(%x: tensor<1x4x4x1xf32>) -> (tensor<1x1x4x1xf32>, tensor<1x4x4x1xf32>) {
  %s = tosa.const_shape {values = dense<1> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o = tosa.const_shape {values = dense<0> : tensor<2xindex>} : () -> !tosa.shape<2>
  // expected-warning @below {{echo-adopt-training-step: 'tosa.resize' has no Echo cost model; it is never recomputed}}
  %r = tosa.resize %x, %s, %o, %o {mode = NEAREST_NEIGHBOR} : (tensor<1x4x4x1xf32>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x4x4x1xf32>
  %t = tosa.tanh %r : (tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  %loss = tosa.reduce_sum %t {axis = 1 : i32} : (tensor<1x4x4x1xf32>) -> tensor<1x1x4x1xf32>
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %g = tosa.mul %t, %t, %shift : (tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>, tensor<1xi8>) -> tensor<1x4x4x1xf32>
  return %loss, %g : tensor<1x1x4x1xf32>, tensor<1x4x4x1xf32>
}
