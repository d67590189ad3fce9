"""echo-run --optimizer=momentum|adam|adamw against torch.optim (see
optimizers.test): prints one line per property.

The model is the bundled MLP (models/mlp.mlir); every argument comes from
--inputs, so PyTorch computes on the same numbers:
- one step from a state that is not zero (arguments argN.npy for the state
  too): the gradients of an --optimizer=none run, handed to torch.optim with
  that state, give the parameters and states --dump writes (the loss, the
  updated parameters, then the updated states, in argument order);
- five steps from zero state: the losses echo-run prints are PyTorch's
  (the bias corrections count steps 1 to 5).
"""
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

model, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
rng = np.random.default_rng(0)

SHAPES = [(64, 32), (64,), (64, 64), (64,), (10, 64), (10,)]
x = rng.uniform(-1, 1, (8, 32)).astype(np.float32)
labels = rng.integers(0, 10, (8,)).astype(np.int32)
params = [rng.uniform(-0.2, 0.2, s).astype(np.float32) for s in SHAPES]
FIRST_PARAM = 2  # x, labels, then the parameters
NUM_MODEL_ARGS = FIRST_PARAM + len(SHAPES)
STATES = {"momentum": ["momentum_buffer"],
          "adam": ["exp_avg", "exp_avg_sq"],
          "adamw": ["exp_avg", "exp_avg_sq"]}


def write_inputs(directory, states=None):
    os.makedirs(directory, exist_ok=True)
    arrays = [x, labels] + params + (states or [])
    for i, a in enumerate(arrays):
        np.save(os.path.join(directory, "arg%d.npy" % i), a)


def echo_run(flags, dump=None):
    cmd = ["echo-run", model, "--opt-level=0"] + flags
    if dump:
        cmd.append("--dump=" + dump)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return [float(line.split()[-1]) for line in out.stdout.splitlines()
            if line.startswith("step ")]


def outs(dump, n):
    return [np.load(os.path.join(dump, "out%d.npy" % k)) for k in range(n)]


def make(optimizer, tensors, lr, wd, hyper):
    if optimizer == "momentum":
        return torch.optim.SGD(tensors, lr=lr, momentum=hyper["momentum"],
                               weight_decay=wd)
    cls = torch.optim.Adam if optimizer == "adam" else torch.optim.AdamW
    return cls(tensors, lr=lr, betas=(hyper["beta1"], hyper["beta2"]),
               eps=hyper["eps"], weight_decay=wd)


def flags_of(optimizer, lr, wd, hyper):
    flags = ["--optimizer=" + optimizer, "--lr=%r" % lr,
             "--weight-decay=%r" % wd]
    if optimizer == "momentum":
        flags.append("--momentum=%r" % hyper["momentum"])
    else:
        flags += ["--beta1=%r" % hyper["beta1"], "--beta2=%r" % hyper["beta2"],
                  "--eps=%r" % hyper["eps"]]
    return flags


def worst(echo, ref):
    """The largest difference relative to the tensor's largest value."""
    return max(float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-30))
               for a, b in zip(echo, ref))


# Hyperparameters that f32 holds exactly: the step takes them as f32 and
# computes 1 - beta and the bias corrections from those, where PyTorch uses
# Python's doubles (with beta2 = 0.999, f32's 0.99900001 makes 1 - beta2 and
# so exp_avg_sq 1.3e-5 apart, which cancels in the parameters' update).
HYPER = {"momentum": 0.75, "beta1": 0.875, "beta2": 0.984375,
         "eps": 2.0 ** -20}
LR = 2.0 ** -5

# One step from a state that is not zero.
inputs = os.path.join(tmp, "in")
write_inputs(inputs)
echo_run(["--optimizer=none", "--inputs=" + inputs],
         dump=os.path.join(tmp, "grads"))
grads = outs(os.path.join(tmp, "grads"), 1 + len(SHAPES))[1:]
for optimizer in ("momentum", "adam", "adamw"):
    for wd in (0.0, 0.01):
        names = STATES[optimizer]
        state = []
        for p in params:
            for name in names:
                s = rng.uniform(-0.1, 0.1, p.shape).astype(np.float32)
                state.append(np.abs(s) if name == "exp_avg_sq" else s)
        directory = os.path.join(tmp, "in-%s-%g" % (optimizer, wd))
        write_inputs(directory, state)
        dump = os.path.join(tmp, "out-%s-%g" % (optimizer, wd))
        echo_run(flags_of(optimizer, LR, wd, HYPER) +
                 ["--inputs=" + directory], dump=dump)
        n = len(SHAPES)
        got = outs(dump, 1 + n + n * len(names))[1:]
        tensors = [torch.tensor(p) for p in params]
        for t, g in zip(tensors, grads):
            t.grad = torch.tensor(g)
        opt = make(optimizer, tensors, LR, wd, HYPER)
        for i, t in enumerate(tensors):
            st = opt.state[t]
            for k, name in enumerate(names):
                st[name] = torch.tensor(state[i * len(names) + k])
            if optimizer != "momentum":
                st["step"] = torch.tensor(0.0)
        opt.step()
        ref = [t.detach().numpy() for t in tensors]
        ref += [opt.state[t][name].numpy() for t in tensors for name in names]
        print("%s weight_decay=%g: one step from a state, within 1e-7: %s" % (
            optimizer, wd, worst(got, ref) <= 1e-7))

# Five steps from zero state: the losses.
for optimizer in ("momentum", "adam", "adamw"):
    losses = echo_run(flags_of(optimizer, LR, 0.01, HYPER) +
                      ["--inputs=" + inputs, "--steps=5"])
    tensors = [torch.tensor(p, requires_grad=True) for p in params]
    opt = make(optimizer, tensors, LR, 0.01, HYPER)
    ref = []
    for _ in range(5):
        h = torch.tensor(x)
        for w, b in zip(tensors[0::2], tensors[1::2]):
            h = F.linear(h, w, b)
            if w is not tensors[-2]:
                h = F.relu(h)
        loss = F.cross_entropy(h, torch.tensor(labels, dtype=torch.long))
        ref.append(float(loss))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("%s: 5 losses as PyTorch's (within 2e-6): %s" % (
        optimizer, all(abs(a - b) <= 2e-6 for a, b in zip(losses, ref))))
