//===- Passes.td - Echo conversion passes ------------------*- tablegen -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_CONVERSION_PASSES_TD
#define ECHO_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertEchoToLinalg : Pass<"convert-echo-to-linalg", "::mlir::ModuleOp"> {
  let summary = "Lower every Echo op to linalg, tensor, arith, math and scf";
  let description = [{
    Rewrites forward, gradient and mask ops into destination-style ops on
    tensors (`linalg.generic`, `linalg.matmul`, `linalg.batch_matmul`,
    `linalg.reduce`, `linalg.broadcast`, `linalg.transpose`,
    `tensor.extract_slice`/`insert_slice`/`pad`, and one `scf.for` for the
    scatter of `embedding_grad`). `echo.recompute` regions are inlined in
    place first, so the recomputed values stay distinct SSA values (and
    buffers) from the forward ones: do not run CSE after this pass.

    `echo.dropout` draws its mask from a counter-based generator: element
    `i` (row-major) of a dropout with seed `s` is kept iff
    `mix(i + s * 0x9E3779B97F4A7C15) >> 40 >= round(ratio * 2^24)`, where
    `mix` is the SplitMix64 finalizer. The mask is a pure function of
    (seed, index), so a recomputed dropout (on any target) gives the same
    bits.

    `max_pool2d_grad` routes each adjoint to the first maximum of its window
    (row-major); `reduce_max_grad` to every element equal to the maximum.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // ECHO_CONVERSION_PASSES_TD
