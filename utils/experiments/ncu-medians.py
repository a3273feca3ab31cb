#!/usr/bin/env python3
"""ncu-medians.py <ncu.csv> [last]: median gpu__time_duration per kernel name
(us), over each kernel's last N launches when given."""
import csv, io, statistics, sys
text = open(sys.argv[1], errors="replace").read()
rows = list(csv.DictReader(io.StringIO(text[text.find('"ID"'):])))
scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}
per = {}
for r in rows:
    if r.get("Metric Name") == "gpu__time_duration.sum":
        per.setdefault(r["Kernel Name"].split("(")[0], []).append(
            float(r["Metric Value"].replace(",", "")) * scale.get(r["Metric Unit"], 1.0))
last = int(sys.argv[2]) if len(sys.argv) > 2 else 0
for k, v in per.items():
    v = v[-last:] if last else v
    print(f"{k}: ncu gpu__time_duration median {statistics.median(v):.2f} us (n {len(v)})")
