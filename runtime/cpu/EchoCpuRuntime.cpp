//===- EchoCpuRuntime.cpp - OpenBLAS and oneDNN behind echo_* calls -------===//
//
// Part of the Echo project.
//
// GEMMs map row-major C = op(A)·op(B) [+ C] onto cblas_sgemm directly (a
// batch is a loop). Convolutions are oneDNN primitives on the step's own
// NCHW/FCHW buffers, in the layouts oneDNN prefers (blocked copies made in
// the call) or on the buffers themselves, created once per shape and cached
// (grouped weights through a 5-D view of the same buffer, oneDNN's goihw);
// their scratchpad is one runtime-owned buffer, the largest any primitive
// asked for, so that the runtime knows every byte it holds. OpenBLAS and oneDNN
// are opened with dlopen on first use; their prototypes come from their headers
// (cblas.h, dnnl.h). This file holds the errors, the libraries' loading, the
// f32 GEMMs, the host offload pool and the host API; EchoCpuMatmul.cpp the
// bf16 GEMMs, EchoCpuConv.cpp the convolutions, EchoCpuDnn.cpp the oneDNN
// primitives' shared pieces and their scratchpad.
//
//===----------------------------------------------------------------------===//

#include "EchoCpuRuntimeImpl.h"

#include <cblas.h>
#include <dlfcn.h>
#include <dnnl.h>
#include <dnnl_debug.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace echo_cpu_runtime {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

std::atomic<bool> hasError{false};
std::string firstError;
bool errorIsOutOfMemory = false;

namespace {
std::mutex errorMutex;

/// Records `message` as the first error (and whether it is out of memory)
/// unless one is already recorded.
void record(const char *message, bool outOfMemory) {
  std::lock_guard<std::mutex> lock(errorMutex);
  if (hasError)
    return;
  // The message before the flag: whoever sees the flag reads it whole.
  firstError = message;
  errorIsOutOfMemory = outOfMemory;
  hasError = true;
  fprintf(stderr, "echo-cpu: %s\n", message);
}
} // namespace

void fail(const char *format, ...) {
  if (hasError)
    return;
  char buffer[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  record(buffer, /*outOfMemory=*/false);
}

void failOutOfMemory(const char *format, ...) {
  if (hasError)
    return;
  char buffer[1024] = "out of memory: ";
  size_t prefix = strlen(buffer);
  va_list args;
  va_start(args, format);
  vsnprintf(buffer + prefix, sizeof(buffer) - prefix, format, args);
  va_end(args);
  record(buffer, /*outOfMemory=*/true);
}

//===----------------------------------------------------------------------===//
// The libraries, opened at run time
//===----------------------------------------------------------------------===//

Runtime rt;

EnvCount readEnvCount(const char *name, unsigned long long max,
                      unsigned long long &value, const char *&text) {
  text = std::getenv(name);
  if (!text || !*text)
    return EnvCount::Unset;
  // strtoull skips blanks and takes a sign: only digits are a count.
  errno = 0;
  char *end = nullptr;
  value = std::strtoull(text, &end, 10);
  if (!std::isdigit(static_cast<unsigned char>(text[0])) || *end != '\0' ||
      errno == ERANGE || value > max)
    return EnvCount::Invalid;
  return EnvCount::Valid;
}

/// Reads $ECHO_HOST_POOL_LIMIT once (with rt.mutex held): a positive number
/// of bytes, or unset (or empty) for no limit. Anything else is an error
/// naming the variable and its value, never a silent lack of a limit.
bool hostLimitReady() {
  if (rt.hostLimitRead)
    return rt.hostLimitValid;
  rt.hostLimitRead = true;
  const char *text = nullptr;
  unsigned long long bytes = 0;
  EnvCount read = readEnvCount("ECHO_HOST_POOL_LIMIT", SIZE_MAX, bytes, text);
  if (read == EnvCount::Unset) {
    rt.hostLimitValid = true;
    return true;
  }
  if (read == EnvCount::Invalid || bytes == 0) {
    fail("$ECHO_HOST_POOL_LIMIT is '%s': not a byte count (a positive "
         "integer; unset it for no limit)",
         text);
    return false;
  }
  rt.hostLimit = static_cast<size_t>(bytes);
  rt.hostLimitValid = true;
  return true;
}

/// Before OpenMP's runtime (GNU libgomp) is loaded: unless the user chose
/// how its idle threads wait ($GOMP_SPINCOUNT, $OMP_WAIT_POLICY), they
/// spin 10,000 rounds (tens of microseconds) before sleeping, instead of
/// libgomp's 300,000. Its threads (the split kernels', oneDNN's) share the
/// cores with OpenBLAS's own: spinning long after each kernel, they took
/// the cores the next GEMM needed (the paper-size NMT's step 1.3x slower
/// with kernels split across two threads than on one; 0.89x with the
/// short spin). A libgomp loaded before (a host program's) keeps its own
/// settings.
void prepareOpenMP() {
  if (!std::getenv("GOMP_SPINCOUNT") && !std::getenv("OMP_WAIT_POLICY"))
    setenv("GOMP_SPINCOUNT", "10000", /*overwrite=*/0);
}

/// Opens the library `override` names when it is set (an environment
/// variable), else the first of `names` that loads; names them all when none
/// does. `opened` is the name of the library opened.
void *openLibrary(const char *override, const char *const *names,
                  const char *package, std::string &opened) {
  if (const char *path = std::getenv(override); path && *path) {
    opened = path;
    if (void *handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL))
      return handle;
    fail("cannot open %s (from $%s): %s", path, override, dlerror());
    return nullptr;
  }
  std::string tried;
  for (const char *const *name = names; *name; ++name) {
    opened = *name;
    if (void *handle = dlopen(*name, RTLD_NOW | RTLD_GLOBAL))
      return handle;
    tried += tried.empty() ? "" : ", ";
    tried += *name;
  }
  fail("cannot open %s (tried %s: %s); install Debian's %s", names[0],
       tried.c_str(), dlerror(), package);
  return nullptr;
}

/// Resolves `name` into `fn`; fails naming the library when it is missing.
template <typename Fn>
bool resolve(void *library, Fn &fn, const char *name, const char *from) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  if (!fn)
    fail("%s has no %s", from, name);
  return fn != nullptr;
}

/// OpenBLAS built for OpenMP (Debian's libopenblas0-openmp, beside the
/// default alternative, the pthreads build), when the build knows where it
/// would be.
const char *openBlasOpenMPBuild() {
#ifdef ECHO_OPENBLAS_OPENMP_PATH
  return ECHO_OPENBLAS_OPENMP_PATH;
#else
  return nullptr;
#endif
}

/// OpenBLAS, unless $ECHO_OPENBLAS_LIBRARY names a file: the one the process
/// has loaded already (a host program's: a second copy would bind its
/// internal calls to the first one's symbols), else its OpenMP build, else
/// the system's libopenblas.so.0. The OpenMP build runs its GEMMs on
/// OpenMP's team, the threads the split kernels and oneDNN use; the
/// pthreads build keeps a second set of threads on the same cores, and
/// whichever set is idle spins (sched_yield) while the other works: the
/// NMT of utils/run-demo.sh took 15-20% longer a step with it.
void *openBlas(std::string &opened) {
  static const char *const names[] = {"libopenblas.so.0", "libopenblas.so",
                                      nullptr};
  const char *override = std::getenv("ECHO_OPENBLAS_LIBRARY");
  if (!override || !*override) {
    for (const char *const *name = names; *name; ++name)
      if (void *loaded = dlopen(*name, RTLD_NOW | RTLD_NOLOAD)) {
        opened = *name;
        return loaded;
      }
    if (const char *path = openBlasOpenMPBuild()) {
      // It brings in OpenMP's runtime, which reads its settings once.
      prepareOpenMP();
      if (void *lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL)) {
        opened = path;
        return lib;
      }
    }
  }
  return openLibrary("ECHO_OPENBLAS_LIBRARY", names, "libopenblas0", opened);
}

bool blasReady() {
  std::lock_guard<std::mutex> lock(rt.mutex);
  if (rt.blasTried)
    return rt.blasReady;
  rt.blasTried = true;
  std::string opened;
  void *lib = openBlas(opened);
  rt.blasReady =
      lib && resolve(lib, rt.blas.sgemm, "cblas_sgemm", opened.c_str());
  return rt.blasReady;
}

bool dnnOk(dnnl_status_t status, const char *what) {
  if (status == dnnl_success)
    return true;
  fail("%s failed: %s", what,
       rt.dnn.statusToString ? rt.dnn.statusToString(status) : "error");
  return false;
}

bool dnnReady() {
  std::lock_guard<std::mutex> lock(rt.mutex);
  if (rt.dnnTried)
    return rt.dnnReady;
  rt.dnnTried = true;
  // oneDNN brings in OpenMP's runtime, which reads its settings once.
  prepareOpenMP();
  static const char *const names[] = {"libdnnl.so.2", "libdnnl.so", nullptr};
  std::string opened;
  void *lib = openLibrary("ECHO_DNNL_LIBRARY", names, "libdnnl2", opened);
  if (!lib)
    return false;
  Dnn &d = rt.dnn;
  const char *from = opened.c_str();
  bool ok =
      resolve(lib, d.engineCreate, "dnnl_engine_create", from) &&
      resolve(lib, d.streamCreate, "dnnl_stream_create", from) &&
      resolve(lib, d.streamWait, "dnnl_stream_wait", from) &&
      resolve(lib, d.mdInitByStrides, "dnnl_memory_desc_init_by_strides",
              from) &&
      resolve(lib, d.mdInitByTag, "dnnl_memory_desc_init_by_tag", from) &&
      resolve(lib, d.convForwardInit, "dnnl_convolution_forward_desc_init",
              from) &&
      resolve(lib, d.convBackwardDataInit,
              "dnnl_convolution_backward_data_desc_init", from) &&
      resolve(lib, d.convBackwardWeightsInit,
              "dnnl_convolution_backward_weights_desc_init", from) &&
      resolve(lib, d.attrCreate, "dnnl_primitive_attr_create", from) &&
      resolve(lib, d.attrSetScratchpadMode,
              "dnnl_primitive_attr_set_scratchpad_mode", from) &&
      resolve(lib, d.attrDestroy, "dnnl_primitive_attr_destroy", from) &&
      resolve(lib, d.pdCreate, "dnnl_primitive_desc_create", from) &&
      resolve(lib, d.pdQueryMd, "dnnl_primitive_desc_query_md", from) &&
      resolve(lib, d.pdDestroy, "dnnl_primitive_desc_destroy", from) &&
      resolve(lib, d.mdGetSize, "dnnl_memory_desc_get_size", from) &&
      resolve(lib, d.primitiveCreate, "dnnl_primitive_create", from) &&
      resolve(lib, d.primitiveDestroy, "dnnl_primitive_destroy", from) &&
      resolve(lib, d.primitiveExecute, "dnnl_primitive_execute", from) &&
      resolve(lib, d.memoryCreate, "dnnl_memory_create", from) &&
      resolve(lib, d.memoryDestroy, "dnnl_memory_destroy", from) &&
      resolve(lib, d.memorySetHandle, "dnnl_memory_set_data_handle", from) &&
      resolve(lib, d.statusToString, "dnnl_status2str", from) &&
      resolve(lib, d.matmulInit, "dnnl_matmul_desc_init", from) &&
      resolve(lib, d.postOpsCreate, "dnnl_post_ops_create", from) &&
      resolve(lib, d.postOpsAppendSum, "dnnl_post_ops_append_sum", from) &&
      resolve(lib, d.postOpsDestroy, "dnnl_post_ops_destroy", from) &&
      resolve(lib, d.attrSetPostOps, "dnnl_primitive_attr_set_post_ops",
              from) &&
      resolve(lib, d.mdEqual, "dnnl_memory_desc_equal", from) &&
      resolve(lib, d.reorderPdCreate, "dnnl_reorder_primitive_desc_create",
              from);
  ok = ok && dnnOk(d.engineCreate(&rt.engine, dnnl_cpu, 0), "oneDNN engine") &&
       dnnOk(d.streamCreate(&rt.stream, rt.engine, dnnl_stream_default_flags),
             "oneDNN stream");
  rt.dnnReady = ok;
  return ok;
}

//===----------------------------------------------------------------------===//
// GEMM
//===----------------------------------------------------------------------===//

/// True when `v` fits OpenBLAS's 32-bit integers.
bool fitsBlasInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

/// C (M×N) = op(A) (M×K) · op(B) (K×N) [+ C], row-major, per batch.
template <int N>
void gemm(StridedMemRefType<float, N> *a, StridedMemRefType<float, N> *b,
          StridedMemRefType<float, N> *c, int64_t transA, int64_t transB,
          int64_t accumulate) {
  if (hasError || !blasReady())
    return;
  constexpr int r = N - 2;
  int64_t m = c->sizes[r], n = c->sizes[r + 1];
  int64_t aM = a->sizes[transA ? r + 1 : r], k = a->sizes[transA ? r : r + 1];
  int64_t bK = b->sizes[transB ? r + 1 : r], bN = b->sizes[transB ? r : r + 1];
  if (aM != m || bK != k || bN != n) {
    fail("echo_gemm: shapes do not agree: op(A) is %" PRId64 "x%" PRId64
         ", op(B) %" PRId64 "x%" PRId64 ", C %" PRId64 "x%" PRId64,
         aM, k, bK, bN, m, n);
    return;
  }
  // Rows of unit stride, the row stride BLAS's leading dimension (what
  // echo-library-call-layouts guarantees; other views are copied).
  for (auto *t : {a, b, c}) {
    if (t->strides[N - 1] != 1 && t->sizes[N - 1] > 1) {
      fail("echo_gemm: an operand has inner stride %" PRId64 " (expected 1)",
           t->strides[N - 1]);
      return;
    }
    if (t->sizes[r] > 1 && t->strides[r] < t->sizes[N - 1]) {
      fail("echo_gemm: an operand has row stride %" PRId64
           ", below its row length %" PRId64,
           t->strides[r], t->sizes[N - 1]);
      return;
    }
  }
  // Leading dimensions are the row strides (at least 1 for empty rows).
  auto ld = [&](StridedMemRefType<float, N> *t) {
    return t->strides[r] > 0 ? t->strides[r] : 1;
  };
  if (!fitsBlasInt(m) || !fitsBlasInt(n) || !fitsBlasInt(k) ||
      !fitsBlasInt(ld(a)) || !fitsBlasInt(ld(b)) || !fitsBlasInt(ld(c))) {
    fail("echo_gemm: %" PRId64 "x%" PRId64 "x%" PRId64
         " exceeds OpenBLAS's 32-bit sizes",
         m, n, k);
    return;
  }
  int64_t batch = 1;
  for (int i = 0; i < r; ++i)
    batch *= c->sizes[i];
  if (m == 0 || n == 0)
    return;
  for (int64_t i = 0; i < batch; ++i) {
    // The offset of batch entry i in each operand (row-major batch dims).
    auto at = [&](StridedMemRefType<float, N> *t) {
      int64_t offset = t->offset, rest = i;
      for (int d = r - 1; d >= 0; --d) {
        offset += (rest % t->sizes[d]) * t->strides[d];
        rest /= t->sizes[d];
      }
      return t->data + offset;
    };
    rt.blas.sgemm(CblasRowMajor, transA ? CblasTrans : CblasNoTrans,
                  transB ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, at(a),
                  ld(a), at(b), ld(b), accumulate ? 1.0f : 0.0f, at(c), ld(c));
  }
}

//===----------------------------------------------------------------------===//
// Host offload
//===----------------------------------------------------------------------===//

using mlir::echo::runtime::TransferBuffer;
using mlir::echo::runtime::TransferCall;
using mlir::echo::runtime::TransferSlotState;

/// The slot `call` (named `what`) may run on, grown on first use; null
/// (and checkTransfer's error) when it may not. `bufferBytes`: a fetch's
/// destination.
Runtime::Slot *getSlot(TransferCall call, const char *what, int64_t slot,
                       size_t bufferBytes = 0) {
  if (hasError)
    return nullptr;
  Runtime::Slot unused;
  const Runtime::Slot &current =
      slot >= 0 && static_cast<size_t>(slot) < rt.slots.size() ? rt.slots[slot]
                                                               : unused;
  std::string why = mlir::echo::runtime::checkTransfer(
      call, what, slot, current.state, bufferBytes, current.bytes);
  if (!why.empty()) {
    fail("%s", why.c_str());
    return nullptr;
  }
  if (static_cast<size_t>(slot) >= rt.slots.size())
    rt.slots.resize(slot + 1);
  return &rt.slots[slot];
}

template <typename T>
bool describe(const char *what, const UnrankedMemRefType<T> *m,
              TransferBuffer &buffer) {
  if (mlir::echo::runtime::describeTransferBuffer(m, buffer))
    return true;
  fail("%s: malformed buffer descriptor", what);
  return false;
}

template <typename T>
void offload(const char *what, UnrankedMemRefType<T> *src, int64_t slot) {
  std::lock_guard<std::mutex> lock(rt.mutex);
  TransferBuffer buffer;
  if (hasError || !describe(what, src, buffer))
    return;
  Runtime::Slot *s = getSlot(TransferCall::Offload, what, slot);
  if (!s)
    return;
  if (!hostLimitReady())
    return;
  size_t bytes = static_cast<size_t>(buffer.elements) * sizeof(T);
  if (rt.hostLimit &&
      bytes > rt.hostLimit - std::min(rt.hostLimit, rt.hostLive)) {
    fail("out of host memory: offloading slot %" PRId64 " needs %zu bytes; "
         "the host pool holds %zu of its %zu-byte limit "
         "($ECHO_HOST_POOL_LIMIT)",
         slot, bytes, rt.hostLive, rt.hostLimit);
    return;
  }
  s->data = static_cast<char *>(std::malloc(bytes ? bytes : 1));
  if (!s->data) {
    fail("out of host memory: offloading slot %" PRId64 " needs %zu bytes "
         "(the host pool holds %zu)",
         slot, bytes, rt.hostLive);
    return;
  }
  s->bytes = bytes;
  mlir::echo::runtime::copyStrided(buffer, sizeof(T), s->data,
                                   /*toPacked=*/true);
  s->state = TransferSlotState::Offloaded;
  rt.hostLive += bytes;
  rt.hostPeak = std::max(rt.hostPeak, rt.hostLive);
}

template <typename T>
void fetch(const char *what, int64_t slot, UnrankedMemRefType<T> *dst) {
  std::lock_guard<std::mutex> lock(rt.mutex);
  TransferBuffer buffer;
  if (hasError || !describe(what, dst, buffer))
    return;
  Runtime::Slot *s = getSlot(TransferCall::Fetch, what, slot,
                             static_cast<size_t>(buffer.elements) * sizeof(T));
  if (!s)
    return;
  mlir::echo::runtime::copyStrided(buffer, sizeof(T), s->data,
                                   /*toPacked=*/false);
  s->state = TransferSlotState::Fetched;
}

template <typename T>
void transferWait(const char *what, int64_t slot, UnrankedMemRefType<T> *) {
  std::lock_guard<std::mutex> lock(rt.mutex);
  Runtime::Slot *s = getSlot(TransferCall::Wait, what, slot);
  // The copies ran when they were issued; a fetch's wait frees the slot.
  if (s && s->state == TransferSlotState::Fetched) {
    std::free(s->data);
    rt.hostLive -= s->bytes;
    *s = Runtime::Slot();
  }
}

//===----------------------------------------------------------------------===//
// Threads for the kernels split across them
//===----------------------------------------------------------------------===//

/// OpenMP's team (GNU libgomp, the OpenMP runtime Debian's oneDNN uses, so
/// that kernels and convolutions share one set of threads instead of two
/// pools spinning against each other), opened once with dlopen
/// ($ECHO_OPENMP_LIBRARY names another build of it). Without it, a split
/// kernel runs whole on the caller's thread: the same results, one core.
struct OpenMP {
  void (*parallel)(void (*)(void *), void *, unsigned, unsigned) = nullptr;
  int (*threadNum)() = nullptr;
  int (*numThreads)() = nullptr;
  int (*maxThreads)() = nullptr;
};

const OpenMP &openMP() {
  static const OpenMP team = [] {
    OpenMP t;
    prepareOpenMP();
    const char *path = std::getenv("ECHO_OPENMP_LIBRARY");
    bool named = path && *path;
    void *handle =
        dlopen(named ? path : "libgomp.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
      // libgomp comes with GCC's runtime on Debian; a file the user named
      // must open.
      if (named)
        fail("cannot open %s (from $ECHO_OPENMP_LIBRARY): %s", path, dlerror());
      return t;
    }
    auto get = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(handle, name));
      return fn != nullptr;
    };
    OpenMP found;
    if (get(found.parallel, "GOMP_parallel") &&
        get(found.threadNum, "omp_get_thread_num") &&
        get(found.numThreads, "omp_get_num_threads") &&
        get(found.maxThreads, "omp_get_max_threads"))
      t = found;
    else if (named)
      fail("%s (from $ECHO_OPENMP_LIBRARY) has no GOMP_parallel or "
           "omp_get_*_threads: not GNU libgomp",
           path);
    return t;
  }();
  return team;
}

/// $ECHO_CPU_KERNEL_THREADS, read once: the most threads a split kernel
/// runs on (a positive integer); 0, no cap, where it is unset or empty
/// (OpenMP's threads: $OMP_NUM_THREADS or every core). Anything else is an
/// error naming the variable, and the kernels then run on one thread.
int64_t kernelThreadLimit() {
  static const int64_t limit = [] {
    const char *text = nullptr;
    unsigned long long n = 0;
    EnvCount read = readEnvCount("ECHO_CPU_KERNEL_THREADS", LLONG_MAX, n, text);
    if (read == EnvCount::Unset)
      return int64_t(0);
    if (read == EnvCount::Invalid || n < 1) {
      fail("$ECHO_CPU_KERNEL_THREADS is '%s': not a number of threads (a "
           "positive integer; unset it for OpenMP's)",
           text);
      return int64_t(1);
    }
    return static_cast<int64_t>(n);
  }();
  return limit;
}

int64_t kernelThreads() {
  const OpenMP &team = openMP();
  int64_t threads = team.parallel ? team.maxThreads() : 1;
  if (int64_t limit = kernelThreadLimit())
    threads = std::min(threads, limit);
  return std::max<int64_t>(threads, 1);
}

struct ParallelRange {
  void (*body)(void *, int64_t, int64_t);
  void *context;
  int64_t lo, hi;
};

/// One thread's part of the range: the t-th of T contiguous parts.
void runPart(void *data) {
  const ParallelRange &range = *static_cast<const ParallelRange *>(data);
  const OpenMP &team = openMP();
  int64_t t = team.threadNum(), parts = team.numThreads();
  int64_t n = range.hi - range.lo;
  int64_t begin = range.lo + n / parts * t + std::min(t, n % parts);
  int64_t end = begin + n / parts + (t < n % parts ? 1 : 0);
  if (begin < end)
    range.body(range.context, begin, end);
}

} // namespace echo_cpu_runtime

using namespace echo_cpu_runtime;

ECHO_EXPORT void echo_cpu_parallel_for(void (*body)(void *, int64_t, int64_t),
                                       void *context, int64_t lo, int64_t hi) {
  if (hi <= lo)
    return;
  const OpenMP &team = openMP();
  int64_t threads = std::min(kernelThreads(), hi - lo);
  if (threads <= 1) {
    body(context, lo, hi);
    return;
  }
  ParallelRange range{body, context, lo, hi};
  team.parallel(runPart, &range, static_cast<unsigned>(threads), 0);
}

//===----------------------------------------------------------------------===//
// Library calls (declared in echo/Runtime/EchoRuntimeABI.h)
//===----------------------------------------------------------------------===//

ECHO_EXPORT void _mlir_ciface_echo_gemm(EchoMemRef2D *a, EchoMemRef2D *b,
                                        EchoMemRef2D *c, int64_t transA,
                                        int64_t transB, int64_t accumulate) {
  gemm(a, b, c, transA, transB, accumulate);
}

ECHO_EXPORT void _mlir_ciface_echo_batched_gemm(EchoMemRef3D *a,
                                                EchoMemRef3D *b,
                                                EchoMemRef3D *c, int64_t transA,
                                                int64_t transB,
                                                int64_t accumulate) {
  gemm(a, b, c, transA, transB, accumulate);
}

ECHO_DEFINE_TRANSFER_CALLS(ECHO_EXPORT)

//===----------------------------------------------------------------------===//
// Host API
//===----------------------------------------------------------------------===//

ECHO_EXPORT int echoCpuInit(void) {
  bool hostLimitOk;
  {
    std::lock_guard<std::mutex> lock(rt.mutex);
    hostLimitOk = hostLimitReady();
  }
  return hostLimitOk && blasReady() && dnnReady() && attentionReady() &&
                 !hasError
             ? 0
             : 1;
}

ECHO_EXPORT const char *echoCpuGetError(void) {
  return hasError ? firstError.c_str() : nullptr;
}

ECHO_EXPORT int echoCpuErrorIsOutOfMemory(void) {
  return hasError && errorIsOutOfMemory;
}

ECHO_EXPORT void echoCpuClearError(void) {
  std::lock_guard<std::mutex> lock(errorMutex);
  errorIsOutOfMemory = false;
  firstError.clear();
  hasError = false;
}

ECHO_EXPORT size_t echoCpuWorkspaceBytes(void) { return rt.scratchpadBytes; }

ECHO_EXPORT size_t echoCpuHostPoolPeakBytes(void) {
  std::lock_guard<std::mutex> lock(rt.mutex);
  return rt.hostPeak;
}

ECHO_EXPORT size_t echoCpuHostPoolLiveBytes(void) {
  std::lock_guard<std::mutex> lock(rt.mutex);
  return rt.hostLive;
}

ECHO_EXPORT void echoCpuResetHostPoolPeak(void) {
  std::lock_guard<std::mutex> lock(rt.mutex);
  rt.hostPeak = rt.hostLive;
}

ECHO_EXPORT int echoCpuSetAllocator(void *(*allocate)(size_t, size_t),
                                    void (*release)(void *)) {
  std::lock_guard<std::mutex> lock(rt.mutex);
  // The workspace must be freed by the allocator that gave it.
  if (rt.scratchpad || !allocate != !release)
    return 1;
  rt.allocate = allocate;
  rt.release = release;
  return 0;
}
