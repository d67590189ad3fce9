//===- EchoStepMain.cpp - Driver of an ahead-of-time training step --------===//
//
// Part of the Echo project.
//
// `echo-run --emit-aot=DIR` compiles a model's training step to an object
// file and links it with this driver into DIR/echo-step. The bundle needs
// neither MLIR nor LLVM to run, which is what the GPU machines lack:
//
//   DIR/echo-step [--steps=N] [--report=FILE] [--dump=DIR] [--quiet]
//                 [--bundle=DIR]
//
// It checks DIR/manifest.txt (the step's arguments and results, the seed,
// the optimizer) and DIR/memory.json against the signature and memory
// report compiled into the step's object (EchoStepManifest.h) and refuses a
// bundle whose files differ, draws the same parameters and data as echo-run
// (EchoHostData.h), runs the steps and writes the same report as
// `echo-run --report`: the memory report echo-run computed at compile time
// plus losses, step_time_ms and, on CUDA, the device, device_peak_bytes and
// cuDNN's algorithm for each convolution (conv_algorithms).
// `--dump` writes the first step's results as out<k>.npy, like echo-run.
// A step with an optimizer inside (arguments with the roles `state` and
// `hyper NAME`) starts its state at zero, gets its hyperparameters from the
// manifest (and the step count, 1, 2, ...) and updates parameters and state
// in place; its dump is the loss, then the updated parameters and states in
// argument order.
//
// A bundle for target=cuda also holds libEchoCudaRuntime.so (found through
// the executable's $ORIGIN rpath), one for target=cpu libEchoCpuRuntime.so
// when its step makes library calls; neither links the other, which is why
// the runtimes' host APIs are declared weak here.
//
//===----------------------------------------------------------------------===//

#include "EchoCountingAllocator.h"
#include "EchoCpuRuntime.h"
#include "EchoCudaRuntime.h"
#include "EchoHostData.h"
#include "EchoStepManifest.h"
#include "EchoStepObject.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

// Absent from CPU bundles: the driver checks before calling.
#pragma weak echoCudaInit
#pragma weak echoCudaGetError
#pragma weak echoCudaDeviceName
#pragma weak echoCudaRequireChip
#pragma weak echoCudaMalloc
#pragma weak echoCudaFree
#pragma weak echoCudaCopyToDevice
#pragma weak echoCudaCopyToHost
#pragma weak echoCudaPeakBytes
#pragma weak echoCudaHostPoolBytes
#pragma weak echoCudaReleaseWorkspaces
#pragma weak echoCudaHostPoolPeakBytes
#pragma weak echoCudaTimerStart
#pragma weak echoCudaTimerStop
#pragma weak echoCudaConvAlgorithms
#pragma weak echoCudaKernelProfile
#pragma weak echoCudaGraphStatus
// Absent from CUDA bundles and from CPU steps without library calls.
#pragma weak echoCpuInit
#pragma weak echoCpuGetError
#pragma weak echoCpuWorkspaceBytes
#pragma weak echoCpuSetAllocator
#pragma weak echoCpuHostPoolPeakBytes
#pragma weak echoCpuResetHostPoolPeak

namespace {

/// Prints `echo-step: <msg>` and returns the exit code 1.
int fail(const std::string &msg) {
  std::fprintf(stderr, "echo-step: %s\n", msg.c_str());
  return 1;
}

/// One argument or result as the step's signature describes it, with host
/// storage and the strided memref descriptor (allocated, aligned, offset,
/// sizes, strides) the step reads.
struct Tensor : mlir::echo::host::StepTensor {
  explicit Tensor(const mlir::echo::host::StepTensor &t) : StepTensor(t) {}

  /// 4-byte elements (8 for the i64 seed), from the counting allocator.
  struct Release {
    void operator()(uint32_t *p) const { mlir::echo::host::stepFree(p); }
  };
  std::unique_ptr<uint32_t[], Release> host;
  void *device = nullptr;
  std::vector<int64_t> descriptor;

  size_t bytes() const { return numElements() * (dtype == "i64" ? 8 : 4); }
  void allocate() {
    host.reset(static_cast<uint32_t *>(
        mlir::echo::host::stepAlignedAlloc(64, bytes())));
    std::memset(host.get(), 0, bytes());
  }
  void describe(void *ptr) {
    descriptor = mlir::echo::host::rowMajorDescriptor(ptr, shape);
  }
  float *f32() { return reinterpret_cast<float *>(host.get()); }
  int64_t *i64() { return reinterpret_cast<int64_t *>(host.get()); }
};

/// Reads `path` whole into `out`.
bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return !in.bad();
}

/// Reads DIR/manifest.txt and checks it against the step's signature, the
/// one the executable carries; returns an error message, empty when the
/// manifest describes this step. The driver then runs from the signature,
/// never from the text (a shape or a bound read from an edited file would
/// send the step past its buffers).
std::string checkBundleManifest(const std::string &path,
                                const mlir::echo::host::StepManifest &step) {
  std::string text;
  if (!readFile(path, text))
    return "cannot read " + path +
           " (is this an echo-run --emit-aot bundle? pass --bundle=DIR)";
  mlir::echo::host::StepManifest manifest;
  if (std::string e = manifest.parse(text, path); !e.empty())
    return e;
  return mlir::echo::host::checkManifest(manifest, step, path);
}

bool writeNpy(const std::string &path, const Tensor &t) {
  std::ofstream out(path, std::ios::binary);
  std::string header =
      mlir::echo::host::npyHeader(t.dtype == "f32"   ? "<f4"
                                  : t.dtype == "i64" ? "<i8"
                                                     : "<i4",
                                  t.shape);
  out.write(header.data(), header.size());
  out.write(reinterpret_cast<const char *>(t.host.get()), t.bytes());
  return static_cast<bool>(out);
}

std::string formatDouble(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

/// mkdir -p.
bool makeDirectories(const std::string &path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST)
      return false;
    if (slash == std::string::npos)
      return true;
  }
}

std::string directoryOfExecutable() {
  std::vector<char> buf(4096);
  ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0)
    return ".";
  std::string path(buf.data(), n);
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

/// The CUDA side: device copies of the arguments, results and arena.
struct Device {
  std::vector<void *> owned;

  ~Device() {
    for (void *p : owned)
      echoCudaFree(p);
    if (echoCudaReleaseWorkspaces)
      echoCudaReleaseWorkspaces();
  }
  static int error() {
    const char *e = echoCudaGetError();
    return fail(std::string("target=cuda: ") +
                (e ? e : "unknown CUDA runtime error"));
  }
  void *allocate(size_t bytes) {
    void *p = echoCudaMalloc(bytes);
    if (p)
      owned.push_back(p);
    return p;
  }
};

} // namespace

/// `text` as a count of steps: decimal digits only, from 1 to UINT_MAX
/// (strtoul alone takes a sign, leading blanks, and wraps what overflows).
static bool parseSteps(const char *text, unsigned &steps) {
  if (!std::isdigit(static_cast<unsigned char>(*text)))
    return false;
  errno = 0;
  char *end = nullptr;
  unsigned long long value = std::strtoull(text, &end, 10);
  if (errno == ERANGE || *end != '\0' || value < 1 ||
      value > std::numeric_limits<unsigned>::max())
    return false;
  steps = static_cast<unsigned>(value);
  return true;
}

int main(int argc, char **argv) {
  std::string bundle = directoryOfExecutable(), report, dump;
  unsigned steps = 1;
  bool quiet = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> const char * {
      size_t n = std::strlen(flag);
      return a.compare(0, n, flag) == 0 ? argv[i] + n : nullptr;
    };
    // A flag given with nothing after '=' (an unset shell variable) is an
    // error, not a flag left out.
    if (const char *v = value("--steps=")) {
      if (!parseSteps(v, steps))
        return fail("--steps must be an integer from 1 to " +
                    std::to_string(std::numeric_limits<unsigned>::max()) +
                    ", not '" + std::string(v) + "'");
    } else if (const char *v = value("--report=")) {
      if (*v == '\0')
        return fail("--report= needs a value (--report=FILE)");
      report = v;
    } else if (const char *v = value("--dump=")) {
      if (*v == '\0')
        return fail("--dump= needs a value (--dump=DIR)");
      dump = v;
    } else if (const char *v = value("--bundle=")) {
      if (*v == '\0')
        return fail("--bundle= needs a value (--bundle=DIR)");
      bundle = v;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: %s [--steps=N] [--report=FILE] [--dump=DIR] "
                  "[--quiet] [--bundle=DIR]\n",
                  argv[0]);
      return 0;
    } else {
      return fail("unknown option '" + a + "' (see --help)");
    }
  }

  // The step's signature is the truth; the bundle's text files must agree
  // with it before a byte is allocated.
  mlir::echo::host::StepManifest m;
  if (std::string e = m.parse(echo_step_signature, "the step's signature");
      !e.empty())
    return fail("the executable is damaged: " + e);
  if (static_cast<int64_t>(m.numDescriptors()) != echo_aot_num_descriptors)
    return fail("the executable is damaged: its signature lists " +
                std::to_string(m.numDescriptors()) +
                " step arguments but the step takes " +
                std::to_string(echo_aot_num_descriptors));
  if (std::string e = checkBundleManifest(bundle + "/manifest.txt", m);
      !e.empty())
    return fail(e);
  bool onGPU = m.target == "cuda";
  if (onGPU && !echoCudaInit)
    return fail("the bundle is for target=cuda but was linked without "
                "libEchoCudaRuntime");
  std::string memory;
  if (!readFile(bundle + "/memory.json", memory))
    return fail("cannot read " + bundle + "/memory.json");
  if (memory != echo_step_memory_report)
    return fail(bundle +
                "/memory.json differs from the memory report compiled into "
                "the step (it was edited, or is another bundle's)");
  while (!memory.empty() &&
         std::isspace(static_cast<unsigned char>(memory.back())))
    memory.pop_back();

  std::vector<Tensor> args(m.args.begin(), m.args.end()),
      outs(m.outs.begin(), m.outs.end());
  for (unsigned i = 0; i < args.size(); ++i) {
    Tensor &t = args[i];
    t.allocate();
    mlir::echo::host::ArgumentDraw draw =
        t.dtype == "i32"
            ? mlir::echo::host::ArgumentDraw::forInteger(t.range ? t.range : 2)
            : mlir::echo::host::ArgumentDraw::forFloat(t.isParam(), t.shape);
    // The optimizer's state starts at zero (allocate() zeroes); the
    // hyperparameters are set before each step.
    if (t.role == mlir::echo::host::ArgRole::Data ||
        t.role == mlir::echo::host::ArgRole::Param)
      draw.fill(t.host.get(), t.numElements(), m.seed, i);
  }
  // A step with an optimizer inside updates its parameters and state in
  // place and returns the loss alone.
  bool inPlace = false;
  for (const Tensor &t : args) {
    inPlace |= t.role == mlir::echo::host::ArgRole::State;
    double value;
    if (t.role == mlir::echo::host::ArgRole::Hyper &&
        !m.hyperValue(t.hyper, 1, value))
      return fail("the step takes hyperparameter '" + t.hyper +
                  "', which the manifest does not set");
  }
  for (Tensor &t : outs)
    t.allocate();

  Device device;
  std::vector<int64_t> arenaDescriptor;
  if (onGPU) {
    if (echoCudaInit(0) != 0 || (!m.chip.empty() && echoCudaRequireChip &&
                                 echoCudaRequireChip(m.chip.c_str()) != 0))
      return Device::error();
    for (std::vector<Tensor> *list : {&args, &outs})
      for (Tensor &t : *list) {
        t.device = device.allocate(t.bytes());
        if (!t.device)
          return Device::error();
        t.describe(t.device);
      }
    if (m.arenaBytes >= 0) {
      void *arena = device.allocate(m.arenaBytes);
      if (!arena && m.arenaBytes > 0)
        return Device::error();
      arenaDescriptor =
          mlir::echo::host::rowMajorDescriptor(arena, {m.arenaBytes});
    }
  } else {
    // OpenBLAS and oneDNN, opened by the CPU runtime: missing ones are
    // reported before the first step.
    if (echoCpuSetAllocator &&
        echoCpuSetAllocator(mlir::echo::host::workspaceAlloc,
                            mlir::echo::host::workspaceFree) != 0)
      return fail("target=cpu: the runtime's allocator cannot be set");
    if (echoCpuInit && echoCpuInit() != 0)
      return fail(std::string("target=cpu: ") + echoCpuGetError());
    for (std::vector<Tensor> *list : {&args, &outs})
      for (Tensor &t : *list)
        t.describe(t.host.get());
  }
  std::vector<void *> descriptors;
  for (std::vector<Tensor> *list : {&args, &outs})
    for (Tensor &t : *list)
      descriptors.push_back(t.descriptor.data());
  if (!arenaDescriptor.empty())
    descriptors.push_back(arenaDescriptor.data());

  // The most bytes live during a step: the caller's buffers, the step's
  // allocations, the CPU runtime's workspace.
  mlir::echo::host::CountingAllocator &allocator =
      mlir::echo::host::getStepAllocator();
  size_t measuredPeak = 0, measuredHostPeak = 0;
  std::vector<double> losses, times;
  for (unsigned step = 0; step < steps; ++step) {
    for (Tensor &t : args) {
      double value = 0;
      if (t.role == mlir::echo::host::ArgRole::Hyper &&
          m.hyperValue(t.hyper, step + 1, value))
        t.f32()[0] = static_cast<float>(value);
      // Dropout's masks: a fresh seed every step, as echo-run's.
      if (t.role == mlir::echo::host::ArgRole::Seed)
        t.i64()[0] = mlir::echo::host::stepSeed(m.seed, step);
    }
    double ms = 0;
    if (onGPU) {
      for (Tensor &t : args)
        if (echoCudaCopyToDevice(t.device, t.host.get(), t.bytes()) != 0)
          return Device::error();
      echoCudaTimerStart();
      echo_aot_step(descriptors.data());
      ms = echoCudaTimerStop();
      if (ms < 0 || echoCudaGetError())
        return Device::error();
      for (Tensor &t : outs)
        if (echoCudaCopyToHost(t.host.get(), t.device, t.bytes()) != 0)
          return Device::error();
      // Updated in place on the device: the host copies follow, for the
      // next upload and the dump.
      for (Tensor &t : args)
        if (inPlace &&
            (t.role == mlir::echo::host::ArgRole::Param ||
             t.role == mlir::echo::host::ArgRole::State) &&
            echoCudaCopyToHost(t.host.get(), t.device, t.bytes()) != 0)
          return Device::error();
    } else {
      allocator.resetPeak();
      if (echoCpuResetHostPoolPeak)
        echoCpuResetHostPoolPeak();
      auto start = std::chrono::steady_clock::now();
      echo_aot_step(descriptors.data());
      auto end = std::chrono::steady_clock::now();
      measuredPeak = std::max(measuredPeak, allocator.peakBytes());
      if (echoCpuHostPoolPeakBytes)
        measuredHostPeak =
            std::max(measuredHostPeak, echoCpuHostPoolPeakBytes());
      if (echoCpuGetError && echoCpuGetError())
        return fail(std::string("target=cpu: ") + echoCpuGetError());
      ms = std::chrono::duration<double, std::milli>(end - start).count();
    }
    times.push_back(ms);
    double loss = outs[0].f32()[0];
    losses.push_back(loss);
    if (!quiet)
      std::printf("step %u loss %.6f\n", step, loss);
    if (!std::isfinite(loss))
      return fail("the loss of step " + std::to_string(step) +
                  " is not finite (" + formatDouble(loss) + ")");
    if (step == 0 && !dump.empty()) {
      if (!makeDirectories(dump))
        return fail("cannot create " + dump + ": " + std::strerror(errno));
      // The results; with an optimizer inside, the loss and then the
      // parameters and states it updated, in argument order.
      std::vector<const Tensor *> dumped;
      for (const Tensor &t : outs)
        dumped.push_back(&t);
      for (const Tensor &t : args)
        if (inPlace && (t.role == mlir::echo::host::ArgRole::Param ||
                        t.role == mlir::echo::host::ArgRole::State))
          dumped.push_back(&t);
      for (size_t k = 0; k < dumped.size(); ++k) {
        std::string path = dump + "/out" + std::to_string(k) + ".npy";
        if (!writeNpy(path, *dumped[k]))
          return fail("cannot write " + path);
      }
    }
    if (inPlace)
      continue;
    // Advance the parameters: results 1.. are the gradients (or, with the
    // in-graph SGD, the updated parameters) of the parameters in order. An
    // integer parameter has no gradient: it stays.
    size_t k = 1;
    for (Tensor &p : args) {
      if (!p.isParam())
        continue;
      if (k >= outs.size())
        return fail("the step returns fewer results than there are "
                    "parameters");
      if (p.dtype != "f32") {
        ++k;
        continue;
      }
      mlir::echo::host::updateParameter(p.f32(), outs[k++].f32(),
                                        p.numElements(), m.optimizer == "sgd",
                                        m.lr);
    }
  }

  if (!report.empty()) {
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    // The first step includes one-time costs; report the median.
    double median = sorted.empty() ? 0 : sorted[sorted.size() / 2];
    std::string json = "[" + memory.substr(0, memory.size() - 1);
    json += ",\"target\":" + jsonString(m.target);
    json += ",\"steps\":" + std::to_string(steps);
    json += ",\"losses\":[";
    for (size_t i = 0; i < losses.size(); ++i)
      json += (i ? "," : "") + formatDouble(losses[i]);
    json += "],\"step_time_ms\":" + formatDouble(median);
    json += ",\"step_times_ms\":[";
    for (size_t i = 0; i < times.size(); ++i)
      json += (i ? "," : "") + formatDouble(times[i]);
    json += "]";
    if (onGPU) {
      json += ",\"device\":" + jsonString(echoCudaDeviceName());
      json += ",\"device_peak_bytes\":" + std::to_string(echoCudaPeakBytes());
      json += ",\"measured_peak_bytes\":" + std::to_string(echoCudaPeakBytes());
      json += ",\"measured_host_peak_bytes\":" +
              std::to_string(
                  echoCudaHostPoolPeakBytes ? echoCudaHostPoolPeakBytes() : 0);
      json +=
          ",\"host_pool_bytes\":" +
          std::to_string(echoCudaHostPoolBytes ? echoCudaHostPoolBytes() : 0);
      // cuDNN's choices (algorithm, workspace) for each convolution.
      if (echoCudaConvAlgorithms)
        json += std::string(",\"conv_algorithms\":") + echoCudaConvAlgorithms();
      if (echoCudaGraphStatus)
        json += ",\"cuda_graph\":" + jsonString(echoCudaGraphStatus());
      // ECHO_CUDA_PROFILE=1: device time per kernel and library call.
      if (const char *profile =
              echoCudaKernelProfile ? echoCudaKernelProfile() : nullptr)
        json += std::string(",\"kernel_profile\":") + profile;
    } else {
      json += ",\"measured_peak_bytes\":" + std::to_string(measuredPeak);
      json +=
          ",\"library_workspace_bytes\":" +
          std::to_string(echoCpuWorkspaceBytes ? echoCpuWorkspaceBytes() : 0);
      json +=
          ",\"measured_host_peak_bytes\":" + std::to_string(measuredHostPeak);
    }
    json += "}]\n";
    std::ofstream out(report);
    out << json;
    if (!out)
      return fail("cannot write " + report);
  }
  return 0;
}
