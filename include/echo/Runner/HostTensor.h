//===- HostTensor.h - Host buffers of a training step's values --*- C++ -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNNER_HOSTTENSOR_H
#define ECHO_RUNNER_HOSTTENSOR_H

#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mlir::echo {

/// A host buffer holding one argument or result of a compiled step, with the
/// strided memref descriptor that the `_mlir_ciface_` entry points take.
/// Elements are f32, f64, i32 or i64 (the step's seed). The storage of a step's argument or result
/// comes from the counting allocator that measures the step's memory
/// (host::getStepAllocator(), runtime/aot/EchoCountingAllocator.h); the
/// runner's own scratch tensors (the gradient check's) are not counted.
/// Move-only.
class HostTensor {
public:
  enum class Counted { Yes, No };
  explicit HostTensor(RankedTensorType type, Counted counted = Counted::Yes);

  /// A copy of the elements in a new buffer.
  HostTensor copy(Counted counted) const;

  /// The tensor type the buffer holds.
  RankedTensorType getType() const { return type; }
  /// The shape, as the descriptor and .npy files write it.
  std::vector<int64_t> getShape() const;
  int64_t getNumElements() const { return type.getNumElements(); }
  size_t getByteSize() const;
  void *data() { return storage.get(); }
  const void *data() const { return storage.get(); }
  bool isF32() const { return type.getElementType().isF32(); }
  bool isF64() const { return type.getElementType().isF64(); }

  /// Element `i`, converted to double.
  double get(int64_t i) const;
  /// Sets element `i` (rounded to the element type).
  void set(int64_t i, double v);

  /// The descriptor, pointed at the storage (which moves when the tensor is
  /// copied).
  int64_t *getDescriptor();

private:
  struct Release {
    bool counted;
    void operator()(void *p) const;
  };
  RankedTensorType type;
  std::unique_ptr<void, Release> storage; // 64-byte aligned, zeroed
  std::vector<int64_t> descriptor;
};

} // namespace mlir::echo

#endif // ECHO_RUNNER_HOSTTENSOR_H
