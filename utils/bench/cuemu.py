#!/usr/bin/env python3
"""Runs the programs of the naive-style corpus on the CPU (no GPU needed).

Each program is compiled with g++ against utils/bench/cuemu/cuemu.h (a small
CPU stand-in for the part of CUDA the corpus uses) at the small sizes of its
manifest entry ("emu_defines"), run, and must print PASS as its last line
and exit 0. This checks host code, kernel indexing and the CPU references
before a GPU ever sees them; it does not find races (fixed execution order)
nor anything about speed.

  utils/bench/cuemu.py [--corpus bench/corpus] [--only a,b] [-j N] [--keep DIR]
  utils/bench/cuemu.py --file prog.cu [-DNAME=V ...]      (one file)
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EMU = os.path.join(HERE, "cuemu")

LAUNCH_RE = re.compile(r"([A-Za-z_]\w*(?:\s*<[^<>;()]*>)?)\s*<<<(.*?)>>>", re.S)
EXTERN_SHARED_RE = re.compile(
    r"extern\s+__shared__\s+(?:__align__\(\s*\d+\s*\)\s+)?([\w:]+)\s+(\w+)\s*\[\s*\]\s*;")


def translate(text):
    """CUDA source -> C++ for cuemu: launches and dynamic shared memory."""
    text = EXTERN_SHARED_RE.sub(r"\1 *\2 = (\1 *)cuemu::dyn_shared;", text)
    return LAUNCH_RE.sub(lambda m: 'cuemu::launch(%s, "%s", %s)' % (
        m.group(1), re.sub(r"\s+", "", m.group(1)), m.group(2)), text)


def compile_program(srcdir, sources, defines, exe, workdir, cxx="g++", extra_flags=()):
    """Translates and compiles; returns (ok, log)."""
    os.makedirs(workdir, exist_ok=True)
    cpps = []
    for s in sources:
        with open(os.path.join(srcdir, s)) as f:
            text = f.read()
        out = os.path.join(workdir, os.path.basename(s) + ".cpp")
        with open(out, "w") as f:
            f.write('#line 1 "%s"\n' % os.path.join(srcdir, s))
            f.write(translate(text))
        cpps.append(out)
    cmd = [cxx, "-std=c++17", "-O2", "-g", "-Wall", "-Wno-unused-function",
           "-Wno-unknown-pragmas", "-iquote", srcdir, "-I", os.path.join(EMU, "include"),
           "-include", os.path.join(EMU, "cuemu.h")]
    cmd += list(extra_flags)
    cmd += ["-D%s=%s" % (k, v) for k, v in defines.items()]
    cmd += cpps + ["-o", exe, "-lm"]
    log = ["$ " + " ".join(cmd)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    log.append(p.stdout + p.stderr)
    if p.returncode != 0:
        return False, "\n".join(log) + "\ncompile failed"
    return True, "\n".join(log)


def build_and_run(srcdir, sources, defines, args, workdir, timeout=300, cxx="g++",
                  extra_flags=()):
    """Returns (ok, log)."""
    exe = os.path.join(workdir, "prog")
    ok, clog = compile_program(srcdir, sources, defines, exe, workdir, cxx, extra_flags)
    if not ok:
        return False, clog
    log = [clog]
    try:
        env = dict(os.environ)
        # the fibers' stacks and the never-freed events are not leaks worth a failure
        env["ASAN_OPTIONS"] = "detect_leaks=0:" + env.get("ASAN_OPTIONS", "")
        env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1:" + env.get("UBSAN_OPTIONS", "")
        p = subprocess.run([exe] + list(args), capture_output=True, text=True,
                           timeout=timeout, cwd=workdir, env=env)
    except subprocess.TimeoutExpired:
        return False, "\n".join(log) + "\ntimeout"
    log.append(p.stdout + p.stderr)
    lines = [l for l in p.stdout.splitlines() if l.strip()]
    ok = p.returncode == 0 and lines and lines[-1].strip() == "PASS"
    log.append("exit %d" % p.returncode)
    return ok, "\n".join(log)


def fake_nvcc(argv):
    """`cuemu.py --nvcc <nvcc arguments>`: builds `-o exe sources` with the
    emulation, as a stand-in nvcc for testing utils/bench-corpus.py on the
    CPU. -D and -I are kept; other flags (-arch, -O3, ...) ignored."""
    exe, sources, defines, incs, i = None, [], {}, [], 0
    while i < len(argv):
        a = argv[i]
        if a == "-o":
            exe = argv[i + 1]
            i += 1
        elif a.startswith("-D"):
            k, _, v = a[2:].partition("=")
            defines[k] = v or "1"
        elif a.startswith("-I"):
            incs.append("-I" + os.path.abspath(a[2:]))
        elif a.endswith(".cu"):
            sources.append(a)
        i += 1
    if not exe or not sources:
        print("cuemu --nvcc: needs -o <exe> and .cu sources", file=sys.stderr)
        return 2
    srcdir = os.path.dirname(os.path.abspath(sources[0]))
    work = tempfile.mkdtemp(prefix="cuemu-nvcc-")
    ok, log = compile_program(srcdir, [os.path.relpath(os.path.abspath(s), srcdir) for s in sources],
                              defines, os.path.abspath(exe), work, extra_flags=incs)
    shutil.rmtree(work, ignore_errors=True)
    if not ok:
        print(log, file=sys.stderr)
        return 1
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--nvcc":
        return fake_nvcc(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=os.path.join(ROOT, "bench", "corpus"))
    ap.add_argument("--only", default="")
    ap.add_argument("-j", type=int, default=1)
    ap.add_argument("--keep", default="", help="keep the build folders here")
    ap.add_argument("--file", default="", help="one .cu file instead of the corpus")
    ap.add_argument("--asan", action="store_true", help="build with -fsanitize=address")
    ap.add_argument("-v", action="store_true", help="print every program's output")
    a, rest = ap.parse_known_args()
    bad = [r for r in rest if not r.startswith("-D")]
    if bad:
        ap.error("unrecognized arguments: " + " ".join(bad))
    a.defines = rest
    extra = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"] if a.asan else []
    tmp = a.keep or tempfile.mkdtemp(prefix="cuemu-")
    if a.file:
        defs = dict(d[2:].split("=", 1) if "=" in d else (d[2:], "1") for d in a.defines)
        ok, log = build_and_run(os.path.dirname(os.path.abspath(a.file)),
                                [os.path.basename(a.file)], defs, [], tmp, extra_flags=extra)
        print(log)
        return 0 if ok else 1
    with open(os.path.join(a.corpus, "manifest.json")) as f:
        man = json.load(f)
    progs = man["programs"]
    if a.only:
        want = a.only.split(",")
        progs = [p for p in progs if p["name"] in want]

    def one(p):
        d = os.path.join(a.corpus, p["name"])
        return p["name"], build_and_run(d, p["sources"], p.get("emu_defines", {}),
                                        p.get("emu_args", p.get("args", [])),
                                        os.path.join(tmp, p["name"]), extra_flags=extra)

    failed = []
    with ThreadPoolExecutor(max_workers=max(1, a.j)) as ex:
        for name, (ok, log) in ex.map(one, progs):
            print("%-22s %s" % (name, "PASS" if ok else "FAIL"))
            if not ok or a.v:
                print("    " + log.replace("\n", "\n    "))
            if not ok:
                failed.append(name)
    print("cuemu: %d of %d programs pass on the CPU emulation" % (len(progs) - len(failed),
                                                                  len(progs)))
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
