"""Fused attention's kernels called directly (ctypes) in the CPU runtime,
on strided views, with a counting allocator installed.

usage: check_tile_memory.py RUNTIME_LIBRARY

For each ISA ($ECHO_CPU_ISA: baseline, avx2, avx512; one that this CPU or
build does not run is skipped with a note) a child process, on 2 threads:

  * runs echo_attention_forward and echo_attention_backward with head dims
    64 and 72 on views: q a transposed [B,S,H,D] -> [B,H,S,D] view (rows
    H*D apart), k every other element of a [B,H,S,2D] buffer (last stride
    2), v and dout contiguous. Each result within 1e-5 norm-wise of a NumPy
    f64 reference;
  * with the counting allocator of echoCpuSetAllocator installed: every
    tile byte is taken from it (its peak is at least one thread's tiles)
    and given back (none live after a call);
  * with an allocator that has no memory left: the call records the
    runtime's out-of-memory error (echoCpuErrorIsOutOfMemory), which
    echoCpuClearError forgets, after which the next call runs.

Prints a line per check and FAILED on a failure.
"""
import ctypes
import os
import subprocess
import sys
import threading

import numpy as np

ISAS = ("baseline", "avx2", "avx512")
TOLERANCE = 1e-5
B, H, S, SK = 2, 2, 70, 100


class MemRef4D(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("data", ctypes.c_void_p),
                ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * 4),
                ("strides", ctypes.c_int64 * 4)]


class MemRef3D(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("data", ctypes.c_void_p),
                ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * 3),
                ("strides", ctypes.c_int64 * 3)]


class MemRef0D(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("data", ctypes.c_void_p),
                ("offset", ctypes.c_int64)]


def memref(array):
    """A descriptor of the (possibly strided) f32 view `array`."""
    assert array.dtype == np.float32
    m = (MemRef4D if array.ndim == 4 else MemRef3D)()
    m.base = m.data = array.ctypes.data
    m.offset = 0
    for d in range(array.ndim):
        m.sizes[d] = array.shape[d]
        m.strides[d] = array.strides[d] // 4
    return m


ALLOCATE = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t)
RELEASE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class Counting:
    """A counting allocator over libc, which fails while `exhausted`."""

    def __init__(self):
        self.libc = ctypes.CDLL(None)
        self.libc.aligned_alloc.restype = ctypes.c_void_p
        self.libc.aligned_alloc.argtypes = [ctypes.c_size_t, ctypes.c_size_t]
        self.libc.free.argtypes = [ctypes.c_void_p]
        self.lock = threading.Lock()
        self.sizes = {}
        self.live = self.peak = self.calls = 0
        self.exhausted = False
        self.allocate = ALLOCATE(self._allocate)
        self.release = RELEASE(self._release)

    def _allocate(self, alignment, size):
        with self.lock:
            self.calls += 1
            if self.exhausted:
                return None
            p = self.libc.aligned_alloc(alignment,
                                        (size + alignment - 1) // alignment *
                                        alignment)
            if p:
                self.sizes[p] = size
                self.live += size
                self.peak = max(self.peak, self.live)
            return p

    def _release(self, p):
        with self.lock:
            self.live -= self.sizes.pop(p)
        self.libc.free(p)


def reference(q, k, v, dout, scale):
    q, k, v, dout = (x.astype(np.float64) for x in (q, k, v, dout))
    s = np.einsum("bhid,bhjd->bhij", q, k) * scale
    m = s.max(-1, keepdims=True)
    e = np.exp(s - m)
    lse = (m + np.log(e.sum(-1, keepdims=True)))[..., 0]
    p = np.exp(s - lse[..., None])
    out = p @ v
    dv = np.einsum("bhij,bhid->bhjd", p, dout)
    dp = dout @ np.swapaxes(v, -1, -2)
    ds = p * (dp - (dout * out).sum(-1, keepdims=True))
    dq = ds @ k * scale
    dk = np.einsum("bhij,bhid->bhjd", ds, q) * scale
    return out, lse, dq, dk, dv


def rel_diff(a, b):
    b = b.astype(np.float64)
    return np.linalg.norm(a.astype(np.float64) - b) / np.linalg.norm(b)


def child(library):
    lib = ctypes.CDLL(library)
    lib.echoCpuGetError.restype = ctypes.c_char_p
    lib.echoCpuSetAllocator.argtypes = [ALLOCATE, RELEASE]
    counting = Counting()
    if lib.echoCpuSetAllocator(counting.allocate, counting.release) != 0:
        print("echoCpuSetAllocator refused FAILED")
        return 1
    rng = np.random.default_rng(7)
    bias = np.zeros((1, 1, 1, 1), np.float32)
    seed = np.zeros((), np.int64)
    seed_ref = MemRef0D(seed.ctypes.data, seed.ctypes.data, 0)
    failed = False

    def forward(q, k, v, out, lse, scale):
        args = [memref(q), memref(k), memref(v), memref(bias)]
        lib._mlir_ciface_echo_attention_forward(
            *[ctypes.byref(a) for a in args], ctypes.byref(seed_ref),
            ctypes.byref(memref(out)), ctypes.byref(memref(lse)),
            ctypes.c_int64(np.float64(scale).view(np.int64)),
            ctypes.c_int64(0), ctypes.c_int64(0), ctypes.c_int64(0),
            ctypes.c_int64(0))

    for d in (64, 72):
        scale = 1.0 / np.sqrt(d)
        # q: [B,S,H,D] seen as [B,H,S,D]; k: every other float of [B,H,S,2D].
        q = rng.standard_normal((B, S, H, d)).astype(np.float32)
        q = q.transpose(0, 2, 1, 3)
        k = rng.standard_normal((B, H, SK, 2 * d)).astype(np.float32)
        k = k[..., ::2]
        v = rng.standard_normal((B, H, SK, d)).astype(np.float32)
        dout = rng.standard_normal((B, H, S, d)).astype(np.float32)
        out = np.zeros((B, H, S, d), np.float32)
        lse = np.zeros((B, H, S), np.float32)
        dq = np.zeros((B, H, S, d), np.float32)
        dk = np.zeros((B, H, SK, d), np.float32)
        dv = np.zeros((B, H, SK, d), np.float32)
        forward(q, k, v, out, lse, scale)
        args = [q, k, v, out]
        refs = [memref(a) for a in args] + [memref(lse), memref(dout),
                                            memref(bias)]
        outs = [memref(a) for a in (dq, dk, dv)]
        lib._mlir_ciface_echo_attention_backward(
            *[ctypes.byref(a) for a in refs], ctypes.byref(seed_ref),
            *[ctypes.byref(a) for a in outs],
            ctypes.c_int64(np.float64(scale).view(np.int64)),
            ctypes.c_int64(0), ctypes.c_int64(0), ctypes.c_int64(0),
            ctypes.c_int64(0))
        error = lib.echoCpuGetError()
        if error:
            print("d=%d: %s" % (d, error.decode()))
            return 2 if b"does not run" in error else 1
        expected = reference(q, k, v, dout, scale)
        worst = max(rel_diff(a, e) for a, e in
                    zip((out, lse, dq, dk, dv), expected))
        ok = worst <= TOLERANCE
        failed |= not ok
        print("d=%d strided views: rel diff to f64 reference %.1e: %s" %
              (d, worst, "ok" if ok else "FAILED"))

    # One thread's forward tiles of d=72: q, k and o at least.
    least = 3 * 64 * 72 * 4
    ok = counting.peak >= least and counting.live == 0
    failed |= not ok
    print("tiles from the installed allocator: peak >= one thread's tiles: "
          "%s, none live after the calls: %s: %s" % (
              counting.peak >= least, counting.live == 0,
              "ok" if ok else "FAILED"))

    counting.exhausted = True
    q = np.ones((1, 1, 8, 16), np.float32)
    out = np.zeros_like(q)
    lse = np.zeros((1, 1, 8), np.float32)
    forward(q, q, q, out, lse, 0.25)
    lib.echoCpuErrorIsOutOfMemory.restype = ctypes.c_int
    error = (lib.echoCpuGetError() or b"").decode()
    oom = lib.echoCpuErrorIsOutOfMemory() == 1
    ok = oom and error.startswith("out of memory: fused attention")
    failed |= not ok
    print("no memory left: out-of-memory error: %s (%s): %s" % (
        oom, error.split(" bytes")[0].rsplit(" ", 1)[0],
        "ok" if ok else "FAILED"))
    counting.exhausted = False
    lib.echoCpuClearError()
    forward(q, q, q, out, lse, 0.25)
    ok = not lib.echoCpuGetError() and lib.echoCpuErrorIsOutOfMemory() == 0 \
        and np.allclose(out, 1.0)
    failed |= not ok
    print("after echoCpuClearError the next call runs: %s" %
          ("ok" if ok else "FAILED"))
    return 1 if failed else 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--child":
        return child(argv[2])
    failed = False
    for isa in ISAS:
        env = dict(os.environ, ECHO_CPU_ISA=isa, ECHO_CPU_KERNEL_THREADS="2",
                   OMP_NUM_THREADS="2")
        env.pop("ECHO_CPU_ATTENTION_BACKWARD", None)
        done = subprocess.run([sys.executable, argv[0], "--child", argv[1]],
                              env=env, capture_output=True, text=True)
        if done.returncode == 2 and isa != "baseline":
            print("%s: skipped (this CPU or build does not run it)" % isa)
            continue
        for line in done.stdout.splitlines():
            print("%s %s" % (isa, line))
        if done.returncode != 0:
            print("%s: exit %d: %s FAILED" % (isa, done.returncode,
                                             done.stderr.strip()))
            failed = True
    if failed:
        print("FAILED")
        return 1
    print("every ISA: strided views within %g; tiles counted" % TOLERANCE)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
