//===- EchoCpuAttention.cpp - Fused attention on the CPU ------------------===//
//
// Part of the Echo project.
//
// echo_attention_forward and echo_attention_backward: FlashAttention-2 on
// the CPU. The scores are computed by tiles of kRows queries × kCols keys in
// thread-private buffers and never stored whole: the forward keeps a running
// maximum and sum per row (online softmax) and writes only the output and
// each row's log-sum-exp; the backward rebuilds each tile of probabilities
// from the log-sum-exp. Tiles fully above the diagonal of a causal attention
// are skipped. Everything accumulates in f32. Each tile product (q·kᵀ, P·v,
// dout·vᵀ, dS·k, Pᵀ·dout, dSᵀ·q) is a GEMM of register-blocked micro tiles;
// dropout scales a tile of probabilities once.
//
// The tile kernels (EchoCpuAttentionKernels.inc) are compiled once per ISA
// (baseline, AVX2 + FMA, AVX-512 where the compiler has the flags); the
// best one the CPU runs is chosen once, or the one $ECHO_CPU_ISA names.
//
// Work is split across the runtime's threads (echo_cpu_parallel_for): the
// forward by (batch, head, query block). The backward runs in one pass by
// (batch, key head) where there are at least as many of those as threads: for
// each key block in turn, every query block that sees it, dk and dv summed in
// the thread's tiles, dq's partial sums accumulated in place in the dq buffer
// (no scratch beyond thread-private tiles, which every part takes from the
// runtime's workspace allocator, echoCpuSetAllocator, and gives back: a driver
// counts them in the measured peak; running out is the runtime's out-of-memory
// error). Elsewhere it runs in two passes that compute each tile's
// probabilities twice: dq by (batch, head, query block), then dk and dv by
// (batch, key head, key block). Both schemes sum every element in the same
// order, so they give the same bits and no result depends on the thread count.
// Dropout draws echo.dropout's keep decisions (EchoDropoutBits.h) for element
// [b, h, i, j] of a [B,H,S,Sk] tensor, which the backward draws again.
//
//===----------------------------------------------------------------------===//

#include "EchoCpuAttention.h"
#include "EchoCpuRuntimeImpl.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace echo_cpu_runtime {
namespace {

using attention::Kernels;
using attention::Problem;
using attention::Strided;

double fromBits(int64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

/// Whether this CPU runs the AVX2 + FMA and the AVX-512 kernels.
bool cpuHasAvx2() {
#if defined(__x86_64__) && defined(ECHO_CPU_ATTENTION_AVX2)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

bool cpuHasAvx512() {
#if defined(__x86_64__) && defined(ECHO_CPU_ATTENTION_AVX512)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512dq");
#else
  return false;
#endif
}

/// The kernels of the best ISA this CPU runs, or of the one $ECHO_CPU_ISA
/// names (baseline, avx2, avx512), chosen once; null (an error) where it
/// names an unknown ISA or one this CPU (or this build) does not run.
const Kernels *chooseKernels() {
  static const Kernels *chosen = []() -> const Kernels * {
    struct Choice {
      const char *name;
      bool runs;
      const Kernels *kernels;
    };
    const Choice choices[] = {
        {"baseline", true, &attention::baseline::kernels},
        {"avx2", cpuHasAvx2(), &attention::avx2::kernels},
        {"avx512", cpuHasAvx512(), &attention::avx512::kernels}};
    std::string runs;
    const Kernels *best = nullptr;
    for (const Choice &c : choices)
      if (c.runs) {
        runs += runs.empty() ? c.name : std::string(", ") + c.name;
        best = c.kernels;
      }
    const char *text = std::getenv("ECHO_CPU_ISA");
    if (!text || !*text)
      return best;
    for (const Choice &c : choices) {
      if (std::strcmp(text, c.name) != 0)
        continue;
      if (c.runs)
        return c.kernels;
      fail("$ECHO_CPU_ISA is '%s', which this CPU or this build does not run "
           "(it runs: %s)",
           text, runs.c_str());
      return nullptr;
    }
    fail("$ECHO_CPU_ISA is '%s': not one of baseline, avx2, avx512 (unset it "
         "for the best this CPU runs: %s)",
         text, runs.c_str());
    return nullptr;
  }();
  return chosen;
}

/// How the backward runs: in one pass by (batch, key head), in two passes,
/// or (Auto) in one pass where there are at least as many (batch, key head)
/// pairs as threads. $ECHO_CPU_ATTENTION_BACKWARD (one-pass, two-pass)
/// forces one; both give the same bits.
enum class Scheme { Auto, OnePass, TwoPass, Invalid };

Scheme backwardScheme() {
  static const Scheme scheme = [] {
    const char *text = std::getenv("ECHO_CPU_ATTENTION_BACKWARD");
    if (!text || !*text)
      return Scheme::Auto;
    if (!std::strcmp(text, "one-pass"))
      return Scheme::OnePass;
    if (!std::strcmp(text, "two-pass"))
      return Scheme::TwoPass;
    fail("$ECHO_CPU_ATTENTION_BACKWARD is '%s': not one-pass or two-pass "
         "(unset it to choose by the work's parallelism)",
         text);
    return Scheme::Invalid;
  }();
  return scheme;
}

Strided strided(EchoMemRef4D *m) {
  Strided s;
  s.data = m->data + m->offset;
  for (int d = 0; d < 4; ++d)
    // A broadcast dim (the bias's dims of size 1) is read at index 0.
    s.strides[d] = m->sizes[d] == 1 ? 0 : m->strides[d];
  return s;
}

Strided strided(EchoMemRef3D *m) {
  Strided s;
  s.data = m->data + m->offset;
  for (int d = 0; d < 3; ++d)
    s.strides[d] = m->strides[d];
  s.strides[3] = 0;
  return s;
}

Problem problem(EchoMemRef4D *q, EchoMemRef4D *k, EchoMemRef4D *v,
                EchoMemRef4D *bias, EchoMemRefSeed *stepSeed, int64_t scaleBits,
                int64_t causal, int64_t ratioBits, int64_t seed,
                int64_t hasStepSeed) {
  Problem p{};
  p.q = strided(q);
  p.k = strided(k);
  p.v = strided(v);
  p.bias = strided(bias);
  p.batch = q->sizes[0];
  p.heads = q->sizes[1];
  p.len = q->sizes[2];
  p.dim = q->sizes[3];
  p.kvHeads = k->sizes[1];
  p.keys = k->sizes[2];
  p.vdim = v->sizes[3];
  p.group = k->sizes[1] ? q->sizes[1] / k->sizes[1] : 1;
  p.scale = static_cast<float>(fromBits(scaleBits));
  p.causal = causal != 0;
  p.ratio = fromBits(ratioBits);
  p.keepScale = static_cast<float>(1.0 / (1.0 - p.ratio));
  p.seed = seed;
  p.hasStepSeed = hasStepSeed != 0;
  p.stepSeed = hasStepSeed ? stepSeed->data[stepSeed->offset] : 0;
  return p;
}

} // namespace

bool attentionReady() {
  return chooseKernels() && backwardScheme() != Scheme::Invalid;
}

float *attention::allocateTiles(size_t bytes) {
  void *tiles = nullptr;
  if (rt.allocate)
    tiles = rt.allocate(64, bytes);
  else if (posix_memalign(&tiles, 64, bytes) != 0)
    tiles = nullptr;
  if (!tiles)
    failOutOfMemory("fused attention: cannot allocate %zu bytes of tiles",
                    bytes);
  return static_cast<float *>(tiles);
}

void attention::releaseTiles(float *tiles) {
  if (!tiles)
    return;
  if (rt.release)
    rt.release(tiles);
  else
    free(tiles);
}

} // namespace echo_cpu_runtime

using namespace echo_cpu_runtime;

ECHO_EXPORT void _mlir_ciface_echo_attention_forward(
    EchoMemRef4D *q, EchoMemRef4D *k, EchoMemRef4D *v, EchoMemRef4D *bias,
    EchoMemRefSeed *stepSeed, EchoMemRef4D *out, EchoMemRef3D *lse,
    int64_t scaleBits, int64_t causal, int64_t ratioBits, int64_t seed,
    int64_t hasStepSeed) {
  if (hasError)
    return;
  const Kernels *kernels = chooseKernels();
  if (!kernels)
    return;
  Problem p = problem(q, k, v, bias, stepSeed, scaleBits, causal, ratioBits,
                      seed, hasStepSeed);
  p.out = strided(out);
  p.lse = strided(lse);
  int64_t blocks = (p.len + attention::kRows - 1) / attention::kRows;
  echo_cpu_parallel_for(kernels->forward, &p, 0, p.batch * p.heads * blocks);
}

ECHO_EXPORT void _mlir_ciface_echo_attention_backward(
    EchoMemRef4D *q, EchoMemRef4D *k, EchoMemRef4D *v, EchoMemRef4D *out,
    EchoMemRef3D *lse, EchoMemRef4D *dout, EchoMemRef4D *bias,
    EchoMemRefSeed *stepSeed, EchoMemRef4D *dq, EchoMemRef4D *dk,
    EchoMemRef4D *dv, int64_t scaleBits, int64_t causal, int64_t ratioBits,
    int64_t seed, int64_t hasStepSeed) {
  if (hasError)
    return;
  const Kernels *kernels = chooseKernels();
  Scheme scheme = backwardScheme();
  if (!kernels || scheme == Scheme::Invalid)
    return;
  Problem p = problem(q, k, v, bias, stepSeed, scaleBits, causal, ratioBits,
                      seed, hasStepSeed);
  p.out = strided(out);
  p.lse = strided(lse);
  p.dout = strided(dout);
  p.dq = strided(dq);
  p.dk = strided(dk);
  p.dv = strided(dv);
  int64_t pairs = p.batch * p.kvHeads;
  if (scheme == Scheme::OnePass ||
      (scheme == Scheme::Auto && pairs >= kernelThreads())) {
    echo_cpu_parallel_for(kernels->backwardOnePass, &p, 0, pairs);
    return;
  }
  int64_t queryBlocks = (p.len + attention::kRows - 1) / attention::kRows;
  int64_t keyBlocks = (p.keys + attention::kCols - 1) / attention::kCols;
  echo_cpu_parallel_for(kernels->backwardQueries, &p, 0,
                        p.batch * p.heads * queryBlocks);
  echo_cpu_parallel_for(kernels->backwardKeys, &p, 0, pairs * keyBlocks);
}
