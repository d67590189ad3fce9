//===- EchoCpuRuntimeImpl.h - The CPU runtime's shared state ----*- C++ -*-===//
//
// Part of the Echo project.
//
// What the CPU runtime's files share (private to libEchoCpuRuntime): the
// error state, the libraries opened at run time and the runtime's state
// (EchoCpuRuntime.cpp defines them; the oneDNN calls, EchoCpuDnnImpl.h,
// use them).
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNTIME_CPU_ECHOCPURUNTIMEIMPL_H
#define ECHO_RUNTIME_CPU_ECHOCPURUNTIMEIMPL_H

#include "EchoCpuRuntime.h"
#include "echo/Runtime/EchoRuntimeABI.h"

#include <cblas.h>
#include <dnnl.h>
#include <dnnl_debug.h>

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#define ECHO_EXPORT extern "C" __attribute__((visibility("default")))

namespace echo_cpu_runtime {

/// The first error (hasError), in firstError: set once, by whichever thread
/// fails first (kernels fail inside echo_cpu_parallel_for's parts).
extern std::atomic<bool> hasError;
extern std::string firstError;

/// Records (and prints, once) the first error; safe from any thread.
void fail(const char *format, ...) __attribute__((format(printf, 1, 2)));
/// fail() for an allocation the runtime could not make: the error reads
/// "out of memory: ..." and echoCpuErrorIsOutOfMemory() is then 1.
void failOutOfMemory(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/// Whether the fused attention kernels' settings ($ECHO_CPU_ISA,
/// $ECHO_CPU_ATTENTION_BACKWARD) are valid on this CPU; reports the first
/// that is not. Checked by echoCpuInit, before any step runs.
bool attentionReady();

/// The threads echo_cpu_parallel_for splits a range of at least that many
/// items across (OpenMP's, capped by $ECHO_CPU_KERNEL_THREADS; 1 without
/// libgomp).
int64_t kernelThreads();

/// What an environment variable holding a count reads as.
enum class EnvCount { Unset, Valid, Invalid };

/// Reads $`name` as a decimal count of at most `max` into `value`: Unset
/// where it is unset or empty, Invalid where it is anything but digits (no
/// sign, blanks or suffix) or above `max`. `text` is what it holds, for the
/// caller's error.
EnvCount readEnvCount(const char *name, unsigned long long max,
                      unsigned long long &value, const char *&text);

/// OpenBLAS: one entry point.
struct Blas {
  decltype(&::cblas_sgemm) sgemm = nullptr;
};

/// The oneDNN C API entry points the convolutions use.
struct Dnn {
  decltype(&::dnnl_engine_create) engineCreate = nullptr;
  decltype(&::dnnl_stream_create) streamCreate = nullptr;
  decltype(&::dnnl_stream_wait) streamWait = nullptr;
  decltype(&::dnnl_memory_desc_init_by_strides) mdInitByStrides = nullptr;
  decltype(&::dnnl_memory_desc_init_by_tag) mdInitByTag = nullptr;
  decltype(&::dnnl_convolution_forward_desc_init) convForwardInit = nullptr;
  decltype(&::dnnl_convolution_backward_data_desc_init) convBackwardDataInit =
      nullptr;
  decltype(&::dnnl_convolution_backward_weights_desc_init)
      convBackwardWeightsInit = nullptr;
  decltype(&::dnnl_primitive_attr_create) attrCreate = nullptr;
  decltype(&::dnnl_primitive_attr_set_scratchpad_mode) attrSetScratchpadMode =
      nullptr;
  decltype(&::dnnl_primitive_attr_destroy) attrDestroy = nullptr;
  decltype(&::dnnl_primitive_desc_create) pdCreate = nullptr;
  decltype(&::dnnl_primitive_desc_query_md) pdQueryMd = nullptr;
  decltype(&::dnnl_primitive_desc_destroy) pdDestroy = nullptr;
  decltype(&::dnnl_memory_desc_get_size) mdGetSize = nullptr;
  decltype(&::dnnl_primitive_create) primitiveCreate = nullptr;
  decltype(&::dnnl_primitive_destroy) primitiveDestroy = nullptr;
  decltype(&::dnnl_primitive_execute) primitiveExecute = nullptr;
  decltype(&::dnnl_memory_create) memoryCreate = nullptr;
  decltype(&::dnnl_memory_destroy) memoryDestroy = nullptr;
  decltype(&::dnnl_memory_set_data_handle) memorySetHandle = nullptr;
  decltype(&::dnnl_status2str) statusToString = nullptr;
  // bf16 GEMMs (matmul with a sum post-op to accumulate).
  decltype(&::dnnl_matmul_desc_init) matmulInit = nullptr;
  decltype(&::dnnl_post_ops_create) postOpsCreate = nullptr;
  decltype(&::dnnl_post_ops_append_sum) postOpsAppendSum = nullptr;
  decltype(&::dnnl_post_ops_destroy) postOpsDestroy = nullptr;
  decltype(&::dnnl_primitive_attr_set_post_ops) attrSetPostOps = nullptr;
  // Convolutions in the layouts oneDNN prefers, reordered at the call.
  decltype(&::dnnl_memory_desc_equal) mdEqual = nullptr;
  decltype(&::dnnl_reorder_primitive_desc_create) reorderPdCreate = nullptr;
};

struct Runtime {
  std::mutex mutex;
  bool blasTried = false, dnnTried = false;
  Blas blas;
  Dnn dnn;
  bool blasReady = false, dnnReady = false;
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
  /// The scratchpad every convolution primitive shares.
  void *scratchpad = nullptr;
  size_t scratchpadBytes = 0;
  /// Where the scratchpad comes from (echoCpuSetAllocator).
  void *(*allocate)(size_t alignment, size_t bytes) = nullptr;
  void (*release)(void *) = nullptr;
  /// The host pool of offloaded values: a separate, counted pool (on a
  /// GPU it is pinned host memory), so that a CPU run tells device bytes
  /// from host bytes.
  struct Slot {
    char *data = nullptr;
    size_t bytes = 0;
    mlir::echo::runtime::TransferSlotState state =
        mlir::echo::runtime::TransferSlotState::Empty;
  };
  std::vector<Slot> slots;
  size_t hostLive = 0, hostPeak = 0;
  /// $ECHO_HOST_POOL_LIMIT: the pool's bytes at most (0: no limit).
  size_t hostLimit = 0;
  bool hostLimitRead = false, hostLimitValid = false;
};
extern Runtime rt;

/// Opens OpenBLAS / oneDNN on first use; false (with the error recorded)
/// when a library or an entry point is missing.
bool blasReady();
bool dnnReady();
/// True for dnnl_success; else records the error naming `what`.
bool dnnOk(dnnl_status_t status, const char *what);

} // namespace echo_cpu_runtime

#endif // ECHO_RUNTIME_CPU_ECHOCPURUNTIMEIMPL_H
