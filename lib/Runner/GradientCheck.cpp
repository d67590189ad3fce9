//===- GradientCheck.cpp - Gradients against f64 references ---------------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Runner/GradientCheck.h"

#include "EchoHostData.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::echo;

namespace {

constexpr double kEps64 = std::numeric_limits<double>::epsilon();

/// `t` with its element type made f64 (data and gradients of the reference).
RankedTensorType toF64(RankedTensorType t) {
  return RankedTensorType::get(t.getShape(), Float64Type::get(t.getContext()));
}

/// Squared Euclidean norm of `a - b` (or of `a` with `b` null) over all
/// elements.
double squaredDistance(const HostTensor &a, const HostTensor *b) {
  double s = 0;
  for (int64_t i = 0, n = a.getNumElements(); i < n; ++i) {
    double d = a.get(i) - (b ? b->get(i) : 0.0);
    s += d * d;
  }
  return s;
}

/// The f64 step and forward pass over private copies of the arguments.
class Reference {
public:
  Reference(const GradientReference &ref) : ref(ref) {
    for (const HostTensor &t : ref.args64)
      args.push_back(t.copy(HostTensor::Counted::No));
    for (HostTensor &t : args)
      argPtrs.push_back(&t);
    MLIRContext *ctx = args.front().getType().getContext();
    loss.emplace(RankedTensorType::get({}, Float64Type::get(ctx)),
                 HostTensor::Counted::No);
  }

  /// The f64 loss at the current arguments.
  FailureOr<double> evaluate() {
    HostTensor *outs[] = {&*loss};
    if (failed(ref.forward64->call(argPtrs, outs)))
      return failure();
    return loss->get(0);
  }

  /// The f64 step's gradients at the current arguments.
  FailureOr<SmallVector<HostTensor>> gradients() {
    SmallVector<HostTensor> grads;
    for (unsigned i : ref.paramArgs)
      grads.emplace_back(toF64(args[i].getType()), HostTensor::Counted::No);
    SmallVector<HostTensor *> outs = {&*loss};
    for (HostTensor &g : grads)
      outs.push_back(&g);
    if (failed(ref.step64->call(argPtrs, outs)))
      return failure();
    return grads;
  }

  HostTensor &param(unsigned k) { return args[ref.paramArgs[k]]; }
  MutableArrayRef<HostTensor> arguments() { return args; }

private:
  const GradientReference &ref;
  SmallVector<HostTensor> args;
  SmallVector<HostTensor *> argPtrs;
  std::optional<HostTensor> loss;
};

/// The numeric derivative of the loss along one element, or nothing where
/// the element sits on a kink.
std::optional<double> centralDifference(Reference &ref, HostTensor &p,
                                        int64_t i, double at, double noise,
                                        double slack, bool &failedCall) {
  double orig = p.get(i);
  for (double rel : {1e-5, 1e-7}) {
    double h = rel * std::max(1.0, std::fabs(orig));
    double values[4];
    const double steps[4] = {h, -h, h / 2, -h / 2};
    for (int s = 0; s < 4; ++s) {
      p.set(i, orig + steps[s]);
      FailureOr<double> v = ref.evaluate();
      if (failed(v)) {
        p.set(i, orig);
        failedCall = true;
        return std::nullopt;
      }
      values[s] = *v;
    }
    p.set(i, orig);
    double d1 = (values[0] - values[1]) / (2 * h);
    double d2 = (values[2] - values[3]) / h;
    // The slope's jump at the element itself: the one-sided differences
    // differ by jump + h·f'' at step h and by jump + h/2·f'' at h/2.
    double s1 = (values[0] - 2 * at + values[1]) / h;
    double s2 = (values[2] - 2 * at + values[3]) / (h / 2);
    double jump = 2 * s2 - s1;
    double roundoff = noise / h;
    bool smooth =
        std::fabs(d1 - d2) <= 1e-6 * std::fabs(d2) + slack + 4 * roundoff &&
        std::fabs(jump) <= 1e-4 * std::fabs(d2) + slack + 24 * roundoff;
    if (smooth)
      return (4 * d2 - d1) / 3;
  }
  return std::nullopt;
}

} // namespace

LogicalResult mlir::echo::checkGradients(const GradientReference &reference,
                                         ArrayRef<HostTensor> grads,
                                         const GradientCheckOptions &options) {
  host::Rng rng(options.seed ^ 0x5DEECE66DULL);
  Reference ref(reference);
  FailureOr<double> at = ref.evaluate();
  FailureOr<SmallVector<HostTensor>> grads64 = ref.gradients();
  if (failed(at) || failed(grads64))
    return failure();

  // The step's root-mean-square gradient element: a parameter whose
  // gradient is much smaller than that is judged against 1% of it.
  double total2 = 0;
  int64_t totalElems = 0;
  for (const HostTensor &g : *grads64) {
    total2 += squaredDistance(g, nullptr);
    totalElems += g.getNumElements();
  }
  double rms = std::sqrt(total2 / std::max<int64_t>(1, totalElems));
  auto floorFor = [&](int64_t n) {
    return std::max(0.01 * rms * std::sqrt(static_cast<double>(n)), 1e-30);
  };

  // How far the f64 gradients move when every f32 input moves by one f32
  // rounding: what f32 arithmetic cannot be expected to beat.
  SmallVector<HostTensor> saved;
  for (HostTensor &t : ref.arguments())
    saved.push_back(t.copy(HostTensor::Counted::No));
  for (HostTensor &t : ref.arguments())
    if (t.isF64())
      for (int64_t i = 0, n = t.getNumElements(); i < n; ++i)
        t.set(i, t.get(i) * (1 + ((rng.next() & 1) ? 0x1p-24 : -0x1p-24)));
  FailureOr<SmallVector<HostTensor>> moved = ref.gradients();
  if (failed(moved))
    return failure();
  for (auto [t, s] : llvm::zip(ref.arguments(), saved))
    t = s.copy(HostTensor::Counted::No);

  // The loss's own rounding: how much it changes when one element moves by
  // a few f64 ulps (far below any real slope).
  double noise = 16 * kEps64 * std::max(1.0, std::fabs(*at));
  for (int probe = 0; probe < 4; ++probe) {
    HostTensor &p = ref.param(rng.next() % reference.paramArgs.size());
    int64_t i = static_cast<int64_t>(rng.next() % p.getNumElements());
    double orig = p.get(i);
    p.set(i, orig * (1 + 4 * kEps64) + 1e-300);
    FailureOr<double> v = ref.evaluate();
    p.set(i, orig);
    if (failed(v))
      return failure();
    noise = std::max(noise, 8 * std::fabs(*v - *at));
  }

  bool ok = true;
  for (auto [k, argIndex] : llvm::enumerate(reference.paramArgs)) {
    HostTensor &p = ref.param(k);
    const HostTensor &g32 = grads[k];
    const HostTensor &g64 = (*grads64)[k];
    int64_t n = p.getNumElements();

    // 1. The f64 gradients against finite differences of the f64 loss.
    SmallVector<int64_t> elems;
    if (options.samples == 0 || n <= static_cast<int64_t>(options.samples)) {
      for (int64_t i = 0; i < n; ++i)
        elems.push_back(i);
    } else {
      for (unsigned s = 0; s < options.samples; ++s)
        elems.push_back(static_cast<int64_t>(rng.next() % n));
    }
    double diff2 = 0, ana2 = 0, num2 = 0, worst = -1;
    int64_t worstElem = -1, kinks = 0;
    double worstNumeric = 0;
    for (int64_t i : elems) {
      bool failedCall = false;
      std::optional<double> numeric =
          centralDifference(ref, p, i, *at, noise, 1e-6 * rms, failedCall);
      if (failedCall)
        return failure();
      if (!numeric) {
        ++kinks;
        continue;
      }
      double analytic = g64.get(i);
      diff2 += (*numeric - analytic) * (*numeric - analytic);
      ana2 += analytic * analytic;
      num2 += *numeric * *numeric;
      if (std::fabs(*numeric - analytic) > worst) {
        worst = std::fabs(*numeric - analytic);
        worstElem = i;
        worstNumeric = *numeric;
      }
    }
    int64_t checked = static_cast<int64_t>(elems.size()) - kinks;
    double err = std::sqrt(diff2) / std::max({std::sqrt(ana2), std::sqrt(num2),
                                              floorFor(checked)});
    // Half the elements on kinks leaves too little to judge by.
    bool judged = checked * 2 >= static_cast<int64_t>(elems.size());
    bool mathOk = judged && err <= options.tolerance;

    // 2. The f32 gradients against the f64 step's, on the same inputs.
    double scale =
        std::max(std::sqrt(squaredDistance(g64, nullptr)), floorFor(n));
    double err32 = std::sqrt(squaredDistance(g32, &g64)) / scale;
    double allowed32 =
        std::max(options.tolerance,
                 30 * std::sqrt(squaredDistance((*moved)[k], &g64)) / scale);
    bool f32Ok = err32 <= allowed32;

    llvm::outs() << llvm::formatv(
        "gradient check: param {0} (argument {1}): rel err {2:e} over {3} "
        "elements{4}; f32 against the f64 step {5:e}{6}{7}\n",
        k, argIndex, err, checked,
        kinks ? llvm::formatv(" ({0} on kinks left out)", kinks).str()
              : std::string(),
        err32,
        allowed32 > options.tolerance
            ? llvm::formatv(" (conditioning allows {0:e})", allowed32).str()
            : std::string(),
        mathOk && f32Ok ? "" : " FAILED");
    if (mathOk && f32Ok)
      continue;
    ok = false;
    llvm::outs().flush();
    if (!judged) {
      llvm::errs() << llvm::formatv(
          "echo-run: gradient of parameter {0} (argument {1}) cannot be "
          "checked: {2} of {3} elements sit on kinks of the loss (its slope "
          "changes within the finite differences' step)\n",
          k, argIndex, kinks, elems.size());
    } else if (!mathOk) {
      llvm::errs() << llvm::formatv(
          "echo-run: gradient of parameter {0} (argument {1}) is wrong: "
          "relative error {2:e} > {3:e} against finite differences of the "
          "f64 loss (worst element {4}: gradient {5:e}, finite difference "
          "{6:e})\n",
          k, argIndex, err, options.tolerance, worstElem,
          worstElem >= 0 ? g64.get(worstElem) : 0.0, worstNumeric);
    }
    if (!f32Ok) {
      int64_t at32 = 0;
      for (int64_t i = 1; i < n; ++i)
        if (std::fabs(g32.get(i) - g64.get(i)) >
            std::fabs(g32.get(at32) - g64.get(at32)))
          at32 = i;
      llvm::errs() << llvm::formatv(
          "echo-run: the f32 gradient of parameter {0} (argument {1}) "
          "differs from the same step's in f64: relative error {2:e} > {3:e} "
          "(worst element {4}: f32 {5:e}, f64 {6:e})\n",
          k, argIndex, err32, allowed32, at32, g32.get(at32), g64.get(at32));
    }
  }
  return success(ok);
}
