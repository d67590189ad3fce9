//===- EchoRuntimeABI.h - The library calls of compiled steps ---*- C++ -*-===//
//
// Part of the Echo project.
//
// The C ABI between code that `echo-library-calls` generates and the
// runtimes that implement it (runtime/cuda with cuBLAS/cuDNN; any CPU
// runtime with its own libraries). Declared once, here:
//
// - the names, which the ops' LibraryCallOpInterface returns (the
//   `libraryCall` fields of EchoOps.td / EchoGradOps.td name these
//   constants);
// - the `_mlir_ciface_` entry points, which every runtime includes so that
//   the compiler checks its definitions against these declarations.
//
// Arguments follow LibraryCallOpInterface: the inputs (getLibraryCallInputs)
// and the output as strided memref descriptors of f32, then the i64 scalars
// (getLibraryCallScalars). Memrefs are MLIR's own StridedMemRefType
// (header-only; no MLIR library is linked by a runtime).
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNTIME_ECHORUNTIMEABI_H
#define ECHO_RUNTIME_ECHORUNTIMEABI_H

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <cstdint>

namespace mlir::echo::runtime {
/// C (M×N) = op(A) · op(B) [+ C], row-major; op transposes when asked.
inline constexpr const char kGemm[] = "echo_gemm";
/// The same per batch: A [B,M,K], B [B,K,N], C [B,M,N].
inline constexpr const char kBatchedGemm[] = "echo_batched_gemm";
/// y = conv2d(x, w), NCHW / FCHW, cross-correlation with zero padding.
inline constexpr const char kConv2DForward[] = "echo_conv2d_forward";
/// dx from w and dy.
inline constexpr const char kConv2DBackwardData[] = "echo_conv2d_backward_data";
/// dw from x and dy.
inline constexpr const char kConv2DBackwardFilter[] =
    "echo_conv2d_backward_filter";
} // namespace mlir::echo::runtime

/// The memref descriptors of the calls.
using EchoMemRef2D = StridedMemRefType<float, 2>;
using EchoMemRef3D = StridedMemRefType<float, 3>;
using EchoMemRef4D = StridedMemRefType<float, 4>;

extern "C" {
/// echo_gemm(a, b, c, transA, transB, accumulate): `accumulate` = 1 adds to
/// c's contents (beta = 1), 0 overwrites them.
void _mlir_ciface_echo_gemm(EchoMemRef2D *a, EchoMemRef2D *b, EchoMemRef2D *c,
                            int64_t transA, int64_t transB, int64_t accumulate);
/// echo_batched_gemm(a, b, c, transA, transB, accumulate).
void _mlir_ciface_echo_batched_gemm(EchoMemRef3D *a, EchoMemRef3D *b,
                                    EchoMemRef3D *c, int64_t transA,
                                    int64_t transB, int64_t accumulate);
/// echo_conv2d_forward(x, w, y, strideH, strideW, padH, padW).
void _mlir_ciface_echo_conv2d_forward(EchoMemRef4D *x, EchoMemRef4D *w,
                                      EchoMemRef4D *y, int64_t strideH,
                                      int64_t strideW, int64_t padH,
                                      int64_t padW);
/// echo_conv2d_backward_data(w, dy, dx, strideH, strideW, padH, padW).
void _mlir_ciface_echo_conv2d_backward_data(EchoMemRef4D *w, EchoMemRef4D *dy,
                                            EchoMemRef4D *dx, int64_t strideH,
                                            int64_t strideW, int64_t padH,
                                            int64_t padW);
/// echo_conv2d_backward_filter(x, dy, dw, strideH, strideW, padH, padW).
void _mlir_ciface_echo_conv2d_backward_filter(EchoMemRef4D *x, EchoMemRef4D *dy,
                                              EchoMemRef4D *dw, int64_t strideH,
                                              int64_t strideW, int64_t padH,
                                              int64_t padW);
}

#endif // ECHO_RUNTIME_ECHORUNTIMEABI_H
