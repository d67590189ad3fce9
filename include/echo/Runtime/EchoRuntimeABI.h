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
#include <cstring>
#include <string>

namespace mlir::echo::runtime {
/// C (M×N) = op(A) · op(B) [+ C], row-major; op transposes when asked.
inline constexpr const char kGemm[] = "echo_gemm";
/// The same per batch: A [B,M,K], B [B,K,N], C [B,M,N].
inline constexpr const char kBatchedGemm[] = "echo_batched_gemm";
// The GEMMs and convolutions also have 16-bit forms, `<name>_bf16` and
// `<name>_f16` (echo-library-calls bf16-calls=true, f16-calls=true): bf16
// (f16) buffers as 16-bit words, products accumulated in f32 and rounded
// once (a GEMM's `accumulate`: after adding C). The CPU runtime has the
// bf16 forms, the CUDA runtime both.
/// y = conv2d(x, w), NCHW / FCHW, cross-correlation with zero padding, in
/// `groups` groups (w is [F, C/groups, KH, KW]).
inline constexpr const char kConv2DForward[] = "echo_conv2d_forward";
/// dx from w and dy.
inline constexpr const char kConv2DBackwardData[] = "echo_conv2d_backward_data";
/// dw from x and dy.
inline constexpr const char kConv2DBackwardFilter[] =
    "echo_conv2d_backward_filter";
/// Fused attention (echo.attention, echo.attention_grad): the CPU runtime.
inline constexpr const char kAttentionForward[] = "echo_attention_forward";
inline constexpr const char kAttentionBackward[] = "echo_attention_backward";
} // namespace mlir::echo::runtime

/// Host offload (`echo-transfer-calls`): a step numbers its offloads 0, 1,
/// ... (`slot`); each slot is offloaded, fetched and waited for once per
/// step. Buffers are unranked memref descriptors of the value's element
/// type (f32; f16 and bf16 as 16-bit words), contiguous on a GPU.
///
/// - echo_offload_<t>(src, slot): copies `src` into the host pool as
///   `slot` (a GPU runtime: asynchronously on its copy stream, after the
///   work issued before).
/// - echo_fetch_<t>(slot, dst): copies `slot` back into `dst` (the same
///   way).
/// - echo_transfer_wait_<t>(slot, value): work issued after it runs after
///   the slot's last copy is done; after the wait of a fetch the slot's
///   host memory is free again. `value` is the buffer the copy reads or
///   writes (passed so that it stays live to here in the buffer plan).
using EchoUnrankedF32 = ::UnrankedMemRefType<float>;
using EchoUnranked16 = ::UnrankedMemRefType<uint16_t>;

/// The memref descriptors of the calls.
using EchoMemRef2D = StridedMemRefType<float, 2>;
using EchoMemRef3D = StridedMemRefType<float, 3>;
using EchoMemRef4D = StridedMemRefType<float, 4>;
/// bf16 and f16 buffers, as 16-bit words.
using EchoMemRef2DBF16 = StridedMemRefType<uint16_t, 2>;
using EchoMemRef3DBF16 = StridedMemRefType<uint16_t, 3>;
using EchoMemRef2DF16 = StridedMemRefType<uint16_t, 2>;
using EchoMemRef3DF16 = StridedMemRefType<uint16_t, 3>;
using EchoMemRef4D16 = StridedMemRefType<uint16_t, 4>;

extern "C" {
/// echo_gemm(a, b, c, transA, transB, accumulate): `accumulate` = 1 adds to
/// c's contents (beta = 1), 0 overwrites them.
void _mlir_ciface_echo_gemm(EchoMemRef2D *a, EchoMemRef2D *b, EchoMemRef2D *c,
                            int64_t transA, int64_t transB, int64_t accumulate);
/// echo_batched_gemm(a, b, c, transA, transB, accumulate).
void _mlir_ciface_echo_batched_gemm(EchoMemRef3D *a, EchoMemRef3D *b,
                                    EchoMemRef3D *c, int64_t transA,
                                    int64_t transB, int64_t accumulate);
/// echo_gemm_bf16, echo_batched_gemm_bf16: the same on bf16 buffers (the CPU
/// and the CUDA runtime).
void _mlir_ciface_echo_gemm_bf16(EchoMemRef2DBF16 *a, EchoMemRef2DBF16 *b,
                                 EchoMemRef2DBF16 *c, int64_t transA,
                                 int64_t transB, int64_t accumulate);
void _mlir_ciface_echo_batched_gemm_bf16(EchoMemRef3DBF16 *a,
                                         EchoMemRef3DBF16 *b,
                                         EchoMemRef3DBF16 *c, int64_t transA,
                                         int64_t transB, int64_t accumulate);
/// echo_gemm_f16, echo_batched_gemm_f16: the same on f16 buffers (the CUDA
/// runtime only).
void _mlir_ciface_echo_gemm_f16(EchoMemRef2DF16 *a, EchoMemRef2DF16 *b,
                                EchoMemRef2DF16 *c, int64_t transA,
                                int64_t transB, int64_t accumulate);
void _mlir_ciface_echo_batched_gemm_f16(EchoMemRef3DF16 *a, EchoMemRef3DF16 *b,
                                        EchoMemRef3DF16 *c, int64_t transA,
                                        int64_t transB, int64_t accumulate);
/// echo_conv2d_forward(x, w, y, strideH, strideW, padH, padW, groups):
/// x [N, C, H, W], w [F, C/groups, KH, KW], y [N, F, OH, OW].
void _mlir_ciface_echo_conv2d_forward(EchoMemRef4D *x, EchoMemRef4D *w,
                                      EchoMemRef4D *y, int64_t strideH,
                                      int64_t strideW, int64_t padH,
                                      int64_t padW, int64_t groups);
/// echo_conv2d_backward_data(w, dy, dx, strideH, strideW, padH, padW,
/// groups).
void _mlir_ciface_echo_conv2d_backward_data(EchoMemRef4D *w, EchoMemRef4D *dy,
                                            EchoMemRef4D *dx, int64_t strideH,
                                            int64_t strideW, int64_t padH,
                                            int64_t padW, int64_t groups);
/// echo_conv2d_backward_filter(x, dy, dw, strideH, strideW, padH, padW,
/// groups).
void _mlir_ciface_echo_conv2d_backward_filter(EchoMemRef4D *x, EchoMemRef4D *dy,
                                              EchoMemRef4D *dw, int64_t strideH,
                                              int64_t strideW, int64_t padH,
                                              int64_t padW, int64_t groups);
/// The convolutions' 16-bit forms: the same arguments on bf16 (the CPU
/// and the CUDA runtime) or f16 (the CUDA runtime) buffers.
#define ECHO_CONV2D_16BIT(suffix)                                              \
  void _mlir_ciface_echo_conv2d_forward_##suffix(                              \
      EchoMemRef4D16 *x, EchoMemRef4D16 *w, EchoMemRef4D16 *y,                 \
      int64_t strideH, int64_t strideW, int64_t padH, int64_t padW,            \
      int64_t groups);                                                         \
  void _mlir_ciface_echo_conv2d_backward_data_##suffix(                        \
      EchoMemRef4D16 *w, EchoMemRef4D16 *dy, EchoMemRef4D16 *dx,               \
      int64_t strideH, int64_t strideW, int64_t padH, int64_t padW,            \
      int64_t groups);                                                         \
  void _mlir_ciface_echo_conv2d_backward_filter_##suffix(                      \
      EchoMemRef4D16 *x, EchoMemRef4D16 *dy, EchoMemRef4D16 *dw,               \
      int64_t strideH, int64_t strideW, int64_t padH, int64_t padW,            \
      int64_t groups);
ECHO_CONV2D_16BIT(bf16)
ECHO_CONV2D_16BIT(f16)
#undef ECHO_CONV2D_16BIT

/// The step's seed of a dropout (a 0-d i64 buffer).
using EchoMemRefSeed = StridedMemRefType<int64_t, 0>;
/// echo_attention_forward(q, k, v, bias, stepSeed, out, lse, scaleBits,
/// causal, ratioBits, seed, hasStepSeed): q [B,H,S,D], k [B,Hkv,Sk,D],
/// v [B,Hkv,Sk,Dv], bias broadcast along its dims of size 1 to [B,H,S,Sk]
/// (a 1x1x1x1 zero where the op has none), out [B,H,S,Dv], lse [B,H,S];
/// `scaleBits` and `ratioBits` are the bits of the f64 scale and dropout
/// ratio; `stepSeed` is read only when `hasStepSeed` is 1.
void _mlir_ciface_echo_attention_forward(EchoMemRef4D *q, EchoMemRef4D *k,
                                         EchoMemRef4D *v, EchoMemRef4D *bias,
                                         EchoMemRefSeed *stepSeed,
                                         EchoMemRef4D *out, EchoMemRef3D *lse,
                                         int64_t scaleBits, int64_t causal,
                                         int64_t ratioBits, int64_t seed,
                                         int64_t hasStepSeed);
/// echo_attention_backward(q, k, v, out, lse, dout, bias, stepSeed, dq, dk,
/// dv, scaleBits, causal, ratioBits, seed, hasStepSeed).
void _mlir_ciface_echo_attention_backward(
    EchoMemRef4D *q, EchoMemRef4D *k, EchoMemRef4D *v, EchoMemRef4D *out,
    EchoMemRef3D *lse, EchoMemRef4D *dout, EchoMemRef4D *bias,
    EchoMemRefSeed *stepSeed, EchoMemRef4D *dq, EchoMemRef4D *dk,
    EchoMemRef4D *dv, int64_t scaleBits, int64_t causal, int64_t ratioBits,
    int64_t seed, int64_t hasStepSeed);

void _mlir_ciface_echo_offload_f32(EchoUnrankedF32 *src, int64_t slot);
void _mlir_ciface_echo_fetch_f32(int64_t slot, EchoUnrankedF32 *dst);
void _mlir_ciface_echo_transfer_wait_f32(int64_t slot, EchoUnrankedF32 *value);
void _mlir_ciface_echo_offload_f16(EchoUnranked16 *src, int64_t slot);
void _mlir_ciface_echo_fetch_f16(int64_t slot, EchoUnranked16 *dst);
void _mlir_ciface_echo_transfer_wait_f16(int64_t slot, EchoUnranked16 *value);
void _mlir_ciface_echo_offload_bf16(EchoUnranked16 *src, int64_t slot);
void _mlir_ciface_echo_fetch_bf16(int64_t slot, EchoUnranked16 *dst);
void _mlir_ciface_echo_transfer_wait_bf16(int64_t slot, EchoUnranked16 *value);

/// A kernel split across threads (echo-outline-kernels' parallel-min-work,
/// echo-cpu-parallel-calls; the CPU runtime only): runs body(context, a, b)
/// on contiguous parts [a, b) that cover [lo, hi), on the runtime's threads,
/// and returns when all are done. Not a `_mlir_ciface_` call: the generated
/// code passes the trampoline and its context as pointers.
void echo_cpu_parallel_for(void (*body)(void *context, int64_t lo, int64_t hi),
                           void *context, int64_t lo, int64_t hi);
}

/// Defines the transfer entry points above, each calling the runtime's
/// `offload(name, src, slot)`, `fetch(name, slot, dst)` or
/// `transferWait(name, slot, value)` (templates over the element type);
/// `EXPORT` is the runtime's export macro.
#define ECHO_DEFINE_TRANSFER_CALLS_OF(EXPORT, SUFFIX, TYPE)                    \
  EXPORT void _mlir_ciface_echo_offload_##SUFFIX(TYPE *src, int64_t slot) {    \
    offload("echo_offload_" #SUFFIX, src, slot);                               \
  }                                                                            \
  EXPORT void _mlir_ciface_echo_fetch_##SUFFIX(int64_t slot, TYPE *dst) {      \
    fetch("echo_fetch_" #SUFFIX, slot, dst);                                   \
  }                                                                            \
  EXPORT void _mlir_ciface_echo_transfer_wait_##SUFFIX(int64_t slot,           \
                                                       TYPE *value) {          \
    transferWait("echo_transfer_wait_" #SUFFIX, slot, value);                  \
  }
#define ECHO_DEFINE_TRANSFER_CALLS(EXPORT)                                     \
  ECHO_DEFINE_TRANSFER_CALLS_OF(EXPORT, f32, EchoUnrankedF32)                  \
  ECHO_DEFINE_TRANSFER_CALLS_OF(EXPORT, f16, EchoUnranked16)                   \
  ECHO_DEFINE_TRANSFER_CALLS_OF(EXPORT, bf16, EchoUnranked16)

namespace mlir::echo::runtime {
/// The transfer calls, and where a slot of the host pool is between them:
/// offload (Empty -> Offloaded), fetch (Offloaded -> Fetched), and the
/// wait of a fetch (Fetched -> Empty; the wait of an offload leaves the
/// slot Offloaded).
enum class TransferCall { Offload, Fetch, Wait };
enum class TransferSlotState { Empty, Offloaded, Fetched };

/// Slots a step may number (from 0, below this).
inline constexpr int64_t kMaxTransferSlots = int64_t(1) << 24;

/// Why `call` (named `what`) cannot run on slot `slot` in `state`, or the
/// empty string when it can. `state` is ignored for a slot out of range;
/// `bufferBytes` and `slotBytes` are a fetch's destination and the copy the
/// slot holds. Both runtimes report these words.
inline std::string checkTransfer(TransferCall call, const char *what,
                                 int64_t slot, TransferSlotState state,
                                 size_t bufferBytes = 0, size_t slotBytes = 0) {
  auto error = [&](const std::string &why) {
    return std::string(what) + ": slot " + std::to_string(slot) + " " + why;
  };
  if (slot < 0 || slot >= kMaxTransferSlots)
    return error("is out of range");
  switch (call) {
  case TransferCall::Offload:
    if (state != TransferSlotState::Empty)
      return error("still holds a copy (offloaded twice without a fetch and "
                   "its wait)");
    break;
  case TransferCall::Fetch:
    if (state != TransferSlotState::Offloaded)
      return error("holds no offloaded copy");
    if (bufferBytes != slotBytes)
      return error("holds " + std::to_string(slotBytes) +
                   " bytes, the buffer has " + std::to_string(bufferBytes));
    break;
  case TransferCall::Wait:
    if (state == TransferSlotState::Empty)
      return error("has no transfer to wait for");
    break;
  }
  return {};
}

/// The element count and layout of an unranked descriptor's buffer.
struct TransferBuffer {
  char *data = nullptr;
  int64_t elements = 0;
  /// Row-major without gaps (the copy is one block).
  bool contiguous = true;
  int64_t rank = 0;
  const int64_t *sizes = nullptr, *strides = nullptr;
};

/// Reads `m` (a descriptor of elements of `elementBytes` bytes); false when
/// it is malformed (negative rank or sizes, a count that overflows).
template <typename T>
bool describeTransferBuffer(const ::UnrankedMemRefType<T> *m,
                            TransferBuffer &out) {
  if (!m || !m->descriptor || m->rank < 0 || m->rank > 64)
    return false;
  // {allocated, aligned, offset, sizes[rank], strides[rank]}.
  auto *ranked = static_cast<const StridedMemRefType<T, 1> *>(m->descriptor);
  const int64_t *sizes = reinterpret_cast<const int64_t *>(&ranked->sizes);
  out.rank = m->rank;
  out.sizes = sizes;
  out.strides = sizes + m->rank;
  out.data = reinterpret_cast<char *>(ranked->data + ranked->offset);
  out.elements = 1;
  int64_t expected = 1;
  for (int64_t d = m->rank - 1; d >= 0; --d) {
    if (sizes[d] < 0 || (sizes[d] && out.elements > INT64_MAX / sizes[d]))
      return false;
    out.elements *= sizes[d];
    if (sizes[d] != 1 && out.strides[d] != expected)
      out.contiguous = false;
    expected *= sizes[d];
  }
  return true;
}

/// Copies between `m`'s (possibly strided) elements and the packed
/// `elements` × `elementBytes` bytes at `packed`: gathers into `packed`
/// when `toPacked`, scatters from it otherwise.
inline void copyStrided(const TransferBuffer &m, size_t elementBytes,
                        char *packed, bool toPacked) {
  if (m.contiguous) {
    size_t bytes = static_cast<size_t>(m.elements) * elementBytes;
    if (toPacked)
      std::memcpy(packed, m.data, bytes);
    else
      std::memcpy(m.data, packed, bytes);
    return;
  }
  int64_t index[64] = {0};
  for (int64_t i = 0; i < m.elements; ++i) {
    int64_t offset = 0;
    for (int64_t d = 0; d < m.rank; ++d)
      offset += index[d] * m.strides[d];
    char *element = m.data + offset * static_cast<int64_t>(elementBytes);
    char *at = packed + i * static_cast<int64_t>(elementBytes);
    if (toPacked)
      std::memcpy(at, element, elementBytes);
    else
      std::memcpy(element, at, elementBytes);
    for (int64_t d = m.rank - 1; d >= 0; --d) {
      if (++index[d] < m.sizes[d])
        break;
      index[d] = 0;
    }
  }
}
} // namespace mlir::echo::runtime

#endif // ECHO_RUNTIME_ECHORUNTIMEABI_H
