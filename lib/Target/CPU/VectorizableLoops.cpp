//===- VectorizableLoops.cpp - Parallel innermost loops for reductions ----===//
//
// Part of the Echo project.
//
// echo-vectorizable-loops (see Passes.td): sums in lanes, and pooling
// windows' loops moved outside the output's last dim, so that LLVM's loop
// vectorizer finds a parallel innermost loop.
//
//===----------------------------------------------------------------------===//

#include "echo/Target/CPU/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOVECTORIZABLELOOPS
#include "echo/Target/CPU/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;

namespace {

/// Whether `map` reads loop `loop` in its last result only.
bool readsOnlyLast(AffineMap map, unsigned loop) {
  if (map.getNumResults() == 0)
    return false;
  for (AffineExpr e : map.getResults().drop_back())
    if (e.isFunctionOfDim(loop))
      return false;
  return map.getResults().back().isFunctionOfDim(loop);
}

/// The term a sum adds, when `op` is one: a single float output whose body
/// yields `arith.addf` of the output's value (used nowhere else) and a
/// value computed from the inputs.
Value sumTerm(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics())
    return {};
  Block *body = op.getBody();
  BlockArgument out = body->getArguments().back();
  if (!isa<FloatType>(out.getType()) || !out.hasOneUse())
    return {};
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add)
    return {};
  if (add.getLhs() == out)
    return add.getRhs();
  if (add.getRhs() == out)
    return add.getLhs();
  return {};
}

/// Sums in lanes (see Passes.td); returns whether `op` was rewritten.
bool sumInLanes(linalg::GenericOp op, int64_t minLanes, IRRewriter &rewriter) {
  if (!sumTerm(op))
    return false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned last = iterators.size() - 1;
  if (iterators.size() < 2 || linalg::isParallelIterator(iterators[last]) ||
      llvm::count_if(iterators, linalg::isReductionIterator) < 2)
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t lanes = ranges[last];
  if (ShapedType::isDynamic(lanes) || lanes < minLanes)
    return false;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool read = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(last))
      continue;
    auto d = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!d || d.getPosition() != last || !readsOnlyLast(map, last))
      return false;
    read = true;
  }
  if (!read)
    return false;

  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  Value init = op.getDpsInits()[0];
  auto outType = cast<RankedTensorType>(init.getType());
  Type element = outType.getElementType();
  SmallVector<int64_t> laneShape(outType.getShape());
  laneShape.push_back(lanes);
  rewriter.setInsertionPoint(op);
  Value zero = arith::ConstantOp::create(rewriter, loc,
                                         rewriter.getFloatAttr(element, 0.0));
  Value empty = tensor::EmptyOp::create(rewriter, loc, laneShape, element);
  Value laneInit =
      linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  // The op itself, its last loop parallel, into the lanes.
  SmallVector<AffineMap> laneMaps(maps);
  AffineMap outMap = maps.back();
  laneMaps.back() =
      outMap.insertResult(getAffineDimExpr(last, ctx), outMap.getNumResults());
  iterators[last] = utils::IteratorType::parallel;
  auto partial = linalg::GenericOp::create(
      rewriter, loc, TypeRange{laneInit.getType()}, op.getDpsInputs(),
      ValueRange{laneInit}, laneMaps, iterators);
  rewriter.inlineRegionBefore(op.getRegion(), partial.getRegion(),
                              partial.getRegion().end());
  // The lanes added, in order, to the output.
  unsigned rank = laneShape.size();
  AffineMap sumMaps[] = {
      rewriter.getMultiDimIdentityMap(rank),
      rewriter.getMultiDimIdentityMap(rank).dropResult(rank - 1)};
  SmallVector<utils::IteratorType> sumIterators(rank,
                                                utils::IteratorType::parallel);
  sumIterators.back() = utils::IteratorType::reduction;
  auto total = linalg::GenericOp::create(
      rewriter, loc, TypeRange{outType}, partial.getResult(0), ValueRange{init},
      sumMaps, sumIterators, [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(
            b, l, ValueRange{arith::AddFOp::create(b, l, args[1], args[0])});
      });
  rewriter.replaceOp(op, total.getResults());
  return true;
}

/// Window loops outside the output's last dim (see Passes.td); returns
/// whether `op` was rewritten.
bool windowLoopsOutside(linalg::GenericOp op, IRRewriter &rewriter) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned numLoops = iterators.size();
  unsigned firstTrailing = numLoops;
  while (firstTrailing > 0 &&
         linalg::isReductionIterator(iterators[firstTrailing - 1]))
    --firstTrailing;
  if (firstTrailing == numLoops || firstTrailing == 0)
    return false;
  unsigned inner = firstTrailing - 1; // the last parallel loop
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (map.getNumResults() == 0)
      return false;
    auto d = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!d || d.getPosition() != inner)
      return false;
  }
  bool window = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(inner))
      continue;
    if (!readsOnlyLast(map, inner))
      return false;
    for (unsigned r = firstTrailing; r < numLoops; ++r)
      window |= map.getResults().back().isFunctionOfDim(r);
  }
  if (!window)
    return false;
  SmallVector<unsigned> order;
  for (unsigned d = 0; d < inner; ++d)
    order.push_back(d);
  for (unsigned d = firstTrailing; d < numLoops; ++d)
    order.push_back(d);
  order.push_back(inner);
  rewriter.setInsertionPoint(op);
  return succeeded(linalg::interchangeGenericOp(rewriter, op, order));
}

struct EchoVectorizableLoopsPass
    : public echo::impl::EchoVectorizableLoopsBase<EchoVectorizableLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : ops)
      if (!sumInLanes(op, minLanes, rewriter))
        windowLoopsOutside(op, rewriter);
  }
};

} // namespace
