// RUN: echo-opt %s --echo-merge-gpu-modules --split-input-file --verify-diagnostics | FileCheck %s

// Two outlined modules, each with a kernel named @step_kernel, become one
// module whose kernels are named after the modules they came from.
// CHECK: gpu.module @echo_kernels {
// CHECK:   gpu.func @step_kernel(%{{.*}}: memref<4xf32>) kernel
// CHECK:   gpu.func @step_kernel_0(%{{.*}}: memref<4xf32>) kernel
// CHECK: }
// CHECK-NOT: gpu.module
// CHECK-LABEL: func.func @step
// CHECK: gpu.launch_func @echo_kernels::@step_kernel blocks
// CHECK: gpu.launch_func @echo_kernels::@step_kernel_0 blocks
module attributes {gpu.container_module} {
  gpu.module @step_kernel {
    gpu.func @step_kernel(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @step_kernel_0 {
    gpu.func @step_kernel(%x: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @step(%x: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @step_kernel::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    gpu.launch_func @step_kernel_0::@step_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<4xf32>)
    return
  }
}

// -----

// A single module is left alone.
// CHECK: gpu.module @only
module attributes {gpu.container_module} {
  gpu.module @only {
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{echo-merge-gpu-modules: run before a target is attached}}
  gpu.module @a [#nvvm.target] {
  }
  gpu.module @b {
  }
}
