//===- EchoStepLibrary.cpp - A compiled step as a shared library ----------===//
//
// Part of the Echo project.
//
// `echo-run --emit-library=DIR` links a model's compiled training step with
// this front into DIR/libechostep.so, which a host program (Python's
// `echo.torch.compile_step`, through ctypes) loads and calls with its own
// buffers: no MLIR, no LLVM, no copy. The C ABI:
//
//   int echo_step_init(void);
//   int echo_step_run(void *const *args, void *const *outs);
//   int echo_step_run_wide(void *const *args, const unsigned char *wide,
//                          void *const *outs);
//   const char *echo_step_error(void);
//   const char *echo_step_signature_text(void);
//   const char *echo_step_memory_report_text(void);
//   uint64_t echo_step_peak_bytes(void);
//   uint64_t echo_step_workspace_bytes(void);
//   void echo_step_release(void);
//
// `args` and `outs` point at contiguous row-major buffers in the order and
// of the shapes and element types the signature (EchoStepManifest.h) lists;
// the step reads the arguments and writes every result (the loss, then one
// gradient per parameter). With echo_step_run_wide, an i32 argument i for
// which `wide[i]` is nonzero is given as int64 (PyTorch's ids and labels).
// Functions return 0 on success; on failure, echo_step_error() says why:
//   1  the step failed (a library call's error, a damaged library);
//   2  an integer argument holds a value outside the range its uses accept
//      (ids in [0, V), labels in [0, C) or the loss's ignore_index): every
//      integer argument is checked, on its full 64-bit values, before the
//      step reads anything;
//   3  the step ran out of memory (its own buffers, or the CPU runtime's
//      workspace or attention tiles): it was abandoned, what it had
//      allocated is freed, and the process goes on.
// Calls are serialized: one step runs at a time. echo_step_release() gives
// back the memory the library keeps between steps (its arena, kept to
// spare the next step the page faults). Only target=cpu steps are built
// this way.
//
//===----------------------------------------------------------------------===//

#include "EchoCountingAllocator.h"
#include "EchoCpuRuntime.h"
#include "EchoHostData.h"
#include "EchoStepManifest.h"
#include "EchoStepObject.h"

#include <csetjmp>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <new>
#include <string>
#include <vector>

// Absent from steps without library calls.
#pragma weak echoCpuInit
#pragma weak echoCpuGetError
#pragma weak echoCpuWorkspaceBytes
#pragma weak echoCpuSetAllocator
#pragma weak echoCpuErrorIsOutOfMemory
#pragma weak echoCpuClearError

namespace {

using mlir::echo::host::CountingAllocator;
using mlir::echo::host::StepTensor;

/// echo_step_run's return codes (see the file comment).
enum StepStatus { Ok = 0, Failed = 1, OutOfRange = 2, OutOfMemory = 3 };

/// The library's state: the step's signature, parsed once.
struct StepLibrary {
  mlir::echo::host::StepManifest signature;
  bool initialized = false;
  std::string error;
  size_t peakBytes = 0;
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> descriptorPtrs;
  /// The i32 copies of integer arguments given as int64, per argument
  /// (made at the first such call): the step's own arguments, whose bytes
  /// the caller counts as the argument's (not the allocator).
  std::vector<std::vector<int32_t>> narrowed;
  /// One step at a time: the descriptors, the narrowed ids and the
  /// allocator's peak are the library's, not the caller's.
  std::mutex running;
};

StepLibrary &library() {
  static StepLibrary lib;
  return lib;
}

int fail(const std::string &msg, StepStatus status = Failed) {
  library().error = msg;
  return status;
}

/// Where a step that runs out of memory unwinds to: set while this thread
/// runs the generated step (no frame between holds anything to destroy).
thread_local std::jmp_buf *outOfMemoryJump = nullptr;
/// What the step asked for when it ran out.
size_t outOfMemoryBytes = 0, outOfMemoryLive = 0;

void onStepOutOfMemory(size_t bytes, size_t liveBytes) {
  if (std::jmp_buf *jump = outOfMemoryJump) {
    outOfMemoryBytes = bytes;
    outOfMemoryLive = liveBytes;
    std::longjmp(*jump, 1);
  }
  // Another thread than the one running the step: nothing to unwind to.
  std::fprintf(stderr,
               "echo: out of memory: the training step asked for %zu bytes "
               "(%zu bytes already allocated) on a worker thread\n",
               bytes, liveBytes);
  std::abort();
}

/// Runs the generated step; false when it ran out of memory (and was
/// abandoned: its own allocations are freed).
bool runStep(void **descriptors) {
  std::jmp_buf jump;
  if (setjmp(jump)) {
    outOfMemoryJump = nullptr;
    mlir::echo::host::getStepAllocator().releaseTracked();
    return false;
  }
  outOfMemoryJump = &jump;
  echo_aot_step(descriptors);
  outOfMemoryJump = nullptr;
  return true;
}

/// The position of element `e` of `shape`, as NumPy prints it.
std::string position(const std::vector<int64_t> &shape, int64_t e) {
  std::vector<int64_t> index(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index[d] = shape[d] ? e % shape[d] : 0;
    e = shape[d] ? e / shape[d] : 0;
  }
  std::string s;
  for (size_t i = 0; i < index.size(); ++i)
    s += (i ? ", " : "") + std::to_string(index[i]);
  return "[" + s + "]";
}

/// Checks integer argument `i` (`values`, of `T`) against the range its
/// uses accept: [0, range), or the ignored index.
template <typename T>
int checkIndices(size_t i, const StepTensor &t, const T *values) {
  int64_t n = t.numElements();
  for (int64_t e = 0; e < n; ++e) {
    int64_t v = static_cast<int64_t>(values[e]);
    if ((v >= 0 && v < t.range) || (t.hasIgnored && v == t.ignored))
      continue;
    std::string accepted = "[0, " + std::to_string(t.range) + ")";
    if (t.hasIgnored)
      accepted += " or " + std::to_string(t.ignored) + " (ignored)";
    return fail("argument " + std::to_string(i) + ": value " +
                    std::to_string(v) + " at " + position(t.shape, e) +
                    " is outside " + accepted +
                    ", what its uses accept (ids below the table's rows, "
                    "labels below the classes)",
                OutOfRange);
  }
  return Ok;
}

} // namespace

#define ECHO_STEP_EXPORT extern "C" __attribute__((visibility("default")))

ECHO_STEP_EXPORT const char *echo_step_error(void) {
  return library().error.c_str();
}

ECHO_STEP_EXPORT const char *echo_step_signature_text(void) {
  return echo_step_signature;
}

ECHO_STEP_EXPORT const char *echo_step_memory_report_text(void) {
  return echo_step_memory_report;
}

ECHO_STEP_EXPORT int echo_step_init(void) {
  StepLibrary &lib = library();
  std::lock_guard<std::mutex> lock(lib.running);
  if (lib.initialized)
    return 0;
  if (std::string e =
          lib.signature.parse(echo_step_signature, "the step's signature");
      !e.empty())
    return fail("the library is damaged: " + e);
  if (static_cast<int64_t>(lib.signature.numDescriptors()) !=
      echo_aot_num_descriptors)
    return fail("the library is damaged: its signature lists " +
                std::to_string(lib.signature.numDescriptors()) +
                " step arguments but the step takes " +
                std::to_string(echo_aot_num_descriptors));
  if (lib.signature.target != "cpu")
    return fail("the step was compiled for target=" + lib.signature.target +
                "; a step library runs target=cpu steps");
  // OpenBLAS and oneDNN, opened by the CPU runtime; its workspace counted
  // with the step's other bytes.
  if (echoCpuSetAllocator &&
      echoCpuSetAllocator(mlir::echo::host::workspaceAlloc,
                          mlir::echo::host::workspaceFree) != 0)
    return fail("the CPU runtime's allocator cannot be set");
  if (echoCpuInit && echoCpuInit() != 0)
    return fail(std::string("target=cpu: ") + echoCpuGetError());
  size_t n = lib.signature.args.size() + lib.signature.outs.size();
  lib.descriptors.resize(n);
  lib.descriptorPtrs.resize(n);
  mlir::echo::host::getStepAllocator().outOfMemory = onStepOutOfMemory;
  lib.initialized = true;
  return 0;
}

ECHO_STEP_EXPORT int echo_step_run_wide(void *const *args,
                                        const unsigned char *wide,
                                        void *const *outs) {
  StepLibrary &lib = library();
  std::lock_guard<std::mutex> lock(lib.running);
  if (!lib.initialized)
    return fail("echo_step_init was not called (or failed)");
  const mlir::echo::host::StepManifest &m = lib.signature;
  CountingAllocator &allocator = mlir::echo::host::getStepAllocator();
  size_t k = 0;
  for (size_t i = 0; i < m.args.size(); ++i, ++k) {
    const StepTensor &t = m.args[i];
    if (!args[i])
      return fail("argument " + std::to_string(i) + " is a null pointer");
    void *data = args[i];
    bool isWide = wide && wide[i];
    if (isWide && t.dtype != "i32")
      return fail("argument " + std::to_string(i) + " is " + t.dtype +
                  ", not an i32 argument that may be given as int64");
    if (t.dtype == "i32" && t.range > 0) {
      int status = isWide ? checkIndices(i, t, static_cast<int64_t *>(data))
                          : checkIndices(i, t, static_cast<int32_t *>(data));
      if (status != Ok)
        return status;
    }
    if (isWide) {
      if (lib.narrowed.empty())
        lib.narrowed.resize(m.args.size());
      int64_t n = t.numElements();
      std::vector<int32_t> &copy = lib.narrowed[i];
      try {
        copy.resize(std::max<int64_t>(n, 1));
      } catch (const std::bad_alloc &) {
        return fail("out of memory for the i32 copy of argument " +
                        std::to_string(i),
                    OutOfMemory);
      }
      auto *from = static_cast<const int64_t *>(data);
      for (int64_t e = 0; e < n; ++e)
        copy[e] = static_cast<int32_t>(from[e]);
      data = copy.data();
    }
    lib.descriptors[k] = mlir::echo::host::rowMajorDescriptor(data, t.shape);
  }
  for (size_t i = 0; i < m.outs.size(); ++i, ++k) {
    if (!outs[i])
      return fail("result " + std::to_string(i) + " is a null pointer");
    lib.descriptors[k] =
        mlir::echo::host::rowMajorDescriptor(outs[i], m.outs[i].shape);
  }
  for (size_t i = 0; i < lib.descriptors.size(); ++i)
    lib.descriptorPtrs[i] = lib.descriptors[i].data();
  allocator.resetPeak();
  bool ran = runStep(lib.descriptorPtrs.data());
  lib.peakBytes = allocator.peakBytes();
  if (!ran)
    return fail("out of memory: the training step asked for " +
                    std::to_string(outOfMemoryBytes) + " bytes (" +
                    std::to_string(outOfMemoryLive) +
                    " bytes already allocated); the step was abandoned and "
                    "its memory freed",
                OutOfMemory);
  if (echoCpuGetError && echoCpuGetError()) {
    // The runtime could not allocate its workspace or attention's tiles:
    // the step's results are void, its memory is freed, and the next step
    // may run (the runtime forgets the error).
    if (echoCpuErrorIsOutOfMemory && echoCpuErrorIsOutOfMemory()) {
      int status = fail(std::string("target=cpu: ") + echoCpuGetError() +
                            "; the step was abandoned",
                        OutOfMemory);
      echoCpuClearError();
      return status;
    }
    return fail(std::string("target=cpu: ") + echoCpuGetError());
  }
  return Ok;
}

ECHO_STEP_EXPORT int echo_step_run(void *const *args, void *const *outs) {
  return echo_step_run_wide(args, nullptr, outs);
}

ECHO_STEP_EXPORT void echo_step_release(void) {
  StepLibrary &lib = library();
  std::lock_guard<std::mutex> lock(lib.running);
  mlir::echo::host::getStepAllocator().trim();
}

ECHO_STEP_EXPORT uint64_t echo_step_peak_bytes(void) {
  return library().peakBytes;
}

ECHO_STEP_EXPORT uint64_t echo_step_workspace_bytes(void) {
  return echoCpuWorkspaceBytes ? echoCpuWorkspaceBytes() : 0;
}
