// The options: function= must name a function, and exactly one of loss= and
// tangents= splits it; each in range.
// RUN: not echo-opt %s --echo-adopt-training-step 2>&1 | FileCheck %s --check-prefix=NOFUNC
// RUN: not echo-opt %s --echo-adopt-training-step="function=g loss=0" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not echo-opt %s --echo-adopt-training-step="function=f" 2>&1 | FileCheck %s --check-prefix=NOLOSS
// RUN: not echo-opt %s --echo-adopt-training-step="function=f loss=0 tangents=1" 2>&1 | FileCheck %s --check-prefix=NOLOSS
// RUN: not echo-opt %s --echo-adopt-training-step="function=f loss=2" 2>&1 | FileCheck %s --check-prefix=LOSSRANGE
// RUN: not echo-opt %s --echo-adopt-training-step="function=f tangents=5" 2>&1 | FileCheck %s --check-prefix=TANRANGE
// RUN: not echo-opt %s --echo-adopt-training-step="function=f tangents=1,1" 2>&1 | FileCheck %s --check-prefix=TANTWICE
// RUN: not echo-opt %s --echo-adopt-training-step="function=f tangents=0,1" 2>&1 | FileCheck %s --check-prefix=NOFWD
// RUN: echo-opt %s --echo-adopt-training-step="function=f tangents=1" | FileCheck %s --check-prefix=TAN

// NOFUNC: error: echo-adopt-training-step: function= names no function
// MISSING: error: echo-adopt-training-step: no function @g
// NOLOSS: error: echo-adopt-training-step: give either loss=<result#> or tangents=<arg#,...> to split @f into forward and backward
// LOSSRANGE: error: echo-adopt-training-step: loss=2 but @f has 2 result(s)
// TANRANGE: error: echo-adopt-training-step: tangents: argument #5 out of range; @f has 2 argument(s)
// TANTWICE: error: echo-adopt-training-step: tangents: argument #1 given twice
// NOFWD: error: echo-adopt-training-step: @f has no forward pass
// TAN: tosa.tanh
// TAN-NEXT: tosa.mul {{.*}}echo.backward_begin

func.func @f(%x: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %shift = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  %t = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %d = tosa.mul %g, %t, %shift : (tensor<4xf32>, tensor<4xf32>, tensor<1xi8>) -> tensor<4xf32>
  return %t, %d : tensor<4xf32>, tensor<4xf32>
}
