//===- EchoCpuAttentionBaseline.cpp - Attention's tiles for baseline ------===//
//
// Part of the Echo project.
//
// Fused attention's tile kernels (EchoCpuAttentionKernels.inc) compiled with
// the target's default flags (SSE2 on x86-64), the fallback on every CPU:
// micro tiles of 4 rows × two 128-bit vectors.
//
//===----------------------------------------------------------------------===//

#define ECHO_ATTENTION_ISA baseline
#define ECHO_ATTENTION_ISA_NAME "baseline"
#define ECHO_ATTENTION_VECTOR_BYTES 16
#define ECHO_ATTENTION_MICRO_ROWS 4
#include "EchoCpuAttentionKernels.inc"
