//===- EchoCudaRuntime.h - Host API of the Echo CUDA runtime ------*- C -*-===//
//
// Part of the Echo project.
//
// libEchoCudaRuntime.so runs a training step compiled with
// `echo-pipeline target=nvvm`. It exports
//   - the mgpu* entry points that MLIR 22's gpu-to-llvm host code calls
//     (module load, kernel launch, streams, memory), over the CUDA driver;
//   - `_mlir_ciface_echo_*`, the cuBLAS/cuDNN calls that echo-library-calls
//     emits for GEMMs and convolutions;
//   - the host API below, for the program that drives the step (echo-run
//     --target=cuda, or an ahead-of-time executable).
// libcuda, libcublas and libcudnn are opened at run time (dlopen), so the
// library builds and links on machines without a GPU or a driver; the
// first call reports what is missing.
//
// Fault injection: ECHO_CUDA_FAULTS, a comma-separated list, makes the
// runtime fail as a real device, driver or library would, so that each
// error path runs on any machine (with a GPU, or with the host-memory fake
// driver of the tests):
//   device-bytes=N            the device has N bytes for the step (an
//                             allocation past them is out of memory);
//   host-bytes=N              the pinned host pool of offloaded values has
//                             N bytes (an offload past them is out of
//                             pinned host memory);
//   fail-launch=N             the N-th kernel launch (from 1) fails;
//   no-cublas, no-cudnn       the library cannot be opened;
//   compute-capability=M.m    the device reports compute capability M.m.
// An unreadable list is itself an error at initialization.
//
// Errors are sticky: the first failure is printed once ("echo-cuda: ...")
// and kept; every later entry point returns without touching the device,
// and echoCudaGetError() returns the message (NULL while all is well).
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNTIME_CUDA_ECHOCUDARUNTIME_H
#define ECHO_RUNTIME_CUDA_ECHOCUDARUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Opens the driver and the libraries, makes `device`'s primary context
/// current and creates the runtime's stream. Returns 0 on success.
int echoCudaInit(int device);
/// The first error, or NULL.
const char *echoCudaGetError(void);
/// The device's name ("" before a successful echoCudaInit).
const char *echoCudaDeviceName(void);
/// Checks that the device runs kernels compiled for `chip` ("sm_90"; the
/// pipeline's chip=): 0 if so, else 1 and an error naming the device's
/// compute capability.
int echoCudaRequireChip(const char *chip);

/// Device memory, counted in the runtime's peak. On failure (out of
/// memory: requested vs free bytes) returns NULL and records the error.
void *echoCudaMalloc(size_t bytes);
void echoCudaFree(void *ptr);
/// Synchronous copies.
int echoCudaCopyToDevice(void *dst, const void *src, size_t bytes);
int echoCudaCopyToHost(void *dst, const void *src, size_t bytes);
/// Waits for the runtime's stream; reports a kernel fault as an error.
int echoCudaSynchronize(void);

/// Peak of the device bytes the runtime holds at once (allocations,
/// library workspaces) since echoCudaResetPeak().
size_t echoCudaPeakBytes(void);
/// The host pool of offloaded values (echo_offload_*): the pinned bytes it
/// holds, and the most bytes in use at once (a copy is in use from its
/// offload to the wait of its fetch).
size_t echoCudaHostPoolBytes(void);
/// The convolution algorithms the runtime chose so far, as a JSON array:
/// per direction, convolution and algorithm, its workspace bytes, the
/// device bytes free when it was chosen, whether it fit them, and how many
/// calls used it. Valid until the next call.
const char *echoCudaConvAlgorithms(void);
/// With ECHO_CUDA_PROFILE=1 the runtime times each kernel launch and each
/// cuBLAS/cuDNN call on the device (events around it; Profile.cpp). The
/// totals so far, as a JSON array slowest first: per kernel (kind "kernel",
/// its name, shape "grid XxYxZ block XxYxZ") or library call (kind
/// "library", the function, its sizes), the calls and their milliseconds,
/// over every step after the first when more than one ran (steps start
/// with echoCudaTimerStart; the first loads kernels and libraries). NULL
/// when not profiling. Valid until the next call.
const char *echoCudaKernelProfile(void);
/// With ECHO_CUDA_GRAPH=1 the runtime captures the second step into a CUDA
/// graph and replays it for every later step (one cuGraphLaunch instead of
/// the step's thousands of launches; the first step loads modules and
/// libraries). A driver must start and end each step with
/// echoCudaTimerStart/Stop and keep the step's device buffers from step to
/// step; echoCudaReleaseWorkspaces drops the graph (call it when done
/// with a step, before another). Not with ECHO_CUDA_PROFILE nor with a step
/// that offloads. What
/// happened: "off", "not captured yet", "replayed N steps" or "not used:
/// <why>". A capture that fails is an error.
const char *echoCudaGraphStatus(void);
/// Frees what the runtime holds between steps: the library workspace and
/// the pinned host pool (both grow again if another step runs). A driver
/// calls it when it is done with the step, before the process exits.
void echoCudaReleaseWorkspaces(void);
size_t echoCudaHostPoolPeakBytes(void);
void echoCudaResetPeak(void);
/// Device memory in use by the whole process (cuMemGetInfo), bytes.
size_t echoCudaDeviceUsedBytes(void);

/// Times work on the runtime's stream: returns milliseconds between the
/// previous echoCudaTimerStart() and now (synchronizes).
void echoCudaTimerStart(void);
double echoCudaTimerStop(void);

#ifdef __cplusplus
}
#endif

#endif // ECHO_RUNTIME_CUDA_ECHOCUDARUNTIME_H
