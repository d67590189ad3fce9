// echo-pipeline's offload= and link-bandwidth= (echo-recompute's options):
// the bundled ResNet with echo and every stashed value the bandwidth model
// can hide offloaded; the report has the host pool beside the device bytes.
// RUN: echo-opt %echo_src/models/resnet.mlir --echo-pipeline="offload=all link-bandwidth=100000 report=-" -o /dev/null | FileCheck %s
// RUN: echo-opt %echo_src/models/resnet.mlir --echo-pipeline="strategy=none offload=heavy link-bandwidth=100000 report=-" -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: echo-opt %echo_src/models/resnet.mlir --echo-pipeline="offload=all report=-" -o /dev/null | FileCheck %s --check-prefix=SLOW
// RUN: not echo-opt %echo_src/models/resnet.mlir --echo-pipeline="offload=all library-calls=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOCALLS
// RUN: not echo-opt %echo_src/models/resnet.mlir --echo-pipeline="offload=always" -o /dev/null 2>&1 | FileCheck %s --check-prefix=POLICY

// CHECK: "host_peak_bytes": {{[1-9][0-9]*}},
// CHECK: "offloaded_values": {{[1-9][0-9]*}},
// CHECK: "step_bytes": {{[1-9][0-9]*}},
// CHECK: "strategy": "echo",
// CHECK: "transfer_bytes": {{[1-9][0-9]*}},
// CHECK: "unhidden_transfer_seconds": 0

// With strategy=none, offload alone: the stashed convolution outputs.
// NONE: "offloaded_values": 10,
// NONE: "strategy": "none",

// At the default 25 GB/s the model hides the copies of one 4 KiB value
// only (its gap spans most of the step).
// SLOW: "host_peak_bytes": 4096,
// SLOW: "offloaded_values": 1,
// SLOW: "unhidden_transfer_seconds": 0

// NOCALLS: echo-pipeline: offload needs library-calls=true (the copies are calls into the Echo runtime's host pool)
// POLICY: Cannot find option named 'always'!
