// Verifier errors of echo.triangle.
// RUN: echo-opt %s -split-input-file -verify-diagnostics

// A triangle needs two dims.
func.func @rank() -> tensor<8xf32> {
  // expected-error @+1 {{'echo.triangle' op result has rank 1; a triangle needs at least 2 dims}}
  %0 = echo.triangle lower diagonal 0 inside 1.0 outside 0.0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// An i1 triangle holds booleans.
func.func @bool_inside() -> tensor<4x4xi1> {
  // expected-error @+1 {{'echo.triangle' op an i1 result takes 'inside' as 0 or 1, not 2}}
  %0 = echo.triangle lower diagonal 0 inside 2.0 outside 0.0 : tensor<4x4xi1>
  return %0 : tensor<4x4xi1>
}

// -----

func.func @bool_outside() -> tensor<4x4xi1> {
  // expected-error @+1 {{'echo.triangle' op an i1 result takes 'outside' as 0 or 1, not -1}}
  %0 = echo.triangle upper diagonal 0 inside 1.0 outside -1.0 : tensor<4x4xi1>
  return %0 : tensor<4x4xi1>
}

// -----

// Floats or i1 only, statically shaped.
func.func @ids() -> tensor<4x4xi32> {
  // expected-error @+1 {{'echo.triangle' op result #0 must be statically shaped float or i1 tensor}}
  %0 = echo.triangle lower diagonal 0 inside 1.0 outside 0.0 : tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}

// -----

func.func @dynamic() -> tensor<?x4xf32> {
  // expected-error @+1 {{'echo.triangle' op result #0 must be statically shaped float or i1 tensor}}
  %0 = echo.triangle lower diagonal 0 inside 1.0 outside 0.0 : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// The kind is lower or upper.
func.func @kind() -> tensor<4x4xf32> {
  // expected-error @+1 {{custom op 'echo.triangle' expected string or keyword containing one of the following enum values for attribute 'kind' [lower, upper]}}
  %0 = echo.triangle diagonal diagonal 0 inside 1.0 outside 0.0 : tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
