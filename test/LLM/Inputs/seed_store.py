#!/usr/bin/env python3
"""seed_store.py STORE FILE KERNEL: writes four measured variants of KERNEL
(defined in FILE) into the variant store STORE, as an earlier run on an H200
would have left them (speedups 0.80x, 1.30x, 2.00x, 3.10x), so that a test
without a GPU sees exemplars in its prompts."""
import hashlib
import json
import os
import sys

store, path, kernel = sys.argv[1:4]
text = open(path).read()
begin = text.index("__global__ void " + kernel)
end = text.index("\n}\n", begin) + 2
original = hashlib.sha256(text[begin:end].encode()).hexdigest()
folder = os.path.join(store, "variants", kernel, original[:16])
os.makedirs(folder, exist_ok=True)
for n, speedup in enumerate([2.0, 0.8, 3.1, 1.3], 1):
    source = "// stored variant %d (%.2fx)\n__global__ void %s(const float *in, float *out, int n) {}\n" % (
        n, speedup, kernel)
    digest = hashlib.sha256(source.encode()).hexdigest()
    variant = {
        "kernel": kernel, "file": os.path.abspath(path), "original_hash": original,
        "source_hash": digest, "source": source, "launch": "", "model": "earlier-model",
        "round": 0, "index": n, "status": "accepted" if speedup > 1.05 else "not-faster",
        "reject_kind": "" if speedup > 1.05 else "not-faster", "reason": "",
        "detail": "", "exactness": "reassociating", "gpu": "NVIDIA H200", "arch": "sm_90",
        "commit": "", "date": "2026-12-01T00:00:0%dZ" % n, "speedup": speedup,
        "ci_low": speedup - 0.05, "ci_high": speedup + 0.05,
    }
    with open(os.path.join(folder, digest[:16] + ".json"), "w") as f:
        json.dump(variant, f, indent=2)
    with open(os.path.join(folder, digest[:16] + ".cu"), "w") as f:
        f.write(source)
print(folder)
