//===- EchoCountingAllocator.h - Every byte a CPU step allocates -*- C++
//-*-===//
//
// Part of the Echo project.
//
// One allocator for every host byte of a training step, shared by echo-run
// and the ahead-of-time driver (echo-step) like EchoHostData.h:
//
//  * the caller's buffers: parameters, data, results (gradients or updated
//    parameters);
//  * the step's own allocations: the planned arena and whatever was left
//    out of it. The CPU lowering converts memref.alloc/dealloc to MLIR's
//    generic allocation functions (`_mlir_memref_to_llvm_aligned_alloc`,
//    `_mlir_memref_to_llvm_free`), which the driver defines with this
//    allocator;
//  * the CPU runtime's library workspace (oneDNN's scratchpad), through
//    echoCpuSetAllocator.
//
// It counts the bytes asked for (not malloc's headers or alignment padding)
// and keeps their high-water mark: `measured_peak_bytes` of the report.
//
// A large block (kReuseBytes or more: malloc maps those afresh and unmaps
// them at free) is kept when released and handed back to the next request
// of exactly its size and alignment: the planned arena, freed at the end of
// a step and allocated again at the start of the next, then costs no page
// faults (a 150 MB arena: ~37k faults and the zeroing of every page, 50 ms
// a step on the machines here). A request that no kept block fits frees
// them all first, so the process never holds a kept block beside newly
// obtained memory: what it holds stays within the counted peak. Kept blocks
// live until then or until the process ends (the allocator has no
// destructor: a buffer released during static destruction must still find
// it whole).
// Allocations are rare (a few per step): a mutex guards the kept blocks.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNTIME_AOT_ECHOCOUNTINGALLOCATOR_H
#define ECHO_RUNTIME_AOT_ECHOCOUNTINGALLOCATOR_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace mlir::echo::host {

class CountingAllocator {
public:
  /// Called when a step's own allocation fails, with the bytes asked for
  /// and those already allocated (see stepAlignedAlloc); it does not return
  /// normally (it reports and exits, or unwinds to the step's caller).
  using OutOfMemoryHandler = void (*)(size_t bytes, size_t liveBytes);
  OutOfMemoryHandler outOfMemory = nullptr;

  /// `bytes` aligned to `alignment` (a power of two; at least 16 is used),
  /// or null when the system has no memory left (or `bytes` is absurd).
  /// A `tracked` block is one of the step's own allocations:
  /// releaseTracked() frees those still live (after a step was abandoned).
  void *allocate(size_t bytes, size_t alignment, bool tracked = false) {
    if (alignment < alignof(Header))
      alignment = alignof(Header);
    if (alignment & (alignment - 1))
      return nullptr;
    if (bytes > SIZE_MAX - alignment - sizeof(Header))
      return nullptr;
    Header *header = takeKept(bytes, alignment);
    if (!header) {
      void *raw = std::malloc(bytes + alignment + sizeof(Header));
      if (!raw)
        return nullptr;
      uintptr_t p = reinterpret_cast<uintptr_t>(raw) + sizeof(Header);
      p = (p + alignment - 1) & ~(uintptr_t(alignment) - 1);
      header = reinterpret_cast<Header *>(p) - 1;
      header->raw = raw;
      header->bytes = bytes;
      header->alignment = alignment;
    }
    header->prev = header->next = nullptr;
    header->tracked = tracked;
    if (tracked) {
      std::lock_guard<std::mutex> lock(keptMutex);
      header->next = trackedHead;
      if (trackedHead)
        trackedHead->prev = header;
      trackedHead = header;
    }
    size_t now = live.fetch_add(bytes) + bytes;
    size_t seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    return header + 1;
  }

  /// Frees what allocate() returned (null is ignored).
  void release(void *p) {
    if (!p)
      return;
    Header *header = static_cast<Header *>(p) - 1;
    live.fetch_sub(header->bytes);
    std::lock_guard<std::mutex> lock(keptMutex);
    if (header->tracked)
      unlinkLocked(header);
    if (header->bytes >= kReuseBytes && numKept < kMaxKept) {
      kept[numKept++] = header;
      return;
    }
    std::free(header->raw);
  }

  /// Frees the tracked blocks still live: what a step that was abandoned
  /// midway (out of memory) had allocated.
  void releaseTracked() {
    for (;;) {
      Header *header;
      {
        std::lock_guard<std::mutex> lock(keptMutex);
        header = trackedHead;
      }
      if (!header)
        return;
      release(header + 1);
    }
  }

  /// Frees the kept blocks: the process gives their memory back now rather
  /// than at the next step (a step library that is not about to run).
  void trim() {
    std::lock_guard<std::mutex> lock(keptMutex);
    freeKeptLocked();
  }

  /// Bytes held in kept blocks (released, not yet given back).
  size_t keptBytes() {
    std::lock_guard<std::mutex> lock(keptMutex);
    size_t bytes = 0;
    for (unsigned i = 0; i < numKept; ++i)
      bytes += kept[i]->bytes;
    return bytes;
  }

  /// Bytes allocated and not yet released.
  size_t liveBytes() const { return live.load(); }
  /// The most bytes live at once since the last resetPeak().
  size_t peakBytes() const { return peak.load(); }
  /// Starts a new high-water mark from what is live now.
  void resetPeak() { peak.store(live.load()); }

  /// Blocks of at least this many bytes are kept for reuse when released.
  static constexpr size_t kReuseBytes = size_t(1) << 20;

private:
  struct alignas(16) Header {
    void *raw;
    size_t bytes;
    size_t alignment;
    /// The list of tracked blocks (allocate's `tracked`).
    Header *prev, *next;
    bool tracked;
  };
  void unlinkLocked(Header *header) {
    if (header->prev)
      header->prev->next = header->next;
    else
      trackedHead = header->next;
    if (header->next)
      header->next->prev = header->prev;
    header->prev = header->next = nullptr;
    header->tracked = false;
  }
  /// A kept block of exactly `bytes` and `alignment`, or null after freeing
  /// every kept block (none fits).
  Header *takeKept(size_t bytes, size_t alignment) {
    std::lock_guard<std::mutex> lock(keptMutex);
    for (unsigned i = 0; i < numKept; ++i)
      if (kept[i]->bytes == bytes && kept[i]->alignment == alignment) {
        Header *header = kept[i];
        kept[i] = kept[--numKept];
        return header;
      }
    freeKeptLocked();
    return nullptr;
  }
  void freeKeptLocked() {
    for (unsigned i = 0; i < numKept; ++i)
      std::free(kept[i]->raw);
    numKept = 0;
  }

  static constexpr unsigned kMaxKept = 8;
  std::atomic<size_t> live{0}, peak{0};
  std::mutex keptMutex;
  Header *kept[kMaxKept] = {};
  unsigned numKept = 0;
  Header *trackedHead = nullptr;
};

/// The process's allocator (defined once per binary: lib/Runner for
/// echo-run, EchoStepMain.cpp for echo-step).
CountingAllocator &getStepAllocator();

/// The generic allocation functions of MLIR's memref-to-LLVM conversion
/// (`use-generic-functions`), over getStepAllocator(). A step cannot go on
/// without its memory (the generated code would dereference null): running
/// out calls the allocator's out-of-memory handler, which a step library
/// sets to abandon the step and return an error to its caller; without one
/// it is reported and ends the process with exit code 1.
inline void *stepAlignedAlloc(size_t alignment, size_t bytes) {
  CountingAllocator &allocator = getStepAllocator();
  void *p = allocator.allocate(bytes, alignment, /*tracked=*/true);
  if (!p) {
    if (allocator.outOfMemory)
      allocator.outOfMemory(bytes, allocator.liveBytes());
    std::fprintf(stderr,
                 "echo: out of memory: the training step asked for %zu bytes "
                 "(%zu bytes already allocated)\n",
                 bytes, allocator.liveBytes());
    std::exit(1);
  }
  return p;
}
inline void *stepAlloc(size_t bytes) { return stepAlignedAlloc(16, bytes); }
inline void stepFree(void *p) { getStepAllocator().release(p); }

/// The CPU runtime's workspace allocator (echoCpuSetAllocator): null on
/// failure, which the runtime reports.
inline void *workspaceAlloc(size_t alignment, size_t bytes) {
  return getStepAllocator().allocate(bytes, alignment);
}
inline void workspaceFree(void *p) { getStepAllocator().release(p); }

} // namespace mlir::echo::host

#endif // ECHO_RUNTIME_AOT_ECHOCOUNTINGALLOCATOR_H
