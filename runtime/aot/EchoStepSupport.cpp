//===- EchoStepSupport.cpp - What a CPU step calls besides the runtime ----===//
//
// Part of the Echo project.
//
// The functions a compiled CPU step calls that echo-run's JIT provides
// itself: MLIR's generic allocation functions (here on the counting
// allocator that measures every byte of the step) and the C runner's
// `memrefCopy` (libmlir_c_runner_utils needs libMLIR, which an
// ahead-of-time step must not). Linked into both the executable driver
// (libEchoStepMain.a) and the shared-library front (libEchoStepLibrary.a).
//
//===----------------------------------------------------------------------===//

#include "EchoCountingAllocator.h"

#include <cstdint>
#include <cstring>
#include <vector>

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
