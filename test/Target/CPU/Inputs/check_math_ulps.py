"""The accuracy of echo-approximate-math's f32 functions (see
approximate-math-accuracy.test): the largest error, in f32 ulps of the exact
value, over an evenly spaced sweep of each range, measured by a generated
program that compares each approximation with the f64 function (libm)."""
import os
import shutil
import subprocess
import sys

N = 200000
# function, range, bound in ulps
CASES = [("exp", -87.0, 88.0, 2), ("exp", -10.0, 10.0, 2),
         ("log", 1e-30, 1e30, 2), ("log", 0.5, 2.0, 2),
         ("tanh", -10.0, 10.0, 6), ("tanh", -0.01, 0.01, 6),
         ("log1p", -0.9, 10.0, 4), ("expm1", -1.0, 1.0, 4),
         ("erf", -4.0, 4.0, 6)]

PROGRAM = """
func.func private @printF64(f64)
func.func private @printNewline()
func.func @main() {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {n} : index
  %lo = arith.constant {lo:.17e} : f64
  %step = arith.constant {step:.17e} : f64
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1 : i32
  %worst = scf.for %i = %c0 to %n step %c1 iter_args(%m = %zero) -> (f64) {{
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f64
    %t = arith.mulf %fi, %step : f64
    %x64 = arith.addf %lo, %t : f64
    %x = arith.truncf %x64 : f64 to f32
    %xe = arith.extf %x : f32 to f64
    %a = math.{fn} %x : f32
    %e = math.{fn} %xe : f64
    %ae = arith.extf %a : f32 to f64
    %d = arith.subf %ae, %e : f64
    %ad = math.absf %d : f64
    %ef = arith.truncf %e : f64 to f32
    %efa = math.absf %ef : f32
    %eb = arith.bitcast %efa : f32 to i32
    %eb1 = arith.addi %eb, %one : i32
    %ef1 = arith.bitcast %eb1 : i32 to f32
    %u = arith.subf %ef1, %efa : f32
    %u64 = arith.extf %u : f32 to f64
    %ulps = arith.divf %ad, %u64 : f64
    %nm = arith.maximumf %ulps, %m : f64
    scf.yield %nm : f64
  }}
  call @printF64(%worst) : (f64) -> ()
  call @printNewline() : () -> ()
  return
}}
"""


def main():
    tmp = sys.argv[1]
    os.makedirs(tmp, exist_ok=True)
    runner = os.path.realpath(shutil.which("mlir-runner"))
    libdir = os.path.join(os.path.dirname(os.path.dirname(runner)), "lib")
    libs = ",".join(os.path.join(libdir, n) for n in
                    ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so"))
    for k, (fn, lo, hi, bound) in enumerate(CASES):
        path = os.path.join(tmp, "%s%d.mlir" % (fn, k))
        with open(path, "w") as f:
            f.write(PROGRAM.format(n=N, lo=lo, step=(hi - lo) / N, fn=fn))
        approx = subprocess.run(["echo-opt", path, "--echo-approximate-math"],
                                capture_output=True, text=True, check=True)
        lowered = subprocess.run(
            ["mlir-opt", "--convert-scf-to-cf", "--convert-math-to-llvm",
             "--convert-math-to-libm", "--convert-to-llvm",
             "--reconcile-unrealized-casts"], input=approx.stdout,
            capture_output=True, text=True, check=True)
        run = subprocess.run(
            [runner, "-e", "main", "-entry-point-result=void",
             "-shared-libs=" + libs], input=lowered.stdout,
            capture_output=True, text=True, check=True)
        worst = float(run.stdout.split()[0])
        print("%s [%g, %g]: %.2f ulp (bound %d): %s" % (
            fn, lo, hi, worst, bound, "ok" if worst <= bound else "FAILED"))


main()
