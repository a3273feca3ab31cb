#!/usr/bin/env python3
"""The real-code sweep (issue 18): runs cuda-l1-rewrite over every CUDA file of
a folder of programs nobody here wrote and checks that it holds up.

    utils/sweep.py [--corpus DIR] [--tool BIN] [-j N] [--limit N] [--only a,b]
                   [--timeout S] [--out DIR] [--no-nvcc] [--shuffle]
    utils/sweep.py --summarize --out DIR     (the table of a run, finished or not)

For each .cu file (include folders: the file's folder, its program's folder
and that folder's include/, common/ and src/ folders) it runs, each with a
time limit:
  - clang's own parse of the same command line (the tool's --print-commands,
    with -fsyntax-only): the baseline parse rate;
  - --list-kernels, advise (the default mode), -o <dir> with every fix
    (--allow-unverified --allow-fast-math), --print-harness (when the tool
    has it);
and checks: exit status 0, 1 or 2 only (anything else is a crash), no time
out; every rewritten file still parses wherever the original parses with
clang, and still compiles with nvcc wherever the original does; a second -o
run on the rewritten files changes nothing (idempotent). Prints a table
(files, parse rates, findings and fixes per rule, harness inference, times
against clang) and every failure with the command that reproduces it;
writes sweep.json and sweep.md under --out.

Python standard library only. The corpus is data: nothing of it is copied.
"""
import argparse
import concurrent.futures as cf
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "hecbench")
CRASH_OK = {0, 1, 2}


def run(cmd, timeout, cwd=None):
    """(exit status or 'timeout', seconds, stdout, stderr)."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                           errors="replace", timeout=timeout)
        return p.returncode, time.monotonic() - t0, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return "timeout", time.monotonic() - t0, out, ""


def include_dirs(path, corpus):
    d = os.path.dirname(path)
    prog = d
    src = os.path.join(corpus, "src")
    while os.path.dirname(prog) != src and os.path.dirname(prog) != prog:
        prog = os.path.dirname(prog)
    dirs = [d]
    for cand in [prog] + [os.path.join(prog, s) for s in ("include", "common", "src", "inc")]:
        if os.path.isdir(cand) and cand not in dirs:
            dirs.append(cand)
    return dirs


def find_files(corpus, only):
    src = os.path.join(corpus, "src")
    out = []
    for prog in sorted(os.listdir(src)):
        if not prog.endswith("-cuda"):
            continue
        if only and prog[:-5] not in only and prog not in only:
            continue
        for dp, _, fs in os.walk(os.path.join(src, prog)):
            for f in sorted(fs):
                if f.endswith(".cu"):
                    out.append(os.path.join(dp, f))
    return out


def tool_has(tool, flag):
    rc, _, out, err = run([tool, "--help-hidden"], 60)
    return ("-" + flag) in out + err


def clang_parse(tool, path, args, timeout):
    """The tool's own clang command for the file, run by clang with
    -fsyntax-only: does clang itself parse it?"""
    rc, _, out, _ = run([tool, "--print-commands", path, "--"] + args, timeout)
    line = out.strip().split("\n")[0] if out.strip() else ""
    if ":" not in line:
        return None, 0.0
    cmd = shlex.split(line.split(":", 1)[1])
    if not cmd:
        return None, 0.0
    # The tool prints its internal argv; clang++-22 takes the same flags.
    exe = shutil.which("clang++-22") or "clang++"
    cmd = [exe] + [a for a in cmd[1:] if a not in ("-fsyntax-only",)] + ["-fsyntax-only"]
    rc, secs, _, _ = run(cmd, timeout)
    return rc == 0, secs


def nvcc_compiles(path, incs, timeout):
    nvcc = os.path.join(os.environ.get("CUDA_PATH", "/usr/local/cuda"), "bin", "nvcc")
    if not os.path.exists(nvcc):
        return None
    with tempfile.TemporaryDirectory() as t:
        cmd = [nvcc, "-arch=sm_90", "-std=c++17", "-c", path, "-o", os.path.join(t, "x.o")]
        cmd += ["-I" + i for i in incs]
        rc, _, _, _ = run(cmd, timeout)
        return rc == 0


FINDING = re.compile(r": (warning|error): .*\[([a-z0-9-]+)\]$")
# clang's closing count ("20 errors generated when compiling for sm_90.").
BARE = re.compile(r"^\d+ (errors?|warnings?)( and \d+ (errors?|warnings?))? generated\b.*$")
MAX_PASSES = 4
# A fix dropped for an overlap with a fix that has priority (docs/fixes.md).
DROPPED = re.compile(r"\[([a-z0-9-]+)\] fix not applied: its edit overlaps")


def fix_rules(yaml_path):
    try:
        # A kernel's composed fix is named 'rule-a + rule-b + ...' (docs/fixes.md,
        # "Composition"): each rule counts.
        names = re.findall(r"DiagnosticName:\s*'?([a-z0-9 +-]+?)'?\s*$", open(yaml_path).read(), re.M)
        return [r for n in names for r in n.split(" + ") if r]
    except OSError:
        return []


LOCATED = re.compile(r":\d+:\d+: (fatal error|error|warning|note): ")


def sweep_file(path, a, has_harness):
    incs = include_dirs(path, a.corpus)
    args = ["-I" + i for i in incs]
    r = {"file": os.path.relpath(path, a.corpus), "failures": []}
    fail = lambda what, cmd: r["failures"].append({"what": what, "repro": " ".join(shlex.quote(c) for c in cmd)})
    r["bare"] = []

    def note_bare(err, step):
        """clang's "N errors generated" with no located diagnostic in the
        same output: the tool let a compile check's count through without
        saying what was checked."""
        lines = err.split("\n")
        if any(LOCATED.search(l) for l in lines):
            return
        r["bare"] += ["%s: %s" % (step, l.strip()) for l in lines if BARE.match(l.strip())]
    # clang's own parse.
    r["clang_parses"], r["clang_s"] = clang_parse(a.tool, path, args, a.timeout)
    # --list-kernels
    cmd = [a.tool, "--list-kernels", "--format=json", path, "--"] + args
    rc, secs, out, err = run(cmd, a.timeout)
    r["list_rc"], r["list_s"] = rc, secs
    note_bare(err, "--list-kernels")
    if rc not in CRASH_OK:
        fail("--list-kernels: exit %s" % rc, cmd)
    r["kernels"] = 0
    r["launches"] = 0
    if rc == 0:
        try:
            d = json.loads(out)
            r["kernels"] = len(d.get("kernels", []))
            r["launches"] = len(d.get("launch_sites", d.get("launchSites", [])))
        except ValueError:
            fail("--list-kernels: not JSON", cmd)
    r["tool_parses"] = rc == 0
    # advise
    cmd = [a.tool, path, "--"] + args
    rc, secs, out, err = run(cmd, a.timeout)
    r["advise_rc"], r["advise_s"] = rc, secs
    note_bare(err, "advise")
    if rc not in CRASH_OK:
        fail("advise: exit %s" % rc, cmd)
    rules = {}
    for line in out.split("\n"):
        m = FINDING.search(line)
        if m:
            rules[m.group(2)] = rules.get(m.group(2), 0) + 1
    r["findings"] = rules
    if "crashed" in err:
        fail("advise: a rule crashed", cmd)
    # -o with every fix
    with tempfile.TemporaryDirectory() as t:
        o1, o2 = os.path.join(t, "o1"), os.path.join(t, "o2")
        cmd = [a.tool, "--allow-unverified", "--allow-fast-math", "--export-fixes",
               os.path.join(t, "fixes.yaml"), "-o", o1, path, "--"] + args
        rc, secs, out, err = run(cmd, a.timeout)
        r["fix_rc"], r["fix_s"] = rc, secs
        note_bare(err, "-o")
        if rc not in CRASH_OK:
            fail("-o: exit %s" % rc, cmd)
        fixes = {}
        for k in fix_rules(os.path.join(t, "fixes.yaml")):
            fixes[k] = fixes.get(k, 0) + 1
        r["fixes"] = fixes
        rewritten = []
        for dp, _, fs in os.walk(o1):
            rewritten += [os.path.join(dp, f) for f in fs if f.endswith((".cu", ".cuh", ".h", ".hpp"))]
        r["rewritten_files"] = len(rewritten)
        mine = [f for f in rewritten if os.path.basename(f) == os.path.basename(path)]
        if mine:
            new = mine[0]
            nargs = ["-I" + os.path.dirname(new)] + args
            if r["clang_parses"]:
                ok, _ = clang_parse(a.tool, new, nargs, a.timeout)
                r["rewritten_parses"] = ok
                if ok is False:
                    fail("rewritten file no longer parses with clang", [a.tool, "--print-commands", new, "--"] + nargs)
            if not a.no_nvcc:
                before = nvcc_compiles(path, incs, a.timeout * 3)
                if before:
                    after = nvcc_compiles(new, [os.path.dirname(new)] + incs, a.timeout * 3)
                    r["nvcc_before"], r["nvcc_after"] = before, after
                    if after is False:
                        fail("rewritten file no longer compiles with nvcc", ["nvcc", "-arch=sm_90", "-c", new])
            # Idempotence: a second run on the output changes nothing, except
            # for fixes the first run dropped because their edit overlapped a
            # fix with priority ("... fix not applied: its edit overlaps",
            # docs/fixes.md "Conflicts") and no later round applied: those
            # runs must converge,
            # each applying only fixes of rules the run before announced as
            # dropped that way.
            cur, cur_args, prev_err = new, nargs, err
            r["passes"] = 1
            for k in range(2, MAX_PASSES + 2):
                ok_dir, fx = os.path.join(t, "o%d" % k), os.path.join(t, "fixes%d.yaml" % k)
                cmd2 = [a.tool, "--allow-unverified", "--allow-fast-math", "--export-fixes", fx,
                        "-o", ok_dir, cur, "--"] + cur_args
                rc2, _, _, err2 = run(cmd2, a.timeout)
                note_bare(err2, "-o pass %d" % k)
                if rc2 not in CRASH_OK:
                    fail("-o pass %d: exit %s" % (k, rc2), cmd2)
                    break
                again = []
                for dp, _, fs in os.walk(ok_dir):
                    again += [os.path.join(dp, f) for f in fs if os.path.basename(f) == os.path.basename(path)]
                # -o writes only files it changes: none written is idempotent.
                if not again or open(again[0], "rb").read() == open(cur, "rb").read():
                    r["idempotent"] = k == 2
                    break
                announced = set(DROPPED.findall(prev_err))
                applied = set(fix_rules(fx))
                if not applied <= announced:
                    r["idempotent"] = False
                    fail("-o pass %d changed the rewritten file (fixes of %s; the pass before dropped only %s)"
                         % (k, ", ".join(sorted(applied - announced)) or "no rule",
                            ", ".join(sorted(announced)) or "none"), cmd2)
                    break
                r["passes"] = k
                cur, cur_args, prev_err = again[0], ["-I" + os.path.dirname(again[0])] + cur_args, err2
            else:
                r["idempotent"] = False
                fail("-o runs still change the file after %d passes" % (MAX_PASSES + 1), cmd2)
    # --print-harness
    if has_harness:
        cmd = [a.tool, "--print-harness", "--format=json", path, "--"] + args
        rc, secs, out, err = run(cmd, a.timeout)
        r["harness_rc"] = rc
        if rc not in CRASH_OK:
            fail("--print-harness: exit %s" % rc, cmd)
        note_bare(err, "--print-harness")
        try:
            d = json.loads(out) if rc in (0, 1) else {}
        except ValueError:
            d = None
            if rc in (0, 1):
                fail("--print-harness: not JSON", cmd)
        if isinstance(d, dict):
            # {"kernels": [{"kernel", "launch_sites", "status":
            #   complete|incomplete|no-launch|..., ...}], "summary": {...}}
            ks = [k for k in d.get("kernels", []) if isinstance(k, dict)]
            launched = [k for k in ks if k.get("launch_sites", 0) > 0]
            r["harness_kernels"] = len(launched)
            r["harness_complete"] = len([k for k in launched if k.get("status") == "complete"])
            st = {}
            for k in ks:
                st[k.get("status", "?")] = st.get(k.get("status", "?"), 0) + 1
            r["harness_status"] = st
    return r


def summarize(results, elapsed):
    n = len(results)
    clang_ok = sum(1 for r in results if r.get("clang_parses"))
    tool_ok = sum(1 for r in results if r.get("tool_parses"))
    both = sum(1 for r in results if r.get("clang_parses") and r.get("tool_parses"))
    crashes = [f for r in results for f in r["failures"]]
    find, fix = {}, {}
    for r in results:
        for k, v in r.get("findings", {}).items():
            find[k] = find.get(k, 0) + v
        for k, v in r.get("fixes", {}).items():
            fix[k] = fix.get(k, 0) + v
    ratio = lambda k: [r[k] / r["clang_s"] for r in results if r.get("clang_s") and r.get(k) is not None and r.get("clang_parses")]
    med = lambda xs: sorted(xs)[len(xs) // 2] if xs else 0
    hk = sum(r.get("harness_kernels", 0) for r in results)
    hc = sum(r.get("harness_complete", 0) for r in results)
    lines = ["# Real-code sweep", "",
             "%d files, %.0f s wall" % (n, elapsed), "",
             "| measure | value |", "|---|---|",
             "| clang parses (its own command line, -fsyntax-only) | %d of %d |" % (clang_ok, n),
             "| cuda-l1-rewrite parses | %d of %d (%d of the %d clang parses) |" % (tool_ok, n, both, clang_ok),
             "| failures (crash, time-out, broken rewrite, not idempotent) | %d |" % len(crashes),
             "| rewritten files that still parse (where the original does) | %d of %d |" % (
                 sum(1 for r in results if r.get("rewritten_parses")),
                 sum(1 for r in results if "rewritten_parses" in r)),
             "| rewritten files that still compile with nvcc (where the original does) | %d of %d |" % (
                 sum(1 for r in results if r.get("nvcc_after")),
                 sum(1 for r in results if r.get("nvcc_before"))),
             "| idempotent (second -o run changes nothing) | %d of %d |" % (
                 sum(1 for r in results if r.get("idempotent")),
                 sum(1 for r in results if "idempotent" in r)),
             "| converge in more -o runs, each applying only fixes the run before dropped for an overlap | %d |" % (
                 sum(1 for r in results if r.get("passes", 1) > 1 and not any(
                     "pass" in f["what"] or "passes" in f["what"] for f in r["failures"]))),
             "| kernels / launch sites | %d / %d |" % (sum(r.get("kernels", 0) for r in results),
                                                     sum(r.get("launches", 0) for r in results)),
             "| harness inferred with no flags (complete, of the kernels with a launch site) | %s |" % (
                 "%d of %d kernels" % (hc, hk) if hk else "n/a"),
             "| bare \"N errors generated\" lines in the tool's stderr | %d |" % sum(len(r.get("bare", [])) for r in results),
             "| advise time / clang parse time (median) | %.2fx |" % med(ratio("advise_s")),
             "| -o with every fix time / clang parse time (median) | %.2fx |" % med(ratio("fix_s")),
             "", "## Findings and fixes per rule", "", "| rule | findings | fixes |", "|---|---|---|"]
    for k in sorted(set(find) | set(fix)):
        lines.append("| %s | %d | %d |" % (k, find.get(k, 0), fix.get(k, 0)))
    hs = {}
    for r in results:
        for k, v in r.get("harness_status", {}).items():
            hs[k] = hs.get(k, 0) + v
    if hs:
        lines += ["", "## --print-harness statuses", "", "| status | kernels |", "|---|---|"]
        lines += ["| %s | %d |" % (k, hs[k]) for k in sorted(hs)]
    bare = [(r["file"], b) for r in results for b in r.get("bare", [])]
    if bare:
        lines += ["", "## Bare clang lines in the tool's stderr", ""]
        lines += ["- %s: %s" % fb for fb in bare]
    lines += ["", "## Failures", ""]
    for r in results:
        for f in r["failures"]:
            lines.append("- %s: %s  \n  `%s`" % (r["file"], f["what"], f["repro"]))
    if not crashes:
        lines.append("none")
    return "\n".join(lines) + "\n", crashes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpus", default=DEFAULT_CORPUS)
    p.add_argument("--tool", default=os.path.join(ROOT, "build", "bin", "cuda-l1-rewrite"))
    p.add_argument("-j", type=int, default=os.cpu_count() or 1)
    p.add_argument("--limit", type=int, default=0, help="at most N files (every k-th, spread)")
    p.add_argument("--only", default="", help="programs, comma-separated")
    p.add_argument("--timeout", type=float, default=120)
    p.add_argument("--out", default=os.path.join(ROOT, "build", "sweep"))
    p.add_argument("--no-nvcc", action="store_true")
    p.add_argument("--shuffle", action="store_true",
                   help="a fixed pseudo-random order, so that a run stopped early covers a spread of programs")
    p.add_argument("--summarize", action="store_true",
                   help="no run: the table from --out's sweep.jsonl (a run stopped early included)")
    a = p.parse_args()
    if a.summarize:
        jl = os.path.join(a.out, "sweep.jsonl")
        results = [json.loads(l) for l in open(jl) if l.strip()]
        md, crashes = summarize(results, sum(r.get("wall_s", 0) for r in results))
        open(os.path.join(a.out, "sweep.md"), "w").write(md)
        print(md)
        sys.exit(1 if crashes else 0)
    if not os.path.isdir(os.path.join(a.corpus, "src")):
        sys.exit("sweep: %s: not a corpus folder (expected src/<program>-cuda/)" % a.corpus)
    if not os.access(a.tool, os.X_OK):
        sys.exit("sweep: %s: no cuda-l1-rewrite binary there (build it, or give --tool)" % a.tool)
    files = find_files(a.corpus, set(x for x in a.only.split(",") if x))
    if a.limit and len(files) > a.limit:
        step = len(files) / a.limit
        files = [files[int(i * step)] for i in range(a.limit)]
    if a.shuffle:
        random.Random(18).shuffle(files)
    has_harness = tool_has(a.tool, "print-harness")
    os.makedirs(a.out, exist_ok=True)
    t0 = time.monotonic()
    results = []
    jl = open(os.path.join(a.out, "sweep.jsonl"), "w")

    def one(f):
        t = time.monotonic()
        r = sweep_file(f, a, has_harness)
        r["wall_s"] = time.monotonic() - t
        return r
    with cf.ThreadPoolExecutor(max_workers=a.j) as ex:
        for i, r in enumerate(ex.map(one, files)):
            results.append(r)
            jl.write(json.dumps(r) + "\n")
            jl.flush()
            print("[%d/%d] %s%s" % (i + 1, len(files), r["file"],
                                    "" if not r["failures"] else "  FAIL: " + "; ".join(f["what"] for f in r["failures"])),
                  flush=True)
    md, crashes = summarize(results, time.monotonic() - t0)
    json.dump(results, open(os.path.join(a.out, "sweep.json"), "w"), indent=1)
    open(os.path.join(a.out, "sweep.md"), "w").write(md)
    print(md)
    print("sweep: %s (%d failures); results in %s" % ("FAIL" if crashes else "PASS", len(crashes), a.out))
    sys.exit(1 if crashes else 0)


if __name__ == "__main__":
    main()
