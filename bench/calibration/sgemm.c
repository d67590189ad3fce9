//===- sgemm.c - OpenBLAS's large SGEMM on the host -----------------------===//
//
// Part of the Echo project: bench/machine.py compiles this file at
// calibration time with `cc -O2 -march=native ... -lopenblas`.
//
//===----------------------------------------------------------------------===//
//
// C = A * B (row-major, N x N x N, f32) through OpenBLAS's cblas_sgemm with
// the threads OPENBLAS_NUM_THREADS gives it: a lower bound on what the
// machine can do on a GEMM, beside the FMA peak. One untimed call first
// (thread start, page faults), then REPS timed calls.
//
// Usage: sgemm N REPS
// Prints {"n": N, "flops": 2N^3, "call_s": [...], "threads": T,
//         "corename": "...", "config": "..."}.
//
//===----------------------------------------------------------------------===//

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

// OpenBLAS's entry points, declared here so that any cblas.h (or none) does.
void cblas_sgemm(int order, int transa, int transb, int m, int n, int k,
                 float alpha, const float *a, int lda, const float *b, int ldb,
                 float beta, float *c, int ldc);
char *openblas_get_corename(void);
char *openblas_get_config(void);
int openblas_get_num_threads(void);

enum { RowMajor = 101, NoTrans = 111 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s N REPS\n", argv[0]);
    return 2;
  }
  int n = atoi(argv[1]), reps = atoi(argv[2]);
  if (n < 1 || reps < 1) {
    fprintf(stderr, "sgemm: bad arguments\n");
    return 2;
  }
  size_t count = (size_t)n * n;
  float *a = malloc(count * sizeof(float)), *b = malloc(count * sizeof(float));
  float *c = malloc(count * sizeof(float));
  if (!a || !b || !c) {
    fprintf(stderr, "sgemm: out of memory\n");
    return 1;
  }
  for (size_t i = 0; i < count; ++i) {
    a[i] = (float)(i % 17) * 0.01f;
    b[i] = (float)(i % 13) * 0.01f;
    c[i] = 0.0f;
  }
  cblas_sgemm(RowMajor, NoTrans, NoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c,
              n);
  printf("{\"n\": %d, \"flops\": %.0f, \"threads\": %d, \"corename\": \"%s\", "
         "\"config\": \"%s\", \"call_s\": [",
         n, 2.0 * n * n * n, openblas_get_num_threads(),
         openblas_get_corename(), openblas_get_config());
  for (int r = 0; r < reps; ++r) {
    double start = now();
    cblas_sgemm(RowMajor, NoTrans, NoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c,
                n);
    printf("%s%.6f", r ? ", " : "", now() - start);
  }
  printf("], \"check\": %g}\n", c[count / 2]);
  return 0;
}
