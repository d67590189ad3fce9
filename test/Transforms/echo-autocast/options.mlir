// echo-autocast's dtype option: bf16 (the default) and f16; anything else
// is refused by the option parser.
// RUN: echo-opt %s -echo-autocast | FileCheck %s --check-prefix=BF16
// RUN: echo-opt %s -echo-autocast="dtype=bf16" | FileCheck %s --check-prefix=BF16
// RUN: echo-opt %s -echo-autocast="dtype=f16" | FileCheck %s --check-prefix=F16
// RUN: not echo-opt %s -echo-autocast="dtype=f32" 2>&1 | FileCheck %s --check-prefix=BAD

// BF16-LABEL: func.func @mlp
// BF16: echo.linear {{.*}} -> tensor<8x16xbf16>
// BF16: echo.relu {{.*}} : tensor<8x16xbf16>
// BF16: echo.cross_entropy {{.*}} : (tensor<8x16xbf16>, tensor<8xi32>) -> tensor<f32>
// F16-LABEL: func.func @mlp
// F16: echo.linear {{.*}} -> tensor<8x16xf16>
// F16: echo.relu {{.*}} : tensor<8x16xf16>
// F16: echo.cross_entropy {{.*}} : (tensor<8x16xf16>, tensor<8xi32>) -> tensor<f32>
// BAD: for the --dtype option: Cannot find option named 'f32'
func.func @mlp(%x: tensor<8x4xf32>, %labels: tensor<8xi32>,
               %w: tensor<16x4xf32> {echo.param},
               %b: tensor<16xf32> {echo.param}) -> tensor<f32> {
  %h = "echo.linear"(%x, %w, %b) : (tensor<8x4xf32>, tensor<16x4xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %r = "echo.relu"(%h) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %l = "echo.cross_entropy"(%r, %labels) : (tensor<8x16xf32>, tensor<8xi32>) -> tensor<f32>
  return %l : tensor<f32>
}
