// The step of tosa_mlp_step.mlir in linalg-on-tensors, as a compiler that
// lowered its graph to linalg (IREE, a StableHLO stack) would hand it over
// (made with mlir-opt's tosa-to-linalg-named, tosa-to-linalg, tosa-to-arith
// and tosa-to-tensor):
//
//   echo-opt examples/adopt/linalg_mlp_step.mlir \
//     --echo-adopt-training-step="function=train_step loss=0" \
//     --echo-recompute=strategy=mirror --echo-memory-report=output=-
//
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, 0, 0)>
module {
  func.func @train_step(%arg0: tensor<1x64x128xf32>, %arg1: tensor<1x128x256xf32>, %arg2: tensor<1x256x10xf32>, %arg3: tensor<1x64x10xf32>) -> (tensor<1x1x1xf32>, tensor<1x128x256xf32>, tensor<1x256x10xf32>) {
    %cst = arith.constant dense<0.000000e+00> : tensor<1xf32>
    %cst_0 = arith.constant dense<0> : tensor<1xi8>
    %cst_1 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x64x256xf32>
    %1 = linalg.fill ins(%cst_1 : f32) outs(%0 : tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
    %2 = linalg.batch_matmul ins(%arg0, %arg1 : tensor<1x64x128xf32>, tensor<1x128x256xf32>) outs(%1 : tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
    %3 = tensor.empty() : tensor<1x64x256xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2 : tensor<1x64x256xf32>) outs(%3 : tensor<1x64x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %cst_15 = arith.constant 0.000000e+00 : f32
      %cst_16 = arith.constant 3.40282347E+38 : f32
      %42 = arith.minimumf %in, %cst_16 : f32
      %43 = arith.maximumf %42, %cst_15 : f32
      linalg.yield %43 : f32
    } -> tensor<1x64x256xf32>
    %5 = tensor.empty() : tensor<1x64x256xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<1x64x256xf32>) outs(%5 : tensor<1x64x256xf32>) {
    ^bb0(%in: f32, %out: f32):
      %42 = math.tanh %in : f32
      linalg.yield %42 : f32
    } -> tensor<1x64x256xf32>
    %cst_2 = arith.constant 0.000000e+00 : f32
    %7 = tensor.empty() : tensor<1x64x10xf32>
    %8 = linalg.fill ins(%cst_2 : f32) outs(%7 : tensor<1x64x10xf32>) -> tensor<1x64x10xf32>
    %9 = linalg.batch_matmul ins(%6, %arg2 : tensor<1x64x256xf32>, tensor<1x256x10xf32>) outs(%8 : tensor<1x64x10xf32>) -> tensor<1x64x10xf32>
    %10 = tensor.empty() : tensor<1x64x10xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9, %arg3 : tensor<1x64x10xf32>, tensor<1x64x10xf32>) outs(%10 : tensor<1x64x10xf32>) {
    ^bb0(%in: f32, %in_15: f32, %out: f32):
      %42 = arith.subf %in, %in_15 : f32
      linalg.yield %42 : f32
    } -> tensor<1x64x10xf32>
    %12 = tensor.empty() : tensor<1x64x10xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11, %11 : tensor<1x64x10xf32>, tensor<1x64x10xf32>) outs(%12 : tensor<1x64x10xf32>) {
    ^bb0(%in: f32, %in_15: f32, %out: f32):
      %42 = arith.mulf %in, %in_15 : f32
      linalg.yield %42 : f32
    } -> tensor<1x64x10xf32>
    %14 = tensor.empty() : tensor<1x10xf32>
    %cst_3 = arith.constant 0.000000e+00 : f32
    %15 = linalg.fill ins(%cst_3 : f32) outs(%14 : tensor<1x10xf32>) -> tensor<1x10xf32>
    %reduced = linalg.reduce ins(%13 : tensor<1x64x10xf32>) outs(%15 : tensor<1x10xf32>) dimensions = [1] 
      (%in: f32, %init: f32) {
        %42 = arith.addf %in, %init : f32
        linalg.yield %42 : f32
      }
    %expanded = tensor.expand_shape %reduced [[0], [1, 2]] output_shape [1, 1, 10] : tensor<1x10xf32> into tensor<1x1x10xf32>
    %16 = tensor.empty() : tensor<1x1xf32>
    %cst_4 = arith.constant 0.000000e+00 : f32
    %17 = linalg.fill ins(%cst_4 : f32) outs(%16 : tensor<1x1xf32>) -> tensor<1x1xf32>
    %reduced_5 = linalg.reduce ins(%expanded : tensor<1x1x10xf32>) outs(%17 : tensor<1x1xf32>) dimensions = [2] 
      (%in: f32, %init: f32) {
        %42 = arith.addf %in, %init : f32
        linalg.yield %42 : f32
      }
    %expanded_6 = tensor.expand_shape %reduced_5 [[0], [1, 2]] output_shape [1, 1, 1] : tensor<1x1xf32> into tensor<1x1x1xf32>
    %cst_7 = arith.constant dense<2.000000e+00> : tensor<1x1x1xf32>
    %18 = tensor.empty() : tensor<1x64x10xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11, %cst_7 : tensor<1x64x10xf32>, tensor<1x1x1xf32>) outs(%18 : tensor<1x64x10xf32>) {
    ^bb0(%in: f32, %in_15: f32, %out: f32):
      %42 = arith.mulf %in, %in_15 : f32
      linalg.yield %42 : f32
    } -> tensor<1x64x10xf32>
    %20 = tensor.empty() : tensor<1x256x64xf32>
    %transposed = linalg.transpose ins(%6 : tensor<1x64x256xf32>) outs(%20 : tensor<1x256x64xf32>) permutation = [0, 2, 1] 
    %cst_8 = arith.constant 0.000000e+00 : f32
    %21 = tensor.empty() : tensor<1x256x10xf32>
    %22 = linalg.fill ins(%cst_8 : f32) outs(%21 : tensor<1x256x10xf32>) -> tensor<1x256x10xf32>
    %23 = linalg.batch_matmul ins(%transposed, %19 : tensor<1x256x64xf32>, tensor<1x64x10xf32>) outs(%22 : tensor<1x256x10xf32>) -> tensor<1x256x10xf32>
    %24 = tensor.empty() : tensor<1x10x256xf32>
    %transposed_9 = linalg.transpose ins(%arg2 : tensor<1x256x10xf32>) outs(%24 : tensor<1x10x256xf32>) permutation = [0, 2, 1] 
    %cst_10 = arith.constant 0.000000e+00 : f32
    %25 = tensor.empty() : tensor<1x64x256xf32>
    %26 = linalg.fill ins(%cst_10 : f32) outs(%25 : tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
    %27 = linalg.batch_matmul ins(%19, %transposed_9 : tensor<1x64x10xf32>, tensor<1x10x256xf32>) outs(%26 : tensor<1x64x256xf32>) -> tensor<1x64x256xf32>
    %cst_11 = arith.constant dense<1.000000e+00> : tensor<1x1x1xf32>
    %28 = tensor.empty() : tensor<1x64x256xf32>
    %29 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %6 : tensor<1x64x256xf32>, tensor<1x64x256xf32>) outs(%28 : tensor<1x64x256xf32>) {
    ^bb0(%in: f32, %in_15: f32, %out: f32):
      %42 = arith.mulf %in, %in_15 : f32
      linalg.yield %42 : f32
    } -> tensor<1x64x256xf32>
    %30 = tensor.empty() : tensor<1x64x256xf32>
    %31 = linalg.generic {indexing_maps = [#map1, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%cst_11, %29 : tensor<1x1x1xf32>, tensor<1x64x256xf32>) outs(%30 : tensor<1x64x256xf32>) {
    ^bb0(%in: f32, %in_15: f32, %out: f32):
      %42 = arith.subf %in, %in_15 : f32
      linalg.yield %42 : f32
    } -> tensor<1x64x256xf32>
    %32 = tensor.empty() : tensor<1x64x256xf32>
    %33 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%27, %31 : tensor<1x64x256xf32>, tensor<1x64x256xf32>) outs(%32 : tensor<1x64x256xf32>) {
    ^bb0(%in: f32, %in_15: f32, %out: f32):
      %42 = arith.mulf %in, %in_15 : f32
      linalg.yield %42 : f32
    } -> tensor<1x64x256xf32>
    %cst_12 = arith.constant dense<0.000000e+00> : tensor<1x1x1xf32>
    %34 = tensor.empty() : tensor<1x64x256xi1>
    %35 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2, %cst_12 : tensor<1x64x256xf32>, tensor<1x1x1xf32>) outs(%34 : tensor<1x64x256xi1>) {
    ^bb0(%in: f32, %in_15: f32, %out: i1):
      %42 = arith.cmpf ogt, %in, %in_15 : f32
      linalg.yield %42 : i1
    } -> tensor<1x64x256xi1>
    %36 = tensor.empty() : tensor<1x64x256xf32>
    %37 = linalg.generic {indexing_maps = [#map, #map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%35, %33, %cst_12 : tensor<1x64x256xi1>, tensor<1x64x256xf32>, tensor<1x1x1xf32>) outs(%36 : tensor<1x64x256xf32>) {
    ^bb0(%in: i1, %in_15: f32, %in_16: f32, %out: f32):
      %42 = arith.select %in, %in_15, %in_16 : f32
      linalg.yield %42 : f32
    } -> tensor<1x64x256xf32>
    %38 = tensor.empty() : tensor<1x128x64xf32>
    %transposed_13 = linalg.transpose ins(%arg0 : tensor<1x64x128xf32>) outs(%38 : tensor<1x128x64xf32>) permutation = [0, 2, 1] 
    %cst_14 = arith.constant 0.000000e+00 : f32
    %39 = tensor.empty() : tensor<1x128x256xf32>
    %40 = linalg.fill ins(%cst_14 : f32) outs(%39 : tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
    %41 = linalg.batch_matmul ins(%transposed_13, %37 : tensor<1x128x64xf32>, tensor<1x64x256xf32>) outs(%40 : tensor<1x128x256xf32>) -> tensor<1x128x256xf32>
    return %expanded_6, %41, %23 : tensor<1x1x1xf32>, tensor<1x128x256xf32>, tensor<1x256x10xf32>
  }
}

