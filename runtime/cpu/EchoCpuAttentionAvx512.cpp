//===- EchoCpuAttentionAvx512.cpp - Attention's tiles for avx512 ----------===//
//
// Part of the Echo project.
//
// Fused attention's tile kernels (EchoCpuAttentionKernels.inc) compiled for
// -mavx512f -mavx512bw -mavx512vl -mavx512dq: micro tiles of 8 rows × two
// 512-bit vectors.
//
//===----------------------------------------------------------------------===//

#define ECHO_ATTENTION_ISA avx512
#define ECHO_ATTENTION_ISA_NAME "avx512"
#define ECHO_ATTENTION_VECTOR_BYTES 64
#define ECHO_ATTENTION_MICRO_ROWS 8
#include "EchoCpuAttentionKernels.inc"
