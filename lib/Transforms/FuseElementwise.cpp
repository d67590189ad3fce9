//===- FuseElementwise.cpp - Memory-aware elementwise fusion --------------===//
//
// Part of the Echo project.
//
// echo-fuse-elementwise (see Passes.td): upstream's elementwise fusion
// patterns under a control that refuses fusions which would keep a tensor
// alive longer than the value they save.
//
//===----------------------------------------------------------------------===//

#include "echo/Analysis/MemoryAnalysis.h"
#include "echo/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOFUSEELEMENTWISE
#include "echo/Transforms/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// True when `v` costs no storage of its own that fusion could extend: an
/// argument (alive for the whole function), a constant, or an empty tensor.
bool isFree(Value v) {
  Operation *def = v.getDefiningOp();
  return !def || isa<arith::ConstantOp, tensor::EmptyOp>(def);
}

/// True when `v` is read at or after `consumer` (in `consumer`'s block) by
/// an op other than `producer`.
bool isReadFrom(Value v, Operation *producer, Operation *consumer) {
  Block *block = consumer->getBlock();
  return llvm::any_of(v.getUsers(), [&](Operation *user) {
    if (user == producer)
      return false;
    Operation *top = block->findAncestorOpInBlock(*user);
    return top && (top == consumer || consumer->isBeforeInBlock(top));
  });
}

struct EchoFuseElementwisePass
    : public echo::impl::EchoFuseElementwiseBase<EchoFuseElementwisePass> {
  using Base::Base;

  /// The bytes of the memref descriptors of the distinct operands the op
  /// fusing `fused`'s producer into its consumer would have.
  static int64_t fusedOperandBytes(OpOperand *fused) {
    llvm::SetVector<Value> operands;
    for (Value v : fused->get().getDefiningOp()->getOperands())
      operands.insert(v);
    for (OpOperand &operand : fused->getOwner()->getOpOperands())
      if (&operand != fused)
        operands.insert(operand.get());
    int64_t bytes = 0;
    for (Value v : operands)
      if (auto shaped = dyn_cast<ShapedType>(v.getType()))
        bytes += (3 + 2 * shaped.getRank()) * 8;
    return bytes;
  }

  /// The ops in the body of `op` (a linalg op), its terminator not counted.
  /// Bodies of ops built here stay within max-body-ops, so counting is cheap.
  static int64_t getBodyOps(Operation *op) {
    int64_t ops = 0;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        ops += static_cast<int64_t>(block.getOperations().size()) -
               (block.mightHaveTerminator() ? 1 : 0);
    return ops;
  }

  /// Fuses the producer of `fused` into its consumer when that saves at
  /// least the bytes it keeps alive longer and the fused op's operands stay
  /// within max-operand-bytes (see Passes.td).
  bool shouldFuse(OpOperand *fused) {
    Operation *producer = fused->get().getDefiningOp();
    Operation *consumer = fused->getOwner();
    if (!producer || !producer->hasOneUse())
      return false;
    if (maxOperandBytes > 0 && fusedOperandBytes(fused) > maxOperandBytes) {
      ++numTooWide;
      return false;
    }
    if (maxBodyOps > 0 &&
        getBodyOps(producer) + getBodyOps(consumer) > maxBodyOps) {
      ++numTooLong;
      return false;
    }
    if (producer->getBlock() != consumer->getBlock() ||
        producer->getNextNode() == consumer)
      return producer->getBlock() == consumer->getBlock();
    int64_t saved = getTensorBytes(fused->get().getType());
    int64_t extended = 0;
    for (Value input : producer->getOperands())
      if (isa<RankedTensorType>(input.getType()) && !isFree(input) &&
          !isReadFrom(input, producer, consumer))
        extended += getTensorBytes(input.getType());
    if (extended <= saved)
      return true;
    ++numRefused;
    return false;
  }

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::ControlFusionFn control = [this](OpOperand *fused) {
      return shouldFuse(fused);
    };
    // What upstream's linalg-fuse-elementwise-ops adds, with `control`.
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    // Fusion rewrites ops inside single-block regions only: no region
    // simplification (a walk of the whole module after every round).
    GreedyRewriteConfig config;
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns), config);
  }
};

} // namespace
