/* Calls the Echo CUDA runtime's GEMMs as a compiled step does (memref
   descriptors, row-major, `_mlir_ciface_` entry points) in f32, bf16 and
   f16, plain and batched, every transpose, overwriting and accumulating,
   with row strides wider than the rows, and checks each result against a
   reference computed here from the same (rounded) inputs: products summed
   in double, one rounding of the output's type allowed, plus f32's error
   on the sum. With test/fake-cuda's driver and cuBLAS it checks the
   runtime's mapping onto cuBLAS without a GPU; on a GPU, cuBLAS itself.
   Prints one line per type and rank; exits 1 at the first mismatch. */
#include "EchoCudaRuntime.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} MemRef2;
typedef struct {
  void *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} MemRef3;

#define GEMM(name, M)                                                          \
  void _mlir_ciface_##name(M *a, M *b, M *c, int64_t transA, int64_t transB,   \
                           int64_t accumulate);
GEMM(echo_gemm, MemRef2)
GEMM(echo_gemm_bf16, MemRef2)
GEMM(echo_gemm_f16, MemRef2)
GEMM(echo_batched_gemm, MemRef3)
GEMM(echo_batched_gemm_bf16, MemRef3)
GEMM(echo_batched_gemm_f16, MemRef3)

enum Type { F32, BF16, F16 };
static const char *names[] = {"f32", "bf16", "f16"};
/* The unit roundoff of each type. */
static const double eps[] = {0x1p-24, 0x1p-8, 0x1p-11};

static float fromBits(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}

/* Exact 16-bit values: a multiple of 1/64 in [-2, 2), which bf16 and f16
   both hold. */
static float value(unsigned *seed) {
  *seed = *seed * 1103515245u + 12345u;
  return (float)((int)((*seed >> 16) % 256) - 128) / 64.0f;
}

static uint16_t toHalf(float f, enum Type t) {
  uint32_t b;
  memcpy(&b, &f, 4);
  if (t == BF16)
    return (uint16_t)(b >> 16); /* exact for the values above */
  if (f == 0.0f)
    return (uint16_t)((b >> 16) & 0x8000);
  /* Normal f16 (the values above are): rebias the exponent, keep 10 bits. */
  return (uint16_t)(((b >> 16) & 0x8000) | ((((b >> 23) & 0xff) - 112) << 10) |
                    ((b >> 13) & 0x3ff));
}

static float fromHalf(uint16_t h, enum Type t) {
  if (t == BF16)
    return fromBits((uint32_t)h << 16);
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f,
           m = h & 0x3ff;
  if (e == 0)
    return (sign ? -1.0f : 1.0f) * (float)m * 0x1p-24f;
  if (e == 0x1f)
    return fromBits(sign | 0x7f800000 | (m << 13));
  return fromBits(sign | ((e + 112) << 23) | (m << 13));
}

static size_t width(enum Type t) { return t == F32 ? 4 : 2; }

/* A device buffer of `count` elements holding `host` in type t. */
static void *upload(const float *host, size_t count, enum Type t) {
  void *dev = echoCudaMalloc(count * width(t));
  uint16_t half[4096];
  if (!dev || count > 4096)
    return NULL;
  if (t == F32) {
    echoCudaCopyToDevice(dev, host, count * 4);
  } else {
    for (size_t i = 0; i < count; ++i)
      half[i] = toHalf(host[i], t);
    echoCudaCopyToDevice(dev, half, count * 2);
  }
  return dev;
}

static void download(float *host, const void *dev, size_t count, enum Type t) {
  uint16_t half[4096];
  echoCudaSynchronize();
  if (t == F32) {
    echoCudaCopyToHost(host, dev, count * 4);
    return;
  }
  echoCudaCopyToHost(half, dev, count * 2);
  for (size_t i = 0; i < count; ++i)
    host[i] = fromHalf(half[i], t);
}

/* One call: C [batch, M, N] (row stride N + 1) = op(A) op(B) [+ C] with A
   stored [M, K] or [K, M] with row stride (cols + 2), B likewise (+ 3). */
static int check(enum Type t, int batched, int transA, int transB,
                 int accumulate, unsigned *seed) {
  enum { M = 5, N = 7, K = 3, BATCH = 2 };
  int aRows = transA ? K : M, aCols = transA ? M : K;
  int bRows = transB ? N : K, bCols = transB ? K : N;
  int lda = aCols + 2, ldb = bCols + 3, ldc = N + 1;
  int batch = batched ? BATCH : 1;
  size_t aSize = (size_t)batch * aRows * lda,
         bSize = (size_t)batch * bRows * ldb, cSize = (size_t)batch * M * ldc;
  float a[BATCH * 7 * 9], b[BATCH * 7 * 10], c[BATCH * 5 * 8],
      out[BATCH * 5 * 8];
  for (size_t i = 0; i < aSize; ++i)
    a[i] = value(seed);
  for (size_t i = 0; i < bSize; ++i)
    b[i] = value(seed);
  for (size_t i = 0; i < cSize; ++i)
    c[i] = value(seed);
  void *da = upload(a, aSize, t), *db = upload(b, bSize, t),
       *dc = upload(c, cSize, t);
  if (!da || !db || !dc) {
    fprintf(stderr, "allocation failed: %s\n", echoCudaGetError());
    return 0;
  }
  if (!batched) {
    MemRef2 ma = {da, da, 0, {aRows, aCols}, {lda, 1}};
    MemRef2 mb = {db, db, 0, {bRows, bCols}, {ldb, 1}};
    MemRef2 mc = {dc, dc, 0, {M, N}, {ldc, 1}};
    if (t == F32)
      _mlir_ciface_echo_gemm(&ma, &mb, &mc, transA, transB, accumulate);
    else if (t == BF16)
      _mlir_ciface_echo_gemm_bf16(&ma, &mb, &mc, transA, transB, accumulate);
    else
      _mlir_ciface_echo_gemm_f16(&ma, &mb, &mc, transA, transB, accumulate);
  } else {
    MemRef3 ma = {da, da, 0, {batch, aRows, aCols}, {aRows * lda, lda, 1}};
    MemRef3 mb = {db, db, 0, {batch, bRows, bCols}, {bRows * ldb, ldb, 1}};
    MemRef3 mc = {dc, dc, 0, {batch, M, N}, {M * ldc, ldc, 1}};
    if (t == F32)
      _mlir_ciface_echo_batched_gemm(&ma, &mb, &mc, transA, transB, accumulate);
    else if (t == BF16)
      _mlir_ciface_echo_batched_gemm_bf16(&ma, &mb, &mc, transA, transB,
                                          accumulate);
    else
      _mlir_ciface_echo_batched_gemm_f16(&ma, &mb, &mc, transA, transB,
                                         accumulate);
  }
  if (echoCudaGetError()) {
    fprintf(stderr, "%s: %s\n", names[t], echoCudaGetError());
    return 0;
  }
  download(out, dc, cSize, t);
  for (int p = 0; p < batch; ++p)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double sum = 0, size = 0;
        for (int l = 0; l < K; ++l) {
          double x = a[p * aRows * lda + (transA ? l * lda + i : i * lda + l)];
          double y = b[p * bRows * ldb + (transB ? j * ldb + l : l * ldb + j)];
          sum += x * y;
          size += fabs(x * y);
        }
        double prior = c[p * M * ldc + i * ldc + j];
        if (accumulate) {
          sum += prior;
          size += fabs(prior);
        }
        double got = out[p * M * ldc + i * ldc + j];
        if (fabs(got - sum) > eps[t] * fabs(sum) + 0x1p-22 * (K + 1) * size) {
          fprintf(stderr,
                  "%s %s transA=%d transB=%d accumulate=%d: C[%d,%d,%d] = %g, "
                  "expected %g\n",
                  names[t], batched ? "batched" : "2-D", transA, transB,
                  accumulate, p, i, j, got, sum);
          return 0;
        }
      }
  /* The padding between C's rows is not written. */
  for (int p = 0; p < batch; ++p)
    for (int i = 0; i < M; ++i)
      if (out[p * M * ldc + i * ldc + N] != c[p * M * ldc + i * ldc + N]) {
        fprintf(stderr, "%s: C's row padding was written\n", names[t]);
        return 0;
      }
  echoCudaFree(da);
  echoCudaFree(db);
  echoCudaFree(dc);
  return 1;
}

int main(int argc, char **argv) {
  if (echoCudaInit(0) != 0) {
    fprintf(stderr, "echoCudaInit: %s\n", echoCudaGetError());
    return 1;
  }
  /* `stride`: an operand whose rows are not contiguous (cuBLAS cannot take
     it) is the runtime's error, named by the call (errors are sticky, so
     this runs alone). */
  if (argc > 1 && strcmp(argv[1], "stride") == 0) {
    float zero[64] = {0};
    void *d = upload(zero, 64, F16);
    MemRef3 ma = {d, d, 0, {1, 2, 3}, {12, 6, 2}},
            mb = {d, d, 0, {1, 3, 2}, {6, 2, 1}},
            mc = {d, d, 0, {1, 2, 2}, {4, 2, 1}};
    _mlir_ciface_echo_batched_gemm_f16(&ma, &mb, &mc, 0, 0, 0);
    printf("stride: %s\n", echoCudaGetError());
    return 0;
  }
  /* `rowstride`: rows that overlap (a row stride below the row length, no
     leading dimension cuBLAS takes) are an error too. */
  if (argc > 1 && strcmp(argv[1], "rowstride") == 0) {
    float zero[64] = {0};
    void *d = upload(zero, 64, F32);
    MemRef2 ma = {d, d, 0, {2, 3}, {2, 1}}, mb = {d, d, 0, {3, 2}, {2, 1}},
            mc = {d, d, 0, {2, 2}, {2, 1}};
    _mlir_ciface_echo_gemm(&ma, &mb, &mc, 0, 0, 0);
    printf("rowstride: %s\n", echoCudaGetError());
    return 0;
  }
  unsigned seed = 1;
  for (int t = F32; t <= F16; ++t)
    for (int batched = 0; batched <= 1; ++batched) {
      int calls = 0;
      for (int transA = 0; transA <= 1; ++transA)
        for (int transB = 0; transB <= 1; ++transB)
          for (int accumulate = 0; accumulate <= 1; ++accumulate, ++calls)
            if (!check((enum Type)t, batched, transA, transB, accumulate,
                       &seed))
              return 1;
      printf("%s %s: %d calls ok\n", names[t], batched ? "batched" : "2-D",
             calls);
    }
  /* A shape mismatch is the runtime's error, named by the call. */
  float zero[64] = {0};
  void *d = upload(zero, 64, BF16);
  MemRef2 ma = {d, d, 0, {4, 3}, {3, 1}}, mb = {d, d, 0, {2, 4}, {4, 1}},
          mc = {d, d, 0, {4, 4}, {4, 1}};
  _mlir_ciface_echo_gemm_bf16(&ma, &mb, &mc, 0, 0, 0);
  printf("mismatch: %s\n", echoCudaGetError());
  return 0;
}
