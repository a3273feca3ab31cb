#!/usr/bin/env python3
"""Harness inference coverage over a corpus of CUDA programs (issue 13).

For every program folder (HeCBench layout: <corpus>/src/<name>-cuda; else
every sub-folder of <corpus> holding .cu files), runs

    cuda-l1-rewrite --print-harness --format=json <its .cu files> -- -I<folder> <-I/-D of its Makefile>

with no --define and no spec, and counts the kernels that have a launch site
and the share of those whose harness is complete. Prints the figure and the
main reasons for the rest (the first unknown value of each incomplete kernel,
grouped), and with --json writes every kernel's result.

  utils/harness-coverage.py <corpus> [--tool PATH] [--only a,b] [--limit N]
                            [--timeout S] [--json OUT] [--examples N]

Exit status: 0 (the figure is printed); 2 bad usage.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Why a value is unknown, grouped (first match wins), from the tool's words.
REASONS = [
    ("a program argument (argv) or input file", r"argv|atoi|atof|strtol|stoi|fopen|fread|scanf|getline|ifstream|read_|load"),
    ("modified in a loop around the launch", r"in a loop around the launch"),
    ("modified before the launch", r"is modified at"),
    ("a member of a structure", r"member"),
    ("the result of a function the tool does not evaluate", r"the result of"),
    ("a device query or occupancy API", r"cudaGetDeviceProperties|cudaOccupancy|prop\.|deviceProp"),
    ("a pointer parameter no call reaches", r"pointer parameter"),
    ("a parameter no call reaches", r"no call in the files given reaches"),
    ("an allocation the tool does not follow", r"not allocated before|no allocation|set by|pitch|host memory|array in host"),
    ("a value the harness cannot pass (struct / vector type)", r"cannot pass"),
    ("a condition on unknown values", r"decides the value"),
    ("declared without a value", r"declared without a value|no initialiser"),
    ("a launch form without visible arguments", r"does not show"),
]


def makefile_flags(folder):
    """-I and -D flags of the program's Makefile (its own folder first)."""
    flags = ["-I" + folder]
    mk = os.path.join(folder, "Makefile")
    if not os.path.exists(mk):
        return flags
    text = open(mk, errors="replace").read()
    for line in text.splitlines():
        if not re.match(r"\s*(CFLAGS|CXXFLAGS|NVCCFLAGS|CPPFLAGS|INCLUDES?)\s*[:+?]?=", line):
            continue
        for tok in re.findall(r"(-I\S+|-D\S+)", line):
            if "$(" in tok or tok in ("-DDEBUG",):
                continue
            if tok.startswith("-I"):
                path = tok[2:]
                if not os.path.isabs(path):
                    path = os.path.normpath(os.path.join(folder, path))
                tok = "-I" + path
            flags.append(tok)
    return flags


def programs(corpus, only):
    src = os.path.join(corpus, "src")
    base = src if os.path.isdir(src) else corpus
    out = []
    for name in sorted(os.listdir(base)):
        folder = os.path.join(base, name)
        if not os.path.isdir(folder):
            continue
        if os.path.isdir(src) and not name.endswith("-cuda"):
            continue
        if only and name not in only and name.replace("-cuda", "") not in only:
            continue
        cus = main_sources(folder)
        if cus:
            out.append((name, folder, [os.path.join(folder, f) for f in cus]))
    return out


def main_sources(folder):
    """The .cu files the Makefile compiles (`source = ...`), else every .cu
    file that no other file of the folder #includes."""
    cus = sorted(f for f in os.listdir(folder) if f.endswith(".cu"))
    mk = os.path.join(folder, "Makefile")
    if os.path.exists(mk):
        text = open(mk, errors="replace").read().replace("\\\n", " ")
        m = re.search(r"^source\s*[:+]?=\s*(.*)$", text, re.M)
        if m:
            listed = [f for f in m.group(1).split() if f.endswith(".cu")]
            listed = [f for f in listed if os.path.exists(os.path.join(folder, f))]
            if listed:
                return listed
    included = set()
    for f in os.listdir(folder):
        path = os.path.join(folder, f)
        if os.path.isfile(path) and f.endswith((".cu", ".h", ".cuh", ".hpp", ".cpp")):
            for inc in re.findall(r'#\s*include\s*"([^"]+)"', open(path, errors="replace").read()):
                included.add(os.path.basename(inc))
    return [f for f in cus if f not in included]


def classify(reason):
    for label, rx in REASONS:
        if re.search(rx, reason):
            return label
    return "other"


def run_one(tool, folder, files, timeout):
    cmd = [tool, "--print-harness", "--format=json", "--quiet"] + files + ["--"] + makefile_flags(folder)
    try:
        p = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout after %ds" % timeout
    try:
        return json.loads(p.stdout), None
    except ValueError:
        tail = (p.stderr or "").strip().splitlines()[-1:] or ["no output"]
        return None, "exit %d: %s" % (p.returncode, tail[0][:200])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("corpus", help="corpus folder (e.g. ../shared/corpus/hecbench)")
    ap.add_argument("--tool", default=os.environ.get("CUDAL1_TOOL", os.path.join(ROOT, "build", "bin", "cuda-l1-rewrite")))
    ap.add_argument("--only", default="", help="comma-separated program names")
    ap.add_argument("--limit", type=int, default=0, help="at most this many programs")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--json", default="", help="write every kernel's result here")
    ap.add_argument("--examples", type=int, default=2, help="examples printed per reason")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.corpus) or not os.access(a.tool, os.X_OK):
        print("harness-coverage: need a corpus folder and an executable --tool", file=sys.stderr)
        return 2
    progs = programs(a.corpus, set(filter(None, a.only.split(","))))
    if a.limit:
        progs = progs[:a.limit]
    rows, failed = [], []
    start = time.time()
    for i, (name, folder, files) in enumerate(progs):
        doc, err = run_one(a.tool, folder, files, a.timeout)
        if err:
            failed.append((name, err))
            print("[%d/%d] %s: %s" % (i + 1, len(progs), name, err), file=sys.stderr)
            continue
        for k in doc["kernels"]:
            k["program"] = name
            rows.append(k)
        s = doc["summary"]
        print("[%d/%d] %s: %d kernels, %d with a launch site, %d complete%s" %
              (i + 1, len(progs), name, s["kernels"], s["with_launch_site"], s["complete"],
               ", %d file(s) not parsed" % s["files_failed"] if s["files_failed"] else ""), file=sys.stderr)
    launched = [k for k in rows if k["launch_sites"] > 0]
    complete = [k for k in launched if k["status"] == "complete"]
    reasons = collections.Counter()
    examples = collections.defaultdict(list)
    for k in launched:
        if k["status"] == "complete":
            continue
        why = k["missing"][0] if k.get("missing") else k.get("why", "?")
        label = classify(why)
        reasons[label] += 1
        if len(examples[label]) < a.examples:
            examples[label].append("%s/%s: %s" % (k["program"], k["kernel"], why))
    share = 100.0 * len(complete) / len(launched) if launched else 0.0
    print("programs: %d (%d not parsed or failed), kernels: %d, with a launch site: %d" %
          (len(progs), len(failed), len(rows), len(launched)))
    print("complete harness with no flags: %d of %d kernels with a launch site (%.1f%%)" %
          (len(complete), len(launched), share))
    print("time: %.0f s" % (time.time() - start))
    print("the rest, by the first value missing:")
    for label, n in reasons.most_common():
        print("  %4d  %s" % (n, label))
        for e in examples[label]:
            print("          e.g. %s" % e[:220])
    for name, err in failed:
        print("  failed: %s: %s" % (name, err))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"kernels": rows, "failed": failed}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
