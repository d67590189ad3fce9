//===- EchoCpuAttentionAvx2.cpp - Attention's tiles for avx2 --------------===//
//
// Part of the Echo project.
//
// Fused attention's tile kernels (EchoCpuAttentionKernels.inc) compiled for
// -mavx2 -mfma: micro tiles of 6 rows × two 256-bit vectors.
//
//===----------------------------------------------------------------------===//

#define ECHO_ATTENTION_ISA avx2
#define ECHO_ATTENTION_ISA_NAME "avx2"
#define ECHO_ATTENTION_VECTOR_BYTES 32
#define ECHO_ATTENTION_MICRO_ROWS 6
#include "EchoCpuAttentionKernels.inc"
