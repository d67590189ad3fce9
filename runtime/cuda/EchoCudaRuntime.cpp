//===- EchoCudaRuntime.cpp - Echo's CUDA runtime --------------------------===//
//
// Part of the Echo project.
//
// See EchoCudaRuntime.h. This file holds the runtime's state and its use of
// the driver: initialization, device memory, the mgpu* entry points of the
// generated host code (modules, launches, streams, copies) and the host API.
// The libraries are opened in Libraries.cpp; the cuBLAS/cuDNN calls are in
// LibraryCalls.cpp.
//
//===----------------------------------------------------------------------===//

#include "EchoCudaRuntime.h"
#include "RuntimeState.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

using namespace echo::cuda;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

static std::mutex errorMutex;
static std::string firstError;
bool echo::cuda::hasError = false;

void echo::cuda::fail(const char *format, ...) {
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
// State
//===----------------------------------------------------------------------===//

Runtime echo::cuda::rt;
std::mutex echo::cuda::initMutex;

const char *echo::cuda::errorName(CUresult result) {
  const char *name = nullptr;
  if (rt.cu.cuGetErrorName &&
      rt.cu.cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  thread_local char buffer[32];
  snprintf(buffer, sizeof(buffer), "CUDA error %d", static_cast<int>(result));
  return buffer;
}

bool echo::cuda::check(CUresult result, const char *what) {
  if (result == CUDA_SUCCESS)
    return true;
  fail("%s failed: %s", what, errorName(result));
  return false;
}

//===----------------------------------------------------------------------===//
// Fault injection
//===----------------------------------------------------------------------===//

/// A decimal number that fits `T` and is at least `min`.
template <typename T>
static bool parseNumber(const std::string &text, T min, T &value) {
  if (text.empty() || text.size() > 19 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  unsigned long long v = std::stoull(text);
  if (v < static_cast<unsigned long long>(min) ||
      v > static_cast<unsigned long long>(std::numeric_limits<T>::max()))
    return false;
  value = static_cast<T>(v);
  return true;
}

bool Faults::parse(const char *spec) {
  std::string rest = spec;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string fault = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    size_t eq = fault.find('=');
    std::string key = fault.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : fault.substr(eq + 1);
    bool ok = false;
    if (key == "device-bytes")
      ok = parseNumber<size_t>(value, 1, deviceBytes);
    else if (key == "host-bytes")
      ok = parseNumber<size_t>(value, 1, hostBytes);
    else if (key == "fail-launch")
      ok = parseNumber<long>(value, 1, failLaunch);
    else if (key == "no-cublas" || key == "no-cudnn") {
      ok = eq == std::string::npos;
      (key == "no-cublas" ? noBlas : noDnn) = ok;
    } else if (key == "compute-capability") {
      size_t dot = value.find('.');
      ok = dot != std::string::npos &&
           parseNumber<int>(value.substr(0, dot), 1, ccMajor) &&
           parseNumber<int>(value.substr(dot + 1), 0, ccMinor) &&
           ccMajor < 100 && ccMinor < 10;
    }
    if (!ok) {
      fail("ECHO_CUDA_FAULTS: cannot read '%s' (faults: device-bytes=N, "
           "host-bytes=N, fail-launch=N, no-cublas, no-cudnn, "
           "compute-capability=M.m)",
           fault.c_str());
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Initialization
//===----------------------------------------------------------------------===//

bool echo::cuda::init(int device) {
  std::lock_guard<std::mutex> lock(initMutex);
  if (rt.initialized)
    return !hasError;
  if (hasError)
    return false;
  if (const char *faults = getenv("ECHO_CUDA_FAULTS"))
    if (!rt.faults.parse(faults))
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
      !check(
          rt.cu.cuDeviceGetAttribute(
              &rt.ccMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
          "cuDeviceGetAttribute") ||
      !check(
          rt.cu.cuDeviceGetAttribute(
              &rt.ccMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
          "cuDeviceGetAttribute") ||
      !check(rt.cu.cuStreamCreate(&rt.stream, CU_STREAM_NON_BLOCKING),
             "cuStreamCreate") ||
      !check(rt.cu.cuEventCreate(&rt.timerStart, CU_EVENT_DEFAULT),
             "cuEventCreate") ||
      !check(rt.cu.cuEventCreate(&rt.timerStop, CU_EVENT_DEFAULT),
             "cuEventCreate"))
    return false;
  if (rt.faults.ccMajor >= 0) {
    rt.ccMajor = rt.faults.ccMajor;
    rt.ccMinor = rt.faults.ccMinor;
  }
  rt.device = device;
  rt.syncEachLaunch = envFlag("ECHO_CUDA_SYNC");
  rt.initialized = true;
  return true;
}

bool echo::cuda::envFlag(const char *name) {
  const char *value = getenv(name);
  if (!value || !*value || strcmp(value, "0") == 0)
    return false;
  if (strcmp(value, "1") == 0)
    return true;
  fail("%s=%s: expected 1 (on) or 0 (off)", name, value);
  return false;
}

bool echo::cuda::ready() { return rt.initialized ? !hasError : init(0); }

//===----------------------------------------------------------------------===//
// Device memory
//===----------------------------------------------------------------------===//

size_t echo::cuda::deviceFreeBytes(size_t *totalBytes) {
  size_t freeBytes = 0, total = 0;
  if (size_t cap = rt.faults.deviceBytes) {
    freeBytes = cap - std::min(cap, rt.liveBytes);
    total = cap;
  } else if (rt.cu.cuMemGetInfo(&freeBytes, &total) != CUDA_SUCCESS) {
    freeBytes = total = 0;
  }
  if (totalBytes)
    *totalBytes = total;
  return freeBytes;
}

void *echo::cuda::allocate(size_t bytes, const char *what) {
  if (!ready())
    return nullptr;
  CUdeviceptr ptr = 0;
  size_t cap = rt.faults.deviceBytes;
  CUresult result = cap && bytes > cap - std::min(cap, rt.liveBytes)
                        ? CUDA_ERROR_OUT_OF_MEMORY
                        : rt.cu.cuMemAlloc(&ptr, bytes ? bytes : 1);
  if (result != CUDA_SUCCESS) {
    size_t totalBytes = 0;
    size_t freeBytes = deviceFreeBytes(&totalBytes);
    if (result == CUDA_ERROR_OUT_OF_MEMORY)
      fail("out of device memory allocating %s: requested %zu bytes, %zu of "
           "%zu bytes free (the step holds %zu)%s",
           what, bytes, freeBytes, totalBytes, rt.liveBytes,
           cap ? " (ECHO_CUDA_FAULTS=device-bytes)" : "");
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

void echo::cuda::release(void *ptr) {
  if (!ptr || !rt.initialized)
    return;
  auto it = rt.allocations.find(reinterpret_cast<uintptr_t>(ptr));
  if (it != rt.allocations.end()) {
    rt.liveBytes -= it->second;
    rt.allocations.erase(it);
  }
  check(rt.cu.cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)), "cuMemFree");
}

//===----------------------------------------------------------------------===//
// mgpu* entry points (MLIR 22 gpu-to-llvm host code)
//===----------------------------------------------------------------------===//

ECHO_EXPORT CUmodule mgpuModuleLoad(void *data, size_t /*size*/) {
  CUmodule module = nullptr;
  if (!ready())
    return nullptr;
  CUresult result = rt.cu.cuModuleLoadData(&module, data);
  if (result == CUDA_ERROR_NO_BINARY_FOR_GPU ||
      result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION ||
      result == CUDA_ERROR_INVALID_PTX)
    fail("the step's kernels cannot run on GPU %d '%s' (compute capability "
         "%d.%d): %s; compile the step for this device (echo-pipeline "
         "chip=sm_%d%d)",
         rt.device, rt.deviceName, rt.ccMajor, rt.ccMinor, errorName(result),
         rt.ccMajor, rt.ccMinor);
  else
    check(result, "cuModuleLoadData (loading the step's kernels)");
  return result == CUDA_SUCCESS ? module : nullptr;
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
                                  size_t paramsCount) {
  if (!function || hasError)
    return;
  const intptr_t dims[6] = {gridX, gridY, gridZ, blockX, blockY, blockZ};
  noteStepLaunch(function, dims, params, paramsCount);
  if (replayingStep())
    return;
  bool timed = profiling();
  if (timed)
    profileBegin("kernel", rt.kernelNames[function],
                 "grid " + std::to_string(gridX) + "x" + std::to_string(gridY) +
                     "x" + std::to_string(gridZ) + " block " +
                     std::to_string(blockX) + "x" + std::to_string(blockY) +
                     "x" + std::to_string(blockZ));
  CUresult result =
      ++rt.launches == rt.faults.failLaunch
          ? CUDA_ERROR_LAUNCH_FAILED
          : rt.cu.cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                                 blockZ, smem, stream ? stream : rt.stream,
                                 params, extra);
  if (timed)
    profileEnd();
  if (result == CUDA_SUCCESS && rt.syncEachLaunch)
    result = rt.cu.cuStreamSynchronize(stream ? stream : rt.stream);
  if (result != CUDA_SUCCESS)
    fail("launch %ld, of kernel '%s' (grid %ld x %ld x %ld, block %ld x %ld "
         "x %ld), failed: %s%s",
         rt.launches, rt.kernelNames[function].c_str(), (long)gridX,
         (long)gridY, (long)gridZ, (long)blockX, (long)blockY, (long)blockZ,
         errorName(result),
         rt.launches == rt.faults.failLaunch ? " (ECHO_CUDA_FAULTS=fail-launch)"
                                             : "");
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
  const void *work[] = {dst, src, reinterpret_cast<void *>(bytes)};
  noteStepWork(work, sizeof(work));
  if (ready() && !replayingStep())
    check(rt.cu.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                              reinterpret_cast<CUdeviceptr>(src), bytes,
                              rt.stream),
          "cuMemcpyAsync");
}
ECHO_EXPORT void mgpuMemset32(void *dst, unsigned value, size_t count,
                              CUstream) {
  const void *work[] = {dst, reinterpret_cast<void *>(size_t(value)),
                        reinterpret_cast<void *>(count)};
  noteStepWork(work, sizeof(work));
  if (ready() && !replayingStep())
    check(rt.cu.cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                 count, rt.stream),
          "cuMemsetD32Async");
}
ECHO_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                              CUstream) {
  const void *work[] = {dst, reinterpret_cast<void *>(size_t(value)),
                        reinterpret_cast<void *>(count)};
  noteStepWork(work, sizeof(work));
  if (ready() && !replayingStep())
    check(rt.cu.cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                 count, rt.stream),
          "cuMemsetD16Async");
}

//===----------------------------------------------------------------------===//
// Host API
//===----------------------------------------------------------------------===//

ECHO_EXPORT int echoCudaInit(int device) { return init(device) ? 0 : 1; }

ECHO_EXPORT const char *echoCudaGetError(void) {
  return hasError ? firstError.c_str() : nullptr;
}

ECHO_EXPORT const char *echoCudaDeviceName(void) { return rt.deviceName; }

ECHO_EXPORT int echoCudaRequireChip(const char *chip) {
  if (!ready())
    return 1;
  // sm_XY runs on compute capability X.Y and, through the PTX the fatbin
  // carries, on newer devices; sm_XYa only on X.Y; sm_XYf on X.Y and later
  // devices of family X.
  std::string digits;
  const char *p = chip ? chip : "";
  if (strncmp(p, "sm_", 3) == 0)
    for (p += 3; *p >= '0' && *p <= '9'; ++p)
      digits += *p;
  if (digits.size() < 2 || digits.size() > 3) {
    fail("echoCudaRequireChip: cannot read the chip '%s' (sm_XY)",
         chip ? chip : "");
    return 1;
  }
  int major = std::stoi(digits.substr(0, digits.size() - 1));
  int minor = digits.back() - '0';
  int need = major * 10 + minor, have = rt.ccMajor * 10 + rt.ccMinor;
  const char *rule = *p == 'a'   ? " exactly"
                     : *p == 'f' ? " or newer of the same family"
                                 : " or newer";
  if (have < need || (*p == 'a' && have != need) ||
      (*p == 'f' && rt.ccMajor != major)) {
    fail("GPU %d '%s' has compute capability %d.%d; the step was compiled "
         "for %s, which needs %d.%d%s: compile it with chip=sm_%d%d",
         rt.device, rt.deviceName, rt.ccMajor, rt.ccMinor, chip, major, minor,
         rule, rt.ccMajor, rt.ccMinor);
    return 1;
  }
  return 0;
}

ECHO_EXPORT void *echoCudaMalloc(size_t bytes) {
  return allocate(bytes,
                  "a buffer of the step's caller (argument, result or arena)");
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
  if (profiling())
    profileCollect();
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

//===----------------------------------------------------------------------===//
// Step graphs
//===----------------------------------------------------------------------===//

// ECHO_CUDA_GRAPH=1: a step is a few thousand small launches (a paper-size
// NMT: ~6,000 kernels and ~1,000 cuBLAS calls), and the host's launch
// rate, not the device, bounds it. The second step (the first loads
// modules, cuBLAS's kernels and the library workspace) is captured into a
// CUDA graph on the runtime's stream, and every later step replays it with
// one cuGraphLaunch: the step's host code still runs, but its launches,
// library calls and copies do nothing (replayingStep), since the graph
// holds them. The drivers (echo-run, a bundle's echo-step) start and end
// every step with echoCudaTimerStart/Stop and keep the step's device
// buffers from step to step, which is what a replay needs, and release
// the runtime's workspaces (echoCudaReleaseWorkspaces) when done with a
// step, which drops its graph: the next step object captures its own. Not
// with ECHO_CUDA_PROFILE (the profile times each launch) nor with a step
// that offloads (its copies run on a second stream).
namespace {
struct StepGraph {
  bool read = false, enabled = false;
  long steps = 0, replays = 0;
  bool capturing = false, replaying = false;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  std::string status = "off";
  /// What the captured step did, and what the step being replayed does
  /// (FNV-1a over noteStepWork's bytes).
  uint64_t captured = 0, work = 0;
  /// Each kernel's parameter sizes (cuFuncGetParamInfo).
  std::unordered_map<CUfunction, std::vector<size_t>> paramSizes;
} stepGraph;

constexpr uint64_t kWorkSeed = 14695981039346656037ull;

bool graphsWanted() {
  if (!stepGraph.read) {
    stepGraph.enabled = envFlag("ECHO_CUDA_GRAPH");
    stepGraph.read = true;
    if (stepGraph.enabled)
      stepGraph.status = "not captured yet";
  }
  return stepGraph.enabled;
}

/// At the start of a step: begins the capture (the second step) or a
/// replay (later ones); other steps run as usual.
void graphStepStarts() {
  StepGraph &g = stepGraph;
  if (!graphsWanted() || hasError)
    return;
  ++g.steps;
  if (g.exec) {
    g.replaying = true;
    g.work = kWorkSeed;
    return;
  }
  if (g.steps != 2)
    return;
  if (profiling() || echoCudaHostPoolBytes() > 0) {
    g.status = profiling() ? "not used: ECHO_CUDA_PROFILE times each launch"
                           : "not used: the step offloads (a second stream)";
    g.enabled = false;
    return;
  }
  CUresult result =
      rt.cu.cuStreamBeginCapture(rt.stream, CU_STREAM_CAPTURE_MODE_RELAXED);
  if (result != CUDA_SUCCESS) {
    g.status = std::string("not used: cuStreamBeginCapture failed: ") +
               errorName(result);
    g.enabled = false;
    return;
  }
  g.capturing = true;
  g.work = kWorkSeed;
}

/// At the end of a step: ends the capture and instantiates the graph, then
/// launches it (the captured step has not run yet), or launches it for a
/// replay.
bool graphStepEnds() {
  StepGraph &g = stepGraph;
  if (g.capturing) {
    g.capturing = false;
    CUgraph graph = nullptr;
    CUresult result = rt.cu.cuStreamEndCapture(rt.stream, &graph);
    if (result != CUDA_SUCCESS || hasError) {
      fail("ECHO_CUDA_GRAPH: capturing the step into a CUDA graph failed: "
           "%s (run without ECHO_CUDA_GRAPH)",
           result != CUDA_SUCCESS ? errorName(result) : "an error above");
      return false;
    }
    g.graph = graph;
    g.captured = g.work;
    if (!check(rt.cu.cuGraphInstantiate(&g.exec, g.graph, 0),
               "cuGraphInstantiate (ECHO_CUDA_GRAPH)"))
      return false;
  } else if (!g.replaying) {
    return true;
  } else if (g.work != g.captured) {
    g.replaying = false;
    fail("ECHO_CUDA_GRAPH: step %ld launches other kernels, or on other "
         "buffers, than the step captured into the CUDA graph (the driver "
         "must run one step on the same device buffers every time); run "
         "without ECHO_CUDA_GRAPH",
         g.steps);
    return false;
  }
  g.replaying = false;
  if (!check(rt.cu.cuGraphLaunch(g.exec, rt.stream),
             "cuGraphLaunch (ECHO_CUDA_GRAPH)"))
    return false;
  ++g.replays;
  g.status = "replayed " + std::to_string(g.replays) + " steps";
  return true;
}
} // namespace

bool echo::cuda::replayingStep() { return stepGraph.replaying; }

void echo::cuda::noteStepWork(const void *data, size_t bytes) {
  StepGraph &g = stepGraph;
  if (!g.capturing && !g.replaying)
    return;
  const unsigned char *p = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < bytes; ++i)
    g.work = (g.work ^ p[i]) * 1099511628211ull;
}

void echo::cuda::noteStepLaunch(CUfunction function, const intptr_t dims[6],
                                void **params, size_t paramsCount) {
  StepGraph &g = stepGraph;
  if (!g.capturing && !g.replaying)
    return;
  noteStepWork(&function, sizeof(function));
  noteStepWork(dims, 6 * sizeof(intptr_t));
  noteStepWork(&paramsCount, sizeof(paramsCount));
  // The arguments' bytes, where the driver says how many each has.
  if (!rt.cu.cuFuncGetParamInfo)
    return;
  auto [it, inserted] = g.paramSizes.try_emplace(function);
  if (inserted)
    for (size_t i = 0; i < paramsCount; ++i) {
      size_t offset = 0, size = 0;
      if (rt.cu.cuFuncGetParamInfo(function, i, &offset, &size) !=
          CUDA_SUCCESS) {
        it->second.clear();
        break;
      }
      it->second.push_back(size);
    }
  for (size_t i = 0; i < it->second.size(); ++i)
    noteStepWork(params[i], it->second[i]);
}

void echo::cuda::releaseStepGraph() {
  StepGraph &g = stepGraph;
  if (g.exec)
    rt.cu.cuGraphExecDestroy(g.exec);
  if (g.graph)
    rt.cu.cuGraphDestroy(g.graph);
  g.exec = nullptr;
  g.graph = nullptr;
  g.steps = 0;
  g.paramSizes.clear();
  g.capturing = g.replaying = false;
}

ECHO_EXPORT const char *echoCudaGraphStatus(void) {
  graphsWanted();
  return stepGraph.status.c_str();
}

ECHO_EXPORT void echoCudaTimerStart(void) {
  if (profiling() && ready())
    profileStepStarts();
  if (ready()) {
    check(rt.cu.cuEventRecord(rt.timerStart, rt.stream), "cuEventRecord");
    graphStepStarts();
  }
}

ECHO_EXPORT double echoCudaTimerStop(void) {
  float ms = 0.0f;
  if (!ready() || !graphStepEnds() ||
      !check(rt.cu.cuEventRecord(rt.timerStop, rt.stream), "cuEventRecord") ||
      echoCudaSynchronize() != 0 ||
      !check(rt.cu.cuEventElapsedTime(&ms, rt.timerStart, rt.timerStop),
             "cuEventElapsedTime"))
    return -1.0;
  return ms;
}
