//===- gemm_layouts.cpp - GEMM operands in the layouts views have ---------===//
//
// Part of the Echo project.
//
// The driver of bench/gemm_layouts.py (which compiles it): C [M, N] = A [M,
// K] · B [K, N] in f32, A in the layouts a library call's operand has after
// bufferization, each way the runtime could take it:
//
//   packed          A dense (the reference)
//   lda             A a column slice of [M, 2K]: rows of unit stride, row
//                   stride 2K, passed to cblas_sgemm as lda (no copy)
//   lda+copy        the same slice copied into a packed buffer first
//   stacked+copy    A a column of a [M, K, E] stack (strides K·E, E: no
//                   unit stride, which no BLAS takes) copied into a packed
//                   buffer, then cblas_sgemm
//   copy            that copy alone
//   transposed      A a transposed view of a packed [K, M] (strides 1, M):
//                   passed to cblas_sgemm as the transpose flag, lda = M
//   transposed+copy that view copied into a packed buffer first
//   onednn          oneDNN's f32 matmul on packed A
//   onednn-stacked  oneDNN's f32 matmul on the stacked column, described by
//                   its strides (no copy)
//
// Usage: gemm_layouts M K N E [STACKED_ONEDNN]; prints one JSON object: each
// variant's best time in seconds over the rounds (onednn-stacked only when
// STACKED_ONEDNN is 1, the default: it runs oneDNN's reference kernel,
// minutes on large shapes; null otherwise). OpenBLAS and oneDNN run on the
// threads OMP_NUM_THREADS gives them.
//
//===----------------------------------------------------------------------===//

#include <cblas.h>
#include <dnnl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace {

/// The best of 5 rounds, each repeating `body` for at least 0.1 s; a body
/// whose first call takes over a second is timed by that call alone.
double best(const std::function<void()> &body) {
  using Clock = std::chrono::steady_clock;
  auto first = Clock::now();
  body();
  double once = std::chrono::duration<double>(Clock::now() - first).count();
  if (once > 1.0)
    return once;
  double bestTime = 1e30;
  for (int round = 0; round < 5; ++round) {
    int reps = 0;
    auto start = Clock::now();
    double elapsed = 0;
    do {
      body();
      ++reps;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < 0.1);
    bestTime = std::min(bestTime, elapsed / reps);
  }
  return bestTime;
}

void check(dnnl_status_t status, const char *what) {
  if (status != dnnl_success) {
    std::fprintf(stderr, "%s failed: %d\n", what, static_cast<int>(status));
    std::exit(1);
  }
}

/// A oneDNN f32 matmul of A (strides `aStrides`), packed B and C.
struct Matmul {
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  dnnl_primitive_t primitive;
  dnnl_memory_t a, b, c;

  Matmul(int64_t m, int64_t k, int64_t n, const dnnl_dims_t aStrides, float *pa,
         float *pb, float *pc) {
    check(dnnl_engine_create(&engine, dnnl_cpu, 0), "engine");
    check(dnnl_stream_create(&stream, engine, dnnl_stream_default_flags),
          "stream");
    dnnl_memory_desc_t amd, bmd, cmd;
    dnnl_dims_t ad = {m, k}, bd = {k, n}, cd = {m, n};
    dnnl_dims_t bs = {n, 1}, cs = {n, 1};
    check(dnnl_memory_desc_init_by_strides(&amd, 2, ad, dnnl_f32, aStrides),
          "A");
    check(dnnl_memory_desc_init_by_strides(&bmd, 2, bd, dnnl_f32, bs), "B");
    check(dnnl_memory_desc_init_by_strides(&cmd, 2, cd, dnnl_f32, cs), "C");
    dnnl_matmul_desc_t desc;
    check(dnnl_matmul_desc_init(&desc, &amd, &bmd, nullptr, &cmd), "matmul");
    dnnl_primitive_desc_t pd;
    check(dnnl_primitive_desc_create(&pd, &desc, nullptr, engine, nullptr),
          "matmul primitive descriptor");
    check(dnnl_primitive_create(&primitive, pd), "matmul primitive");
    dnnl_primitive_desc_destroy(pd);
    check(dnnl_memory_create(&a, &amd, engine, pa), "A memory");
    check(dnnl_memory_create(&b, &bmd, engine, pb), "B memory");
    check(dnnl_memory_create(&c, &cmd, engine, pc), "C memory");
  }
  void run() {
    dnnl_exec_arg_t args[3] = {
        {DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}};
    check(dnnl_primitive_execute(primitive, stream, 3, args), "execute");
    check(dnnl_stream_wait(stream), "wait");
  }
};

} // namespace

int main(int argc, char **argv) {
  if (argc != 5 && argc != 6) {
    std::fprintf(stderr, "usage: gemm_layouts M K N E [STACKED_ONEDNN]\n");
    return 1;
  }
  int m = std::atoi(argv[1]), k = std::atoi(argv[2]), n = std::atoi(argv[3]),
      e = std::atoi(argv[4]);
  bool stackedOnednn = argc == 5 || std::atoi(argv[5]) == 1;
  std::vector<float> packed(size_t(m) * k), wide(size_t(m) * 2 * k),
      stack(size_t(m) * k * e), b(size_t(k) * n), c(size_t(m) * n),
      at(size_t(k) * m);
  for (auto *v : {&packed, &wide, &stack, &b, &at})
    for (size_t i = 0; i < v->size(); ++i)
      (*v)[i] = float((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
  auto gemm = [&](const float *a, int lda) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a,
                lda, b.data(), n, 0.0f, c.data(), n);
  };
  // The copies as the step's generated code makes them: a loop nest over
  // the view's strides into the packed buffer.
  auto copyWide = [&] {
    for (int i = 0; i < m; ++i)
      std::copy_n(&wide[size_t(i) * 2 * k + k], k, &packed[size_t(i) * k]);
  };
  int column = e / 2;
  auto copyStacked = [&] {
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < k; ++j)
        packed[size_t(i) * k + j] = stack[(size_t(i) * k + j) * e + column];
  };
  double tPacked = best([&] { gemm(packed.data(), k); });
  double tLda = best([&] { gemm(wide.data() + k, 2 * k); });
  double tLdaCopy = best([&] {
    copyWide();
    gemm(packed.data(), k);
  });
  double tStackedCopy = best([&] {
    copyStacked();
    gemm(packed.data(), k);
  });
  double tCopy = best(copyStacked);
  double tTransposed = best([&] {
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, m, n, k, 1.0f,
                at.data(), m, b.data(), n, 0.0f, c.data(), n);
  });
  double tTransposedCopy = best([&] {
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < k; ++j)
        packed[size_t(i) * k + j] = at[size_t(j) * m + i];
    gemm(packed.data(), k);
  });
  dnnl_dims_t packedStrides = {k, 1}, stackedStrides = {int64_t(k) * e, e};
  Matmul onednn(m, k, n, packedStrides, packed.data(), b.data(), c.data());
  Matmul onednnStacked(m, k, n, stackedStrides, stack.data() + column, b.data(),
                       c.data());
  double tOnednn = best([&] { onednn.run(); });
  char stacked[32] = "null";
  if (stackedOnednn)
    std::snprintf(stacked, sizeof stacked, "%.4g",
                  best([&] { onednnStacked.run(); }));
  std::printf("{\"m\": %d, \"k\": %d, \"n\": %d, \"e\": %d, \"seconds\": "
              "{\"packed\": %.4g, \"lda\": %.4g, \"lda+copy\": %.4g, "
              "\"stacked+copy\": %.4g, \"copy\": %.4g, \"transposed\": %.4g, "
              "\"transposed+copy\": %.4g, \"onednn\": %.4g, "
              "\"onednn-stacked\": %s}}\n",
              m, k, n, e, tPacked, tLda, tLdaCopy, tStackedCopy, tCopy,
              tTransposed, tTransposedCopy, tOnednn, stacked);
  return 0;
}
