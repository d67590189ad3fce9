//===- HostTensor.cpp - Host buffers of a training step's values ----------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Runner/HostTensor.h"
#include "echo/Analysis/MemoryAnalysis.h"

#include "EchoHostData.h"

using namespace mlir;
using namespace mlir::echo;

HostTensor::HostTensor(RankedTensorType type) : type(type) {
  storage.resize((getByteSize() + 7) / 8 + 1, 0);
  descriptor = host::rowMajorDescriptor(storage.data(), getShape());
}

std::vector<int64_t> HostTensor::getShape() const {
  return std::vector<int64_t>(type.getShape().begin(), type.getShape().end());
}

size_t HostTensor::getByteSize() const { return getTensorBytes(type); }

double HostTensor::get(int64_t i) const {
  if (isF32())
    return static_cast<const float *>(data())[i];
  if (isF64())
    return static_cast<const double *>(data())[i];
  return static_cast<const int32_t *>(data())[i];
}

void HostTensor::set(int64_t i, double v) {
  if (isF32())
    static_cast<float *>(data())[i] = static_cast<float>(v);
  else if (isF64())
    static_cast<double *>(data())[i] = v;
  else
    static_cast<int32_t *>(data())[i] = static_cast<int32_t>(v);
}

int64_t *HostTensor::getDescriptor() {
  auto ptr = reinterpret_cast<int64_t>(storage.data());
  descriptor[0] = ptr;
  descriptor[1] = ptr;
  return descriptor.data();
}
