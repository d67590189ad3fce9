// Loads a step library (echo-run --emit-library) with dlopen, as a host
// program would, and runs one step on the data echo-run draws from seed 0
// (EchoHostData.h): prints "step 0 loss L" as echo-run does.
#include "EchoHostData.h"
#include "EchoStepManifest.h"

#include <cstdint>
#include <cstdio>
#include <dlfcn.h>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::printf("error: %s\n", dlerror());
    return 1;
  }
  auto init = reinterpret_cast<int (*)()>(dlsym(lib, "echo_step_init"));
  auto run = reinterpret_cast<int (*)(void *const *, void *const *)>(
      dlsym(lib, "echo_step_run"));
  auto error =
      reinterpret_cast<const char *(*)()>(dlsym(lib, "echo_step_error"));
  auto signature = reinterpret_cast<const char *(*)()>(
      dlsym(lib, "echo_step_signature_text"));
  if (!init || !run || !error || !signature || init() != 0) {
    std::printf("error: cannot start the step\n");
    return 1;
  }
  mlir::echo::host::StepManifest m;
  if (!m.parse(signature(), "signature").empty())
    return 1;
  std::vector<std::vector<uint32_t>> storage;
  std::vector<void *> args, outs;
  for (size_t i = 0; i < m.args.size(); ++i) {
    const mlir::echo::host::StepTensor &t = m.args[i];
    storage.emplace_back(t.numElements());
    auto draw =
        t.dtype == "i32"
            ? mlir::echo::host::ArgumentDraw::forInteger(t.range)
            : mlir::echo::host::ArgumentDraw::forFloat(t.isParam, t.shape);
    draw.fill(storage.back().data(), t.numElements(), m.seed, i);
    args.push_back(storage.back().data());
  }
  for (const mlir::echo::host::StepTensor &t : m.outs) {
    storage.emplace_back(t.numElements());
    outs.push_back(storage.back().data());
  }
  if (run(args.data(), outs.data()) != 0) {
    std::printf("error: %s\n", error());
    return 1;
  }
  std::printf("step 0 loss %.6f\n", *static_cast<float *>(outs[0]));
  return 0;
}
