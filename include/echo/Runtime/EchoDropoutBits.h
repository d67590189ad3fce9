//===- EchoDropoutBits.h - echo.dropout's keep decisions in C++ -*- C++ -*-===//
//
// Part of the Echo project.
//
// The counter-based generator of echo.dropout (its lowering builds the same
// arithmetic as IR: dropoutKeep in lib/Conversion/EchoToLinalg), for runtime
// kernels that draw dropout masks themselves, such as fused attention's:
// element `index` of a dropout with `seed`, the step's seed (when the op
// reads one) and `ratio` is kept by both or by neither. Header-only; no MLIR
// library needed.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNTIME_ECHODROPOUTBITS_H
#define ECHO_RUNTIME_ECHODROPOUTBITS_H

#include <cmath>
#include <cstdint>

namespace mlir::echo::runtime {

/// SplitMix64's finalizer.
inline uint64_t dropoutSplitMix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// The keep decisions of one dropout op: `keep(index)` for the row-major
/// index of an element.
class DropoutBits {
public:
  DropoutBits(int64_t seed, double ratio, bool hasStepSeed, int64_t stepSeed)
      : key(static_cast<uint64_t>(seed) * 0x9E3779B97F4A7C15ULL),
        threshold(static_cast<uint64_t>(std::llround(ratio * (1 << 24)))) {
    if (hasStepSeed)
      key ^= dropoutSplitMix(static_cast<uint64_t>(stepSeed) +
                             0x9E3779B97F4A7C15ULL);
  }

  bool keep(uint64_t index) const {
    return (dropoutSplitMix(index + key) >> 40) >= threshold;
  }

private:
  uint64_t key;
  uint64_t threshold;
};

} // namespace mlir::echo::runtime

#endif // ECHO_RUNTIME_ECHODROPOUTBITS_H
