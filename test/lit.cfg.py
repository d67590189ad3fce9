# -*- Python -*-
# lit configuration of Echo's regression and integration tests.

import glob
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
# Debian's OpenBLAS built for OpenMP (libopenblas0-openmp), which the CPU
# runtime prefers.
if glob.glob("/usr/lib/*/openblas-openmp/libopenblas.so.0"):
    config.available_features.add("openblas-openmp")
# The tools allocate with jemalloc (ECHO_MALLOC).
if config.echo_jemalloc:
    config.available_features.add("jemalloc")
import subprocess
if subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"],
                  capture_output=True).returncode == 0:
    config.available_features.add("matplotlib")
# The PyTorch importer's tests: Debian's python3-torch and python3-torchvision.
if subprocess.run(["/usr/bin/python3", "-c", "import torch, torchvision"],
                  capture_output=True).returncode == 0:
    config.available_features.add("torch")
# The training examples' data sets and progress bars (python3-sklearn,
# python3-tqdm).
if subprocess.run(["/usr/bin/python3", "-c", "import sklearn, tqdm"],
                  capture_output=True).returncode == 0:
    config.available_features.add("sklearn")
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
