//===- EchoCpuRuntime.cpp - OpenBLAS and oneDNN behind echo_* calls -------===//
//
// Part of the Echo project.
//
// GEMMs map row-major C = op(A)·op(B) [+ C] onto cblas_sgemm directly (a
// batch is a loop). Convolutions are oneDNN primitives on the step's own
// NCHW/FCHW buffers (plain layouts: no reorders, no copies), created once
// per shape and cached (grouped weights through a 5-D view of the same
// buffer, oneDNN's goihw); their scratchpad is one runtime-owned buffer, the
// largest any primitive asked for, so that the runtime knows every byte it
// holds. OpenBLAS and oneDNN are opened with dlopen on first use; their
// prototypes come from their headers (cblas.h, dnnl.h).
//
//===----------------------------------------------------------------------===//

#include "EchoCpuRuntime.h"
#include "echo/Runtime/EchoRuntimeABI.h"

#include <cblas.h>
#include <dlfcn.h>
#include <dnnl.h>
#include <dnnl_debug.h>

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
#include <vector>

#define ECHO_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

bool hasError = false;
std::string firstError;

/// Records (and prints, once) the first error.
void fail(const char *format, ...) __attribute__((format(printf, 1, 2)));
void fail(const char *format, ...) {
  if (hasError)
    return;
  char buffer[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  hasError = true;
  firstError = buffer;
  fprintf(stderr, "echo-cpu: %s\n", buffer);
}

//===----------------------------------------------------------------------===//
// The libraries, opened at run time
//===----------------------------------------------------------------------===//

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
Runtime rt;

/// Reads $ECHO_HOST_POOL_LIMIT once (with rt.mutex held): a positive number
/// of bytes, or unset (or empty) for no limit. Anything else is an error
/// naming the variable and its value, never a silent lack of a limit.
bool hostLimitReady() {
  if (rt.hostLimitRead)
    return rt.hostLimitValid;
  rt.hostLimitRead = true;
  const char *text = std::getenv("ECHO_HOST_POOL_LIMIT");
  if (!text || !*text) {
    rt.hostLimitValid = true;
    return true;
  }
  // strtoull skips blanks and takes a sign: only digits are a byte count.
  errno = 0;
  char *end = nullptr;
  unsigned long long bytes = std::strtoull(text, &end, 10);
  if (!std::isdigit(static_cast<unsigned char>(text[0])) || *end != '\0' ||
      errno == ERANGE || bytes == 0 || bytes > SIZE_MAX) {
    fail("$ECHO_HOST_POOL_LIMIT is '%s': not a byte count (a positive "
         "integer; unset it for no limit)",
         text);
    return false;
  }
  rt.hostLimit = static_cast<size_t>(bytes);
  rt.hostLimitValid = true;
  return true;
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

bool blasReady() {
  std::lock_guard<std::mutex> lock(rt.mutex);
  if (rt.blasTried)
    return rt.blasReady;
  rt.blasTried = true;
  static const char *const names[] = {"libopenblas.so.0", "libopenblas.so",
                                      nullptr};
  std::string opened;
  void *lib =
      openLibrary("ECHO_OPENBLAS_LIBRARY", names, "libopenblas0", opened);
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
      resolve(lib, d.attrSetPostOps, "dnnl_primitive_attr_set_post_ops", from);
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
  for (auto *t : {a, b, c})
    if (t->strides[N - 1] != 1 && t->sizes[N - 1] > 1) {
      fail("echo_gemm: an operand has inner stride %" PRId64 " (expected 1)",
           t->strides[N - 1]);
      return;
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
// bf16 GEMM (oneDNN matmul)
//===----------------------------------------------------------------------===//

bool reserveScratchpad(size_t bytes);

/// What identifies a bf16 matmul primitive: rank, sizes and strides of
/// op(A), op(B) and C, and whether it accumulates.
using MatmulKey = std::tuple<int, std::array<int64_t, 18>, int64_t>;

/// A oneDNN primitive (a bf16 matmul, a convolution) and the memory objects
/// it runs on: source, weights, destination (the matmul's A, B and C), and
/// its scratchpad.
struct DnnPrimitive {
  dnnl_primitive_t primitive = nullptr;
  dnnl_memory_t src = nullptr, weights = nullptr, dst = nullptr,
                scratchpad = nullptr;
  size_t scratchpadBytes = 0;
};

/// Destroys the oneDNN objects of `p` (those it has).
void destroy(DnnPrimitive &p) {
  Dnn &d = rt.dnn;
  if (p.primitive)
    d.primitiveDestroy(p.primitive);
  for (dnnl_memory_t m : {p.src, p.weights, p.dst, p.scratchpad})
    if (m)
      d.memoryDestroy(m);
  p = DnnPrimitive();
}

/// The primitives made so far, by what identifies them; destroyed with the
/// runtime (oneDNN's objects are not freed by the map's own destructor).
template <typename Key> struct PrimitiveCache : std::map<Key, DnnPrimitive> {
  ~PrimitiveCache() {
    for (auto &entry : *this)
      destroy(entry.second);
  }
};
PrimitiveCache<MatmulKey> matmulCache;

/// Makes the primitive of `pd` (which it destroys) and its memory objects
/// for the given source, weights and destination descriptors, plus its
/// scratchpad's; false (with the error recorded) when oneDNN refuses.
bool makePrimitive(dnnl_primitive_desc_t pd, const dnnl_memory_desc_t &src,
                   const dnnl_memory_desc_t &weights,
                   const dnnl_memory_desc_t &dst, DnnPrimitive &p) {
  Dnn &d = rt.dnn;
  const dnnl_memory_desc_t *scratch =
      d.pdQueryMd(pd, dnnl_query_scratchpad_md, 0);
  p.scratchpadBytes = scratch ? d.mdGetSize(scratch) : 0;
  bool ok =
      dnnOk(d.primitiveCreate(&p.primitive, pd), "oneDNN primitive") &&
      dnnOk(d.memoryCreate(&p.src, &src, rt.engine, DNNL_MEMORY_NONE),
            "oneDNN memory") &&
      dnnOk(d.memoryCreate(&p.weights, &weights, rt.engine, DNNL_MEMORY_NONE),
            "oneDNN memory") &&
      dnnOk(d.memoryCreate(&p.dst, &dst, rt.engine, DNNL_MEMORY_NONE),
            "oneDNN memory") &&
      (!scratch || dnnOk(d.memoryCreate(&p.scratchpad, scratch, rt.engine,
                                        DNNL_MEMORY_NONE),
                         "oneDNN memory"));
  d.pdDestroy(pd);
  if (!ok)
    destroy(p);
  return ok;
}

/// Points `p`'s memory objects at this call's buffers and the shared
/// scratchpad (grown to what `p` needs).
bool bindPrimitive(DnnPrimitive &p, void *src, void *weights, void *dst) {
  Dnn &d = rt.dnn;
  return reserveScratchpad(p.scratchpadBytes) &&
         dnnOk(d.memorySetHandle(p.src, src), "oneDNN memory") &&
         dnnOk(d.memorySetHandle(p.weights, weights), "oneDNN memory") &&
         dnnOk(d.memorySetHandle(p.dst, dst), "oneDNN memory") &&
         (!p.scratchpad || dnnOk(d.memorySetHandle(p.scratchpad, rt.scratchpad),
                                 "oneDNN memory"));
}

/// C (M×N) = op(A) · op(B) [+ C] on bf16 buffers, per batch (N = 3): oneDNN
/// accumulates the products in f32 and rounds to bf16 once. A transposed
/// operand is described by swapping its strides, so no copy is made.
template <int N>
void gemmBF16(StridedMemRefType<uint16_t, N> *a,
              StridedMemRefType<uint16_t, N> *b,
              StridedMemRefType<uint16_t, N> *c, int64_t transA, int64_t transB,
              int64_t accumulate) {
  if (hasError || !dnnReady())
    return;
  constexpr int r = N - 2;
  int64_t m = c->sizes[r], n = c->sizes[r + 1];
  int64_t aM = a->sizes[transA ? r + 1 : r], k = a->sizes[transA ? r : r + 1];
  int64_t bK = b->sizes[transB ? r + 1 : r], bN = b->sizes[transB ? r : r + 1];
  if (aM != m || bK != k || bN != n ||
      (r == 1 && (a->sizes[0] != c->sizes[0] || b->sizes[0] != c->sizes[0]))) {
    fail("echo_gemm_bf16: shapes do not agree: op(A) is %" PRId64 "x%" PRId64
         ", op(B) %" PRId64 "x%" PRId64 ", C %" PRId64 "x%" PRId64,
         aM, k, bK, bN, m, n);
    return;
  }
  if (m == 0 || n == 0 || (r == 1 && c->sizes[0] == 0))
    return;
  // op(T)'s dims and strides: T's, with the last two swapped if transposed.
  auto view = [](StridedMemRefType<uint16_t, N> *t, bool trans,
                 dnnl_dims_t dims, dnnl_dims_t strides) {
    for (int i = 0; i < N; ++i) {
      dims[i] = t->sizes[i];
      // A dimension of extent 1 may carry any stride; oneDNN wants one that
      // keeps the descriptor dense-compatible.
      strides[i] = t->strides[i];
    }
    if (trans) {
      std::swap(dims[r], dims[r + 1]);
      std::swap(strides[r], strides[r + 1]);
    }
  };
  dnnl_dims_t ad, as, bd, bs, cd, cs;
  view(a, transA, ad, as);
  view(b, transB, bd, bs);
  view(c, false, cd, cs);
  std::array<int64_t, 18> shapes{};
  for (int i = 0; i < N; ++i) {
    shapes[i] = ad[i];
    shapes[3 + i] = as[i];
    shapes[6 + i] = bd[i];
    shapes[9 + i] = bs[i];
    shapes[12 + i] = cd[i];
    shapes[15 + i] = cs[i];
  }
  MatmulKey key{N, shapes, accumulate};
  Dnn &d = rt.dnn;
  auto it = matmulCache.find(key);
  if (it == matmulCache.end()) {
    dnnl_memory_desc_t amd, bmd, cmd;
    if (!dnnOk(d.mdInitByStrides(&amd, N, ad, dnnl_bf16, as),
               "oneDNN memory descriptor") ||
        !dnnOk(d.mdInitByStrides(&bmd, N, bd, dnnl_bf16, bs),
               "oneDNN memory descriptor") ||
        !dnnOk(d.mdInitByStrides(&cmd, N, cd, dnnl_bf16, cs),
               "oneDNN memory descriptor"))
      return;
    dnnl_matmul_desc_t desc;
    if (!dnnOk(d.matmulInit(&desc, &amd, &bmd, nullptr, &cmd),
               "oneDNN matmul descriptor"))
      return;
    dnnl_primitive_attr_t attr;
    if (!dnnOk(d.attrCreate(&attr), "oneDNN attributes"))
      return;
    bool ok = dnnOk(d.attrSetScratchpadMode(attr, dnnl_scratchpad_mode_user),
                    "oneDNN scratchpad mode");
    if (ok && accumulate) {
      dnnl_post_ops_t ops;
      ok = dnnOk(d.postOpsCreate(&ops), "oneDNN post-ops");
      if (ok) {
        ok = dnnOk(d.postOpsAppendSum(ops, 1.0f), "oneDNN sum post-op") &&
             dnnOk(d.attrSetPostOps(attr, ops), "oneDNN post-ops");
        d.postOpsDestroy(ops);
      }
    }
    dnnl_primitive_desc_t pd = nullptr;
    ok = ok && dnnOk(d.pdCreate(&pd, &desc, attr, rt.engine, nullptr),
                     "oneDNN bf16 matmul");
    d.attrDestroy(attr);
    if (!ok)
      return;
    DnnPrimitive mm;
    if (!makePrimitive(pd, amd, bmd, cmd, mm))
      return;
    it = matmulCache.emplace(key, mm).first;
  }
  DnnPrimitive &mm = it->second;
  if (!bindPrimitive(mm, a->data + a->offset, b->data + b->offset,
                     c->data + c->offset))
    return;
  dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, mm.src},
                             {DNNL_ARG_WEIGHTS, mm.weights},
                             {DNNL_ARG_DST, mm.dst},
                             {DNNL_ARG_SCRATCHPAD, mm.scratchpad}};
  if (dnnOk(d.primitiveExecute(mm.primitive, rt.stream, mm.scratchpad ? 4 : 3,
                               args),
            "oneDNN bf16 matmul"))
    dnnOk(d.streamWait(rt.stream), "oneDNN stream");
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

enum class ConvKind { Forward, BackwardData, BackwardWeights };

/// What identifies a convolution primitive: its kind, the x/w/y shapes and
/// strides, the convolution's strides, padding and group count.
using ConvKey =
    std::tuple<int, std::array<int64_t, 24>, std::array<int64_t, 5>>;

PrimitiveCache<ConvKey> convCache;

/// A oneDNN memory descriptor of `m`'s shape and strides.
bool describe(const EchoMemRef4D &m, dnnl_memory_desc_t &md) {
  dnnl_dims_t dims, strides;
  for (int i = 0; i < 4; ++i) {
    dims[i] = m.sizes[i];
    strides[i] = m.strides[i];
  }
  return dnnOk(rt.dnn.mdInitByStrides(&md, 4, dims, dnnl_f32, strides),
               "oneDNN memory descriptor");
}

/// A oneDNN memory descriptor of the filter `w` [F, C/G, KH, KW] in `groups`
/// groups: with more than one, the same bytes seen as oneDNN's grouped
/// weights [G, F/G, C/G, KH, KW] (goihw), whose group dim steps over F/G
/// filters.
bool describeFilter(const EchoMemRef4D &w, int64_t groups,
                    dnnl_memory_desc_t &md) {
  if (groups == 1)
    return describe(w, md);
  dnnl_dims_t dims = {groups, w.sizes[0] / groups, w.sizes[1], w.sizes[2],
                      w.sizes[3]};
  dnnl_dims_t strides = {w.strides[0] * (w.sizes[0] / groups), w.strides[0],
                         w.strides[1], w.strides[2], w.strides[3]};
  return dnnOk(rt.dnn.mdInitByStrides(&md, 5, dims, dnnl_f32, strides),
               "oneDNN grouped weights descriptor");
}

/// Creates (once per key) the primitive of `kind` for x [N,C,H,W], w
/// [F,C/G,KH,KW] and y [N,F,OH,OW] in G = `groups` groups.
DnnPrimitive *getConvolution(ConvKind kind, const EchoMemRef4D &x,
                             const EchoMemRef4D &w, const EchoMemRef4D &y,
                             int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                             int64_t groups) {
  std::array<int64_t, 24> shapes;
  for (int i = 0; i < 4; ++i) {
    shapes[i] = x.sizes[i];
    shapes[4 + i] = x.strides[i];
    shapes[8 + i] = w.sizes[i];
    shapes[12 + i] = w.strides[i];
    shapes[16 + i] = y.sizes[i];
    shapes[20 + i] = y.strides[i];
  }
  ConvKey key{static_cast<int>(kind), shapes, {sh, sw, ph, pw, groups}};
  auto it = convCache.find(key);
  if (it != convCache.end())
    return &it->second;

  Dnn &d = rt.dnn;
  dnnl_memory_desc_t xmd, wmd, ymd;
  if (!describe(x, xmd) || !describeFilter(w, groups, wmd) || !describe(y, ymd))
    return nullptr;
  dnnl_dims_t strides = {sh, sw}, padL = {ph, pw};
  // Zero padding on both sides; the bottom/right padding is what makes the
  // output size come out (oneDNN checks it).
  dnnl_dims_t padR = {
      (y.sizes[2] - 1) * sh + w.sizes[2] - x.sizes[2] - ph,
      (y.sizes[3] - 1) * sw + w.sizes[3] - x.sizes[3] - pw,
  };
  dnnl_convolution_desc_t forward, desc;
  if (!dnnOk(d.convForwardInit(&forward, dnnl_forward_training,
                               dnnl_convolution_direct, &xmd, &wmd, nullptr,
                               &ymd, strides, padL, padR),
             "oneDNN convolution descriptor"))
    return nullptr;
  dnnl_primitive_attr_t attr;
  if (!dnnOk(d.attrCreate(&attr), "oneDNN attributes") ||
      !dnnOk(d.attrSetScratchpadMode(attr, dnnl_scratchpad_mode_user),
             "oneDNN scratchpad mode"))
    return nullptr;
  dnnl_primitive_desc_t hint = nullptr, pd = nullptr;
  bool ok = dnnOk(d.pdCreate(&hint, &forward, attr, rt.engine, nullptr),
                  "oneDNN convolution forward");
  if (ok && kind == ConvKind::Forward) {
    pd = hint;
    hint = nullptr;
  } else if (ok) {
    ok =
        kind == ConvKind::BackwardData
            ? dnnOk(d.convBackwardDataInit(&desc, dnnl_convolution_direct, &xmd,
                                           &wmd, &ymd, strides, padL, padR),
                    "oneDNN convolution backward-data descriptor")
            : dnnOk(d.convBackwardWeightsInit(&desc, dnnl_convolution_direct,
                                              &xmd, &wmd, nullptr, &ymd,
                                              strides, padL, padR),
                    "oneDNN convolution backward-weights descriptor");
    ok = ok && dnnOk(d.pdCreate(&pd, &desc, attr, rt.engine, hint),
                     kind == ConvKind::BackwardData
                         ? "oneDNN convolution backward data"
                         : "oneDNN convolution backward weights");
  }
  d.attrDestroy(attr);
  if (hint)
    d.pdDestroy(hint);
  if (!ok)
    return nullptr;

  DnnPrimitive conv;
  if (!makePrimitive(pd, xmd, wmd, ymd, conv))
    return nullptr;
  return &convCache.emplace(key, conv).first->second;
}

/// Grows the shared scratchpad to `bytes`.
bool reserveScratchpad(size_t bytes) {
  if (bytes <= rt.scratchpadBytes)
    return true;
  // The old contents are not needed: free them first, so that the
  // workspace never holds two scratchpads.
  if (rt.release)
    rt.release(rt.scratchpad);
  else
    free(rt.scratchpad);
  rt.scratchpad = nullptr;
  rt.scratchpadBytes = 0;
  void *grown = nullptr;
  if (rt.allocate)
    grown = rt.allocate(64, bytes);
  else if (posix_memalign(&grown, 64, bytes) != 0)
    grown = nullptr;
  if (!grown) {
    fail("cannot allocate a %zu-byte oneDNN scratchpad", bytes);
    return false;
  }
  rt.scratchpad = grown;
  rt.scratchpadBytes = bytes;
  return true;
}

void convolve(ConvKind kind, EchoMemRef4D *x, EchoMemRef4D *w, EchoMemRef4D *y,
              int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t groups) {
  if (hasError || !dnnReady())
    return;
  if (groups < 1 || x->sizes[1] % groups != 0 || w->sizes[0] % groups != 0 ||
      x->sizes[1] / groups != w->sizes[1] || y->sizes[1] != w->sizes[0] ||
      x->sizes[0] != y->sizes[0]) {
    fail("echo_conv2d: shapes do not agree: x %" PRId64 "x%" PRId64
         "x.., w %" PRId64 "x%" PRId64 "x.., y %" PRId64 "x%" PRId64
         "x.., %" PRId64 " groups",
         x->sizes[0], x->sizes[1], w->sizes[0], w->sizes[1], y->sizes[0],
         y->sizes[1], groups);
    return;
  }
  DnnPrimitive *conv = getConvolution(kind, *x, *w, *y, sh, sw, ph, pw, groups);
  if (!conv || !bindPrimitive(*conv, x->data + x->offset, w->data + w->offset,
                              y->data + y->offset))
    return;
  Dnn &d = rt.dnn;
  dnnl_exec_arg_t args[4];
  int n = 0;
  switch (kind) {
  case ConvKind::Forward:
    args[n++] = {DNNL_ARG_SRC, conv->src};
    args[n++] = {DNNL_ARG_WEIGHTS, conv->weights};
    args[n++] = {DNNL_ARG_DST, conv->dst};
    break;
  case ConvKind::BackwardData:
    args[n++] = {DNNL_ARG_DIFF_SRC, conv->src};
    args[n++] = {DNNL_ARG_WEIGHTS, conv->weights};
    args[n++] = {DNNL_ARG_DIFF_DST, conv->dst};
    break;
  case ConvKind::BackwardWeights:
    args[n++] = {DNNL_ARG_SRC, conv->src};
    args[n++] = {DNNL_ARG_DIFF_WEIGHTS, conv->weights};
    args[n++] = {DNNL_ARG_DIFF_DST, conv->dst};
    break;
  }
  if (conv->scratchpad)
    args[n++] = {DNNL_ARG_SCRATCHPAD, conv->scratchpad};
  if (dnnOk(d.primitiveExecute(conv->primitive, rt.stream, n, args),
            "oneDNN convolution"))
    dnnOk(d.streamWait(rt.stream), "oneDNN stream");
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

} // namespace

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

ECHO_EXPORT void _mlir_ciface_echo_gemm_bf16(EchoMemRef2DBF16 *a,
                                             EchoMemRef2DBF16 *b,
                                             EchoMemRef2DBF16 *c,
                                             int64_t transA, int64_t transB,
                                             int64_t accumulate) {
  gemmBF16(a, b, c, transA, transB, accumulate);
}

ECHO_EXPORT void
_mlir_ciface_echo_batched_gemm_bf16(EchoMemRef3DBF16 *a, EchoMemRef3DBF16 *b,
                                    EchoMemRef3DBF16 *c, int64_t transA,
                                    int64_t transB, int64_t accumulate) {
  gemmBF16(a, b, c, transA, transB, accumulate);
}

ECHO_EXPORT void _mlir_ciface_echo_conv2d_forward(
    EchoMemRef4D *x, EchoMemRef4D *w, EchoMemRef4D *y, int64_t strideH,
    int64_t strideW, int64_t padH, int64_t padW, int64_t groups) {
  convolve(ConvKind::Forward, x, w, y, strideH, strideW, padH, padW, groups);
}

ECHO_EXPORT void _mlir_ciface_echo_conv2d_backward_data(
    EchoMemRef4D *w, EchoMemRef4D *dy, EchoMemRef4D *dx, int64_t strideH,
    int64_t strideW, int64_t padH, int64_t padW, int64_t groups) {
  convolve(ConvKind::BackwardData, dx, w, dy, strideH, strideW, padH, padW,
           groups);
}

ECHO_EXPORT void _mlir_ciface_echo_conv2d_backward_filter(
    EchoMemRef4D *x, EchoMemRef4D *dy, EchoMemRef4D *dw, int64_t strideH,
    int64_t strideW, int64_t padH, int64_t padW, int64_t groups) {
  convolve(ConvKind::BackwardWeights, x, dw, dy, strideH, strideW, padH, padW,
           groups);
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
  return hostLimitOk && blasReady() && dnnReady() && !hasError ? 0 : 1;
}

ECHO_EXPORT const char *echoCpuGetError(void) {
  return hasError ? firstError.c_str() : nullptr;
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
