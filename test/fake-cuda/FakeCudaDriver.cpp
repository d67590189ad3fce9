//===- FakeCudaDriver.cpp - A CUDA driver that runs on the host
//------------===//
//
// Part of the Echo project.
//
// libcuda.so.1 for the tests of the Echo CUDA runtime on machines without a
// GPU: the driver functions the runtime opens (runtime/cuda/Libraries.cpp),
// over host memory. Device memory is calloc'ed host memory (copies are
// memcpy), modules and functions are tokens and a kernel launch does
// nothing, so a step "runs" to the end with meaningless values: the tests
// use it for what the host side of the runtime does (initialization,
// allocation and its accounting, launches, errors), never for results.
// With LD_LIBRARY_PATH naming its directory, the runtime opens it instead
// of the real driver. It answers as a device would:
//   ECHO_FAKE_CUDA_BYTES  the device's memory (default 16 GiB): cuMemAlloc
//                         past it fails with CUDA_ERROR_OUT_OF_MEMORY;
//   ECHO_FAKE_CUDA_CC     its compute capability, "M.m" (default 9.0).
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#define FAKE_EXPORT __attribute__((visibility("default")))

namespace {

struct Device {
  std::mutex mutex;
  std::unordered_map<CUdeviceptr, size_t> allocations;
  size_t used = 0;
  bool initialized = false;
  int token = 0; // what modules, functions, contexts, streams point to

  static size_t capacity() {
    const char *bytes = getenv("ECHO_FAKE_CUDA_BYTES");
    return bytes ? strtoull(bytes, nullptr, 10) : (16ull << 30);
  }
  static void computeCapability(int &major, int &minor) {
    major = 9;
    minor = 0;
    if (const char *cc = getenv("ECHO_FAKE_CUDA_CC"))
      sscanf(cc, "%d.%d", &major, &minor);
  }
};

Device device;

template <typename T> T token() { return reinterpret_cast<T>(&device.token); }

/// cuMemsetD*: `count` elements of `value`.
template <typename T> CUresult fill(CUdeviceptr dst, T value, size_t count) {
  T *p = reinterpret_cast<T *>(dst);
  for (size_t i = 0; i < count; ++i)
    p[i] = value;
  return CUDA_SUCCESS;
}

} // namespace

extern "C" {

FAKE_EXPORT CUresult cuInit(unsigned int) {
  device.initialized = true;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
#define FAKE_ERROR(e)                                                          \
  case e:                                                                      \
    *name = #e;                                                                \
    return CUDA_SUCCESS;
    FAKE_ERROR(CUDA_SUCCESS)
    FAKE_ERROR(CUDA_ERROR_INVALID_VALUE)
    FAKE_ERROR(CUDA_ERROR_OUT_OF_MEMORY)
    FAKE_ERROR(CUDA_ERROR_NOT_INITIALIZED)
    FAKE_ERROR(CUDA_ERROR_NO_BINARY_FOR_GPU)
    FAKE_ERROR(CUDA_ERROR_INVALID_PTX)
    FAKE_ERROR(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    FAKE_ERROR(CUDA_ERROR_LAUNCH_FAILED)
    FAKE_ERROR(CUDA_ERROR_ILLEGAL_ADDRESS)
#undef FAKE_ERROR
  default:
    *name = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
}

FAKE_EXPORT CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return device.initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

FAKE_EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal) {
  if (ordinal != 0)
    return CUDA_ERROR_INVALID_VALUE;
  *dev = 0;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetName(char *name, int length, CUdevice) {
  snprintf(name, length, "Echo fake GPU (host memory)");
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDeviceGetAttribute(int *value,
                                          CUdevice_attribute attribute,
                                          CUdevice) {
  int major, minor;
  Device::computeCapability(major, minor);
  if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
    *value = major;
  else if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
    *value = minor;
  else
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  *context = token<CUcontext>();
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }

FAKE_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  if (!image)
    return CUDA_ERROR_INVALID_VALUE;
  *module = token<CUmodule>();
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuModuleUnload(CUmodule) { return CUDA_SUCCESS; }

FAKE_EXPORT CUresult cuModuleGetFunction(CUfunction *function, CUmodule,
                                         const char *) {
  *function = token<CUfunction>();
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, unsigned, unsigned,
                                    CUstream, void **, void **) {
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned int) {
  *stream = token<CUstream>();
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }

FAKE_EXPORT CUresult cuMemAlloc(CUdeviceptr *ptr, size_t bytes) {
  std::lock_guard<std::mutex> lock(device.mutex);
  if (bytes > Device::capacity() - device.used)
    return CUDA_ERROR_OUT_OF_MEMORY;
  void *p = calloc(bytes ? bytes : 1, 1);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *ptr = reinterpret_cast<CUdeviceptr>(p);
  device.allocations[*ptr] = bytes;
  device.used += bytes;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemFree(CUdeviceptr ptr) {
  std::lock_guard<std::mutex> lock(device.mutex);
  auto it = device.allocations.find(ptr);
  if (it == device.allocations.end())
    return CUDA_ERROR_INVALID_VALUE;
  device.used -= it->second;
  device.allocations.erase(it);
  free(reinterpret_cast<void *>(ptr));
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemAllocHost(void **ptr, size_t bytes) {
  *ptr = calloc(bytes ? bytes : 1, 1);
  return *ptr ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

FAKE_EXPORT CUresult cuMemFreeHost(void *ptr) {
  free(ptr);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes,
                                       CUstream) {
  memcpy(dst, reinterpret_cast<void *>(src), bytes);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src,
                                       size_t bytes, CUstream) {
  memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned int) {
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemGetInfo(size_t *freeBytes, size_t *totalBytes) {
  std::lock_guard<std::mutex> lock(device.mutex);
  *totalBytes = Device::capacity();
  *freeBytes = *totalBytes - device.used;
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src,
                                   size_t bytes, CUstream) {
  memmove(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src), bytes);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src,
                                  size_t bytes) {
  memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  memcpy(dst, reinterpret_cast<void *>(src), bytes);
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value,
                                      size_t count, CUstream) {
  return fill(dst, value, count);
}

FAKE_EXPORT CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value,
                                      size_t count, CUstream) {
  return fill(dst, value, count);
}

FAKE_EXPORT CUresult cuEventCreate(CUevent *event, unsigned int) {
  *event = token<CUevent>();
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuEventRecord(CUevent, CUstream) { return CUDA_SUCCESS; }

FAKE_EXPORT CUresult cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }

FAKE_EXPORT CUresult cuEventElapsedTime(float *ms, CUevent, CUevent) {
  *ms = 0.0f;
  return CUDA_SUCCESS;
}

// Graphs: a capture records nothing (launches run nothing here); the
// graph and its instance are tokens.
FAKE_EXPORT CUresult cuStreamBeginCapture(CUstream, CUstreamCaptureMode) {
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuStreamEndCapture(CUstream, CUgraph *graph) {
  *graph = token<CUgraph>();
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuGraphInstantiate(CUgraphExec *exec, CUgraph,
                                        unsigned long long) {
  *exec = token<CUgraphExec>();
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuGraphLaunch(CUgraphExec, CUstream) {
  return CUDA_SUCCESS;
}

FAKE_EXPORT CUresult cuGraphExecDestroy(CUgraphExec) { return CUDA_SUCCESS; }

FAKE_EXPORT CUresult cuGraphDestroy(CUgraph) { return CUDA_SUCCESS; }

} // extern "C"
