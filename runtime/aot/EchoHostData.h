//===- EchoHostData.h - Data a training-step driver feeds -------*- C++ -*-===//
//
// Part of the Echo project.
//
// What `echo-run` and the ahead-of-time driver (`echo-step`) share, so that
// both train bit-identically: the seeded SplitMix64 generator, the rule that
// draws each argument, the memref descriptors, the parameter update between
// steps, and the NumPy .npy format (the header written, a file parsed).
// Header-only and free of MLIR/LLVM, because the driver runs on machines
// that have neither.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNTIME_AOT_ECHOHOSTDATA_H
#define ECHO_RUNTIME_AOT_ECHOHOSTDATA_H

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
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

/// The step seed (`echo.rng_seed`) a driver passes at step `step` (0-based)
/// of a run drawn from `seed`: every step a fresh value, the same in
/// echo-run and echo-step. Below 2^53, so that it survives the f64 copies of
/// the gradient check.
inline int64_t stepSeed(uint64_t seed, uint64_t step) {
  Rng rng(seed * 0x9E3779B97F4A7C15ULL + step);
  return static_cast<int64_t>(rng.next() >> 11);
}

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

/// Checks the value of the optimizer hyperparameter `name` against the range
/// PyTorch's torch.optim accepts (lr, momentum, eps, weight_decay >= 0;
/// 0 <= beta < 1; finite): an error message naming it, empty when it is in
/// range. (The step count is the driver's own.)
inline std::string checkHyperparameter(const std::string &name, double value) {
  bool fraction = name == "beta1" || name == "beta2";
  if (std::isfinite(value) && value >= 0 && (!fraction || value < 1))
    return "";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%g", value);
  return name + " must be " +
         (fraction ? "in [0, 1)" : "a finite number >= 0") + ", got " + buf;
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

/// A parsed .npy file: its dtype, order, shape and the bytes of its data
/// (pointing into the buffer that was parsed).
struct NpyArray {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  const char *data = nullptr;
  uint64_t dataSize = 0;
};

/// The size in bytes of one element of dtype `descr`, or 0 when the dtype
/// is not one a step takes ("<f4", "<f8", "<i4").
inline int64_t npyItemSize(const std::string &descr) {
  if (descr == "<f4" || descr == "<i4")
    return 4;
  if (descr == "<f8" || descr == "<i8")
    return 8;
  return 0;
}

/// Parses the .npy file `bytes[0, size)` (format versions 1 to 3) into
/// `out`; on failure returns false and says what is wrong in `error`.
/// Checks everything a reader relies on: the magic string and version, a
/// header length within the file and at most 1 MiB, a header that is
/// exactly the dictionary NumPy writes (keys 'descr', 'fortran_order' and
/// 'shape', each once), a supported little-endian dtype, C order, a shape
/// of non-negative dims whose element and byte counts fit in int64, and
/// exactly as many data bytes as the shape needs.
inline bool parseNpy(const char *bytes, uint64_t size, NpyArray &out,
                     std::string &error) {
  auto fail = [&](const std::string &msg) {
    error = msg;
    return false;
  };
  static const char magic[] = "\x93NUMPY";
  if (size < 8 || std::string(bytes, 6) != std::string(magic, 6))
    return fail("not a NumPy .npy file (no \\x93NUMPY magic string)");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3)
    return fail("unsupported .npy format version " + std::to_string(major) +
                " (1 to 3 are)");
  uint64_t lengthBytes = major == 1 ? 2 : 4;
  if (size < 8 + lengthBytes)
    return fail("truncated header");
  uint64_t headerLen = 0;
  for (uint64_t i = 0; i < lengthBytes; ++i)
    headerLen |= uint64_t(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
  uint64_t offset = 8 + lengthBytes;
  if (headerLen > (uint64_t(1) << 20))
    return fail("absurd header length " + std::to_string(headerLen) +
                " bytes (at most 1 MiB)");
  if (size - offset < headerLen)
    return fail("truncated header (" + std::to_string(headerLen) +
                " bytes announced, " + std::to_string(size - offset) +
                " in the file)");
  std::string header(bytes + offset, headerLen);

  // The dictionary: {'key': value, ...} with string, bool and tuple values.
  size_t pos = 0;
  auto skipSpace = [&] {
    while (pos < header.size() && (header[pos] == ' ' || header[pos] == '\t' ||
                                   header[pos] == '\n' || header[pos] == '\r'))
      ++pos;
  };
  auto accept = [&](char c) {
    skipSpace();
    if (pos < header.size() && header[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  };
  auto parseString = [&](std::string &s) {
    skipSpace();
    if (pos >= header.size() || (header[pos] != '\'' && header[pos] != '"'))
      return false;
    char quote = header[pos++];
    size_t end = header.find(quote, pos);
    if (end == std::string::npos)
      return false;
    s = header.substr(pos, end - pos);
    pos = end + 1;
    return true;
  };
  auto parseInt = [&](int64_t &v) {
    skipSpace();
    size_t start = pos;
    v = 0;
    while (pos < header.size() && header[pos] >= '0' && header[pos] <= '9') {
      int digit = header[pos++] - '0';
      if (v > (INT64_MAX - digit) / 10)
        return false;
      v = v * 10 + digit;
    }
    // NumPy may write Python 2 longs ("3L").
    if (pos > start && pos < header.size() && header[pos] == 'L')
      ++pos;
    return pos > start;
  };
  if (!accept('{'))
    return fail("header is not a dictionary");
  bool haveDescr = false, haveOrder = false, haveShape = false;
  while (!accept('}')) {
    std::string key;
    if (!parseString(key) || !accept(':'))
      return fail("malformed header dictionary");
    if (key == "descr") {
      if (haveDescr || !parseString(out.descr))
        return fail("malformed 'descr' in header");
      haveDescr = true;
    } else if (key == "fortran_order") {
      skipSpace();
      if (haveOrder)
        return fail("'fortran_order' appears twice in header");
      if (header.compare(pos, 4, "True") == 0) {
        out.fortranOrder = true;
        pos += 4;
      } else if (header.compare(pos, 5, "False") == 0) {
        out.fortranOrder = false;
        pos += 5;
      } else {
        return fail("'fortran_order' must be True or False");
      }
      haveOrder = true;
    } else if (key == "shape") {
      if (haveShape || !accept('('))
        return fail("malformed 'shape' in header");
      out.shape.clear();
      while (!accept(')')) {
        int64_t dim;
        if (!parseInt(dim))
          return fail("bad dim in 'shape' (non-negative integers that fit "
                      "in int64)");
        out.shape.push_back(dim);
        if (!accept(',')) {
          if (!accept(')'))
            return fail("malformed 'shape' in header");
          break;
        }
      }
      haveShape = true;
    } else {
      return fail("unexpected key '" + key + "' in header");
    }
    if (!accept(',')) {
      if (!accept('}'))
        return fail("malformed header dictionary");
      break;
    }
  }
  skipSpace();
  if (pos != header.size())
    return fail("unexpected text after the header dictionary");
  if (!haveDescr || !haveOrder || !haveShape)
    return fail(std::string("header lacks '") +
                (!haveDescr   ? "descr"
                 : !haveOrder ? "fortran_order"
                              : "shape") +
                "'");
  int64_t itemSize = npyItemSize(out.descr);
  if (!itemSize) {
    bool bigEndian = !out.descr.empty() && out.descr[0] == '>';
    return fail("dtype '" + out.descr + "' is not supported" +
                (bigEndian ? " (big-endian; save little-endian)" : "") +
                ": '<f4', '<f8' or '<i4'");
  }
  if (out.fortranOrder)
    return fail("Fortran order is not supported; save C order");
  int64_t bytesNeeded = itemSize;
  for (int64_t dim : out.shape) {
    if (dim != 0 && bytesNeeded > INT64_MAX / dim)
      return fail("shape's byte count does not fit in int64");
    bytesNeeded *= dim;
  }
  out.data = bytes + offset + headerLen;
  out.dataSize = size - offset - headerLen;
  if (out.dataSize < uint64_t(bytesNeeded))
    return fail("truncated data: " + std::to_string(out.dataSize) +
                " bytes, the shape needs " + std::to_string(bytesNeeded));
  if (out.dataSize > uint64_t(bytesNeeded))
    return fail(std::to_string(out.dataSize - bytesNeeded) +
                " bytes after the data the shape needs (" +
                std::to_string(bytesNeeded) + ")");
  return true;
}

} // namespace mlir::echo::host

#endif // ECHO_RUNTIME_AOT_ECHOHOSTDATA_H
