//===- main.cpp - A downstream user of the installed Echo package ---------===//

#include "echo/Dialect/Echo/IR/EchoOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::MLIRContext context;
  context.loadDialect<mlir::echo::EchoDialect, mlir::func::FuncDialect>();
  const char *source = R"mlir(
    func.func @f(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
      %y = "echo.linear"(%x, %w, %b) : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
      return %y : tensor<4x16xf32>
    })mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module)
    return 1;
  int status = 1;
  module->walk([&](mlir::echo::CostOpInterface op) {
    llvm::outs() << "parsed " << op->getName() << ": " << op.estimateFlops()
                 << " flops" << (op.isComputeHeavy() ? ", compute-heavy" : "")
                 << "\n";
    status = 0;
  });
  return status;
}
