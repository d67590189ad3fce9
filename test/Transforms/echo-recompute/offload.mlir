// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=none offload=all link-bandwidth=1000" | FileCheck %s
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=none offload=all link-bandwidth=1000" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=none" --echo-memory-report -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=none offload=all" | FileCheck %s --check-prefix=SLOW
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=none offload=heavy link-bandwidth=1000" | FileCheck %s --check-prefix=HEAVY
// RUN: echo-opt %s --echo-autodiff --echo-recompute="strategy=echo offload=all link-bandwidth=1000" | FileCheck %s --check-prefix=ECHO
// RUN: not echo-opt %s --echo-recompute="offload=all link-bandwidth=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not echo-opt %s --echo-recompute="offload=all device-tflops=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not echo-opt %s --echo-recompute="offload=sometimes" 2>&1 | FileCheck %s --check-prefix=POLICY

// ZERO: error: echo-recompute: link-bandwidth must be a positive rate below 1e9, got 0.000000e+00
// NEGATIVE: error: echo-recompute: device-tflops must be a positive rate below 1e9, got -1.000000e+00
// POLICY: for the --offload option: Cannot find option named 'sometimes'!

// Three layers of 256x256 matmul and tanh. The backward pass reads the
// tanh outputs a1, a2, a3 (tanh_grad, and the next layer's weight
// gradient). With a 1000 GB/s link (a copy of 256 KiB takes 0.26 us, a
// matmul 1.1 us under the default device) a1 and a2 are offloaded right
// after their last forward reader, their device bytes are held until the
// next op that starts after the copy ends, and each is fetched one op
// before its first backward reader, which waits for it. a3 is read by the
// first backward op two ops after the loss: nothing to gain, left alone.
// CHECK-LABEL: func.func @chain_train
// CHECK-SAME: echo.offload_schedule = {compute_seconds = {{.*}}, link_bytes_per_second = 1.000000e+12 : f64, transfer_seconds = 1.048576E-6 : f64, unhidden_seconds = 0.000000e+00 : f64, values = 2 : i64}
// CHECK:      %[[A1:.*]] = echo.tanh
// CHECK-NEXT: %[[H2:.*]] = echo.matmul %[[A1]]
// CHECK-NEXT: %[[C1:.*]] = echo.offload %[[A1]] : tensor<256x256xf32>
// CHECK-NEXT: %[[A2:.*]] = echo.tanh %[[H2]]
// CHECK-NEXT: echo.transfer_wait %[[A1]] : tensor<256x256xf32>
// CHECK-NEXT: %[[H3:.*]] = echo.matmul %[[A2]]
// CHECK-NEXT: %[[C2:.*]] = echo.offload %[[A2]]
// CHECK-NEXT: %[[A3:.*]] = echo.tanh %[[H3]]
// CHECK-NEXT: echo.transfer_wait %[[A2]]
// CHECK-NEXT: echo.reduce_sum %[[A3]]
// CHECK:      %[[D3:.*]] = echo.tanh_grad %[[A3]]
// CHECK-NEXT: %[[F2:.*]] = echo.fetch %[[C2]] : tensor<256x256xf32>
// CHECK-NEXT: %[[G2:.*]] = echo.matmul %[[D3]], %{{.*}} {transpose_b = true}
// CHECK-NEXT: echo.transfer_wait %[[F2]]
// CHECK-NEXT: echo.matmul %[[F2]], %[[D3]] {transpose_a = true}
// CHECK-NEXT: %[[D2:.*]] = echo.tanh_grad %[[F2]], %[[G2]]
// CHECK-NEXT: %[[F1:.*]] = echo.fetch %[[C1]]
// CHECK-NEXT: %[[G1:.*]] = echo.matmul %[[D2]], %{{.*}} {transpose_b = true}
// CHECK-NEXT: echo.transfer_wait %[[F1]]
// CHECK-NEXT: echo.matmul %[[F1]], %[[D2]] {transpose_a = true}
// CHECK-NEXT: echo.tanh_grad %[[F1]], %[[G1]]
// CHECK-NOT:  echo.offload

// The device no longer holds a1 and a2 from the forward pass to the
// backward pass: two 256 KiB feature maps leave the stash and become host
// bytes, both live at once; each is copied twice.
// NONE: "feature_map_bytes": 786432,
// REPORT: "feature_map_bytes": 262144,
// REPORT: "host_peak_bytes": 524288,
// REPORT: "offloaded_values": 2,
// REPORT: "transfer_bytes": 1048576,
// REPORT: "transfer_seconds": 1.048576e-06,
// REPORT: "unhidden_transfer_seconds": 0

// At the default 25 GB/s a copy (10.5 us) outlasts the gap's compute: the
// device would hold each value through the gap anyway, so none is moved.
// SLOW-LABEL: func.func @chain_train
// SLOW-NOT: echo.offload

// heavy: only the results of compute-heavy ops, and the backward pass
// reads no matmul output here.
// HEAVY-LABEL: func.func @chain_train
// HEAVY-NOT: echo.offload

// With echo, what stays stashed is offloaded the same way.
// ECHO-LABEL: func.func @chain_train
// ECHO-SAME: echo.recompute_strategy = "echo"
// ECHO: echo.offload
// ECHO: echo.fetch

func.func @chain(%x: tensor<256x256xf32>, %w1: tensor<256x256xf32> {echo.param}, %w2: tensor<256x256xf32> {echo.param}, %w3: tensor<256x256xf32> {echo.param}) -> tensor<f32> {
  %h1 = echo.matmul %x, %w1 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %a1 = echo.tanh %h1 : tensor<256x256xf32>
  %h2 = echo.matmul %a1, %w2 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %a2 = echo.tanh %h2 : tensor<256x256xf32>
  %h3 = echo.matmul %a2, %w3 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %a3 = echo.tanh %h3 : tensor<256x256xf32>
  %l = echo.reduce_sum %a3 dims = [0, 1] : (tensor<256x256xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
