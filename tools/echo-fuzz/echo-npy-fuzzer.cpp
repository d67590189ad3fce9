//===- echo-npy-fuzzer.cpp - libFuzzer target of the .npy parser ----------===//
//
// Part of the Echo project.
//
// Any input is parsed as a .npy file by the parser echo-run's --inputs
// uses (EchoHostData.h); when it parses, every data byte the shape needs
// is read. A crash or a sanitizer report is a bug.
//
//===----------------------------------------------------------------------===//

#include "EchoHostData.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::echo::host::NpyArray array;
  std::string error;
  const char *bytes = reinterpret_cast<const char *>(data);
  if (!mlir::echo::host::parseNpy(bytes, size, array, error)) {
    if (error.empty()) // a rejected file is always explained
      __builtin_trap();
    return 0;
  }
  if (array.data < bytes || array.dataSize > size ||
      array.data + array.dataSize != bytes + size)
    __builtin_trap(); // the data is the rest of the file
  volatile unsigned char sum = 0;
  for (uint64_t i = 0; i < array.dataSize; ++i)
    sum += static_cast<unsigned char>(array.data[i]);
  return 0;
}
