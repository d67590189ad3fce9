//===- HostPool.cpp - Offloaded values in pinned host memory --------------===//
//
// Part of the Echo project.
//
// The transfer calls of echo-transfer-calls (echo/Runtime/EchoRuntimeABI.h)
// on a GPU: SuperNeurons' unified tensor pool. Each slot keeps a pinned
// host buffer from step to step (pinned allocation is slow; the pool grows
// a slot's buffer only when a larger value comes). Copies run on the
// runtime's copy stream: an offload or fetch first waits for the work
// issued on the compute stream before it (an event), and records its own
// event; a transfer_wait makes the compute stream wait for that event, so
// compute overlaps the copies between the two.
//
//===----------------------------------------------------------------------===//

#include "RuntimeState.h"

#include "echo/Runtime/EchoRuntimeABI.h"

#include <algorithm>
#include <cinttypes>
#include <vector>

using namespace echo::cuda;
using mlir::echo::runtime::TransferBuffer;
using mlir::echo::runtime::TransferCall;
using mlir::echo::runtime::TransferSlotState;

namespace {
struct Slot {
  void *pinned = nullptr;
  size_t capacity = 0, bytes = 0;
  CUevent done = nullptr;
  TransferSlotState state = TransferSlotState::Empty;
};

struct HostPool {
  std::mutex mutex;
  CUstream copyStream = nullptr;
  /// Recorded on the compute stream before each copy.
  CUevent issued = nullptr;
  std::vector<Slot> slots;
  /// Pinned bytes the pool holds (its slots' buffers), and the most bytes
  /// in use at once (slots between an offload and its fetch's wait).
  size_t pinnedBytes = 0, inUse = 0, peakInUse = 0;
};
HostPool pool;

/// The slot `call` (named `what`) may run on, with the copy stream and
/// events created on first use; null (and checkTransfer's or the driver's
/// error) when it may not. `bufferBytes`: a fetch's destination.
Slot *getSlot(TransferCall call, const char *what, int64_t slot,
              size_t bufferBytes = 0) {
  if (hasError || !ready())
    return nullptr;
  Slot unused;
  const Slot &current =
      slot >= 0 && static_cast<size_t>(slot) < pool.slots.size()
          ? pool.slots[slot]
          : unused;
  std::string why = mlir::echo::runtime::checkTransfer(
      call, what, slot, current.state, bufferBytes, current.bytes);
  if (!why.empty()) {
    fail("%s", why.c_str());
    return nullptr;
  }
  if (!pool.copyStream &&
      (!check(rt.cu.cuStreamCreate(&pool.copyStream, CU_STREAM_NON_BLOCKING),
              "cuStreamCreate (copy stream)") ||
       !check(rt.cu.cuEventCreate(&pool.issued, CU_EVENT_DISABLE_TIMING),
              "cuEventCreate")))
    return nullptr;
  if (static_cast<size_t>(slot) >= pool.slots.size())
    pool.slots.resize(slot + 1);
  Slot &s = pool.slots[slot];
  if (!s.done && !check(rt.cu.cuEventCreate(&s.done, CU_EVENT_DISABLE_TIMING),
                        "cuEventCreate"))
    return nullptr;
  return &s;
}

template <typename T>
bool describe(const char *what, const UnrankedMemRefType<T> *m,
              TransferBuffer &buffer) {
  if (!mlir::echo::runtime::describeTransferBuffer(m, buffer)) {
    fail("%s: malformed buffer descriptor", what);
    return false;
  }
  if (!buffer.contiguous) {
    fail("%s: the buffer is strided (the runtime copies contiguous buffers)",
         what);
    return false;
  }
  return true;
}

/// The copy stream waits for the work issued on the compute stream so far.
bool afterIssuedWork() {
  return check(rt.cu.cuEventRecord(pool.issued, rt.stream), "cuEventRecord") &&
         check(rt.cu.cuStreamWaitEvent(pool.copyStream, pool.issued, 0),
               "cuStreamWaitEvent");
}

template <typename T>
void offload(const char *what, UnrankedMemRefType<T> *src, int64_t slot) {
  std::lock_guard<std::mutex> lock(pool.mutex);
  TransferBuffer buffer;
  if (hasError || !describe(what, src, buffer))
    return;
  Slot *s = getSlot(TransferCall::Offload, what, slot);
  if (!s)
    return;
  size_t bytes = static_cast<size_t>(buffer.elements) * sizeof(T);
  if (s->capacity < bytes) {
    if (s->pinned) {
      // The slot's last copy is done once the compute stream passed its
      // wait, and nothing is queued on the copy stream for it.
      if (!check(rt.cu.cuStreamSynchronize(pool.copyStream),
                 "cuStreamSynchronize (copy stream)") ||
          !check(rt.cu.cuMemFreeHost(s->pinned), "cuMemFreeHost"))
        return;
      pool.pinnedBytes -= s->capacity;
      s->pinned = nullptr;
      s->capacity = 0;
    }
    size_t cap = rt.faults.hostBytes;
    if (cap && bytes > cap - std::min(cap, pool.pinnedBytes)) {
      fail("out of pinned host memory: offloading slot %" PRId64
           " needs %zu bytes; the host pool holds %zu of %zu "
           "(ECHO_CUDA_FAULTS=host-bytes)",
           slot, bytes, pool.pinnedBytes, cap);
      return;
    }
    CUresult result = rt.cu.cuMemAllocHost(&s->pinned, bytes ? bytes : 1);
    if (result != CUDA_SUCCESS) {
      fail("out of pinned host memory: offloading slot %" PRId64
           " needs %zu bytes; the host pool holds %zu (%s)",
           slot, bytes, pool.pinnedBytes, errorName(result));
      s->pinned = nullptr;
      return;
    }
    s->capacity = bytes;
    pool.pinnedBytes += bytes;
  }
  s->bytes = bytes;
  if (!afterIssuedWork() ||
      !check(rt.cu.cuMemcpyDtoHAsync(s->pinned,
                                     reinterpret_cast<CUdeviceptr>(buffer.data),
                                     bytes, pool.copyStream),
             "cuMemcpyDtoHAsync") ||
      !check(rt.cu.cuEventRecord(s->done, pool.copyStream), "cuEventRecord"))
    return;
  s->state = TransferSlotState::Offloaded;
  pool.inUse += bytes;
  pool.peakInUse = std::max(pool.peakInUse, pool.inUse);
}

template <typename T>
void fetch(const char *what, int64_t slot, UnrankedMemRefType<T> *dst) {
  std::lock_guard<std::mutex> lock(pool.mutex);
  TransferBuffer buffer;
  if (hasError || !describe(what, dst, buffer))
    return;
  size_t bytes = static_cast<size_t>(buffer.elements) * sizeof(T);
  Slot *s = getSlot(TransferCall::Fetch, what, slot, bytes);
  if (!s)
    return;
  // The destination may have held other values until now.
  if (!afterIssuedWork() ||
      !check(rt.cu.cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(buffer.data),
                                     s->pinned, bytes, pool.copyStream),
             "cuMemcpyHtoDAsync") ||
      !check(rt.cu.cuEventRecord(s->done, pool.copyStream), "cuEventRecord"))
    return;
  s->state = TransferSlotState::Fetched;
}

template <typename T>
void transferWait(const char *what, int64_t slot, UnrankedMemRefType<T> *) {
  std::lock_guard<std::mutex> lock(pool.mutex);
  Slot *s = getSlot(TransferCall::Wait, what, slot);
  if (!s || !check(rt.cu.cuStreamWaitEvent(rt.stream, s->done, 0),
                   "cuStreamWaitEvent"))
    return;
  if (s->state == TransferSlotState::Fetched) {
    pool.inUse -= s->bytes;
    s->state = TransferSlotState::Empty;
  }
}
} // namespace

ECHO_DEFINE_TRANSFER_CALLS(ECHO_EXPORT)

/// Frees the pinned buffers of the pool (after the copies in flight).
void echo::cuda::releaseHostPool() {
  std::lock_guard<std::mutex> lock(pool.mutex);
  if (!rt.initialized)
    return;
  if (pool.copyStream)
    check(rt.cu.cuStreamSynchronize(pool.copyStream),
          "cuStreamSynchronize (copy stream)");
  for (Slot &s : pool.slots) {
    if (s.pinned)
      check(rt.cu.cuMemFreeHost(s.pinned), "cuMemFreeHost");
    s.pinned = nullptr;
    s.capacity = 0;
  }
  pool.pinnedBytes = 0;
}

ECHO_EXPORT size_t echoCudaHostPoolBytes(void) {
  std::lock_guard<std::mutex> lock(pool.mutex);
  return pool.pinnedBytes;
}

ECHO_EXPORT size_t echoCudaHostPoolPeakBytes(void) {
  std::lock_guard<std::mutex> lock(pool.mutex);
  return pool.peakInUse;
}
