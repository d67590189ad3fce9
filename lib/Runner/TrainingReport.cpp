//===- TrainingReport.cpp - echo-run --report, the workspace probe -------===//
//
// Part of the Echo project.
//
// The JSON report of a run (--report) and the probe of the libraries'
// workspace that strategy=budget plans around.
//
//===----------------------------------------------------------------------===//

#include "TrainingRunImpl.h"

using namespace mlir;
using namespace mlir::echo;
using namespace mlir::echo::detail;

LogicalResult TrainingRun::reserveWorkspace() {
  // (Also for a bundle or a library: the budget means the same bytes
  // wherever the step runs, the libraries' workspace included.)
  if (options.strategy != RecomputeStrategy::Budget || !usesCpuRuntime)
    return success();
  // The probe: the step with nothing recomputed, once (the parameters are
  // advanced by train()). Without library calls there is no workspace.
  if (failed(compileStep(/*probe=*/true)))
    return failure();
  if (llvm::none_of(trainModule->getOps<func::FuncOp>(),
                    [](func::FuncOp f) { return f.isExternal(); }))
    return success();
  if (failed(jitCompile()))
    return failure();
  SmallVector<HostTensor *> argPtrs, outPtrs;
  for (HostTensor &t : args)
    argPtrs.push_back(&t);
  for (HostTensor &t : outs)
    outPtrs.push_back(&t);
  // A step with an optimizer inside updates its arguments: the probe must
  // leave them as they were drawn.
  SmallVector<std::pair<unsigned, HostTensor>> saved;
  for (unsigned arg : getUpdatedArgs())
    saved.push_back({arg, args[arg].copy(HostTensor::Counted::No)});
  if (failed(jit->call(argPtrs, outPtrs)) || failed(cpu.check()))
    return failure();
  for (auto &[arg, copy] : saved)
    std::memcpy(args[arg].data(), copy.data(), copy.getByteSize());
  budgetReserve = static_cast<int64_t>(cpu.getWorkspaceBytes());
  jit.reset();
  return success();
}

void TrainingRun::addMeasuredCategories(llvm::json::Object &entry) {
  llvm::json::Object *categories = entry.getObject("categories");
  if (!categories || !categories->getObject("free"))
    return;
  // The allocator counts whole allocations: the caller's buffers (each of
  // one category), the arena (one allocation, whose bytes at the planned
  // peak the plan's slots attribute) and the libraries' workspace. Whatever
  // the measured peak holds beyond those is unattributed.
  int64_t peak = onGPU ? static_cast<int64_t>(cuda.getPeakBytes())
                       : static_cast<int64_t>(measuredPeakBytes);
  int64_t attributed = 0;
  for (auto &[name, value] : *categories) {
    llvm::json::Object *category = value.getAsObject();
    if (!category || name == "host_offload")
      continue;
    if (std::optional<int64_t> planned = category->getInteger("planned")) {
      (*category)["measured"] = *planned;
      attributed += *planned;
    }
  }
  int64_t workspace = onGPU ? 0 : static_cast<int64_t>(cpu.getWorkspaceBytes());
  if (!onGPU)
    (*categories)["workspace"] = llvm::json::Object{{"measured", workspace}};
  (*categories)["unattributed"] =
      llvm::json::Object{{"measured", peak - attributed - workspace}};
  if (llvm::json::Object *host = categories->getObject("host_offload"))
    (*host)["measured"] =
        onGPU ? static_cast<int64_t>(cuda.getHostPoolPeakBytes())
              : static_cast<int64_t>(measuredHostPeakBytes);
}

LogicalResult TrainingRun::openReport() {
  if (options.report.empty() || emitsAot())
    return success();
  std::error_code ec;
  reportFile = std::make_unique<llvm::ToolOutputFile>(options.report, ec,
                                                      llvm::sys::fs::OF_Text);
  if (ec) {
    reportFile.reset();
    return error("cannot write the report '" + options.report +
                 "': " + ec.message());
  }
  return success();
}

LogicalResult TrainingRun::writeReport() {
  if (!reportFile)
    return success();
  llvm::json::Array lossArray;
  for (double l : losses)
    lossArray.push_back(l);
  llvm::json::Object entry = memory.toJSON();
  entry["target"] = onGPU ? "cuda" : "cpu";
  // The steps that ran: all of them, or those an interrupt let finish.
  entry["steps"] = static_cast<int64_t>(losses.size());
  if (interrupted) {
    entry["interrupted"] = true;
    entry["steps_requested"] = static_cast<int64_t>(options.steps);
  }
  entry["losses"] = std::move(lossArray);
  entry["precision"] = stringifyPrecision(options.precision).str();
  if (options.precision == Precision::F16) {
    // Dynamic loss scaling: the scale after the last step, and the steps
    // whose update was skipped for a non-finite gradient.
    entry["loss_scale"] = lossScale;
    entry["skipped_steps"] = static_cast<int64_t>(skippedSteps);
  }
  // The first step includes one-time page faults; report the median.
  entry["step_time_ms"] = median(times);
  // Every step's time, in order: on a noisy machine the minimum or the
  // spread says more than the median.
  llvm::json::Array timeArray;
  for (double t : times)
    timeArray.push_back(t);
  entry["step_times_ms"] = std::move(timeArray);
  // Compile time: the MLIR pipelines, then LLVM's optimization and code
  // generation in the JIT.
  entry["compile_ms"] = mlirMs + llvmMs;
  entry["compile_mlir_ms"] = mlirMs;
  entry["compile_llvm_ms"] = llvmMs;
  if (onGPU) {
    entry["device"] = std::string(cuda.getDeviceName());
    // Parameters, data, results, the arena and library workspaces.
    entry["device_peak_bytes"] = static_cast<int64_t>(cuda.getPeakBytes());
    entry["measured_peak_bytes"] = static_cast<int64_t>(cuda.getPeakBytes());
    // Offloaded values: pinned host memory, apart from the device bytes.
    entry["measured_host_peak_bytes"] =
        static_cast<int64_t>(cuda.getHostPoolPeakBytes());
    entry["host_pool_bytes"] = static_cast<int64_t>(hostPoolBytes);
    // Each convolution's cuDNN algorithm and its workspace.
    llvm::Expected<llvm::json::Value> algorithms =
        llvm::json::parse(cuda.getConvAlgorithms());
    if (!algorithms)
      return error("the CUDA runtime's convolution algorithms are not JSON: " +
                   llvm::toString(algorithms.takeError()));
    entry["conv_algorithms"] = std::move(*algorithms);
    // ECHO_CUDA_GRAPH=1: whether later steps replayed the captured one.
    entry["cuda_graph"] = std::string(cuda.getGraphStatus());
    // ECHO_CUDA_PROFILE=1: where the device time went.
    if (const char *profile = cuda.getKernelProfile()) {
      llvm::Expected<llvm::json::Value> kernels = llvm::json::parse(profile);
      if (!kernels)
        return error("the CUDA runtime's kernel profile is not JSON: " +
                     llvm::toString(kernels.takeError()));
      entry["kernel_profile"] = std::move(*kernels);
    }
  } else {
    // Every host byte of the step: the caller's buffers, the step's
    // allocations and the CPU runtime's workspace.
    entry["measured_peak_bytes"] = static_cast<int64_t>(measuredPeakBytes);
    entry["library_workspace_bytes"] =
        static_cast<int64_t>(cpu.getWorkspaceBytes());
    // The host pool of offloaded values, apart from the step's bytes.
    entry["measured_host_peak_bytes"] =
        static_cast<int64_t>(measuredHostPeakBytes);
  }
  addMeasuredCategories(entry);
  return writeReportEntry(std::move(entry), *reportFile, options.report);
}
