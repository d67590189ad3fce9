// Every rule of echo.attention's and echo.attention_grad's verifiers.
// RUN: echo-opt %s -split-input-file -verify-diagnostics

func.func @element_types(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xbf16>, %v: tensor<1x2x4x8xf32>) {
  // expected-error @+1 {{'k' has element type 'bf16' but 'q' has 'f32'}}
  %o, %l = echo.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @batch(%q: tensor<1x2x4x8xf32>, %k: tensor<2x2x4x8xf32>, %v: tensor<2x2x4x8xf32>) {
  // expected-error @+1 {{'q', 'k' and 'v' must have the same batch size, got 1, 2 and 2}}
  %o, %l = echo.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<1x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @kv_heads(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x1x4x8xf32>) {
  // expected-error @+1 {{'v' has 1 heads but 'k' has 2}}
  %o, %l = echo.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @gqa(%q: tensor<1x3x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) {
  // expected-error @+1 {{'q' has 3 heads, not a multiple of the 2 heads of 'k' and 'v'}}
  %o, %l = echo.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<1x3x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> (tensor<1x3x4x8xf32>, tensor<1x3x4xf32>)
  return
}

// -----

func.func @keys(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x5x8xf32>) {
  // expected-error @+1 {{'v' has 5 keys but 'k' has 4}}
  %o, %l = echo.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x5x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @head_dim(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x6xf32>, %v: tensor<1x2x4x8xf32>) {
  // expected-error @+1 {{'k' has head dim 6 but 'q' has 8}}
  %o, %l = echo.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x6xf32>, tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @bias_shape(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %b: tensor<1x1x3x4xf32>) {
  // expected-error @+1 {{'bias' of shape [1, 1, 3, 4] does not broadcast to [1, 2, 4, 4]}}
  %o, %l = echo.attention %q, %k, %v bias %b {scale = 1.0 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x1x3x4xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @bias_type(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %b: tensor<1x1x4x4xf16>) {
  // expected-error @+1 {{'bias' has element type 'f16' but 'q' has 'f32'}}
  %o, %l = echo.attention %q, %k, %v bias %b {scale = 1.0 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x1x4x4xf16>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @bias_rank(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{operand #3 must be statically shaped 4D tensor}}
  %o, %l = echo.attention %q, %k, %v bias %b {scale = 1.0 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @scale(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) {
  // expected-error @+1 {{'scale' must be finite, got INF}}
  %o, %l = echo.attention %q, %k, %v {scale = 0x7FF0000000000000 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @dropout(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) {
  // expected-error @+1 {{'dropout_ratio' must be in [0, 1), got 1}}
  %o, %l = echo.attention %q, %k, %v {scale = 1.0 : f64, dropout_ratio = 1.0 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @out_shape(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x6xf32>) {
  // expected-error @+1 {{'out' has shape [1, 2, 4, 8] but [1, 2, 4, 6] was expected}}
  %o, %l = echo.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x6xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @out_type(%q: tensor<1x2x4x8xbf16>, %k: tensor<1x2x4x8xbf16>, %v: tensor<1x2x4x8xbf16>) {
  // expected-error @+1 {{'out' has element type 'f32' but 'q' has 'bf16'}}
  %o, %l = echo.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @lse_shape(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) {
  // expected-error @+1 {{'lse' has shape [1, 2, 8] but [1, 2, 4] was expected}}
  %o, %l = echo.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x8xf32>)
  return
}

// -----

func.func @lse_type(%q: tensor<1x2x4x8xbf16>, %k: tensor<1x2x4x8xbf16>, %v: tensor<1x2x4x8xbf16>) {
  // expected-error @+1 {{'lse' must be f32, not 'bf16'}}
  %o, %l = echo.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>) -> (tensor<1x2x4x8xbf16>, tensor<1x2x4xbf16>)
  return
}

// -----

func.func @seed_type(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %s: tensor<1xi64>) {
  // expected-error @+1 {{operand #3 must be 0-d i64 tensor}}
  %o, %l = echo.attention %q, %k, %v seed %s {scale = 1.0 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1xi64>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @grad_dout(%q: tensor<1x2x4x8xf32>, %o: tensor<1x2x4x8xf32>, %l: tensor<1x2x4xf32>, %do: tensor<1x2x4x6xf32>) {
  // expected-error @+1 {{'dout' has type 'tensor<1x2x4x6xf32>' but 'out' has 'tensor<1x2x4x8xf32>'}}
  %a, %b, %c = echo.attention_grad %q, %q, %q, %o, %l, %do {scale = 1.0 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4xf32>, tensor<1x2x4x6xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>)
  return
}

// -----

func.func @grad_results(%q: tensor<1x2x4x8xf32>, %o: tensor<1x2x4x8xf32>, %l: tensor<1x2x4xf32>) {
  // expected-error @+1 {{results 'dq', 'dk', 'dv' must have the types of 'q', 'k', 'v'}}
  %a, %b, %c = echo.attention_grad %q, %q, %q, %o, %l, %o {scale = 1.0 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4xf32>, tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x2x4x8xf32>)
  return
}

// -----

func.func @grad_lse(%q: tensor<1x2x4x8xf32>, %o: tensor<1x2x4x8xf32>, %l: tensor<1x2x5xf32>) {
  // expected-error @+1 {{'lse' has shape [1, 2, 5] but [1, 2, 4] was expected}}
  %a, %b, %c = echo.attention_grad %q, %q, %q, %o, %l, %o {scale = 1.0 : f64} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x5xf32>, tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>)
  return
}
