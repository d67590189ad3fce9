"""Data parallelism for :func:`echo.torch.compile_step` over torch.distributed.

When a process group is initialized (Gloo on CPU), every rank runs the same
compiled step on its own batch and the gradients are averaged across ranks
before the caller's optimizer runs, as DistributedDataParallel does:

* Gradients live in flat f32 buckets (about ``bucket_bytes`` each;
  parameters assigned in reverse ``named_parameters()`` order, the order in
  which the backward pass finishes them) and each ``p.grad`` is a view into
  its bucket, so the step writes its gradients straight into the buckets
  (no copy) and each bucket is one ``all_reduce`` (launched asynchronously,
  one after the other, then awaited; the sum is divided by the world size).
  The buckets are the gradients' own memory: they add no bytes.
* At the first step, when the buckets are made, rank 0's parameters (and
  the floating buffers given) are broadcast to every rank, as
  DistributedDataParallel does at construction, so that ranks whose models
  were initialized differently (other seeds) train rank 0's model; the
  ranks first compare their parameters' shapes.
* At the first step every rank compares a digest of its compiled step (the
  step's hash and the bucket layout) with every other's and stops with an
  error naming the ranks that differ, so that ranks never average gradients
  of different programs.
* A rank that dies or stalls makes the others' collective fail (Gloo
  reports the closed connection, or the process group's timeout strikes):
  the step raises instead of hanging.
"""

import hashlib

import torch
import torch.distributed as dist

__all__ = ["GradientBuckets", "active"]

DEFAULT_BUCKET_BYTES = 25 << 20


def active():
    """Whether the step should average gradients across ranks."""
    return (dist.is_available() and dist.is_initialized() and
            dist.get_world_size() > 1)


class GradientBuckets(object):
    """The flat gradient buckets of one module's parameters."""

    def __init__(self, params, bucket_bytes=DEFAULT_BUCKET_BYTES,
                 buffers=()):
        """Makes the buckets of ``params`` and gives every rank rank 0's
        ``params`` and floating ``buffers`` (a collective: every rank makes
        its buckets at the same step)."""
        self.params = list(params)
        self.world = dist.get_world_size()
        self.buckets, self.views = [], {}
        layout = []
        current, size = [], 0
        for p in reversed(self.params):
            current.append(p)
            size += p.numel()
            if size * 4 >= bucket_bytes:
                layout.append((current, size))
                current, size = [], 0
        if current:
            layout.append((current, size))
        for members, size in layout:
            flat = torch.zeros(size, dtype=torch.float32)
            offset = 0
            for p in members:
                self.views[id(p)] = flat[offset:offset + p.numel()].view(
                    p.shape)
                offset += p.numel()
            self.buckets.append(flat)
        self.members = [members for members, _ in layout]
        self.layout = [[tuple(p.shape) for p in members]
                       for members in self.members]
        self.checked = False
        self._broadcast([b for b in buffers if b.is_floating_point()])

    @property
    def bytes(self):
        return sum(b.numel() * 4 for b in self.buckets)

    def attach(self):
        """Makes every ``p.grad`` its bucket view (again, after a
        ``zero_grad(set_to_none=True)``)."""
        for p in self.params:
            view = self.views[id(p)]
            if p.grad is None or p.grad.data_ptr() != view.data_ptr():
                p.grad = view

    def _broadcast(self, buffers):
        """Copies rank 0's parameters and ``buffers`` to every rank: the
        parameters through the buckets (zeros until the step writes its
        gradients into them), bucket by bucket."""
        shapes = repr([(tuple(t.shape), str(t.dtype))
                       for t in self.params + buffers])
        differ = self._differing_ranks(
            shapes, "comparing the ranks' parameter shapes")
        if differ:
            raise RuntimeError(
                "echo step: rank %d's parameters or buffers have other "
                "shapes than those of rank(s) %s: every rank must build the "
                "same model" % (dist.get_rank(), differ))
        rank = dist.get_rank()

        def run():
            with torch.no_grad():
                for members, flat in zip(self.members, self.buckets):
                    if rank == 0:
                        for p in members:
                            self.views[id(p)].copy_(p)
                    dist.broadcast(flat, 0)
                    if rank != 0:
                        for p in members:
                            p.copy_(self.views[id(p)])
                    flat.zero_()
                for b in buffers:
                    t = b if b.is_contiguous() else b.contiguous()
                    dist.broadcast(t, 0)
                    if t is not b:
                        b.copy_(t)
        self._collective(run, "broadcasting rank 0's parameters")

    def _differing_ranks(self, text, what):
        """The ranks whose ``text`` (hashed) differs from this rank's."""
        digest = hashlib.sha1(text.encode())
        mine = torch.tensor(list(digest.digest()), dtype=torch.uint8)
        gathered = [torch.zeros_like(mine) for _ in range(self.world)]
        self._collective(lambda: dist.all_gather(gathered, mine), what)
        return [r for r, g in enumerate(gathered) if not torch.equal(g, mine)]

    def check_plan(self, step_hash):
        """Stops unless every rank runs the same step with the same
        buckets."""
        if self.checked:
            return
        differ = self._differing_ranks(step_hash + repr(self.layout),
                                       "comparing the ranks' compiled steps")
        if differ:
            raise RuntimeError(
                "echo step: rank %d runs a different compiled step (or "
                "gradient buckets) than rank(s) %s: every rank must compile "
                "the same model with the same options and shapes" % (
                    dist.get_rank(), differ))
        self.checked = True

    def reduce(self):
        """Averages every bucket across ranks."""
        def run():
            works = [dist.all_reduce(b, async_op=True) for b in self.buckets]
            for w in works:
                w.wait()
        self._collective(run, "averaging gradients across ranks")
        for b in self.buckets:
            b.div_(self.world)

    @staticmethod
    def _collective(fn, what):
        try:
            fn()
        except RuntimeError as e:
            raise RuntimeError(
                "echo step: %s failed on rank %d (a rank died, stalled past "
                "the process group's timeout, or left the group): %s" % (
                    what, dist.get_rank(), str(e).splitlines()[0])) from None
