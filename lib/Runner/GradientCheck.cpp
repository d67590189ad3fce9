//===- GradientCheck.cpp - Gradients against finite differences -----------===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#include "echo/Runner/GradientCheck.h"

#include "EchoHostData.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>
#include <optional>

using namespace mlir;
using namespace mlir::echo;

LogicalResult mlir::echo::checkGradients(JitStep &forward64,
                                         ArrayRef<HostTensor> args64,
                                         ArrayRef<unsigned> paramArgs,
                                         ArrayRef<HostTensor> grads,
                                         const GradientCheckOptions &options) {
  host::Rng rng(options.seed ^ 0x5DEECE66DULL);
  // The check's own tensors are not the step's memory.
  SmallVector<HostTensor> args;
  for (const HostTensor &t : args64)
    args.push_back(t.copy(HostTensor::Counted::No));
  SmallVector<HostTensor *> argPtrs;
  for (HostTensor &t : args)
    argPtrs.push_back(&t);
  HostTensor loss(
      RankedTensorType::get(
          {}, Float64Type::get(args.front().getType().getContext())),
      HostTensor::Counted::No);
  HostTensor *outs[] = {&loss};
  auto evaluate = [&]() -> FailureOr<double> {
    if (failed(forward64.call(argPtrs, outs)))
      return failure();
    return loss.get(0);
  };

  FailureOr<double> at = evaluate();
  if (failed(at))
    return failure();
  bool ok = true;
  for (auto [k, argIndex] : llvm::enumerate(paramArgs)) {
    HostTensor &p = args[argIndex];
    const HostTensor &g = grads[k];
    int64_t n = p.getNumElements();
    SmallVector<int64_t> elems;
    if (options.samples == 0 || n <= static_cast<int64_t>(options.samples)) {
      for (int64_t i = 0; i < n; ++i)
        elems.push_back(i);
    } else {
      for (unsigned s = 0; s < options.samples; ++s)
        elems.push_back(static_cast<int64_t>(rng.next() % n));
    }
    // The typical magnitude of this parameter's gradient: differences
    // below a small share of it are rounding, not slope.
    double rms = 0;
    for (int64_t i : elems)
      rms += g.get(i) * g.get(i);
    rms = std::sqrt(rms / static_cast<double>(elems.size()));

    double diff2 = 0, ana2 = 0, num2 = 0, worst = 0;
    int64_t worstElem = -1, kinks = 0;
    for (int64_t i : elems) {
      double orig = p.get(i);
      std::optional<double> numeric;
      // Central differences with a step for this element; where the
      // one-sided differences disagree beyond rounding, the step crossed a
      // kink (a ReLU's or a max's switch): retried with a step 100x
      // smaller, then left out.
      for (double rel : {1e-5, 1e-7}) {
        double h = rel * std::max(1.0, std::fabs(orig));
        // What rounding of the f64 loss alone makes the differences differ.
        double noise = 8 * std::numeric_limits<double>::epsilon() *
                       std::max(1.0, std::fabs(*at)) / h;
        p.set(i, orig + h);
        FailureOr<double> up = evaluate();
        p.set(i, orig - h);
        FailureOr<double> down = evaluate();
        p.set(i, orig);
        if (failed(up) || failed(down))
          return failure();
        double forward = (*up - *at) / h, backward = (*at - *down) / h;
        double kink = std::fabs(forward - backward);
        if (kink <= 0.1 * (std::fabs(forward) + std::fabs(backward)) +
                        1e-3 * rms + noise) {
          numeric = (*up - *down) / (2 * h);
          break;
        }
      }
      if (!numeric) {
        ++kinks;
        continue;
      }
      double analytic = g.get(i);
      diff2 += (*numeric - analytic) * (*numeric - analytic);
      ana2 += analytic * analytic;
      num2 += *numeric * *numeric;
      if (std::fabs(*numeric - analytic) > worst) {
        worst = std::fabs(*numeric - analytic);
        worstElem = i;
      }
    }
    int64_t checked = static_cast<int64_t>(elems.size()) - kinks;
    // Norm-wise relative error; gradients that are zero up to f32 rounding
    // of the loss are compared absolutely.
    double scale = std::max({std::sqrt(ana2), std::sqrt(num2), 1e-6});
    double err = std::sqrt(diff2) / scale;
    // Half the elements on kinks leaves too little to judge by.
    bool judged = checked * 2 >= static_cast<int64_t>(elems.size());
    bool pass = judged && err <= options.tolerance;
    llvm::outs() << llvm::formatv(
        "gradient check: param {0} (argument {1}): rel err {2:e} over {3} "
        "elements{4}{5}\n",
        k, argIndex, err, checked,
        kinks ? llvm::formatv(" ({0} on kinks left out)", kinks).str()
              : std::string(),
        pass ? "" : " FAILED");
    if (!judged) {
      llvm::outs().flush();
      llvm::errs() << llvm::formatv(
          "echo-run: gradient of parameter {0} (argument {1}) cannot be "
          "checked: {2} of {3} elements sit on kinks of the loss (one-sided "
          "differences disagree)\n",
          k, argIndex, kinks, elems.size());
      ok = false;
    } else if (!pass) {
      llvm::outs().flush();
      llvm::errs() << llvm::formatv(
          "echo-run: gradient of parameter {0} (argument {1}) is wrong: "
          "relative error {2:e} > {3:e} (worst element {4}: analytic {5:e})\n",
          k, argIndex, err, options.tolerance, worstElem,
          worstElem >= 0 ? g.get(worstElem) : 0.0);
      ok = false;
    }
  }
  return success(ok);
}
