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
    double diff2 = 0, ana2 = 0, num2 = 0, worst = 0;
    int64_t worstElem = -1;
    for (int64_t i : elems) {
      double orig = p.get(i);
      double h = 1e-5 * std::max(1.0, std::fabs(orig));
      p.set(i, orig + h);
      FailureOr<double> up = evaluate();
      p.set(i, orig - h);
      FailureOr<double> down = evaluate();
      p.set(i, orig);
      if (failed(up) || failed(down))
        return failure();
      double numeric = (*up - *down) / (2 * h);
      double analytic = g.get(i);
      diff2 += (numeric - analytic) * (numeric - analytic);
      ana2 += analytic * analytic;
      num2 += numeric * numeric;
      if (std::fabs(numeric - analytic) > worst) {
        worst = std::fabs(numeric - analytic);
        worstElem = i;
      }
    }
    // Norm-wise relative error; gradients that are zero up to f32 rounding
    // of the loss are compared absolutely.
    double scale = std::max({std::sqrt(ana2), std::sqrt(num2), 1e-6});
    double err = std::sqrt(diff2) / scale;
    bool pass = err <= options.tolerance;
    llvm::outs() << llvm::formatv(
        "gradient check: param {0} (argument {1}): rel err {2:e} over {3} "
        "elements{4}\n",
        k, argIndex, err, elems.size(), pass ? "" : " FAILED");
    if (!pass) {
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
