//===- ApproximateMath.cpp - Vectorizable f32 math for the CPU ------------===//
//
// Part of the Echo project.
//
// echo-approximate-math (see Passes.td): upstream's polynomial
// approximations, applied to the functions Echo's CPU kernels use.
//
//===----------------------------------------------------------------------===//

#include "echo/Target/CPU/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOAPPROXIMATEMATH
#include "echo/Target/CPU/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;

namespace {
struct EchoApproximateMathPass
    : public echo::impl::EchoApproximateMathBase<EchoApproximateMathPass> {
  void runOnOperation() override {
    // The transcendental functions the Echo ops lower to (sigmoid is exp;
    // sqrt and the rest have LLVM intrinsics that vectorize already). The
    // predicate gets full op names.
    auto selected = [](StringRef name) {
      return name.consume_front("math.") &&
             llvm::is_contained(
                 {"tanh", "exp", "expm1", "log", "log1p", "log2", "erf"}, name);
    };
    // Only those ops and what their rewrites create: a greedy rewrite of the
    // whole module would also fold and simplify every other op of a step.
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::MathDialect>(op->getDialect()) &&
          selected(op->getName().getStringRef()))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, selected);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    config.enableFolding(false);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      return signalPassFailure();
  }
};
} // namespace
