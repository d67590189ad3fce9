//===- EchoCpuMatmul.cpp - bf16 GEMMs on oneDNN's matmul ------------------===//
//
// Part of the Echo project.
//
// echo_gemm_bf16 and echo_batched_gemm_bf16: oneDNN's bf16 matmul (a sum
// post-op to accumulate), created once per shape and cached; on a CPU
// where oneDNN has none, OpenBLAS's SGEMM on operands widened into the
// shared scratchpad, rounded to bf16 once.
//
//===----------------------------------------------------------------------===//

#include "EchoCpuDnnImpl.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <climits>
#include <cstdint>
#include <cstring>
#include <tuple>

namespace echo_cpu_runtime {
namespace {

/// What identifies a bf16 matmul primitive: rank, sizes and strides of
/// op(A), op(B) and C, and whether it accumulates.
using MatmulKey = std::tuple<int, std::array<int64_t, 18>, int64_t>;

PrimitiveCache<MatmulKey> matmulCache;

/// A bf16 as the f32 it stands for (its upper half).
float widen(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// `f` rounded to the nearest bf16, ties to even (a NaN stays a quiet NaN),
/// as oneDNN rounds.
uint16_t narrow(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

/// Rows of C a fallback GEMM widens at a time.
constexpr int64_t kFallbackRows = 256;

/// gemmBF16 on a CPU where oneDNN has no bf16 matmul (oneDNN 2.x needs
/// AVX-512; an AVX2-only CPU gets `unimplemented`): op(B) and each block
/// of rows of op(A) and C widened to f32 (exactly) in the shared
/// scratchpad, OpenBLAS's SGEMM (products accumulated in f32, as oneDNN
/// does), C rounded to bf16 once. The scratchpad holds op(B) and one block:
/// (K·N + kFallbackRows·(K + N))·4 bytes at most, counted as the library
/// workspace.
template <int N>
void gemmBF16ByF32(StridedMemRefType<uint16_t, N> *a,
                   StridedMemRefType<uint16_t, N> *b,
                   StridedMemRefType<uint16_t, N> *c, int64_t transA,
                   int64_t transB, int64_t accumulate, int64_t m, int64_t n,
                   int64_t k) {
  if (!blasReady())
    return;
  constexpr int r = N - 2;
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX) {
    fail("echo_gemm_bf16: %" PRId64 "x%" PRId64 "x%" PRId64
         " exceeds OpenBLAS's 32-bit sizes",
         m, n, k);
    return;
  }
  int64_t rows = std::min(m, kFallbackRows);
  size_t floats = static_cast<size_t>(k * n + rows * (k + n));
  if (!reserveScratchpad(floats * sizeof(float)))
    return;
  float *fb = static_cast<float *>(rt.scratchpad);
  float *fa = fb + k * n, *fc = fa + rows * k;
  int64_t batch = r == 1 ? c->sizes[0] : 1;
  for (int64_t i = 0; i < batch; ++i) {
    const uint16_t *pa = a->data + a->offset + (r ? i * a->strides[0] : 0);
    const uint16_t *pb = b->data + b->offset + (r ? i * b->strides[0] : 0);
    uint16_t *pc = c->data + c->offset + (r ? i * c->strides[0] : 0);
    // op(T)[x, y] of T's last two strides.
    auto at = [](const uint16_t *p, const int64_t *strides, bool trans,
                 int64_t x, int64_t y) {
      return trans ? p[y * strides[r] + x * strides[r + 1]]
                   : p[x * strides[r] + y * strides[r + 1]];
    };
    for (int64_t x = 0; x < k; ++x)
      for (int64_t y = 0; y < n; ++y)
        fb[x * n + y] = widen(at(pb, b->strides, transB, x, y));
    for (int64_t row = 0; row < m; row += rows) {
      int64_t block = std::min(rows, m - row);
      for (int64_t x = 0; x < block; ++x)
        for (int64_t y = 0; y < k; ++y)
          fa[x * k + y] = widen(at(pa, a->strides, transA, row + x, y));
      for (int64_t x = 0; accumulate && x < block; ++x)
        for (int64_t y = 0; y < n; ++y)
          fc[x * n + y] = widen(at(pc, c->strides, false, row + x, y));
      rt.blas.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
                    static_cast<int>(block), static_cast<int>(n),
                    static_cast<int>(k), 1.0f, fa, static_cast<int>(k), fb,
                    static_cast<int>(n), accumulate ? 1.0f : 0.0f, fc,
                    static_cast<int>(n));
      for (int64_t x = 0; x < block; ++x)
        for (int64_t y = 0; y < n; ++y)
          pc[(row + x) * c->strides[r] + y * c->strides[r + 1]] =
              narrow(fc[x * n + y]);
    }
  }
}

/// C (M×N) = op(A) · op(B) [+ C] on bf16 buffers, per batch (N = 3): oneDNN
/// accumulates the products in f32 and rounds to bf16 once. A transposed
/// operand is described by swapping its strides, so no copy is made. Where
/// oneDNN has no bf16 matmul for this CPU, gemmBF16ByF32 computes the same
/// products in f32.
template <int N>
void gemmBF16(StridedMemRefType<uint16_t, N> *a,
              StridedMemRefType<uint16_t, N> *b,
              StridedMemRefType<uint16_t, N> *c, int64_t transA, int64_t transB,
              int64_t accumulate) {
  if (hasError || !dnnReady())
    return;
  constexpr int r = N - 2;
  int64_t m = c->sizes[r], n = c->sizes[r + 1];
  int64_t aM = a->sizes[transA ? r + 1 : r], k = a->sizes[transA ? r : r + 1];
  int64_t bK = b->sizes[transB ? r + 1 : r], bN = b->sizes[transB ? r : r + 1];
  if (aM != m || bK != k || bN != n ||
      (r == 1 && (a->sizes[0] != c->sizes[0] || b->sizes[0] != c->sizes[0]))) {
    fail("echo_gemm_bf16: shapes do not agree: op(A) is %" PRId64 "x%" PRId64
         ", op(B) %" PRId64 "x%" PRId64 ", C %" PRId64 "x%" PRId64,
         aM, k, bK, bN, m, n);
    return;
  }
  if (m == 0 || n == 0 || (r == 1 && c->sizes[0] == 0))
    return;
  // op(T)'s dims and strides: T's, with the last two swapped if transposed.
  auto view = [](StridedMemRefType<uint16_t, N> *t, bool trans,
                 dnnl_dims_t dims, dnnl_dims_t strides) {
    for (int i = 0; i < N; ++i) {
      dims[i] = t->sizes[i];
      // A dimension of extent 1 may carry any stride; oneDNN wants one that
      // keeps the descriptor dense-compatible.
      strides[i] = t->strides[i];
    }
    if (trans) {
      std::swap(dims[r], dims[r + 1]);
      std::swap(strides[r], strides[r + 1]);
    }
  };
  dnnl_dims_t ad, as, bd, bs, cd, cs;
  view(a, transA, ad, as);
  view(b, transB, bd, bs);
  view(c, false, cd, cs);
  std::array<int64_t, 18> shapes{};
  for (int i = 0; i < N; ++i) {
    shapes[i] = ad[i];
    shapes[3 + i] = as[i];
    shapes[6 + i] = bd[i];
    shapes[9 + i] = bs[i];
    shapes[12 + i] = cd[i];
    shapes[15 + i] = cs[i];
  }
  // ECHO_CPU_BF16_GEMM=f32 takes the f32 path on every CPU (to compare
  // the two where oneDNN has a bf16 matmul).
  static const bool forceF32 = envSelects("ECHO_CPU_BF16_GEMM", "f32");
  if (forceF32)
    return gemmBF16ByF32(a, b, c, transA, transB, accumulate, m, n, k);
  MatmulKey key{N, shapes, accumulate};
  Dnn &d = rt.dnn;
  auto it = matmulCache.find(key);
  if (it == matmulCache.end()) {
    dnnl_memory_desc_t amd, bmd, cmd;
    if (!dnnOk(d.mdInitByStrides(&amd, N, ad, dnnl_bf16, as),
               "oneDNN memory descriptor") ||
        !dnnOk(d.mdInitByStrides(&bmd, N, bd, dnnl_bf16, bs),
               "oneDNN memory descriptor") ||
        !dnnOk(d.mdInitByStrides(&cmd, N, cd, dnnl_bf16, cs),
               "oneDNN memory descriptor"))
      return;
    dnnl_matmul_desc_t desc;
    if (!dnnOk(d.matmulInit(&desc, &amd, &bmd, nullptr, &cmd),
               "oneDNN matmul descriptor"))
      return;
    dnnl_primitive_attr_t attr;
    if (!dnnOk(d.attrCreate(&attr), "oneDNN attributes"))
      return;
    bool ok = dnnOk(d.attrSetScratchpadMode(attr, dnnl_scratchpad_mode_user),
                    "oneDNN scratchpad mode");
    if (ok && accumulate) {
      dnnl_post_ops_t ops;
      ok = dnnOk(d.postOpsCreate(&ops), "oneDNN post-ops");
      if (ok) {
        ok = dnnOk(d.postOpsAppendSum(ops, 1.0f), "oneDNN sum post-op") &&
             dnnOk(d.attrSetPostOps(attr, ops), "oneDNN post-ops");
        d.postOpsDestroy(ops);
      }
    }
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_status_t created =
        ok ? d.pdCreate(&pd, &desc, attr, rt.engine, nullptr) : dnnl_success;
    d.attrDestroy(attr);
    // No bf16 matmul on this CPU: the shape is remembered with no
    // primitive, and runs in f32.
    if (ok && created == dnnl_unimplemented)
      it = matmulCache.emplace(key, DnnPrimitive()).first;
    else if (!ok || !dnnOk(created, "oneDNN bf16 matmul"))
      return;
    DnnPrimitive mm;
    if (it == matmulCache.end()) {
      if (!makePrimitive(pd, amd, bmd, cmd, mm))
        return;
      it = matmulCache.emplace(key, mm).first;
    }
  }
  DnnPrimitive &mm = it->second;
  if (!mm.primitive)
    return gemmBF16ByF32(a, b, c, transA, transB, accumulate, m, n, k);
  if (!bindPrimitive(mm, a->data + a->offset, b->data + b->offset,
                     c->data + c->offset))
    return;
  dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, mm.src},
                             {DNNL_ARG_WEIGHTS, mm.weights},
                             {DNNL_ARG_DST, mm.dst},
                             {DNNL_ARG_SCRATCHPAD, mm.scratchpad}};
  if (dnnOk(d.primitiveExecute(mm.primitive, rt.stream, mm.scratchpad ? 4 : 3,
                               args),
            "oneDNN bf16 matmul"))
    dnnOk(d.streamWait(rt.stream), "oneDNN stream");
}

} // namespace
} // namespace echo_cpu_runtime

using namespace echo_cpu_runtime;

//===----------------------------------------------------------------------===//
// Library calls (declared in echo/Runtime/EchoRuntimeABI.h)
//===----------------------------------------------------------------------===//

ECHO_EXPORT void _mlir_ciface_echo_gemm_bf16(EchoMemRef2DBF16 *a,
                                             EchoMemRef2DBF16 *b,
                                             EchoMemRef2DBF16 *c,
                                             int64_t transA, int64_t transB,
                                             int64_t accumulate) {
  gemmBF16(a, b, c, transA, transB, accumulate);
}

ECHO_EXPORT void
_mlir_ciface_echo_batched_gemm_bf16(EchoMemRef3DBF16 *a, EchoMemRef3DBF16 *b,
                                    EchoMemRef3DBF16 *c, int64_t transA,
                                    int64_t transB, int64_t accumulate) {
  gemmBF16(a, b, c, transA, transB, accumulate);
}
