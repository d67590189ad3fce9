//===- RuntimeState.h - What the CUDA runtime's files share -----*- C++ -*-===//
//
// Part of the Echo project.
//
// Private to libEchoCudaRuntime.so: the function tables of the libraries it
// opens with dlopen, the runtime's one global state, the sticky error and
// the helpers every part uses (see EchoCudaRuntime.h for the behaviour).
//   EchoCudaRuntime.cpp  errors, state, init, memory, mgpu* and host API;
//   Libraries.cpp        dlopen and dlsym of the driver, cuBLAS and cuDNN;
//   LibraryCalls.cpp     the _mlir_ciface_echo_* calls on cuBLAS and cuDNN;
//   HostPool.cpp         the transfer calls: pinned host pool, copy stream.
// Everything here has hidden visibility (the library is built with
// -fvisibility=hidden); only ECHO_EXPORT functions are exported.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNTIME_CUDA_RUNTIMESTATE_H
#define ECHO_RUNTIME_CUDA_RUNTIMESTATE_H

#include <cublas_v2.h>
#include <cuda.h>
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

/// An entry point of the library: C linkage, default visibility.
#define ECHO_EXPORT extern "C" __attribute__((visibility("default")))

namespace echo::cuda {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// Set by the first fail(); every entry point checks it and returns early.
extern bool hasError;

/// Records and prints ("echo-cuda: ...") the first error; later calls do
/// nothing (errors are sticky).
void fail(const char *format, ...) __attribute__((format(printf, 1, 2)));

//===----------------------------------------------------------------------===//
// Libraries
//===----------------------------------------------------------------------===//

/// Declares the member `name`: a pointer to the toolkit's function `name`,
/// typed by its prototype in the toolkit's header. The prototype is named
/// with a qualified name because the member has the same name: GCC rejects
/// the unqualified `decltype(&name) name` ("declaration changes meaning of
/// 'name'", [basic.scope.class]); a qualified name is not subject to that
/// rule. A versioned name (cuMemAlloc -> cuMemAlloc_v2) is expanded by the
/// header's macro on both sides, and looked up by dlsym under that name.
#define ECHO_FN(name) decltype(&::name) name = nullptr;

/// The CUDA driver (libcuda.so.1).
struct Driver {
  ECHO_FN(cuInit)
  ECHO_FN(cuGetErrorName)
  ECHO_FN(cuDeviceGetCount)
  ECHO_FN(cuDeviceGet)
  ECHO_FN(cuDeviceGetName)
  ECHO_FN(cuDeviceGetAttribute)
  ECHO_FN(cuDevicePrimaryCtxRetain)
  ECHO_FN(cuCtxSetCurrent)
  ECHO_FN(cuModuleLoadData)
  ECHO_FN(cuModuleUnload)
  ECHO_FN(cuModuleGetFunction)
  ECHO_FN(cuLaunchKernel)
  ECHO_FN(cuStreamCreate)
  ECHO_FN(cuStreamSynchronize)
  ECHO_FN(cuMemAlloc)
  ECHO_FN(cuMemFree)
  ECHO_FN(cuMemAllocHost)
  ECHO_FN(cuMemFreeHost)
  ECHO_FN(cuMemcpyDtoHAsync)
  ECHO_FN(cuMemcpyHtoDAsync)
  ECHO_FN(cuStreamWaitEvent)
  ECHO_FN(cuMemGetInfo)
  ECHO_FN(cuMemcpyAsync)
  ECHO_FN(cuMemcpyHtoD)
  ECHO_FN(cuMemcpyDtoH)
  ECHO_FN(cuMemsetD32Async)
  ECHO_FN(cuMemsetD16Async)
  ECHO_FN(cuEventCreate)
  ECHO_FN(cuEventRecord)
  ECHO_FN(cuEventSynchronize)
  ECHO_FN(cuEventElapsedTime)
  ECHO_FN(cuStreamBeginCapture)
  ECHO_FN(cuStreamEndCapture)
  ECHO_FN(cuGraphInstantiate)
  ECHO_FN(cuGraphLaunch)
  ECHO_FN(cuGraphExecDestroy)
  ECHO_FN(cuGraphDestroy)
  /// Optional: null where the driver has none (before CUDA 12.4).
  ECHO_FN(cuFuncGetParamInfo)

  bool missing(const char *name);
  /// Opens the driver and looks up every function; false (and an error)
  /// when the driver or one of its functions is missing.
  bool load();
};

/// cuBLAS.
struct Blas {
  ECHO_FN(cublasCreate)
  ECHO_FN(cublasSetStream)
  ECHO_FN(cublasSgemm)
  ECHO_FN(cublasSgemmStridedBatched)
  ECHO_FN(cublasGetStatusName)
  // The 16-bit GEMMs. cublas_api.h also has C++ overloads of these two
  // (taking a cudaDataType compute type), so the C functions' types are
  // spelled out rather than taken with decltype.
  cublasStatus_t (*cublasGemmEx)(cublasHandle_t, cublasOperation_t,
                                 cublasOperation_t, int, int, int, const void *,
                                 const void *, cudaDataType, int, const void *,
                                 cudaDataType, int, const void *, void *,
                                 cudaDataType, int, cublasComputeType_t,
                                 cublasGemmAlgo_t) = nullptr;
  cublasStatus_t (*cublasGemmStridedBatchedEx)(
      cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
      const void *, const void *, cudaDataType, int, long long, const void *,
      cudaDataType, int, long long, const void *, void *, cudaDataType, int,
      long long, int, cublasComputeType_t, cublasGemmAlgo_t) = nullptr;

  bool missing(const char *name);
  bool load();
};

/// cuDNN.
struct Dnn {
  ECHO_FN(cudnnCreate)
  ECHO_FN(cudnnSetStream)
  ECHO_FN(cudnnGetErrorString)
  ECHO_FN(cudnnCreateTensorDescriptor)
  ECHO_FN(cudnnDestroyTensorDescriptor)
  ECHO_FN(cudnnSetTensor4dDescriptorEx)
  ECHO_FN(cudnnCreateFilterDescriptor)
  ECHO_FN(cudnnDestroyFilterDescriptor)
  ECHO_FN(cudnnSetFilter4dDescriptor)
  ECHO_FN(cudnnCreateConvolutionDescriptor)
  ECHO_FN(cudnnDestroyConvolutionDescriptor)
  ECHO_FN(cudnnSetConvolution2dDescriptor)
  ECHO_FN(cudnnSetConvolutionMathType)
  ECHO_FN(cudnnSetConvolutionGroupCount)
  ECHO_FN(cudnnGetConvolutionForwardAlgorithm_v7)
  ECHO_FN(cudnnGetConvolutionForwardWorkspaceSize)
  ECHO_FN(cudnnConvolutionForward)
  ECHO_FN(cudnnGetConvolutionBackwardDataAlgorithm_v7)
  ECHO_FN(cudnnGetConvolutionBackwardDataWorkspaceSize)
  ECHO_FN(cudnnConvolutionBackwardData)
  ECHO_FN(cudnnGetConvolutionBackwardFilterAlgorithm_v7)
  ECHO_FN(cudnnGetConvolutionBackwardFilterWorkspaceSize)
  ECHO_FN(cudnnConvolutionBackwardFilter)

  bool missing(const char *name);
  bool load();
};

#undef ECHO_FN

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

/// Faults the runtime injects on request (ECHO_CUDA_FAULTS, a comma-separated
/// list; see EchoCudaRuntime.h), so that every error path can be exercised
/// on any machine, a real GPU included.
struct Faults {
  /// The device has this many bytes for the runtime (0: what it has).
  size_t deviceBytes = 0;
  /// The pinned host pool of offloaded values has this many bytes (0: what
  /// the driver gives).
  size_t hostBytes = 0;
  /// The n-th kernel launch (from 1) fails (0: none).
  long failLaunch = 0;
  /// cuBLAS / cuDNN cannot be opened.
  bool noBlas = false, noDnn = false;
  /// The device reports this compute capability (major < 0: its own).
  int ccMajor = -1, ccMinor = 0;

  /// Parses `spec`; false (and an error) on an unknown fault.
  bool parse(const char *spec);
};

struct Runtime {
  Faults faults;
  Driver cu;
  Blas blas;
  Dnn dnn;
  bool initialized = false;
  bool syncEachLaunch = false;
  int device = 0;
  /// Compute capability of the device.
  int ccMajor = 0, ccMinor = 0;
  /// Kernel launches so far.
  long launches = 0;
  char deviceName[256] = "";
  CUstream stream = nullptr;
  CUevent timerStart = nullptr, timerStop = nullptr;
  cublasHandle_t blasHandle = nullptr;
  cudnnHandle_t dnnHandle = nullptr;
  CUdeviceptr workspace = 0;
  size_t workspaceBytes = 0;
  size_t liveBytes = 0, peakBytes = 0;
  std::unordered_map<uintptr_t, size_t> allocations;
  std::unordered_map<CUfunction, std::string> kernelNames;
};

/// The runtime (one per process).
extern Runtime rt;
/// Serializes the driver's and the libraries' initialization.
extern std::mutex initMutex;

/// The CUresult's name, or its number when the driver does not know it
/// (the toolkit's stub library answers every call with error 34).
const char *errorName(CUresult result);

/// Checks a driver call; `what` says which.
bool check(CUresult result, const char *what);

/// The switch `name` (ECHO_CUDA_SYNC, ECHO_CUDA_PROFILE, ECHO_CUDA_GRAPH):
/// true when it is 1; false when unset, empty or 0; any other value is an
/// error naming it (and false).
bool envFlag(const char *name);

/// Loads the driver and makes `device` current (once).
bool init(int device);

/// Makes sure the runtime is up (kernels' module constructors may run
/// before the driver program calls echoCudaInit).
bool ready();

/// Device memory counted in the runtime's peak; `what` names the buffer in
/// an out-of-memory error.
void *allocate(size_t bytes, const char *what);
/// Device bytes free now: the driver's free memory, or what is left of
/// ECHO_CUDA_FAULTS=device-bytes; the total in `totalBytes` when given.
size_t deviceFreeBytes(size_t *totalBytes = nullptr);
void release(void *ptr);

/// Frees the pinned host pool of offloaded values (HostPool.cpp).
void releaseHostPool();

//===----------------------------------------------------------------------===//
// Profile (Profile.cpp; ECHO_CUDA_PROFILE=1)
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Step graphs (EchoCudaRuntime.cpp; ECHO_CUDA_GRAPH=1)
//===----------------------------------------------------------------------===//

/// True while a captured step is replayed: the step's host code still
/// runs, but its launches, library calls and copies are already in the
/// graph, so they do nothing.
bool replayingStep();
/// While a step is captured or replayed, adds `bytes` at `data` (a launch's
/// kernel, dimensions and arguments, a library call's or a copy's buffers)
/// to what the step does; a replay that does otherwise than the captured
/// step (other buffers, another step) is an error instead of a replay of
/// the wrong work.
void noteStepWork(const void *data, size_t bytes);
/// The same for a kernel launch: its function, grid, block and arguments.
void noteStepLaunch(CUfunction function, const intptr_t dims[6], void **params,
                    size_t paramsCount);
/// Drops the captured step (echoCudaReleaseWorkspaces): the next step
/// started is captured anew at its second run.
void releaseStepGraph();

/// True when ECHO_CUDA_PROFILE asks for device times.
bool profiling();
/// Brackets one launch or library call on the runtime's stream: `kind`
/// ("kernel" or "library"), its `name` and the `shape` it ran on (a
/// kernel's grid and block, a call's sizes) key its totals.
void profileBegin(const std::string &kind, const std::string &name,
                  const std::string &shape);
void profileEnd();
/// Adds the brackets' times to their totals; the stream must be idle.
void profileCollect();
/// A step starts (echoCudaTimerStart): at the second, the first step's
/// totals are dropped.
void profileStepStarts();

/// A bracket around the calls in its scope when profiling.
class ProfileScope {
public:
  ProfileScope(const char *kind, const char *name, const std::string &shape) {
    if ((active = profiling()))
      profileBegin(kind, name, shape);
  }
  ~ProfileScope() {
    if (active)
      profileEnd();
  }

private:
  bool active;
};

} // namespace echo::cuda

#endif // ECHO_RUNTIME_CUDA_RUNTIMESTATE_H
