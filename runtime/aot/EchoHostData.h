//===- EchoHostData.h - Data a training-step driver feeds -------*- C++ -*-===//
//
// Part of the Echo project.
//
// What `echo-run` and the ahead-of-time driver (`echo-step`) share, so that
// both train bit-identically: the seeded SplitMix64 generator, the rule that
// draws each argument, the memref descriptors, the parameter update between
// steps, and the NumPy .npy header. Header-only and free
// of MLIR/LLVM, because the driver runs on machines that have neither.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNTIME_AOT_ECHOHOSTDATA_H
#define ECHO_RUNTIME_AOT_ECHOHOSTDATA_H

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

// In the dialect's namespace (this header itself needs no MLIR).
namespace mlir::echo::host {

/// SplitMix64: deterministic, platform-independent pseudo-random numbers.
struct Rng {
  uint64_t state;
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
};

/// How argument `index` of a model is drawn from `seed`: integers uniformly
/// in [0, range); floats uniformly in (-bound, bound).
struct ArgumentDraw {
  bool isInteger = false;
  int64_t range = 2;
  double bound = 1.0;

  /// Parameters: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in the product
  /// of all dims but the first; vectors U(-0.5, 0.5). Data: U(-1, 1).
  static ArgumentDraw forFloat(bool isParam,
                               const std::vector<int64_t> &shape) {
    ArgumentDraw d;
    if (!isParam)
      return d;
    int64_t fanIn = 1;
    for (size_t i = 1; i < shape.size(); ++i)
      fanIn *= shape[i];
    d.bound = shape.size() >= 2 ? 1.0 / std::sqrt(double(fanIn)) : 0.5;
    return d;
  }
  static ArgumentDraw forInteger(int64_t range) {
    ArgumentDraw d;
    d.isInteger = true;
    d.range = range;
    return d;
  }

  /// Fills `n` elements (int32_t or float) of argument `index`.
  void fill(void *data, int64_t n, uint64_t seed, unsigned index) const {
    Rng rng(seed * 1000003ULL + index);
    for (int64_t e = 0; e < n; ++e) {
      if (isInteger)
        static_cast<int32_t *>(data)[e] =
            static_cast<int32_t>(rng.next() % static_cast<uint64_t>(range));
      else
        static_cast<float *>(data)[e] =
            static_cast<float>((2 * rng.uniform() - 1) * bound);
    }
  }
};

/// The strided memref descriptor that `_mlir_ciface_` entry points take for
/// a row-major buffer at `ptr`: allocated and aligned pointers, offset 0,
/// sizes, strides. (The arena, `memref<Nxi8>`, is shape {N}.)
inline std::vector<int64_t>
rowMajorDescriptor(const void *ptr, const std::vector<int64_t> &shape) {
  size_t rank = shape.size();
  std::vector<int64_t> d(3 + 2 * rank, 0);
  d[0] = d[1] = reinterpret_cast<int64_t>(ptr);
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    d[3 + i] = shape[i];
    d[3 + rank + i] = stride;
    stride *= shape[i];
  }
  return d;
}

/// Advances a parameter between steps from the step's result for it: with
/// the in-graph optimizer the result is the updated parameter; otherwise it
/// is the gradient, and `p -= lr * g` (in double, rounded once).
inline void updateParameter(float *p, const float *result, int64_t n,
                            bool inGraphSgd, double lr) {
  for (int64_t e = 0; e < n; ++e)
    p[e] = inGraphSgd
               ? result[e]
               : static_cast<float>(double(p[e]) - lr * double(result[e]));
}

/// The header (magic, version 1.0, padded dictionary) of a C-order .npy
/// file of dtype `descr` ("<f4", "<f8", "<i4") and `shape`.
inline std::string npyHeader(const std::string &descr,
                             const std::vector<int64_t> &shape) {
  std::string dims = "(";
  for (int64_t d : shape)
    dims += std::to_string(d) + ", ";
  if (shape.size() > 1)
    dims.resize(dims.size() - 2);
  else if (shape.size() == 1)
    dims.resize(dims.size() - 1);
  dims += ")";
  std::string dict = "{'descr': '" + descr +
                     "', 'fortran_order': False, 'shape': " + dims + ", }";
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string header = "\x93NUMPY";
  header += char(1);
  header += char(0);
  header += char(dict.size() & 0xff);
  header += char((dict.size() >> 8) & 0xff);
  return header + dict;
}

} // namespace mlir::echo::host

#endif // ECHO_RUNTIME_AOT_ECHOHOSTDATA_H
