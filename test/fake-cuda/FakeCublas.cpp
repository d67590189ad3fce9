//===- FakeCublas.cpp - A cuBLAS that computes on the fake device ---------===//
//
// Part of the Echo project.
//
// libcublas.so.13 for the tests of the Echo CUDA runtime's GEMMs on
// machines without a GPU, beside the host-memory driver
// (FakeCudaDriver.cpp), whose device pointers are host pointers: the GEMMs
// the runtime calls (cublasSgemm, cublasSgemmStridedBatched, cublasGemmEx,
// cublasGemmStridedBatchedEx) compute what cuBLAS documents, column-major,
// on those bytes, with products accumulated in f32 and the result rounded
// once to C's type (f32, bf16 or f16, to nearest even). So a test checks
// the runtime's mapping of row-major calls onto cuBLAS's arguments
// (operand order, transposes, leading dimensions, batch strides, data and
// compute types) against a reference of its own. Anything else cuBLAS
// would refuse (a compute type other than CUBLAS_COMPUTE_32F, mixed data
// types, a leading dimension below the rows) answers
// CUBLAS_STATUS_INVALID_VALUE. With ECHO_FAKE_CUBLAS_LOG=<path>, each
// GEMM appends a line `<call> <type> opA opB m n k lda ldb ldc batch` to
// that file. Never installed.
//
//===----------------------------------------------------------------------===//

#include <cublas_v2.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
float fromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint32_t toBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

float fromBF16(uint16_t h) { return fromBits(uint32_t(h) << 16); }

uint16_t toBF16(float f) {
  uint32_t bits = toBits(f);
  if ((bits & 0x7fffffff) > 0x7f800000)
    return uint16_t((bits >> 16) | 0x40);
  return uint16_t((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

float fromF16(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f,
           man = h & 0x3ff;
  if (exp == 0x1f)
    return fromBits(sign | 0x7f800000 | (man << 13));
  if (exp == 0) // zero or subnormal: man * 2^-24
    return (sign ? -1.0f : 1.0f) * float(man) * 0x1p-24f;
  return fromBits(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t toF16(float f) {
  uint32_t bits = toBits(f);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  uint32_t abs = bits & 0x7fffffff;
  if (abs > 0x7f800000)
    return sign | 0x7e00;
  if (abs >= 0x477ff000) // rounds to 65520 or more: infinity
    return sign | 0x7c00;
  if (abs < 0x38800000) { // below 2^-14: a subnormal, man * 2^-24
    float scaled = fromBits(abs) * 0x1p24f;
    // Round to nearest even in f32 arithmetic: 2^23 added and removed.
    float rounded = (scaled + 0x1p23f) - 0x1p23f;
    return sign | uint16_t(rounded);
  }
  uint32_t rounded = abs + 0xfff + ((abs >> 13) & 1);
  return sign | uint16_t((rounded - (112u << 23)) >> 13);
}

float load(const void *p, cudaDataType type, int64_t i) {
  switch (type) {
  case CUDA_R_32F:
    return static_cast<const float *>(p)[i];
  case CUDA_R_16BF:
    return fromBF16(static_cast<const uint16_t *>(p)[i]);
  default:
    return fromF16(static_cast<const uint16_t *>(p)[i]);
  }
}

void store(void *p, cudaDataType type, int64_t i, float v) {
  switch (type) {
  case CUDA_R_32F:
    static_cast<float *>(p)[i] = v;
    return;
  case CUDA_R_16BF:
    static_cast<uint16_t *>(p)[i] = toBF16(v);
    return;
  default:
    static_cast<uint16_t *>(p)[i] = toF16(v);
  }
}

const char *typeName(cudaDataType type) {
  return type == CUDA_R_32F ? "f32" : type == CUDA_R_16BF ? "bf16" : "f16";
}

/// C = alpha op(A) op(B) + beta C per batch, column-major, as cuBLAS.
cublasStatus_t gemm(const char *call, cublasOperation_t ta,
                    cublasOperation_t tb, int m, int n, int k,
                    const float *alpha, const void *a, int lda, long long sa,
                    const void *b, int ldb, long long sb, const float *beta,
                    void *c, int ldc, long long sc, int batch,
                    cudaDataType type) {
  bool transA = ta == CUBLAS_OP_T, transB = tb == CUBLAS_OP_T;
  if (m < 0 || n < 0 || k < 0 || batch < 0 || lda < (transA ? k : m) ||
      lda < 1 || ldb < (transB ? n : k) || ldb < 1 || ldc < m || ldc < 1 ||
      (ta != CUBLAS_OP_N && !transA) || (tb != CUBLAS_OP_N && !transB))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (const char *path = getenv("ECHO_FAKE_CUBLAS_LOG"))
    if (FILE *log = fopen(path, "a")) {
      fprintf(log, "%s %s %s %s %d %d %d %d %d %d %d\n", call, typeName(type),
              transA ? "T" : "N", transB ? "T" : "N", m, n, k, lda, ldb, ldc,
              batch);
      fclose(log);
    }
  for (int p = 0; p < batch; ++p)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        float sum = 0.0f;
        for (int l = 0; l < k; ++l) {
          int64_t ai = transA ? int64_t(i) * lda + l : int64_t(l) * lda + i;
          int64_t bi = transB ? int64_t(l) * ldb + j : int64_t(j) * ldb + l;
          sum += load(a, type, p * sa + ai) * load(b, type, p * sb + bi);
        }
        int64_t ci = p * sc + int64_t(j) * ldc + i;
        float prior = *beta == 0.0f ? 0.0f : *beta * load(c, type, ci);
        store(c, type, ci, *alpha * sum + prior);
      }
  return CUBLAS_STATUS_SUCCESS;
}

struct Handle {
  int unused;
};
} // namespace

FAKE_EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t *handle) {
  *handle = reinterpret_cast<cublasHandle_t>(new Handle());
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_EXPORT cublasStatus_t cublasSetStream_v2(cublasHandle_t, cudaStream_t) {
  return CUBLAS_STATUS_SUCCESS;
}

FAKE_EXPORT const char *cublasGetStatusName(cublasStatus_t status) {
  return status == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS"
                                         : "CUBLAS_STATUS_INVALID_VALUE";
}

FAKE_EXPORT cublasStatus_t
cublasSgemm_v2(cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb,
               int m, int n, int k, const float *alpha, const float *a, int lda,
               const float *b, int ldb, const float *beta, float *c, int ldc) {
  return gemm("cublasSgemm", ta, tb, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta,
              c, ldc, 0, 1, CUDA_R_32F);
}

FAKE_EXPORT cublasStatus_t cublasSgemmStridedBatched(
    cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
    int k, const float *alpha, const float *a, int lda, long long sa,
    const float *b, int ldb, long long sb, const float *beta, float *c, int ldc,
    long long sc, int batch) {
  return gemm("cublasSgemmStridedBatched", ta, tb, m, n, k, alpha, a, lda, sa,
              b, ldb, sb, beta, c, ldc, sc, batch, CUDA_R_32F);
}

FAKE_EXPORT cublasStatus_t cublasGemmEx(
    cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
    int k, const void *alpha, const void *a, cudaDataType at, int lda,
    const void *b, cudaDataType bt, int ldb, const void *beta, void *c,
    cudaDataType ct, int ldc, cublasComputeType_t compute, cublasGemmAlgo_t) {
  if (at != bt || at != ct || compute != CUBLAS_COMPUTE_32F ||
      (at != CUDA_R_32F && at != CUDA_R_16BF && at != CUDA_R_16F))
    return CUBLAS_STATUS_INVALID_VALUE;
  return gemm("cublasGemmEx", ta, tb, m, n, k,
              static_cast<const float *>(alpha), a, lda, 0, b, ldb, 0,
              static_cast<const float *>(beta), c, ldc, 0, 1, at);
}

FAKE_EXPORT cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
    int k, const void *alpha, const void *a, cudaDataType at, int lda,
    long long sa, const void *b, cudaDataType bt, int ldb, long long sb,
    const void *beta, void *c, cudaDataType ct, int ldc, long long sc,
    int batch, cublasComputeType_t compute, cublasGemmAlgo_t) {
  if (at != bt || at != ct || compute != CUBLAS_COMPUTE_32F ||
      (at != CUDA_R_32F && at != CUDA_R_16BF && at != CUDA_R_16F))
    return CUBLAS_STATUS_INVALID_VALUE;
  return gemm("cublasGemmStridedBatchedEx", ta, tb, m, n, k,
              static_cast<const float *>(alpha), a, lda, sa, b, ldb, sb,
              static_cast<const float *>(beta), c, ldc, sc, batch, at);
}
