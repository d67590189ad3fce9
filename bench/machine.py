#!/usr/bin/python3
"""The machine a benchmark runs on: what it is and what it can do (JSON).

Every bench in bench/ embeds this record in its results (`"machine": {...}`)
and states shares of peak against the figures measured here, never against
a number assumed for some other machine. The record has:

* `cpu`: the model, vendor, family/model, a guess at the microarchitecture,
  logical CPUs and physical cores, the last-level cache, and the ISA features
  that matter to Echo's kernels and libraries (from /proc/cpuinfo's flags:
  fma, avx2, avx512f, avx512_bf16, avx512_fp16, amx_tile/amx_bf16, ...);
* `onednn_isa`: the ISA oneDNN's dispatcher picks here (libdnnl.so.2's
  dnnl_get_effective_cpu_isa, the library Echo's CPU runtime opens);
* `measured`: three calibrations, each compiled at calibration time from
  bench/calibration/*.c with the system compiler (`cc`, else clang-22;
  -O2 -march=native), one pinned pthread per usable CPU:
  - `fma_peak_gflops`, the measured FMA peak: fp32 fused multiply-adds on
    register-resident vectors (several independent accumulators per thread,
    256- and 512-bit where the CPU has them), best of a few runs. Each
    thread's rate is taken over its own CPU time, so other work sharing the
    machine does not lower it; the sum over threads is the rate all cores
    give together. `fma_wall_gflops` is the same over wall-clock time
    (what the cores gave while the calibration shared them);
  - `sgemm_gflops`: OpenBLAS's best large SGEMM (N = 1024 and 2048, all
    CPUs), a lower bound on what the machine does on a GEMM, beside the peak;
  - `triad_gbps`: a STREAM-like triad over arrays several times the
    last-level cache, all CPUs, best pass (STREAM's byte count);
  each with `own_share`, the share of the machine's CPU time (all CPUs,
  /proc/stat) the measurement itself had, and `others`, the share other
  processes took (niced ones included). A figure is `busy` when own_share
  is below 0.85: the wall-clock figures, SGEMM and the triad, are then low
  (the FMA peak, taken over each thread's CPU time, is not). The load
  average before and after is recorded too (it lags by a minute).

The calibration takes 5-10 s. It is cached per machine, keyed by the CPU
model, its flags and the number of usable CPUs, in
${XDG_CACHE_HOME:-~/.cache}/echo/machine/<key>.json (ECHO_MACHINE_CACHE or
--cache-dir override): it describes the host, not a checkout, so every
worktree and build directory on the machine shares it, it survives a clean
checkout, and it is never committed by accident; what a result needs is the
copy each bench JSON embeds. A cached calibration with a busy figure is
measured again the next time it is asked for, keeping each figure at its
best over the calibrations (a peak measured beside other work can only be
low); --refresh discards it and measures afresh.

Usage: bench/machine.py [--refresh] [--fast] [--describe] [--cache-dir DIR]
                        [--cpuinfo FILE]
  --fast      short calibration runs (seconds; for tests, not for figures);
              cached apart from the full one
  --describe  no calibration: the CPU, oneDNN's ISA and the GPUs only
  --cpuinfo   describe the CPU of a saved /proc/cpuinfo (with --describe)
"""
import argparse
import ctypes
import datetime
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.join(HERE, "calibration")
# Bumped whenever a calibration changes what it measures: older cached
# records are then measured again.
SCHEMA = 1
# The /proc/cpuinfo flags recorded (the ones Echo's kernels, OpenBLAS and
# oneDNN dispatch on).
ISA_FLAGS = ["fma", "avx2", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
             "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8"]
FULL = {"fma_runs": 5, "fma_ms": 200, "sgemm": [(1024, 5), (2048, 3)],
        "triad_passes": 20}
FAST = {"fma_runs": 2, "fma_ms": 30, "sgemm": [(512, 2)],
        "triad_passes": 3, "triad_mib": 16}


class MachineError(Exception):
    """A calibration could not run (no compiler, a kernel failed)."""


# ---------------------------------------------------------------------------
# What the machine is.
# ---------------------------------------------------------------------------

def parse_cpuinfo(text):
    """The processors of a /proc/cpuinfo text, as dicts of its fields."""
    procs, cur = [], {}
    for line in text.splitlines():
        if not line.strip():
            if cur:
                procs.append(cur)
            cur = {}
            continue
        key, sep, value = line.partition(":")
        if sep:
            cur[key.strip()] = value.strip()
    if cur:
        procs.append(cur)
    return [p for p in procs if "processor" in p]


def uarch_guess(vendor, family, model, flags):
    """A microarchitecture name from cpuid's family/model (VMs often hide
    it from the model name: "AMD EPYC"), or None."""
    if vendor == "AuthenticAMD":
        if family == 26:
            return "Zen 5"
        if family == 25:
            return "Zen 4" if "avx512f" in flags else "Zen 3"
        if family == 23:
            return "Zen 2" if model >= 0x30 else "Zen / Zen+"
    if vendor == "GenuineIntel" and family == 6:
        known = {85: "Skylake-SP / Cascade Lake / Cooper Lake",
                 106: "Ice Lake-SP", 143: "Sapphire Rapids",
                 207: "Emerald Rapids", 173: "Granite Rapids"}
        if model == 85 and "avx512_bf16" in flags:
            return "Cooper Lake"
        if model == 85 and "avx512_vnni" in flags:
            return "Cascade Lake"
        return known.get(model)
    return None


def last_level_cache_bytes():
    """The last-level cache of the usable CPUs, in bytes (sysfs), or None."""
    base = "/sys/devices/system/cpu"
    try:
        total, seen = 0, set()
        for cpu in sorted(os.sched_getaffinity(0)):
            caches = os.path.join(base, f"cpu{cpu}", "cache")
            best = None
            for index in os.listdir(caches):
                d = os.path.join(caches, index)
                if not index.startswith("index"):
                    continue
                level = int(open(os.path.join(d, "level")).read())
                if best is None or level > best[0]:
                    best = (level, d)
            if best is None:
                continue
            shared = open(os.path.join(best[1], "shared_cpu_list")).read()
            if shared in seen:
                continue
            seen.add(shared)
            size = open(os.path.join(best[1], "size")).read().strip()
            scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
            total += (int(size[:-1]) * scale[size[-1]] if size[-1] in scale
                      else int(size))
        return total or None
    except (OSError, ValueError, KeyError):
        return None


def describe_cpu(cpuinfo_text=None):
    """The CPU's description from /proc/cpuinfo (or the given text)."""
    fixture = cpuinfo_text is not None
    if cpuinfo_text is None:
        with open("/proc/cpuinfo") as f:
            cpuinfo_text = f.read()
    procs = parse_cpuinfo(cpuinfo_text)
    if not procs:
        raise MachineError("no processor in the cpuinfo text")
    first = procs[0]
    flags = set(first.get("flags", "").split())
    vendor = first.get("vendor_id", "")
    family = int(first.get("cpu family", "0") or 0)
    model = int(first.get("model", "0") or 0)
    cores = {(p.get("physical id", "0"), p.get("core id", p["processor"]))
             for p in procs}
    usable = len(procs) if fixture else len(os.sched_getaffinity(0))
    cpu = {
        "model": first.get("model name", "unknown"),
        "vendor": vendor,
        "family": family,
        "model_number": model,
        "uarch": uarch_guess(vendor, family, model, flags),
        "logical_cpus": len(procs),
        "usable_cpus": usable,
        "physical_cores": len(cores),
        "sockets": len({p.get("physical id", "0") for p in procs}),
        "hypervisor": "hypervisor" in flags,
        "isa": {f: f in flags for f in ISA_FLAGS},
        # The whole flag set goes into the key only.
        "_flags": sorted(flags),
    }
    if not fixture:
        cpu["llc_bytes"] = last_level_cache_bytes()
    return cpu


def cache_key(cpu):
    """The machine's key: its CPU model, flags and usable CPUs."""
    text = "|".join([cpu["model"], " ".join(cpu["_flags"]),
                     str(cpu["usable_cpus"])])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def onednn_isa():
    """The ISA oneDNN dispatches to here, or None without libdnnl."""
    try:
        lib = ctypes.CDLL("libdnnl.so.2")
        lib.dnnl_get_effective_cpu_isa.restype = ctypes.c_int
        lib.dnnl_cpu_isa2str.restype = ctypes.c_char_p
        lib.dnnl_cpu_isa2str.argtypes = [ctypes.c_int]
        return lib.dnnl_cpu_isa2str(lib.dnnl_get_effective_cpu_isa()).decode()
    except (OSError, AttributeError):
        return None


def gpus():
    """The NVIDIA GPUs nvidia-smi lists (name, memory, driver), or []."""
    if not shutil.which("nvidia-smi"):
        return []
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,memory.total,driver_version,"
             "compute_cap", "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if out.returncode != 0:
        return []
    result = []
    for line in out.stdout.strip().splitlines():
        cells = [c.strip() for c in line.split(",")]
        if len(cells) >= 4:
            result.append({"name": cells[0], "memory_mib": int(cells[1])
                           if cells[1].isdigit() else cells[1],
                           "driver": cells[2], "compute_capability": cells[3]})
    return result


def summary(record):
    """One line naming the machine, for tables: "AMD EPYC (Zen 4), 2 cores,
    AVX-512, AVX512-BF16, KVM guest"."""
    cpu = record["cpu"]
    name = cpu["model"]
    if cpu.get("uarch") and cpu["uarch"] not in name:
        name += f" ({cpu['uarch']})"
    isa = cpu["isa"]
    features = []
    if isa.get("avx512f"):
        features.append("AVX-512")
    elif isa.get("avx2"):
        features.append("AVX2")
    if isa.get("avx512_bf16"):
        features.append("AVX512-BF16")
    if isa.get("avx512_fp16"):
        features.append("AVX512-FP16")
    if isa.get("amx_tile"):
        features.append("AMX")
    n = cpu["usable_cpus"]
    if cpu["physical_cores"] < cpu["logical_cpus"]:
        text = f"{name}, {n} CPUs ({cpu['physical_cores']} cores, SMT)"
    else:
        text = f"{name}, {n} {'core' if n == 1 else 'cores'}"
    if features:
        text += ", " + ", ".join(features)
    if cpu.get("hypervisor"):
        text += ", virtual machine"
    for gpu in record.get("gpus", []):
        text += f"; {gpu['name']}"
    return text


def peaks(record):
    """One line with the measured figures: "measured FMA peak 233 GFLOP/s,
    OpenBLAS SGEMM 197 GFLOP/s, triad 24 GB/s"."""
    m = record.get("measured") or {}
    if "fma_peak_gflops" not in m:
        return "not calibrated"
    text = f"measured FMA peak {m['fma_peak_gflops']:.0f} GFLOP/s"
    if m.get("sgemm_gflops"):
        text += f", OpenBLAS SGEMM {m['sgemm_gflops']:.0f} GFLOP/s"
    if m.get("triad_gbps"):
        text += f", triad {m['triad_gbps']:.0f} GB/s"
    if m.get("busy"):
        text += " (calibrated while busy)"
    return text


def describe(cpuinfo_text=None):
    """The record without calibration."""
    cpu = describe_cpu(cpuinfo_text)
    record = {"schema": SCHEMA, "key": cache_key(cpu),
              "cpu": {k: v for k, v in cpu.items() if not k.startswith("_")},
              "onednn_isa": onednn_isa() if cpuinfo_text is None else None,
              "gpus": gpus() if cpuinfo_text is None else []}
    record["summary"] = summary(record)
    return record


# ---------------------------------------------------------------------------
# What the machine can do.
# ---------------------------------------------------------------------------

def compiler():
    """The system C compiler: `cc`, else clang-22."""
    for cc in ("cc", "clang-22", "clang", "gcc"):
        path = shutil.which(cc)
        if path:
            version = subprocess.run([path, "--version"], capture_output=True,
                                     text=True).stdout.splitlines()
            return path, (version[0] if version else cc)
    raise MachineError("no C compiler (cc, clang-22) on PATH")


def build(cc, source, out, libs=()):
    flags = ["-O2", "-march=native", "-pthread"]
    result = subprocess.run([cc, *flags, os.path.join(SOURCES, source), "-o",
                             out, *libs], capture_output=True, text=True)
    if result.returncode != 0:
        raise MachineError(f"{source}: {result.stderr.strip()}")
    return " ".join(flags + list(libs))


def run_json(command, env=None):
    out = subprocess.run(command, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise MachineError(f"{os.path.basename(command[0])}: "
                           f"{out.stderr.strip()}")
    return [json.loads(line) for line in out.stdout.splitlines() if line]


def measure_fma(binary, threads, runs, ms):
    """Best measured FMA rate over `runs` runs of `ms` ms, each width."""
    best = {}
    for _ in range(runs):
        for r in run_json([binary, str(threads), str(ms)]):
            width = str(r["width_bits"])
            cpu_rate = sum(f / s for f, s in zip(r["thread_flops"],
                                                 r["thread_cpu_s"]) if s > 0)
            wall_rate = r["flops"] / r["wall_s"]
            b = best.setdefault(width, {"cpu_time_gflops": 0.0,
                                        "wall_gflops": 0.0})
            b["cpu_time_gflops"] = max(b["cpu_time_gflops"], cpu_rate / 1e9)
            b["wall_gflops"] = max(b["wall_gflops"], wall_rate / 1e9)
    if not best:
        raise MachineError("fma_peak measured nothing")
    return best


def measure_sgemm(binary, threads, sizes):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads))
    result = {"threads": threads, "gflops_by_n": {}}
    for n, reps in sizes:
        r = run_json([binary, str(n), str(reps)], env)[0]
        result["gflops_by_n"][str(n)] = r["flops"] / min(r["call_s"]) / 1e9
        result["library"] = r["config"]
        result["corename"] = r["corename"]
        result["threads"] = r["threads"]
    result["gflops"] = max(result["gflops_by_n"].values())
    return result


def sgemm_binary(directory):
    """OpenBLAS's SGEMM driver built into `directory`, for benches that set
    their GEMMs beside it under the same conditions; None without
    OpenBLAS or a compiler."""
    try:
        cc, _ = compiler()
        binary = os.path.join(directory, "sgemm")
        build(cc, "sgemm.c", binary, ["-lopenblas"])
        return binary
    except MachineError:
        return None


def measure_triad(binary, threads, array_mib, passes):
    r = run_json([binary, str(threads), str(array_mib), str(passes)])[0]
    return {"gbps": r["bytes_per_pass"] / min(r["pass_wall_s"]) / 1e9,
            "array_bytes": r["array_bytes"], "threads": r["threads"],
            "passes": passes}


def triad_array_mib(llc_bytes):
    """Each triad array: 4x the last-level cache, at least 64 MiB, at most
    an eighth of the memory available."""
    mib = max(64, 4 * (llc_bytes or 0) // (1 << 20))
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) // 1024
                    mib = min(mib, max(16, available // 24))
    except (OSError, ValueError):
        pass
    return mib


class CpuShare:
    """Between entering and leaving: the share of the machine's CPU time
    (all CPUs, /proc/stat) that this process and its children had (`own`),
    and that other processes took (`others`)."""

    @staticmethod
    def sample():
        with open("/proc/stat") as f:
            cells = [int(x) for x in f.readline().split()[1:]]
        # user nice system idle iowait irq softirq steal: idle and iowait
        # are free; steal went to other guests.
        total = sum(cells[:8])
        busy = total - cells[3] - cells[4]
        hz = os.sysconf("SC_CLK_TCK")
        ours = sum(r.ru_utime + r.ru_stime for r in (
            resource.getrusage(resource.RUSAGE_CHILDREN),
            resource.getrusage(resource.RUSAGE_SELF))) * hz
        return total, busy, ours

    def __enter__(self):
        self.start = self.sample()
        return self

    def __exit__(self, *exc):
        total, busy, ours = (e - s for e, s in zip(self.sample(), self.start))
        self.own = round(min(1.0, ours / total), 3) if total else 1.0
        self.others = (round(max(0.0, busy - ours) / total, 3) if total
                       else 0.0)
        return False

    def record(self, group):
        group.update(own_share=self.own, others=self.others)
        return group


def calibrate(cpu, fast=False):
    """Measures the FMA peak, OpenBLAS's SGEMM and the triad bandwidth."""
    plan = FAST if fast else FULL
    threads = cpu["usable_cpus"]
    start = time.time()
    load_before = os.getloadavg()
    cc, version = compiler()
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(
        timespec="seconds")
    m = {"date": date, "mode": "fast" if fast else "full",
         "threads": threads,
         "load_average_before": [round(x, 2) for x in load_before],
         "compiler": version}
    with tempfile.TemporaryDirectory() as tmp:
        fma = os.path.join(tmp, "fma_peak")
        m["compile_flags"] = build(cc, "fma_peak.c", fma)
        with CpuShare() as share:
            widths = measure_fma(fma, threads, plan["fma_runs"],
                                 plan["fma_ms"])
        m["fma"] = {"by_width": widths,
                    "gflops": max(w["cpu_time_gflops"]
                                  for w in widths.values()),
                    "wall_gflops": max(w["wall_gflops"]
                                       for w in widths.values())}
        share.record(m["fma"])
        try:
            sgemm = os.path.join(tmp, "sgemm")
            build(cc, "sgemm.c", sgemm, ["-lopenblas"])
            with CpuShare() as share:
                m["sgemm"] = measure_sgemm(sgemm, threads, plan["sgemm"])
            share.record(m["sgemm"])
        except MachineError as e:
            m["sgemm"] = {"error": str(e).splitlines()[0]}
        triad = os.path.join(tmp, "stream_triad")
        build(cc, "stream_triad.c", triad)
        mib = plan.get("triad_mib") or triad_array_mib(cpu.get("llc_bytes"))
        with CpuShare() as share:
            m["triad"] = measure_triad(triad, threads, mib,
                                       plan["triad_passes"])
        share.record(m["triad"])
    m["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    for group in ("fma", "sgemm", "triad"):
        m[group].update(date=date,
                        busy=m[group].get("own_share", 1.0) < 0.85)
    m["seconds"] = round(time.time() - start, 2)
    return figures(m)


# Each measured figure: its group in the record and the field of the group.
FIGURES = {"fma_peak_gflops": ("fma", "gflops"),
           "fma_wall_gflops": ("fma", "wall_gflops"),
           "sgemm_gflops": ("sgemm", "gflops"),
           "triad_gbps": ("triad", "gbps")}


def figures(m):
    """Sets the record's headline figures from its groups, and `busy` when
    any of them was measured while other work shared the CPUs."""
    for name, (group, field) in FIGURES.items():
        if field in m.get(group, {}):
            m[name] = m[group][field]
        else:
            m.pop(name, None)
    m["busy"] = any(m.get(g, {}).get("busy") for g in ("fma", "sgemm",
                                                        "triad"))
    return m


def best_of(old, new):
    """Two calibrations of one machine, figure by figure the better one: a
    peak measured while other work shared the CPUs can only be low."""
    merged = dict(new)
    for group, field in (("fma", "gflops"), ("sgemm", "gflops"),
                         ("triad", "gbps")):
        if old.get(group, {}).get(field, 0) > new.get(group, {}).get(field, 0):
            merged[group] = old[group]
    merged["calibrations"] = old.get("calibrations", 1) + 1
    return figures(merged)


def cache_directory(override=None):
    if override:
        return override
    if os.environ.get("ECHO_MACHINE_CACHE"):
        return os.environ["ECHO_MACHINE_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "echo", "machine")


def cache_path(record, fast=False, cache_dir=None):
    return os.path.join(cache_directory(cache_dir), record["key"] +
                        ("-fast" if fast else "") + ".json")


def read_cached(path):
    """The calibration cached at `path`, or None where there is none of
    this schema: missing, unreadable, not JSON, or nested too deeply for
    the json module (its RecursionError is a RuntimeError, not the
    ValueError of malformed JSON)."""
    if not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            cached = json.load(f)
    except (OSError, ValueError, RecursionError):
        return None
    if (not isinstance(cached, dict) or cached.get("schema") != SCHEMA or
            not isinstance(cached.get("measured"), dict)):
        return None
    return cached


def record(refresh=False, fast=False, cache_dir=None, again=False):
    """The machine's record with its calibration: from the cache, else
    measured now and cached. A cached calibration taken while the machine
    was busy (or any, with `again`) is measured again and kept figure by
    figure at its best; `refresh` starts over."""
    rec = describe()
    path = cache_path(rec, fast, cache_dir)
    cached = read_cached(path)
    if (cached and not refresh and not again and
            not cached["measured"].get("busy")):
        rec["measured"] = cached["measured"]
    else:
        rec["measured"] = calibrate(describe_cpu(), fast)
        if cached and not refresh:
            rec["measured"] = best_of(cached["measured"], rec["measured"])
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = path + f".{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump({k: v for k, v in rec.items() if k != "gpus"}, f,
                      indent=2)
        os.replace(tmp, path)
    rec["summary"] = summary(rec)
    return rec


def for_bench(measure=True, cache_dir=None, again=False):
    """What a bench puts under "machine": the record (calibrated, unless
    `measure` is false or the calibration cannot run here), and when and
    under what load the bench itself ran."""
    try:
        rec = (record(cache_dir=cache_dir, again=again) if measure
               else describe())
    except MachineError as e:
        rec = describe()
        rec["measured"] = {"error": str(e)}
    rec["at_run"] = {
        "date": datetime.datetime.now(datetime.timezone.utc)
        .isoformat(timespec="seconds"),
        "load_average": [round(x, 2) for x in os.getloadavg()]}
    return rec


def attach(results, rec, rows=()):
    """Puts this run's record in a bench's results. A bench that keeps rows
    of earlier runs also stamps each row it measured now with the record's
    key and keeps every machine's record under "machines"."""
    results["machine"] = rec
    if rows:
        results.setdefault("machines", {})[rec["key"]] = rec
        for row in rows:
            row["machine_key"] = rec["key"]
    return results


def share_of_peak(gflops, rec):
    """`gflops` over the measured FMA peak of the machine record."""
    peak = (rec.get("measured") or {}).get("fma_peak_gflops")
    if not peak:
        raise MachineError("the machine record has no measured FMA peak "
                           "(run bench/machine.py)")
    return gflops / peak


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--refresh", action="store_true",
                    help="measure again, replacing the cached calibration")
    ap.add_argument("--fast", action="store_true",
                    help="short calibration runs (tests), cached apart")
    ap.add_argument("--describe", action="store_true",
                    help="no calibration: CPU, oneDNN's ISA, GPUs")
    ap.add_argument("--cpuinfo", metavar="FILE",
                    help="describe this saved /proc/cpuinfo (--describe)")
    ap.add_argument("--cache-dir", metavar="DIR",
                    help="where calibrations are cached (default: "
                    + cache_directory() + ")")
    args = ap.parse_args()
    try:
        if args.cpuinfo:
            if not args.describe:
                ap.error("--cpuinfo describes another machine: use it with "
                         "--describe")
            with open(args.cpuinfo) as f:
                rec = describe(f.read())
        elif args.describe:
            rec = describe()
        else:
            rec = record(args.refresh, args.fast, args.cache_dir)
            rec["cache_file"] = cache_path(rec, args.fast, args.cache_dir)
    except (MachineError, OSError) as e:
        print(f"bench/machine.py: error: {e}", file=sys.stderr)
        return 1
    print(json.dumps(rec, indent=2))
    if rec.get("measured"):
        print(f"{rec['summary']}: {peaks(rec)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
