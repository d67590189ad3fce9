//===- EchoOptimizerOps.cpp - Echo optimizer update ops ---------*- C++ -*-===//
//
// Part of the Echo project.
//
// Verifiers of the ops of EchoOptimizerOps.td. The types are the traits'
// business; what is left is the hyperparameters that are constants, which
// must lie where PyTorch's torch.optim accepts them (a negative learning rate
// or a beta of 1 is a mistake the user would otherwise find as a diverging
// loss). Hyperparameters passed as arguments are checked by the drivers that
// fill them. The generated op classes are defined in EchoOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <optional>

using namespace mlir;
using namespace mlir::echo;

/// The value of the 0-d hyperparameter `v` when it is a constant.
static std::optional<double> getConstantHyper(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat())
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

namespace {
/// The range PyTorch accepts for a hyperparameter.
struct HyperRange {
  StringRef name;
  Value value;
  /// Lowest accepted value (inclusive).
  double low;
  /// Upper bound, exclusive; none means unbounded.
  std::optional<double> below;
  /// The value must be an integer (the step count).
  bool integral;

  /// Not negative (learning rates, momentum, epsilon, weight decay).
  static HyperRange nonNegative(StringRef name, Value value) {
    return {name, value, 0, std::nullopt, false};
  }
  /// In [0, 1) (the betas).
  static HyperRange fraction(StringRef name, Value value) {
    return {name, value, 0, 1.0, false};
  }
  /// A step count: an integer from 1.
  static HyperRange count(StringRef name, Value value) {
    return {name, value, 1, std::nullopt, true};
  }
};
} // namespace

/// Checks every constant among `hypers` against its range.
static LogicalResult verifyHypers(Operation *op, ArrayRef<HyperRange> hypers) {
  for (const HyperRange &h : hypers) {
    std::optional<double> x = getConstantHyper(h.value);
    if (!x)
      continue;
    bool ok = std::isfinite(*x) && *x >= h.low && (!h.below || *x < *h.below) &&
              (!h.integral || std::floor(*x) == *x);
    if (ok)
      continue;
    auto format = [](double v) {
      return llvm::formatv("{0}", llvm::format("%g", v)).str();
    };
    InFlightDiagnostic diag = op->emitOpError()
                              << "hyperparameter '" << h.name << "' is "
                              << format(*x) << "; it must be ";
    if (h.integral)
      diag << "an integer ";
    diag << ">= " << format(h.low);
    if (h.below)
      diag << " and < " << format(*h.below);
    return diag;
  }
  return success();
}

LogicalResult MomentumUpdateOp::verify() {
  return verifyHypers(
      *this, {HyperRange::nonNegative("lr", getLr()),
              HyperRange::nonNegative("momentum", getMomentum()),
              HyperRange::nonNegative("weight_decay", getWeightDecay())});
}

LogicalResult AdamUpdateOp::verify() {
  return verifyHypers(
      *this, {HyperRange::nonNegative("lr", getLr()),
              HyperRange::fraction("beta1", getBeta1()),
              HyperRange::fraction("beta2", getBeta2()),
              HyperRange::nonNegative("eps", getEps()),
              HyperRange::nonNegative("weight_decay", getWeightDecay()),
              HyperRange::count("step", getStep())});
}
