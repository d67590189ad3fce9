#!/usr/bin/python3
"""Recomputation benchmark at paper-like sizes (not a test; writes JSON).

Builds the NMT, Transformer, ResNet and DeepSpeech2 models at the sizes
below with python/echo/models.py, runs `echo-opt --echo-autodiff
--echo-recompute=strategy=S --echo-memory-report` for none, mirror,
sublinear and echo, and writes bench/results/recompute.json and the table
in docs/results.md. It also times echo-recompute (MLIR's pass timing) on
chains of unrolled LSTM steps of 10,000 to 50,000 ops.

Usage: bench/recompute.py [--build build]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from echo import models  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "bench"))
import machine  # noqa: E402

STRATEGIES = ["none", "mirror", "sublinear", "echo"]
ALG1 = "echo_heavy_budget_0"

# Paper-like configurations (Echo, ISCA 2020, Section VI). The NMT target
# vocabulary follows IWSLT15 En-Vi (~8k); ResNet-50-like uses basic blocks
# (our builder has no bottlenecks) with ResNet-50's 3-4-6-3 depth at 224².
# The paper's Transformer is Sockeye's (dropout on sublayer outputs,
# attention probabilities and the feed-forward activation, 0.1 each) and
# its DeepSpeech2 is MXNet's example (bidirectional GRUs); the rows marked
# "variant" keep our earlier, leaner configurations for comparison.
# name: (builder, keyword arguments, the paper's model it stands for)
CONFIGS = {
    "nmt": ("nmt", dict(batch=128, src_len=50, tgt_len=50, vocab=8000,
                        embed=512, hidden=512, attention=512, dropout=0.3),
            "nmt"),
    "transformer": ("transformer", dict(batch=32, seq=128, d_model=512,
                                        heads=8, ff=2048, layers=6,
                                        vocab=8000, dropout=0.1,
                                        attention_dropout=0.1,
                                        act_dropout=0.1), "transformer"),
    "transformer (variant: sublayer dropout only)": (
        "transformer", dict(batch=32, seq=128, d_model=512, heads=8, ff=2048,
                            layers=6, vocab=8000, dropout=0.1),
        "transformer"),
    "resnet": ("resnet", dict(batch=32, channels=64, image=224, blocks=3,
                              classes=1000, stages=4), "resnet"),
    "deepspeech2": ("deepspeech2", dict(batch=32, freq=161, time=200,
                                        channels=32, hidden=800,
                                        classes=29, rnn_layers=5,
                                        bidirectional=True, cell="gru"),
                    "deepspeech2"),
    "deepspeech2 (variant: tanh RNN)": (
        "deepspeech2", dict(batch=32, freq=161, time=200, channels=32,
                            hidden=800, classes=29, rnn_layers=5,
                            bidirectional=True), "deepspeech2"),
}
TARGETS = {"nmt": 3.0, "transformer": 1.6, "resnet": 2.0, "deepspeech2": 1.5}
PAPER = {"nmt": 3.13, "transformer": 1.59, "resnet": 2.13, "deepspeech2": 1.56}


def build_model(builder, kwargs, path):
    text = getattr(models, builder)(**kwargs)
    with open(path, "w") as f:
        f.write(text)


def report(echo_opt, model, strategy, options=""):
    out = subprocess.run(
        [echo_opt, model, "--echo-autodiff",
         f"--echo-recompute=strategy={strategy}{options}",
         "--echo-memory-report", "--mlir-timing", "-o", os.devnull],
        check=True, capture_output=True, text=True)
    r = json.loads(out.stdout)[0]
    r.pop("timeline")
    m = re.search(r"([0-9.]+) \([ 0-9.]+%\)\s+EchoRecompute", out.stderr)
    r["recompute_pass_ms"] = float(m.group(1)) * 1e3 if m else None
    return r


def count_ops(path):
    return sum(1 for line in open(path) if '= "echo.' in line)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--section", choices=sorted(SECTIONS),
                    help="only replace this section of docs/results.md, "
                         "from bench/results/ (no benchmark runs)")
    args = ap.parse_args()
    if args.section:
        replace_section(SECTIONS[args.section](),
                        after=SECTION_AFTER.get(args.section))
        return
    echo_opt = os.path.join(args.build, "bin", "echo-opt")
    results = {"machine": machine.for_bench(), "models": {}, "scaling": []}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (builder, kwargs, paper) in CONFIGS.items():
            path = os.path.join(tmp, builder + ".mlir")
            build_model(builder, kwargs, path)
            entry = {"config": kwargs, "paper_model": paper,
                     "forward_ops": count_ops(path)}
            for s in STRATEGIES:
                entry[s] = report(echo_opt, path, s)
            # Algorithm 1 as written: no compute-heavy op re-run.
            entry[ALG1] = report(echo_opt, path, "echo", " heavy-budget=0")
            none = entry["none"]["peak_live_bytes"]
            for s in STRATEGIES + [ALG1]:
                r = entry[s]
                r["reduction"] = none / r["peak_live_bytes"]
                step = r["forward_flops"] + r["backward_flops"]
                r["recompute_share"] = r["recompute_flops"] / step
            results["models"][name] = entry
            print(name, {s: round(entry[s]["reduction"], 2) for s in STRATEGIES},
                  file=sys.stderr)
        # Scaling of the pass: unrolled LSTMs of growing length.
        for seq_len in [50, 100, 200, 250]:
            path = os.path.join(tmp, f"lstm{seq_len}.mlir")
            build_model("lstm", dict(batch=16, seq_len=seq_len, input=64,
                                     hidden=64, classes=10, layers=4), path)
            r = report(echo_opt, path, "echo")
            step_ops = subprocess.run(
                [echo_opt, path, "--echo-autodiff", "--mlir-print-op-generic"],
                check=True, capture_output=True, text=True).stdout.count(
                    '= "echo.')
            results["scaling"].append({"seq_len": seq_len,
                                       "train_step_ops": step_ops,
                                       "recompute_pass_ms": r["recompute_pass_ms"]})
            print("scaling", results["scaling"][-1], file=sys.stderr)

    out_dir = os.path.join(ROOT, "bench", "results")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "recompute.json"), "w") as f:
        json.dump(results, f, indent=2)
    write_markdown(results)


def write_markdown(results):
    mib = 1 << 20
    lines = [
        "# Results",
        "",
        "Generated by `bench/recompute.py` (and `bench/cpu_step.py`); do not",
        "edit by hand. Memory is Echo's static estimate (`echo-memory-report`,",
        "`peak_live_bytes`: tensors live from definition to last use in op",
        "order, parameters and data included), not a GPU measurement.",
    ]
    lines += machines_markdown()
    lines += [
        "",
        "## Recomputation at paper-like sizes",
        "",
        "| model | forward ops | none MiB | mirror MiB | sublinear MiB | echo MiB "
        "| echo reduction (target, paper) | echo recompute FLOPs | echo, "
        "heavy-budget=0 | sublinear recompute FLOPs |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, e in results["models"].items():
        cells = [name, str(e["forward_ops"])]
        cells += ["%.0f" % (e[s]["peak_live_bytes"] / mib) for s in STRATEGIES]
        paper = e["paper_model"]
        cells.append("**%.2f×** (≥ %.1f×, %.2f×)" % (
            e["echo"]["reduction"], TARGETS[paper], PAPER[paper]))
        cells.append("%.2f%%" % (100 * e["echo"]["recompute_share"]))
        alg1 = e[ALG1]
        cells.append("%.0f MiB, %.2f×, %.2f%%" % (
            alg1["peak_live_bytes"] / mib, alg1["reduction"],
            100 * alg1["recompute_share"]))
        cells.append("%.1f%%" % (100 * e["sublinear"]["recompute_share"]))
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["",
              "echo re-runs a compute-heavy op (an attention's q·kᵀ, "
              "ResNet's stem convolution)",
              "only within `heavy-budget` (default 1% of the step's FLOPs); "
              "the column",
              "`heavy-budget=0` is the paper's Algorithm 1 as written, which "
              "never re-runs one.",
              "", "Configurations:", ""]
    for name, e in results["models"].items():
        cfg = ", ".join(f"{k}={v}" for k, v in e["config"].items())
        lines.append(f"- {name}: {cfg}")
    lines += ["", "## echo-recompute compile time", "",
              "Measured on %s." % machine_text(results), "",
              "| training-step ops | echo-recompute ms |", "|---|---|"]
    for s in results["scaling"]:
        lines.append("| %d | %.1f |" % (s["train_step_ops"],
                                         s["recompute_pass_ms"]))
    lines += compile_scaling_markdown()
    plan = os.path.join(ROOT, "bench", "results", "plan_buffers.json")
    if os.path.exists(plan):
        lines += plan_markdown(json.load(open(plan)))
    lines += cpu_step_markdown()
    lines += cpu_paper_markdown()
    lines += memory_categories_markdown()
    lines += recompute_time_markdown()
    lines += chunk_loss_markdown()
    lines += side_by_side_markdown()
    lines += conv_side_by_side_markdown()
    lines += memory_side_by_side_markdown()
    lines += budget_markdown()
    lines += numerics_markdown()
    lines += train_examples_markdown()
    lines += import_zoo_markdown()
    lines += gpu_markdown()
    with open(os.path.join(ROOT, "docs", "results.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def machine_text(results, full=False):
    """The machine a results file was measured on, for the text beside its
    figures: bench/machine.py's record (summary, date, measured figures), or
    the note added after the fact to results that predate the records (in
    full, or pointing to the Machines section)."""
    rec = results.get("machine") if isinstance(results, dict) else None
    if not rec:
        return "a machine not recorded"
    if isinstance(rec, str):  # before the record: platform.processor()
        return rec
    if "summary" not in rec and "recorded" not in rec:  # the bench's own
        return "%s, %s cores" % (rec.get("cpu", "a CPU"),
                                 rec.get("cores", "?"))
    if "summary" not in rec:
        return "%s (%s)" % (rec["cpu"], rec["recorded"] if full else
                            "recorded after the fact; see Machines")
    date = (rec.get("at_run") or rec.get("measured") or {}).get("date", "")
    text = rec["summary"] + (", " + date[:10] if date else "")
    if rec.get("measured", {}).get("fma_peak_gflops"):
        text += "; " + machine.peaks(rec)
    return text


def machines_markdown():
    """Which machine each results file was measured on."""
    lines = ["", "## Machines", "",
             "Each results file names the machine it was measured on "
             "(`\"machine\"`: bench/machine.py's record, with the measured "
             "FMA peak, OpenBLAS's SGEMM and the triad bandwidth; results "
             "older than the record carry a note made after the fact). Times "
             "depend on it; bytes, FLOPs and ratios measured within one run "
             "travel.", "", "| results | machine |", "|---|---|"]
    directory = os.path.join(ROOT, "bench", "results")
    for name in sorted(os.listdir(directory)):
        if name.endswith(".json"):
            lines.append("| `bench/results/%s` | %s |" % (
                name, machine_text(load_result(name[:-5]), full=True)))
    return lines


def cpu_step_markdown():
    """The CPU step section (bench/cpu_step.py's JSON)."""
    c = load_result("cpu_step")
    if c is None:
        return []
    lines = ["", "## CPU step time (bundled models, `bench/cpu_step.py`)", "",
             "Measured on %s. Step time: the fastest of %d runs' median of "
             "%d steps. Share of peak: the step's GFLOP/s over the machine's "
             "measured FMA peak (fp32 FMAs on all cores, `bench/machine.py`); "
             "vs SGEMM: over bare OpenBLAS SGEMM calls at the same N, "
             "measured before each run (the best of them)."
             % (machine_text(c), c.get("repeat", 1), c["steps"]), "",
             "| workload | step time ms | GFLOP/s | share of the measured peak"
             " | vs OpenBLAS SGEMM | compile ms |", "|---|---|---|---|---|---|"]
    for name, r in c["models"].items():
        lines.append("| %s | %.3f | | | | |" % (name, r["step_time_ms"]))
    for key, r in c.items():
        if key.startswith("linear_"):
            _, n, calls = key.split("_")
            lines.append("| linear %s³, %s GEMMs | %.1f | %.1f | %.0f%% | %s |"
                         " %.0f |" % (n, calls, r["step_time_ms"],
                                      r["gflops_per_s"],
                                      100 * r["share_of_peak"],
                                      "%.2f×" % r["over_openblas_sgemm"]
                                      if "over_openblas_sgemm" in r else "",
                                      r["compile_ms"]))
    return lines


def replace_section(section, after=None, path=None):
    """Replaces the section of docs/results.md whose heading is
    `section[0]` (a list of lines, the heading first) up to the next
    `## ` heading, leaving the others as they are; a section not there yet
    goes after the section whose heading starts with `after` (else at the
    end). What the benches call to refresh their own section."""
    path = path or os.path.join(ROOT, "docs", "results.md")
    with open(path) as f:
        lines = f.read().rstrip("\n").split("\n")

    def end_of(start):
        return next((i for i in range(start + 1, len(lines))
                     if lines[i].startswith("## ")), len(lines))

    body = list(section)
    while body and body[0] == "":
        body.pop(0)
    while body and body[-1] == "":
        body.pop()
    if body[0] in lines:
        start = lines.index(body[0])
        lines[start:end_of(start)] = body + [""]
    else:
        anchor = [i for i, l in enumerate(lines)
                  if after and l.startswith(after)]
        at = end_of(anchor[0]) if anchor else len(lines)
        lines[at:at] = body + [""]
    while lines and lines[-1] == "":
        lines.pop()
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def load_result(name):
    """bench/results/<name>.json, or None where that benchmark has not run."""
    path = os.path.join(ROOT, "bench", "results", name + ".json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def paper_machines_text(c):
    """The machines of bench/cpu_paper.py's rows: one, or each model's
    (rows are stamped with their machine's key when runs of some models
    were made on another machine than the others)."""
    machines = c.get("machines") or {}
    keys = {}
    for name, e in c["models"].items():
        for r in e.values():
            if isinstance(r, dict) and r.get("machine_key"):
                keys.setdefault(r["machine_key"], []).append(name)
    if len(keys) < 2:
        return machine_text(c)
    return "; ".join(
        "%s: %s" % (", ".join(sorted(set(names))),
                    machine_text({"machine": machines.get(key)}))
        for key, names in keys.items())


def cpu_paper_markdown():
    """The paper-size CPU runs of bench/cpu_paper.py, if measured."""
    c = load_result("cpu_paper")
    if c is None:
        return []
    mib = 1024 * 1024
    lines = ["", "## Paper-size steps on the CPU (`bench/cpu_paper.py`)", "",
             "Real executions (`echo-run`, JIT; GEMMs in OpenBLAS, "
             "convolutions in oneDNN; %d cores), median of %d steps. "
             "Compile time is the MLIR pipelines plus LLVM's optimization and "
             "code generation. Memory: the bytes the step measured "
             "(`measured_peak_bytes`: parameters, data, gradients, the "
             "arena, oneDNN's workspace, all counted by one allocator), "
             "none's measured bytes over the strategy's, the tensor-level "
             "estimate (`peak_live_bytes`) and the planned arena; "
             "recompute FLOPs as a share of the step's FLOPs. Measured on "
             "%s." % (c["cores"], c["steps"], paper_machines_text(c)), "",
             "| model | strategy | compile s (MLIR + LLVM) | step s | "
             "step / none | measured MiB | none / this | estimate MiB | "
             "arena MiB | recompute % | first loss |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, e in c["models"].items():
        none = e.get("none")
        for strategy in STRATEGIES + ["echo loss whole", "echo bf16",
                                      "budget+both"]:
            r = e.get(strategy)
            if not r:
                continue
            if "error" in r:
                lines.append("| %s | %s | %s |" % (name, strategy,
                                                   r["error"]) + " |" * 8)
                continue
            measured = r.get("measured_peak_bytes")
            lines.append("| %s | %s | %.1f (%.1f + %.1f) | %.2f | %s | %s |"
                         " %s | %.0f | %s | %.2f | %.6f |" % (
                             name, strategy, r["compile_ms"] / 1e3,
                             r["compile_mlir_ms"] / 1e3,
                             r["compile_llvm_ms"] / 1e3,
                             r["step_time_ms"] / 1e3,
                             "%.2f" % (r["step_time_ms"] /
                                       none["step_time_ms"]) if none else "",
                             "%.0f" % (measured / mib) if measured else "-",
                             "%.2f×" % (none["measured_peak_bytes"] / measured)
                             if none and measured else "",
                             r["peak_live_bytes"] / mib,
                             "%.0f" % (r["planned_bytes"] / mib)
                             if r["planned_bytes"] else "-",
                             100.0 * r["recompute_flops"] /
                             (r["forward_flops"] + r["backward_flops"]),
                             r["losses"][0]))
    lines += ["", "Where the measured factor (none / echo) falls short of the "
              "estimate's, the timelines below show why. The plan of `none` "
              "is already below its estimate where elementwise chains fuse: "
              "`echo-fuse-elementwise` fuses a cheap producer into its "
              "backward consumer when that keeps no input alive longer, "
              "which recomputes it for free and takes it out of none's stash "
              "too (NMT's LSTM gates). And gradients are the caller's "
              "out-parameters, live for the whole planned step but counted "
              "by the tensor-level estimate only from where they are "
              "computed. So echo decides on the plan: its 3 best estimated "
              "candidates and the step as it is are lowered by the "
              "pipeline's own bufferization phase and compared on step "
              "bytes (`compare-plans`, echo-pipeline's option; on NMT that "
              "picks a plan 1.1% smaller than the estimate's favourite, "
              "elsewhere the same one). Each comparison costs one "
              "bufferization of the step: that is most of the difference "
              "between echo's MLIR compile time and none's (DeepSpeech2: "
              "~45 s of 70 s; `compare-plans=0` decides on the estimate). "
              "DeepSpeech2's echo stays above sublinear's bytes, which "
              "recomputes 28% of the step's FLOPs; echo keeps to 1%.",
              "",
              "Against the targets (none / echo on measured bytes, recompute "
              "≤ 1% of the step's FLOPs): ResNet meets its ≥ 2.5×; NMT, the "
              "Transformer and DeepSpeech2 miss theirs (≥ 3.5×, ≥ 1.8×, "
              "≥ 1.7×), by the factors in the table. On NMT no plan can: "
              "3.5× below none's 1,333,489,156 B is 381 MB, and the "
              "parameters, their gradients and the data alone take "
              "150,922,756 B (the plan's `argument_bytes`) while the output "
              "layer's logits ([6400, 8000] f32) are 204,800,000 B live at "
              "the loss in any plan that keeps the model's single output "
              "projection. That leaves 25 MB for every value the backward "
              "pass needs: less than two of the [50, 128, 512] encoder "
              "tensors (13.1 MB each) the attention reads at every decoder "
              "step. Sublinear, recomputing 32% of the step, measures 495 "
              "MiB; the budget strategy's smallest NMT step, at any "
              "recompute, is in the budget section below."]
    timelines = [m for m in c["models"]
                 if os.path.exists(os.path.join(ROOT, "docs", "timelines",
                                                m + ".png"))]
    if timelines:
        lines += ["", "Memory over the step, none and echo: the plan as a "
                  "stacked area per memory category (what the step "
                  "allocates at each op: arena slots by the category of the "
                  "buffer each holds, plus parameters, data and results; "
                  "see the section on memory by category) and the "
                  "tensor-level estimate's total (dashed; "
                  "`bench/timelines.py`):", ""]
        lines += ["![%s](timelines/%s.png)" % (m, m) for m in timelines]
    if c.get("scaling"):
        lines += ["", "Compile time against the number of ops (unrolled "
                  "4-layer LSTMs, B=32, H=128, strategy echo):", "",
                  "| seq_len | ops | MLIR s | LLVM s |", "|---|---|---|---|"]
        for r in c["scaling"]:
            lines.append("| %d | %d | %.1f | %.1f |" % (
                r["seq_len"], r["train_step_ops"],
                r["compile_mlir_ms"] / 1e3, r["compile_llvm_ms"] / 1e3))
    return lines


def chunk_loss_markdown():
    """The chunked loss at paper size (bench/chunk_loss.py), if measured."""
    c = load_result("chunk_loss")
    if c is None or "models" not in c:
        return []
    mib = 1 << 20
    lines = [
        "", "## Chunked output layer and loss (`chunk-loss=`, "
        "`bench/chunk_loss.py`)", "",
        "The paper-size NMT computes logits [6400, 8000] f32 (204.8 MB) at "
        "its loss, the Transformer [4096, 8000] (131.1 MB); whole, they and "
        "their gradient are the floor of every recompute plan. "
        "`chunk-loss=` computes them in row chunks where their gradient is "
        "formed: each chunk's logits give the chunk's terms of the loss and "
        "its gradient, read chunk by chunk (dx by rows, dW and db summed), "
        "so the output layer runs once and nothing is recomputed. echo "
        "chunks by default (`auto`: where the estimated peak drops, in the "
        "fewest chunks within 1%% of the best saving); `echo, loss whole` is "
        "echo with `--chunk-loss=off`, `none, chunked` none in echo's "
        "chunks. Real executions (`echo-run`, JIT, OpenBLAS) on %s; each "
        "run %d times, alternating, its step time the fastest of the "
        "medians of %d steps; results against none's: the loss and every "
        "gradient after one step, how many are bitwise equal and the "
        "largest difference of the others, relative to the result's norm "
        "or, for a gradient that is zero up to rounding (an attention "
        "key's bias), to 1%% of the step's RMS gradient." % (
            machine_text(c), c["repeats"], c["steps"]), ""]
    for name, m in c["models"].items():
        runs = m["runs"]
        none = runs["none"]
        lines += [
            "%s (%s):" % (name, ", ".join("%s=%s" % kv
                                         for kv in m["config"].items())),
            "",
            "| run | chunks | logits bytes saved | estimate MiB | planned "
            "step MiB | measured MiB | none / this | step s | step / none | "
            "recompute % | compile s | against none |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for run in ["none", "none, chunked", "echo, loss whole", "echo"]:
            r = runs.get(run)
            if not r:
                continue
            step = r["forward_flops"] + r["backward_flops"]
            against = r.get("against_none")
            lines.append(
                "| %s | %d | %d | %.0f | %.1f | %.1f | %.2f× | %.2f | %.2f | "
                "%.2f | %.1f | %s |" % (
                    run, r["loss_chunks"], r["logits_bytes_saved"],
                    r["peak_live_bytes"] / mib, r["step_bytes"] / mib,
                    r["measured_peak_bytes"] / mib,
                    none["measured_peak_bytes"] / r["measured_peak_bytes"],
                    r["step_time_ms"] / 1e3,
                    r["step_time_ms"] / none["step_time_ms"],
                    100 * r["recompute_flops"] / step, r["compile_ms"] / 1e3,
                    "—" if against is None else
                    "%d of %d bitwise, worst %.1e" % (
                        against["bitwise"], against["results"],
                        against["worst_relative"])))
        echo, whole = runs["echo"], runs["echo, loss whole"]
        cats = echo.get("categories") or {}
        lines += [
            "", "%s: echo measures %.1f MiB with the loss chunked against "
            "%.1f MiB with it whole (%.2f× below none, from %.2f×), at %.2f%% "
            "recompute FLOPs and %.2f× none's step time. At echo's measured "
            "peak: %s." % (
                name, echo["measured_peak_bytes"] / mib,
                whole["measured_peak_bytes"] / mib,
                none["measured_peak_bytes"] / echo["measured_peak_bytes"],
                none["measured_peak_bytes"] / whole["measured_peak_bytes"],
                100 * echo["recompute_flops"] /
                (echo["forward_flops"] + echo["backward_flops"]),
                echo["step_time_ms"] / none["step_time_ms"],
                ", ".join("%s %.1f MiB" % (k, v / mib)
                          for k, v in sorted(cats.items(),
                                             key=lambda kv: -(kv[1] or 0))
                          if v))]
        target = {"nmt": 3.5, "transformer": 1.8}.get(name)
        if (cats.get("parameters") and target and
                none["measured_peak_bytes"] / echo["measured_peak_bytes"] <
                target):
            # What no plan of this step can go below: the parameters, the
            # data, and the gradients the step returns (the caller's
            # buffers, as large as the parameters, live for the whole step).
            fixed = 2 * cats["parameters"] + (cats.get("data") or 0)
            lines[-1] += (
                " The target, %.1f× below none, would be %.1f MiB; the "
                "parameters, the "
                "data and the gradients the step returns (the caller's "
                "buffers, live for the whole step) take %.1f MiB of any "
                "plan, which leaves %.1f MiB for what the backward pass "
                "holds at its start, against %.1f MiB in echo's plan." % (
                    target, none["measured_peak_bytes"] / target / mib,
                    fixed / mib,
                    (none["measured_peak_bytes"] / target - fixed) / mib,
                    (echo["measured_peak_bytes"] - fixed) / mib))
        lines.append("")
    return lines


def side_by_side_markdown():
    """Echo beside PyTorch eager (bench/peers/cpu_side_by_side.py)."""
    c = load_result("cpu_side_by_side")
    if c is None:
        return []
    lines = ["", "## Echo beside PyTorch on the CPU "
             "(`bench/peers/cpu_side_by_side.py`)", "",
             "The same model in PyTorch %s (bench/peers/torch_models.py), the "
             "same initial weights and data (.npy), %d threads, %d SGD steps "
             "each, one after the other in one run, on %s. Losses with "
             "dropout off show the computation is the same; times are with "
             "dropout." % (c["torch"], c["threads"], c["steps"],
                           machine_text(c)), "",
             "| model | loss rel. diff (dropout off) | Echo none s | "
             "Echo echo s | PyTorch eager s | Echo / PyTorch | echo / none |"
             " Echo compile s |", "|---|---|---|---|---|---|---|---|"]
    for name, e in c["models"].items():
        t = e["timed"]
        lines.append("| %s | %.1e | %.2f | %.2f | %.2f | %.2f | %.2f | %.1f |"
                     % (name, e["max_loss_rel_diff"],
                        t["echo_none"]["step_time_ms"] / 1e3,
                        t["echo_echo"]["step_time_ms"] / 1e3,
                        t["torch_eager"]["step_time_ms"] / 1e3,
                        e["echo_over_torch"], e["echo_strategy_over_none"],
                        t["echo_none"]["compile_ms"] / 1e3))
    return lines


def conv_side_by_side_markdown():
    """Convolutional steps beside PyTorch (bench/peers/conv_side_by_side.py)."""
    c = load_result("conv_side_by_side")
    if c is None:
        return []
    mib = 1 << 20
    runs = c["runs"]
    lines = ["", "## Convolutions beside PyTorch on the CPU "
             "(`bench/peers/conv_side_by_side.py`)", "",
             "%s (%d classes), batch %d of 3×%d×%d, imported into Echo with "
             "its initial weights and one batch; PyTorch %s eager on the same "
             "module and data; forward, cross-entropy, backward and SGD per "
             "step on both sides, %d threads each, on %s. Step: the fastest "
             "of %d runs' median of %d steps, the runs alternating. Echo's "
             "convolutions run in the layouts oneDNN chooses (its direct "
             "kernels on blocked copies, reordered at each call: the "
             "default) or on the step's plain NCHW buffers "
             "(`ECHO_CPU_CONV_LAYOUT=plain`, where oneDNN picks im2col GEMMs "
             "for most). Echo's generated kernels of 65,536 iterations or "
             "more run split across the threads (OpenMP's team, the one "
             "oneDNN uses), or on one (`ECHO_CPU_KERNEL_THREADS=1`). The "
             "bf16 rows: Echo's echo with `--precision=bf16` (oneDNN's bf16 "
             "convolutions and GEMMs, f32 master weights) and PyTorch eager "
             "under `torch.autocast(\"cpu\", bfloat16)`; their ratio to "
             "each other is in the last column." % (c["model"], c["classes"], c["batch"],
                             c["image"], c["image"], c["torch"], c["threads"],
                             machine_text(c), c["repeats"], c["steps"]), "",
             "| run | step ms | / PyTorch eager | measured MiB | library "
             "workspace MiB | first loss | / PyTorch bf16 |",
             "|---|---|---|---|---|---|---|"]
    for name, r in runs.items():
        lines.append("| %s | %.0f | %.2f | %s | %s | %.6f | %s |" % (
            name, r["step_time_ms"], r["over_pytorch"],
            "%.1f" % (r["measured_peak_bytes"] / mib)
            if r.get("measured_peak_bytes") else "—",
            "%.1f" % (r["library_workspace_bytes"] / mib)
            if r.get("library_workspace_bytes") is not None else "—",
            r["losses"][0],
            "%.2f" % r["over_pytorch_bf16"] if "over_pytorch_bf16" in r
            else "—"))
    b = c.get("onednn_breakdown")
    if b:
        prims = sorted(b["primitives"].items(),
                       key=lambda kv: -kv[1]["ms_per_step"])
        total = sum(p["ms_per_step"] for _, p in prims)
        lines += ["", "Where Echo's step (none, chosen layouts) spends its "
                  "time: oneDNN's own execution times (`ONEDNN_VERBOSE=1`, "
                  "one more run, its median step %.0f ms): %s; %.0f ms in "
                  "all, the rest (%.0f ms) is Echo's generated kernels "
                  "(batch norm, ReLU, residual adds, pooling, the loss) and "
                  "the OpenBLAS GEMM of the classifier." % (
                      b["step_time_ms"],
                      ", ".join("%s %.0f ms (%.0f calls)" % (
                          k, p["ms_per_step"], p["calls_per_step"])
                          for k, p in prims),
                      total, b["step_time_ms"] - total)]
    return lines


def memory_side_by_side_markdown():
    """Measured bytes, Echo and PyTorch (bench/peers/torch_memory.py)."""
    c = load_result("memory_side_by_side")
    if c is None:
        return []
    mib = 1024 * 1024
    lines = ["", "## Measured memory beside PyTorch "
             "(`bench/peers/torch_memory.py`)", "",
             "Peak bytes of one training step (forward, backward, "
             "gradients; parameters and data included), same weights and "
             "data. Echo: `measured_peak_bytes` of `echo-run` (its counting "
             "allocator). PyTorch %s: an LD_PRELOAD allocation counter "
             "(bench/peers/alloc_counter.c) over the second step, each "
             "variant in its own process: eager, `torch.utils.checkpoint` per "
             "time step (NMT) or layer (Transformer), and functorch's min-cut "
             "rematerialization partitioner. Measured on %s." % (
                 c["torch"], machine_text(c)), "",
             "| model | run | measured MiB | vs PyTorch eager |",
             "|---|---|---|---|"]
    for name, e in c["models"].items():
        eager = e["torch"].get("eager", {}).get("peak_bytes")
        # Memory only: the step times of this run are not comparable (the
        # PyTorch variants run under the counter); see the tables above.
        rows = [("Echo " + s, r["measured_peak_bytes"])
                for s, r in e["echo"].items()]
        rows += [("PyTorch " + v, r.get("peak_bytes"))
                 for v, r in e["torch"].items()]
        for label, peak in rows:
            if peak is None:
                lines.append("| %s | %s | failed | |" % (name, label))
                continue
            lines.append("| %s | %s | %.0f | %s |" % (
                name, label, peak / mib,
                "%.2f×" % (peak / eager) if eager else ""))
    return lines


def budget_markdown():
    b = load_result("budget")
    if not b:
        return []
    mib = float(1 << 20)
    lines = ["", "## Byte budgets (`strategy=budget`, `bench/budget.py`)", "",
             "Each paper-size model: one compile lists every candidate of "
             "the budget strategy with its planned step bytes "
             "(`budget-table`); then a sweep of budgets (20; 8 on "
             "DeepSpeech2, whose compiles take ~2 min each) from none's planned bytes "
             "down to the smallest candidate's and one byte below it, each "
             "its own compile. *Met and monotone*: every budget with a plan "
             "got a step within it, a smaller budget never a larger step, "
             "and only the budget below the smallest candidate was refused. "
             "Then `echo-run --budget` at two of those budgets: the bytes the "
             "run measured (libraries' workspace reserved and counted). "
             "Measured on %s." % machine_text(b), "",
             "| model | none MiB | smallest MiB (none / it) | its recompute "
             "FLOPs | candidates | budgets swept: met and monotone | s to "
             "compile one budget (to planned buffers, median) | echo-run: "
             "budget → measured MiB |",
             "|---|---|---|---|---|---|---|---|"]
    for name, e in b["models"].items():
        cands = e["candidates"]
        smallest = min(cands, key=lambda c: c["step_bytes"])
        step = e["step_flops"]
        secs = sorted(p["compile_s"] for p in e["sweep"])
        runs = ", ".join(
            "%.0f → refused (workspace reserved)" % (r["budget"] / mib)
            if "refused" in r else
            "%.0f → %.0f%s" % (r["budget"] / mib,
                               r["measured_peak_bytes"] / mib,
                               "" if r["met"] else " (over)")
            for r in e["runs"])
        lines.append("| %s | %.0f | %.0f (%.2f×) | %.1f%% | %d | %s | %.1f | "
                     "%s |" % (name, e["none_bytes"] / mib,
                               smallest["step_bytes"] / mib,
                               e["none_bytes"] / smallest["step_bytes"],
                               100 * smallest["recompute_flops"] / step
                               if step else float("nan"),
                               len(cands),
                               "%d: yes" % len(e["sweep"])
                               if e["monotone_and_met"] else
                               "%d: NO: " % len(e["sweep"]) +
                               "; ".join(e["sweep_failures"]),
                               secs[len(secs) // 2], runs))
    lines += ["", "The Pareto curves (planned step bytes against recompute "
              "FLOPs; the budget sweep as a step line, every candidate in "
              "grey, none/mirror/sublinear/echo from the measured runs "
              "above):", ""]
    for name in b["models"]:
        lines.append("![%s](budget/%s.png)" % (name, name))
    return lines


def numerics_markdown():
    """The f32 numerics section (bench/numerics.py's JSON, and the earlier
    build's beside it)."""
    results = load_result("numerics")
    if results is None:
        return []
    from numerics import markdown  # noqa: E402
    return [""] + markdown(results, load_result("numerics_before_f64_sums"))


def train_examples_markdown():
    """The PyTorch-loop section (bench/train_examples.py's JSON)."""
    results = load_result("train_examples")
    if results is None:
        return []
    from train_examples import markdown  # noqa: E402
    return [""] + markdown(results)


def import_zoo_markdown():
    """The PyTorch model zoo section (bench/import_zoo.py's JSON)."""
    results = load_result("import_zoo")
    if results is None:
        return []
    from import_zoo import markdown  # noqa: E402
    return [""] + markdown(results)


# What the GPU section says of the checks made without a GPU.
WITHOUT_GPU = [
    'Without a GPU (2026-11-23):',
    '',
    '- **Any model compiles for sm_90.** 300 random well-formed models from every',
    '  op family (`python3 -m echo.random_models --count=300 --seed=7000`), each',
    '  under none and echo, through `--echo-pipeline="target=nvvm"` and',
    '  `ptxas -arch=sm_90`: 0 failures of 600 (`utils/random-models-nvvm.sh`,',
    '  9 min 6 s on 2 cores shared with a fuzzer). CI runs 40 of them',
    '  (`random-models-ptxas.test`) and the 4 edge models (`test/Integration/edge-models.test`).',
    '- **Runtime faults.** `test/Integration/cuda/faults.test` runs the runtime',
    '  over a host-memory `libcuda.so.1` (`test/fake-cuda`) with each injected',
    '  fault (`ECHO_CUDA_FAULTS`): out of memory (requested vs free bytes, what',
    '  the step holds), the n-th launch failing (launch number, kernel, grid,',
    '  CUDA error), cuBLAS or cuDNN missing, a device older than sm_90; each a',
    '  clear error and exit 1. On the fake device the bytes the runtime counts for', "  a step equal the plan's `step_bytes`. `bench/gpu/device.sh` runs the same", '  faults on the real device when one is lent.']


def gpu_markdown():
    """The GPU section: bench/gpu/run.py's tables gathered by
    bench/gpu/collect.py, or what is owed."""
    lines = ["", "## GPU (`bench/gpu/device.sh`, `bench/gpu/run.py`)", ""]
    path = os.path.join(ROOT, "bench", "results", "gpu.json")
    if not os.path.exists(path):
        return lines + [
            "Not measured yet. The bundles are built here "
            "(`bench/gpu/make-bundles.sh`, with `echo-run --emit-aot`) and "
            "run there by `bench/gpu/device.sh`.", ""] + WITHOUT_GPU
    sys.path.insert(0, os.path.join(ROOT, "bench", "gpu"))
    from run import markdown  # noqa: E402
    g = json.load(open(path))
    lines.append("Measured on %s." % machine_text(g))
    if g.get("compiled_on"):
        lines.append("Compiled on %s." % machine_text(
            {"machine": g["compiled_on"]}))
    lines += g.get("notes", [])
    if g.get("models"):
        lines += ["", "Paper-size steps (bench/recompute.py's "
                  "configurations): the device peak is what the runtime "
                  "allocated on the device (Echo: arena, arguments, results "
                  "and library workspaces; PyTorch: "
                  "`torch.cuda.max_memory_allocated()`); step time is the "
                  "median over the run's steps.", ""]
        lines += markdown(g).splitlines()
        for name, r in g["models"].items():
            t = r.get("targets")
            if t:
                lines.append("")
                lines.append(
                    "%s: echo's device peak is %.3f× none's and %s; its step "
                    "time %.2f× none's." % (
                        name, t["echo_peak_over_none"],
                        ("%.3f× PyTorch eager's" %
                         t["echo_peak_over_pytorch_eager"])
                        if "echo_peak_over_pytorch_eager" in t
                        else "PyTorch was not measured",
                        t["echo_time_over_none"]))
    if g.get("check"):
        lines += ["", "CUDA against the CPU, every bundled model (3 steps, "
                  "`check_cuda.py`): the largest relative difference of a "
                  "loss and of a result (each result against its own norm, "
                  "or the step's scale where that is larger: see below).",
                  "",
                  "| model | strategy | loss difference | worst result "
                  "difference | device peak (B) | step (ms) |",
                  "|---|---|---|---|---|---|"]
        for model, runs in sorted(g["check"].items()):
            for strategy, r in sorted(runs.items()):
                lines.append("| %s | %s | %s | %s | %d | %.3f |" % (
                    model, strategy,
                    "%.1e" % r["loss_relative_difference"]
                    if "loss_relative_difference" in r else
                    "≤ %.0e" % r["loss_within"] if "loss_within" in r else "",
                    "%.1e" % r["worst_result_relative_error"]
                    if "worst_result_relative_error" in r else "",
                    r["device_peak_bytes"], r["step_time_ms"]))
        for f in g.get("check_failures", []):
            lines.append("- FAIL: " + f)
        if g.get("check_notes"):
            lines += [""] + g["check_notes"]
    if g.get("profile"):
        lines += ["", "Where the device time of a step goes "
                  "(`ECHO_CUDA_PROFILE=1`, `bench/gpu/step_profile.py`: device "
                  "events around every launch and library call, per step "
                  "over the run's steps after the first, which loads "
                  "kernels and cuBLAS's; the events' own cost is in these "
                  "times, so a step of many small kernels profiles slower "
                  "than it runs):", "",
                  "| run | device ms/step | generated kernels | cuBLAS | "
                  "cuDNN | launches | slowest |", "|---|---|---|---|---|---|---|"]
        for r in g["profile"]:
            ms = r["ms_per_step"]
            slow = "; ".join("%s [%s] %.2f ms" % (e["name"], e["shape"],
                                                 e["ms"])
                             for e in r["slowest"][:2])
            lines.append("| %s | %.1f | %.1f | %.1f | %.1f | %d | %s |" % (
                r["report"].replace("prof-", "").replace(".json", ""),
                r["device_ms_per_step"], ms["generated kernels"],
                ms["cuBLAS"], ms["cuDNN"], r["launches_per_step"], slow))
    kernels = g.get("kernels") or {}
    if kernels:
        lines += ["", "Echo's generated kernels under Nsight Compute (one "
                  "step, the first kernels of the echo bundle): share of the "
                  "peak HBM bandwidth, time-weighted, and bytes per second "
                  "against a device-to-device copy's.", "",
                  "| model | kernels | time (ms) | GB moved | share of peak "
                  "| share of a copy's |", "|---|---|---|---|---|---|"]
        for m, k in kernels.items():
            for tag in ("all", "large"):
                r = k.get(tag)
                if r:
                    lines.append("| %s (%s) | %d | %.2f | %.2f | %.1f%% | "
                                 "%.1f%% |" % (
                                     m, tag, r["kernels"],
                                     r["seconds"] * 1e3, r["bytes"] / 1e9,
                                     100 * r["share_of_peak"],
                                     100 * r.get("share_of_copy_bandwidth",
                                                 0)))
    if g.get("faults"):
        lines += ["", "The runtime's injected faults on the real device "
                  "(`ECHO_CUDA_FAULTS`): each ends the step with its message "
                  "and exit 1.", ""]
        lines += ["- `%s`" % f for f in g["faults"]]
    return lines + [""] + WITHOUT_GPU


def plan_markdown(p):
    """The buffer-planning section (bench/plan_buffers.py's JSON)."""
    mib = 1 << 20
    lines = ["", "## Buffer planning (`bench/plan_buffers.py`)", "",
             "`planned_bytes` is the arena `echo-plan-buffers` assigns; its "
             "lower bound is the",
             "most bytes of planned buffers live at one point. "
             "`peak_live_bytes` (tensor-level)",
             "also counts parameters, data and gradients, which stay in the "
             "caller's buffers.", "",
             "Bundled models, arena / lower bound:", "",
             "| model | " + " | ".join(STRATEGIES) + " |",
             "|---|" + "---|" * len(STRATEGIES)]
    for name, e in p["bundled"].items():
        lines.append("| %s | %s |" % (name, " | ".join(
            "%d / %d" % (e[s]["planned_bytes"], e[s]["lower_bound_bytes"])
            for s in STRATEGIES)))
    if p["paper"]:
        lines += ["", "Paper-like models (sizes as above), MiB:", "",
                  "| model | strategy | tensor peak | arena | lower bound | "
                  "arena / bound | buffers | in place | plan ms |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for name, e in p["paper"].items():
            for s in STRATEGIES:
                r = e[s]
                lines.append("| %s | %s | %.0f | %.0f | %.0f | %.3f | %d | %d "
                             "| %.1f |" % (
                                 name, s, r["peak_live_bytes"] / mib,
                                 r["planned_bytes"] / mib,
                                 r["lower_bound_bytes"] / mib,
                                 r["planned_over_lower_bound"], r["buffers"],
                                 r["in_place"], r["plan_pass_ms"]))
    lines += ["", "Pass time on synthetic steps (a forward chain, every value "
              "stashed for the backward chain; measured on %s):"
              % machine_text(p), "",
              "| buffers | echo-plan-buffers ms |", "|---|---|"]
    for r in p["scaling"]:
        lines.append("| %d | %.1f |" % (r["buffers"], r["plan_pass_ms"]))
    return lines


def memory_categories_markdown():
    """The paper-size NMT step by memory category (bench/memory_categories.py),
    if measured."""
    c = load_result("memory_categories")
    if c is None:
        return []
    mib = 1024 * 1024
    names = ["parameters", "optimizer_state", "data", "activations",
             "recompute", "temporaries", "gradients", "free", "workspace",
             "unattributed", "host_offload"]
    kinds = ["estimated", "planned", "measured"]
    strategies = list(c["strategies"])
    cfg = ", ".join(f"{k}={v}" for k, v in c["config"].items())
    lines = ["", "## Memory by category (`bench/memory_categories.py`)", "",
             "The paper-size NMT step (%s) on the CPU, `echo-run --steps=%d "
             "--report` per strategy, measured on %s. MiB per category "
             "(docs/Contract.md, `categories`): *estimated* is the "
             "tensor-level step's live bytes at the estimate's peak, "
             "*planned* the planned step's at the plan's peak (each arena "
             "slot by the category of the buffer it holds there, plus the "
             "caller's buffers: parameters, data, the returned gradients), "
             "*measured* the counting allocator's peak with its allocations "
             "attributed by the plan (the caller's buffers by category, the "
             "arena by its slots at the plan's peak) and the libraries' "
             "workspace as measured. Each column adds up to its total: "
             "`peak_live_bytes`, `step_bytes`, `measured_peak_bytes`; host "
             "offload is host memory, apart (none here)." % (
                 cfg, c["steps"], machine_text(c)), "",
             "| category | " + " | ".join(
                 f"{s} {k}" for s in strategies for k in kinds) + " |",
             "|---|" + "---:|" * (len(strategies) * len(kinds))]

    def cell(s, name, kind):
        v = c["strategies"][s]["categories"].get(name, {}).get(kind)
        return "–" if v is None else "%.1f" % (v / mib)

    for name in names:
        cells = [cell(s, name, k) for s in strategies for k in kinds]
        if all(x in ("–", "0.0") for x in cells):
            continue
        lines.append("| %s | %s |" % (name.replace("_", " "),
                                      " | ".join(cells)))
    totals = {"estimated": "peak_live_bytes", "planned": "step_bytes",
              "measured": "measured_peak_bytes"}
    lines.append("| **total** | %s |" % " | ".join(
        "%.1f" % (c["strategies"][s][totals[k]] / mib)
        for s in strategies for k in kinds))
    if "none" in c["strategies"] and "echo" in c["strategies"]:
        def get(s, name, kind="measured"):
            return c["strategies"][s]["categories"].get(name, {}).get(kind, 0)
        none_act, echo_act = get("none", "activations"), get("echo",
                                                             "activations")
        params = get("none", "parameters")
        lines += ["", "At the measured peak, echo holds %.1f MiB of stashed "
                  "activations where none holds %.1f (%.2f× fewer), and %.1f "
                  "MiB of recompute values; the measured peak falls from %.1f "
                  "to %.1f MiB (%.2f×). Parameters (%.1f MiB), data and "
                  "gradients are %s at the plan's peak: none holds "
                  "%.1f MiB of gradients, the parameters' gradients the step "
                  "returns (%.1f MiB, allocated by the caller for the whole "
                  "step) and the backward pass's values live there, among "
                  "them the logits' gradient. The estimate's activations "
                  "(%.1f MiB under none, %.1f under echo) exceed the plan's: "
                  "the estimate counts every tensor-level value the backward "
                  "pass reads, the plan the buffers left once elementwise "
                  "chains are fused." % (
                      echo_act / mib, none_act / mib,
                      none_act / max(echo_act, 1),
                      get("echo", "recompute") / mib,
                      c["strategies"]["none"]["measured_peak_bytes"] / mib,
                      c["strategies"]["echo"]["measured_peak_bytes"] / mib,
                      c["strategies"]["none"]["measured_peak_bytes"] /
                      c["strategies"]["echo"]["measured_peak_bytes"],
                      params / mib,
                      "the same under both" if all(
                          get("none", n) == get("echo", n)
                          for n in ("parameters", "data", "gradients"))
                      else "not all the same under both",
                      get("none", "gradients") / mib, params / mib,
                      get("none", "activations", "estimated") / mib,
                      get("echo", "activations", "estimated") / mib)]
    lines += ["", "The plans as PyTorch memory snapshots: `python3 -m "
              "echo.memory_snapshot report.json -o snap.pickle` "
              "(pytorch.org/memory_viz opens them)."]
    return lines


def compile_scaling_markdown():
    """The compile-time scaling section (bench/compile_scaling.py's JSON)."""
    r = load_result("compile_scaling")
    if r is None:
        return []
    from compile_scaling import markdown  # noqa: E402
    return [""] + markdown(r)


def recompute_time_markdown():
    """The recompute-time section (bench/recompute_time.py's JSON)."""
    r = load_result("recompute_time")
    if r is None:
        return []
    lines = ["", "## Recompute priced in time (`bench/recompute_time.py`)",
             "",
             "Measured on %s. echo's recomputation is priced by a roofline, "
             "max(FLOPs / peak, bytes / bandwidth) per op, at this machine's "
             "calibration (`echo-run --machine`: the SGEMM GFLOP/s as the "
             "peak, the triad GB/s as the bandwidth). Predicted: echo's "
             "`recompute_seconds` over none's `forward_seconds + "
             "backward_seconds` (the memory report's). "
             "Measured: echo's median step time over none's, less one, both "
             "in one run of the bench (the steps column), with the "
             "libraries' threads of the threads column (all: every core; "
             "one: the step on one core, the other left to other "
             "processes). Bytes: "
             "`measured_peak_bytes`." % machine_text(r), "",
             "| model | steps | threads | recomputed ops | "
             "recompute share of FLOPs | "
             "predicted time overhead | measured time overhead | none ms | "
             "echo ms | none MB | echo MB | none / echo bytes |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, row in r["models"].items():
        e, n = row["echo"], row["none"]
        lines.append(
            "| %s | %d | %s | %d | %.2f%% | %.1f%% | %.1f%% | %.0f | %.0f | "
            "%.1f | %.1f | %.2f× |" % (
                name, row["steps"], row.get("threads") or "all",
                e["recomputed_ops"],
                100 * e["recompute_flops"] / (e["forward_flops"] +
                                              e["backward_flops"]),
                100 * row["predicted_overhead"],
                100 * row["measured_overhead"], n["step_time_ms"],
                e["step_time_ms"], n["measured_peak_bytes"] / 1e6,
                e["measured_peak_bytes"] / 1e6, row["none_over_echo_bytes"]))
    load = (r.get("machine") or {}).get("at_run", {}).get("load_average")
    if load and load[0] > 1.5 * ((r["machine"].get("cpu") or {})
                                 .get("usable_cpus") or 1):
        lines += ["", "The load average was %.1f when the bench started "
                  "(other work on this %s-CPU machine): step times moved by "
                  "tens of percent between runs of the same step, so the "
                  "measured overheads do not resolve a few percent; the "
                  "bytes and the predictions do not depend on the load."
                  % (load[0], r["machine"]["cpu"]["usable_cpus"])]
    lines += ["", "Configurations: nmt-mid is utils/run-demo.sh's NMT (%s); "
              "the others are the paper-size ones above." % ", ".join(
                  "%s=%s" % kv for kv in
                  r["models"].get("nmt-mid", {}).get("config", {}).items())]
    return lines


# The sections `--section` can refresh alone (their benches' JSON).
SECTIONS = {"gpu": gpu_markdown, "chunk_loss": chunk_loss_markdown,
            "cpu_step": cpu_step_markdown,
            "import_zoo": import_zoo_markdown,
            "memory_categories": memory_categories_markdown,
            "recompute_time": recompute_time_markdown,
            "compile_scaling": compile_scaling_markdown,
            "cpu_paper": cpu_paper_markdown,
            "conv_side_by_side": conv_side_by_side_markdown}
# Where a section goes the first time it is written (else at the end).
SECTION_AFTER = {
    "memory_categories": "## Paper-size steps on the CPU",
    "compile_scaling": "## echo-recompute compile time",
    "conv_side_by_side": "## Echo beside PyTorch on the CPU"}


if __name__ == "__main__":
    main()
