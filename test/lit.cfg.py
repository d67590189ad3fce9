# -*- Python -*-
# lit configuration of Echo's regression and integration tests.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "ECHO"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".py"]
config.excludes = ["Inputs", "CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.echo_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%echo_src", config.echo_src_root))
config.substitutions.append(("%echo_obj", config.echo_obj_root))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cmake_generator", config.cmake_generator))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%mlir_dir", config.mlir_dir))
config.substitutions.append(
    ("%echo_plugin", os.path.join(config.echo_lib_dir, "EchoPlugin.so")))
# Python scripts that need numpy use Debian's interpreter (ENV.md).
config.substitutions.append(("%python", "/usr/bin/python3"))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.echo_tools_dir, append_path=True)
llvm_config.with_environment(
    "PYTHONPATH", os.path.join(config.echo_src_root, "python"), append_path=True)

tool_dirs = [config.echo_tools_dir, config.llvm_tools_dir]
tools = [
    "echo-opt",
    # Tests compile many small steps: a fast JIT beats a fast step.
    ToolSubst("echo-run", extra_args=["--opt-level=0"]),
    ToolSubst("mlir-opt", unresolved="ignore"),
    ToolSubst("echo-ilp", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

if config.echo_build_plugin:
    config.available_features.add("plugin")
# echo-ilp, the optimal recompute reference, is built with COIN-OR CBC.
if config.echo_have_cbc:
    config.available_features.add("ilp")
import subprocess
if subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"],
                  capture_output=True).returncode == 0:
    config.available_features.add("matplotlib")
# The PyTorch importer's tests: Debian's python3-torch and python3-torchvision.
if subprocess.run(["/usr/bin/python3", "-c", "import torch, torchvision"],
                  capture_output=True).returncode == 0:
    config.available_features.add("torch")


def _echo_opt_accepts(body):
    """Whether echo-opt parses and verifies a function of ``body``."""
    text = "func.func @f(%x: tensor<1x4x4x4xf32>, %c: tensor<1x4x4x4xi1>, " \
        "%w: tensor<4x2x1x1xf32>) {\n" + body + "\n  return\n}\n"
    echo_opt = os.path.join(config.echo_tools_dir, "echo-opt")
    try:
        return subprocess.run([echo_opt, "-", "-o", os.devnull],
                              input=text, capture_output=True,
                              text=True).returncode == 0
    except OSError:
        return False


# The importer emits ops that are being added beside it; the tests that
# run such models need them. `echo-activations`: erf, silu, hardswish,
# hardsigmoid, mish, gelu, clamp and select; `echo-conv-pool`: grouped
# convolution, adaptive average pooling (and with them the pooling flags
# and dropout's broadcast_dims).
_T = "(tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>"
if _echo_opt_accepts("\n".join(
        ['  %%%s = "echo.%s"(%%x) : %s' % (op, op, _T)
         for op in ("erf", "silu", "hardswish", "hardsigmoid", "mish",
                    "gelu")] +
        ['  %%g = "echo.gelu"(%%x) {tanh_approximation = true} : %s' % _T,
         '  %%k = "echo.clamp"(%%x) {max = 6.0 : f64, min = 0.0 : f64} : %s'
         % _T,
         '  %sel = "echo.select"(%c, %x, %x) : (tensor<1x4x4x4xi1>, '
         'tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>'])):
    config.available_features.add("echo-activations")
if _echo_opt_accepts(
        '  %y = "echo.conv2d"(%x, %w) {groups = 2 : i64, padding = '
        'array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, '
        'tensor<4x2x1x1xf32>) -> tensor<1x4x4x4xf32>\n'
        '  %a = "echo.adaptive_avg_pool2d"(%x) {output_size = array<i64: 3, 3>} '
        ': (tensor<1x4x4x4xf32>) -> tensor<1x4x3x3xf32>'):
    config.available_features.add("echo-conv-pool")
# target=nvvm needs the CUDA toolkit's libdevice (not a GPU); `ptxas` checks
# the PTX; `cuda-runtime` is the Echo CUDA runtime library (built when the
# toolkit's headers are there); `cuda-gpu` only where a GPU and its driver
# answer.
cuda = config.cuda_toolkit
config.substitutions.append(("%extract_gpu_binary", "/usr/bin/python3 " +
    os.path.join(config.echo_src_root, "utils", "extract-gpu-binary.py")))
if cuda and os.path.exists(
        os.path.join(cuda, "nvvm", "libdevice", "libdevice.10.bc")):
    config.available_features.add("cuda-toolkit")
    config.substitutions.append(("%cuda_stubs",
                                 os.path.join(cuda, "lib64", "stubs")))
    ptxas = os.path.join(cuda, "bin", "ptxas")
    if os.access(ptxas, os.X_OK):
        config.available_features.add("ptxas")
        config.substitutions.append(("%ptxas", ptxas))
if config.echo_cuda_runtime and os.path.exists(config.echo_cuda_runtime):
    config.available_features.add("cuda-runtime")
    config.substitutions.append(("%echo_cuda_runtime",
                                 config.echo_cuda_runtime))
# The host-memory driver of test/fake-cuda: the runtime's host side and its
# errors, without a GPU.
fake_cuda = os.path.join(config.echo_obj_root, "test", "fake-cuda")
if "cuda-runtime" in config.available_features and os.path.exists(
        os.path.join(fake_cuda, "libcuda.so.1")):
    config.available_features.add("fake-cuda")
    config.substitutions.append(("%fake_cuda", fake_cuda))
if shutil.which("nvidia-smi") and subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True).returncode == 0:
    config.available_features.add("cuda-gpu")
if shutil.which("ninja"):
    config.available_features.add("ninja")
