// Attention models at sizes that span several 64×64 tiles, with partial
// tiles at the edges. Each loss is Σ out ∘ w, so that the gradient of `w`
// is `out` itself: a dump holds out, dq, dk and dv (see equality.test).

// Causal, grouped-query heads (4 on 2), a key-padding bias, dropout with the
// step's seed, Dv != D.
func.func @causal_gqa_dropout(%seed: tensor<i64> {echo.rng_seed},
                              %mask: tensor<2x1x1x100xf32>,
                              %q: tensor<2x4x100x16xf32> {echo.param},
                              %k: tensor<2x2x100x16xf32> {echo.param},
                              %v: tensor<2x2x100x8xf32> {echo.param},
                              %w: tensor<2x4x100x8xf32> {echo.param}) -> tensor<f32> {
  %o, %lse = echo.attention %q, %k, %v bias %mask seed %seed
      {scale = 2.500000e-01 : f64, causal = true, dropout_ratio = 1.000000e-01 : f64, seed = 5 : i64}
      : (tensor<2x4x100x16xf32>, tensor<2x2x100x16xf32>, tensor<2x2x100x8xf32>, tensor<2x1x1x100xf32>, tensor<i64>)
      -> (tensor<2x4x100x8xf32>, tensor<2x4x100xf32>)
  %p = echo.mul %o, %w : tensor<2x4x100x8xf32>
  %l = echo.reduce_sum %p dims = [0, 1, 2, 3] : (tensor<2x4x100x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// Cross attention, 70 queries on 130 keys, a full [B,H,S,Sk] bias.
func.func @cross_bias(%bias: tensor<1x2x70x130xf32>,
                      %q: tensor<1x2x70x16xf32> {echo.param},
                      %k: tensor<1x2x130x16xf32> {echo.param},
                      %v: tensor<1x2x130x16xf32> {echo.param},
                      %w: tensor<1x2x70x16xf32> {echo.param}) -> tensor<f32> {
  %o, %lse = echo.attention %q, %k, %v bias %bias {scale = 2.500000e-01 : f64}
      : (tensor<1x2x70x16xf32>, tensor<1x2x130x16xf32>, tensor<1x2x130x16xf32>, tensor<1x2x70x130xf32>)
      -> (tensor<1x2x70x16xf32>, tensor<1x2x70xf32>)
  %p = echo.mul %o, %w : tensor<1x2x70x16xf32>
  %l = echo.reduce_sum %p dims = [0, 1, 2, 3] : (tensor<1x2x70x16xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// Causal with more queries than keys (top-left aligned), dropout without a
// step seed.
func.func @causal_long_queries(%q: tensor<1x2x130x8xf32> {echo.param},
                               %k: tensor<1x2x70x8xf32> {echo.param},
                               %v: tensor<1x2x70x8xf32> {echo.param},
                               %w: tensor<1x2x130x8xf32> {echo.param}) -> tensor<f32> {
  %o, %lse = echo.attention %q, %k, %v
      {scale = 3.500000e-01 : f64, causal = true, dropout_ratio = 3.000000e-01 : f64, seed = 9 : i64}
      : (tensor<1x2x130x8xf32>, tensor<1x2x70x8xf32>, tensor<1x2x70x8xf32>)
      -> (tensor<1x2x130x8xf32>, tensor<1x2x130xf32>)
  %p = echo.mul %o, %w : tensor<1x2x130x8xf32>
  %l = echo.reduce_sum %p dims = [0, 1, 2, 3] : (tensor<1x2x130x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// Head dim 64 (whole micro tiles on every ISA), causal: k the first half of
// each row of a [1,2,130,128] buffer, a view whose rows are 128 apart, read
// in place.
func.func @causal_d64_view(%q: tensor<1x2x130x64xf32> {echo.param},
                           %kk: tensor<1x2x130x128xf32> {echo.param},
                           %v: tensor<1x2x130x64xf32> {echo.param},
                           %w: tensor<1x2x130x64xf32> {echo.param}) -> tensor<f32> {
  %k = echo.slice %kk {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 2, 130, 64>} : (tensor<1x2x130x128xf32>) -> tensor<1x2x130x64xf32>
  %o, %lse = echo.attention %q, %k, %v {scale = 1.250000e-01 : f64, causal = true}
      : (tensor<1x2x130x64xf32>, tensor<1x2x130x64xf32>, tensor<1x2x130x64xf32>)
      -> (tensor<1x2x130x64xf32>, tensor<1x2x130xf32>)
  %p = echo.mul %o, %w : tensor<1x2x130x64xf32>
  %l = echo.reduce_sum %p dims = [0, 1, 2, 3] : (tensor<1x2x130x64xf32>) -> tensor<f32>
  return %l : tensor<f32>
}

// Head dim 72 (not whole micro tiles of AVX2 or AVX-512: copied there),
// cross attention: k the second half of each row of a [1,2,100,144]
// buffer, rows 144 apart, at an offset.
func.func @cross_d72_view(%q: tensor<1x2x70x72xf32> {echo.param},
                          %kk: tensor<1x2x100x144xf32> {echo.param},
                          %v: tensor<1x2x100x72xf32> {echo.param},
                          %w: tensor<1x2x70x72xf32> {echo.param}) -> tensor<f32> {
  %k = echo.slice %kk {offsets = array<i64: 0, 0, 0, 72>, sizes = array<i64: 1, 2, 100, 72>} : (tensor<1x2x100x144xf32>) -> tensor<1x2x100x72xf32>
  %o, %lse = echo.attention %q, %k, %v {scale = 1.250000e-01 : f64}
      : (tensor<1x2x70x72xf32>, tensor<1x2x100x72xf32>, tensor<1x2x100x72xf32>)
      -> (tensor<1x2x70x72xf32>, tensor<1x2x70xf32>)
  %p = echo.mul %o, %w : tensor<1x2x70x72xf32>
  %l = echo.reduce_sum %p dims = [0, 1, 2, 3] : (tensor<1x2x70x72xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
