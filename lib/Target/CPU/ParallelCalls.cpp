//===- ParallelCalls.cpp - Kernels run on the CPU runtime's threads -------===//
//
// Part of the Echo project.
//
// echo-cpu-parallel-calls (see Passes.td): a call of a kernel's part
// becomes echo_cpu_parallel_for(trampoline, context, lo, hi), its other
// arguments packed into a struct on the stack.
//
//===----------------------------------------------------------------------===//

#include "echo/Target/CPU/Passes.h"

#include "echo/Dialect/Echo/IR/EchoDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::echo {
#define GEN_PASS_DEF_ECHOCPUPARALLELCALLS
#include "echo/Target/CPU/Passes.h.inc"
} // namespace mlir::echo

using namespace mlir;
using namespace mlir::echo;

namespace {

/// A pointer to field `i` of the context struct at `context`.
Value getFieldPointer(OpBuilder &b, Location loc,
                      LLVM::LLVMStructType contextType, Value context,
                      size_t i) {
  return LLVM::GEPOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), contextType, context,
      ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
}

struct EchoCpuParallelCallsPass
    : public echo::impl::EchoCpuParallelCallsBase<EchoCpuParallelCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<LLVM::CallOp> calls;
    module.walk([&](LLVM::CallOp call) {
      if (auto callee = call.getCallee())
        if (auto fn = symbols.lookup<LLVM::LLVMFuncOp>(*callee))
          if (fn->hasAttr(EchoDialect::getParallelPartAttrName()))
            calls.push_back(call);
    });
    if (calls.empty())
      return;
    MLIRContext *context = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(context);
    auto i64 = IntegerType::get(context, 64);
    auto voidType = LLVM::LLVMVoidType::get(context);
    auto parallelFor = symbols.lookup<LLVM::LLVMFuncOp>(kParallelForFunction);
    if (!parallelFor) {
      OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
      parallelFor = LLVM::LLVMFuncOp::create(
          b, module.getLoc(), kParallelForFunction,
          LLVM::LLVMFunctionType::get(voidType, {ptr, ptr, i64, i64}));
      symbols.insert(parallelFor);
    }
    DenseMap<Operation *, LLVM::LLVMFuncOp> bodies;
    for (LLVM::CallOp call : calls) {
      auto part = symbols.lookup<LLVM::LLVMFuncOp>(*call.getCallee());
      ValueRange args = call.getArgOperands();
      auto caller = call->getParentOfType<LLVM::LLVMFuncOp>();
      if (!caller || args.size() < 2 ||
          args[args.size() - 2].getType() != i64 ||
          args.back().getType() != i64 || call.getNumResults() != 0) {
        call.emitError() << "echo-cpu-parallel-calls: @" << part.getSymName()
                         << " is marked '"
                         << EchoDialect::getParallelPartAttrName()
                         << "' but does not end with (i64 lo, i64 hi), "
                            "returns a value or is called outside an "
                            "llvm.func";
        return signalPassFailure();
      }
      ValueRange captured = args.drop_back(2);
      SmallVector<Type> fields(captured.getTypes());
      auto contextType = LLVM::LLVMStructType::getLiteral(context, fields);
      LLVM::LLVMFuncOp &body = bodies[part];
      if (!body)
        body = createBody(part, contextType, symbols);

      // The context: the arguments, in a struct on the caller's stack
      // (allocated in its entry block, once however often the call runs).
      Location loc = call.getLoc();
      OpBuilder b = OpBuilder::atBlockBegin(&caller.getBody().front());
      Value one = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(1));
      Value packed = LLVM::AllocaOp::create(b, loc, ptr, contextType, one);
      b.setInsertionPoint(call);
      for (auto [i, value] : llvm::enumerate(captured))
        LLVM::StoreOp::create(b, loc, value,
                              getFieldPointer(b, loc, contextType, packed, i));
      Value fn = LLVM::AddressOfOp::create(b, loc, body);
      LLVM::CallOp::create(
          b, loc, parallelFor,
          ValueRange{fn, packed, args[args.size() - 2], args.back()});
      call.erase();
      ++numCalls;
    }
  }

  /// `@<part>_body(context, lo, hi)`: loads the part's arguments from the
  /// context and calls it on [lo, hi).
  LLVM::LLVMFuncOp createBody(LLVM::LLVMFuncOp part,
                              LLVM::LLVMStructType contextType,
                              SymbolTable &symbols) {
    MLIRContext *context = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(context);
    auto i64 = IntegerType::get(context, 64);
    Location loc = part.getLoc();
    OpBuilder b(part);
    b.setInsertionPointAfter(part);
    auto body = LLVM::LLVMFuncOp::create(
        b, loc, (part.getSymName() + "_body").str(),
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                    {ptr, i64, i64}));
    body.setLinkage(LLVM::Linkage::Internal);
    symbols.insert(body);
    Block *entry = body.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    SmallVector<Value> args;
    for (auto [i, type] : llvm::enumerate(contextType.getBody()))
      args.push_back(LLVM::LoadOp::create(
          b, loc, type,
          getFieldPointer(b, loc, contextType, entry->getArgument(0), i)));
    args.push_back(entry->getArgument(1));
    args.push_back(entry->getArgument(2));
    LLVM::CallOp::create(b, loc, part, args);
    LLVM::ReturnOp::create(b, loc, ValueRange());
    return body;
  }
};

} // namespace
