//===- EchoCudaRuntime.cpp - Echo's CUDA runtime --------------------------===//
//
// Part of the Echo project.
//
// See EchoCudaRuntime.h. The driver, cuBLAS and cuDNN are opened with
// dlopen; their prototypes come from the toolkit's headers (decltype), so a
// symbol with a versioned name (cuMemAlloc -> cuMemAlloc_v2) is looked up
// under the name the header maps it to.
//
//===----------------------------------------------------------------------===//

#include "EchoCudaRuntime.h"

#include <cublas_v2.h>
#include <cuda.h>
#include <cudnn.h>

#include <dlfcn.h>

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#define ECHO_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

std::mutex errorMutex;
std::string firstError;
bool hasError = false;

void fail(const char *format, ...) __attribute__((format(printf, 1, 2)));
void fail(const char *format, ...) {
  std::lock_guard<std::mutex> lock(errorMutex);
  if (hasError)
    return;
  char buffer[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  firstError = buffer;
  hasError = true;
  fprintf(stderr, "echo-cuda: %s\n", buffer);
}

//===----------------------------------------------------------------------===//
// Libraries
//===----------------------------------------------------------------------===//

#define ECHO_STR2(x) #x
#define ECHO_STR(x) ECHO_STR2(x)
// A member named like the function whose type it takes: GCC rejects the
// unqualified `decltype(&name) name` ("declaration changes meaning of
// 'name'", [basic.scope.class]); a qualified name is not subject to that rule.
#define ECHO_FN(name) decltype(&::name) name = nullptr;
#define ECHO_LOAD(lib, name)                                                   \
  if (!(name = reinterpret_cast<decltype(name)>(dlsym(lib, ECHO_STR(name)))))  \
    return missing(ECHO_STR(name));

void *openFirst(std::initializer_list<const char *> names, std::string &tried) {
  for (const char *name : names) {
    if (void *handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL))
      return handle;
    tried += std::string(tried.empty() ? "" : ", ") + name;
  }
  return nullptr;
}

struct Driver {
  ECHO_FN(cuInit)
  ECHO_FN(cuGetErrorName)
  ECHO_FN(cuDeviceGetCount)
  ECHO_FN(cuDeviceGet)
  ECHO_FN(cuDeviceGetName)
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

  bool missing(const char *name) {
    fail("the CUDA driver library has no '%s' (driver too old for CUDA %d?)",
         name, CUDA_VERSION);
    return false;
  }

  bool load() {
    std::string tried;
    void *lib = openFirst({"libcuda.so.1", "libcuda.so"}, tried);
    if (!lib) {
      fail("no CUDA driver: cannot open %s (no NVIDIA GPU driver is "
           "installed on this machine)",
           tried.c_str());
      return false;
    }
    ECHO_LOAD(lib, cuInit)
    ECHO_LOAD(lib, cuGetErrorName)
    ECHO_LOAD(lib, cuDeviceGetCount)
    ECHO_LOAD(lib, cuDeviceGet)
    ECHO_LOAD(lib, cuDeviceGetName)
    ECHO_LOAD(lib, cuDevicePrimaryCtxRetain)
    ECHO_LOAD(lib, cuCtxSetCurrent)
    ECHO_LOAD(lib, cuModuleLoadData)
    ECHO_LOAD(lib, cuModuleUnload)
    ECHO_LOAD(lib, cuModuleGetFunction)
    ECHO_LOAD(lib, cuLaunchKernel)
    ECHO_LOAD(lib, cuStreamCreate)
    ECHO_LOAD(lib, cuStreamSynchronize)
    ECHO_LOAD(lib, cuMemAlloc)
    ECHO_LOAD(lib, cuMemFree)
    ECHO_LOAD(lib, cuMemGetInfo)
    ECHO_LOAD(lib, cuMemcpyAsync)
    ECHO_LOAD(lib, cuMemcpyHtoD)
    ECHO_LOAD(lib, cuMemcpyDtoH)
    ECHO_LOAD(lib, cuMemsetD32Async)
    ECHO_LOAD(lib, cuMemsetD16Async)
    ECHO_LOAD(lib, cuEventCreate)
    ECHO_LOAD(lib, cuEventRecord)
    ECHO_LOAD(lib, cuEventSynchronize)
    ECHO_LOAD(lib, cuEventElapsedTime)
    return true;
  }
};

struct Blas {
  ECHO_FN(cublasCreate)
  ECHO_FN(cublasSetStream)
  ECHO_FN(cublasSgemm)
  ECHO_FN(cublasSgemmStridedBatched)
  ECHO_FN(cublasGetStatusName)

  bool missing(const char *name) {
    fail("cuBLAS has no '%s'", name);
    return false;
  }
  bool load() {
    std::string tried;
    void *lib = openFirst(
        {"libcublas.so.13", "libcublas.so.12", "libcublas.so"}, tried);
    if (!lib) {
      fail("cannot open cuBLAS (%s): add its directory to LD_LIBRARY_PATH",
           tried.c_str());
      return false;
    }
    ECHO_LOAD(lib, cublasCreate)
    ECHO_LOAD(lib, cublasSetStream)
    ECHO_LOAD(lib, cublasSgemm)
    ECHO_LOAD(lib, cublasSgemmStridedBatched)
    ECHO_LOAD(lib, cublasGetStatusName)
    return true;
  }
};

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
  ECHO_FN(cudnnGetConvolutionForwardAlgorithm_v7)
  ECHO_FN(cudnnGetConvolutionForwardWorkspaceSize)
  ECHO_FN(cudnnConvolutionForward)
  ECHO_FN(cudnnGetConvolutionBackwardDataAlgorithm_v7)
  ECHO_FN(cudnnGetConvolutionBackwardDataWorkspaceSize)
  ECHO_FN(cudnnConvolutionBackwardData)
  ECHO_FN(cudnnGetConvolutionBackwardFilterAlgorithm_v7)
  ECHO_FN(cudnnGetConvolutionBackwardFilterWorkspaceSize)
  ECHO_FN(cudnnConvolutionBackwardFilter)

  bool missing(const char *name) {
    fail("cuDNN has no '%s'", name);
    return false;
  }
  bool load() {
    std::string tried;
    void *lib = openFirst({"libcudnn.so.9", "libcudnn.so"}, tried);
    if (!lib) {
      fail("cannot open cuDNN (%s): add its directory to LD_LIBRARY_PATH",
           tried.c_str());
      return false;
    }
    ECHO_LOAD(lib, cudnnCreate)
    ECHO_LOAD(lib, cudnnSetStream)
    ECHO_LOAD(lib, cudnnGetErrorString)
    ECHO_LOAD(lib, cudnnCreateTensorDescriptor)
    ECHO_LOAD(lib, cudnnDestroyTensorDescriptor)
    ECHO_LOAD(lib, cudnnSetTensor4dDescriptorEx)
    ECHO_LOAD(lib, cudnnCreateFilterDescriptor)
    ECHO_LOAD(lib, cudnnDestroyFilterDescriptor)
    ECHO_LOAD(lib, cudnnSetFilter4dDescriptor)
    ECHO_LOAD(lib, cudnnCreateConvolutionDescriptor)
    ECHO_LOAD(lib, cudnnDestroyConvolutionDescriptor)
    ECHO_LOAD(lib, cudnnSetConvolution2dDescriptor)
    ECHO_LOAD(lib, cudnnSetConvolutionMathType)
    ECHO_LOAD(lib, cudnnGetConvolutionForwardAlgorithm_v7)
    ECHO_LOAD(lib, cudnnGetConvolutionForwardWorkspaceSize)
    ECHO_LOAD(lib, cudnnConvolutionForward)
    ECHO_LOAD(lib, cudnnGetConvolutionBackwardDataAlgorithm_v7)
    ECHO_LOAD(lib, cudnnGetConvolutionBackwardDataWorkspaceSize)
    ECHO_LOAD(lib, cudnnConvolutionBackwardData)
    ECHO_LOAD(lib, cudnnGetConvolutionBackwardFilterAlgorithm_v7)
    ECHO_LOAD(lib, cudnnGetConvolutionBackwardFilterWorkspaceSize)
    ECHO_LOAD(lib, cudnnConvolutionBackwardFilter)
    return true;
  }
};

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

struct Runtime {
  Driver cu;
  Blas blas;
  Dnn dnn;
  bool initialized = false;
  bool librariesLoaded = false;
  bool syncEachLaunch = false;
  int device = 0;
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

Runtime rt;
std::mutex initMutex;

/// The CUresult's name, or its number when the driver does not know it
/// (the toolkit's stub library answers every call with error 34).
const char *errorName(CUresult result) {
  const char *name = nullptr;
  if (rt.cu.cuGetErrorName &&
      rt.cu.cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  thread_local char buffer[32];
  snprintf(buffer, sizeof(buffer), "CUDA error %d", static_cast<int>(result));
  return buffer;
}

/// Checks a driver call; `what` says which.
bool check(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return true;
  fail("%s failed: %s", what, errorName(result));
  return false;
}

bool init(int device) {
  std::lock_guard<std::mutex> lock(initMutex);
  if (rt.initialized)
    return !hasError;
  if (hasError)
    return false;
  if (!rt.cu.load())
    return false;
  CUresult result = rt.cu.cuInit(0);
  if (result != CUDA_SUCCESS) {
    fail("no usable GPU: cuInit failed with %s", errorName(result));
    return false;
  }
  int count = 0;
  if (!check(rt.cu.cuDeviceGetCount(&count), "cuDeviceGetCount"))
    return false;
  if (device < 0 || device >= count) {
    fail("no GPU %d: the driver sees %d device(s)", device, count);
    return false;
  }
  CUdevice dev;
  CUcontext context;
  if (!check(rt.cu.cuDeviceGet(&dev, device), "cuDeviceGet") ||
      !check(rt.cu.cuDevicePrimaryCtxRetain(&context, dev),
             "cuDevicePrimaryCtxRetain") ||
      !check(rt.cu.cuCtxSetCurrent(context), "cuCtxSetCurrent") ||
      !check(rt.cu.cuDeviceGetName(rt.deviceName, sizeof(rt.deviceName), dev),
             "cuDeviceGetName") ||
      !check(rt.cu.cuStreamCreate(&rt.stream, CU_STREAM_NON_BLOCKING),
             "cuStreamCreate") ||
      !check(rt.cu.cuEventCreate(&rt.timerStart, CU_EVENT_DEFAULT),
             "cuEventCreate") ||
      !check(rt.cu.cuEventCreate(&rt.timerStop, CU_EVENT_DEFAULT),
             "cuEventCreate"))
    return false;
  rt.device = device;
  const char *sync = getenv("ECHO_CUDA_SYNC");
  rt.syncEachLaunch = sync && *sync && strcmp(sync, "0") != 0;
  rt.initialized = true;
  return true;
}

/// Makes sure the runtime is up (kernels' module constructors may run
/// before the driver program calls echoCudaInit).
bool ready() { return rt.initialized ? !hasError : init(0); }

/// cuBLAS and cuDNN are loaded on the first GEMM or convolution.
bool librariesReady() {
  if (!ready())
    return false;
  if (rt.librariesLoaded)
    return !hasError;
  std::lock_guard<std::mutex> lock(initMutex);
  if (rt.librariesLoaded)
    return !hasError;
  rt.librariesLoaded = true;
  if (!rt.blas.load() || !rt.dnn.load())
    return false;
  cublasStatus_t status = rt.blas.cublasCreate(&rt.blasHandle);
  if (status != CUBLAS_STATUS_SUCCESS) {
    fail("cublasCreate failed: %s", rt.blas.cublasGetStatusName(status));
    return false;
  }
  rt.blas.cublasSetStream(rt.blasHandle,
                          reinterpret_cast<cudaStream_t>(rt.stream));
  cudnnStatus_t dnnStatus = rt.dnn.cudnnCreate(&rt.dnnHandle);
  if (dnnStatus != CUDNN_STATUS_SUCCESS) {
    fail("cudnnCreate failed: %s", rt.dnn.cudnnGetErrorString(dnnStatus));
    return false;
  }
  rt.dnn.cudnnSetStream(rt.dnnHandle,
                        reinterpret_cast<cudaStream_t>(rt.stream));
  return true;
}

void *allocate(size_t bytes, const char *what) {
  if (!ready())
    return nullptr;
  CUdeviceptr ptr = 0;
  CUresult result = rt.cu.cuMemAlloc(&ptr, bytes ? bytes : 1);
  if (result != CUDA_SUCCESS) {
    size_t freeBytes = 0, totalBytes = 0;
    rt.cu.cuMemGetInfo(&freeBytes, &totalBytes);
    if (result == CUDA_ERROR_OUT_OF_MEMORY)
      fail("out of device memory allocating %s: requested %zu bytes, %zu of "
           "%zu bytes free",
           what, bytes, freeBytes, totalBytes);
    else
      fail("cuMemAlloc of %zu bytes for %s failed: %s", bytes, what,
           errorName(result));
    return nullptr;
  }
  rt.allocations[ptr] = bytes;
  rt.liveBytes += bytes;
  if (rt.liveBytes > rt.peakBytes)
    rt.peakBytes = rt.liveBytes;
  return reinterpret_cast<void *>(ptr);
}

void release(void *ptr) {
  if (!ptr || !rt.initialized)
    return;
  auto it = rt.allocations.find(reinterpret_cast<uintptr_t>(ptr));
  if (it != rt.allocations.end()) {
    rt.liveBytes -= it->second;
    rt.allocations.erase(it);
  }
  check(rt.cu.cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)), "cuMemFree");
}

/// A library workspace of at least `bytes`, grown on demand.
void *workspace(size_t bytes) {
  if (bytes <= rt.workspaceBytes)
    return reinterpret_cast<void *>(rt.workspace);
  if (rt.workspace) {
    rt.cu.cuStreamSynchronize(rt.stream);
    release(reinterpret_cast<void *>(rt.workspace));
  }
  rt.workspace =
      reinterpret_cast<CUdeviceptr>(allocate(bytes, "a cuDNN workspace"));
  rt.workspaceBytes = rt.workspace ? bytes : 0;
  return reinterpret_cast<void *>(rt.workspace);
}

//===----------------------------------------------------------------------===//
// Library calls
//===----------------------------------------------------------------------===//

/// MLIR's ranked memref descriptor (mlir/ExecutionEngine/CRunnerUtils.h).
template <int N> struct MemRef {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[N];
  int64_t strides[N];
  float *data() const { return aligned + offset; }
};

bool blasOk(cublasStatus_t status, const char *what) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return true;
  fail("%s failed: %s", what, rt.blas.cublasGetStatusName(status));
  return false;
}

bool dnnOk(cudnnStatus_t status, const char *what) {
  if (status == CUDNN_STATUS_SUCCESS)
    return true;
  fail("%s failed: %s", what, rt.dnn.cudnnGetErrorString(status));
  return false;
}

/// Checks that `m`'s rows are contiguous (inner stride 1), as cuBLAS needs.
template <int N> bool rowMajor(const MemRef<N> &m, const char *what) {
  if (m.strides[N - 1] != 1 && m.sizes[N - 1] > 1) {
    fail("echo_gemm: %s has inner stride %" PRId64 " (expected 1)", what,
         m.strides[N - 1]);
    return false;
  }
  return true;
}

/// C (M×N) = op(A) (M×K) · op(B) (K×N) [+ C], row-major. cuBLAS is
/// column-major, so it computes Cᵀ = op(B)ᵀ · op(A)ᵀ on the same bytes.
template <int N>
void gemm(const MemRef<N> *a, const MemRef<N> *b, const MemRef<N> *c,
          int64_t transA, int64_t transB, int64_t accumulate) {
  if (!librariesReady())
    return;
  constexpr int r = N - 2;
  // op(A) is M×K and op(B) K×N; a transposed operand is stored the other
  // way round.
  int64_t m = c->sizes[r], n = c->sizes[r + 1];
  int64_t aM = a->sizes[transA ? r + 1 : r], k = a->sizes[transA ? r : r + 1];
  int64_t bK = b->sizes[transB ? r + 1 : r], bN = b->sizes[transB ? r : r + 1];
  if (aM != m || bK != k || bN != n) {
    fail("echo_gemm: shapes do not agree: op(A) is %" PRId64 "x%" PRId64
         ", op(B) %" PRId64 "x%" PRId64 ", C %" PRId64 "x%" PRId64,
         aM, k, bK, bN, m, n);
    return;
  }
  if (!rowMajor(*a, "A") || !rowMajor(*b, "B") || !rowMajor(*c, "C"))
    return;
  const float alpha = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  cublasOperation_t opA = transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  // The row stride; cuBLAS wants at least the row length even when a
  // single row makes the stride meaningless.
  auto ld = [](const MemRef<N> *x) {
    return std::max({x->strides[r], x->sizes[r + 1], int64_t(1)});
  };
  int64_t lda = ld(a), ldb = ld(b), ldc = ld(c);
  if (N == 2) {
    blasOk(rt.blas.cublasSgemm(rt.blasHandle, opB, opA, n, m, k, &alpha,
                               b->data(), ldb, a->data(), lda, &beta, c->data(),
                               ldc),
           "cublasSgemm");
    return;
  }
  int64_t batch = c->sizes[0];
  if (a->sizes[0] != batch || b->sizes[0] != batch) {
    fail("echo_batched_gemm: batch sizes differ");
    return;
  }
  blasOk(rt.blas.cublasSgemmStridedBatched(
             rt.blasHandle, opB, opA, n, m, k, &alpha, b->data(), ldb,
             b->strides[0], a->data(), lda, a->strides[0], &beta, c->data(),
             ldc, c->strides[0], batch),
         "cublasSgemmStridedBatched");
}

/// cuDNN descriptors of one convolution (x: N×C×H×W, w: F×C×KH×KW,
/// y: N×F×OH×OW), released at scope exit.
struct Convolution {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  bool ok = false;

  Convolution(const MemRef<4> &xm, const MemRef<4> &wm, const MemRef<4> &ym,
              int64_t sh, int64_t sw, int64_t ph, int64_t pw) {
    Dnn &d = rt.dnn;
    for (int i = 3, expect = 1; i >= 0; expect *= wm.sizes[i], --i)
      if (wm.strides[i] != expect && wm.sizes[i] > 1) {
        fail("echo_conv2d: the filter is not contiguous");
        return;
      }
    ok = dnnOk(d.cudnnCreateTensorDescriptor(&x),
               "cudnnCreateTensorDescriptor") &&
         dnnOk(d.cudnnCreateTensorDescriptor(&y),
               "cudnnCreateTensorDescriptor") &&
         dnnOk(d.cudnnCreateFilterDescriptor(&w),
               "cudnnCreateFilterDescriptor") &&
         dnnOk(d.cudnnCreateConvolutionDescriptor(&conv),
               "cudnnCreateConvolutionDescriptor") &&
         tensor(x, xm) && tensor(y, ym) &&
         dnnOk(d.cudnnSetFilter4dDescriptor(
                   w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, wm.sizes[0],
                   wm.sizes[1], wm.sizes[2], wm.sizes[3]),
               "cudnnSetFilter4dDescriptor") &&
         dnnOk(d.cudnnSetConvolution2dDescriptor(conv, ph, pw, sh, sw, 1, 1,
                                                 CUDNN_CROSS_CORRELATION,
                                                 CUDNN_DATA_FLOAT),
               "cudnnSetConvolution2dDescriptor") &&
         // FP32 FMA, no TF32: results must match the CPU within 1e-4.
         dnnOk(d.cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH),
               "cudnnSetConvolutionMathType");
  }
  ~Convolution() {
    if (x)
      rt.dnn.cudnnDestroyTensorDescriptor(x);
    if (y)
      rt.dnn.cudnnDestroyTensorDescriptor(y);
    if (w)
      rt.dnn.cudnnDestroyFilterDescriptor(w);
    if (conv)
      rt.dnn.cudnnDestroyConvolutionDescriptor(conv);
  }
  static bool tensor(cudnnTensorDescriptor_t desc, const MemRef<4> &m) {
    return dnnOk(rt.dnn.cudnnSetTensor4dDescriptorEx(
                     desc, CUDNN_DATA_FLOAT, m.sizes[0], m.sizes[1], m.sizes[2],
                     m.sizes[3], m.strides[0], m.strides[1], m.strides[2],
                     m.strides[3]),
                 "cudnnSetTensor4dDescriptorEx");
  }
};

/// The fastest FMA-math algorithm cuDNN's heuristics propose.
template <typename Perf, typename Get>
bool pickAlgorithm(Get get, const char *what, Perf &chosen) {
  Perf perf[16];
  int found = 0;
  if (!dnnOk(get(16, &found, perf), what))
    return false;
  for (int i = 0; i < found; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS) {
      chosen = perf[i];
      return true;
    }
  fail("%s: no algorithm for this convolution", what);
  return false;
}

/// One cuDNN convolution call in direction `direction` (Forward,
/// BackwardData, BackwardFilter): the heuristics' first algorithm, its
/// workspace, then the call with alpha = 1, beta = 0.
template <typename Perf, typename GetAlgorithms, typename GetBytes,
          typename Run>
void convolve(const Convolution &c, const char *direction,
              GetAlgorithms getAlgorithms, GetBytes getBytes, Run run) {
  if (!c.ok)
    return;
  std::string heuristics =
      std::string("cudnnGetConvolution") + direction + "Algorithm_v7";
  std::string sizing =
      std::string("cudnnGetConvolution") + direction + "WorkspaceSize";
  std::string call = std::string("cudnnConvolution") + direction;
  Perf algo;
  size_t bytes = 0;
  if (!pickAlgorithm<Perf>(getAlgorithms, heuristics.c_str(), algo) ||
      !dnnOk(getBytes(algo.algo, &bytes), sizing.c_str()))
    return;
  void *ws = workspace(bytes);
  if (bytes && !ws)
    return;
  const float alpha = 1.0f, beta = 0.0f;
  dnnOk(run(algo.algo, ws, bytes, &alpha, &beta), call.c_str());
}

} // namespace

//===----------------------------------------------------------------------===//
// mgpu* entry points (MLIR 22 gpu-to-llvm host code)
//===----------------------------------------------------------------------===//

ECHO_EXPORT CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  CUmodule module = nullptr;
  if (ready())
    check(rt.cu.cuModuleLoadData(&module, data),
          "cuModuleLoadData (loading the step's kernels)");
  return module;
}

ECHO_EXPORT void mgpuModuleUnload(CUmodule module) {
  if (module && rt.initialized)
    rt.cu.cuModuleUnload(module);
}

ECHO_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module,
                                             const char *name) {
  CUfunction function = nullptr;
  if (!module || hasError)
    return nullptr;
  std::string what = std::string("cuModuleGetFunction(") + name + ")";
  if (check(rt.cu.cuModuleGetFunction(&function, module, name), what.c_str()))
    rt.kernelNames[function] = name;
  return function;
}

ECHO_EXPORT void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                  intptr_t gridY, intptr_t gridZ,
                                  intptr_t blockX, intptr_t blockY,
                                  intptr_t blockZ, int32_t smem,
                                  CUstream stream, void **params, void **extra,
                                  size_t /*paramsCount*/) {
  if (!function || hasError)
    return;
  CUresult result = rt.cu.cuLaunchKernel(
      function, gridX, gridY, gridZ, blockX, blockY, blockZ, smem,
      stream ? stream : rt.stream, params, extra);
  if (result == CUDA_SUCCESS && rt.syncEachLaunch)
    result = rt.cu.cuStreamSynchronize(stream ? stream : rt.stream);
  if (result != CUDA_SUCCESS)
    fail("launch of kernel '%s' (grid %ld x %ld x %ld, block %ld x %ld x "
         "%ld) failed: %s",
         rt.kernelNames[function].c_str(), (long)gridX, (long)gridY,
         (long)gridZ, (long)blockX, (long)blockY, (long)blockZ,
         errorName(result));
}

// Every launch of a step goes to the runtime's one stream, in order; the
// host never reads device memory in between, so the per-launch stream
// create/synchronize/destroy of the generated code costs nothing here.
// echoCudaSynchronize() waits at the end of the step (ECHO_CUDA_SYNC=1
// waits after each launch, to name the kernel that faults).
ECHO_EXPORT CUstream mgpuStreamCreate() {
  return ready() ? rt.stream : nullptr;
}
ECHO_EXPORT void mgpuStreamDestroy(CUstream) {}
ECHO_EXPORT void mgpuStreamSynchronize(CUstream) {}
ECHO_EXPORT void mgpuStreamWaitEvent(CUstream, CUevent) {}
ECHO_EXPORT CUevent mgpuEventCreate() { return nullptr; }
ECHO_EXPORT void mgpuEventDestroy(CUevent) {}
ECHO_EXPORT void mgpuEventSynchronize(CUevent) {}
ECHO_EXPORT void mgpuEventRecord(CUevent, CUstream) {}
ECHO_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  if (!rt.initialized)
    init(device);
}

ECHO_EXPORT void *mgpuMemAlloc(uint64_t bytes, CUstream, bool /*hostShared*/) {
  return allocate(bytes, "a step buffer");
}
ECHO_EXPORT void mgpuMemFree(void *ptr, CUstream) { release(ptr); }
ECHO_EXPORT void mgpuMemcpy(void *dst, void *src, size_t bytes, CUstream) {
  if (ready())
    check(rt.cu.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                              reinterpret_cast<CUdeviceptr>(src), bytes,
                              rt.stream),
          "cuMemcpyAsync");
}
ECHO_EXPORT void mgpuMemset32(void *dst, unsigned value, size_t count,
                              CUstream) {
  if (ready())
    check(rt.cu.cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                 count, rt.stream),
          "cuMemsetD32Async");
}
ECHO_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                              CUstream) {
  if (ready())
    check(rt.cu.cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                 count, rt.stream),
          "cuMemsetD16Async");
}

//===----------------------------------------------------------------------===//
// Library calls (echo-library-calls; argument lists as in
// the libraryCall* fields of the ops in EchoOps.td and EchoGradOps.td)
//===----------------------------------------------------------------------===//

ECHO_EXPORT void _mlir_ciface_echo_gemm(MemRef<2> *a, MemRef<2> *b,
                                        MemRef<2> *c, int64_t transA,
                                        int64_t transB, int64_t accumulate) {
  gemm(a, b, c, transA, transB, accumulate);
}

ECHO_EXPORT void _mlir_ciface_echo_batched_gemm(MemRef<3> *a, MemRef<3> *b,
                                                MemRef<3> *c, int64_t transA,
                                                int64_t transB,
                                                int64_t accumulate) {
  gemm(a, b, c, transA, transB, accumulate);
}

ECHO_EXPORT void _mlir_ciface_echo_conv2d_forward(MemRef<4> *x, MemRef<4> *w,
                                                  MemRef<4> *y, int64_t sh,
                                                  int64_t sw, int64_t ph,
                                                  int64_t pw) {
  if (!librariesReady())
    return;
  Convolution c(*x, *w, *y, sh, sw, ph, pw);
  Dnn &d = rt.dnn;
  cudnnHandle_t h = rt.dnnHandle;
  convolve<cudnnConvolutionFwdAlgoPerf_t>(
      c, "Forward",
      [&](int n, int *found, cudnnConvolutionFwdAlgoPerf_t *perf) {
        return d.cudnnGetConvolutionForwardAlgorithm_v7(h, c.x, c.w, c.conv,
                                                        c.y, n, found, perf);
      },
      [&](cudnnConvolutionFwdAlgo_t algo, size_t *bytes) {
        return d.cudnnGetConvolutionForwardWorkspaceSize(h, c.x, c.w, c.conv,
                                                         c.y, algo, bytes);
      },
      [&](cudnnConvolutionFwdAlgo_t algo, void *ws, size_t bytes,
          const float *alpha, const float *beta) {
        return d.cudnnConvolutionForward(h, alpha, c.x, x->data(), c.w,
                                         w->data(), c.conv, algo, ws, bytes,
                                         beta, c.y, y->data());
      });
}

ECHO_EXPORT void
_mlir_ciface_echo_conv2d_backward_data(MemRef<4> *w, MemRef<4> *dy,
                                       MemRef<4> *dx, int64_t sh, int64_t sw,
                                       int64_t ph, int64_t pw) {
  if (!librariesReady())
    return;
  Convolution c(*dx, *w, *dy, sh, sw, ph, pw);
  Dnn &d = rt.dnn;
  cudnnHandle_t h = rt.dnnHandle;
  convolve<cudnnConvolutionBwdDataAlgoPerf_t>(
      c, "BackwardData",
      [&](int n, int *found, cudnnConvolutionBwdDataAlgoPerf_t *perf) {
        return d.cudnnGetConvolutionBackwardDataAlgorithm_v7(
            h, c.w, c.y, c.conv, c.x, n, found, perf);
      },
      [&](cudnnConvolutionBwdDataAlgo_t algo, size_t *bytes) {
        return d.cudnnGetConvolutionBackwardDataWorkspaceSize(
            h, c.w, c.y, c.conv, c.x, algo, bytes);
      },
      [&](cudnnConvolutionBwdDataAlgo_t algo, void *ws, size_t bytes,
          const float *alpha, const float *beta) {
        return d.cudnnConvolutionBackwardData(h, alpha, c.w, w->data(), c.y,
                                              dy->data(), c.conv, algo, ws,
                                              bytes, beta, c.x, dx->data());
      });
}

ECHO_EXPORT void
_mlir_ciface_echo_conv2d_backward_filter(MemRef<4> *x, MemRef<4> *dy,
                                         MemRef<4> *dw, int64_t sh, int64_t sw,
                                         int64_t ph, int64_t pw) {
  if (!librariesReady())
    return;
  Convolution c(*x, *dw, *dy, sh, sw, ph, pw);
  Dnn &d = rt.dnn;
  cudnnHandle_t h = rt.dnnHandle;
  convolve<cudnnConvolutionBwdFilterAlgoPerf_t>(
      c, "BackwardFilter",
      [&](int n, int *found, cudnnConvolutionBwdFilterAlgoPerf_t *perf) {
        return d.cudnnGetConvolutionBackwardFilterAlgorithm_v7(
            h, c.x, c.y, c.conv, c.w, n, found, perf);
      },
      [&](cudnnConvolutionBwdFilterAlgo_t algo, size_t *bytes) {
        return d.cudnnGetConvolutionBackwardFilterWorkspaceSize(
            h, c.x, c.y, c.conv, c.w, algo, bytes);
      },
      [&](cudnnConvolutionBwdFilterAlgo_t algo, void *ws, size_t bytes,
          const float *alpha, const float *beta) {
        return d.cudnnConvolutionBackwardFilter(h, alpha, c.x, x->data(), c.y,
                                                dy->data(), c.conv, algo, ws,
                                                bytes, beta, c.w, dw->data());
      });
}

//===----------------------------------------------------------------------===//
// Host API
//===----------------------------------------------------------------------===//

ECHO_EXPORT int echoCudaInit(int device) { return init(device) ? 0 : 1; }

ECHO_EXPORT const char *echoCudaGetError(void) {
  return hasError ? firstError.c_str() : nullptr;
}

ECHO_EXPORT const char *echoCudaDeviceName(void) { return rt.deviceName; }

ECHO_EXPORT void *echoCudaMalloc(size_t bytes) {
  return allocate(bytes, "the caller");
}

ECHO_EXPORT void echoCudaFree(void *ptr) { release(ptr); }

ECHO_EXPORT int echoCudaCopyToDevice(void *dst, const void *src, size_t bytes) {
  return ready() && check(rt.cu.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(dst),
                                             src, bytes),
                          "cuMemcpyHtoD")
             ? 0
             : 1;
}

ECHO_EXPORT int echoCudaSynchronize(void) {
  if (!ready())
    return 1;
  CUresult result = rt.cu.cuStreamSynchronize(rt.stream);
  if (result != CUDA_SUCCESS) {
    fail("the step failed on the device: %s (run with ECHO_CUDA_SYNC=1 to "
         "name the kernel)",
         errorName(result));
    return 1;
  }
  return hasError ? 1 : 0;
}

ECHO_EXPORT int echoCudaCopyToHost(void *dst, const void *src, size_t bytes) {
  if (echoCudaSynchronize() != 0)
    return 1;
  return check(
             rt.cu.cuMemcpyDtoH(dst, reinterpret_cast<CUdeviceptr>(src), bytes),
             "cuMemcpyDtoH")
             ? 0
             : 1;
}

ECHO_EXPORT size_t echoCudaPeakBytes(void) { return rt.peakBytes; }

ECHO_EXPORT void echoCudaResetPeak(void) { rt.peakBytes = rt.liveBytes; }

ECHO_EXPORT size_t echoCudaDeviceUsedBytes(void) {
  size_t freeBytes = 0, totalBytes = 0;
  if (!ready() || rt.cu.cuMemGetInfo(&freeBytes, &totalBytes) != CUDA_SUCCESS)
    return 0;
  return totalBytes - freeBytes;
}

ECHO_EXPORT void echoCudaTimerStart(void) {
  if (ready())
    check(rt.cu.cuEventRecord(rt.timerStart, rt.stream), "cuEventRecord");
}

ECHO_EXPORT double echoCudaTimerStop(void) {
  float ms = 0.0f;
  if (!ready() ||
      !check(rt.cu.cuEventRecord(rt.timerStop, rt.stream), "cuEventRecord") ||
      echoCudaSynchronize() != 0 ||
      !check(rt.cu.cuEventElapsedTime(&ms, rt.timerStart, rt.timerStop),
             "cuEventElapsedTime"))
    return -1.0;
  return ms;
}
