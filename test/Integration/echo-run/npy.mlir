// --inputs reads argN.npy, --dump writes the first step's results; both are
// checked against NumPy: loss = mean((x·w + b − t)²) and its gradients.
// Also: a bad .npy (wrong dtype, wrong shape, any malformed file) is
// rejected with the argument named and what is wrong, and --report writes
// losses and the step time.
// RUN: rm -rf %t && mkdir -p %t/in
// RUN: %python %S/Inputs/npy_check.py write %t/in
// RUN: echo-run %s --inputs=%t/in --dump=%t/out --steps=2 --report=%t/report.json | FileCheck %s
// CHECK: step 0 loss
// CHECK: step 1 loss
// RUN: %python %S/Inputs/npy_check.py check %t/in %t/out %t/report.json
// RUN: %python %S/Inputs/npy_check.py bad-dtype %t/bad1
// RUN: not echo-run %s --inputs=%t/bad1 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: arg1.npy (argument 1): dtype '<f8' does not match the argument's '<f4' (its element type)
// RUN: %python %S/Inputs/npy_check.py bad-shape %t/bad2
// RUN: not echo-run %s --inputs=%t/bad2 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: arg1.npy (argument 1): shape (4, 2) does not match the argument's (3, 2)
// RUN: %python %S/Inputs/npy_check.py malformed %t/fortran fortran
// RUN: not echo-run %s --inputs=%t/fortran 2>&1 | FileCheck %s --check-prefix=FORTRAN
// FORTRAN: arg1.npy (argument 1): Fortran order is not supported; save C order
// RUN: %python %S/Inputs/npy_check.py malformed %t/big big-endian
// RUN: not echo-run %s --inputs=%t/big 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: arg1.npy (argument 1): dtype '>f4' is not supported (big-endian; save little-endian): '<f4', '<f8' or '<i4'
// RUN: %python %S/Inputs/npy_check.py malformed %t/short truncated-data
// RUN: not echo-run %s --inputs=%t/short 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: arg1.npy (argument 1): truncated data: 19 bytes, the shape needs 24
// RUN: %python %S/Inputs/npy_check.py malformed %t/long trailing
// RUN: not echo-run %s --inputs=%t/long 2>&1 | FileCheck %s --check-prefix=LONG
// LONG: arg1.npy (argument 1): 8 bytes after the data the shape needs (24)
// RUN: %python %S/Inputs/npy_check.py malformed %t/cut truncated-header
// RUN: not echo-run %s --inputs=%t/cut 2>&1 | FileCheck %s --check-prefix=CUT
// CUT: arg1.npy (argument 1): truncated header (118 bytes announced, 30 in the file)
// RUN: %python %S/Inputs/npy_check.py malformed %t/absurd absurd-header
// RUN: not echo-run %s --inputs=%t/absurd 2>&1 | FileCheck %s --check-prefix=ABSURD
// ABSURD: arg1.npy (argument 1): absurd header length 4294967280 bytes (at most 1 MiB)
// RUN: %python %S/Inputs/npy_check.py malformed %t/magic magic
// RUN: not echo-run %s --inputs=%t/magic 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: arg1.npy (argument 1): not a NumPy .npy file (no \x93NUMPY magic string)
// RUN: %python %S/Inputs/npy_check.py malformed %t/version version
// RUN: not echo-run %s --inputs=%t/version 2>&1 | FileCheck %s --check-prefix=VERSION
// VERSION: arg1.npy (argument 1): unsupported .npy format version 9 (1 to 3 are)
// RUN: %python %S/Inputs/npy_check.py malformed %t/dict dict
// RUN: not echo-run %s --inputs=%t/dict 2>&1 | FileCheck %s --check-prefix=DICT
// DICT: arg1.npy (argument 1): malformed header dictionary
// RUN: %python %S/Inputs/npy_check.py malformed %t/negative negative
// RUN: not echo-run %s --inputs=%t/negative 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: arg1.npy (argument 1): bad dim in 'shape' (non-negative integers that fit in int64)
// RUN: %python %S/Inputs/npy_check.py malformed %t/huge huge
// RUN: not echo-run %s --inputs=%t/huge 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: arg1.npy (argument 1): shape's byte count does not fit in int64

func.func @reg(%x: tensor<4x3xf32>, %w: tensor<3x2xf32> {echo.param},
               %b: tensor<4x2xf32> {echo.param}, %t: tensor<4x2xf32>) -> tensor<f32> {
  %0 = echo.matmul %x, %w : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %1 = echo.add %0, %b : tensor<4x2xf32>
  %l = echo.mse_loss %1, %t : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
