// Bad invocations of echo-run get a clear message and exit 1.
// RUN: not echo-run %s --strategy=bogus 2>&1 | FileCheck %s --check-prefix=STRATEGY
// STRATEGY: echo-run: for the --strategy option: Cannot find option named 'bogus'!
// RUN: not echo-run %s --target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: echo-run: for the --target option: Cannot find option named 'tpu'!
// RUN: not echo-run %s --optimizer=lamb 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: echo-run: for the --optimizer option: Cannot find option named 'lamb'!
// RUN: not echo-run %s --precision=f64 2>&1 | FileCheck %s --check-prefix=PRECISION
// PRECISION: echo-run: for the --precision option: Cannot find option named 'f64'!
// RUN: not echo-run %s --precision=bf16 --check-gradients 2>&1 | FileCheck %s --check-prefix=LOWCHECK
// RUN: not echo-run %s --precision=f16 --reference-dump=%t 2>&1 | FileCheck %s --check-prefix=LOWCHECK
// LOWCHECK: echo-run: --check-gradients and --reference-dump check the f32 step (--precision=f32)
// RUN: not echo-run %s --precision=f16 --optimizer=adam 2>&1 | FileCheck %s --check-prefix=F16OPT
// RUN: not echo-run %s --precision=f16 --emit-library=%t.lib 2>&1 | FileCheck %s --check-prefix=F16OPT
// F16OPT: echo-run: --precision=f16 scales the loss in echo-run's training loop: it needs --optimizer=none and no --emit-aot or --emit-library
// RUN: not echo-run %s --optimizer=sgd --check-gradients 2>&1 | FileCheck %s --check-prefix=SGDCHECK
// SGDCHECK: --check-gradients needs --optimizer=none
// RUN: not echo-run %s --optimizer=adam --check-gradients 2>&1 | FileCheck %s --check-prefix=SGDCHECK
// RUN: not echo-run %s --optimizer=momentum --reference-dump=%t 2>&1 | FileCheck %s --check-prefix=REFDUMP
// REFDUMP: echo-run: --reference-dump runs on --target=cpu with --optimizer=none (the f64 reference returns gradients)
// The hyperparameters of an optimizer inside the step, in PyTorch's ranges.
// RUN: not echo-run %s --optimizer=adam --beta1=1 2>&1 | FileCheck %s --check-prefix=BETA1
// BETA1: echo-run: --beta1: beta1 must be in [0, 1), got 1
// RUN: not echo-run %s --optimizer=adamw --beta2=-0.5 2>&1 | FileCheck %s --check-prefix=BETA2
// BETA2: echo-run: --beta2: beta2 must be in [0, 1), got -0.5
// RUN: not echo-run %s --optimizer=momentum --momentum=-0.9 2>&1 | FileCheck %s --check-prefix=MOMENTUM
// MOMENTUM: echo-run: --momentum: momentum must be a finite number >= 0, got -0.9
// RUN: not echo-run %s --optimizer=adam --eps=-1e-8 2>&1 | FileCheck %s --check-prefix=EPS
// EPS: echo-run: --eps: eps must be a finite number >= 0, got -1e-08
// RUN: not echo-run %s --optimizer=momentum --weight-decay=-0.1 2>&1 | FileCheck %s --check-prefix=DECAY
// DECAY: echo-run: --weight-decay: weight_decay must be a finite number >= 0, got -0.1
// RUN: not echo-run %s --optimizer=adam --beta1=nan 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: echo-run: for the --beta1 option: 'nan' is not a finite number
// Other optimizers do not read them.
// RUN: echo-run %s --optimizer=none --beta1=1 --quiet
// RUN: not echo-run %s --function=nope 2>&1 | FileCheck %s --check-prefix=NOFUNC
// NOFUNC: echo-run: no model named @nope
// RUN: not echo-run %S/Inputs/two-models.mlir 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: has several models; pick one with --function: @a @b
// RUN: echo-run %S/Inputs/two-models.mlir --function=b | FileCheck %s --check-prefix=PICK
// PICK: step 0 loss
// RUN: not echo-run %S/Inputs/no-model.mlir 2>&1 | FileCheck %s --check-prefix=NOMODEL
// NOMODEL: has no model
// RUN: not echo-run %S/Inputs/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: echo-run: cannot open input file
// RUN: not echo-run %S/Inputs/bad-convention.mlir 2>&1 | FileCheck %s --check-prefix=CONV
// CONV: bad-convention.mlir:1:1: error: model @bad must return exactly one scalar loss
// RUN: not echo-run %s --offload=always 2>&1 | FileCheck %s --check-prefix=OFFLOAD
// OFFLOAD: echo-run: for the --offload option: Cannot find option named 'always'!
// RUN: not echo-run %s --offload=all --link-bandwidth=0 2>&1 | FileCheck %s --check-prefix=LINK
// LINK: error: echo-recompute: link-bandwidth must be a positive rate below 1e9, got 0.000000e+00
// RUN: not echo-run %s --offload=all --library-calls=false 2>&1 | FileCheck %s --check-prefix=NOCALLS
// NOCALLS: offload needs library-calls=true
// The host pool is finite: past $ECHO_HOST_POOL_LIMIT an offload is an
// out-of-memory error naming what it needed and what the pool holds.
// RUN: env ECHO_HOST_POOL_LIMIT=100 not echo-run %S/Inputs/offload.mlir --offload=all --link-bandwidth=100000 2>&1 | FileCheck %s --check-prefix=HOSTOOM
// HOSTOOM: out of host memory: offloading slot 0 needs 262144 bytes; the host pool holds 0 of its 100-byte limit ($ECHO_HOST_POOL_LIMIT)
// A limit that is not a positive byte count is an error, never no limit.
// RUN: env ECHO_HOST_POOL_LIMIT=abc not echo-run %s 2>&1 | FileCheck %s --check-prefix=POOLABC
// POOLABC: echo-run: target=cpu: $ECHO_HOST_POOL_LIMIT is 'abc': not a byte count (a positive integer; unset it for no limit)
// RUN: env ECHO_HOST_POOL_LIMIT=-1 not echo-run %s 2>&1 | FileCheck %s --check-prefix=POOLNEG
// POOLNEG: echo-run: target=cpu: $ECHO_HOST_POOL_LIMIT is '-1': not a byte count
// RUN: env ECHO_HOST_POOL_LIMIT=0 not echo-run %s 2>&1 | FileCheck %s --check-prefix=POOLZERO
// POOLZERO: echo-run: target=cpu: $ECHO_HOST_POOL_LIMIT is '0': not a byte count

// Option values that would be ignored, or would train to non-finite
// parameters, are errors.
// RUN: not echo-run %s --budget= 2>&1 | FileCheck %s --check-prefix=EMPTYBUDGET
// EMPTYBUDGET: echo-run: for the --budget option: the value is empty
// RUN: not echo-run %s --report= 2>&1 | FileCheck %s --check-prefix=EMPTYREPORT
// EMPTYREPORT: echo-run: for the --report option: the value is empty
// RUN: not echo-run %s --lr=inf 2>&1 | FileCheck %s --check-prefix=LRINF
// LRINF: echo-run: for the --lr option: 'inf' is not a finite number
// RUN: not echo-run %s --lr=nan 2>&1 | FileCheck %s --check-prefix=LRNAN
// LRNAN: echo-run: for the --lr option: 'nan' is not a finite number
// RUN: not echo-run %s --lr=-0.5 2>&1 | FileCheck %s --check-prefix=LRNEG
// LRNEG: echo-run: --lr must be a finite number >= 0, got -0.5
// RUN: not echo-run %s --tolerance=nan 2>&1 | FileCheck %s --check-prefix=TOLNAN
// TOLNAN: echo-run: for the --tolerance option: 'nan' is not a finite number
// RUN: not echo-run %s --tolerance=0 2>&1 | FileCheck %s --check-prefix=TOLZERO
// TOLZERO: echo-run: --tolerance must be a finite number > 0, got 0
// RUN: not echo-run %s --link-bandwidth=inf 2>&1 | FileCheck %s --check-prefix=LINKINF
// LINKINF: echo-run: for the --link-bandwidth option: 'inf' is not a finite number
// RUN: not echo-run %s --steps=0 2>&1 | FileCheck %s --check-prefix=STEPS
// STEPS: echo-run: --steps must be at least 1
// RUN: not echo-run %s --chunk-loss=1 2>&1 | FileCheck %s --check-prefix=CHUNKONE
// CHUNKONE: echo-run: --chunk-loss must be auto, off or a number of chunks >= 2, got '1'
// RUN: not echo-run %s --chunk-loss= 2>&1 | FileCheck %s --check-prefix=CHUNKEMPTY
// CHUNKEMPTY: echo-run: for the --chunk-loss option: the value is empty

func.func @m(%x: tensor<2x3xf32>, %w: tensor<3x3xf32> {echo.param}) -> tensor<f32> {
  %0 = echo.matmul %x, %w : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  %l = echo.reduce_sum %0 dims = [0, 1] : (tensor<2x3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
