"""A compiled training step as a shared library, and the cache that holds
them (what :mod:`echo.torch` loads).

``echo-run --emit-library`` links a step with the C front of
``runtime/aot/EchoStepLibrary.cpp`` into ``libechostep.so``:
:class:`StepLibrary` loads it once per process with ctypes, passes the
caller's buffers (int64 ids and labels checked and narrowed by the library)
and turns the library's failures into typed exceptions. :class:`StepCache`
keeps the libraries under ``$ECHO_CACHE_DIR`` (default
``~/.cache/echo/steps``), each with a digest of its key and bytes beside it:
an entry that is damaged, emptied or another entry's copy is rebuilt, never
loaded.
"""

import ctypes
import hashlib
import json
import os
import shutil
import tempfile
import threading
import time

import torch

__all__ = ["CompileError", "StepCache", "StepError", "StepLibrary",
           "StepOutOfMemoryError"]


class CompileError(RuntimeError):
    """The module could not be imported or its step not compiled."""


class StepError(RuntimeError):
    """A compiled step failed while it ran (the step's own message)."""


class StepOutOfMemoryError(StepError, MemoryError):
    """A compiled step ran out of memory: it was abandoned and what it had
    allocated freed; the parameters and gradients are as they were (with an
    optimizer inside, possibly partly updated)."""


class _Signature(object):
    """The step's arguments and results (the manifest echo-run compiled into
    the library: ``arg I DTYPE ROLE RANGE RANK DIMS... [ignore V]`` where
    ROLE is ``param``, ``data``, ``state``, ``seed`` or ``hyper NAME``, and
    ``out K DTYPE RANK DIMS...``)."""

    def __init__(self, text):
        self.args, self.outs = [], []
        for line in text.splitlines():
            words = line.split()
            if words and words[0] == "arg":
                hyper = None
                if words[3] == "hyper":
                    hyper = words[4]
                    del words[4]
                rank = int(words[5])
                self.args.append({"dtype": words[2], "role": words[3],
                                  "hyper": hyper, "range": int(words[4]),
                                  "shape": tuple(int(d) for d in
                                                 words[6:6 + rank])})
            elif words and words[0] == "out":
                rank = int(words[3])
                self.outs.append({"dtype": words[2], "shape": tuple(
                    int(d) for d in words[4:4 + rank])})


# Libraries loaded in this process, by path: ctypes loads a path once, so
# every Step that compiled the same step shares its library (and its lock).
_LOADED = {}
_LOADED_LOCK = threading.Lock()
# The library that ran last: the only one that keeps its arena between
# calls (the others give theirs back).
_RECENT = []


class StepLibrary(object):
    """One compiled step: libechostep.so, loaded once per process."""

    # echo_step_run's return codes.
    _OUT_OF_RANGE, _OUT_OF_MEMORY = 2, 3

    def __init__(self, directory):
        self.directory = directory
        self.lock = threading.Lock()
        self.lib = ctypes.CDLL(os.path.join(directory, "libechostep.so"))
        for name in ("echo_step_error", "echo_step_signature_text",
                     "echo_step_memory_report_text"):
            getattr(self.lib, name).restype = ctypes.c_char_p
        for name in ("echo_step_peak_bytes", "echo_step_workspace_bytes"):
            getattr(self.lib, name).restype = ctypes.c_uint64
        self.lib.echo_step_run_wide.argtypes = [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self.lib.echo_step_release.restype = None
        if self.lib.echo_step_init() != 0:
            raise CompileError("the step library %s cannot start: %s" % (
                directory, self.error()))
        text = self.lib.echo_step_signature_text().decode()
        self.signature = _Signature(text)
        self.step_hash = next((line.split()[1] for line in text.splitlines()
                               if line.startswith("step_hash ")), "")
        self.report = json.loads(
            self.lib.echo_step_memory_report_text().decode())
        self.args = (ctypes.c_void_p * len(self.signature.args))()
        self.wide = (ctypes.c_ubyte * len(self.signature.args))()
        self.outs = (ctypes.c_void_p * len(self.signature.outs))()
        # What the last run measured (Step.memory_report).
        self.measured = None

    @staticmethod
    def load(directory):
        path = os.path.realpath(directory)
        with _LOADED_LOCK:
            library = _LOADED.get(path)
            if library is None:
                library = StepLibrary(directory)
                _LOADED[path] = library
            return library

    def error(self):
        return self.lib.echo_step_error().decode()

    def record_measured(self, arg_tensors, out_tensors):
        """What the last run measured, with the bytes of the arguments and
        results it was given, as the step takes them (int64 ids narrowed
        to its i32: 4 bytes an element)."""
        sizes = {"f32": 4, "i32": 4, "i64": 8}
        args = sum(t.numel() * sizes[a["dtype"]] for t, a in
                   zip(arg_tensors, self.signature.args))
        self.measured = {
            "measured_step_peak_bytes": int(self.lib.echo_step_peak_bytes()),
            "argument_and_result_bytes": args + sum(
                t.numel() * t.element_size() for t in out_tensors),
            "library_workspace_bytes":
                int(self.lib.echo_step_workspace_bytes())}

    def run(self, arg_tensors, out_tensors, describe):
        """Runs the step on the tensors' buffers (int64 tensors where the
        step takes i32 ids are checked and narrowed by the library);
        ``describe(i)`` names argument ``i`` in errors."""
        with self.lock:
            for i, t in enumerate(arg_tensors):
                self.args[i] = t.data_ptr()
                self.wide[i] = t.dtype == torch.int64 and \
                    self.signature.args[i]["dtype"] == "i32"
            for i, t in enumerate(out_tensors):
                self.outs[i] = t.data_ptr()
            status = self.lib.echo_step_run_wide(self.args, self.wide,
                                                 self.outs)
            if _RECENT and _RECENT[0] is not self:
                _RECENT[0].release()
            _RECENT[:] = [self]
            if status == 0:
                return
            message = self.error()
        if status == self._OUT_OF_RANGE:
            # "argument N: ..." -> the caller's name for argument N.
            head, _, rest = message.partition(":")
            words = head.split()
            if len(words) == 2 and words[1].isdigit():
                message = describe(int(words[1])) + ":" + rest
            raise IndexError("echo step: " + message)
        if status == self._OUT_OF_MEMORY:
            raise StepOutOfMemoryError("echo step: " + message)
        raise StepError("echo step: " + message)

    def release(self):
        """Gives back the memory the library keeps between calls."""
        self.lib.echo_step_release()


def _entry_digest(key, path):
    """The digest of a cache entry: its key, then its library's bytes (a
    library copied from another entry does not match)."""
    digest = hashlib.sha256(key.encode() + b"\0")
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _process_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class StepCache(object):
    """The step cache: ``<dir>/<key>/libechostep.so`` with the digest of
    the key and the library in ``libechostep.so.sha256`` (written last: an
    entry without it, or whose library does not match it, is damaged and
    rebuilt before anything loads it), built in
    ``<dir>/.build-*`` (each with the builder's pid: one whose process is
    gone is removed)."""

    LIBRARY = "libechostep.so"
    DIGEST = "libechostep.so.sha256"

    def __init__(self):
        self.root = os.environ.get("ECHO_CACHE_DIR") or os.path.join(
            os.path.expanduser("~"), ".cache", "echo", "steps")

    def prepare(self):
        try:
            os.makedirs(self.root, exist_ok=True)
        except OSError as e:
            raise CompileError("the step cache %s cannot be made: %s (set "
                               "$ECHO_CACHE_DIR to a writable directory)" % (
                                   self.root, e.strerror or e)) from None
        if not os.path.isdir(self.root) or not os.access(self.root,
                                                         os.W_OK | os.X_OK):
            raise CompileError("the step cache %s is not a writable "
                               "directory (set $ECHO_CACHE_DIR)" % self.root)
        self.remove_abandoned()

    def remove_abandoned(self):
        """Removes build directories whose builder is gone (a compile that
        was killed)."""
        for name in os.listdir(self.root):
            if not name.startswith(".build-"):
                continue
            path = os.path.join(self.root, name)
            try:
                with open(os.path.join(path, "pid")) as f:
                    pid = int(f.read().strip())
            except (OSError, ValueError):
                pid = None
            if pid is not None and _process_alive(pid):
                continue
            if pid is None:
                # No pid yet: a builder that has just started, or one
                # killed before writing it; only the old ones go.
                try:
                    if time.time() - os.path.getmtime(path) < 3600:
                        continue
                except OSError:
                    continue
            shutil.rmtree(path, ignore_errors=True)

    def entry(self, key):
        """The directory of ``key`` if it holds an intact library, else
        None (a damaged entry is removed)."""
        directory = os.path.join(self.root, key)
        library = os.path.join(directory, self.LIBRARY)
        try:
            with open(os.path.join(directory, self.DIGEST)) as f:
                expected = f.read().strip()
            if _entry_digest(key, library) == expected:
                return directory
        except OSError:
            if not os.path.lexists(directory):
                return None
        shutil.rmtree(directory, ignore_errors=True)
        if os.path.lexists(directory):
            try:
                os.remove(directory)  # a file where the entry should be
            except OSError:
                pass
        return None

    def build(self, key, compile_into):
        """Builds the entry of ``key`` with ``compile_into(work_dir)``
        (which leaves work_dir/step/libechostep.so), installs it and
        returns its directory."""
        work = tempfile.mkdtemp(dir=self.root, prefix=".build-")
        try:
            with open(os.path.join(work, "pid"), "w") as f:
                f.write(str(os.getpid()))
            step = compile_into(work)
            with open(os.path.join(step, self.DIGEST), "w") as f:
                f.write(_entry_digest(key, os.path.join(step,
                                                         self.LIBRARY)))
            directory = os.path.join(self.root, key)
            try:
                os.rename(step, directory)
            except OSError:  # another process built it first
                if self.entry(key) is None:
                    raise
            return directory
        except OSError as e:
            raise CompileError("the step cache %s: %s" % (
                self.root, e)) from None
        finally:
            shutil.rmtree(work, ignore_errors=True)


