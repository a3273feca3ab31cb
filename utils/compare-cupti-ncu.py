#!/usr/bin/env python3
"""Compares lib/Verify's CUPTI kernel times with Nsight Compute's
gpu__time_duration for the same kernels (utils/gpu-check.sh runs both).

usage: compare-cupti-ncu.py <cupti_medians.json> <ncu.csv> [tolerance=0.05] [last=0]
cupti_medians.json maps kernel name -> CUPTI median (us), as written by
VerifyGpu.CuptiTimesForNcuComparison; ncu's CSV holds gpu__time_duration.sum
of every launch, by kernel name, in launch order. With last=N only each
kernel's last N launches count: under CUDAL1_UNDER_NCU the verifier runs its
timing loop (warm-up, then N interleaved samples, each after the L2 flush), so
the last N launches are the ones CUPTI times in a normal run. Medians are
compared; exit 1 when one differs by more than the tolerance."""
import csv, io, json, statistics, sys

cupti = json.load(open(sys.argv[1]))
tol = float(sys.argv[3]) if len(sys.argv) > 3 else 0.05
last = int(sys.argv[4]) if len(sys.argv) > 4 else 0

text = open(sys.argv[2], errors="replace").read()
start = text.find('"ID"')
rows = list(csv.DictReader(io.StringIO(text[start:]))) if start >= 0 else []
scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0,
         "msecond": 1e3, "ms": 1e3, "second": 1e6, "s": 1e6}
ncu = {}
for r in rows:
    if r.get("Metric Name") != "gpu__time_duration.sum":
        continue
    name = r["Kernel Name"].split("(")[0].strip()
    value = float(r["Metric Value"].replace(",", ""))
    ncu.setdefault(name, []).append(value * scale.get(r["Metric Unit"], 1.0))

ok = True
print(f"{'kernel':<18} {'CUPTI median':>14} {'ncu median':>12} {'ncu n':>6} {'diff':>8}")
for name, c in cupti.items():
    if name not in ncu:
        print(f"{name:<18} {c:>11.2f} us {'missing':>12}")
        ok = False
        continue
    values = ncu[name][-last:] if last else ncu[name]
    n = statistics.median(values)
    d = (c - n) / n
    ok &= abs(d) <= tol
    print(f"{name:<18} {c:>11.2f} us {n:>9.2f} us {len(values):>6} {d*100:>+7.2f}%")
print("CUPTI vs ncu:", "AGREE" if ok else "DISAGREE", f"(tolerance {tol*100:.0f}%)")
sys.exit(0 if ok else 1)
