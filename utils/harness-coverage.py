#!/usr/bin/env python3
"""Harness inference coverage over a corpus of CUDA programs (issue 13).

For every program folder (HeCBench layout: <corpus>/src/<name>-cuda; else
every sub-folder of <corpus> holding .cu files), runs

    cuda-l1-rewrite --print-harness --format=json <its .cu and .cpp files> -- -I<folder> <-I/-D of its Makefile>

with no --define and no spec, and counts the kernels that have a launch site
and the share of those whose harness is complete. Prints the figure and the
main reasons for the rest (the first unknown value of each incomplete kernel,
grouped), and with --json writes every kernel's result.

Programs that read their sizes from the command line cannot be inferred with
no flags. With the arguments of a test run (--args, default
<corpus>/benchmarks.yaml: `<name>: {test: {args: [...]}}`), a second run of
each such program gives the tool those arguments with --program-args, as a
user would (argc, argv[k] and what the program computes from them are then
evaluated on the AST): that figure is printed too.

--before (alone, instead of the figure above) estimates what the
text-based inference that preceded the AST one accepted: a launch site whose grid and block are constants (the
--list-kernels values) and whose scalar arguments are numeric literals or
arithmetic over them (buffers then got one element per launched thread).

  utils/harness-coverage.py <corpus> [--tool PATH] [--only a,b] [--limit N]
                            [--timeout S] [--json OUT] [--examples N]
                            [--args YAML | --no-args] [--before]

Exit status: 0 (the figure is printed); 2 bad usage.
"""
import argparse
import collections
import json
import os
import re
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Why a value is unknown, grouped (first match wins), from the tool's words.
REASONS = [
    ("a program argument (argv) or input file", r"argv|atoi|atof|strtol|stoi|fopen|fread|scanf|getline|ifstream|read_|load|a parameter of main\(\)"),
    ("modified in a loop around the launch", r"in a loop around the launch"),
    ("modified in a loop before the launch", r"\(a loop\) before the launch"),
    ("modified before the launch", r"is modified at"),
    ("a structure passed from another file", r"a structure (passed by|in the caller at) the call"),
    ("a member of a structure", r"member|initialised from '[A-Za-z_][A-Za-z0-9_]*(\.|->)[A-Za-z_][A-Za-z0-9_]*'$|^'[A-Za-z_][A-Za-z0-9_]*' \([^)]*\): '[A-Za-z_][A-Za-z0-9_]*(\.|->)"),
    ("the size of a container or string (data)", r"\.size\(\)|strlen|\.length\(\)"),
    ("an array element (on the heap, a vector, or data)", r"an element of '|not a value the tool can follow|\[[^]]+\]'$"),
    ("the result of a function the tool does not evaluate", r"the result of|initialised from '[A-Za-z_][A-Za-z0-9_:.>-]*\("),
    ("a device query or occupancy API", r"cudaGetDeviceProperties|cudaOccupancy|prop\.|deviceProp"),
    ("a pointer parameter no call reaches", r"pointer parameter"),
    ("a parameter no call reaches", r"no call in the files given reaches"),
    ("an allocation the tool does not follow", r"not allocated before|no allocation|set by|pitch|host memory|array in host|null pointer"),
    ("a value the harness cannot pass (struct / vector type)", r"cannot pass|builds a"),
    ("a condition on unknown values", r"decides the value|under the condition"),
    ("assigned inside a switch, try or expression", r"inside a (CaseStmt|DefaultStmt|CXXTryStmt|BinaryOperator|ConditionalOperator)"),
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


SOURCE_EXTS = (".cu", ".cpp", ".cc", ".cxx")


def main_sources(folder):
    """The .cu and C++ files the Makefile compiles (`source = ...`), else
    every .cu and C++ file that no other file of the folder #includes: all
    the files of the program on one command line, so that values passed
    from one file to a function of another are followed."""
    cus = sorted(f for f in os.listdir(folder) if f.endswith(SOURCE_EXTS))
    mk = os.path.join(folder, "Makefile")
    if os.path.exists(mk):
        text = open(mk, errors="replace").read().replace("\\\n", " ")
        m = re.search(r"^source\s*[:+]?=\s*(.*)$", text, re.M)
        if m:
            listed = [f for f in m.group(1).split() if f.endswith(SOURCE_EXTS)]
            listed = [f for f in listed if os.path.exists(os.path.join(folder, f))]
            if any(f.endswith(".cu") for f in listed):
                return listed
    included = set()
    for f in os.listdir(folder):
        path = os.path.join(folder, f)
        if os.path.isfile(path) and f.endswith((".cu", ".h", ".cuh", ".hpp", ".cpp")):
            for inc in re.findall(r'#\s*include\s*"([^"]+)"', open(path, errors="replace").read()):
                included.add(os.path.basename(inc))
    files = [f for f in cus if f not in included]
    return files if any(f.endswith(".cu") for f in files) else []


def classify(reason):
    for label, rx in REASONS:
        if re.search(rx, reason):
            return label
    return "other"


def run_one(tool, folder, files, timeout, program_args=None):
    cmd = [tool, "--print-harness", "--format=json", "--quiet"]
    if program_args is not None:
        cmd.append("--program-args=" + " ".join(shlex.quote(a) for a in program_args))
    cmd += files + ["--"] + makefile_flags(folder)
    try:
        p = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout after %ds" % timeout
    try:
        return json.loads(p.stdout), None
    except ValueError:
        tail = (p.stderr or "").strip().splitlines()[-1:] or ["no output"]
        return None, "exit %d: %s" % (p.returncode, tail[0][:200])


def load_args(path):
    """Per program name (without -cuda), the arguments of its test run."""
    if not path or not os.path.exists(path):
        return {}
    try:
        import yaml
    except ImportError:
        print("harness-coverage: PyYAML missing: no second run with arguments", file=sys.stderr)
        return {}
    doc = yaml.safe_load(open(path)) or {}
    out = {}
    for name, entry in doc.items():
        args = ((entry or {}).get("test") or {}).get("args")
        if isinstance(args, list):
            out[name] = [str(a) for a in args]
    return out


NUMERIC_RX = re.compile(r"^[\s\d.eE+\-*/%()]+$")


def before_ok(tool, folder, files, timeout):
    """Kernels with a launch site, and those of them that the text-based
    inference accepted (qualified names)."""
    cmd = [tool, "--list-kernels", "--format=json"] + files + ["--"] + makefile_flags(folder)
    try:
        p = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=timeout)
        doc = json.loads(p.stdout)
    except (subprocess.TimeoutExpired, ValueError):
        return None, None
    params = {k["qualifiedName"]: k["parameters"] for k in doc.get("kernels", [])}
    launched = {ls["kernel"] for ls in doc.get("launchSites", []) if ls["kernel"] in params}
    ok = set()
    for ls in doc.get("launchSites", []):
        g, b = ls.get("grid") or {}, ls.get("block") or {}
        if g.get("value") is None or b.get("value") is None:
            continue
        ps = params.get(ls["kernel"])
        if ps is None or len(ls.get("arguments", [])) < len(ps):
            continue
        if all(p["isPointer"] or NUMERIC_RX.match(ls["arguments"][p["index"]])
               for p in ps):
            ok.add(ls["kernel"])
    return launched, ok


def before_main(a, progs):
    """--before: the estimate of the text-based inference alone."""
    launched = accepted = 0
    for i, (name, folder, files) in enumerate(progs):
        l, ok = before_ok(a.tool, folder, files, a.timeout)
        if l is None:
            print("[%d/%d] %s: failed" % (i + 1, len(progs), name), file=sys.stderr)
            continue
        launched += len(l)
        accepted += len(ok)
        print("[%d/%d] %s: %d kernels with a launch site, %d accepted" %
              (i + 1, len(progs), name, len(l), len(ok)), file=sys.stderr)
    print("accepted by the text-based inference (estimate): %d of %d kernels with a launch site (%.1f%%)" %
          (accepted, launched, 100.0 * accepted / launched if launched else 0.0))
    return 0


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
    ap.add_argument("--args", default="", help="test-run arguments (default <corpus>/benchmarks.yaml)")
    ap.add_argument("--no-args", action="store_true", help="no second run with the test-run arguments")
    ap.add_argument("--before", action="store_true", help="only estimate what the text-based inference accepted")
    a = ap.parse_args(argv)
    # The tool runs in each program's folder.
    a.corpus = os.path.abspath(a.corpus)
    if os.sep in a.tool:
        a.tool = os.path.abspath(a.tool)
    if not os.path.isdir(a.corpus) or not os.access(a.tool, os.X_OK):
        print("harness-coverage: need a corpus folder and an executable --tool", file=sys.stderr)
        return 2
    progs = programs(a.corpus, set(filter(None, a.only.split(","))))
    if a.limit:
        progs = progs[:a.limit]
    if a.before:
        return before_main(a, progs)
    run_args = {} if a.no_args else load_args(a.args or os.path.join(a.corpus, "benchmarks.yaml"))
    rows, failed = [], []
    with_args = 0  # kernels complete once the test run's arguments are given
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
        done = s["complete"]
        args = run_args.get(name[:-5] if name.endswith("-cuda") else name)
        again = args is not None and s["complete"] < s["with_launch_site"]
        if again:
            doc2, err2 = run_one(a.tool, folder, files, a.timeout, args)
            if doc2:
                byname = {k["kernel"]: k for k in doc2["kernels"]}
                for k in doc["kernels"]:
                    k2 = byname.get(k["kernel"])
                    k["status_with_args"] = k2["status"] if k2 else k["status"]
                    if k2 and k2.get("missing"):
                        k["missing_with_args"] = k2["missing"]
                    k["program_args"] = args
                done = doc2["summary"]["complete"]
        with_args += done
        print("[%d/%d] %s: %d kernels, %d with a launch site, %d complete%s%s" %
              (i + 1, len(progs), name, s["kernels"], s["with_launch_site"], s["complete"],
               " (%d with the test run's arguments)" % done if again else "",
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
    if run_args:
        print("complete with the test run's arguments (--program-args): %d of %d (%.1f%%)" %
              (with_args, len(launched), 100.0 * with_args / len(launched) if launched else 0.0))
    print("time: %.0f s" % (time.time() - start))
    rest = collections.Counter()
    for k in launched:
        if k.get("status_with_args", k["status"]) != "complete":
            m = k.get("missing_with_args") or k.get("missing") or [k.get("why", "?")]
            rest[classify(m[0])] += 1
    if run_args:
        print("not complete even with the arguments, by the first value missing:")
        for label, n in rest.most_common():
            print("  %4d  %s" % (n, label))
    print("the rest (no flags), by the first value missing:")
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
