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
// It reads DIR/manifest.txt (the step's arguments and results, the seed,
// the optimizer), draws the same parameters and data as echo-run
// (EchoHostData.h), runs the steps and writes the same report as
// `echo-run --report`: the memory report echo-run computed at compile time
// (DIR/memory.json) plus losses, step_time_ms and, on CUDA, the device and
// device_peak_bytes. `--dump` writes the first step's results as
// out<k>.npy, like echo-run.
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

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
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
// Absent from CUDA bundles and from CPU steps without library calls.
#pragma weak echoCpuInit
#pragma weak echoCpuGetError
#pragma weak echoCpuWorkspaceBytes
#pragma weak echoCpuSetAllocator
#pragma weak echoCpuHostPoolPeakBytes
#pragma weak echoCpuResetHostPoolPeak

mlir::echo::host::CountingAllocator &mlir::echo::host::getStepAllocator() {
  static CountingAllocator allocator;
  return allocator;
}

extern "C" {
/// A CPU step's memref.alloc/dealloc (MLIR's generic allocation functions),
/// counted with every other byte of the step.
void *_mlir_memref_to_llvm_alloc(size_t bytes) {
  return mlir::echo::host::stepAlloc(bytes);
}
void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t bytes) {
  return mlir::echo::host::stepAlignedAlloc(alignment, bytes);
}
void _mlir_memref_to_llvm_free(void *p) { mlir::echo::host::stepFree(p); }

/// The packed entry point echo-run adds to the step's object: calls
/// `_mlir_ciface_<model>_train` with descriptors[0 .. n).
void echo_aot_step(void **descriptors);
/// How many descriptors echo_aot_step reads.
extern const int64_t echo_aot_num_descriptors;

/// MLIR's runner-utils ABI: an unranked memref is its rank and a pointer to
/// the ranked descriptor.
struct EchoUnrankedMemref {
  int64_t rank;
  void *descriptor;
};

/// What CPU steps call for strided memref.copy (MLIR's `memrefCopy` from
/// libmlir_c_runner_utils, which echo-run's JIT provides; that library
/// needs libMLIR, so the bundle carries its own).
void memrefCopy(int64_t elemSize, EchoUnrankedMemref *src,
                EchoUnrankedMemref *dst) {
  // Descriptor: allocated, aligned, offset, sizes[rank], strides[rank]; the
  // offset and strides count elements.
  int64_t rank = src->rank;
  auto *s = static_cast<int64_t *>(src->descriptor);
  auto *d = static_cast<int64_t *>(dst->descriptor);
  char *sBase = reinterpret_cast<char *>(s[1]);
  char *dBase = reinterpret_cast<char *>(d[1]);
  const int64_t *sizes = s + 3, *sStrides = s + 3 + rank;
  const int64_t *dStrides = d + 3 + rank;
  for (int64_t r = 0; r < rank; ++r)
    if (sizes[r] == 0)
      return;
  std::vector<int64_t> index(rank, 0);
  int64_t sOff = s[2], dOff = d[2];
  while (true) {
    std::memcpy(dBase + dOff * elemSize, sBase + sOff * elemSize, elemSize);
    int64_t r = rank - 1;
    for (; r >= 0; --r) {
      sOff += sStrides[r];
      dOff += dStrides[r];
      if (++index[r] < sizes[r])
        break;
      sOff -= sStrides[r] * sizes[r];
      dOff -= dStrides[r] * sizes[r];
      index[r] = 0;
    }
    if (r < 0)
      return;
  }
}
}

namespace {

/// Prints `echo-step: <msg>` and returns the exit code 1.
int fail(const std::string &msg) {
  std::fprintf(stderr, "echo-step: %s\n", msg.c_str());
  return 1;
}

/// One argument or result: host storage and the strided memref descriptor
/// (allocated, aligned, offset, sizes, strides) the step reads.
struct Tensor {
  std::string dtype; // "f32" or "i32"
  bool isParam = false;
  int64_t range = 0; // integers: drawn in [0, range)
  std::vector<int64_t> shape;
  /// 4-byte elements, from the counting allocator.
  struct Release {
    void operator()(uint32_t *p) const { mlir::echo::host::stepFree(p); }
  };
  std::unique_ptr<uint32_t[], Release> host;
  void *device = nullptr;
  std::vector<int64_t> descriptor;

  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    return n;
  }
  size_t bytes() const { return numElements() * 4; }
  void allocate() {
    host.reset(static_cast<uint32_t *>(
        mlir::echo::host::stepAlignedAlloc(64, bytes())));
    std::memset(host.get(), 0, bytes());
  }
  void describe(void *ptr) {
    descriptor = mlir::echo::host::rowMajorDescriptor(ptr, shape);
  }
  float *f32() { return reinterpret_cast<float *>(host.get()); }
};

/// DIR/manifest.txt, written by echo-run --emit-aot.
struct Manifest {
  std::string model, target, chip, optimizer;
  uint64_t seed = 0;
  double lr = 0;
  int64_t arenaBytes = -1; // >= 0: one device buffer passed last
  std::vector<Tensor> args, outs;

  /// Parses `path`; returns an error message, empty on success.
  std::string read(const std::string &path) {
    std::ifstream in(path);
    if (!in)
      return "cannot read " + path +
             " (is this an echo-run --emit-aot bundle? pass --bundle=DIR)";
    std::string line, key;
    unsigned lineNo = 0;
    while (std::getline(in, line)) {
      ++lineNo;
      std::istringstream is(line);
      if (!(is >> key))
        continue;
      auto bad = [&] {
        return path + ":" + std::to_string(lineNo) + ": malformed line '" +
               line + "'";
      };
      if (lineNo == 1) {
        int version = 0;
        if (key != "echo-step-bundle" || !(is >> version) || version != 1)
          return path + ": not an echo-step bundle manifest of version 1";
      } else if (key == "model") {
        is >> model;
      } else if (key == "target") {
        is >> target;
      } else if (key == "chip") {
        is >> chip;
      } else if (key == "optimizer") {
        is >> optimizer;
      } else if (key == "seed") {
        is >> seed;
      } else if (key == "lr") {
        is >> lr;
      } else if (key == "arena_bytes") {
        is >> arenaBytes;
      } else if (key == "arg" || key == "out") {
        Tensor t;
        size_t index = 0, rank = 0;
        std::string role = "result";
        if (!(is >> index >> t.dtype))
          return bad();
        if (key == "arg" && !(is >> role >> t.range))
          return bad();
        if (!(is >> rank))
          return bad();
        t.shape.resize(rank);
        for (int64_t &d : t.shape)
          if (!(is >> d) || d < 0)
            return bad();
        if (t.dtype != "f32" && t.dtype != "i32")
          return bad();
        t.isParam = role == "param";
        std::vector<Tensor> &list = key == "arg" ? args : outs;
        if (index != list.size())
          return bad();
        list.push_back(std::move(t));
      } else {
        return path + ":" + std::to_string(lineNo) + ": unknown key '" + key +
               "'";
      }
      if (is.fail())
        return bad();
    }
    if (model.empty() || (target != "cpu" && target != "cuda") ||
        (optimizer != "none" && optimizer != "sgd") || outs.empty())
      return path + ": incomplete manifest";
    return "";
  }
};

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool writeNpy(const std::string &path, const Tensor &t) {
  std::ofstream out(path, std::ios::binary);
  std::string header =
      mlir::echo::host::npyHeader(t.dtype == "f32" ? "<f4" : "<i4", t.shape);
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
    if (const char *v = value("--steps=")) {
      char *end = nullptr;
      long s = std::strtol(v, &end, 10);
      if (*v == '\0' || *end != '\0' || s < 0)
        return fail("--steps must be a non-negative integer, not '" +
                    std::string(v) + "'");
      steps = static_cast<unsigned>(s);
    } else if (const char *v = value("--report=")) {
      report = v;
    } else if (const char *v = value("--dump=")) {
      dump = v;
    } else if (const char *v = value("--bundle=")) {
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

  Manifest m;
  if (std::string e = m.read(bundle + "/manifest.txt"); !e.empty())
    return fail(e);
  bool onGPU = m.target == "cuda";
  size_t numDescriptors =
      m.args.size() + m.outs.size() + (m.arenaBytes >= 0 ? 1 : 0);
  if (static_cast<int64_t>(numDescriptors) != echo_aot_num_descriptors)
    return fail("the manifest describes " + std::to_string(numDescriptors) +
                " step arguments but the step takes " +
                std::to_string(echo_aot_num_descriptors) +
                " (manifest and executable are from different bundles)");
  if (onGPU && !echoCudaInit)
    return fail("the bundle is for target=cuda but was linked without "
                "libEchoCudaRuntime");
  std::string memory = readFile(bundle + "/memory.json");
  while (!memory.empty() &&
         std::isspace(static_cast<unsigned char>(memory.back())))
    memory.pop_back();
  if (memory.size() < 2 || memory.front() != '{' || memory.back() != '}')
    return fail("cannot read " + bundle + "/memory.json");

  for (unsigned i = 0; i < m.args.size(); ++i) {
    Tensor &t = m.args[i];
    t.allocate();
    mlir::echo::host::ArgumentDraw draw =
        t.dtype == "i32"
            ? mlir::echo::host::ArgumentDraw::forInteger(t.range)
            : mlir::echo::host::ArgumentDraw::forFloat(t.isParam, t.shape);
    draw.fill(t.host.get(), t.numElements(), m.seed, i);
  }
  for (Tensor &t : m.outs)
    t.allocate();

  Device device;
  std::vector<int64_t> arenaDescriptor;
  if (onGPU) {
    if (echoCudaInit(0) != 0 || (!m.chip.empty() && echoCudaRequireChip &&
                                 echoCudaRequireChip(m.chip.c_str()) != 0))
      return Device::error();
    for (std::vector<Tensor> *list : {&m.args, &m.outs})
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
    for (std::vector<Tensor> *list : {&m.args, &m.outs})
      for (Tensor &t : *list)
        t.describe(t.host.get());
  }
  std::vector<void *> descriptors;
  for (std::vector<Tensor> *list : {&m.args, &m.outs})
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
    double ms = 0;
    if (onGPU) {
      for (Tensor &t : m.args)
        if (echoCudaCopyToDevice(t.device, t.host.get(), t.bytes()) != 0)
          return Device::error();
      echoCudaTimerStart();
      echo_aot_step(descriptors.data());
      ms = echoCudaTimerStop();
      if (ms < 0 || echoCudaGetError())
        return Device::error();
      for (Tensor &t : m.outs)
        if (echoCudaCopyToHost(t.host.get(), t.device, t.bytes()) != 0)
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
    double loss = m.outs[0].f32()[0];
    losses.push_back(loss);
    if (!quiet)
      std::printf("step %u loss %.6f\n", step, loss);
    if (!std::isfinite(loss))
      return fail("the loss of step " + std::to_string(step) +
                  " is not finite (" + formatDouble(loss) + ")");
    if (step == 0 && !dump.empty()) {
      if (!makeDirectories(dump))
        return fail("cannot create " + dump + ": " + std::strerror(errno));
      for (size_t k = 0; k < m.outs.size(); ++k) {
        std::string path = dump + "/out" + std::to_string(k) + ".npy";
        if (!writeNpy(path, m.outs[k]))
          return fail("cannot write " + path);
      }
    }
    // Advance the parameters: results 1.. are the gradients (or, with the
    // in-graph SGD, the updated parameters) of the parameters in order. An
    // integer parameter has no gradient: it stays.
    size_t k = 1;
    for (Tensor &p : m.args) {
      if (!p.isParam)
        continue;
      if (k >= m.outs.size())
        return fail("the step returns fewer results than there are "
                    "parameters");
      if (p.dtype != "f32") {
        ++k;
        continue;
      }
      mlir::echo::host::updateParameter(p.f32(), m.outs[k++].f32(),
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
