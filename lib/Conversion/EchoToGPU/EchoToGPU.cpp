//===- EchoToGPU.cpp - Library calls and GPU mapping for target=nvvm ------===//
//
// Part of the Echo project.
//
// Two passes of the GPU lowering (see Passes.td):
//   echo-library-calls  compute-heavy Echo ops -> calls into the runtime's
//                       cuBLAS/cuDNN wrappers (tensor level);
//   echo-map-to-gpu     a bufferized, planned step -> parallel loops mapped
//                       to blocks and threads, sequential leftovers in
//                       single-thread launches (memref level).
//
//===----------------------------------------------------------------------===//

#include "echo/Conversion/Passes.h"
#include "echo/Dialect/Echo/IR/EchoDialect.h"
#include "echo/Dialect/Echo/IR/EchoInterfaces.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOFILLCONSTANTS
#define GEN_PASS_DEF_ECHOLIBRARYCALLS
#define GEN_PASS_DEF_ECHOMAPTOGPU
#define GEN_PASS_DEF_ECHOMERGEGPUMODULES
#include "echo/Conversion/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

//===----------------------------------------------------------------------===//
// echo-library-calls
//===----------------------------------------------------------------------===//

namespace {

/// `shape` with an unknown offset and unknown strides (what the runtime
/// reads from the descriptor).
MemRefType stridedType(ArrayRef<int64_t> shape, Type elementType) {
  MLIRContext *ctx = elementType.getContext();
  auto layout = StridedLayoutAttr::get(
      ctx, ShapedType::kDynamic,
      SmallVector<int64_t>(shape.size(), ShapedType::kDynamic));
  return MemRefType::get(shape, elementType, layout);
}

/// The type a runtime entry point takes for a buffer of rank `rank`.
MemRefType abiType(int64_t rank, Type elementType) {
  return stridedType(SmallVector<int64_t>(rank, ShapedType::kDynamic),
                     elementType);
}

struct EchoLibraryCallsPass
    : public echo::impl::EchoLibraryCallsBase<EchoLibraryCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LibraryCallOpInterface> ops;
    module.walk([&](LibraryCallOpInterface op) { ops.push_back(op); });
    for (LibraryCallOpInterface op : ops)
      if (failed(rewrite(op)))
        return signalPassFailure();
  }

  LogicalResult rewrite(LibraryCallOpInterface op) {
    Operation *operation = op.getOperation();
    Location loc = op.getLoc();
    for (Type type : llvm::concat<Type>(operation->getOperandTypes(),
                                        operation->getResultTypes()))
      if (!getElementTypeOrSelf(type).isF32())
        return op.emitOpError() << "echo-library-calls: the runtime's '"
                                << op.getLibraryCallName()
                                << "' takes f32 buffers, not " << type;

    OpBuilder b(operation);
    SmallVector<Value> args;
    auto toABI = [&](Value buffer) {
      auto type = cast<MemRefType>(buffer.getType());
      return memref::CastOp::create(
                 b, loc, abiType(type.getRank(), type.getElementType()), buffer)
          .getResult();
    };
    auto toBuffer = [&](Value tensor) {
      auto type = cast<RankedTensorType>(tensor.getType());
      return bufferization::ToBufferOp::create(
                 b, loc, stridedType(type.getShape(), type.getElementType()),
                 tensor, /*read_only=*/true)
          .getResult();
    };
    for (Value input : op.getLibraryCallInputs())
      args.push_back(toABI(toBuffer(input)));

    auto resultType = cast<RankedTensorType>(operation->getResult(0).getType());
    Value out = memref::AllocOp::create(
        b, loc,
        MemRefType::get(resultType.getShape(), resultType.getElementType()));
    if (Value init = op.getLibraryCallInit()) {
      auto initType = cast<RankedTensorType>(init.getType());
      int64_t leading = resultType.getRank() - initType.getRank();
      linalg::BroadcastOp::create(
          b, loc, toBuffer(init), out,
          llvm::to_vector(llvm::seq<int64_t>(0, leading)));
    }
    args.push_back(toABI(out));
    for (int64_t scalar : op.getLibraryCallScalars())
      args.push_back(arith::ConstantIntOp::create(b, loc, scalar, 64));

    FailureOr<func::FuncOp> callee = declare(op, ValueRange(args).getTypes());
    if (failed(callee))
      return failure();
    func::CallOp::create(b, loc, *callee, args);
    Value result = bufferization::ToTensorOp::create(
        b, loc, resultType, out, /*restrict=*/true, /*writable=*/true);
    operation->getResult(0).replaceAllUsesWith(result);
    operation->erase();
    return success();
  }

  /// The private `llvm.emit_c_interface` declaration of the op's callee.
  FailureOr<func::FuncOp> declare(LibraryCallOpInterface op,
                                  TypeRange argTypes) {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    auto type = FunctionType::get(ctx, argTypes, {});
    StringRef name = op.getLibraryCallName();
    if (auto existing = module.lookupSymbol<func::FuncOp>(name)) {
      if (existing.getFunctionType() == type)
        return existing;
      InFlightDiagnostic diag =
          op.emitOpError() << "echo-library-calls: '" << name
                           << "' is already defined with type "
                           << existing.getFunctionType() << ", not " << type;
      diag.attachNote(existing.getLoc()) << "defined here";
      return failure();
    }
    if (module.lookupSymbol(name))
      return op.emitOpError() << "echo-library-calls: the symbol '" << name
                              << "' is taken by something other than a "
                                 "function";
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto decl = func::FuncOp::create(b, module.getLoc(), name, type);
    decl.setPrivate();
    decl->setAttr("llvm.emit_c_interface", UnitAttr::get(ctx));
    return decl;
  }
};

//===----------------------------------------------------------------------===//
// echo-fill-constants
//===----------------------------------------------------------------------===//

struct EchoFillConstantsPass
    : public echo::impl::EchoFillConstantsBase<EchoFillConstantsPass> {
  void runOnOperation() override {
    SmallVector<arith::ConstantOp> constants;
    getOperation().walk([&](arith::ConstantOp op) {
      if (isa<RankedTensorType>(op.getType()) &&
          op->getParentOfType<FunctionOpInterface>())
        constants.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (arith::ConstantOp op : constants) {
      auto value = dyn_cast<SplatElementsAttr>(op.getValue());
      if (!value) {
        op.emitOpError("echo-fill-constants: only splat tensor constants "
                       "can be materialized in device memory");
        return signalPassFailure();
      }
      auto type = cast<RankedTensorType>(op.getType());
      rewriter.setInsertionPoint(op);
      Value scalar = arith::ConstantOp::create(
          rewriter, op.getLoc(), value.getSplatValue<TypedAttr>());
      Value empty = tensor::EmptyOp::create(
          rewriter, op.getLoc(), type.getShape(), type.getElementType());
      rewriter.replaceOpWithNewOp<linalg::FillOp>(op, scalar, empty);
    }
  }
};

//===----------------------------------------------------------------------===//
// echo-map-to-gpu
//===----------------------------------------------------------------------===//

/// True for ops the host may run on device buffers: they only compute
/// addresses or scalars, or call into the runtime.
bool staysOnHost(Operation *op) {
  if (isa<func::CallOp>(op))
    return true;
  return op->getNumRegions() == 0 && isMemoryEffectFree(op);
}

struct EchoMapToGPUPass
    : public echo::impl::EchoMapToGPUBase<EchoMapToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (blockSize < 1 || blockSize > 1024) {
      func.emitError() << "echo-map-to-gpu: block-size must be in [1, 1024], "
                          "got "
                       << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    if (!func.getBody().hasOneBlock()) {
      func.emitError("echo-map-to-gpu: expects a single-block function body "
                     "(run it before convert-scf-to-cf)");
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    if (failed(lowerToParallelLoops(func, rewriter)) ||
        failed(mapTopLevelOps(func, rewriter)))
      return signalPassFailure();
  }

  /// memref.copy -> linalg.copy, then every linalg op -> scf.parallel.
  LogicalResult lowerToParallelLoops(func::FuncOp func, IRRewriter &rewriter) {
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
    SmallVector<linalg::LinalgOp> linalgOps;
    func.walk([&](linalg::LinalgOp op) { linalgOps.push_back(op); });
    for (linalg::LinalgOp op : linalgOps) {
      if (!op.hasPureBufferSemantics())
        return op.emitOpError("echo-map-to-gpu: expects bufferized IR");
      rewriter.setInsertionPoint(op);
      if (failed(linalg::linalgOpToParallelLoops(rewriter, op)))
        return op.emitOpError("echo-map-to-gpu: cannot lower to loops");
      rewriter.eraseOp(op);
    }
    return success();
  }

  LogicalResult mapTopLevelOps(func::FuncOp func, IRRewriter &rewriter) {
    SmallVector<Operation *> run;
    for (Operation &op :
         llvm::make_early_inc_range(func.front().without_terminator())) {
      if (isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(op))
        return op.emitOpError()
               << "echo-map-to-gpu: a GPU step's memory is its arguments "
                  "and the planned arena; run echo-plan-buffers first (this "
                  "buffer would live in host memory)";
      if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        if (failed(wrapSequential(run, rewriter)) ||
            failed(mapParallelLoop(loop, rewriter)))
          return failure();
        continue;
      }
      if (staysOnHost(&op)) {
        if (failed(wrapSequential(run, rewriter)))
          return failure();
        continue;
      }
      run.push_back(&op);
    }
    return wrapSequential(run, rewriter);
  }

  /// Collapses `loop` to one dimension, tiles it by the block size and maps
  /// the tiles to blocks and the elements of a tile to threads.
  LogicalResult mapParallelLoop(scf::ParallelOp loop, IRRewriter &rewriter) {
    if (loop.getNumResults() != 0)
      return loop.emitOpError("echo-map-to-gpu: parallel loops with "
                              "reductions are not supported");
    Operation *next = loop->getNextNode();
    if (loop.getNumLoops() > 1) {
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0);
      collapseParallelLoops(rewriter, loop, {all});
      loop = nullptr;
      for (Operation *op = next->getPrevNode(); op; op = op->getPrevNode())
        if ((loop = dyn_cast<scf::ParallelOp>(op)))
          break;
      if (!loop)
        return next->emitError("echo-map-to-gpu: collapsing a loop nest lost "
                               "the loop");
    }
    int64_t tile = blockSize;
    if (std::optional<int64_t> trips = constantTripCount(loop))
      tile = std::max<int64_t>(1, std::min(*trips, tile));
    auto [outer, inner] =
        scf::tileParallelLoop(loop, {tile}, /*noMinMaxBounds=*/true);
    MLIRContext *ctx = &getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
    auto map = [&](scf::ParallelOp ploop, gpu::Processor processor) {
      return gpu::setMappingAttr(ploop, {gpu::ParallelLoopDimMappingAttr::get(
                                            ctx, processor, id, id)});
    };
    if (failed(map(outer, gpu::Processor::BlockX)) ||
        failed(map(inner, gpu::Processor::ThreadX)))
      return outer.emitOpError("echo-map-to-gpu: cannot map the loop");
    return success();
  }

  static std::optional<int64_t> constantTripCount(scf::ParallelOp loop) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[0]);
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[0]);
    std::optional<int64_t> step = getConstantIntValue(loop.getStep()[0]);
    if (!lb || !ub || !step || *step <= 0)
      return std::nullopt;
    return llvm::divideCeil(*ub - *lb, *step);
  }

  /// Moves the ops of `run` (consecutive top-level ops) into one
  /// single-thread gpu.launch, with the parallel loops inside made
  /// sequential. Clears `run`.
  LogicalResult wrapSequential(SmallVectorImpl<Operation *> &run,
                               IRRewriter &rewriter) {
    if (run.empty())
      return success();
    llvm::SmallPtrSet<Operation *, 8> members(run.begin(), run.end());
    for (Operation *op : run)
      for (Operation *user : op->getUsers())
        if (!members.contains(op->getBlock()->findAncestorOpInBlock(*user)))
          return op->emitOpError("echo-map-to-gpu: a result of device code "
                                 "is used on the host");
    Location loc = run.front()->getLoc();
    rewriter.setInsertionPoint(run.front());
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto launch =
        gpu::LaunchOp::create(rewriter, loc, one, one, one, one, one, one);
    Block &body = launch.getBody().front();
    rewriter.setInsertionPointToEnd(&body);
    auto terminator = gpu::TerminatorOp::create(rewriter, loc);
    for (Operation *op : run)
      op->moveBefore(terminator);
    run.clear();

    SmallVector<scf::ParallelOp> loops;
    launch.walk([&](scf::ParallelOp loop) { loops.push_back(loop); });
    for (scf::ParallelOp loop : loops) {
      if (loop.getNumResults() != 0)
        return loop.emitOpError("echo-map-to-gpu: parallel loops with "
                                "reductions are not supported");
      rewriter.setInsertionPoint(loop);
      scf::buildLoopNest(
          rewriter, loop.getLoc(), loop.getLowerBound(), loop.getUpperBound(),
          loop.getStep(), [&](OpBuilder &b, Location, ValueRange ivs) {
            IRMapping mapping;
            mapping.map(loop.getInductionVars(), ivs);
            for (Operation &op : loop.getBody()->without_terminator())
              b.clone(op, mapping);
          });
      rewriter.eraseOp(loop);
    }
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// echo-merge-gpu-modules
//===----------------------------------------------------------------------===//

namespace {
struct EchoMergeGPUModulesPass
    : public echo::impl::EchoMergeGPUModulesBase<EchoMergeGPUModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> kernelModules(
        module.getOps<gpu::GPUModuleOp>());
    if (kernelModules.size() < 2)
      return;
    for (gpu::GPUModuleOp kernels : kernelModules)
      if (kernels.getTargetsAttr() || kernels.getOffloadingHandlerAttr()) {
        kernels.emitError("echo-merge-gpu-modules: run before a target is "
                          "attached");
        return signalPassFailure();
      }
    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);
    OpBuilder b(kernelModules.front());
    auto merged = gpu::GPUModuleOp::create(b, module.getLoc(), "echo_kernels");
    symbols.insert(merged);

    // Old (module, kernel) reference -> new kernel name. A module's symbols
    // are renamed after the module (unique in the host module's table).
    DenseMap<SymbolRefAttr, StringAttr> renamed;
    for (gpu::GPUModuleOp kernels : kernelModules) {
      SmallVector<Operation *> members =
          llvm::to_vector(llvm::map_range(kernels.getBody()->getOperations(),
                                          [](Operation &op) { return &op; }));
      for (Operation *op : members) {
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        if (!symbol) {
          op->emitError("echo-merge-gpu-modules: expects only symbols in an "
                        "outlined kernel module");
          return signalPassFailure();
        }
        StringAttr oldName = symbol.getNameAttr();
        StringAttr newName =
            members.size() == 1 ? kernels.getNameAttr()
                                : StringAttr::get(ctx, kernels.getName() + "_" +
                                                           oldName.getValue());
        if (failed(SymbolTable::replaceAllSymbolUses(oldName, newName,
                                                     kernels.getOperation())))
          return signalPassFailure();
        SymbolTable::setSymbolName(op, newName);
        renamed[SymbolRefAttr::get(kernels.getNameAttr(),
                                   {FlatSymbolRefAttr::get(oldName)})] =
            newName;
      }
      for (Operation *op : members)
        op->moveBefore(merged.getBody(), merged.getBody()->end());
      kernels.erase();
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = renamed.find(launch.getKernel());
      if (it != renamed.end())
        launch.setKernelAttr(SymbolRefAttr::get(
            merged.getNameAttr(), {FlatSymbolRefAttr::get(it->second)}));
    });
  }
};
} // namespace
