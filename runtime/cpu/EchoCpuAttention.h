//===- EchoCpuAttention.h - Fused attention's kernels, per ISA --*- C++ -*-===//
//
// Part of the Echo project.
//
// What EchoCpuAttention.cpp (the entry points, which choose an ISA once) and
// the tile kernels (EchoCpuAttentionKernels.inc, compiled once per ISA into
// EchoCpuAttention<Isa>.cpp) share. Only plain data crosses between them:
// a translation unit compiled with -mavx2 must share no inline function
// with the baseline ones, whose out-of-line copy the linker could pick for
// every caller.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNTIME_CPU_ECHOCPUATTENTION_H
#define ECHO_RUNTIME_CPU_ECHOCPUATTENTION_H

#include <cstddef>
#include <cstdint>

namespace echo_cpu_runtime {

/// Records (and prints, once) the first error (EchoCpuRuntimeImpl.h).
void fail(const char *format, ...) __attribute__((format(printf, 1, 2)));
void failOutOfMemory(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

namespace attention {

/// A strided f32 buffer of rank ≤ 4, indexed (b, h, row, col); a dim of
/// size 1 (the bias's broadcast dims) has stride 0.
struct Strided {
  float *data;
  int64_t strides[4];
};

/// One call's operands, sizes and attributes.
struct Problem {
  Strided q, k, v, bias, out, dout, dq, dk, dv;
  /// lse [B, H, S]: strides in strides[0..2].
  Strided lse;
  int64_t batch, heads, len, dim, kvHeads, keys, vdim, group;
  float scale;
  bool causal;
  /// Dropout where ratio > 0: echo.dropout's generator (EchoDropoutBits.h)
  /// of `seed` and the step's seed, each kept element scaled by keepScale.
  double ratio;
  float keepScale;
  int64_t seed, stepSeed;
  bool hasStepSeed;
};

/// The kernels of one ISA; each runs work items [begin, end) of a
/// `const Problem *` (echo_cpu_parallel_for's body).
struct Kernels {
  const char *isa;
  /// Forward, by (b, h, query block).
  void (*forward)(void *, int64_t, int64_t);
  /// Backward in two passes: dq by (b, h, query block), then dk and dv by
  /// (b, key head, key block).
  void (*backwardQueries)(void *, int64_t, int64_t);
  void (*backwardKeys)(void *, int64_t, int64_t);
  /// Backward in one pass by (b, key head): dq accumulated in place in the
  /// dq buffer, key block after key block in the order the two-pass scheme
  /// sums them, so that both give the same bits.
  void (*backwardOnePass)(void *, int64_t, int64_t);
};

/// `bytes` (a multiple of 64), 64-byte aligned, from the runtime's
/// workspace allocator (echoCpuSetAllocator), so that a driver counts the
/// tiles with the step's other bytes; null (with the out-of-memory error
/// recorded) when it has none left. Callable from any thread.
float *allocateTiles(size_t bytes);
void releaseTiles(float *tiles);

/// Queries and keys per tile.
constexpr int64_t kRows = 64;
constexpr int64_t kCols = 64;

} // namespace attention
} // namespace echo_cpu_runtime

#define ECHO_DECLARE_ATTENTION_KERNELS(isa)                                    \
  namespace echo_cpu_runtime::attention::isa {                                 \
  extern const Kernels kernels;                                                \
  }

ECHO_DECLARE_ATTENTION_KERNELS(baseline)
ECHO_DECLARE_ATTENTION_KERNELS(avx2)
ECHO_DECLARE_ATTENTION_KERNELS(avx512)

#undef ECHO_DECLARE_ATTENTION_KERNELS

#endif // ECHO_RUNTIME_CPU_ECHOCPUATTENTION_H
