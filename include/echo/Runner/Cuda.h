//===- Cuda.h - Training steps on an NVIDIA GPU -----------------*- C++ -*-===//
//
// Part of the Echo project.
//
// The host side of `echo-run --target=cuda`: the Echo CUDA runtime's host
// API (runtime/cuda/EchoCudaRuntime.h), resolved at run time from the
// library the JIT-compiled step links against, and the device buffers of
// one step.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNNER_CUDA_H
#define ECHO_RUNNER_CUDA_H

#include "echo/Runner/HostTensor.h"
#include "echo/Runner/Jit.h"

#include <memory>

namespace mlir::echo {

/// The Echo CUDA runtime's host API.
class CudaRuntime {
public:
  CudaRuntime();
  ~CudaRuntime();

  /// Loads the library at `path`, initializes GPU 0 and checks that it runs
  /// kernels compiled for `chip`; reports what is missing (the library, its
  /// symbols, a driver, a GPU, a device new enough).
  LogicalResult load(StringRef path, StringRef chip);

  /// Reports the runtime's first error on stderr; returns failure.
  LogicalResult fail() const;
  /// The runtime's first error, or null.
  const char *getError() const;
  /// The GPU's name.
  const char *getDeviceName() const;
  /// The most device bytes the runtime held at once.
  size_t getPeakBytes() const;
  /// The host pool of offloaded values: the pinned bytes it holds, and the
  /// most bytes in use at once.
  size_t getHostPoolBytes() const;
  size_t getHostPoolPeakBytes() const;
  /// The convolution algorithms chosen so far (echoCudaConvAlgorithms: a
  /// JSON array).
  const char *getConvAlgorithms() const;
  /// Device time per kernel and library call (echoCudaKernelProfile: a JSON
  /// array), or null unless ECHO_CUDA_PROFILE=1.
  const char *getKernelProfile() const;
  /// What ECHO_CUDA_GRAPH did (echoCudaGraphStatus).
  const char *getGraphStatus() const;
  /// Frees the runtime's library workspace and pinned host pool.
  void releaseWorkspaces() const;

  /// Device memory; null on failure (see fail()).
  void *malloc(size_t bytes) const;
  void free(void *ptr) const;
  LogicalResult copyToDevice(void *dst, const void *src, size_t bytes) const;
  LogicalResult copyToHost(void *dst, const void *src, size_t bytes) const;
  /// Times the work between the two calls on the runtime's stream, in ms
  /// (negative on failure).
  void startTimer() const;
  double stopTimer() const;

private:
  struct Api;
  std::unique_ptr<Api> api;
};

/// The device copies of a step's arguments, results and arena.
class CudaStep {
public:
  CudaStep(const CudaRuntime &cuda, JitStep &step) : cuda(cuda), step(step) {}
  ~CudaStep();

  /// Allocates device buffers shaped like `hostArgs` and `hostOuts`, and an
  /// arena of `arenaBytes`.
  LogicalResult allocate(ArrayRef<HostTensor> hostArgs,
                         ArrayRef<HostTensor> hostOuts, int64_t arenaBytes);

  /// Uploads `hostArgs`, runs the step, downloads `hostOuts` and the
  /// arguments `updatedArgs` (those a step with an optimizer inside updates
  /// in place); `ms` is the device time of the step alone.
  LogicalResult call(MutableArrayRef<HostTensor> hostArgs,
                     MutableArrayRef<HostTensor> hostOuts, double &ms,
                     ArrayRef<unsigned> updatedArgs = {});

private:
  struct Buffer {
    void *ptr = nullptr;
    size_t bytes = 0;
    std::vector<int64_t> descriptor;
  };
  LogicalResult allocate(Buffer &b, size_t bytes,
                         const std::vector<int64_t> &shape);

  const CudaRuntime &cuda;
  JitStep &step;
  SmallVector<Buffer> args, outs;
  Buffer arena;
};

} // namespace mlir::echo

#endif // ECHO_RUNNER_CUDA_H
