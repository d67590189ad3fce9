// Gradient check of a model with masks computed in the step: a padding
// mask from the ids (ids == 0, negated, converted to f32 and made an
// additive -1e4 mask before a softmax, as BERT's attention mask), a
// threshold on a computed value (h > 0 selecting a leaky slope), and an
// embedding whose padding row gets no gradient. echo-run draws the ids in
// [0, 10) (the embedding's rows), so about one in ten is padding. The
// table's row 0 has a zero gradient (nn.Embedding(padding_idx=0)), which
// the f64 reference computes the same way; every other parameter is
// checked against finite differences.
// RUN: echo-run %s --check-gradients --check-samples=0 | FileCheck %s
// RUN: echo-run %s --check-gradients --check-samples=0 --strategy=none | FileCheck %s
// RUN: echo-run %s --check-gradients --check-samples=0 --strategy=mirror | FileCheck %s
// CHECK-COUNT-3: gradient check: param {{[0-9]}} {{.*}} rel err
// CHECK-NOT: FAILED
// The padding row's gradient is zero: what the gradient of row 0 would be
// without padding_idx is dropped (out1.npy, the table's gradient, has
// zeros in its first row).
// RUN: rm -rf %t && echo-run %s --steps=1 --optimizer=none --dump=%t --quiet
// RUN: %python -c "import numpy as np; g = np.load('%t/out1.npy'); print('row0', float(np.abs(g[0]).max()), 'rest', float(np.abs(g[1:]).max()) > 0)" | FileCheck %s --check-prefix=PAD
// PAD: row0 0.0 rest True

func.func @masks(%ids: tensor<4x6xi32>, %t: tensor<4x8xf32>,
                 %table: tensor<10x8xf32> {echo.param},
                 %w: tensor<8x8xf32> {echo.param},
                 %b: tensor<8xf32> {echo.param}) -> tensor<f32> {
  %e = echo.embedding %ids, %table {padding_idx = 0 : i64}
      : (tensor<4x6xi32>, tensor<10x8xf32>) -> tensor<4x6x8xf32>
  %e2 = echo.reshape %e : (tensor<4x6x8xf32>) -> tensor<24x8xf32>
  %h2 = echo.linear %e2, %w, %b
      : (tensor<24x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<24x8xf32>
  %h = echo.reshape %h2 : (tensor<24x8xf32>) -> tensor<4x6x8xf32>
  // Scores, with -1e4 added where the token is padding.
  %s = echo.reduce_sum %h dims = [2] : (tensor<4x6x8xf32>) -> tensor<4x6xf32>
  %zero = arith.constant dense<0> : tensor<4x6xi32>
  %pad = echo.compare eq, %ids, %zero : tensor<4x6xi32>
  %keep = echo.logical_not %pad : tensor<4x6xi1>
  %keepf = echo.convert %keep : tensor<4x6xi1> to tensor<4x6xf32>
  %one = arith.constant dense<1.0> : tensor<4x6xf32>
  %big = arith.constant dense<-1.0e4> : tensor<4x6xf32>
  %dropped = echo.sub %one, %keepf : tensor<4x6xf32>
  %additive = echo.mul %dropped, %big : tensor<4x6xf32>
  %masked = echo.add %s, %additive : tensor<4x6xf32>
  %p = echo.softmax %masked {axis = 1 : i64} : tensor<4x6xf32>
  // A leaky slope where h <= 0, chosen by a comparison of h.
  %zeros = arith.constant dense<0.0> : tensor<4x6x8xf32>
  %pos = echo.compare gt, %h, %zeros : tensor<4x6x8xf32>
  %slope = arith.constant dense<0.1> : tensor<4x6x8xf32>
  %small = echo.mul %h, %slope : tensor<4x6x8xf32>
  %act = echo.select %pos, %h, %small : tensor<4x6x8xi1>, tensor<4x6x8xf32>
  %pb = echo.broadcast %p dims = [2] : (tensor<4x6xf32>) -> tensor<4x6x8xf32>
  %weighted = echo.mul %act, %pb : tensor<4x6x8xf32>
  %pooled = echo.reduce_sum %weighted dims = [1] : (tensor<4x6x8xf32>) -> tensor<4x8xf32>
  %loss = echo.mse_loss %pooled, %t : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %loss : tensor<f32>
}
