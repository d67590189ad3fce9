//===- Cuda.cpp - Training steps on an NVIDIA GPU -------------------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Runner/Cuda.h"

#include "EchoCudaRuntime.h"
#include "EchoHostData.h"
#include "RuntimeLibrary.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::echo;

/// The host API's entry points, typed by its header.
struct CudaRuntime::Api {
  decltype(&echoCudaInit) init;
  decltype(&echoCudaGetError) getError;
  decltype(&echoCudaDeviceName) deviceName;
  decltype(&echoCudaRequireChip) requireChip;
  decltype(&echoCudaMalloc) malloc;
  decltype(&echoCudaFree) free;
  decltype(&echoCudaCopyToDevice) copyToDevice;
  decltype(&echoCudaCopyToHost) copyToHost;
  decltype(&echoCudaPeakBytes) peakBytes;
  decltype(&echoCudaHostPoolBytes) hostPoolBytes;
  decltype(&echoCudaHostPoolPeakBytes) hostPoolPeakBytes;
  decltype(&echoCudaConvAlgorithms) convAlgorithms;
  decltype(&echoCudaKernelProfile) kernelProfile;
  decltype(&echoCudaGraphStatus) graphStatus;
  decltype(&echoCudaReleaseWorkspaces) releaseWorkspaces;
  decltype(&echoCudaTimerStart) timerStart;
  decltype(&echoCudaTimerStop) timerStop;
};

CudaRuntime::CudaRuntime() = default;
CudaRuntime::~CudaRuntime() = default;

LogicalResult CudaRuntime::load(StringRef path, StringRef chip) {
  std::optional<llvm::sys::DynamicLibrary> lib = detail::openRuntimeLibrary(
      path, "--target=cuda needs the Echo CUDA runtime library",
      "build Echo with the CUDA toolkit, or pass --cuda-runtime=");
  if (!lib)
    return failure();
  auto get = [&](auto &fn, const char *name) {
    return detail::resolveSymbol(*lib, fn, name);
  };
  auto loaded = std::make_unique<Api>();
  Api &a = *loaded;
  if (!get(a.init, "echoCudaInit") || !get(a.getError, "echoCudaGetError") ||
      !get(a.deviceName, "echoCudaDeviceName") ||
      !get(a.requireChip, "echoCudaRequireChip") ||
      !get(a.malloc, "echoCudaMalloc") || !get(a.free, "echoCudaFree") ||
      !get(a.copyToDevice, "echoCudaCopyToDevice") ||
      !get(a.copyToHost, "echoCudaCopyToHost") ||
      !get(a.peakBytes, "echoCudaPeakBytes") ||
      !get(a.hostPoolBytes, "echoCudaHostPoolBytes") ||
      !get(a.hostPoolPeakBytes, "echoCudaHostPoolPeakBytes") ||
      !get(a.convAlgorithms, "echoCudaConvAlgorithms") ||
      !get(a.kernelProfile, "echoCudaKernelProfile") ||
      !get(a.graphStatus, "echoCudaGraphStatus") ||
      !get(a.releaseWorkspaces, "echoCudaReleaseWorkspaces") ||
      !get(a.timerStart, "echoCudaTimerStart") ||
      !get(a.timerStop, "echoCudaTimerStop")) {
    llvm::errs() << "echo-run: " << path
                 << " is not the Echo CUDA runtime (missing symbols)\n";
    return failure();
  }
  api = std::move(loaded);
  if (api->init(0) != 0 || api->requireChip(chip.str().c_str()) != 0)
    return fail();
  return success();
}

LogicalResult CudaRuntime::fail() const {
  const char *error = getError();
  llvm::errs() << "echo-run: --target=cuda: "
               << (error ? error : "unknown CUDA runtime error") << "\n";
  return failure();
}

const char *CudaRuntime::getError() const {
  return api ? api->getError() : "the CUDA runtime is not loaded";
}
const char *CudaRuntime::getDeviceName() const { return api->deviceName(); }
size_t CudaRuntime::getPeakBytes() const { return api->peakBytes(); }
size_t CudaRuntime::getHostPoolBytes() const { return api->hostPoolBytes(); }
size_t CudaRuntime::getHostPoolPeakBytes() const {
  return api->hostPoolPeakBytes();
}
const char *CudaRuntime::getConvAlgorithms() const {
  return api->convAlgorithms();
}
const char *CudaRuntime::getKernelProfile() const {
  return api->kernelProfile();
}
const char *CudaRuntime::getGraphStatus() const { return api->graphStatus(); }
void CudaRuntime::releaseWorkspaces() const {
  if (api)
    api->releaseWorkspaces();
}
void *CudaRuntime::malloc(size_t bytes) const { return api->malloc(bytes); }
void CudaRuntime::free(void *ptr) const { api->free(ptr); }
LogicalResult CudaRuntime::copyToDevice(void *dst, const void *src,
                                        size_t bytes) const {
  return success(api->copyToDevice(dst, src, bytes) == 0);
}
LogicalResult CudaRuntime::copyToHost(void *dst, const void *src,
                                      size_t bytes) const {
  return success(api->copyToHost(dst, src, bytes) == 0);
}
void CudaRuntime::startTimer() const { api->timerStart(); }
double CudaRuntime::stopTimer() const { return api->timerStop(); }

CudaStep::~CudaStep() {
  for (Buffer &b : llvm::concat<Buffer>(args, outs))
    cuda.free(b.ptr);
  cuda.free(arena.ptr);
  cuda.releaseWorkspaces();
}

LogicalResult CudaStep::allocate(Buffer &b, size_t bytes,
                                 const std::vector<int64_t> &shape) {
  b.bytes = bytes;
  b.ptr = cuda.malloc(bytes);
  if (!b.ptr)
    return cuda.fail();
  b.descriptor = host::rowMajorDescriptor(b.ptr, shape);
  return success();
}

LogicalResult CudaStep::allocate(ArrayRef<HostTensor> hostArgs,
                                 ArrayRef<HostTensor> hostOuts,
                                 int64_t arenaBytes) {
  args.resize(hostArgs.size());
  outs.resize(hostOuts.size());
  for (auto [b, t] : llvm::zip(args, hostArgs))
    if (failed(allocate(b, t.getByteSize(), t.getShape())))
      return failure();
  for (auto [b, t] : llvm::zip(outs, hostOuts))
    if (failed(allocate(b, t.getByteSize(), t.getShape())))
      return failure();
  return allocate(arena, arenaBytes, {arenaBytes}); // memref<Nxi8>
}

LogicalResult CudaStep::call(MutableArrayRef<HostTensor> hostArgs,
                             MutableArrayRef<HostTensor> hostOuts, double &ms,
                             ArrayRef<unsigned> updatedArgs) {
  for (auto [b, t] : llvm::zip(args, hostArgs))
    if (failed(cuda.copyToDevice(b.ptr, t.data(), b.bytes)))
      return cuda.fail();
  SmallVector<int64_t *> descriptors;
  for (Buffer &b : llvm::concat<Buffer>(args, outs))
    descriptors.push_back(b.descriptor.data());
  descriptors.push_back(arena.descriptor.data());
  cuda.startTimer();
  if (failed(step.invoke(descriptors)))
    return failure();
  ms = cuda.stopTimer();
  if (ms < 0 || cuda.getError())
    return cuda.fail();
  for (auto [b, t] : llvm::zip(outs, hostOuts))
    if (failed(cuda.copyToHost(t.data(), b.ptr, b.bytes)))
      return cuda.fail();
  for (unsigned i : updatedArgs)
    if (failed(cuda.copyToHost(hostArgs[i].data(), args[i].ptr, args[i].bytes)))
      return cuda.fail();
  return success();
}
