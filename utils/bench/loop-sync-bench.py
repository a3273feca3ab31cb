#!/usr/bin/env python3
"""launch-loop-sync on the naive-style corpus, original vs rewritten side by
side on this machine's GPU (issue 14). The rule's fix is host code, so the
kernel times (CUPTI) do not change: what changes is the program's own timer
(`GPU time: X ms`, cudaEvent around its host loops, launch overhead and
host-side waiting included).

For every program of bench/corpus/manifest.json: copy it, run
`cuda-l1-rewrite --rules=-*,launch-loop-sync --fix` on the copy (nothing
else changes), build both with the manifest's nvcc flags, run each
REPEAT times alternately, and print a Markdown table: the program's timer
(median), the ratio, and its own check (PASS/FAIL) before and after.
Programs the rule does not change are listed as such.

  utils/bench/loop-sync-bench.py [--tool dist/gpu/bin/cuda-l1-rewrite]
                                 [--repeat 5] [--only a,b] [--out DIR]

Exit status: 0; 1 when a rewritten program fails its own check or does
not build; 2 bad usage.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd, cwd=None, timeout=300):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=timeout)
    return p.returncode, p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tool", default=os.path.join(ROOT, "dist/gpu/bin/cuda-l1-rewrite"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="/tmp/loop-sync-bench")
    a = ap.parse_args()
    if not os.path.exists(a.tool):
        print(f"loop-sync-bench: no tool at {a.tool}", file=sys.stderr)
        return 2
    corpus = os.path.join(ROOT, "bench/corpus")
    man = json.load(open(os.path.join(corpus, "manifest.json")))
    d = man["defaults"]
    rx = re.compile(d["timing_regex"])
    only = set(x for x in a.only.split(",") if x)
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(a.out)
    shutil.copytree(os.path.join(corpus, "common"), os.path.join(a.out, "common"))
    nvcc = os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "bin/nvcc")
    rows, unchanged, bad = [], [], 0
    for p in man["programs"]:
        name = p["name"]
        if only and name not in only:
            continue
        bins = {}
        changed = False
        for side in ("orig", "new"):
            src = os.path.join(a.out, side, name)
            shutil.copytree(os.path.join(corpus, name), src)
            os.makedirs(os.path.join(a.out, side, "common"), exist_ok=True)
            for f in os.listdir(os.path.join(corpus, "common")):
                shutil.copy(os.path.join(corpus, "common", f), os.path.join(a.out, side, "common", f))
            files = [os.path.join(src, s) for s in p["sources"]]
            if side == "new":
                rc, log = run([a.tool, "--rules=-*,launch-loop-sync", "--fix"] + files +
                              ["--", "-I" + src])
                open(os.path.join(a.out, name + ".tool.log"), "w").write(log)
                changed = bool(re.search(r"applied [1-9][0-9]* fix", log))
                if rc not in (0, 1):
                    print(f"loop-sync-bench: {name}: tool exit {rc}", file=sys.stderr)
            exe = os.path.join(src, name + ".bin")
            rc, log = run([nvcc] + d["nvcc_flags"] + p.get("nvcc_flags", []) +
                          ["-I" + src, "-o", exe] + files)
            if rc != 0:
                print(f"loop-sync-bench: {name} ({side}) does not build:\n{log}", file=sys.stderr)
                bins = None
                bad += side == "new"
                break
            bins[side] = exe
        if bins is None:
            continue
        if not changed:
            unchanged.append(name)
            continue
        times = {"orig": [], "new": []}
        checks = {"orig": set(), "new": set()}
        for r in range(a.repeat):
            for side in ("orig", "new"):
                rc, log = run([bins[side]] + p.get("args", []), timeout=d.get("timeout_s", 120))
                m = rx.search(log)
                if m:
                    times[side].append(float(m.group(1)))
                checks[side].add("PASS" if rc == 0 and "FAIL" not in log else "FAIL")
        if not times["orig"] or not times["new"]:
            print(f"loop-sync-bench: {name}: no timer line", file=sys.stderr)
            continue
        to, tn = statistics.median(times["orig"]), statistics.median(times["new"])
        co, cn = "/".join(sorted(checks["orig"])), "/".join(sorted(checks["new"]))
        bad += "FAIL" in cn
        rows.append((name, to, tn, to / tn, co, cn))
    print(f"launch-loop-sync: the program's own timer (median of {a.repeat} runs each, "
          "alternating), original vs rewritten\n")
    print("| program | original ms | rewritten ms | speedup | check before | check after |")
    print("|---|---:|---:|---:|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]:.3f} | {r[2]:.3f} | {r[3]:.3f}x | {r[4]} | {r[5]} |")
    if rows:
        g = statistics.geometric_mean([r[3] for r in rows])
        print(f"\ngeometric mean over {len(rows)} programs the rule changed: {g:.3f}x")
    print(f"unchanged by the rule: {', '.join(unchanged) if unchanged else 'none'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
