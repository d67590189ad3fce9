#!/usr/bin/python3
"""Share of HBM bandwidth reached by Echo's generated (fused) kernels.

Reads the CSV of an Nsight Compute run over one step of a bundle, limited
to Echo's own kernels (the bundle's `<model>_train_kernel_N`; cuBLAS and
cuDNN kernels are the libraries'):

  ncu --clock-control none --print-units base --csv -k regex:_train_kernel_ \\
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,\\
dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \\
      BUNDLE/echo-step --steps=1 --quiet > ncu.csv

and prints, for all kernels and for those that move at least --min-bytes
(a kernel that moves a few KB is bound by its launch, not by HBM), the
time-weighted share of the peak (ncu's dram__throughput) and the achieved
bytes per second against the device-to-device copy bandwidth that PyTorch
measures on the same GPU (when PyTorch with CUDA is importable). Writes
JSON with --output.

Usage: bench/gpu/kernels.py ncu.csv [--min-bytes 8e6] [--output k.json]
"""
import argparse
import csv
import json
import sys
import time

METRICS = {"gpu__time_duration.sum": "ns",
           "dram__bytes_read.sum": "read",
           "dram__bytes_write.sum": "write",
           "dram__throughput.avg.pct_of_peak_sustained_elapsed": "pct"}


def number(text):
    return float(text.replace(",", "")) if text not in ("", "n/a") else 0.0


def read_kernels(path):
    """ID -> {name, ns, read, write, pct} from ncu's --csv details page."""
    kernels = {}
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]  # drop ncu's own notes
    for row in csv.DictReader(lines):
        key = METRICS.get(row.get("Metric Name"))
        if key is None:
            continue
        k = kernels.setdefault(row["ID"], {"name": row["Kernel Name"]})
        k[key] = number(row["Metric Value"])
    return [k for k in kernels.values() if k.get("ns")]


def copy_bandwidth():
    """Bytes read + written per second of a 1 GiB device-to-device copy."""
    try:
        import torch
        if not torch.cuda.is_available():
            return None
    except ImportError:
        return None
    a = torch.empty(2**28, dtype=torch.float32, device="cuda")
    b = torch.empty_like(a)
    for _ in range(3):
        b.copy_(a)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(10):
        b.copy_(a)
    torch.cuda.synchronize()
    return 2 * a.numel() * 4 * 10 / (time.perf_counter() - start)


def summary(kernels, copy_bps):
    ns = sum(k["ns"] for k in kernels)
    moved = sum(k.get("read", 0) + k.get("write", 0) for k in kernels)
    out = {"kernels": len(kernels), "seconds": ns * 1e-9, "bytes": moved,
           "share_of_peak": sum(k.get("pct", 0) * k["ns"] for k in kernels)
           / max(ns, 1) / 100}
    out["bytes_per_second"] = moved / max(ns * 1e-9, 1e-12)
    if copy_bps:
        out["share_of_copy_bandwidth"] = out["bytes_per_second"] / copy_bps
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--min-bytes", type=float, default=8e6)
    ap.add_argument("--output")
    args = ap.parse_args()
    kernels = read_kernels(args.csv)
    if not kernels:
        print(f"{args.csv}: no kernel metrics (did ncu run?)", file=sys.stderr)
        return 1
    copy_bps = copy_bandwidth()
    large = [k for k in kernels
             if k.get("read", 0) + k.get("write", 0) >= args.min_bytes]
    result = {"copy_bytes_per_second": copy_bps,
              "all": summary(kernels, copy_bps),
              "large": summary(large, copy_bps) if large else None,
              "min_bytes": args.min_bytes,
              "slowest": sorted(kernels, key=lambda k: -k["ns"])[:10]}
    for tag in ("all", "large"):
        s = result[tag]
        if s:
            print(f"{tag} ({s['kernels']} kernels, {s['seconds'] * 1e3:.2f} "
                  f"ms, {s['bytes'] / 1e9:.2f} GB): {s['share_of_peak']:.1%} "
                  f"of peak HBM bandwidth (time-weighted), "
                  f"{s['bytes_per_second'] / 1e12:.2f} TB/s"
                  + (f" = {s['share_of_copy_bandwidth']:.1%} of a copy's"
                     if copy_bps else ""))
    if args.output:
        with open(args.output, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
