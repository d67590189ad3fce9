//===- FakeCudnn.cpp - A cuDNN that offers a given algorithm table --------===//
//
// Part of the Echo project.
//
// libcudnn.so.9 for the tests of the Echo CUDA runtime's convolution
// algorithm choice on machines without a GPU (beside the host-memory
// driver, FakeCudaDriver.cpp). Convolutions do nothing; the heuristics of
// every direction return the table in ECHO_FAKE_CUDNN_ALGOS, a
// comma-separated list of `algo:ms:bytes` (the algorithm's id, its time in
// ms or -1, its workspace bytes), fastest first; `algo:ms:bytes:x` marks one
// the library cannot run. Default: one algorithm (0) without workspace.
//
// Descriptors keep what they are set to (a tensor descriptor takes only
// the layouts the Echo runtime's contract promises: each image dense, any
// image stride from one image up; CUDNN_STATUS_NOT_SUPPORTED otherwise),
// and every call that takes a convolution checks its shapes as cuDNN does
// (the filter's input channels times the group count are x's channels, its
// filters y's, the group count divides them, and y's extents are the
// forward output's of x's), answering CUDNN_STATUS_BAD_PARAM otherwise. With
// ECHO_FAKE_CUDNN_LOG=<path>, each convolution call appends a line
// `<call> x NxCxHxW w KxCxRxS y NxKxPxQ groups G type T compute C math M`
// to that file. Never installed.
//
//===----------------------------------------------------------------------===//

#include <cudnn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define FAKE_EXPORT __attribute__((visibility("default")))

namespace {
struct Algorithm {
  int id;
  float ms;
  size_t bytes;
  bool usable;
};

std::vector<Algorithm> table() {
  std::vector<Algorithm> algorithms;
  const char *spec = getenv("ECHO_FAKE_CUDNN_ALGOS");
  std::string rest = spec ? spec : "0:-1:0";
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string item = rest.substr(0, comma);
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
    Algorithm a{0, -1.0f, 0, true};
    char mark = 0;
    unsigned long long bytes = 0;
    if (sscanf(item.c_str(), "%d:%f:%llu:%c", &a.id, &a.ms, &bytes, &mark) <
        3) {
      fprintf(stderr, "fake cuDNN: cannot read '%s'\n", item.c_str());
      exit(2);
    }
    a.bytes = bytes;
    a.usable = mark != 'x';
    algorithms.push_back(a);
  }
  return algorithms;
}

int token;

template <typename T> T handle() { return reinterpret_cast<T>(&token); }

/// What the descriptors hold: 4 dims (a tensor's NCHW, a filter's KCRS)
/// and the data type.
struct Dims {
  int d[4] = {0, 0, 0, 0};
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
};
struct Conv {
  int pad[2] = {0, 0}, stride[2] = {1, 1}, dilation[2] = {1, 1};
  int groups = 1;
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

const char *typeName(cudnnDataType_t type) {
  switch (type) {
  case CUDNN_DATA_FLOAT:
    return "f32";
  case CUDNN_DATA_HALF:
    return "f16";
  case CUDNN_DATA_BFLOAT16:
    return "bf16";
  default:
    return "other";
  }
}

template <typename T> Dims *dims(T desc) {
  return reinterpret_cast<Dims *>(desc);
}
Conv *conv(cudnnConvolutionDescriptor_t desc) {
  return reinterpret_cast<Conv *>(desc);
}

std::string text(const Dims *m) {
  return std::to_string(m->d[0]) + "x" + std::to_string(m->d[1]) + "x" +
         std::to_string(m->d[2]) + "x" + std::to_string(m->d[3]);
}

/// cuDNN's check of a convolution's channels and types (x, w and y of one
/// type; f32 compute, as the runtime asks for every type), and the log
/// line of `call`.
cudnnStatus_t checkConvolution(const char *call, cudnnTensorDescriptor_t x,
                               cudnnFilterDescriptor_t w,
                               cudnnConvolutionDescriptor_t c,
                               cudnnTensorDescriptor_t y) {
  const Dims *xd = dims(x), *wd = dims(w), *yd = dims(y);
  int groups = conv(c)->groups;
  if (const char *path = getenv("ECHO_FAKE_CUDNN_LOG")) {
    if (FILE *log = fopen(path, "a")) {
      fprintf(log, "%s x %s w %s y %s groups %d type %s compute %s math %s\n",
              call, text(xd).c_str(), text(wd).c_str(), text(yd).c_str(),
              groups, typeName(xd->type), typeName(conv(c)->compute),
              conv(c)->math == CUDNN_TENSOR_OP_MATH ? "tensor-op"
              : conv(c)->math == CUDNN_FMA_MATH     ? "fma"
                                                    : "other");
      fclose(log);
    }
  }
  if (groups < 1 || wd->d[0] % groups != 0 || xd->d[1] != wd->d[1] * groups ||
      yd->d[1] != wd->d[0] || xd->d[0] != yd->d[0] || xd->type != wd->type ||
      xd->type != yd->type || conv(c)->compute != CUDNN_DATA_FLOAT)
    return CUDNN_STATUS_BAD_PARAM;
  // y's extents are the forward output's of x
  // (cudnnGetConvolution2dForwardOutputDim): a backward data into an x with
  // rows no window reaches (a transposed convolution's output_padding)
  // passes as long as the floor gives y's extent back.
  const Conv *cd = conv(c);
  for (int i = 0; i < 2; ++i) {
    int span = xd->d[2 + i] + 2 * cd->pad[i] -
               (cd->dilation[i] * (wd->d[2 + i] - 1) + 1);
    if (span < 0 || span / cd->stride[i] + 1 != yd->d[2 + i])
      return CUDNN_STATUS_BAD_PARAM;
  }
  return CUDNN_STATUS_SUCCESS;
}

template <typename Perf, typename Algo>
cudnnStatus_t heuristics(int requested, int *returned, Perf *perf) {
  std::vector<Algorithm> algorithms = table();
  int n = 0;
  for (const Algorithm &a : algorithms) {
    if (n == requested)
      break;
    Perf p;
    memset(&p, 0, sizeof(p));
    p.algo = static_cast<Algo>(a.id);
    p.status = a.usable ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED;
    p.time = a.ms;
    p.memory = a.bytes;
    perf[n++] = p;
  }
  *returned = n;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t workspace(int id, size_t *bytes) {
  for (const Algorithm &a : table())
    if (a.id == id) {
      *bytes = a.bytes;
      return CUDNN_STATUS_SUCCESS;
    }
  return CUDNN_STATUS_BAD_PARAM;
}
} // namespace

extern "C" {

FAKE_EXPORT cudnnStatus_t cudnnCreate(cudnnHandle_t *h) {
  *h = handle<cudnnHandle_t>();
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t cudnnSetStream(cudnnHandle_t, cudaStream_t) {
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT const char *cudnnGetErrorString(cudnnStatus_t status) {
  return status == CUDNN_STATUS_SUCCESS ? "CUDNN_STATUS_SUCCESS"
                                        : "CUDNN_STATUS_FAKE_ERROR";
}
FAKE_EXPORT cudnnStatus_t
cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *d) {
  *d = reinterpret_cast<cudnnTensorDescriptor_t>(new Dims());
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t
cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t d) {
  delete dims(d);
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t cudnnSetTensor4dDescriptorEx(
    cudnnTensorDescriptor_t d, cudnnDataType_t type, int n, int c, int h, int w,
    int ns, int cs, int hs, int ws) {
  // The layouts the Echo runtime's contract gives cuDNN: each image
  // [C, H, W] dense (a dim of extent 1 may have any stride), the images
  // apart by at least one image. cuDNN takes more for some algorithms;
  // anything else here is a view the compiler should have copied.
  if ((w > 1 && ws != 1) || (h > 1 && hs != w) || (c > 1 && cs != h * w) ||
      (n > 1 && ns < c * h * w))
    return CUDNN_STATUS_NOT_SUPPORTED;
  *dims(d) = Dims{{n, c, h, w}, type};
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t
cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *d) {
  *d = reinterpret_cast<cudnnFilterDescriptor_t>(new Dims());
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t
cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t d) {
  delete dims(d);
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t d,
                                                     cudnnDataType_t type,
                                                     cudnnTensorFormat_t, int k,
                                                     int c, int h, int w) {
  *dims(d) = Dims{{k, c, h, w}, type};
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t
cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *d) {
  *d = reinterpret_cast<cudnnConvolutionDescriptor_t>(new Conv());
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t
cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t d) {
  delete conv(d);
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t
cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t d, int groups) {
  if (groups < 1)
    return CUDNN_STATUS_BAD_PARAM;
  conv(d)->groups = groups;
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t cudnnSetConvolution2dDescriptor(
    cudnnConvolutionDescriptor_t d, int padH, int padW, int strideH,
    int strideW, int dilationH, int dilationW, cudnnConvolutionMode_t,
    cudnnDataType_t compute) {
  Conv *c = conv(d);
  c->pad[0] = padH;
  c->pad[1] = padW;
  c->stride[0] = strideH;
  c->stride[1] = strideW;
  c->dilation[0] = dilationH;
  c->dilation[1] = dilationW;
  c->compute = compute;
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t cudnnSetConvolutionMathType(
    cudnnConvolutionDescriptor_t d, cudnnMathType_t math) {
  conv(d)->math = math;
  return CUDNN_STATUS_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t, const cudnnTensorDescriptor_t x,
    const cudnnFilterDescriptor_t w, const cudnnConvolutionDescriptor_t c,
    const cudnnTensorDescriptor_t y, const int requested, int *returned,
    cudnnConvolutionFwdAlgoPerf_t *perf) {
  if (cudnnStatus_t status = checkConvolution(
          "cudnnGetConvolutionForwardAlgorithm_v7", x, w, c, y))
    return status;
  return heuristics<cudnnConvolutionFwdAlgoPerf_t, cudnnConvolutionFwdAlgo_t>(
      requested, returned, perf);
}
FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(
    cudnnHandle_t, const cudnnTensorDescriptor_t, const cudnnFilterDescriptor_t,
    const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t,
    cudnnConvolutionFwdAlgo_t algo, size_t *bytes) {
  return workspace(algo, bytes);
}
FAKE_EXPORT cudnnStatus_t cudnnConvolutionForward(
    cudnnHandle_t, const void *, const cudnnTensorDescriptor_t x, const void *,
    const cudnnFilterDescriptor_t w, const void *,
    const cudnnConvolutionDescriptor_t c, cudnnConvolutionFwdAlgo_t, void *,
    size_t, const void *, const cudnnTensorDescriptor_t y, void *) {
  return checkConvolution("cudnnConvolutionForward", x, w, c, y);
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t, const cudnnFilterDescriptor_t w,
    const cudnnTensorDescriptor_t dy, const cudnnConvolutionDescriptor_t c,
    const cudnnTensorDescriptor_t dx, const int requested, int *returned,
    cudnnConvolutionBwdDataAlgoPerf_t *perf) {
  if (cudnnStatus_t status = checkConvolution(
          "cudnnGetConvolutionBackwardDataAlgorithm_v7", dx, w, c, dy))
    return status;
  return heuristics<cudnnConvolutionBwdDataAlgoPerf_t,
                    cudnnConvolutionBwdDataAlgo_t>(requested, returned, perf);
}
FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t, const cudnnFilterDescriptor_t, const cudnnTensorDescriptor_t,
    const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t,
    cudnnConvolutionBwdDataAlgo_t algo, size_t *bytes) {
  return workspace(algo, bytes);
}
FAKE_EXPORT cudnnStatus_t cudnnConvolutionBackwardData(
    cudnnHandle_t, const void *, const cudnnFilterDescriptor_t w, const void *,
    const cudnnTensorDescriptor_t dy, const void *,
    const cudnnConvolutionDescriptor_t c, cudnnConvolutionBwdDataAlgo_t, void *,
    size_t, const void *, const cudnnTensorDescriptor_t dx, void *) {
  return checkConvolution("cudnnConvolutionBackwardData", dx, w, c, dy);
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t, const cudnnTensorDescriptor_t x,
    const cudnnTensorDescriptor_t dy, const cudnnConvolutionDescriptor_t c,
    const cudnnFilterDescriptor_t dw, const int requested, int *returned,
    cudnnConvolutionBwdFilterAlgoPerf_t *perf) {
  if (cudnnStatus_t status = checkConvolution(
          "cudnnGetConvolutionBackwardFilterAlgorithm_v7", x, dw, c, dy))
    return status;
  return heuristics<cudnnConvolutionBwdFilterAlgoPerf_t,
                    cudnnConvolutionBwdFilterAlgo_t>(requested, returned, perf);
}
FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(
    cudnnHandle_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t,
    const cudnnConvolutionDescriptor_t, const cudnnFilterDescriptor_t,
    cudnnConvolutionBwdFilterAlgo_t algo, size_t *bytes) {
  return workspace(algo, bytes);
}
FAKE_EXPORT cudnnStatus_t cudnnConvolutionBackwardFilter(
    cudnnHandle_t, const void *, const cudnnTensorDescriptor_t x, const void *,
    const cudnnTensorDescriptor_t dy, const void *,
    const cudnnConvolutionDescriptor_t c, cudnnConvolutionBwdFilterAlgo_t,
    void *, size_t, const void *, const cudnnFilterDescriptor_t dw, void *) {
  return checkConvolution("cudnnConvolutionBackwardFilter", x, dw, c, dy);
}

} // extern "C"
