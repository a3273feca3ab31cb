#!/usr/bin/env python3
"""End-to-end benchmark of cuda-l1 on whole programs (issue 15).

For every program of a corpus (ours: bench/corpus; or HeCBench with
--hecbench), on a GPU machine:
  1. build it as it is (nvcc -arch=sm_90 -O3, or its Makefile) and run it:
     its own check, its own timer line, and every kernel's GPU time (CUPTI
     activity records through the injection library utils/bench/kernel-times.cpp);
  2. run `cuda-l1-rewrite -p <copy> --fix --verify=run <sources>` on a copy
     (TOOL_TEMPLATES in utils/bench/benchlib.py; --tool-mode=proven: `--fix`
     without a GPU, the proven fixes only; or any --tool-cmd template),
     rebuild, rerun: the own check must still pass; kernel times again; the
     rules applied (from the tool's '// cuda-l1:' annotations) and its output;
  3. one JSON per program under <results>/programs (resumable: programs done
     are skipped unless --force; slices merge), then summary.json,
     summary.md and speedup.svg over every result there;
  4. reference points once per results folder (refs.json): device-to-device
     copy bandwidth (utils/bench/copy-bw.cu) and cuBLAS for the corpus's
     matrix operations (utils/bench/cublas-ref.cu), when built (see
     utils/bench-corpus-gpu.sh, which builds the helpers and runs a slice).

  utils/bench-corpus.py [--corpus DIR | --hecbench DIR] [--only a,b] [--slice i/n]
                        [--budget SECONDS] [--results DIR] [--rewrite BIN] ...
  utils/bench-corpus.py --report-only [--results DIR]
  utils/bench-corpus.py --check-manifest [--corpus DIR]

Exit status: 0 every selected program has a result; 3 some are left (time
budget): run the same command again; 2 bad usage.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
import benchlib as B  # noqa: E402

ROOT = B.ROOT


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    src = ap.add_argument_group("programs")
    src.add_argument("--corpus", default=None, help="naive-style corpus folder (default bench/corpus)")
    src.add_argument("--hecbench", default=None, help="HeCBench root (with benchmarks.yaml and src/)")
    src.add_argument("--hecbench-all", action="store_true",
                     help="also HeCBench programs without test metadata (run without arguments)")
    src.add_argument("--only", default="", help="comma-separated program names")
    src.add_argument("--slice", default="", help="i/n: the i-th of n interleaved slices")
    src.add_argument("--list", action="store_true", help="list the selected programs and exit")
    src.add_argument("--args", action="append", default=[], metavar="NAME=ARGS",
                     help="NAME's command line (repeatable): for HeCBench programs without test "
                          "metadata (--hecbench-all), or other sizes")
    io = ap.add_argument_group("results")
    io.add_argument("--results", default=None, help="results folder (default bench/results/<corpus>)")
    io.add_argument("--work", default=None, help="scratch folder (default $TMPDIR/cuda-l1-bench)")
    io.add_argument("--keep-work", action="store_true", help="keep the scratch copies")
    io.add_argument("--force", action="store_true", help="rerun programs that have a result")
    io.add_argument("--retry-errors", action="store_true", help="rerun programs whose run hit a runner error")
    io.add_argument("--report-only", action="store_true", help="only rewrite summary.{json,md} and speedup.svg")
    io.add_argument("--check-manifest", action="store_true", help="check bench/corpus/manifest.json and exit")
    tool = ap.add_argument_group("the tool")
    tool.add_argument("--rewrite", default=None,
                      help="cuda-l1-rewrite (default dist/gpu/bin/cuda-l1-rewrite, else build/bin/...)")
    tool.add_argument("--no-rewrite", action="store_true", help="only build and run the originals")
    tool.add_argument("--tool-mode", choices=sorted(B.TOOL_TEMPLATES), default="verify",
                      help="verify: %r (default); proven: %r" % (B.TOOL_TEMPLATES["verify"], B.TOOL_TEMPLATES["proven"]))
    tool.add_argument("--tool-cmd", default=None, help="the rewrite command template (overrides --tool-mode)")
    tool.add_argument("--tool-cuda-path", default=None,
                      help="CUDA_PATH for the tool (default: --cuda-path; tests build with a stand-in nvcc)")
    tool.add_argument("--tool-timeout", type=float, default=300, help="seconds per program (default 300)")
    tool.add_argument("--capture", choices=["auto", "on", "off"], default="auto",
                      help="run cuda-l1-capture first and pass --capture (auto: when it is next to the rewrite binary)")
    run = ap.add_argument_group("running")
    run.add_argument("--cuda-path", default=os.environ.get("CUDA_PATH", "/usr/local/cuda"))
    run.add_argument("--arch", default="sm_90")
    run.add_argument("--helpers", default=None, help="built helpers (default <results>/../.helpers)")
    run.add_argument("--kernel-times-lib", default=None, help="CUPTI injection library (default <helpers>/libkernel-times.so)")
    run.add_argument("--kt-kind", choices=["concurrent", "kernel"], default="concurrent",
                     help="CUPTI activity kind for kernel times (default concurrent)")
    run.add_argument("--budget", type=float, default=0, help="stop starting programs after this many seconds (0: none)")
    run.add_argument("--jobs", type=int, default=max(1, min(8, (os.cpu_count() or 2) // 2)),
                     help="programs prepared in parallel with the GPU runs (builds; in proven mode "
                          "also the rewrite and the rebuild)")
    run.add_argument("--repeat", type=int, default=1,
                     help="runs of each binary (kernel times: the median; the spread is reported)")
    run.add_argument("--run-timeout", type=float, default=120)
    run.add_argument("--build-timeout", type=float, default=300)
    run.add_argument("--ncu", action="store_true", help="also run each binary under ncu for DRAM bytes")
    run.add_argument("--ncu-launches", type=int, default=200)
    run.add_argument("--no-refs", action="store_true", help="do not run copy-bw / cublas-ref")
    run.add_argument("--force-refs", action="store_true", help="measure the reference points again")
    a = ap.parse_args(argv)
    if a.corpus and a.hecbench:
        ap.error("--corpus and --hecbench are exclusive")
    if not a.hecbench and not a.corpus:
        a.corpus = os.path.join(ROOT, "bench", "corpus")
    # commands run in scratch folders: every path absolute
    for k in ("corpus", "hecbench", "results", "work", "helpers", "cuda_path", "tool_cuda_path"):
        if getattr(a, k):
            setattr(a, k, os.path.abspath(getattr(a, k)))
    if a.kernel_times_lib:
        a.kernel_times_lib = os.path.abspath(a.kernel_times_lib)
    name = "hecbench" if a.hecbench else os.path.basename(os.path.normpath(a.corpus))
    if a.tool_mode != "verify" and not a.tool_cmd:
        name += "-" + a.tool_mode
    a.results = a.results or os.path.join(ROOT, "bench", "results", name)
    a.work = a.work or os.path.join(tempfile.gettempdir(), "cuda-l1-bench", name)
    a.helpers = a.helpers or os.path.join(os.path.dirname(os.path.abspath(a.results)), ".helpers")
    if a.kernel_times_lib is None:
        p = os.path.join(a.helpers, "libkernel-times.so")
        a.kernel_times_lib = p if os.path.exists(p) else ""
    if a.rewrite is None:
        for p in (os.path.join(ROOT, "dist", "gpu", "bin", "cuda-l1-rewrite"),
                  os.path.join(ROOT, "build", "bin", "cuda-l1-rewrite")):
            if os.path.exists(p):
                a.rewrite = p
                break
        else:
            a.rewrite = ""
    a.rewrite = os.path.abspath(a.rewrite) if a.rewrite else ""
    a.capture_bin = ""
    if a.capture != "off" and a.rewrite:
        cap = os.path.join(os.path.dirname(a.rewrite), "cuda-l1-capture")
        if os.path.exists(cap):
            a.capture_bin = cap
        elif a.capture == "on":
            ap.error("--capture=on: no %s" % cap)
    return a


def load_programs(a):
    if a.hecbench:
        return B.load_hecbench(a.hecbench, a.hecbench_all)
    return B.load_manifest(a.corpus)


def environment(a):
    env = {}
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=30).stdout
        env["gpu"] = out.strip().splitlines()[0] if out.strip() else "?"
    except (OSError, subprocess.SubprocessError):
        env["gpu"] = "none found"
    try:
        out = subprocess.run([os.path.join(a.cuda_path, "bin", "nvcc"), "--version"], capture_output=True,
                             text=True, timeout=30).stdout
        rel = [l for l in out.splitlines() if "release" in l]
        env["nvcc"] = rel[0].strip() if rel else (out.strip().splitlines()[-1] if out.strip() else "?")
    except (OSError, subprocess.SubprocessError):
        env["nvcc"] = "?"
    # The tool's own build commit first: on a GPU machine the working copy's
    # .git may be older than the binary carried there.
    env["commit"] = os.environ.get("CUDAL1_COMMIT") or B.tool_commit(a.rewrite) or B.git_commit(ROOT)
    env["tool"] = a.rewrite or "none"
    env["tool_template"] = a.tool_cmd or B.TOOL_TEMPLATES[a.tool_mode]
    return env


def measure_refs(a, programs):
    """refs.json: copy bandwidth, cuBLAS times for the manifest's operations,
    and the machine."""
    path = os.path.join(a.results, "refs.json")
    refs = B.load_json(path)
    if refs and not a.force_refs:
        return refs
    refs = {"env": environment(a), "copy": None, "cublas": {}}
    copy_bw = os.path.join(a.helpers, "copy-bw")
    if os.path.exists(copy_bw):
        rc, out, err, secs, to = B.run_cmd([copy_bw], a.helpers, None, 120)
        refs["copy"] = B.last_json_line(out) or {"error": B.tail(out + err, 500)}
    keys = sorted({B.cublas_key(c, p["sizes"]) for p in programs for c in p.get("cublas", [])})
    cublas = os.path.join(a.helpers, "cublas-ref")
    if keys and os.path.exists(cublas):
        env = dict(os.environ, NVIDIA_TF32_OVERRIDE="0")
        rc, out, err, secs, to = B.run_cmd([cublas] + keys, a.helpers, env, 300)
        for line in out.splitlines():
            try:
                d = json.loads(line)
                refs["cublas"][d["op"]] = d
            except (ValueError, KeyError):
                pass
        if rc != 0:
            refs["cublas_error"] = B.tail(out + err, 800)
    B.write_atomic(path, json.dumps(refs, indent=1, sort_keys=True))
    return refs


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    if a.check_manifest:
        problems = B.check_manifest(a.corpus)
        for p in problems:
            print("manifest: " + p)
        print("manifest: %d problems" % len(problems))
        return 1 if problems else 0
    try:
        programs = B.set_program_args(B.select_programs(load_programs(a), a.only, a.slice), a.args)
    except ValueError as e:
        print("bench-corpus: error: %s" % e, file=sys.stderr)
        return 2
    if a.list:
        for p in programs:
            print("%-28s %-14s %s" % (p["name"], p["category"], " ".join(p["args"])))
        return 0
    all_names = [p["name"] for p in load_programs(a)]
    if a.report_only:
        s = B.write_report(a.results, expected=all_names)
        print("wrote %s/summary.md (%d programs, geomean %s)" % (a.results, s["programs"],
                                                                  B._f(s["geomean_speedup"], "%.3fx")))
        return 0

    if a.rewrite and not a.no_rewrite and not os.access(a.rewrite, os.X_OK):
        print("bench-corpus: error: %s: no such executable (--rewrite; or --no-rewrite)" % a.rewrite,
              file=sys.stderr)
        return 2
    if a.kernel_times_lib and not os.path.exists(a.kernel_times_lib):
        print("bench-corpus: error: %s: no such file (--kernel-times-lib)" % a.kernel_times_lib, file=sys.stderr)
        return 2
    t_start = time.time()
    runner = B.Runner(a)
    if a.budget:
        runner.deadline = t_start + a.budget
    if not a.kernel_times_lib:
        runner.log("warning: no kernel-times library (build it with utils/bench-corpus-gpu.sh); "
                   "kernel times are not measured")
    if not a.rewrite and not a.no_rewrite:
        runner.log("warning: no cuda-l1-rewrite found; originals only")
    refs = None if a.no_refs else measure_refs(a, load_programs(a))
    todo = [p for p in programs if a.force or not runner.is_done(p)]
    runner.log("%d programs selected, %d to run (budget %s)" % (len(programs), len(todo),
                                                                "%.0f s" % a.budget if a.budget else "none"))
    done_now, left = 0, []
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        ahead = max(1, a.jobs) * 2
        futures = {}
        for i, p in enumerate(todo):
            for q in todo[i:i + ahead]:      # CPU stages run ahead of the GPU work
                if q["name"] not in futures:
                    futures[q["name"]] = pool.submit(runner.cpu_stage_safe, q)
            left_s = (runner.deadline - time.time()) if runner.deadline else None
            if left_s is not None and left_s < min(90.0, a.budget / 4):
                left = [q["name"] for q in todo[i:]]
                break
            runner.log("[%d/%d] %s" % (i + 1, len(todo), p["name"]))
            r = runner.run_program(p, futures.pop(p["name"]).result())
            if r["status"] == "interrupted":
                left = [q["name"] for q in todo[i:]]
                break
            done_now += 1
            B.write_report(a.results, refs, all_names)
        for f in futures.values():
            f.cancel()
        if left:
            runner.abort()     # what runs ahead for later programs stops now
    s = B.write_report(a.results, refs, all_names)
    runner.log("done %d programs in %.0f s; %d left%s; geomean so far %s over %d measured" % (
        done_now, time.time() - t_start, len(left), (": " + ", ".join(left)) if left else "",
        B._f(s["geomean_speedup"], "%.3fx"), s["measured"]))
    if not a.keep_work:
        shutil.rmtree(a.work, ignore_errors=True)
    return 3 if left else 0


if __name__ == "__main__":
    sys.exit(main())
