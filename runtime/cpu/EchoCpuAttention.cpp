//===- EchoCpuAttention.cpp - Fused attention on the CPU ------------------===//
//
// Part of the Echo project.
//
// echo_attention_forward and echo_attention_backward: FlashAttention-2 on
// the CPU. The scores are computed by tiles of kRows queries × kCols keys in
// thread-private buffers and never stored whole: the forward keeps a running
// maximum and sum per row (online softmax) and writes only the output and
// each row's log-sum-exp; the backward rebuilds each tile of probabilities
// from the log-sum-exp. Tiles fully above the diagonal of a causal attention
// are skipped. Everything accumulates in f32.
//
// Work is split across the runtime's threads (echo_cpu_parallel_for): the
// forward and dq by (batch, head, query block), dk and dv by (batch, key
// head, key block), so that no two threads write the same row and results
// do not depend on the thread count. Dropout draws echo.dropout's keep
// decisions (EchoDropoutBits.h) for element [b, h, i, j] of a [B,H,S,Sk]
// tensor, which the backward draws again.
//
//===----------------------------------------------------------------------===//

#include "EchoCpuRuntimeImpl.h"

#include "echo/Runtime/EchoDropoutBits.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace echo_cpu_runtime {
namespace {

using mlir::echo::runtime::DropoutBits;

/// Queries and keys per tile.
constexpr int64_t kRows = 64;
constexpr int64_t kCols = 64;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/// exp(x) in f32 without a call, so that the loops over a tile's scores
/// vectorize: Cephes' expf (x = n·ln 2 + r, |r| ≤ ln 2 / 2, a degree-6
/// polynomial for e^r, 2^n built in the exponent bits), within 2 ulp of
/// libm's over the range where e^x is a normal float. Below it (x < −87.3,
/// −inf included) it gives 0, where libm gives a denormal (< 1.2e−38);
/// NaN stays NaN. Branch-free.
inline float expTile(float x) {
  float clamped = std::min(std::max(x, -87.33654f), 88.37626f);
  // n = round(x / ln 2), by adding and subtracting 1.5·2^23 (no call to
  // floor, which baseline x86-64 has no vector instruction for).
  float n = (clamped * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  float r = clamped - n * 0.693359375f + n * 2.12194440e-4f;
  float poly = 1.9875691500e-4f;
  poly = poly * r + 1.3981999507e-3f;
  poly = poly * r + 8.3334519073e-3f;
  poly = poly * r + 4.1665795894e-2f;
  poly = poly * r + 1.6666665459e-1f;
  poly = poly * r + 5.0000001201e-1f;
  float er = poly * r * r + r + 1.0f;
  int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  float y = er * scale;
  y = x < -87.33654f ? 0.0f : y;
  return x != x ? x : y;
}

double fromBits(int64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

/// A strided 4-D (or 3-D) f32 buffer read or written by (b, h, row, col).
struct View4 {
  float *data;
  int64_t sizes[4], strides[4];
  explicit View4(EchoMemRef4D *m) : data(m->data + m->offset) {
    for (int d = 0; d < 4; ++d) {
      sizes[d] = m->sizes[d];
      // A broadcast dim (the bias's dims of size 1) is read at index 0.
      strides[d] = m->sizes[d] == 1 ? 0 : m->strides[d];
    }
  }
  float *row(int64_t b, int64_t h, int64_t i) const {
    return data + b * strides[0] + h * strides[1] + i * strides[2];
  }
  float at(int64_t b, int64_t h, int64_t i, int64_t j) const {
    return row(b, h, i)[j * strides[3]];
  }
};

struct View3 {
  float *data;
  int64_t strides[3];
  explicit View3(EchoMemRef3D *m) : data(m->data + m->offset) {
    for (int d = 0; d < 3; ++d)
      strides[d] = m->strides[d];
  }
  float &at(int64_t b, int64_t h, int64_t i) const {
    return data[b * strides[0] + h * strides[1] + i * strides[2]];
  }
};

/// Copies rows [r0, r0 + n) of (b, h) of `src` (width `w`) into `dst`
/// (n × w, contiguous).
void loadRows(const View4 &src, int64_t b, int64_t h, int64_t r0, int64_t n,
              int64_t w, float *dst) {
  for (int64_t r = 0; r < n; ++r) {
    const float *s = src.row(b, h, r0 + r);
    for (int64_t c = 0; c < w; ++c)
      dst[r * w + c] = s[c * src.strides[3]];
  }
}

/// The same rows transposed: dst is w × n.
void loadRowsTransposed(const View4 &src, int64_t b, int64_t h, int64_t r0,
                        int64_t n, int64_t w, float *dst) {
  for (int64_t r = 0; r < n; ++r) {
    const float *s = src.row(b, h, r0 + r);
    for (int64_t c = 0; c < w; ++c)
      dst[c * n + r] = s[c * src.strides[3]];
  }
}

/// c (m × n) = a (m × k) · bt (k × n), all contiguous: the inner loop runs
/// along n, which vectorizes without reassociating sums.
void gemmTile(const float *a, const float *bt, float *c, int64_t m, int64_t n,
              int64_t k) {
  for (int64_t i = 0; i < m; ++i) {
    float *__restrict ci = c + i * n;
    std::fill(ci, ci + n, 0.0f);
    for (int64_t d = 0; d < k; ++d) {
      float ad = a[i * k + d];
      const float *__restrict bd = bt + d * n;
      for (int64_t j = 0; j < n; ++j)
        ci[j] += ad * bd[j];
    }
  }
}

/// y[0..n) += a · x[0..n).
inline void axpy(float a, const float *__restrict x, float *__restrict y,
                 int64_t n) {
  for (int64_t c = 0; c < n; ++c)
    y[c] += a * x[c];
}

/// What both directions share: the operands, the sizes and the attributes.
struct Problem {
  View4 q, k, v, bias;
  int64_t batch, heads, len, dim, kvHeads, keys, vdim, group;
  float scale;
  bool causal;
  double ratio;
  float keepScale;
  DropoutBits bits;

  Problem(EchoMemRef4D *q, EchoMemRef4D *k, EchoMemRef4D *v, EchoMemRef4D *bias,
          EchoMemRefSeed *stepSeed, int64_t scaleBits, int64_t causal,
          int64_t ratioBits, int64_t seed, int64_t hasStepSeed)
      : q(q), k(k), v(v), bias(bias), batch(q->sizes[0]), heads(q->sizes[1]),
        len(q->sizes[2]), dim(q->sizes[3]), kvHeads(k->sizes[1]),
        keys(k->sizes[2]), vdim(v->sizes[3]),
        group(k->sizes[1] ? q->sizes[1] / k->sizes[1] : 1),
        scale(static_cast<float>(fromBits(scaleBits))), causal(causal != 0),
        ratio(fromBits(ratioBits)),
        keepScale(static_cast<float>(1.0 / (1.0 - fromBits(ratioBits)))),
        bits(seed, fromBits(ratioBits), hasStepSeed != 0,
             hasStepSeed ? stepSeed->data[stepSeed->offset] : 0) {}

  int64_t queryBlocks() const { return (len + kRows - 1) / kRows; }
  int64_t keyBlocks() const { return (keys + kCols - 1) / kCols; }
  /// The keys a query block [i0, i0 + rows) sees: [0, keyEnd).
  int64_t keyEnd(int64_t i0, int64_t rows) const {
    return causal ? std::min(keys, i0 + rows) : keys;
  }

  /// Turns the raw products `s` (rows × cols, queries i0.., keys j0..) into
  /// scores: scaled, biased, −inf where causal masks them.
  void scores(float *s, int64_t b, int64_t h, int64_t i0, int64_t rows,
              int64_t j0, int64_t cols) const {
    for (int64_t i = 0; i < rows; ++i) {
      float *si = s + i * cols;
      const float *bi = bias.row(b, h, i0 + i);
      for (int64_t j = 0; j < cols; ++j)
        si[j] = si[j] * scale + bi[(j0 + j) * bias.strides[3]];
      if (causal)
        for (int64_t j = std::max<int64_t>(0, i0 + i + 1 - j0); j < cols; ++j)
          si[j] = kNegInf;
    }
  }

  /// The dropout factor of element [b, h, i, j]: 0 or 1/(1 − ratio).
  float dropFactor(int64_t b, int64_t h, int64_t i, int64_t j) const {
    uint64_t index =
        static_cast<uint64_t>(((b * heads + h) * len + i) * keys + j);
    return bits.keep(index) ? keepScale : 0.0f;
  }
};

//===----------------------------------------------------------------------===//
// Forward
//===----------------------------------------------------------------------===//

struct Forward {
  Problem p;
  View4 out;
  View3 lse;
};

void forwardRange(void *context, int64_t begin, int64_t end) {
  const Forward &f = *static_cast<const Forward *>(context);
  const Problem &p = f.p;
  std::vector<float> qb(kRows * p.dim), kt(p.dim * kCols), vb(kCols * p.vdim),
      s(kRows * kCols), o(kRows * p.vdim), m(kRows), l(kRows);
  int64_t blocks = p.queryBlocks();
  for (int64_t w = begin; w < end; ++w) {
    int64_t bh = w / blocks, i0 = (w % blocks) * kRows;
    int64_t b = bh / p.heads, h = bh % p.heads, hk = h / p.group;
    int64_t rows = std::min(kRows, p.len - i0);
    loadRows(p.q, b, h, i0, rows, p.dim, qb.data());
    std::fill(o.begin(), o.end(), 0.0f);
    std::fill(m.begin(), m.end(), kNegInf);
    std::fill(l.begin(), l.end(), 0.0f);
    int64_t kEnd = p.keyEnd(i0, rows);
    for (int64_t j0 = 0; j0 < kEnd; j0 += kCols) {
      int64_t cols = std::min(kCols, kEnd - j0);
      loadRowsTransposed(p.k, b, hk, j0, cols, p.dim, kt.data());
      loadRows(p.v, b, hk, j0, cols, p.vdim, vb.data());
      gemmTile(qb.data(), kt.data(), s.data(), rows, cols, p.dim);
      p.scores(s.data(), b, h, i0, rows, j0, cols);
      for (int64_t i = 0; i < rows; ++i) {
        float *si = s.data() + i * cols;
        float mNew = m[i];
        for (int64_t j = 0; j < cols; ++j)
          mNew = std::max(mNew, si[j]);
        if (mNew == kNegInf)
          continue; // Every key so far is masked.
        float alpha = std::exp(m[i] - mNew);
        float sum = 0.0f;
        for (int64_t j = 0; j < cols; ++j)
          si[j] = expTile(si[j] - mNew);
        for (int64_t j = 0; j < cols; ++j)
          sum += si[j];
        l[i] = l[i] * alpha + sum;
        m[i] = mNew;
        float *oi = o.data() + i * p.vdim;
        for (int64_t c = 0; c < p.vdim; ++c)
          oi[c] *= alpha;
        for (int64_t j = 0; j < cols; ++j) {
          float pij = si[j];
          if (p.ratio > 0.0)
            pij *= p.dropFactor(b, h, i0 + i, j0 + j);
          if (pij != 0.0f)
            axpy(pij, vb.data() + j * p.vdim, oi, p.vdim);
        }
      }
    }
    for (int64_t i = 0; i < rows; ++i) {
      float *dst = f.out.row(b, h, i0 + i);
      // A row whose every key is masked gets 0 and lse −inf.
      float inv = l[i] > 0.0f ? 1.0f / l[i] : 0.0f;
      for (int64_t c = 0; c < p.vdim; ++c)
        dst[c * f.out.strides[3]] = o[i * p.vdim + c] * inv;
      f.lse.at(b, h, i0 + i) = l[i] > 0.0f ? m[i] + std::log(l[i]) : kNegInf;
    }
  }
}

//===----------------------------------------------------------------------===//
// Backward
//===----------------------------------------------------------------------===//

struct Backward {
  Problem p;
  View4 out, dout, dq, dk, dv;
  View3 lse;
};

/// The probabilities of a tile, exp(x − lse), from its scores `s`, in place.
void probabilities(const Backward &g, float *s, int64_t b, int64_t h,
                   int64_t i0, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows; ++i) {
    float rowLse = g.lse.at(b, h, i0 + i);
    float *si = s + i * cols;
    if (rowLse == kNegInf) {
      std::fill(si, si + cols, 0.0f);
      continue;
    }
    for (int64_t j = 0; j < cols; ++j)
      si[j] = expTile(si[j] - rowLse);
  }
}

/// D_i = Σ_c dout[i, c] · out[i, c] for rows [i0, i0 + rows).
void rowDots(const Backward &g, int64_t b, int64_t h, int64_t i0, int64_t rows,
             const float *dob, float *dots) {
  for (int64_t i = 0; i < rows; ++i) {
    const float *oi = g.out.row(b, h, i0 + i);
    float sum = 0.0f;
    for (int64_t c = 0; c < g.p.vdim; ++c)
      sum += dob[i * g.p.vdim + c] * oi[c * g.out.strides[3]];
    dots[i] = sum;
  }
}

/// dq by (batch, head, query block).
void backwardQueries(void *context, int64_t begin, int64_t end) {
  const Backward &g = *static_cast<const Backward *>(context);
  const Problem &p = g.p;
  std::vector<float> qb(kRows * p.dim), kt(p.dim * kCols), kb(kCols * p.dim),
      vt(p.vdim * kCols), dob(kRows * p.vdim), s(kRows * kCols),
      dp(kRows * kCols), dqb(kRows * p.dim), dots(kRows);
  int64_t blocks = p.queryBlocks();
  for (int64_t w = begin; w < end; ++w) {
    int64_t bh = w / blocks, i0 = (w % blocks) * kRows;
    int64_t b = bh / p.heads, h = bh % p.heads, hk = h / p.group;
    int64_t rows = std::min(kRows, p.len - i0);
    loadRows(p.q, b, h, i0, rows, p.dim, qb.data());
    loadRows(g.dout, b, h, i0, rows, p.vdim, dob.data());
    rowDots(g, b, h, i0, rows, dob.data(), dots.data());
    std::fill(dqb.begin(), dqb.end(), 0.0f);
    int64_t kEnd = p.keyEnd(i0, rows);
    for (int64_t j0 = 0; j0 < kEnd; j0 += kCols) {
      int64_t cols = std::min(kCols, kEnd - j0);
      loadRowsTransposed(p.k, b, hk, j0, cols, p.dim, kt.data());
      loadRows(p.k, b, hk, j0, cols, p.dim, kb.data());
      loadRowsTransposed(p.v, b, hk, j0, cols, p.vdim, vt.data());
      gemmTile(qb.data(), kt.data(), s.data(), rows, cols, p.dim);
      p.scores(s.data(), b, h, i0, rows, j0, cols);
      probabilities(g, s.data(), b, h, i0, rows, cols);
      gemmTile(dob.data(), vt.data(), dp.data(), rows, cols, p.vdim);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          float dpij = dp[i * cols + j];
          if (p.ratio > 0.0)
            dpij *= p.dropFactor(b, h, i0 + i, j0 + j);
          float ds = s[i * cols + j] * (dpij - dots[i]);
          if (ds != 0.0f)
            axpy(ds, kb.data() + j * p.dim, dqb.data() + i * p.dim, p.dim);
        }
    }
    for (int64_t i = 0; i < rows; ++i) {
      float *dst = g.dq.row(b, h, i0 + i);
      for (int64_t c = 0; c < p.dim; ++c)
        dst[c * g.dq.strides[3]] = dqb[i * p.dim + c] * p.scale;
    }
  }
}

/// dk and dv by (batch, key head, key block), summed over the query heads
/// of the group.
void backwardKeys(void *context, int64_t begin, int64_t end) {
  const Backward &g = *static_cast<const Backward *>(context);
  const Problem &p = g.p;
  std::vector<float> kt(p.dim * kCols), vt(p.vdim * kCols), qb(kRows * p.dim),
      dob(kRows * p.vdim), s(kRows * kCols), dp(kRows * kCols),
      dkb(kCols * p.dim), dvb(kCols * p.vdim), dots(kRows);
  int64_t blocks = p.keyBlocks();
  for (int64_t w = begin; w < end; ++w) {
    int64_t bh = w / blocks, j0 = (w % blocks) * kCols;
    int64_t b = bh / p.kvHeads, hk = bh % p.kvHeads;
    int64_t cols = std::min(kCols, p.keys - j0);
    loadRowsTransposed(p.k, b, hk, j0, cols, p.dim, kt.data());
    loadRowsTransposed(p.v, b, hk, j0, cols, p.vdim, vt.data());
    std::fill(dkb.begin(), dkb.end(), 0.0f);
    std::fill(dvb.begin(), dvb.end(), 0.0f);
    // Causal: queries before j0 see none of these keys.
    int64_t iStart = p.causal ? (j0 / kRows) * kRows : 0;
    for (int64_t h = hk * p.group; h < (hk + 1) * p.group; ++h)
      for (int64_t i0 = iStart; i0 < p.len; i0 += kRows) {
        int64_t rows = std::min(kRows, p.len - i0);
        loadRows(p.q, b, h, i0, rows, p.dim, qb.data());
        loadRows(g.dout, b, h, i0, rows, p.vdim, dob.data());
        rowDots(g, b, h, i0, rows, dob.data(), dots.data());
        gemmTile(qb.data(), kt.data(), s.data(), rows, cols, p.dim);
        p.scores(s.data(), b, h, i0, rows, j0, cols);
        probabilities(g, s.data(), b, h, i0, rows, cols);
        gemmTile(dob.data(), vt.data(), dp.data(), rows, cols, p.vdim);
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j) {
            float pij = s[i * cols + j];
            if (pij == 0.0f)
              continue;
            float drop =
                p.ratio > 0.0 ? p.dropFactor(b, h, i0 + i, j0 + j) : 1.0f;
            if (drop != 0.0f)
              axpy(pij * drop, dob.data() + i * p.vdim, dvb.data() + j * p.vdim,
                   p.vdim);
            float ds = pij * (dp[i * cols + j] * drop - dots[i]);
            axpy(ds, qb.data() + i * p.dim, dkb.data() + j * p.dim, p.dim);
          }
      }
    for (int64_t j = 0; j < cols; ++j) {
      float *dkj = g.dk.row(b, hk, j0 + j);
      for (int64_t c = 0; c < p.dim; ++c)
        dkj[c * g.dk.strides[3]] = dkb[j * p.dim + c] * p.scale;
      float *dvj = g.dv.row(b, hk, j0 + j);
      for (int64_t c = 0; c < p.vdim; ++c)
        dvj[c * g.dv.strides[3]] = dvb[j * p.vdim + c];
    }
  }
}

} // namespace
} // namespace echo_cpu_runtime

using namespace echo_cpu_runtime;

ECHO_EXPORT void _mlir_ciface_echo_attention_forward(
    EchoMemRef4D *q, EchoMemRef4D *k, EchoMemRef4D *v, EchoMemRef4D *bias,
    EchoMemRefSeed *stepSeed, EchoMemRef4D *out, EchoMemRef3D *lse,
    int64_t scaleBits, int64_t causal, int64_t ratioBits, int64_t seed,
    int64_t hasStepSeed) {
  if (hasError)
    return;
  Forward f{Problem(q, k, v, bias, stepSeed, scaleBits, causal, ratioBits, seed,
                    hasStepSeed),
            View4(out), View3(lse)};
  echo_cpu_parallel_for(forwardRange, &f, 0,
                        f.p.batch * f.p.heads * f.p.queryBlocks());
}

ECHO_EXPORT void _mlir_ciface_echo_attention_backward(
    EchoMemRef4D *q, EchoMemRef4D *k, EchoMemRef4D *v, EchoMemRef4D *out,
    EchoMemRef3D *lse, EchoMemRef4D *dout, EchoMemRef4D *bias,
    EchoMemRefSeed *stepSeed, EchoMemRef4D *dq, EchoMemRef4D *dk,
    EchoMemRef4D *dv, int64_t scaleBits, int64_t causal, int64_t ratioBits,
    int64_t seed, int64_t hasStepSeed) {
  if (hasError)
    return;
  Backward g{Problem(q, k, v, bias, stepSeed, scaleBits, causal, ratioBits,
                     seed, hasStepSeed),
             View4(out),
             View4(dout),
             View4(dq),
             View4(dk),
             View4(dv),
             View3(lse)};
  echo_cpu_parallel_for(backwardQueries, &g, 0,
                        g.p.batch * g.p.heads * g.p.queryBlocks());
  echo_cpu_parallel_for(backwardKeys, &g, 0,
                        g.p.batch * g.p.kvHeads * g.p.keyBlocks());
}
