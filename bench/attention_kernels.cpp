//===- attention_kernels.cpp - The fused CPU attention kernels' speed -----===//
//
// Part of the Echo project.
//
// Calls echo_attention_forward and echo_attention_backward through the CPU
// runtime (libEchoCpuRuntime.so) on random q, k, v and dout of [B, H, S, D]
// (Hkv = H, Dv = D), and, for scale, OpenBLAS's SGEMM through the runtime's
// echo_batched_gemm on the materialized scores' product [B·H, S, D] ·
// [B·H, D, S] and on a square 1024³ product (what its kernels reach). Prints
// one JSON object: each call's best time in seconds over the rounds, its
// GFLOP/s (FLOPs as FlashAttention-2 counts them: B·H·P·(2D + 2Dv) forward,
// B·H·P·(6D + 4Dv) backward, i.e. q·kᵀ and dout·vᵀ once, P the (i, j) pairs
// causal attention leaves; docs/Contract.md's cost model counts the
// two-pass backward's 8D + 6Dv), the SGEMMs', the same per second of
// CPU time (all threads: what a call cost on a machine shared with other
// work), and sums of out, lse, dq, dk and dv (to compare ISAs:
// $ECHO_CPU_ISA picks one).
//
// Build (from the repository root, after the runtime is built; one line):
//   clang++-22 -O2 -std=c++17 -Iinclude -I/usr/lib/llvm-22/include
//   bench/attention_kernels.cpp -Lbuild/lib -lEchoCpuRuntime
//   -Wl,-rpath,$PWD/build/lib -o build/bin/attention_kernels
// Usage: attention_kernels [B H S D [causal [dropout_ratio [rounds]]]]
//   (default 2 4 2048 64 1 0.1 3: bench/long_context.py's S = 2048 layer).
//
//===----------------------------------------------------------------------===//

#include "echo/Runtime/EchoRuntimeABI.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <time.h>
#include <vector>

extern "C" int echoCpuInit(void);
extern "C" const char *echoCpuGetError(void);

namespace {

EchoMemRef4D view4(std::vector<float> &data, int64_t b, int64_t h, int64_t s,
                   int64_t d) {
  EchoMemRef4D m;
  m.basePtr = m.data = data.data();
  m.offset = 0;
  int64_t sizes[4] = {b, h, s, d};
  int64_t stride = 1;
  for (int i = 3; i >= 0; --i) {
    m.sizes[i] = sizes[i];
    m.strides[i] = stride;
    stride *= sizes[i];
  }
  return m;
}

EchoMemRef3D view3(std::vector<float> &data, int64_t a, int64_t b, int64_t c) {
  EchoMemRef3D m;
  m.basePtr = m.data = data.data();
  m.offset = 0;
  m.sizes[0] = a;
  m.sizes[1] = b;
  m.sizes[2] = c;
  m.strides[0] = b * c;
  m.strides[1] = c;
  m.strides[2] = 1;
  return m;
}

int64_t bitsOf(double x) {
  int64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

double processSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/// The best wall time over the rounds, and the CPU time (all threads) of
/// that round: on a machine shared with other work, CPU time is what the
/// call itself cost.
struct Timing {
  double wall = 1e30, cpu = 0;
};

template <typename F> Timing best(int rounds, F &&call) {
  Timing bestTime;
  for (int r = 0; r < rounds; ++r) {
    double cpuStart = processSeconds();
    auto start = std::chrono::steady_clock::now();
    call();
    std::chrono::duration<double> t = std::chrono::steady_clock::now() - start;
    if (t.count() < bestTime.wall)
      bestTime = {t.count(), processSeconds() - cpuStart};
  }
  return bestTime;
}

double sum(const std::vector<float> &x) {
  double s = 0;
  for (float v : x)
    s += v;
  return s;
}

} // namespace

int main(int argc, char **argv) {
  int64_t B = 2, H = 4, S = 2048, D = 64;
  int causal = 1, rounds = 3;
  double ratio = 0.1;
  if (argc > 1 && argc < 5) {
    std::fprintf(stderr, "usage: attention_kernels [B H S D [causal "
                         "[dropout_ratio [rounds]]]]\n");
    return 1;
  }
  if (argc >= 5) {
    B = std::atoll(argv[1]);
    H = std::atoll(argv[2]);
    S = std::atoll(argv[3]);
    D = std::atoll(argv[4]);
  }
  if (argc >= 6)
    causal = std::atoi(argv[5]);
  if (argc >= 7)
    ratio = std::atof(argv[6]);
  if (argc >= 8)
    rounds = std::atoi(argv[7]);
  if (B < 1 || H < 1 || S < 1 || D < 1 || rounds < 1 || ratio < 0 ||
      ratio >= 1) {
    std::fprintf(stderr, "attention_kernels: bad sizes or attributes\n");
    return 1;
  }
  if (echoCpuInit() != 0) {
    std::fprintf(stderr, "attention_kernels: %s\n", echoCpuGetError());
    return 1;
  }
  size_t n = static_cast<size_t>(B * H * S * D);
  std::mt19937 gen(1);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> q(n), k(n), v(n), dout(n), out(n), dq(n), dk(n), dv(n),
      lse(static_cast<size_t>(B * H * S)), bias(1, 0.0f);
  for (auto *x : {&q, &k, &v, &dout})
    for (float &e : *x)
      e = normal(gen);
  EchoMemRef4D mq = view4(q, B, H, S, D), mk = view4(k, B, H, S, D),
               mv = view4(v, B, H, S, D), mdout = view4(dout, B, H, S, D),
               mout = view4(out, B, H, S, D), mdq = view4(dq, B, H, S, D),
               mdk = view4(dk, B, H, S, D), mdv = view4(dv, B, H, S, D),
               mbias = view4(bias, 1, 1, 1, 1);
  EchoMemRef3D mlse = view3(lse, B, H, S);
  int64_t seedValue = 7;
  EchoMemRefSeed seed;
  seed.basePtr = seed.data = &seedValue;
  seed.offset = 0;
  int64_t scale = bitsOf(1.0 / std::sqrt(static_cast<double>(D)));
  int64_t ratioBits = bitsOf(ratio);

  Timing forward = best(rounds, [&] {
    _mlir_ciface_echo_attention_forward(&mq, &mk, &mv, &mbias, &seed, &mout,
                                        &mlse, scale, causal, ratioBits, 3, 1);
  });
  Timing backward = best(rounds, [&] {
    _mlir_ciface_echo_attention_backward(&mq, &mk, &mv, &mout, &mlse, &mdout,
                                         &mbias, &seed, &mdq, &mdk, &mdv, scale,
                                         causal, ratioBits, 3, 1);
  });
  // The materialized scores' GEMM: [B·H, S, D] · [B·H, S, D]ᵀ.
  std::vector<float> scores(static_cast<size_t>(B * H * S * S));
  EchoMemRef3D ga = view3(q, B * H, S, D), gb = view3(k, B * H, S, D),
               gc = view3(scores, B * H, S, S);
  Timing gemm = best(
      rounds, [&] { _mlir_ciface_echo_batched_gemm(&ga, &gb, &gc, 0, 1, 0); });
  const int64_t n3 = 1024;
  std::vector<float> sa(n3 * n3, 0.5f), sb(n3 * n3, 0.25f), sc(n3 * n3);
  EchoMemRef3D qa = view3(sa, 1, n3, n3), qb = view3(sb, 1, n3, n3),
               qc = view3(sc, 1, n3, n3);
  Timing square = best(
      rounds, [&] { _mlir_ciface_echo_batched_gemm(&qa, &qb, &qc, 0, 0, 0); });
  double squareFlops = 2.0 * n3 * n3 * n3;
  if (const char *error = echoCpuGetError()) {
    std::fprintf(stderr, "attention_kernels: %s\n", error);
    return 1;
  }
  double pairs = causal ? S * (S + 1) / 2.0 : double(S) * S;
  double forwardFlops = B * H * pairs * (2.0 * D + 2.0 * D);
  double backwardFlops = B * H * pairs * (6.0 * D + 4.0 * D);
  double gemmFlops = 2.0 * B * H * double(S) * S * D;
  const char *isa = std::getenv("ECHO_CPU_ISA");
  std::printf(
      "{\"B\": %lld, \"H\": %lld, \"S\": %lld, \"D\": %lld, \"causal\": %d, "
      "\"dropout\": %g, \"isa_override\": \"%s\",\n"
      " \"forward_s\": %.6f, \"forward_cpu_s\": %.6f, \"forward_gflops\": "
      "%.2f,\n"
      " \"backward_s\": %.6f, \"backward_cpu_s\": %.6f, \"backward_gflops\": "
      "%.2f,\n"
      " \"sgemm_s\": %.6f, \"sgemm_cpu_s\": %.6f, \"sgemm_gflops\": %.2f,\n"
      " \"sgemm_1024_s\": %.6f, \"sgemm_1024_gflops\": %.2f,\n"
      " \"gflops_per_cpu_s\": {\"forward\": %.2f, \"backward\": %.2f, "
      "\"sgemm\": %.2f, \"sgemm_1024\": %.2f},\n"
      " \"sums\": {\"out\": %.9g, \"lse\": %.9g, \"dq\": %.9g, \"dk\": %.9g, "
      "\"dv\": %.9g}}\n",
      static_cast<long long>(B), static_cast<long long>(H),
      static_cast<long long>(S), static_cast<long long>(D), causal, ratio,
      isa ? isa : "", forward.wall, forward.cpu,
      forwardFlops / forward.wall * 1e-9, backward.wall, backward.cpu,
      backwardFlops / backward.wall * 1e-9, gemm.wall, gemm.cpu,
      gemmFlops / gemm.wall * 1e-9, square.wall,
      squareFlops / square.wall * 1e-9, forwardFlops / forward.cpu * 1e-9,
      backwardFlops / backward.cpu * 1e-9, gemmFlops / gemm.cpu * 1e-9,
      squareFlops / square.cpu * 1e-9, sum(out), sum(lse), sum(dq), sum(dk),
      sum(dv));
  return 0;
}
