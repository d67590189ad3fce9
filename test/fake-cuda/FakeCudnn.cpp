//===- FakeCudnn.cpp - A cuDNN that offers a given algorithm table --------===//
//
// Part of the Echo project.
//
// libcudnn.so.9 for the tests of the Echo CUDA runtime's convolution
// algorithm choice on machines without a GPU (beside the host-memory
// driver, FakeCudaDriver.cpp). Descriptors are tokens and convolutions do
// nothing; the heuristics of every direction return the table in
// ECHO_FAKE_CUDNN_ALGOS, a comma-separated list of `algo:ms:bytes` (the
// algorithm's id, its time in ms or -1, its workspace bytes), fastest
// first; `algo:ms:bytes:x` marks one the library cannot run. Default: one
// algorithm (0) without workspace. Never installed.
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
  *d = handle<cudnnTensorDescriptor_t>();
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t
cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t) {
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t,
                                                       cudnnDataType_t, int,
                                                       int, int, int, int, int,
                                                       int, int) {
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t
cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *d) {
  *d = handle<cudnnFilterDescriptor_t>();
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t
cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t) {
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t,
                                                     cudnnDataType_t,
                                                     cudnnTensorFormat_t, int,
                                                     int, int, int) {
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t
cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *d) {
  *d = handle<cudnnConvolutionDescriptor_t>();
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t
cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t) {
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t cudnnSetConvolution2dDescriptor(
    cudnnConvolutionDescriptor_t, int, int, int, int, int, int,
    cudnnConvolutionMode_t, cudnnDataType_t) {
  return CUDNN_STATUS_SUCCESS;
}
FAKE_EXPORT cudnnStatus_t
cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t, cudnnMathType_t) {
  return CUDNN_STATUS_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t, const cudnnTensorDescriptor_t, const cudnnFilterDescriptor_t,
    const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t,
    const int requested, int *returned, cudnnConvolutionFwdAlgoPerf_t *perf) {
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
    cudnnHandle_t, const void *, const cudnnTensorDescriptor_t, const void *,
    const cudnnFilterDescriptor_t, const void *,
    const cudnnConvolutionDescriptor_t, cudnnConvolutionFwdAlgo_t, void *,
    size_t, const void *, const cudnnTensorDescriptor_t, void *) {
  return CUDNN_STATUS_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t, const cudnnFilterDescriptor_t, const cudnnTensorDescriptor_t,
    const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t,
    const int requested, int *returned,
    cudnnConvolutionBwdDataAlgoPerf_t *perf) {
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
    cudnnHandle_t, const void *, const cudnnFilterDescriptor_t, const void *,
    const cudnnTensorDescriptor_t, const void *,
    const cudnnConvolutionDescriptor_t, cudnnConvolutionBwdDataAlgo_t, void *,
    size_t, const void *, const cudnnTensorDescriptor_t, void *) {
  return CUDNN_STATUS_SUCCESS;
}

FAKE_EXPORT cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t, const cudnnTensorDescriptor_t, const cudnnTensorDescriptor_t,
    const cudnnConvolutionDescriptor_t, const cudnnFilterDescriptor_t,
    const int requested, int *returned,
    cudnnConvolutionBwdFilterAlgoPerf_t *perf) {
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
    cudnnHandle_t, const void *, const cudnnTensorDescriptor_t, const void *,
    const cudnnTensorDescriptor_t, const void *,
    const cudnnConvolutionDescriptor_t, cudnnConvolutionBwdFilterAlgo_t, void *,
    size_t, const void *, const cudnnFilterDescriptor_t, void *) {
  return CUDNN_STATUS_SUCCESS;
}

} // extern "C"
