//===- EchoCpuConv.cpp - Convolutions on oneDNN ---------------------------===//
//
// Part of the Echo project.
//
// echo_conv2d_{forward,backward_data,backward_filter} and their bf16 forms:
// oneDNN's convolutions of the step's NCHW/FCHW buffers, computed in the
// layouts oneDNN chooses (format_tag::any: blocked ones where its direct
// kernels want them, reordered in and out at the call, within
// ECHO_CPU_CONV_WORKSPACE_LIMIT) or on the buffers themselves; a bf16
// convolution on a CPU without oneDNN's bf16 ones computes in f32 on
// copies the reorders convert. Each primitive is created once per shape
// and type and cached; the copies live in the shared scratchpad.
//
//===----------------------------------------------------------------------===//

#include "EchoCpuDnnImpl.h"

#include <array>
#include <cinttypes>
#include <cstdint>
#include <tuple>
#include <type_traits>

namespace echo_cpu_runtime {
namespace {

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
