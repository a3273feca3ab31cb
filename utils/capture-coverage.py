#!/usr/bin/env python3
"""Capture coverage over a corpus (issue 13): the share of kernels with a
launch site that get their real launches from `cuda-l1-capture`, beside the
share whose harness is inferred with no flags. Needs a GPU.

For every program of the corpus (bench/corpus: its manifest.json; HeCBench:
`--hecbench DIR`, the programs of benchmarks.yaml, `--all` for every one with
a Makefile `run` target), it

  1. lists the kernels and their launch sites and harness status with
     `cuda-l1-rewrite --print-harness --format=json` (as
     utils/harness-coverage.py does, no flags);
  2. builds the program as the benchmark runner does (nvcc with the
     manifest's flags, or its Makefile with ARCH=sm_90);
     Steps 1 and 2 run --jobs at a time (default: every core); then
  3. one program at a time, runs it under `cuda-l1-capture --launches 1 -o <dir> -- <program> <args>`
     and reads the capture's manifest: the kernels captured.

Prints one line per program and the totals:

  kernels with a launch site       N
  harness inferred, no flags       H (share)
  captured (launched at run time)  C (share)
  harness or capture               E (share)

and, under each program's line, the kernels not captured with the reason
(not launched in the run, the program failed, the capture refused the
launch and why). --json OUT
writes every kernel's result.

  utils/capture-coverage.py --tool dist/gpu/bin/cuda-l1-rewrite --capture BIN
                            [--corpus bench/corpus | --hecbench DIR [--all]]
                            [--only a,b] [--work DIR] [--timeout S] [--jobs N]
                            [--json OUT]

Exit status: 0 (the figure is printed), 2 bad usage.
"""
import argparse
import concurrent.futures
import importlib.util
import json
import os
import shlex
import shutil
import sys
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "utils", "bench"))
import benchlib as B  # noqa: E402


def _harness_coverage():
    spec = importlib.util.spec_from_file_location("harness_coverage", os.path.join(ROOT, "utils", "harness-coverage.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tool_kernels(hc, tool, prog, timeout):
    """[{kernel, launch_sites, status}] from --print-harness, or (None, error)."""
    files = [os.path.join(prog["dir"], s) for s in prog["sources"]]
    if prog["corpus"] == "hecbench":
        files = [os.path.join(prog["dir"], f) for f in hc.main_sources(prog["dir"])]
    doc, err = hc.run_one(tool, prog["dir"], files, timeout)
    if err:
        return None, err
    return doc["kernels"], None


def captured_kernels(capdir):
    """({base name: {"captured": n, "seen": n, "skipped": [reasons]}}, the
    application's exit status or None) from the capture's manifest, or
    (None, None) when there is none."""
    path = os.path.join(capdir, "manifest.json")
    if not os.path.exists(path):
        return None, None
    with open(path) as f:
        man = json.load(f)
    app_status = (man.get("app") or {}).get("exitStatus")
    out = {}
    reasons = {}
    for l in man.get("launches", []):
        if l.get("status") != "captured":
            reasons.setdefault(l.get("kernel"), []).append(l.get("reason", "?"))
    for k in man.get("kernels", []):
        name = B.kernel_base_name(k.get("demangled") or k.get("kernel", ""))
        e = out.setdefault(name, {"captured": 0, "seen": 0, "skipped": []})
        e["captured"] += k.get("captured", 0)
        e["seen"] += k.get("launchesSeen", 0)
        e["skipped"] += reasons.get(k.get("kernel"), [])
    for k in man.get("kernelsNotSelected", []):
        name = B.kernel_base_name(k.get("kernel", ""))
        out.setdefault(name, {"captured": 0, "seen": k.get("launchesSeen", 0), "skipped": ["not selected"]})
    return out, app_status


def strip_template(name):
    return name.split("<", 1)[0]


def unqualified(name):
    """'(anonymous namespace)::k<int>' -> 'k'."""
    return strip_template(name).rsplit("::", 1)[-1].rstrip(")")


def match_capture(caps, name):
    """The capture entry of the tool's kernel `name`: by its full name, else
    every instantiation or qualification of it combined (captured when any
    was; the refusals of all of them)."""
    if name in caps:
        return caps[name]
    found = [v for n, v in caps.items() if strip_template(n) == strip_template(name)] or \
        [v for n, v in caps.items() if unqualified(n) == unqualified(name)]
    if not found:
        return None
    return {"captured": sum(v["captured"] for v in found), "seen": sum(v["seen"] for v in found),
            "skipped": [r for v in found for r in v["skipped"]]}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--tool", default=os.path.join(ROOT, "build", "bin", "cuda-l1-rewrite"))
    ap.add_argument("--capture", required=True, help="the cuda-l1-capture launcher")
    ap.add_argument("--corpus", default=os.path.join(ROOT, "bench", "corpus"))
    ap.add_argument("--hecbench", default="", help="a HeCBench tree (src/ and benchmarks.yaml) instead of --corpus")
    ap.add_argument("--all", action="store_true", help="HeCBench: every program with a Makefile run target")
    ap.add_argument("--only", default="")
    ap.add_argument("--work", default="/tmp/capture-coverage")
    ap.add_argument("--timeout", type=int, default=300, help="per program: the tool, the build, the run")
    ap.add_argument("--cuda-path", default=os.environ.get("CUDA_PATH", "/usr/local/cuda"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="tool runs and builds in parallel")
    ap.add_argument("--json", default="")
    a = ap.parse_args(argv)
    for exe in (a.tool, a.capture):
        if not os.access(exe, os.X_OK):
            print("capture-coverage: %s is not an executable" % exe, file=sys.stderr)
            return 2
    a.tool, a.capture = os.path.abspath(a.tool), os.path.abspath(a.capture)
    if a.hecbench:
        progs = B.load_hecbench(os.path.abspath(a.hecbench), a.all)
    else:
        progs = B.load_manifest(a.corpus)
    progs = B.select_programs(progs, a.only)
    if not progs:
        print("capture-coverage: no program selected", file=sys.stderr)
        return 2
    hc = _harness_coverage()
    opts = types.SimpleNamespace(cuda_path=a.cuda_path, results=os.path.join(a.work, "results"),
                                 work=os.path.join(a.work, "work"), arch="sm_90", build_timeout=a.timeout,
                                 run_timeout=a.timeout, kt_kind="concurrent", kernel_times_lib="")
    runner = B.Runner(opts)
    rows, start = [], time.time()

    def cpu_stage(prog):
        """The tool's kernel list and the build: no GPU, run in parallel."""
        ks, err = tool_kernels(hc, a.tool, prog, a.timeout)
        if ks is None:
            return None, None, None, err
        src = runner.prepare(prog, "orig")
        return ks, src, runner.build(prog, src, "orig"), None

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        staged = list(pool.map(cpu_stage, progs))
    for i, (prog, (ks, src, b, err)) in enumerate(zip(progs, staged)):
        if ks is None:
            print("[%d/%d] %s: the tool failed: %s" % (i + 1, len(progs), prog["name"], err), flush=True)
            continue
        launched = [k for k in ks if k["launch_sites"] > 0]
        caps, why = None, ""
        if not b["ok"]:
            why = "the program did not build"
        else:
            capdir = os.path.join(a.work, "captures", prog["name"])
            shutil.rmtree(capdir, ignore_errors=True)
            cmd = [a.capture, "--launches", "1", "-o", capdir, "--", b["exe"]] + prog["args"]
            rc, out, errs, secs, to = runner.cmd(cmd, src, runner.base_env(), a.timeout)
            caps, app_rc = captured_kernels(capdir)
            if to:
                why = "the program timed out under capture"
            elif caps is None:
                last = (errs or out).strip().splitlines()[-1:]
                why = "no capture (exit %d): %s" % (rc, last[0][:300] if last else "no output")
            elif rc != 0 and app_rc not in (None, 0):
                why = "the program exited %d under capture" % app_rc
            elif rc != 0:
                why = "the capture launcher exited %d (3: the program ran, nothing valid captured)" % rc
        n_cap, lines = 0, []
        for k in launched:
            name = k["kernel"]
            c = None
            if caps:
                c = match_capture(caps, name)
            k = {"program": prog["name"], "kernel": name, "harness": k["status"],
                 "captured": bool(c and c["captured"] > 0)}
            if not k["captured"]:
                if c and c["skipped"]:
                    k["why"] = "capture refused: " + c["skipped"][0]
                elif caps is not None:
                    k["why"] = "not launched in this run" + (" (%s)" % why if why else "")
                else:
                    k["why"] = why or "no capture"
            n_cap += k["captured"]
            rows.append(k)
            if not k["captured"]:
                lines.append("    %s (harness %s): %s" % (name, k["harness"], k["why"]))
        # Printed as each program finishes, so that a run stopped midway
        # still says why each kernel was not captured.
        print("[%d/%d] %s: %d with a launch site, %d harness, %d captured%s" % (
            i + 1, len(progs), prog["name"], len(launched),
            sum(1 for k in launched if k["status"] == "complete"), n_cap, "; " + why if why else ""), flush=True)
        if lines:
            print("\n".join(lines), flush=True)
    n = len(rows)
    h = sum(1 for r in rows if r["harness"] == "complete")
    c = sum(1 for r in rows if r["captured"])
    e = sum(1 for r in rows if r["captured"] or r["harness"] == "complete")
    pct = (lambda x: 100.0 * x / n if n else 0.0)
    failed = sum(1 for st in staged if st[0] is None)
    print("programs: %d (%d left out: the tool failed on them), time %.0f s" % (len(progs), failed, time.time() - start))
    print("kernels with a launch site       %d" % n)
    print("harness inferred, no flags       %d (%.1f%%)" % (h, pct(h)))
    print("captured (launched at run time)  %d (%.1f%%)" % (c, pct(c)))
    print("harness or capture               %d (%.1f%%)" % (e, pct(e)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"kernels": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
