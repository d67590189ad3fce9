// RUN: echo-opt %s --echo-autodiff --echo-recompute="plan-pipeline=echo-bufferization-pipeline budget-table=-" -o /dev/null | FileCheck %s
// RUN: echo-opt %s --echo-autodiff --echo-recompute="budget-table=-" -o /dev/null | FileCheck %s --check-prefix=ESTIMATE

// Which of echo's candidates are lowered to compare their plans: the best
// three estimated, and the best three of those without a reuse, except a
// candidate estimated at more than twice the best estimate of its kind
// (with or without a reuse). On this chain of 64 elementwise ops (tanh,
// sigmoid, a product with the parameter, a sum with the input, in turn),
// Algorithm 1's selection split by first reader, not cut, is the third
// best estimated without a reuse, at 151560 bytes against the best's 73732:
// it is not lowered (null step bytes), and the step with cut chains wins.
// budget-table lists every candidate in the order of their estimates.
// CHECK:      "candidates": [
// CHECK:        "chosen": true,
// CHECK-NEXT:   "estimated_bytes": 73732,
// CHECK-NEXT:   "name": "algorithm 1, chains cut, split by first reader, reuse",
// CHECK:        "step_bytes": 69636
// CHECK:        "chosen": false,
// CHECK-NEXT:   "estimated_bytes": 73732,
// CHECK-NEXT:   "name": "algorithm 1, chains cut, split by first reader",
// CHECK:        "step_bytes": 69636
// CHECK:        "estimated_bytes": 73736,
// CHECK-NEXT:   "name": "algorithm 1, chains cut",
// CHECK:        "step_bytes": 73732
// CHECK:        "estimated_bytes": 73736,
// CHECK-NEXT:   "name": "algorithm 1, chains cut, reuse",
// CHECK:        "step_bytes": null
// CHECK:        "estimated_bytes": 151560,
// CHECK-NEXT:   "name": "algorithm 1, split by first reader",
// CHECK:        "step_bytes": null
// CHECK:        "estimated_bytes": 151560,
// CHECK-NEXT:   "name": "algorithm 1, split by first reader, reuse",
// CHECK:        "step_bytes": null
// CHECK:        "estimated_bytes": 155656,
// CHECK-NEXT:   "name": "algorithm 1",
// CHECK:        "step_bytes": null
// CHECK:        "estimated_bytes": 155656,
// CHECK-NEXT:   "name": "algorithm 1, reuse",
// CHECK:        "step_bytes": null
// CHECK:      "function": "chain_train",
// CHECK-NEXT: "measured": true,
// CHECK-NEXT: "none_bytes": 155652,
// CHECK-NEXT: "strategy": "echo"

// On the estimate alone nothing is lowered; the best estimated is chosen
// and none's bytes are the step's estimate (here the same as its plan).
// ESTIMATE:      "chosen": true,
// ESTIMATE-NEXT: "estimated_bytes": 73732,
// ESTIMATE-NEXT: "name": "algorithm 1, chains cut, split by first reader, reuse",
// ESTIMATE-NOT:  "step_bytes": {{[0-9]}}
// ESTIMATE:      "measured": false,
// ESTIMATE-NEXT: "none_bytes": 155652,

func.func @chain(
    %x: tensor<16x64xf32>,
    %t: tensor<16x64xf32>,
    %p: tensor<16x64xf32> {echo.param}) -> tensor<f32> {
  %0 = "echo.mul"(%x, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %1 = "echo.tanh"(%0) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %2 = "echo.sigmoid"(%1) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %3 = "echo.mul"(%2, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %4 = "echo.add"(%3, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %5 = "echo.tanh"(%4) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %6 = "echo.sigmoid"(%5) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %7 = "echo.mul"(%6, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %8 = "echo.add"(%7, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %9 = "echo.tanh"(%8) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %10 = "echo.sigmoid"(%9) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %11 = "echo.mul"(%10, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %12 = "echo.add"(%11, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %13 = "echo.tanh"(%12) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %14 = "echo.sigmoid"(%13) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %15 = "echo.mul"(%14, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %16 = "echo.add"(%15, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %17 = "echo.tanh"(%16) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %18 = "echo.sigmoid"(%17) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %19 = "echo.mul"(%18, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %20 = "echo.add"(%19, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %21 = "echo.tanh"(%20) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %22 = "echo.sigmoid"(%21) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %23 = "echo.mul"(%22, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %24 = "echo.add"(%23, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %25 = "echo.tanh"(%24) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %26 = "echo.sigmoid"(%25) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %27 = "echo.mul"(%26, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %28 = "echo.add"(%27, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %29 = "echo.tanh"(%28) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %30 = "echo.sigmoid"(%29) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %31 = "echo.mul"(%30, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %32 = "echo.add"(%31, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %33 = "echo.tanh"(%32) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %34 = "echo.sigmoid"(%33) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %35 = "echo.mul"(%34, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %36 = "echo.add"(%35, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %37 = "echo.tanh"(%36) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %38 = "echo.sigmoid"(%37) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %39 = "echo.mul"(%38, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %40 = "echo.add"(%39, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %41 = "echo.tanh"(%40) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %42 = "echo.sigmoid"(%41) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %43 = "echo.mul"(%42, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %44 = "echo.add"(%43, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %45 = "echo.tanh"(%44) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %46 = "echo.sigmoid"(%45) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %47 = "echo.mul"(%46, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %48 = "echo.add"(%47, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %49 = "echo.tanh"(%48) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %50 = "echo.sigmoid"(%49) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %51 = "echo.mul"(%50, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %52 = "echo.add"(%51, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %53 = "echo.tanh"(%52) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %54 = "echo.sigmoid"(%53) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %55 = "echo.mul"(%54, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %56 = "echo.add"(%55, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %57 = "echo.tanh"(%56) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %58 = "echo.sigmoid"(%57) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %59 = "echo.mul"(%58, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %60 = "echo.add"(%59, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %61 = "echo.tanh"(%60) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %62 = "echo.sigmoid"(%61) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  %63 = "echo.mul"(%62, %p) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %64 = "echo.add"(%63, %x) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %65 = "echo.mse_loss"(%64, %t) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<f32>
  return %65 : tensor<f32>
}
