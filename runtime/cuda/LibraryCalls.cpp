//===- LibraryCalls.cpp - echo_gemm and echo_conv2d_* on cuBLAS/cuDNN -----===//
//
// Part of the Echo project.
//
// The library calls that echo-library-calls emits, defined against their
// declarations in echo/Runtime/EchoRuntimeABI.h (the compiler checks every
// signature). GEMMs map row-major `C = op(A)·op(B)` onto column-major cuBLAS
// (f32: cublasSgemm; bf16 and f16: cublasGemmEx with f32 accumulation);
// convolutions use cuDNN's heuristic algorithm (f32: FP32 FMA math; bf16 and
// f16: tensor-op math, f32 compute) and a
// runtime-owned workspace. cuBLAS is loaded on the first GEMM, cuDNN on the
// first convolution.
//
//===----------------------------------------------------------------------===//

#include "RuntimeState.h"

#include "echo/Runtime/ConvAlgorithm.h"
#include "echo/Runtime/EchoRuntimeABI.h"

#include <algorithm>
#include <cinttypes>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

using namespace echo::cuda;

namespace {

/// Opens a library and creates its handle on first use (cuBLAS at the first
/// GEMM, cuDNN at the first convolution: a step that needs only one of them
/// runs where only that one is installed). `create` returns whether it made
/// the handle (reporting why not).
template <typename Handle, typename Library, typename Create>
bool libraryReady(Handle &handle, Library &library, Create create) {
  if (!ready())
    return false;
  std::lock_guard<std::mutex> lock(initMutex);
  if (handle || hasError)
    return !hasError;
  return library.load() && create();
}

bool blasReady() {
  return libraryReady(rt.blasHandle, rt.blas, [] {
    cublasStatus_t status = rt.blas.cublasCreate(&rt.blasHandle);
    if (status != CUBLAS_STATUS_SUCCESS) {
      rt.blasHandle = nullptr;
      fail("cublasCreate failed: %s", rt.blas.cublasGetStatusName(status));
      return false;
    }
    rt.blas.cublasSetStream(rt.blasHandle,
                            reinterpret_cast<cudaStream_t>(rt.stream));
    return true;
  });
}

bool dnnReady() {
  return libraryReady(rt.dnnHandle, rt.dnn, [] {
    cudnnStatus_t status = rt.dnn.cudnnCreate(&rt.dnnHandle);
    if (status != CUDNN_STATUS_SUCCESS) {
      rt.dnnHandle = nullptr;
      fail("cudnnCreate failed: %s", rt.dnn.cudnnGetErrorString(status));
      return false;
    }
    rt.dnn.cudnnSetStream(rt.dnnHandle,
                          reinterpret_cast<cudaStream_t>(rt.stream));
    return true;
  });
}

/// A library workspace of at least `bytes`, grown on demand.
void *workspace(size_t bytes) {
  if (bytes <= rt.workspaceBytes)
    return reinterpret_cast<void *>(rt.workspace);
  if (rt.workspace) {
    rt.cu.cuStreamSynchronize(rt.stream);
    release(reinterpret_cast<void *>(rt.workspace));
  }
  rt.workspace =
      reinterpret_cast<CUdeviceptr>(allocate(bytes, "a cuDNN workspace"));
  rt.workspaceBytes = rt.workspace ? bytes : 0;
  return reinterpret_cast<void *>(rt.workspace);
}

/// The first element of `m` (MLIR's descriptors keep the offset apart from
/// the aligned pointer).
template <typename T, int N> T *elements(const StridedMemRefType<T, N> &m) {
  return m.data + m.offset;
}

bool blasOk(cublasStatus_t status, const char *what) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return true;
  fail("%s failed: %s", what, rt.blas.cublasGetStatusName(status));
  return false;
}

bool dnnOk(cudnnStatus_t status, const char *what) {
  if (status == CUDNN_STATUS_SUCCESS)
    return true;
  fail("%s failed: %s", what, rt.dnn.cudnnGetErrorString(status));
  return false;
}

/// The element types of the GEMMs: f32 (cublasSgemm), and bf16 and f16 as
/// 16-bit words (cublasGemmEx, products accumulated in f32: the CPU
/// runtime's bf16 GEMM and PyTorch's CUDA matmuls do the same).
enum class GemmType { F32, BF16, F16 };

/// C (M×N) = op(A) (M×K) · op(B) (K×N) [+ C], row-major. cuBLAS is
/// column-major, so it computes Cᵀ = op(B)ᵀ · op(A)ᵀ on the same bytes.
template <GemmType Type, typename T, int N>
void gemm(const StridedMemRefType<T, N> *a, const StridedMemRefType<T, N> *b,
          const StridedMemRefType<T, N> *c, int64_t transA, int64_t transB,
          int64_t accumulate) {
  static_assert((Type == GemmType::F32) == std::is_same_v<T, float>);
  if (!blasReady())
    return;
  constexpr int r = N - 2;
  // The call's name, for its errors.
  auto name = [] {
    return std::string(N == 2 ? "echo_gemm" : "echo_batched_gemm") +
           (Type == GemmType::BF16  ? "_bf16"
            : Type == GemmType::F16 ? "_f16"
                                    : "");
  };
  // op(A) is M×K and op(B) K×N; a transposed operand is stored the other
  // way round.
  int64_t m = c->sizes[r], n = c->sizes[r + 1];
  int64_t aM = a->sizes[transA ? r + 1 : r], k = a->sizes[transA ? r : r + 1];
  int64_t bK = b->sizes[transB ? r + 1 : r], bN = b->sizes[transB ? r : r + 1];
  if (aM != m || bK != k || bN != n) {
    fail("%s: shapes do not agree: op(A) is %" PRId64 "x%" PRId64
         ", op(B) %" PRId64 "x%" PRId64 ", C %" PRId64 "x%" PRId64,
         name().c_str(), aM, k, bK, bN, m, n);
    return;
  }
  // cuBLAS needs contiguous rows (inner stride 1) whose stride, its leading
  // dimension, is at least their length (what echo-library-call-layouts
  // guarantees; other views are copied).
  const std::pair<const StridedMemRefType<T, N> *, const char *> operands[] = {
      {a, "A"}, {b, "B"}, {c, "C"}};
  for (auto [x, what] : operands) {
    if (x->strides[r + 1] != 1 && x->sizes[r + 1] > 1) {
      fail("%s: %s has inner stride %" PRId64 " (expected 1)", name().c_str(),
           what, x->strides[r + 1]);
      return;
    }
    if (x->sizes[r] > 1 && x->strides[r] < x->sizes[r + 1]) {
      fail("%s: %s has row stride %" PRId64 ", below its row length %" PRId64,
           name().c_str(), what, x->strides[r], x->sizes[r + 1]);
      return;
    }
  }
  int64_t batch = N == 2 ? 1 : c->sizes[0];
  if (N == 3 && (a->sizes[0] != batch || b->sizes[0] != batch)) {
    fail("%s: batch sizes differ", name().c_str());
    return;
  }
  const float alpha = 1.0f, beta = accumulate ? 1.0f : 0.0f;
  cublasOperation_t opA = transA ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opB = transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  // The row stride; cuBLAS wants at least the row length even when a
  // single row makes the stride meaningless.
  auto ld = [](const StridedMemRefType<T, N> *x) {
    return std::max({x->strides[r], x->sizes[r + 1], int64_t(1)});
  };
  int64_t lda = ld(a), ldb = ld(b), ldc = ld(c);
  const char *call =
      Type == GemmType::F32
          ? (N == 2 ? "cublasSgemm" : "cublasSgemmStridedBatched")
          : (N == 2 ? "cublasGemmEx" : "cublasGemmStridedBatchedEx");
  ProfileScope timed("library", call,
                     (N == 2 ? "" : std::to_string(batch) + "x") +
                         std::to_string(m) + "x" + std::to_string(n) + "x" +
                         std::to_string(k) + (transA ? " A^T" : "") +
                         (transB ? " B^T" : "") +
                         (Type == GemmType::BF16  ? " bf16"
                          : Type == GemmType::F16 ? " f16"
                                                  : ""));
  Blas &blas = rt.blas;
  if constexpr (Type == GemmType::F32) {
    if (N == 2)
      blasOk(blas.cublasSgemm(rt.blasHandle, opB, opA, n, m, k, &alpha,
                              elements(*b), ldb, elements(*a), lda, &beta,
                              elements(*c), ldc),
             call);
    else
      blasOk(blas.cublasSgemmStridedBatched(
                 rt.blasHandle, opB, opA, n, m, k, &alpha, elements(*b), ldb,
                 b->strides[0], elements(*a), lda, a->strides[0], &beta,
                 elements(*c), ldc, c->strides[0], batch),
             call);
  } else {
    cudaDataType type = Type == GemmType::BF16 ? CUDA_R_16BF : CUDA_R_16F;
    if (N == 2)
      blasOk(blas.cublasGemmEx(rt.blasHandle, opB, opA, n, m, k, &alpha,
                               elements(*b), type, ldb, elements(*a), type, lda,
                               &beta, elements(*c), type, ldc,
                               CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
             call);
    else
      blasOk(blas.cublasGemmStridedBatchedEx(
                 rt.blasHandle, opB, opA, n, m, k, &alpha, elements(*b), type,
                 ldb, b->strides[0], elements(*a), type, lda, a->strides[0],
                 &beta, elements(*c), type, ldc, c->strides[0], batch,
                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
             call);
  }
}

/// cuDNN descriptors of one convolution (x: N×C×H×W, w: F×(C/G)×KH×KW,
/// y: N×F×OH×OW, in G groups) on buffers of `type` (f32, bf16 or f16),
/// released at scope exit. It computes in f32 whatever the buffers' type
/// (cuDNN's PSEUDO_HALF and PSEUDO_BFLOAT16 configurations for the 16-bit
/// ones, which may use tensor cores).
struct Convolution {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  bool ok = false;

  template <typename T>
  Convolution(const StridedMemRefType<T, 4> &xm,
              const StridedMemRefType<T, 4> &wm,
              const StridedMemRefType<T, 4> &ym, int64_t sh, int64_t sw,
              int64_t ph, int64_t pw, int64_t groups, cudnnDataType_t type) {
    Dnn &d = rt.dnn;
    for (int i = 3, expect = 1; i >= 0; expect *= wm.sizes[i], --i)
      if (wm.strides[i] != expect && wm.sizes[i] > 1) {
        fail("echo_conv2d: the filter is not contiguous");
        return;
      }
    if (groups < 1 || groups > INT32_MAX || xm.sizes[1] % groups != 0 ||
        wm.sizes[0] % groups != 0 || xm.sizes[1] / groups != wm.sizes[1]) {
      fail("echo_conv2d: %" PRId64 " groups do not fit x with %" PRId64
           " channels and w %" PRId64 "x%" PRId64 "x..",
           groups, xm.sizes[1], wm.sizes[0], wm.sizes[1]);
      return;
    }
    ok = dnnOk(d.cudnnCreateTensorDescriptor(&x),
               "cudnnCreateTensorDescriptor") &&
         dnnOk(d.cudnnCreateTensorDescriptor(&y),
               "cudnnCreateTensorDescriptor") &&
         dnnOk(d.cudnnCreateFilterDescriptor(&w),
               "cudnnCreateFilterDescriptor") &&
         dnnOk(d.cudnnCreateConvolutionDescriptor(&conv),
               "cudnnCreateConvolutionDescriptor") &&
         tensor(x, xm, type) && tensor(y, ym, type) &&
         dnnOk(d.cudnnSetFilter4dDescriptor(w, type, CUDNN_TENSOR_NCHW,
                                            wm.sizes[0], wm.sizes[1],
                                            wm.sizes[2], wm.sizes[3]),
               "cudnnSetFilter4dDescriptor") &&
         dnnOk(d.cudnnSetConvolution2dDescriptor(conv, ph, pw, sh, sw, 1, 1,
                                                 CUDNN_CROSS_CORRELATION,
                                                 CUDNN_DATA_FLOAT),
               "cudnnSetConvolution2dDescriptor") &&
         // f32: FP32 FMA, no TF32: results must match the CPU within 1e-4.
         // 16-bit: tensor cores, f32 accumulation.
         dnnOk(d.cudnnSetConvolutionMathType(conv, type == CUDNN_DATA_FLOAT
                                                       ? CUDNN_FMA_MATH
                                                       : CUDNN_TENSOR_OP_MATH),
               "cudnnSetConvolutionMathType") &&
         // The filter descriptor holds C/G input channels; cuDNN splits x and
         // y into G groups and reads filter block g for group g.
         dnnOk(d.cudnnSetConvolutionGroupCount(conv, static_cast<int>(groups)),
               "cudnnSetConvolutionGroupCount");
  }
  ~Convolution() {
    if (x)
      rt.dnn.cudnnDestroyTensorDescriptor(x);
    if (y)
      rt.dnn.cudnnDestroyTensorDescriptor(y);
    if (w)
      rt.dnn.cudnnDestroyFilterDescriptor(w);
    if (conv)
      rt.dnn.cudnnDestroyConvolutionDescriptor(conv);
  }
  template <typename T>
  static bool tensor(cudnnTensorDescriptor_t desc,
                     const StridedMemRefType<T, 4> &m, cudnnDataType_t type) {
    return dnnOk(rt.dnn.cudnnSetTensor4dDescriptorEx(
                     desc, type, m.sizes[0], m.sizes[1], m.sizes[2], m.sizes[3],
                     m.strides[0], m.strides[1], m.strides[2], m.strides[3]),
                 "cudnnSetTensor4dDescriptorEx");
  }
};

/// Device bytes a convolution's workspace may take now: what is free on
/// the device (or under ECHO_CUDA_FAULTS=device-bytes) plus the workspace
/// the runtime already holds.
size_t freeWorkspaceBytes() { return deviceFreeBytes() + rt.workspaceBytes; }

/// What the runtime chose for each convolution, for the report.
struct ConvRecord {
  int algorithm = 0;
  size_t workspaceBytes = 0, freeBytes = 0;
  bool fits = false;
  long calls = 0;
};
std::map<std::tuple<std::string, std::string, int>, ConvRecord> convRecords;
std::string convRecordsJSON;

/// SuperNeurons' rule (ConvAlgorithm.h): of the algorithms cuDNN's
/// heuristics propose (fastest first), the fastest whose workspace fits the
/// device bytes free now.
template <typename Perf, typename Get>
bool pickAlgorithm(Get get, const char *what, const char *direction,
                   const std::string &shape, Perf &chosen) {
  Perf perf[16];
  int found = 0;
  if (!dnnOk(get(16, &found, perf), what))
    return false;
  mlir::echo::runtime::ConvAlgorithm table[16];
  found = std::clamp(found, 0, 16);
  for (int i = 0; i < found; ++i)
    table[i] = {static_cast<int>(perf[i].algo),
                perf[i].status == CUDNN_STATUS_SUCCESS, perf[i].time,
                perf[i].memory};
  size_t freeBytes = freeWorkspaceBytes();
  mlir::echo::runtime::ConvChoice choice =
      mlir::echo::runtime::chooseConvAlgorithm(table, found, freeBytes);
  if (choice.index < 0) {
    fail("%s: no algorithm for this convolution", what);
    return false;
  }
  chosen = perf[choice.index];
  ConvRecord &r = convRecords[{direction, shape, table[choice.index].id}];
  r.algorithm = table[choice.index].id;
  r.workspaceBytes =
      std::max(r.workspaceBytes, table[choice.index].workspaceBytes);
  r.freeBytes = freeBytes;
  r.fits = choice.fits;
  ++r.calls;
  return true;
}

/// "NxCxHxW" of a descriptor.
template <typename T> std::string dims(const StridedMemRefType<T, 4> &m) {
  return std::to_string(m.sizes[0]) + "x" + std::to_string(m.sizes[1]) + "x" +
         std::to_string(m.sizes[2]) + "x" + std::to_string(m.sizes[3]);
}

/// The convolution's shapes, strides, padding, (when more than one)
/// groups and (when not f32) type: the report's key.
template <typename T>
std::string describeConvolution(const StridedMemRefType<T, 4> &x,
                                const StridedMemRefType<T, 4> &w, int64_t sh,
                                int64_t sw, int64_t ph, int64_t pw,
                                int64_t groups, cudnnDataType_t type) {
  return "x " + dims(x) + ", w " + dims(w) + ", stride " + std::to_string(sh) +
         "x" + std::to_string(sw) + ", pad " + std::to_string(ph) + "x" +
         std::to_string(pw) +
         (groups == 1 ? "" : ", groups " + std::to_string(groups)) +
         (type == CUDNN_DATA_BFLOAT16 ? ", bf16"
          : type == CUDNN_DATA_HALF   ? ", f16"
                                      : "");
}

/// One cuDNN convolution call in direction `direction` (Forward,
/// BackwardData, BackwardFilter): the algorithm pickAlgorithm chooses, its
/// workspace, then the call with alpha = 1, beta = 0.
template <typename Perf, typename GetAlgorithms, typename GetBytes,
          typename Run>
void convolve(const Convolution &c, const char *direction,
              const std::string &shape, GetAlgorithms getAlgorithms,
              GetBytes getBytes, Run run) {
  if (!c.ok)
    return;
  std::string heuristics =
      std::string("cudnnGetConvolution") + direction + "Algorithm_v7";
  std::string sizing =
      std::string("cudnnGetConvolution") + direction + "WorkspaceSize";
  std::string call = std::string("cudnnConvolution") + direction;
  Perf algo;
  size_t bytes = 0;
  if (!pickAlgorithm<Perf>(getAlgorithms, heuristics.c_str(), direction, shape,
                           algo) ||
      !dnnOk(getBytes(algo.algo, &bytes), sizing.c_str()))
    return;
  void *ws = workspace(bytes);
  if (bytes && !ws)
    return;
  const float alpha = 1.0f, beta = 0.0f;
  ProfileScope timed("library", call.c_str(),
                     shape + ", algorithm " + std::to_string(algo.algo));
  dnnOk(run(algo.algo, ws, bytes, &alpha, &beta), call.c_str());
}

/// A library call's operands (descriptors: buffers and shapes) and integer
/// arguments, for ECHO_CUDA_GRAPH's check of replayed steps.
template <typename... T> void noteCall(const T *...values) {
  (noteStepWork(values, sizeof(T)), ...);
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points (declared in EchoRuntimeABI.h)
//===----------------------------------------------------------------------===//

/// `_mlir_ciface_<name>`: the GEMM of `type` on memrefs `M`.
#define ECHO_GEMM(name, M, type)                                               \
  ECHO_EXPORT void _mlir_ciface_##name(M *a, M *b, M *c, int64_t transA,       \
                                       int64_t transB, int64_t accumulate) {   \
    noteCall(a, b, c, &transA, &transB, &accumulate);                          \
    if (!replayingStep())                                                      \
      gemm<type>(a, b, c, transA, transB, accumulate);                         \
  }
ECHO_GEMM(echo_gemm, EchoMemRef2D, GemmType::F32)
ECHO_GEMM(echo_batched_gemm, EchoMemRef3D, GemmType::F32)
ECHO_GEMM(echo_gemm_bf16, EchoMemRef2DBF16, GemmType::BF16)
ECHO_GEMM(echo_batched_gemm_bf16, EchoMemRef3DBF16, GemmType::BF16)
ECHO_GEMM(echo_gemm_f16, EchoMemRef2DF16, GemmType::F16)
ECHO_GEMM(echo_batched_gemm_f16, EchoMemRef3DF16, GemmType::F16)
#undef ECHO_GEMM

namespace {
/// The convolutions of buffers of T holding `type`.
template <typename T>
void convForward(StridedMemRefType<T, 4> *x, StridedMemRefType<T, 4> *w,
                 StridedMemRefType<T, 4> *y, int64_t sh, int64_t sw, int64_t ph,
                 int64_t pw, int64_t groups, cudnnDataType_t type) {
  noteCall(x, w, y, &sh, &sw, &ph, &pw, &groups);
  if (replayingStep() || !dnnReady())
    return;
  Convolution c(*x, *w, *y, sh, sw, ph, pw, groups, type);
  Dnn &d = rt.dnn;
  cudnnHandle_t h = rt.dnnHandle;
  convolve<cudnnConvolutionFwdAlgoPerf_t>(
      c, "Forward", describeConvolution(*x, *w, sh, sw, ph, pw, groups, type),
      [&](int n, int *found, cudnnConvolutionFwdAlgoPerf_t *perf) {
        return d.cudnnGetConvolutionForwardAlgorithm_v7(h, c.x, c.w, c.conv,
                                                        c.y, n, found, perf);
      },
      [&](cudnnConvolutionFwdAlgo_t algo, size_t *bytes) {
        return d.cudnnGetConvolutionForwardWorkspaceSize(h, c.x, c.w, c.conv,
                                                         c.y, algo, bytes);
      },
      [&](cudnnConvolutionFwdAlgo_t algo, void *ws, size_t bytes,
          const float *alpha, const float *beta) {
        return d.cudnnConvolutionForward(h, alpha, c.x, elements(*x), c.w,
                                         elements(*w), c.conv, algo, ws, bytes,
                                         beta, c.y, elements(*y));
      });
}

template <typename T>
void convBackwardData(StridedMemRefType<T, 4> *w, StridedMemRefType<T, 4> *dy,
                      StridedMemRefType<T, 4> *dx, int64_t sh, int64_t sw,
                      int64_t ph, int64_t pw, int64_t groups,
                      cudnnDataType_t type) {
  noteCall(w, dy, dx, &sh, &sw, &ph, &pw, &groups);
  if (replayingStep() || !dnnReady())
    return;
  Convolution c(*dx, *w, *dy, sh, sw, ph, pw, groups, type);
  Dnn &d = rt.dnn;
  cudnnHandle_t h = rt.dnnHandle;
  convolve<cudnnConvolutionBwdDataAlgoPerf_t>(
      c, "BackwardData",
      describeConvolution(*dx, *w, sh, sw, ph, pw, groups, type),
      [&](int n, int *found, cudnnConvolutionBwdDataAlgoPerf_t *perf) {
        return d.cudnnGetConvolutionBackwardDataAlgorithm_v7(
            h, c.w, c.y, c.conv, c.x, n, found, perf);
      },
      [&](cudnnConvolutionBwdDataAlgo_t algo, size_t *bytes) {
        return d.cudnnGetConvolutionBackwardDataWorkspaceSize(
            h, c.w, c.y, c.conv, c.x, algo, bytes);
      },
      [&](cudnnConvolutionBwdDataAlgo_t algo, void *ws, size_t bytes,
          const float *alpha, const float *beta) {
        return d.cudnnConvolutionBackwardData(h, alpha, c.w, elements(*w), c.y,
                                              elements(*dy), c.conv, algo, ws,
                                              bytes, beta, c.x, elements(*dx));
      });
}

template <typename T>
void convBackwardFilter(StridedMemRefType<T, 4> *x, StridedMemRefType<T, 4> *dy,
                        StridedMemRefType<T, 4> *dw, int64_t sh, int64_t sw,
                        int64_t ph, int64_t pw, int64_t groups,
                        cudnnDataType_t type) {
  noteCall(x, dy, dw, &sh, &sw, &ph, &pw, &groups);
  if (replayingStep() || !dnnReady())
    return;
  Convolution c(*x, *dw, *dy, sh, sw, ph, pw, groups, type);
  Dnn &d = rt.dnn;
  cudnnHandle_t h = rt.dnnHandle;
  convolve<cudnnConvolutionBwdFilterAlgoPerf_t>(
      c, "BackwardFilter",
      describeConvolution(*x, *dw, sh, sw, ph, pw, groups, type),
      [&](int n, int *found, cudnnConvolutionBwdFilterAlgoPerf_t *perf) {
        return d.cudnnGetConvolutionBackwardFilterAlgorithm_v7(
            h, c.x, c.y, c.conv, c.w, n, found, perf);
      },
      [&](cudnnConvolutionBwdFilterAlgo_t algo, size_t *bytes) {
        return d.cudnnGetConvolutionBackwardFilterWorkspaceSize(
            h, c.x, c.y, c.conv, c.w, algo, bytes);
      },
      [&](cudnnConvolutionBwdFilterAlgo_t algo, void *ws, size_t bytes,
          const float *alpha, const float *beta) {
        return d.cudnnConvolutionBackwardFilter(
            h, alpha, c.x, elements(*x), c.y, elements(*dy), c.conv, algo, ws,
            bytes, beta, c.w, elements(*dw));
      });
}

} // namespace

ECHO_EXPORT void _mlir_ciface_echo_conv2d_forward(EchoMemRef4D *x,
                                                  EchoMemRef4D *w,
                                                  EchoMemRef4D *y, int64_t sh,
                                                  int64_t sw, int64_t ph,
                                                  int64_t pw, int64_t groups) {
  convForward(x, w, y, sh, sw, ph, pw, groups, CUDNN_DATA_FLOAT);
}

ECHO_EXPORT void
_mlir_ciface_echo_conv2d_backward_data(EchoMemRef4D *w, EchoMemRef4D *dy,
                                       EchoMemRef4D *dx, int64_t sh, int64_t sw,
                                       int64_t ph, int64_t pw, int64_t groups) {
  convBackwardData(w, dy, dx, sh, sw, ph, pw, groups, CUDNN_DATA_FLOAT);
}

ECHO_EXPORT void _mlir_ciface_echo_conv2d_backward_filter(
    EchoMemRef4D *x, EchoMemRef4D *dy, EchoMemRef4D *dw, int64_t sh, int64_t sw,
    int64_t ph, int64_t pw, int64_t groups) {
  convBackwardFilter(x, dy, dw, sh, sw, ph, pw, groups, CUDNN_DATA_FLOAT);
}

/// The 16-bit forms: bf16 and f16 buffers, f32 compute.
#define ECHO_CONV2D_16BIT(suffix, type)                                        \
  ECHO_EXPORT void _mlir_ciface_echo_conv2d_forward_##suffix(                  \
      EchoMemRef4D16 *x, EchoMemRef4D16 *w, EchoMemRef4D16 *y, int64_t sh,     \
      int64_t sw, int64_t ph, int64_t pw, int64_t groups) {                    \
    convForward(x, w, y, sh, sw, ph, pw, groups, type);                        \
  }                                                                            \
  ECHO_EXPORT void _mlir_ciface_echo_conv2d_backward_data_##suffix(            \
      EchoMemRef4D16 *w, EchoMemRef4D16 *dy, EchoMemRef4D16 *dx, int64_t sh,   \
      int64_t sw, int64_t ph, int64_t pw, int64_t groups) {                    \
    convBackwardData(w, dy, dx, sh, sw, ph, pw, groups, type);                 \
  }                                                                            \
  ECHO_EXPORT void _mlir_ciface_echo_conv2d_backward_filter_##suffix(          \
      EchoMemRef4D16 *x, EchoMemRef4D16 *dy, EchoMemRef4D16 *dw, int64_t sh,   \
      int64_t sw, int64_t ph, int64_t pw, int64_t groups) {                    \
    convBackwardFilter(x, dy, dw, sh, sw, ph, pw, groups, type);               \
  }
ECHO_CONV2D_16BIT(bf16, CUDNN_DATA_BFLOAT16)
ECHO_CONV2D_16BIT(f16, CUDNN_DATA_HALF)
#undef ECHO_CONV2D_16BIT

//===----------------------------------------------------------------------===//
// Host API
//===----------------------------------------------------------------------===//

ECHO_EXPORT const char *echoCudaConvAlgorithms(void) {
  std::string &json = convRecordsJSON;
  json = "[";
  for (const auto &[key, r] : convRecords) {
    json += json.size() > 1 ? "," : "";
    json += "{\"direction\":\"" + std::get<0>(key) + "\",\"convolution\":\"" +
            std::get<1>(key) +
            "\",\"algorithm\":" + std::to_string(r.algorithm) +
            ",\"workspace_bytes\":" + std::to_string(r.workspaceBytes) +
            ",\"free_bytes\":" + std::to_string(r.freeBytes) +
            ",\"fits\":" + (r.fits ? "true" : "false") +
            ",\"calls\":" + std::to_string(r.calls) + "}";
  }
  json += "]";
  return json.c_str();
}

ECHO_EXPORT void echoCudaReleaseWorkspaces(void) {
  // A captured step reads the workspace: its graph goes first.
  releaseStepGraph();
  if (rt.workspace) {
    release(reinterpret_cast<void *>(rt.workspace));
    rt.workspace = 0;
    rt.workspaceBytes = 0;
  }
  releaseHostPool();
}
