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
