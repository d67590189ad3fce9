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
//   const char *echo_step_error(void);
//   const char *echo_step_signature_text(void);
//   const char *echo_step_memory_report_text(void);
//   uint64_t echo_step_peak_bytes(void);
//   uint64_t echo_step_workspace_bytes(void);
//
// `args` and `outs` point at contiguous row-major buffers in the order and
// of the shapes and element types the signature (EchoStepManifest.h) lists;
// the step reads the arguments and writes every result (the loss, then one
// gradient per parameter). Functions return 0 on success; on failure,
// echo_step_error() says why. Only target=cpu steps are built this way.
//
//===----------------------------------------------------------------------===//

#include "EchoCountingAllocator.h"
#include "EchoCpuRuntime.h"
#include "EchoHostData.h"
#include "EchoStepManifest.h"
#include "EchoStepObject.h"

#include <cstdint>
#include <string>
#include <vector>

// Absent from steps without library calls.
#pragma weak echoCpuInit
#pragma weak echoCpuGetError
#pragma weak echoCpuWorkspaceBytes
#pragma weak echoCpuSetAllocator

namespace {

/// The library's state: the step's signature, parsed once.
struct StepLibrary {
  mlir::echo::host::StepManifest signature;
  bool initialized = false;
  std::string error;
  size_t peakBytes = 0;
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> descriptorPtrs;
};

StepLibrary &library() {
  static StepLibrary lib;
  return lib;
}

int fail(const std::string &msg) {
  library().error = msg;
  return 1;
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
  lib.initialized = true;
  return 0;
}

ECHO_STEP_EXPORT int echo_step_run(void *const *args, void *const *outs) {
  StepLibrary &lib = library();
  if (!lib.initialized)
    return fail("echo_step_init was not called (or failed)");
  const mlir::echo::host::StepManifest &m = lib.signature;
  size_t k = 0;
  for (size_t i = 0; i < m.args.size(); ++i, ++k) {
    if (!args[i])
      return fail("argument " + std::to_string(i) + " is a null pointer");
    lib.descriptors[k] =
        mlir::echo::host::rowMajorDescriptor(args[i], m.args[i].shape);
  }
  for (size_t i = 0; i < m.outs.size(); ++i, ++k) {
    if (!outs[i])
      return fail("result " + std::to_string(i) + " is a null pointer");
    lib.descriptors[k] =
        mlir::echo::host::rowMajorDescriptor(outs[i], m.outs[i].shape);
  }
  for (size_t i = 0; i < lib.descriptors.size(); ++i)
    lib.descriptorPtrs[i] = lib.descriptors[i].data();
  mlir::echo::host::CountingAllocator &allocator =
      mlir::echo::host::getStepAllocator();
  allocator.resetPeak();
  echo_aot_step(lib.descriptorPtrs.data());
  lib.peakBytes = allocator.peakBytes();
  if (echoCpuGetError && echoCpuGetError())
    return fail(std::string("target=cpu: ") + echoCpuGetError());
  return 0;
}

ECHO_STEP_EXPORT uint64_t echo_step_peak_bytes(void) {
  return library().peakBytes;
}

ECHO_STEP_EXPORT uint64_t echo_step_workspace_bytes(void) {
  return echoCpuWorkspaceBytes ? echoCpuWorkspaceBytes() : 0;
}
