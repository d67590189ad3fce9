//===- Libraries.cpp - dlopen of the driver, cuBLAS and cuDNN -------------===//
//
// Part of the Echo project.
//
// The runtime links none of the CUDA libraries, so that it builds and loads
// on machines without a GPU or a driver: each table of RuntimeState.h is
// filled here with dlsym, and a missing library or function is reported by
// name.
//
//===----------------------------------------------------------------------===//

#include "RuntimeState.h"

#include <dlfcn.h>

#include <initializer_list>

using namespace echo::cuda;

#define ECHO_STR2(x) #x
#define ECHO_STR(x) ECHO_STR2(x)
// The symbol is looked up under the name the toolkit's header gives it (the
// macro-expanded one: cuMemAlloc_v2, not cuMemAlloc).
#define ECHO_LOAD(lib, name)                                                   \
  if (!(name = reinterpret_cast<decltype(name)>(dlsym(lib, ECHO_STR(name)))))  \
    return missing(ECHO_STR(name));

/// The first of `names` that dlopen opens; `tried` lists the others.
/// `hidden` (a fault of ECHO_CUDA_FAULTS) makes every one fail to open.
static void *openFirst(std::initializer_list<const char *> names,
                       std::string &tried, bool hidden = false) {
  for (const char *name : names) {
    if (!hidden)
      if (void *handle = dlopen(name, RTLD_NOW | RTLD_GLOBAL))
        return handle;
    tried += std::string(tried.empty() ? "" : ", ") + name;
  }
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

bool Driver::missing(const char *name) {
  fail("the CUDA driver library has no '%s' (driver too old for CUDA %d?)",
       name, CUDA_VERSION);
  return false;
}

bool Driver::load() {
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
  ECHO_LOAD(lib, cuDeviceGetAttribute)
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
  ECHO_LOAD(lib, cuMemAllocHost)
  ECHO_LOAD(lib, cuMemFreeHost)
  ECHO_LOAD(lib, cuMemcpyDtoHAsync)
  ECHO_LOAD(lib, cuMemcpyHtoDAsync)
  ECHO_LOAD(lib, cuStreamWaitEvent)
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
  ECHO_LOAD(lib, cuStreamBeginCapture)
  ECHO_LOAD(lib, cuStreamEndCapture)
  ECHO_LOAD(lib, cuGraphInstantiate)
  ECHO_LOAD(lib, cuGraphLaunch)
  ECHO_LOAD(lib, cuGraphExecDestroy)
  ECHO_LOAD(lib, cuGraphDestroy)
  // Optional (drivers of CUDA 12.4 and later): a kernel's parameter sizes,
  // for ECHO_CUDA_GRAPH's check of replayed launches.
  cuFuncGetParamInfo = reinterpret_cast<decltype(cuFuncGetParamInfo)>(
      dlsym(lib, "cuFuncGetParamInfo"));
  return true;
}

//===----------------------------------------------------------------------===//
// cuBLAS
//===----------------------------------------------------------------------===//

bool Blas::missing(const char *name) {
  fail("cuBLAS has no '%s'", name);
  return false;
}

bool Blas::load() {
  std::string tried;
  void *lib = openFirst({"libcublas.so.13", "libcublas.so.12", "libcublas.so"},
                        tried, rt.faults.noBlas);
  if (!lib) {
    fail("cannot open cuBLAS (%s): the step's GEMMs need it; add its "
         "directory to LD_LIBRARY_PATH%s",
         tried.c_str(),
         rt.faults.noBlas ? " (ECHO_CUDA_FAULTS=no-cublas)" : "");
    return false;
  }
  ECHO_LOAD(lib, cublasCreate)
  ECHO_LOAD(lib, cublasSetStream)
  ECHO_LOAD(lib, cublasSgemm)
  ECHO_LOAD(lib, cublasSgemmStridedBatched)
  ECHO_LOAD(lib, cublasGetStatusName)
  ECHO_LOAD(lib, cublasGemmEx)
  ECHO_LOAD(lib, cublasGemmStridedBatchedEx)
  return true;
}

//===----------------------------------------------------------------------===//
// cuDNN
//===----------------------------------------------------------------------===//

bool Dnn::missing(const char *name) {
  fail("cuDNN has no '%s'", name);
  return false;
}

bool Dnn::load() {
  std::string tried;
  void *lib =
      openFirst({"libcudnn.so.9", "libcudnn.so"}, tried, rt.faults.noDnn);
  if (!lib) {
    fail("cannot open cuDNN (%s): the step's convolutions need it; add its "
         "directory to LD_LIBRARY_PATH%s",
         tried.c_str(), rt.faults.noDnn ? " (ECHO_CUDA_FAULTS=no-cudnn)" : "");
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
  ECHO_LOAD(lib, cudnnSetConvolutionGroupCount)
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
