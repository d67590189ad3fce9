//===- TrainingReference.cpp - The f64 reference step and the dumps ------===//
//
// Part of the Echo project.
//
// echo-run's f64 reference step (--check-gradients, --reference-dump) and
// the .npy dumps of results (--dump).
//
//===----------------------------------------------------------------------===//

#include "TrainingRunImpl.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::detail;

LogicalResult TrainingRun::writeResults(StringRef dir,
                                        ArrayRef<const HostTensor *> results) {
  if (auto ec = llvm::sys::fs::create_directories(dir))
    return error("cannot create " + dir + ": " + ec.message());
  for (auto [k, t] : llvm::enumerate(results)) {
    SmallString<128> path(dir);
    llvm::sys::path::append(path, "out" + std::to_string(k) + ".npy");
    if (failed(writeNpy(path, *t)))
      return failure();
  }
  return success();
}

LogicalResult TrainingRun::writeResults(StringRef dir,
                                        ArrayRef<HostTensor> results) {
  SmallVector<const HostTensor *> pointers;
  for (const HostTensor &t : results)
    pointers.push_back(&t);
  return writeResults(dir, pointers);
}

LogicalResult TrainingRun::compileReference() {
  // The same training step (autodiff, or the model's own step), without
  // recomputation, re-typed to f64 with its forward pass.
  OwningOpRef<ModuleOp> refModule = module->clone();
  EchoPipelineOptions refOptions;
  setPipelineOptions(refOptions, true, Optimizer::None);
  refOptions.strategy = RecomputeStrategy::None;
  refOptions.offload = OffloadPolicy::None;
  refOptions.budget = "";
  refOptions.chunkLoss = "off";
  // The reference is the mathematics: no mixed precision.
  refOptions.precision = Precision::F32;
  // The runtimes' library calls are f32; the f64 step's contractions are
  // generated.
  refOptions.libraryCalls = false;
  PassManager trainPm(&context, ModuleOp::getOperationName(),
                      OpPassManager::Nesting::Implicit);
  buildEchoTrainingPipeline(trainPm, refOptions);
  if (failed(runPasses(trainPm, *refModule, options.verifyEach)))
    return failure();
  for (StringRef name : {StringRef(modelName), StringRef(trainName)})
    retypeToF64(refModule->lookupSymbol<func::FuncOp>(name));
  PassManager lowerPm(&context, ModuleOp::getOperationName(),
                      OpPassManager::Nesting::Implicit);
  buildEchoLoweringPipeline(lowerPm, refOptions);
  if (failed(runPasses(lowerPm, *refModule, options.verifyEach)))
    return failure();
  FailureOr<JitStep> step = JitStep::compile(*refModule, trainName, 0);
  if (failed(step))
    return failure();
  FailureOr<JitStep> forward = step->getSibling(modelName);
  if (failed(forward))
    return failure();
  step64.emplace(std::move(*step));
  forward64.emplace(std::move(*forward));
  return success();
}

LogicalResult TrainingRun::checkFirstGradients() {
  if (!step64 && failed(compileReference()))
    return failure();
  GradientCheckOptions check;
  check.tolerance = options.tolerance;
  check.samples = options.checkSamples;
  check.seed = options.seed;
  GradientReference reference{&*step64, &*forward64, args64, paramArgs};
  return checkGradients(reference, ArrayRef(outs).drop_front(), check);
}

LogicalResult TrainingRun::dumpReference() {
  if (!step64 && failed(compileReference()))
    return failure();
  SmallVector<HostTensor> refArgs, refOuts;
  for (const HostTensor &t : args64)
    refArgs.push_back(t.copy(HostTensor::Counted::No));
  refOuts.emplace_back(RankedTensorType::get({}, Float64Type::get(&context)),
                       HostTensor::Counted::No);
  for (unsigned i : paramArgs)
    refOuts.emplace_back(args64[i].getType(), HostTensor::Counted::No);
  SmallVector<HostTensor *> argPtrs, outPtrs;
  for (HostTensor &t : refArgs)
    argPtrs.push_back(&t);
  for (HostTensor &t : refOuts)
    outPtrs.push_back(&t);
  if (failed(step64->call(argPtrs, outPtrs)))
    return failure();
  return writeResults(options.referenceDump, refOuts);
}
