//===- HostTensor.cpp - Host buffers of a training step's values ----------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Runner/HostTensor.h"
#include "echo/Analysis/MemoryAnalysis.h"

#include "EchoCountingAllocator.h"
#include "EchoHostData.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::echo;

host::CountingAllocator &host::getStepAllocator() {
  static CountingAllocator allocator;
  return allocator;
}

/// The runner's scratch tensors: never counted.
static host::CountingAllocator &getUncountedAllocator() {
  static host::CountingAllocator allocator;
  return allocator;
}

void HostTensor::Release::operator()(void *p) const {
  (counted ? host::getStepAllocator() : getUncountedAllocator()).release(p);
}

HostTensor::HostTensor(RankedTensorType type, Counted counted)
    : type(type), storage(nullptr, Release{counted == Counted::Yes}) {
  size_t bytes = getByteSize();
  host::CountingAllocator &allocator = counted == Counted::Yes
                                           ? host::getStepAllocator()
                                           : getUncountedAllocator();
  void *p = allocator.allocate(bytes, 64);
  if (!p) {
    llvm::errs() << "echo-run: out of memory: cannot allocate a " << bytes
                 << "-byte tensor of type " << type << "\n";
    std::exit(1);
  }
  std::memset(p, 0, bytes);
  storage.reset(p);
  descriptor = host::rowMajorDescriptor(storage.get(), getShape());
}

HostTensor HostTensor::copy(Counted counted) const {
  HostTensor c(type, counted);
  std::memcpy(c.data(), data(), getByteSize());
  return c;
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
  if (type.getElementType().isInteger(64))
    return static_cast<double>(static_cast<const int64_t *>(data())[i]);
  return static_cast<const int32_t *>(data())[i];
}

void HostTensor::set(int64_t i, double v) {
  if (isF32())
    static_cast<float *>(data())[i] = static_cast<float>(v);
  else if (isF64())
    static_cast<double *>(data())[i] = v;
  else if (type.getElementType().isInteger(64))
    static_cast<int64_t *>(data())[i] = static_cast<int64_t>(v);
  else
    static_cast<int32_t *>(data())[i] = static_cast<int32_t>(v);
}

int64_t *HostTensor::getDescriptor() {
  auto ptr = reinterpret_cast<int64_t>(storage.get());
  descriptor[0] = ptr;
  descriptor[1] = ptr;
  return descriptor.data();
}
