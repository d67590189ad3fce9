// The ops of masks, conversions and indexing (EchoDataOps.td): round trip of
// the custom and the contract's generic forms, their cost, which forward
// values their gradients read, the gradients they build and the folding of
// a conversion to the type it has.
// RUN: echo-opt %s -split-input-file | echo-opt -split-input-file | FileCheck %s --check-prefix=ROUND
// RUN: echo-opt %s -split-input-file -mlir-print-op-generic | echo-opt -split-input-file | FileCheck %s --check-prefix=ROUND
// RUN: echo-opt %s -split-input-file -echo-test-cost -verify-diagnostics -o /dev/null
// RUN: echo-opt %s -split-input-file -echo-test-gradient-reads -o /dev/null 2>&1 | FileCheck %s --check-prefix=READS
// RUN: echo-opt %s -split-input-file -echo-test-vjp | FileCheck %s --check-prefix=VJP
// RUN: echo-opt %s -split-input-file -canonicalize | FileCheck %s --check-prefix=FOLD

// ROUND-LABEL: func.func @masks
// ROUND: echo.compare eq, %{{.*}}, %{{.*}} : tensor<2x8xi32>
// ROUND: echo.compare ne, %{{.*}}, %{{.*}} : tensor<2x8xf32>
// ROUND: echo.compare lt, %{{.*}}, %{{.*}} : tensor<2x8xf32>
// ROUND: echo.compare le, %{{.*}}, %{{.*}} : tensor<2x8xbf16>
// ROUND: echo.compare gt, %{{.*}}, %{{.*}} : tensor<2x8xi1>
// ROUND: echo.compare ge, %{{.*}}, %{{.*}} : tensor<2x8xi32>
// ROUND: echo.logical_and %{{.*}}, %{{.*}} : tensor<2x8xi1>
// ROUND: echo.logical_or %{{.*}}, %{{.*}} : tensor<2x8xi1>
// ROUND: echo.logical_xor %{{.*}}, %{{.*}} : tensor<2x8xi1>
// ROUND: echo.logical_not %{{.*}} : tensor<2x8xi1>
// ROUND: echo.convert %{{.*}} : tensor<2x8xi1> to tensor<2x8xf32>
// ROUND: echo.convert %{{.*}} : tensor<2x8xi32> to tensor<2x8xbf16>
// ROUND: echo.convert %{{.*}} : tensor<2x8xf32> to tensor<2x8xi32>
// ROUND: echo.convert %{{.*}} : tensor<2x8xi1> to tensor<2x8xi32>
// FOLD-LABEL: func.func @masks
// FOLD-SAME: (%[[IDS:[^:]*]]: tensor<2x8xi32>,
// VJP-LABEL: func.func @masks
func.func @masks(%ids: tensor<2x8xi32>, %pad: tensor<2x8xi32>,
                 %x: tensor<2x8xf32>, %y: tensor<2x8xf32>,
                 %h: tensor<2x8xbf16>) -> tensor<2x8xi32> {
  // One comparison per element. A mask computed from data has no
  // gradient, and a comparison of floats gives its operands none.
  // expected-remark @+2 {{flops = 16}}
  // READS: remark: gradient reads operands [] results []
  %0 = echo.compare eq, %ids, %pad : tensor<2x8xi32>
  // VJP: echo.compare ne, %{{.*}}, %{{.*}} : tensor<2x8xf32>
  // VJP-NOT: test.adjoint
  // VJP: echo.compare lt
  // expected-remark @+1 {{flops = 16}}
  %1 = "echo.compare"(%x, %y) {predicate = 1 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xi1>
  // expected-remark @+1 {{flops = 16}}
  %2 = echo.compare lt, %x, %y : tensor<2x8xf32>
  // expected-remark @+1 {{flops = 16}}
  %3 = echo.compare le, %h, %h : tensor<2x8xbf16>
  // expected-remark @+1 {{flops = 16}}
  %4 = echo.compare gt, %0, %1 : tensor<2x8xi1>
  // expected-remark @+1 {{flops = 16}}
  %5 = "echo.compare"(%ids, %pad) {predicate = 5 : i64} : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi1>
  // expected-remark @+1 {{flops = 16}}
  %6 = echo.logical_and %0, %1 : tensor<2x8xi1>
  // expected-remark @+1 {{flops = 16}}
  %7 = "echo.logical_or"(%0, %1) : (tensor<2x8xi1>, tensor<2x8xi1>) -> tensor<2x8xi1>
  // expected-remark @+1 {{flops = 16}}
  %8 = echo.logical_xor %0, %1 : tensor<2x8xi1>
  // expected-remark @+1 {{flops = 16}}
  %9 = echo.logical_not %8 : tensor<2x8xi1>
  // A float made from a mask gets an adjoint, which the mask does not
  // receive.
  // VJP: echo.convert %{{.*}} : tensor<2x8xi1> to tensor<2x8xf32>
  // VJP-NEXT: tensor.empty() {test.adjoint_seed = 0 : i64}
  // VJP-NOT: test.adjoint_of
  // VJP: echo.convert
  // expected-remark @+2 {{flops = 16}}
  // READS: remark: gradient reads operands [] results []
  %10 = echo.convert %9 : tensor<2x8xi1> to tensor<2x8xf32>
  // expected-remark @+1 {{flops = 16}}
  %11 = "echo.convert"(%ids) : (tensor<2x8xi32>) -> tensor<2x8xbf16>
  // expected-remark @+1 {{flops = 16}}
  %12 = echo.convert %x : tensor<2x8xf32> to tensor<2x8xi32>
  // expected-remark @+1 {{flops = 16}}
  %13 = echo.convert %9 : tensor<2x8xi1> to tensor<2x8xi32>
  // A conversion to the type it has is its operand.
  // FOLD-NOT: echo.convert %{{.*}} : tensor<2x8xi32> to tensor<2x8xi32>
  // expected-remark @+1 {{flops = 16}}
  %14 = echo.convert %ids : tensor<2x8xi32> to tensor<2x8xi32>
  // FOLD: return %[[IDS]] : tensor<2x8xi32>
  return %14 : tensor<2x8xi32>
}

// -----

// ROUND-LABEL: func.func @routing
// ROUND: echo.topk %{{.*}} : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi32>)
// ROUND: echo.topk %{{.*}} {smallest = true} : (tensor<16x8xf32>) -> (tensor<16x3xf32>, tensor<16x3xi32>)
// ROUND: echo.one_hot %{{.*}} : (tensor<16x2xi32>) -> tensor<16x2x8xf32>
// ROUND: echo.one_hot %{{.*}} : (tensor<16x2xi32>) -> tensor<16x2x8xi32>
// ROUND: echo.one_hot %{{.*}} {ignore_index = -100 : i64} : (tensor<16x2xi32>) -> tensor<16x2x8xf32>
// ROUND: echo.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<16x8xf32>, tensor<16x2xi32>) -> tensor<16x2xf32>
// ROUND: echo.scatter %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<16x8xf32>, tensor<16x2xi32>, tensor<16x2xf32>) -> tensor<16x8xf32>
// ROUND: echo.scatter_add %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<4x8xf32>, tensor<16x8xi32>, tensor<16x8xf32>) -> tensor<4x8xf32>
// VJP-LABEL: func.func @routing
// VJP-SAME: (%[[X:.*]]: tensor<16x8xf32>, %[[S:.*]]: tensor<4x8xf32>)
func.func @routing(%x: tensor<16x8xf32>, %s: tensor<4x8xf32>) {
  // Each of 16 rows ranks its 8 entries against each other (64) and picks
  // 2 of them (16).
  // expected-remark @+6 {{flops = 1280}}
  // READS: remark: gradient reads operands [] results [1]
  // VJP: %[[V:.*]], %[[I:.*]] = echo.topk %[[X]]
  // VJP-NEXT: %[[DV:.*]] = tensor.empty() {test.adjoint_seed = 0 : i64} : tensor<16x2xf32>
  // VJP-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  // VJP-NEXT: echo.scatter %[[Z]], %[[I]], %[[DV]] {axis = 1 : i64, test.adjoint_of = 0 : i64}
  %v, %i = echo.topk %x : (tensor<16x8xf32>) -> (tensor<16x2xf32>, tensor<16x2xi32>)
  // expected-remark @+1 {{flops = 1408}}
  %w, %j = "echo.topk"(%x) {smallest = true} : (tensor<16x8xf32>) -> (tensor<16x3xf32>, tensor<16x3xi32>)
  // One comparison per element of the result. No adjoint for the ids.
  // expected-remark @+2 {{flops = 256}}
  // READS: remark: gradient reads operands [] results []
  %oh = echo.one_hot %i : (tensor<16x2xi32>) -> tensor<16x2x8xf32>
  // expected-remark @+1 {{flops = 256}}
  %ohi = "echo.one_hot"(%i) : (tensor<16x2xi32>) -> tensor<16x2x8xi32>
  // expected-remark @+1 {{flops = 256}}
  %ohn = echo.one_hot %i {ignore_index = -100 : i64} : (tensor<16x2xi32>) -> tensor<16x2x8xf32>
  // No arithmetic: a gather moves bytes. Its gradient adds the adjoint
  // into zeros at the indices.
  // expected-remark @+6 {{flops = 0}}
  // READS: remark: gradient reads operands [1] results []
  // VJP: %[[G:.*]] = echo.gather %[[X]], %[[I]] {axis = 1 : i64}
  // VJP-NEXT: %[[DG:.*]] = tensor.empty() {test.adjoint_seed = 0 : i64} : tensor<16x2xf32>
  // VJP-NEXT: %[[ZG:.*]] = arith.constant dense<0.000000e+00> : tensor<16x8xf32>
  // VJP-NEXT: echo.scatter_add %[[ZG]], %[[I]], %[[DG]] {axis = 1 : i64, test.adjoint_of = 0 : i64}
  %g = echo.gather %x, %i {axis = 1 : i64} : (tensor<16x8xf32>, tensor<16x2xi32>) -> tensor<16x2xf32>
  // Each element of the result looks at the 2 entries that may reach it
  // (a comparison and a select or an add each).
  // expected-remark @+7 {{flops = 512}}
  // READS: remark: gradient reads operands [1] results []
  // VJP: %[[SC:.*]] = echo.scatter %[[X]], %[[I]], %[[G]] {axis = 1 : i64}
  // VJP-NEXT: %[[DSC:.*]] = tensor.empty() {test.adjoint_seed = 0 : i64} : tensor<16x8xf32>
  // VJP-NEXT: %[[ZS:.*]] = arith.constant dense<0.000000e+00> : tensor<16x2xf32>
  // VJP-NEXT: echo.scatter %[[DSC]], %[[I]], %[[ZS]] {axis = 1 : i64, test.adjoint_of = 0 : i64}
  // VJP-NEXT: echo.gather %[[DSC]], %[[I]] {axis = 1 : i64, test.adjoint_of = 2 : i64}
  %sc = echo.scatter %x, %i, %g {axis = 1 : i64} : (tensor<16x8xf32>, tensor<16x2xi32>, tensor<16x2xf32>) -> tensor<16x8xf32>
  // A full sort: 16 rows of 8 ranked (64) and all picked (64).
  // expected-remark @+1 {{flops = 2048}}
  %sorted, %ri = "echo.topk"(%x) : (tensor<16x8xf32>) -> (tensor<16x8xf32>, tensor<16x8xi32>)
  // 16 rows of x added into 4: 4·8 elements, 16 entries each. The adjoint
  // of x passes through; src's is gathered.
  // VJP: echo.scatter_add %[[S]], %[[RI:.*]], %[[X]] {axis = 0 : i64}
  // VJP-NEXT: %[[DSA:.*]] = tensor.empty() {test.adjoint_of = 0 : i64, test.adjoint_seed = 0 : i64} : tensor<4x8xf32>
  // VJP-NEXT: echo.gather %[[DSA]], %[[RI]] {axis = 0 : i64, test.adjoint_of = 2 : i64}
  // expected-remark @+1 {{flops = 1024}}
  %sa = "echo.scatter_add"(%s, %ri, %x) {axis = 0 : i64} : (tensor<4x8xf32>, tensor<16x8xi32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// nn.Embedding(padding_idx=0): the lookup is unchanged; the gradient drops
// the adjoints of the padding tokens before it scatters them.
// ROUND-LABEL: func.func @padding
// ROUND: echo.embedding %{{.*}}, %{{.*}} {padding_idx = 0 : i64} : (tensor<4x6xi32>, tensor<100x16xf32>) -> tensor<4x6x16xf32>
// VJP-LABEL: func.func @padding
// VJP-SAME: (%[[IDS:.*]]: tensor<4x6xi32>, %[[T:.*]]: tensor<100x16xf32>)
func.func @padding(%ids: tensor<4x6xi32>, %t: tensor<100x16xf32>) {
  // expected-remark @+10 {{flops = 0}}
  // READS: remark: gradient reads operands [0] results []
  // VJP: echo.embedding %[[IDS]], %[[T]] {padding_idx = 0 : i64}
  // VJP-NEXT: %[[DY:.*]] = tensor.empty() {test.adjoint_seed = 0 : i64} : tensor<4x6x16xf32>
  // VJP-NEXT: %[[PAD:.*]] = arith.constant dense<0> : tensor<4x6xi32>
  // VJP-NEXT: %[[IS:.*]] = echo.compare eq, %[[IDS]], %[[PAD]] : tensor<4x6xi32>
  // VJP-NEXT: %[[M:.*]] = echo.broadcast %[[IS]] dims = [2] : (tensor<4x6xi1>) -> tensor<4x6x16xi1>
  // VJP-NEXT: %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<4x6x16xf32>
  // VJP-NEXT: %[[D:.*]] = echo.select %[[M]], %[[Z]], %[[DY]] : tensor<4x6x16xi1>, tensor<4x6x16xf32>
  // VJP-NEXT: echo.embedding_grad %[[IDS]], %[[D]] {test.adjoint_of = 1 : i64}
  %e = "echo.embedding"(%ids, %t) {padding_idx = 0 : i64} : (tensor<4x6xi32>, tensor<100x16xf32>) -> tensor<4x6x16xf32>
  return
}

// -----

// The shape ops move masks and ids as they move data.
// ROUND-LABEL: func.func @shapes
// ROUND: echo.broadcast %{{.*}} dims = [1, 2] : (tensor<2x8xi1>) -> tensor<2x4x8x8xi1>
// ROUND: echo.reshape %{{.*}} : (tensor<2x8xi1>) -> tensor<2x1x1x8xi1>
// ROUND: echo.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<2x8xi32>) -> tensor<8x2xi32>
// ROUND: echo.slice %{{.*}} {offsets = array<i64: 0, 1>, sizes = array<i64: 2, 4>} : (tensor<2x8xi1>) -> tensor<2x4xi1>
// ROUND: echo.broadcast %{{.*}} dims = [2] : (tensor<16x2xi32>) -> tensor<16x2x32xi32>
func.func @shapes(%m: tensor<2x8xi1>, %ids: tensor<2x8xi32>, %i: tensor<16x2xi32>) {
  // expected-remark @+1 {{flops = 0}}
  %0 = "echo.broadcast"(%m) {dimensions = array<i64: 1, 2>} : (tensor<2x8xi1>) -> tensor<2x4x8x8xi1>
  // expected-remark @+1 {{flops = 0}}
  %1 = echo.reshape %m : (tensor<2x8xi1>) -> tensor<2x1x1x8xi1>
  // expected-remark @+1 {{flops = 0}}
  %2 = echo.transpose %ids {permutation = array<i64: 1, 0>} : (tensor<2x8xi32>) -> tensor<8x2xi32>
  // expected-remark @+1 {{flops = 0}}
  %3 = echo.slice %m {offsets = array<i64: 0, 1>, sizes = array<i64: 2, 4>} : (tensor<2x8xi1>) -> tensor<2x4xi1>
  // expected-remark @+1 {{flops = 0}}
  %4 = echo.broadcast %i dims = [2] : (tensor<16x2xi32>) -> tensor<16x2x32xi32>
  return
}
