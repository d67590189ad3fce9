//===- EchoCpuDnn.cpp - oneDNN primitives behind echo_* calls ------------===//
//
// Part of the Echo project.
//
// The CPU runtime's oneDNN calls: bf16 GEMMs (oneDNN's matmul, a sum
// post-op to accumulate) and f32 and bf16 convolutions of the step's
// NCHW/FCHW buffers, computed in the layouts oneDNN chooses
// (format_tag::any: blocked ones where its direct kernels want them,
// reordered in and out at the call) or on the buffers themselves; a bf16
// convolution on a CPU without oneDNN's bf16 ones computes in f32 on
// copies the reorders convert. Each primitive is created once per shape
// and cached; their scratchpad, which also holds the reordered copies, is
// one runtime-owned buffer, the largest any call asked for
// (echoCpuWorkspaceBytes).
//
//===----------------------------------------------------------------------===//

#include "EchoCpuRuntimeImpl.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>
#include <type_traits>

namespace echo_cpu_runtime {
namespace {

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

/// True when the environment variable `name` is `value`, false when it is
/// unset or empty; any other value is an error (recorded, the step fails)
/// rather than read as the default.
bool envSelects(const char *name, const char *value) {
  const char *set = std::getenv(name);
  if (!set || !*set)
    return false;
  if (std::strcmp(set, value) == 0)
    return true;
  fail("%s=%s: the only value it takes is '%s' (unset: the default)", name, set,
       value);
  return false;
}

/// The primitives made so far, by what identifies them; destroyed with the
/// runtime (oneDNN's objects are not freed by the map's own destructor).
template <typename Key, typename Value = DnnPrimitive>
struct PrimitiveCache : std::map<Key, Value> {
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

/// A bf16 as the f32 it stands for (its upper half).
float widen(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/// `f` rounded to the nearest bf16, ties to even (a NaN stays a quiet NaN),
/// as oneDNN rounds.
uint16_t narrow(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

/// Rows of C a fallback GEMM widens at a time.
constexpr int64_t kFallbackRows = 256;

/// gemmBF16 on a CPU where oneDNN has no bf16 matmul (oneDNN 2.x needs
/// AVX-512; an AVX2-only CPU gets `unimplemented`): op(B) and each block
/// of rows of op(A) and C widened to f32 (exactly) in the shared
/// scratchpad, OpenBLAS's SGEMM (products accumulated in f32, as oneDNN
/// does), C rounded to bf16 once. The scratchpad holds op(B) and one block:
/// (K·N + kFallbackRows·(K + N))·4 bytes at most, counted as the library
/// workspace.
template <int N>
void gemmBF16ByF32(StridedMemRefType<uint16_t, N> *a,
                   StridedMemRefType<uint16_t, N> *b,
                   StridedMemRefType<uint16_t, N> *c, int64_t transA,
                   int64_t transB, int64_t accumulate, int64_t m, int64_t n,
                   int64_t k) {
  if (!blasReady())
    return;
  constexpr int r = N - 2;
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX) {
    fail("echo_gemm_bf16: %" PRId64 "x%" PRId64 "x%" PRId64
         " exceeds OpenBLAS's 32-bit sizes",
         m, n, k);
    return;
  }
  int64_t rows = std::min(m, kFallbackRows);
  size_t floats = static_cast<size_t>(k * n + rows * (k + n));
  if (!reserveScratchpad(floats * sizeof(float)))
    return;
  float *fb = static_cast<float *>(rt.scratchpad);
  float *fa = fb + k * n, *fc = fa + rows * k;
  int64_t batch = r == 1 ? c->sizes[0] : 1;
  for (int64_t i = 0; i < batch; ++i) {
    const uint16_t *pa = a->data + a->offset + (r ? i * a->strides[0] : 0);
    const uint16_t *pb = b->data + b->offset + (r ? i * b->strides[0] : 0);
    uint16_t *pc = c->data + c->offset + (r ? i * c->strides[0] : 0);
    // op(T)[x, y] of T's last two strides.
    auto at = [](const uint16_t *p, const int64_t *strides, bool trans,
                 int64_t x, int64_t y) {
      return trans ? p[y * strides[r] + x * strides[r + 1]]
                   : p[x * strides[r] + y * strides[r + 1]];
    };
    for (int64_t x = 0; x < k; ++x)
      for (int64_t y = 0; y < n; ++y)
        fb[x * n + y] = widen(at(pb, b->strides, transB, x, y));
    for (int64_t row = 0; row < m; row += rows) {
      int64_t block = std::min(rows, m - row);
      for (int64_t x = 0; x < block; ++x)
        for (int64_t y = 0; y < k; ++y)
          fa[x * k + y] = widen(at(pa, a->strides, transA, row + x, y));
      for (int64_t x = 0; accumulate && x < block; ++x)
        for (int64_t y = 0; y < n; ++y)
          fc[x * n + y] = widen(at(pc, c->strides, false, row + x, y));
      rt.blas.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans,
                    static_cast<int>(block), static_cast<int>(n),
                    static_cast<int>(k), 1.0f, fa, static_cast<int>(k), fb,
                    static_cast<int>(n), accumulate ? 1.0f : 0.0f, fc,
                    static_cast<int>(n));
      for (int64_t x = 0; x < block; ++x)
        for (int64_t y = 0; y < n; ++y)
          pc[(row + x) * c->strides[r] + y * c->strides[r + 1]] =
              narrow(fc[x * n + y]);
    }
  }
}

/// C (M×N) = op(A) · op(B) [+ C] on bf16 buffers, per batch (N = 3): oneDNN
/// accumulates the products in f32 and rounds to bf16 once. A transposed
/// operand is described by swapping its strides, so no copy is made. Where
/// oneDNN has no bf16 matmul for this CPU, gemmBF16ByF32 computes the same
/// products in f32.
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
  // ECHO_CPU_BF16_GEMM=f32 takes the f32 path on every CPU (to compare
  // the two where oneDNN has a bf16 matmul).
  static const bool forceF32 = envSelects("ECHO_CPU_BF16_GEMM", "f32");
  if (forceF32)
    return gemmBF16ByF32(a, b, c, transA, transB, accumulate, m, n, k);
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
    dnnl_status_t created =
        ok ? d.pdCreate(&pd, &desc, attr, rt.engine, nullptr) : dnnl_success;
    d.attrDestroy(attr);
    // No bf16 matmul on this CPU: the shape is remembered with no
    // primitive, and runs in f32.
    if (ok && created == dnnl_unimplemented)
      it = matmulCache.emplace(key, DnnPrimitive()).first;
    else if (!ok || !dnnOk(created, "oneDNN bf16 matmul"))
      return;
    DnnPrimitive mm;
    if (it == matmulCache.end()) {
      if (!makePrimitive(pd, amd, bmd, cmd, mm))
        return;
      it = matmulCache.emplace(key, mm).first;
    }
  }
  DnnPrimitive &mm = it->second;
  if (!mm.primitive)
    return gemmBF16ByF32(a, b, c, transA, transB, accumulate, m, n, k);
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

/// What x, w and y are to a convolution of one kind: their execution
/// arguments, the queries of the layouts its primitive computes them in,
/// and which of the three it writes (y, x's gradient or w's).
struct ConvRoles {
  std::array<int, 3> args;
  std::array<dnnl_query_t, 3> queries;
  int written;
};

ConvRoles rolesOf(ConvKind kind) {
  switch (kind) {
  case ConvKind::Forward:
    return {{DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST},
            {dnnl_query_src_md, dnnl_query_weights_md, dnnl_query_dst_md},
            2};
  case ConvKind::BackwardData:
    return {
        {DNNL_ARG_DIFF_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_DST},
        {dnnl_query_diff_src_md, dnnl_query_weights_md, dnnl_query_diff_dst_md},
        0};
  case ConvKind::BackwardWeights:
    return {
        {DNNL_ARG_SRC, DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_DST},
        {dnnl_query_src_md, dnnl_query_diff_weights_md, dnnl_query_diff_dst_md},
        1};
  }
  return {};
}

/// An operand of a convolution that oneDNN computes on in another layout
/// than the step's buffer (a blocked one, nChw8c/nChw16c): the primitive's
/// memory object points at a copy in that layout at `offset` in the
/// scratchpad, and `reorder` copies between it and the step's buffer
/// (`user`): in before the call for an operand it reads, out after it for
/// the one it writes. A null `reorder`: the primitive works on the step's
/// buffer itself.
struct Relayout {
  dnnl_primitive_t reorder = nullptr;
  dnnl_memory_t user = nullptr;
  size_t offset = 0;
};

/// A convolution primitive and the relayouts of x, w and y.
struct ConvPrimitive {
  DnnPrimitive p;
  std::array<Relayout, 3> relayout;
  /// The scratchpad it needs: the primitive's own, then the copies.
  size_t workspaceBytes = 0;
};

void destroy(ConvPrimitive &c) {
  for (Relayout &r : c.relayout) {
    if (r.reorder)
      rt.dnn.primitiveDestroy(r.reorder);
    if (r.user)
      rt.dnn.memoryDestroy(r.user);
  }
  destroy(c.p);
  c = ConvPrimitive();
}

/// What identifies a convolution primitive: its kind and the buffers' data
/// type, the x/w/y shapes and strides, the convolution's strides, padding
/// and group count.
using ConvKey =
    std::tuple<int, int, std::array<int64_t, 24>, std::array<int64_t, 5>>;

PrimitiveCache<ConvKey, ConvPrimitive> convCache;

/// True unless ECHO_CPU_CONV_LAYOUT=plain: convolutions run in the layouts
/// oneDNN chooses (format_tag::any), reordered at the call.
bool convLayoutsChosen() {
  static const bool chosen = !envSelects("ECHO_CPU_CONV_LAYOUT", "plain");
  return chosen;
}

/// The default of $ECHO_CPU_CONV_WORKSPACE_LIMIT: on the paper-size ResNet
/// (batch 32, 224x224) it runs the largest convolutions on the step's
/// buffers, halving the workspace (411 -> 206 MB) at the same step time.
constexpr size_t kDefaultConvWorkspaceLimit = size_t(256) << 20;

/// $ECHO_CPU_CONV_WORKSPACE_LIMIT, read once: the most bytes of workspace
/// (oneDNN's scratchpad and the reordered copies) a convolution may take to
/// run in the layouts oneDNN chooses; one that needs more runs on the
/// step's buffers. A byte count; 0 for no limit; unset or empty: 256 MiB.
/// Anything else is an error naming the variable (the step fails).
size_t convWorkspaceLimit() {
  static const size_t limit = [] {
    const char *text = nullptr;
    unsigned long long bytes = 0;
    EnvCount read =
        readEnvCount("ECHO_CPU_CONV_WORKSPACE_LIMIT", SIZE_MAX, bytes, text);
    if (read == EnvCount::Unset)
      return kDefaultConvWorkspaceLimit;
    if (read == EnvCount::Invalid) {
      fail("$ECHO_CPU_CONV_WORKSPACE_LIMIT is '%s': not a byte count (a "
           "non-negative integer, 0 for no limit; unset it for 256 MiB)",
           text);
      return kDefaultConvWorkspaceLimit;
    }
    return bytes == 0 ? SIZE_MAX : static_cast<size_t>(bytes);
  }();
  return limit;
}

/// A oneDNN memory descriptor of `m`'s shape and strides, of `type`.
template <typename T>
bool describe(const StridedMemRefType<T, 4> &m, dnnl_data_type_t type,
              dnnl_memory_desc_t &md) {
  dnnl_dims_t dims, strides;
  for (int i = 0; i < 4; ++i) {
    dims[i] = m.sizes[i];
    strides[i] = m.strides[i];
  }
  return dnnOk(rt.dnn.mdInitByStrides(&md, 4, dims, type, strides),
               "oneDNN memory descriptor");
}

/// A oneDNN memory descriptor of the filter `w` [F, C/G, KH, KW] in `groups`
/// groups: with more than one, the same bytes seen as oneDNN's grouped
/// weights [G, F/G, C/G, KH, KW] (goihw), whose group dim steps over F/G
/// filters.
template <typename T>
bool describeFilter(const StridedMemRefType<T, 4> &w, int64_t groups,
                    dnnl_data_type_t type, dnnl_memory_desc_t &md) {
  if (groups == 1)
    return describe(w, type, md);
  dnnl_dims_t dims = {groups, w.sizes[0] / groups, w.sizes[1], w.sizes[2],
                      w.sizes[3]};
  dnnl_dims_t strides = {w.strides[0] * (w.sizes[0] / groups), w.strides[0],
                         w.strides[1], w.strides[2], w.strides[3]};
  return dnnOk(rt.dnn.mdInitByStrides(&md, 5, dims, type, strides),
               "oneDNN grouped weights descriptor");
}

/// `md`'s dims in `type` with any layout (oneDNN picks the one its fastest
/// implementation wants).
bool anyLayout(const dnnl_memory_desc_t &md, dnnl_data_type_t type,
               dnnl_memory_desc_t &any) {
  return rt.dnn.mdInitByTag(&any, md.ndims, md.dims, type,
                            dnnl_format_tag_any) == dnnl_success;
}

/// The primitive descriptor of a convolution of `kind` on the descriptors
/// x, w, y (null, with the error recorded unless `quiet`, when oneDNN
/// refuses).
dnnl_primitive_desc_t
convolutionPd(ConvKind kind, const dnnl_memory_desc_t &xmd,
              const dnnl_memory_desc_t &wmd, const dnnl_memory_desc_t &ymd,
              const dnnl_dims_t strides, const dnnl_dims_t padL,
              const dnnl_dims_t padR, bool quiet) {
  Dnn &d = rt.dnn;
  auto ok = [&](dnnl_status_t status, const char *what) {
    return quiet ? status == dnnl_success : dnnOk(status, what);
  };
  dnnl_convolution_desc_t forward, desc;
  if (!ok(d.convForwardInit(&forward, dnnl_forward_training,
                            dnnl_convolution_direct, &xmd, &wmd, nullptr, &ymd,
                            strides, padL, padR),
          "oneDNN convolution descriptor"))
    return nullptr;
  dnnl_primitive_attr_t attr;
  if (!dnnOk(d.attrCreate(&attr), "oneDNN attributes"))
    return nullptr;
  if (!dnnOk(d.attrSetScratchpadMode(attr, dnnl_scratchpad_mode_user),
             "oneDNN scratchpad mode")) {
    d.attrDestroy(attr);
    return nullptr;
  }
  dnnl_primitive_desc_t hint = nullptr, pd = nullptr;
  bool done = ok(d.pdCreate(&hint, &forward, attr, rt.engine, nullptr),
                 "oneDNN convolution forward");
  if (done && kind == ConvKind::Forward) {
    pd = hint;
    hint = nullptr;
  } else if (done) {
    done = kind == ConvKind::BackwardData
               ? ok(d.convBackwardDataInit(&desc, dnnl_convolution_direct, &xmd,
                                           &wmd, &ymd, strides, padL, padR),
                    "oneDNN convolution backward-data descriptor")
               : ok(d.convBackwardWeightsInit(&desc, dnnl_convolution_direct,
                                              &xmd, &wmd, nullptr, &ymd,
                                              strides, padL, padR),
                    "oneDNN convolution backward-weights descriptor");
    done = done && ok(d.pdCreate(&pd, &desc, attr, rt.engine, hint),
                      kind == ConvKind::BackwardData
                          ? "oneDNN convolution backward data"
                          : "oneDNN convolution backward weights");
  }
  d.attrDestroy(attr);
  if (hint)
    d.pdDestroy(hint);
  return done ? pd : nullptr;
}

/// Rounds `bytes` up to the scratchpad's 64-byte alignment.
size_t align64(size_t bytes) { return (bytes + 63) / 64 * 64; }

/// The convolution of `kind` computed in `type` in the layouts oneDNN
/// chooses, with a relayout of each operand whose layout or type differs
/// from the step's buffer (`user`: x, w, y): oneDNN's reorders convert
/// between bf16 and f32 as they copy. False (nothing recorded, `conv`
/// empty) where oneDNN has no such primitive or a reorder that needs a
/// scratchpad of its own.
bool makeChosenLayoutConvolution(ConvKind kind,
                                 const std::array<dnnl_memory_desc_t, 3> &user,
                                 dnnl_data_type_t type,
                                 const dnnl_dims_t strides,
                                 const dnnl_dims_t padL, const dnnl_dims_t padR,
                                 ConvPrimitive &conv) {
  Dnn &d = rt.dnn;
  std::array<dnnl_memory_desc_t, 3> any;
  for (int i = 0; i < 3; ++i)
    if (!anyLayout(user[i], type, any[i]))
      return false;
  dnnl_primitive_desc_t pd = convolutionPd(kind, any[0], any[1], any[2],
                                           strides, padL, padR, /*quiet=*/true);
  if (!pd)
    return false;
  ConvRoles roles = rolesOf(kind);
  std::array<dnnl_memory_desc_t, 3> chosen;
  const dnnl_memory_desc_t *scratch =
      d.pdQueryMd(pd, dnnl_query_scratchpad_md, 0);
  size_t bytes = align64(scratch ? d.mdGetSize(scratch) : 0);
  bool ok = true;
  for (int i = 0; i < 3 && ok; ++i) {
    const dnnl_memory_desc_t *md = d.pdQueryMd(pd, roles.queries[i], 0);
    ok = md != nullptr;
    if (!ok)
      break;
    chosen[i] = *md;
    if (d.mdEqual(&chosen[i], &user[i]))
      continue;
    Relayout &r = conv.relayout[i];
    r.offset = bytes;
    bytes += align64(d.mdGetSize(&chosen[i]));
    const dnnl_memory_desc_t &from = i == roles.written ? chosen[i] : user[i];
    const dnnl_memory_desc_t &to = i == roles.written ? user[i] : chosen[i];
    dnnl_primitive_desc_t rpd = nullptr;
    ok = d.reorderPdCreate(&rpd, &from, rt.engine, &to, rt.engine, nullptr) ==
         dnnl_success;
    if (ok) {
      const dnnl_memory_desc_t *rs =
          d.pdQueryMd(rpd, dnnl_query_scratchpad_md, 0);
      ok = (!rs || d.mdGetSize(rs) == 0) &&
           d.primitiveCreate(&r.reorder, rpd) == dnnl_success &&
           d.memoryCreate(&r.user, &user[i], rt.engine, DNNL_MEMORY_NONE) ==
               dnnl_success;
      d.pdDestroy(rpd);
    }
  }
  if (!ok || !makePrimitive(pd, chosen[0], chosen[1], chosen[2], conv.p)) {
    if (!ok)
      d.pdDestroy(pd);
    destroy(conv);
    return false;
  }
  conv.workspaceBytes = bytes;
  return true;
}

/// True when ECHO_CPU_BF16_CONV=f32: bf16 convolutions compute in f32 on
/// every CPU (their operands converted by the relayouts), the path a CPU
/// without oneDNN's bf16 convolutions takes.
bool bf16ConvolutionsInF32() {
  static const bool f32 = envSelects("ECHO_CPU_BF16_CONV", "f32");
  return f32;
}

/// Creates (once per key) the primitive of `kind` for x [N,C,H,W], w
/// [F,C/G,KH,KW] and y [N,F,OH,OW] in G = `groups` groups, on buffers of
/// `type` (f32 or bf16).
template <typename T>
ConvPrimitive *getConvolution(ConvKind kind, const StridedMemRefType<T, 4> &x,
                              const StridedMemRefType<T, 4> &w,
                              const StridedMemRefType<T, 4> &y, int64_t sh,
                              int64_t sw, int64_t ph, int64_t pw,
                              int64_t groups, dnnl_data_type_t type) {
  std::array<int64_t, 24> shapes;
  for (int i = 0; i < 4; ++i) {
    shapes[i] = x.sizes[i];
    shapes[4 + i] = x.strides[i];
    shapes[8 + i] = w.sizes[i];
    shapes[12 + i] = w.strides[i];
    shapes[16 + i] = y.sizes[i];
    shapes[20 + i] = y.strides[i];
  }
  ConvKey key{static_cast<int>(kind),
              static_cast<int>(type),
              shapes,
              {sh, sw, ph, pw, groups}};
  auto it = convCache.find(key);
  if (it != convCache.end())
    return &it->second;

  std::array<dnnl_memory_desc_t, 3> user;
  if (!describe(x, type, user[0]) ||
      !describeFilter(w, groups, type, user[1]) || !describe(y, type, user[2]))
    return nullptr;
  dnnl_dims_t strides = {sh, sw}, padL = {ph, pw};
  // Zero padding on both sides; the bottom/right padding is what makes the
  // output size come out (oneDNN checks it).
  dnnl_dims_t padR = {
      (y.sizes[2] - 1) * sh + w.sizes[2] - x.sizes[2] - ph,
      (y.sizes[3] - 1) * sw + w.sizes[3] - x.sizes[3] - pw,
  };
  auto keep = [&](ConvPrimitive &conv) {
    return &convCache.emplace(key, conv).first->second;
  };
  ConvPrimitive conv;
  // bf16 where oneDNN has bf16 convolutions (AVX-512); elsewhere, or with
  // ECHO_CPU_BF16_CONV=f32, in f32 on copies the relayouts convert, in the
  // layouts oneDNN chooses (the copies cannot be avoided there, so the
  // workspace limit does not apply).
  if (type == dnnl_bf16 && bf16ConvolutionsInF32()) {
    if (makeChosenLayoutConvolution(kind, user, dnnl_f32, strides, padL, padR,
                                    conv))
      return keep(conv);
    fail("echo_conv2d_bf16: oneDNN has no f32 convolution with bf16 "
         "reorders for this shape");
    return nullptr;
  }
  // The copies in oneDNN's layouts are as large as the operands: past the
  // workspace limit the convolution runs on the step's buffers instead (a
  // paper-size ResNet's largest: 411 MB of copies of 103 MB maps).
  if (convLayoutsChosen() && makeChosenLayoutConvolution(
                                 kind, user, type, strides, padL, padR, conv)) {
    if (conv.workspaceBytes <= convWorkspaceLimit())
      return keep(conv);
    destroy(conv);
  }
  bool bf16 = type == dnnl_bf16;
  dnnl_primitive_desc_t pd =
      convolutionPd(kind, user[0], user[1], user[2], strides, padL, padR,
                    /*quiet=*/bf16);
  if (pd) {
    if (!makePrimitive(pd, user[0], user[1], user[2], conv.p))
      return nullptr;
    conv.workspaceBytes = conv.p.scratchpadBytes;
    return keep(conv);
  }
  // No bf16 convolution on this CPU (oneDNN 2.x needs AVX-512 for them).
  if (bf16 && makeChosenLayoutConvolution(kind, user, dnnl_f32, strides, padL,
                                          padR, conv))
    return keep(conv);
  if (bf16)
    fail("echo_conv2d_bf16: oneDNN has neither a bf16 convolution nor an f32 "
         "one with bf16 reorders for this shape on this CPU");
  return nullptr;
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

template <typename T>
void convolve(ConvKind kind, StridedMemRefType<T, 4> *x,
              StridedMemRefType<T, 4> *w, StridedMemRefType<T, 4> *y,
              int64_t sh, int64_t sw, int64_t ph, int64_t pw, int64_t groups) {
  constexpr dnnl_data_type_t type =
      std::is_same_v<T, float> ? dnnl_f32 : dnnl_bf16;
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
  ConvPrimitive *conv =
      getConvolution(kind, *x, *w, *y, sh, sw, ph, pw, groups, type);
  if (!conv || !reserveScratchpad(conv->workspaceBytes))
    return;
  Dnn &d = rt.dnn;
  char *scratch = static_cast<char *>(rt.scratchpad);
  std::array<void *, 3> buffers = {x->data + x->offset, w->data + w->offset,
                                   y->data + y->offset};
  std::array<dnnl_memory_t, 3> memories = {conv->p.src, conv->p.weights,
                                           conv->p.dst};
  for (int i = 0; i < 3; ++i) {
    Relayout &r = conv->relayout[i];
    if (!dnnOk(d.memorySetHandle(memories[i],
                                 r.reorder ? scratch + r.offset : buffers[i]),
               "oneDNN memory") ||
        (r.user &&
         !dnnOk(d.memorySetHandle(r.user, buffers[i]), "oneDNN memory")))
      return;
  }
  if (conv->p.scratchpad &&
      !dnnOk(d.memorySetHandle(conv->p.scratchpad, scratch), "oneDNN memory"))
    return;
  ConvRoles roles = rolesOf(kind);
  auto relayout = [&](int i) {
    Relayout &r = conv->relayout[i];
    if (!r.reorder)
      return true;
    bool out = i == roles.written;
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, out ? memories[i] : r.user},
                               {DNNL_ARG_TO, out ? r.user : memories[i]}};
    return dnnOk(d.primitiveExecute(r.reorder, rt.stream, 2, args),
                 "oneDNN reorder");
  };
  for (int i = 0; i < 3; ++i)
    if (i != roles.written && !relayout(i))
      return;
  dnnl_exec_arg_t args[4];
  int n = 0;
  for (int i = 0; i < 3; ++i)
    args[n++] = {roles.args[i], memories[i]};
  if (conv->p.scratchpad)
    args[n++] = {DNNL_ARG_SCRATCHPAD, conv->p.scratchpad};
  if (dnnOk(d.primitiveExecute(conv->p.primitive, rt.stream, n, args),
            "oneDNN convolution") &&
      relayout(roles.written))
    dnnOk(d.streamWait(rt.stream), "oneDNN stream");
}

} // namespace
} // namespace echo_cpu_runtime

using namespace echo_cpu_runtime;

//===----------------------------------------------------------------------===//
// Library calls (declared in echo/Runtime/EchoRuntimeABI.h)
//===----------------------------------------------------------------------===//

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

/// The three convolutions on memrefs `M`, as `_mlir_ciface_<name><suffix>`.
#define ECHO_CONV2D(suffix, M)                                                 \
  ECHO_EXPORT void _mlir_ciface_echo_conv2d_forward##suffix(                   \
      M *x, M *w, M *y, int64_t strideH, int64_t strideW, int64_t padH,        \
      int64_t padW, int64_t groups) {                                          \
    convolve(ConvKind::Forward, x, w, y, strideH, strideW, padH, padW,         \
             groups);                                                          \
  }                                                                            \
  ECHO_EXPORT void _mlir_ciface_echo_conv2d_backward_data##suffix(             \
      M *w, M *dy, M *dx, int64_t strideH, int64_t strideW, int64_t padH,      \
      int64_t padW, int64_t groups) {                                          \
    convolve(ConvKind::BackwardData, dx, w, dy, strideH, strideW, padH, padW,  \
             groups);                                                          \
  }                                                                            \
  ECHO_EXPORT void _mlir_ciface_echo_conv2d_backward_filter##suffix(           \
      M *x, M *dy, M *dw, int64_t strideH, int64_t strideW, int64_t padH,      \
      int64_t padW, int64_t groups) {                                          \
    convolve(ConvKind::BackwardWeights, x, dw, dy, strideH, strideW, padH,     \
             padW, groups);                                                    \
  }
ECHO_CONV2D(, EchoMemRef4D)
ECHO_CONV2D(_bf16, EchoMemRef4D16)
#undef ECHO_CONV2D
