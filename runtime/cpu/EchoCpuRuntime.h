//===- EchoCpuRuntime.h - Host API of the Echo CPU runtime --------*- C -*-===//
//
// Part of the Echo project.
//
// libEchoCpuRuntime.so runs the library calls of a training step compiled
// for target=cpu (`_mlir_ciface_echo_*`, declared in
// include/echo/Runtime/EchoRuntimeABI.h): GEMMs with OpenBLAS's cblas_sgemm
// and convolutions with oneDNN, the CPU counterparts of cuBLAS and cuDNN.
// Both libraries are opened at run time (dlopen), so a missing one is
// reported by name instead of failing to load the step. $ECHO_OPENBLAS_LIBRARY
// and $ECHO_DNNL_LIBRARY name other files to open (another BLAS with
// cblas_sgemm, a oneDNN 2.x build).
//
// Errors are sticky: the first failure is printed once ("echo-cpu: ...")
// and kept; every later call returns without computing, and
// echoCpuGetError() returns the message (NULL while all is well). A driver
// checks it after each step.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNTIME_CPU_ECHOCPURUNTIME_H
#define ECHO_RUNTIME_CPU_ECHOCPURUNTIME_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Opens OpenBLAS and oneDNN (the calls would otherwise open them on first
/// use) and reads $ECHO_HOST_POOL_LIMIT. Returns 0 on success.
int echoCpuInit(void);
/// The first error, or NULL.
const char *echoCpuGetError(void);
/// 1 when the first error is an allocation the runtime could not make
/// (its workspace, fused attention's tiles; the error reads "out of
/// memory: ..."), else 0.
int echoCpuErrorIsOutOfMemory(void);
/// Forgets the recorded error, so that the next step can run: for a driver
/// that abandons a step that ran out of memory and goes on.
void echoCpuClearError(void);
/// Bytes the libraries hold for the step now (oneDNN primitives' scratchpad
/// memory is the library's; this counts what the runtime allocated itself).
size_t echoCpuWorkspaceBytes(void);
/// The host pool of offloaded values (echo_offload_*): the most bytes it
/// held since the last reset, and what it holds now. It is separate from
/// the step's allocations (device memory on a GPU), and counted.
/// $ECHO_HOST_POOL_LIMIT caps it (a positive number of bytes; unset: no
/// cap; anything else is an error): an offload past it is an
/// out-of-host-memory error.
size_t echoCpuHostPoolPeakBytes(void);
size_t echoCpuHostPoolLiveBytes(void);
void echoCpuResetHostPoolPeak(void);
/// Makes the runtime take its workspace from `allocate(alignment, bytes)`
/// (null when out of memory) and give it back with `release`, so that a
/// driver counts it with the step's other bytes; both null: the C library.
/// Call it before the first step. Returns 0 on success, 1 when the runtime
/// already holds a workspace.
int echoCpuSetAllocator(void *(*allocate)(size_t alignment, size_t bytes),
                        void (*release)(void *p));

#ifdef __cplusplus
}
#endif

#endif // ECHO_RUNTIME_CPU_ECHOCPURUNTIME_H
