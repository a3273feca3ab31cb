"""The end-to-end benchmark runner's library (utils/bench-corpus.py).

Python 3 standard library only. Everything that needs no GPU (corpus and
manifest reading, the HeCBench YAML subset, output parsing, merging, the
Markdown and SVG report) is here and unit-tested on the CPU
(utils/bench/test_benchlib.py); the steps that build and run programs are in
the Runner class at the end.
"""
import ast
import datetime
import difflib
import glob
import json
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# The rewrite step, in one place. Fields: {rewrite} the cuda-l1-rewrite
# binary, {builddir} the folder holding compile_commands.json, {files} the
# sources to rewrite, {extra} per-program tool arguments (manifest
# "tool_args") and --capture=<dir> when a capture was taken. It runs in the
# program's scratch copy, which it rewrites in place.
#   verify: every fix verified and timed on the GPU, only accepted ones kept
#           (the tool as a user runs it on a GPU machine; the default);
#   proven: the fixes whose exactness is proven, applied without a GPU
#           (what the tool does on a machine without one); the benchmark
#           then measures them.
# {fixes}: where --export-fixes records the applied edits (their rule ids
# name the rules applied when no annotation does, as in proven mode).
TOOL_TEMPLATES = {
    "verify": "{rewrite} -p {builddir} --fix --verify=run --export-fixes={fixes} {extra} {files}",
    "proven": "{rewrite} -p {builddir} --fix --export-fixes={fixes} {extra} {files}",
}
TOOL_TEMPLATE = TOOL_TEMPLATES["verify"]
# Optional capture before the rewrite (cuda-l1-capture, when it exists).
CAPTURE_TEMPLATE = "{capture} -o {capdir} -- {binary} {args}"

DEFAULT_TIMING_REGEX = r"GPU time: ([0-9.]+) ms"
SLOWER = 0.97      # a program below this speedup is reported as slower
RUN_OK = ("pass", "unknown")   # own checks that do not fail (unknown: no check printed)
IMPROVED = 1.05    # ... above this as improved


# ---------------------------------------------------------------------------
# Expressions over the manifest's sizes: numbers, names, + - * / // % **,
# parentheses, and the functions below. No other Python.
_FUNCS = {"log2": math.log2, "ceil": math.ceil, "floor": math.floor, "min": min, "max": max,
          "sqrt": math.sqrt}


def eval_expr(expr, sizes):
    """Evaluates expr (str or number) with the names in sizes; None when
    expr is None. Raises ValueError for anything else."""
    if expr is None:
        return None
    if isinstance(expr, (int, float)):
        return expr
    try:
        tree = ast.parse(str(expr), mode="eval")
    except SyntaxError as e:
        raise ValueError("bad expression %r: %s" % (expr, e))

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)):
            return n.value
        if isinstance(n, ast.Name):
            if n.id not in sizes:
                raise ValueError("unknown size %r in %r" % (n.id, expr))
            return eval_expr(sizes[n.id], sizes)
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.Div: lambda: a / b, ast.FloorDiv: lambda: a // b, ast.Mod: lambda: a % b,
                   ast.Pow: lambda: a ** b}
            if type(n.op) in ops:
                return ops[type(n.op)]()
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = ev(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _FUNCS
                and not n.keywords):
            return _FUNCS[n.func.id](*[ev(a) for a in n.args])
        raise ValueError("unsupported expression %r" % (expr,))
    return ev(tree)


# ---------------------------------------------------------------------------
# Corpora. A program spec is a dict:
#   name, corpus ("bench" or "hecbench"), dir (absolute), category, description,
#   sources (relative to dir), headers, build ("nvcc" or "make"), nvcc_flags,
#   args, timing_regex, check ("passfail" | "hecbench"), timeout_s, sizes,
#   kernels ({name: {bytes, flops}}), cublas (list), support (dirs next to
#   dir to copy along), tool_args, patterns

def load_manifest(corpus_dir):
    corpus_dir = os.path.abspath(corpus_dir)
    with open(os.path.join(corpus_dir, "manifest.json")) as f:
        man = json.load(f)
    d = man.get("defaults", {})
    progs = []
    for p in man["programs"]:
        progs.append({
            "name": p["name"], "corpus": "bench", "dir": os.path.join(corpus_dir, p["name"]),
            "root": corpus_dir,
            "category": p.get("category", ""), "description": p.get("description", ""),
            "sources": p["sources"], "headers": p.get("headers", []), "build": "nvcc",
            "nvcc_flags": list(d.get("nvcc_flags", ["-arch=sm_90", "-O3"])) + p.get("nvcc_flags", []),
            "args": [str(a) for a in p.get("args", [])],
            "timing_regex": p.get("timing_regex", d.get("timing_regex", DEFAULT_TIMING_REGEX)),
            "check": "passfail", "timeout_s": p.get("timeout_s", d.get("timeout_s", 120)),
            "sizes": p.get("sizes", {}), "kernels": p.get("kernels", {}), "cublas": p.get("cublas", []),
            "support": p.get("support", d.get("support", [])), "tool_args": p.get("tool_args", []),
            "patterns": p.get("patterns", []),
        })
    return progs


_DEFINE_RE = re.compile(r"^[ \t]*#[ \t]*ifndef[ \t]+(\w+)[ \t]*\n[ \t]*#[ \t]*define[ \t]+\1[ \t]+(\S.*?)[ \t]*$", re.M)


def source_defaults(prog):
    """{macro: default} for the '#ifndef X / #define X v' pairs in the
    program's sources and headers (values as Python numbers when they
    evaluate)."""
    out = {}
    for f in prog["sources"] + prog["headers"]:
        with open(os.path.join(prog["dir"], f)) as fh:
            for name, val in _DEFINE_RE.findall(fh.read()):
                try:
                    out[name] = eval_expr(val.strip(), {})
                except ValueError:
                    out[name] = val.strip()
    return out


def check_manifest(corpus_dir):
    """Problems of the manifest against the corpus (list of strings): files
    that do not exist, sizes that differ from the sources' defaults, size
    macros the manifest lacks, expressions that do not evaluate, kernels that
    the sources do not define."""
    problems = []
    progs = load_manifest(corpus_dir)
    names = set()
    for p in progs:
        where = p["name"]
        if p["name"] in names:
            problems.append("%s: listed twice" % where)
        names.add(p["name"])
        missing = [f for f in p["sources"] + p["headers"] if not os.path.exists(os.path.join(p["dir"], f))]
        if missing:
            problems.append("%s: missing files %s" % (where, ", ".join(missing)))
            continue
        defaults = source_defaults(p)
        for k, v in p["sizes"].items():
            if k not in defaults:
                problems.append("%s: size %s is not a #ifndef/#define default in the sources" % (where, k))
            elif defaults[k] != v:
                problems.append("%s: size %s is %r in the manifest, %r in the sources" % (where, k, v, defaults[k]))
        for k, v in defaults.items():
            if k not in p["sizes"] and k != "DATA_TYPE":
                problems.append("%s: size macro %s (default %r) is not in the manifest" % (where, k, v))
        text = ""
        for f in p["sources"] + p["headers"]:
            with open(os.path.join(p["dir"], f)) as fh:
                text += fh.read()
        defined = set(re.findall(r"__global__\s+void\s+(\w+)\s*\(", text))
        for kname, kd in p["kernels"].items():
            if kname not in defined:
                problems.append("%s: kernel %s is not defined in the sources" % (where, kname))
            for field in ("bytes", "flops"):
                try:
                    eval_expr(kd.get(field), p["sizes"])
                except (ValueError, ZeroDivisionError) as e:
                    problems.append("%s: %s.%s: %s" % (where, kname, field, e))
        for kname in sorted(defined - set(p["kernels"])):
            problems.append("%s: kernel %s has no bytes/flops entry" % (where, kname))
        for c in p["cublas"]:
            if c.get("kernel") not in p["kernels"]:
                problems.append("%s: cublas entry for unknown kernel %r" % (where, c.get("kernel")))
            try:
                cublas_key(c, p["sizes"])
            except ValueError as e:
                problems.append("%s: cublas entry: %s" % (where, e))
    return problems


# ---- HeCBench's benchmarks.yaml: the subset of YAML it uses --------------

def _yaml_scalar(s):
    s = s.strip()
    if s.startswith("'") and s.endswith("'") and len(s) >= 2:
        return s[1:-1].replace("''", "'")
    if s.startswith('"') and s.endswith('"') and len(s) >= 2:
        return json.loads(s)
    if re.fullmatch(r"-?\d+", s):
        return int(s)
    if re.fullmatch(r"-?\d+\.\d*(e-?\d+)?", s):
        return float(s)
    return s


def _yaml_flow_list(s):
    s = s.strip()
    assert s.startswith("[") and s.endswith("]"), s
    body, items, cur, q = s[1:-1], [], "", None
    i = 0
    while i < len(body):
        c = body[i]
        if q:
            cur += c
            if c == "\\" and q == '"' and i + 1 < len(body):
                cur += body[i + 1]
                i += 1
            elif c == q:
                if q == "'" and i + 1 < len(body) and body[i + 1] == "'":
                    cur += "'"
                    i += 1
                else:
                    q = None
        elif c in "'\"":
            q = c
            cur += c
        elif c == ",":
            items.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    if cur.strip():
        items.append(cur)
    return [_yaml_scalar(x) for x in items if x.strip()]


def _strip_comment(line):
    q = None
    for i, c in enumerate(line):
        if q:
            if c == q:
                q = None
        elif c in "'\"":
            q = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


def parse_hecbench_yaml(text):
    """{benchmark: {"categories": [...], "models": [...], "test": {"regex",
    "args", "timeout"}}} from benchmarks.yaml (block mappings indented by
    two spaces, flow lists, quoted scalars)."""
    out, stack = {}, []   # stack of (indent, dict)
    for raw in text.splitlines():
        line = _strip_comment(raw).rstrip()
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        m = re.match(r"^\s*([^:]+?):(\s+(.*))?$", line)
        if not m:
            raise ValueError("benchmarks.yaml: cannot read line %r" % raw)
        key, val = m.group(1).strip(), (m.group(3) or "").strip()
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1] if stack else out
        if val == "":
            parent[key] = {}
            stack.append((indent, parent[key]))
        elif val.startswith("["):
            parent[key] = _yaml_flow_list(val)
        else:
            parent[key] = _yaml_scalar(val)
    return out


def _make_var(makefile_text, name):
    m = re.search(r"^%s\s*[:?]?=\s*(\S+)" % re.escape(name), makefile_text, re.M)
    return m.group(1) if m else None


def load_hecbench(root, include_all=False):
    """Program specs for HeCBench's CUDA programs; by default only those with
    test metadata (arguments and a timing regex) in benchmarks.yaml."""
    root = os.path.abspath(root)
    with open(os.path.join(root, "benchmarks.yaml")) as f:
        meta = parse_hecbench_yaml(f.read())
    progs = []
    for name in sorted(meta):
        d = os.path.join(root, "src", name + "-cuda")
        if not os.path.isdir(d):
            continue
        test = meta[name].get("test") if isinstance(meta[name], dict) else None
        if not test and not include_all:
            continue
        makefile = os.path.join(d, "Makefile")
        if not os.path.exists(makefile):
            continue
        origin = "benchmarks.yaml"
        if not test:
            # No test metadata: the command line of the Makefile's `run`
            # target (`$(LAUNCHER) ./$(program) 100 5000000`), as a user
            # would run it; --args overrides.
            test = {"args": makefile_run_args(makefile)}
            origin = "Makefile run target" if test["args"] else "none"
        progs.append({
            "name": name, "corpus": "hecbench", "dir": d, "root": os.path.join(root, "src"),
            "category": ",".join(meta[name].get("categories", [])), "description": "",
            "sources": sorted(os.path.relpath(p, d) for p in glob.glob(os.path.join(d, "**", "*.cu"), recursive=True)),
            "headers": [], "build": "make", "nvcc_flags": [], "args": [str(a) for a in test.get("args", [])],
            "timing_regex": test.get("regex"), "check": "hecbench",
            "timeout_s": int(test.get("timeout", 120)), "sizes": {}, "kernels": {}, "cublas": [],
            "support": [], "tool_args": [], "patterns": [], "args_origin": origin,
        })
    return progs


def makefile_run_args(path):
    """The arguments of `./$(program) ...` in the recipe of a Makefile's
    `run:` target ([] when there is none)."""
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return []
    in_run = False
    for line in lines:
        if re.match(r"^run\s*:", line):
            in_run = True
            continue
        if in_run:
            if not line.startswith("\t"):
                if line.strip() and not line.startswith("#"):
                    break
                continue
            m = re.search(r"\./\$[({]program[)}]\s*(.*)$", line)
            if m:
                try:
                    return shlex.split(m.group(1))
                except ValueError:
                    return []
    return []


def select_programs(programs, only="", slice_spec=""):
    """--only a,b (names, run in that order; unknown names are an error)
    and --slice i/n (1-based: the i-th of n interleaved slices)."""
    if only:
        want = [w for w in only.split(",") if w]
        names = {p["name"] for p in programs}
        unknown = [w for w in want if w not in names]
        if unknown:
            raise ValueError("unknown programs: " + ", ".join(unknown))
        # In the order given: a budget-limited slice runs the first ones.
        by_name = {p["name"]: p for p in programs}
        programs = [by_name[w] for w in dict.fromkeys(want)]
    if slice_spec:
        m = re.fullmatch(r"(\d+)/(\d+)", slice_spec)
        if not m or not (1 <= int(m.group(1)) <= int(m.group(2))):
            raise ValueError("--slice wants i/n with 1 <= i <= n, not %r" % slice_spec)
        i, n = int(m.group(1)), int(m.group(2))
        programs = [p for k, p in enumerate(programs) if k % n == i - 1]
    return programs


def set_program_args(programs, overrides):
    """--args NAME=ARGS (repeatable): NAME's command line becomes ARGS
    (split like a shell: quotes kept together). For HeCBench programs with
    no test metadata in benchmarks.yaml (`--hecbench-all`), which need
    their arguments, and for trying other sizes. An unknown NAME or an
    entry without '=' is an error."""
    by_name = {p["name"]: p for p in programs}
    for o in overrides or []:
        name, eq, args = o.partition("=")
        if not eq or not name:
            raise ValueError("--args wants NAME=ARGS, not %r" % o)
        if name not in by_name:
            raise ValueError("--args: %r is not among the selected programs" % name)
        by_name[name]["args"] = shlex.split(args)
        by_name[name]["args_origin"] = "--args"
    return programs


# ---------------------------------------------------------------------------
# Output parsing

def own_check(kind, stdout, rc, timed_out=False):
    """The program's own verdict: pass, fail, crash (nonzero exit without a
    verdict), timeout, or unknown (exit 0 and nothing said)."""
    if timed_out:
        return "timeout"
    lines = [l.strip() for l in stdout.splitlines() if l.strip()]
    if kind == "passfail":
        if lines and lines[-1] == "PASS" and rc == 0:
            return "pass"
        if lines and lines[-1] == "FAIL":
            return "fail"
        return "crash" if rc != 0 else "unknown"
    # hecbench: PASS/FAIL anywhere (most print one of them), else the exit status
    if any(re.search(r"\bFAIL(ED)?\b", l) for l in lines):
        return "fail"
    if rc != 0:
        return "crash"
    if any(re.search(r"\bPASS(ED)?\b", l) for l in lines):
        return "pass"
    return "unknown"


def parse_timer(regex, text):
    """First number captured by regex in text (float), or None."""
    if not regex:
        return None
    try:
        m = re.search(regex, text)
    except re.error:
        return None
    if not m:
        return None
    try:
        return float(m.group(1) if m.groups() else m.group(0))
    except (ValueError, IndexError):
        return None


def kernel_base_name(name):
    """'void ns::k<float>(float*, int)' -> 'ns::k<float>'; 'k' -> 'k'."""
    s = name.strip()
    # drop the parameter list: the last balanced (...) at the end
    if s.endswith(")"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            if s[i] == ")":
                depth += 1
            elif s[i] == "(":
                depth -= 1
                if depth == 0:
                    s = s[:i]
                    break
    # drop a return type: the last space outside <...>
    depth, cut = 0, -1
    for i, c in enumerate(s):
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == " " and depth == 0:
            cut = i
    return s[cut + 1:].strip() if cut >= 0 else s.strip()


def load_kernel_times(paths):
    """Merges the JSON files the injection library wrote (one per process):
    {"kernels": {base name: {"count", "total_ns", "min_ns", "max_ns",
    "names": [full names]}}, "total_ns", "dropped", "processes", "kind"}."""
    out = {"kernels": {}, "total_ns": 0, "dropped": 0, "processes": 0, "kind": None, "errors": []}
    for p in paths:
        try:
            with open(p) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            out["errors"].append("%s: %s" % (os.path.basename(p), e))
            continue
        out["processes"] += 1
        out["dropped"] += int(doc.get("dropped", 0))
        out["kind"] = doc.get("kind", out["kind"])
        for k in doc.get("kernels", []):
            full = k.get("demangled") or k.get("name", "?")
            base = kernel_base_name(full)
            e = out["kernels"].setdefault(base, {"count": 0, "total_ns": 0, "min_ns": None,
                                                 "max_ns": 0, "names": []})
            e["count"] += int(k.get("count", 0))
            e["total_ns"] += int(k.get("total_ns", 0))
            if k.get("min_ns") is not None:
                e["min_ns"] = k["min_ns"] if e["min_ns"] is None else min(e["min_ns"], k["min_ns"])
            e["max_ns"] = max(e["max_ns"], int(k.get("max_ns", 0)))
            if full not in e["names"]:
                e["names"].append(full)
            out["total_ns"] += int(k.get("total_ns", 0))
    return out


_ANNOT_RE = re.compile(r"^\s*//\s*cuda-l1:\s*(.*)$")


def parse_annotations(text):
    """The '// cuda-l1:' lines the tool writes above accepted kernels:
    [{"kernel", "lines", "rules", "speedup", "before_us", "after_us",
    "verified"}]."""
    lines = text.splitlines()
    out, i = [], 0
    while i < len(lines):
        if not _ANNOT_RE.match(lines[i]):
            i += 1
            continue
        block = []
        while i < len(lines) and _ANNOT_RE.match(lines[i]):
            block.append(_ANNOT_RE.match(lines[i]).group(1).strip())
            i += 1
        # the kernel below: the first 'name(' after __global__ within 12 lines
        below = "\n".join(lines[i:i + 12])
        below = re.sub(r"__launch_bounds__\s*\([^)]*\)|__attribute__\s*\(\(.*?\)\)", " ", below)
        m = re.search(r"__global__[^;{]*?\b([A-Za-z_]\w*)\s*\(", below)
        a = {"kernel": m.group(1) if m else None, "lines": block, "rules": [],
             "speedup": None, "before_us": None, "after_us": None, "verified": None}
        for l in block:
            m = re.search(r"([0-9.]+)x (faster|slower)", l)
            if m:
                a["speedup"] = float(m.group(1)) if m.group(2) == "faster" else 1 / float(m.group(1))
            m = re.search(r"([0-9.]+) (us|ms) -> ([0-9.]+) (us|ms)", l)
            if m:
                scale = lambda v, u: float(v) * (1000.0 if u == "ms" else 1.0)
                a["before_us"], a["after_us"] = scale(m.group(1), m.group(2)), scale(m.group(3), m.group(4))
            m = re.match(r"applied (.+?)(;\s*(verified.*))?$", l)
            if m:
                a["rules"] += [r.strip() for r in m.group(1).split(",") if r.strip()]
                a["verified"] = m.group(3)
        out.append(a)
    return out


def parse_export_fixes(text):
    """--export-fixes YAML (clang-tidy's format) -> [{"rule", "file",
    "offset"}], one per diagnostic (its DiagnosticMessage's place)."""
    out, cur = [], None
    for line in text.splitlines():
        m = re.match(r"^\s*-\s*DiagnosticName:\s*(.+?)\s*$", line)
        if m:
            cur = {"rule": _yaml_scalar(m.group(1)), "file": None, "offset": None}
            out.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r"^\s*FilePath:\s*(.+?)\s*$", line)
        if m and cur["file"] is None:
            cur["file"] = _yaml_scalar(m.group(1))
            continue
        m = re.match(r"^\s*FileOffset:\s*(\d+)\s*$", line)
        if m and cur["offset"] is None:
            cur["offset"] = int(m.group(1))
    return out


def kernel_at(text, offset):
    """Name of the __global__ function whose definition contains offset (from
    its __global__ to its closing brace), or None."""
    best = None
    text_ = re.sub(r"__launch_bounds__\s*\([^)]*\)", lambda m: " " * len(m.group(0)), text)
    for m in re.finditer(r"__global__[^;{]*?\b([A-Za-z_]\w*)\s*\(", text_):
        if m.start() > offset:
            break
        best = m
    if not best:
        return None
    brace = text.find("{", best.end())
    if brace < 0:
        return None
    depth, i = 0, brace
    while i < len(text):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                break
        i += 1
    return best.group(1) if offset <= i else None


def parse_ncu_csv(text):
    """ncu --csv --print-units base (details page) -> {kernel base name:
    {"dram_bytes", "time_ns", "launches"}}."""
    import csv
    import io
    start = text.find('"ID"')
    if start < 0:
        return {}
    rows = csv.DictReader(io.StringIO(text[start:]))
    per_launch = {}
    for r in rows:
        name = r.get("Kernel Name") or r.get("Function Name") or "?"
        metric, unit = r.get("Metric Name", ""), (r.get("Metric Unit") or "").lower()
        try:
            v = float((r.get("Metric Value") or "").replace(",", ""))
        except ValueError:
            continue
        key = (r.get("ID"), name)
        e = per_launch.setdefault(key, {"dram_bytes": 0.0, "time_ns": 0.0})
        if metric.startswith("dram__bytes"):
            mult = {"byte": 1, "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9}.get(unit, 1)
            e["dram_bytes"] += v * mult
        elif metric.startswith("gpu__time_duration"):
            mult = {"nsecond": 1, "usecond": 1e3, "msecond": 1e6, "second": 1e9}.get(unit, 1)
            e["time_ns"] += v * mult
    out = {}
    for (_, name), e in per_launch.items():
        k = out.setdefault(kernel_base_name(name), {"dram_bytes": 0.0, "time_ns": 0.0, "launches": 0})
        k["dram_bytes"] += e["dram_bytes"]
        k["time_ns"] += e["time_ns"]
        k["launches"] += 1
    return out


def cublas_key(entry, sizes):
    """'gemm:M:N:K', 'gemv_n:M:N', 'gemv_t:M:N', 'syrk:N:K', 'syr2k:N:K',
    'trsm:M:N' for a manifest cublas entry."""
    op = entry.get("op")
    dims = {"gemm": ("m", "n", "k"), "gemv_n": ("m", "n"), "gemv_t": ("m", "n"),
            "syrk": ("n", "k"), "syr2k": ("n", "k"), "trsm": ("m", "n")}
    if op not in dims:
        raise ValueError("unknown cuBLAS op %r" % op)
    vals = []
    for d in dims[op]:
        if d not in entry:
            raise ValueError("cuBLAS %s needs %s" % (op, d))
        vals.append(str(int(eval_expr(entry[d], sizes))))
    return ":".join([op] + vals)


# ---------------------------------------------------------------------------
# Results and the report

def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def median(xs):
    xs = sorted(xs)
    if not xs:
        return None
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else (xs[m - 1] + xs[m]) / 2


def load_results(results_dir):
    """Every program's result JSON under results_dir/programs, by name."""
    out = {}
    for p in sorted(glob.glob(os.path.join(results_dir, "programs", "*.json"))):
        try:
            with open(p) as f:
                r = json.load(f)
            out[r["name"]] = r
        except (OSError, ValueError, KeyError):
            continue
    return out


def _side_total(side):
    if not side or not side.get("run") or not side["run"].get("kernels"):
        return None
    return side["run"]["kernels"].get("total_ns") or None


def program_row(r):
    """One program's line of the report (a dict), derived from its result."""
    orig, new, tool = r.get("original") or {}, r.get("rewritten") or {}, r.get("tool") or {}
    o_check = (orig.get("run") or {}).get("check") or ("build-failed" if orig.get("build") and not orig["build"].get("ok") else None)
    if r.get("unchanged"):
        new = orig
    n_check = (new.get("run") or {}).get("check") or ("build-failed" if new.get("build") and not new["build"].get("ok") else None)
    o_t, n_t = _side_total(orig), _side_total(new)
    speedup = (o_t / n_t) if (o_t and n_t) else None
    o_timer = (orig.get("run") or {}).get("timer")
    n_timer = (new.get("run") or {}).get("timer")
    rules = sorted({x for a in tool.get("annotations", []) for x in a.get("rules", [])} |
                   {fx["rule"] for fx in tool.get("exported_fixes", []) if not r.get("unchanged")})
    return {
        "name": r["name"], "category": r.get("category", ""), "status": r.get("status"),
        "check_orig": o_check, "check_new": n_check if (tool or r.get("unchanged")) else None,
        "rules": rules, "kernels_rewritten": len(tool.get("annotations", [])),
        "tool_rc": tool.get("rc"), "tool_timed_out": tool.get("timed_out", False),
        "tool_seconds": tool.get("seconds"),
        "unchanged": bool(r.get("unchanged")),
        "orig_ms": o_t / 1e6 if o_t else None, "new_ms": n_t / 1e6 if n_t else None,
        "speedup": speedup,
        "timer_orig": o_timer, "timer_new": n_timer,
        "timer_speedup": (o_timer / n_timer) if (o_timer and n_timer) else None,
        "spread": max([x for x in ((orig.get("run") or {}).get("spread"), (new.get("run") or {}).get("spread"))
                       if x is not None], default=None),
        # a program without its own check ("unknown": it ran and said nothing) is
        # broken when the rewritten one fails, crashes or times out
        "broken": o_check in RUN_OK and n_check not in (None,) + RUN_OK,
        "error": r.get("error"),
    }


def kernel_rows(r, refs=None):
    """Per-kernel lines: launches, times, speedup, rules, effective
    bandwidth and FLOP rate (from the manifest's bytes/flops), cuBLAS."""
    refs = refs or {}
    copy_gbps = (refs.get("copy") or {}).get("memcpy_gbps")
    orig = ((r.get("original") or {}).get("run") or {}).get("kernels") or {}
    new_side = r.get("original") if r.get("unchanged") else r.get("rewritten")
    new = ((new_side or {}).get("run") or {}).get("kernels") or {}
    ok, nk = orig.get("kernels", {}), new.get("kernels", {})
    sizes, spec = r.get("sizes") or {}, r.get("kernel_specs") or {}
    rules_by_kernel = {}
    for a in (r.get("tool") or {}).get("annotations", []):
        if a.get("kernel"):
            rules_by_kernel.setdefault(a["kernel"], []).extend(a.get("rules", []))
    if not r.get("unchanged"):
        for fx in (r.get("tool") or {}).get("exported_fixes", []):
            if fx.get("kernel"):
                rules_by_kernel.setdefault(fx["kernel"], []).append(fx["rule"])
    cublas = {}
    for c in r.get("cublas") or []:
        try:
            cublas[c["kernel"]] = (cublas_key(c, sizes), eval_expr(c.get("calls", 1), sizes))
        except (ValueError, KeyError):
            pass
    rows = []
    names = list(dict.fromkeys(list(ok) + list(nk)))
    for k in names:
        o, n = ok.get(k), nk.get(k)
        kd = spec.get(k, {})
        try:
            nbytes = eval_expr(kd.get("bytes"), sizes)
            flops = eval_expr(kd.get("flops"), sizes)
        except (ValueError, ZeroDivisionError):
            nbytes = flops = None
        row = {"program": r["name"], "kernel": k,
               "launches": (o or n or {}).get("count"),
               "launches_new": (n or {}).get("count"),
               "orig_ms": o["total_ns"] / 1e6 if o else None,
               "new_ms": n["total_ns"] / 1e6 if n else None,
               "rules": sorted(set(rules_by_kernel.get(k, [])))}
        row["speedup"] = (row["orig_ms"] / row["new_ms"]) if (row["orig_ms"] and row["new_ms"]) else None
        for side in ("orig", "new"):
            ms = row[side + "_ms"]
            row[side + "_gbps"] = nbytes / (ms * 1e6) if (nbytes and ms) else None
            row[side + "_bw_share"] = (row[side + "_gbps"] / copy_gbps) if (row[side + "_gbps"] and copy_gbps) else None
            row[side + "_gflops"] = flops / (ms * 1e6) if (flops and ms) else None
        if k in cublas:
            key, calls = cublas[k]
            ref = (refs.get("cublas") or {}).get(key)
            row["cublas_op"] = key
            row["cublas_ms"] = ref.get("ms") if ref else None
            for side in ("orig", "new"):
                ms = row[side + "_ms"]
                row[side + "_vs_cublas"] = (ms / calls / row["cublas_ms"]) if (ms and calls and row["cublas_ms"]) else None
        rows.append(row)
    return rows


def summarize(results, refs=None, expected=None):
    """The summary document (JSON-able) over all program results.
    expected: names of every program of the run (to count those not done)."""
    rows = [program_row(r) for r in results.values()]
    rows.sort(key=lambda x: x["name"])
    krows = [kr for r in sorted(results.values(), key=lambda r: r["name"]) for kr in kernel_rows(r, refs)]
    measured = [x for x in rows if x["speedup"] and x["check_orig"] in RUN_OK and not x["broken"]]
    changed = [x for x in measured if not x["unchanged"]]
    s = {
        "generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "programs": len(rows),
        "not_done": sorted(set(expected or []) - set(results)),
        "geomean_speedup": geomean([x["speedup"] for x in measured]),
        "geomean_speedup_changed": geomean([x["speedup"] for x in changed]),
        "median_speedup": median([x["speedup"] for x in measured]),
        "measured": len(measured), "changed": len(changed),
        "improved": sorted(x["name"] for x in measured if x["speedup"] > IMPROVED),
        "slower": sorted(x["name"] for x in measured if x["speedup"] < SLOWER),
        "within_spread": sorted(x["name"] for x in changed if x["spread"] is not None
                                and abs(x["speedup"] - 1) <= x["spread"]),
        "broken": sorted(x["name"] for x in rows if x["broken"]),
        "original_failing": sorted(x["name"] for x in rows if x["check_orig"] not in RUN_OK + (None,)),
        "no_own_check": sorted(x["name"] for x in rows if x["check_orig"] == "unknown"),
        "tool_errors": sorted(x["name"] for x in rows if x["tool_rc"] not in (None, 0, 1) or x["tool_timed_out"]),
        "runner_errors": sorted(x["name"] for x in rows if x["error"]),
        "rules": {},
        "refs": refs or {},
        "rows": rows, "kernel_rows": krows,
    }
    for x in rows:
        for rule in x["rules"]:
            s["rules"][rule] = s["rules"].get(rule, 0) + 1
    return s


def _f(v, fmt="%.2f", none="–"):
    return none if v is None else fmt % v


def _pct(v):
    if v is None:
        return "–"
    return ("%.0f%%" if v >= 0.01 else "%.2g%%") % (100 * v)


def markdown_report(s, title="cuda-l1 end-to-end benchmark"):
    L = ["# %s" % title, "", "Generated %s by utils/bench-corpus.py." % s["generated"], ""]
    refs = s.get("refs") or {}
    env = dict(refs.get("env") or {})
    template = env.pop("tool_template", None)
    if env:
        L += ["Machine: %s." % "; ".join("%s: %s" % (k, v) for k, v in env.items()), ""]
    if template:
        L += ["Rewrite command: `%s`." % template, ""]
    copy = refs.get("copy") or {}
    if copy.get("memcpy_gbps"):
        L += ["Device-to-device copy: %.0f GB/s (cudaMemcpy, bytes read + written), %s GB/s (copy kernel)." % (
            copy["memcpy_gbps"], _f(copy.get("kernel_gbps"), "%.0f")), ""]
    L += ["## Summary", "",
          "| | |", "|---|---|",
          "| programs with results | %d |" % s["programs"],
          "| measured (own check passes before and after, or none printed) | %d |" % s["measured"],
          "| without an own check (timed, judged by exit status only) | %s |" % (", ".join(s["no_own_check"]) or "none"),
          "| geometric mean speedup, total kernel time per program | %s |" % _f(s["geomean_speedup"], "%.3fx"),
          "| ... over the %d programs the tool changed | %s |" % (s["changed"], _f(s["geomean_speedup_changed"], "%.3fx")),
          "| median speedup | %s |" % _f(s["median_speedup"], "%.3fx"),
          "| improved (> %.2fx) | %d |" % (IMPROVED, len(s["improved"])),
          "| slower (< %.2fx) | %s |" % (SLOWER, ", ".join(s["slower"]) or "none"),
          "| changed, but the speedup is within the run-to-run spread | %s |" % (
              ", ".join(s["within_spread"]) or "none"),
          "| broken (own check fails, or crash, after rewriting) | %s |" % (", ".join(s["broken"]) or "none"),
          "| failing before rewriting | %s |" % (", ".join(s["original_failing"]) or "none"),
          "| tool errors or time-outs | %s |" % (", ".join(s["tool_errors"]) or "none"),
          "| runner errors | %s |" % (", ".join(s["runner_errors"]) or "none"),
          "| not yet run | %s |" % (", ".join(s["not_done"]) or "none"), ""]
    if s["rules"]:
        L += ["Rules applied (programs): " + ", ".join("%s (%d)" % kv for kv in sorted(s["rules"].items())), ""]
    L += ["## Programs", "",
          "Kernel time: sum of every kernel's GPU time in a run of the program (CUPTI activity "
          "records; the median over the runs when each side ran more than once, and spread = "
          "(max - min) / median of those runs, the larger of the two sides). Timer: the program's "
          "own timing line. Checks: the program's own verdict before -> after rewriting.", "",
          "| program | category | check | rules applied | kernels ms (orig) | kernels ms (new) | speedup | spread | timer ms (orig -> new) | tool |",
          "|---|---|---|---|---:|---:|---:|---:|---|---|"]
    for x in s["rows"]:
        check = "%s -> %s" % (x["check_orig"] or "–", x["check_new"] or "–")
        if x["broken"]:
            check = "**%s (broken)**" % check
        tool = "unchanged" if x["unchanged"] else (
            "timeout" if x["tool_timed_out"] else ("exit %s" % x["tool_rc"] if x["tool_rc"] is not None else "–"))
        if x["tool_seconds"] is not None:
            tool += ", %.0f s" % x["tool_seconds"]
        sp = _f(x["speedup"], "%.2fx")
        if x["speedup"] and x["speedup"] < SLOWER:
            sp = "**%s**" % sp
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s -> %s | %s |" % (
            x["name"], x["category"], check, ", ".join(x["rules"]) or "–", _f(x["orig_ms"], "%.3f"),
            _f(x["new_ms"], "%.3f"), sp, _pct(x["spread"]), _f(x["timer_orig"], "%.3f"),
            _f(x["timer_new"], "%.3f"), tool))
    L += ["", "## Kernels", "",
          "Effective bandwidth: the bytes each launch must read and write (manifest, from the "
          "program's sizes) over the kernel time, and its share of the measured device-to-device "
          "copy bandwidth (above 100% when data stays in L2 between launches). GFLOP/s from the "
          "manifest's operation counts. cuBLAS: kernel time per operation over cuBLAS's time for "
          "the same operation and sizes (fp32, no TF32).", "",
          "| program | kernel | launches | ms (orig) | ms (new) | speedup | rules | eff. GB/s orig -> new (% copy) | GFLOP/s orig -> new | x cuBLAS orig -> new |",
          "|---|---|---:|---:|---:|---:|---|---|---|---|"]
    for k in s["kernel_rows"]:
        bw = "–"
        if k["orig_gbps"] or k["new_gbps"]:
            bw = "%s (%s) -> %s (%s)" % (_f(k["orig_gbps"], "%.3g"), _pct(k["orig_bw_share"]),
                                         _f(k["new_gbps"], "%.3g"), _pct(k["new_bw_share"]))
        fl = "–" if not (k["orig_gflops"] or k["new_gflops"]) else "%s -> %s" % (
            _f(k["orig_gflops"], "%.3g"), _f(k["new_gflops"], "%.3g"))
        cb = "–"
        if k.get("cublas_op"):
            cb = "%s -> %s (%s: %s ms)" % (_f(k.get("orig_vs_cublas"), "%.1f"), _f(k.get("new_vs_cublas"), "%.1f"),
                                           k["cublas_op"], _f(k.get("cublas_ms"), "%.3f"))
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            k["program"], k["kernel"], k["launches"] if k["launches"] is not None else "–",
            _f(k["orig_ms"], "%.3f"), _f(k["new_ms"], "%.3f"), _f(k["speedup"], "%.2fx"),
            ", ".join(k["rules"]) or "–", bw, fl, cb))
    L.append("")
    return "\n".join(L)


def _esc(t):
    return str(t).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def speedup_svg(rows, title="Speedup per program (total kernel time, log scale)"):
    """Horizontal bars, one per program, on a log2 axis around 1x; green above
    the improvement threshold, red below the slower one, grey between; broken
    programs are drawn hatched with a black outline; programs without a
    measurement are listed at the bottom."""
    meas = sorted([x for x in rows if x.get("speedup")], key=lambda x: -x["speedup"])
    rest = sorted(x["name"] for x in rows if not x.get("speedup"))
    lo = min([0.5] + [x["speedup"] for x in meas])
    hi = max([2.0] + [x["speedup"] for x in meas])
    lmin, lmax = math.floor(math.log2(lo)), math.ceil(math.log2(hi))
    left, width, rowh, top = 170, 560, 18, 40
    height = top + rowh * max(1, len(meas)) + 50 + (16 if rest else 0)
    X = lambda v: left + (math.log2(v) - lmin) / (lmax - lmin) * width
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">'
           % (left + width + 80, height),
           '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
           'patternTransform="rotate(45)"><rect width="6" height="6" fill="#f4b6b6"/>'
           '<line x1="0" y1="0" x2="0" y2="6" stroke="#b00" stroke-width="2"/></pattern></defs>',
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="13" font-weight="bold">%s</text>' % (left, _esc(title))]
    y_end = top + rowh * max(1, len(meas))
    for e in range(lmin, lmax + 1):
        x = X(2.0 ** e)
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>' % (
            x, top - 5, x, y_end, "#333" if e == 0 else "#ddd"))
        label = ("%gx" % (2.0 ** e)) if e >= 0 else ("1/%gx" % (2.0 ** -e))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>' % (x, y_end + 14, label))
    for i, x in enumerate(meas):
        y = top + i * rowh
        v = x["speedup"]
        x0, x1 = X(1.0), X(v)
        color = "url(#hatch)" if x.get("broken") else (
            "#3a9e4f" if v > IMPROVED else ("#c0392b" if v < SLOWER else "#999"))
        stroke = ' stroke="black"' if x.get("broken") else ""
        out.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (left - 6, y + 12, _esc(x["name"])))
        out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"%s/>' % (
            min(x0, x1), y + 2, max(1.0, abs(x1 - x0)), rowh - 4, color, stroke))
        note = " (broken)" if x.get("broken") else ""
        out.append('<text x="%.1f" y="%d">%.2fx%s</text>' % (max(x0, x1) + 4, y + 12, v, _esc(note)))
    if not meas:
        out.append('<text x="%d" y="%d">no program measured yet</text>' % (left, top + 12))
    yl = y_end + 32
    out.append('<text x="%d" y="%d" fill="#555">%s</text>' % (
        left, yl, _esc("green: > %.2fx, grey: %.2fx-%.2fx, red: < %.2fx; hatched: own check fails after rewriting"
                       % (IMPROVED, SLOWER, IMPROVED, SLOWER))))
    if rest:
        out.append('<text x="%d" y="%d" fill="#555">%s</text>' % (
            left, yl + 16, _esc("no measurement: " + ", ".join(rest))))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_report(results_dir, refs=None, expected=None, title=None):
    """summary.json, summary.md and speedup.svg from every result under
    results_dir (the merge of all slices run so far)."""
    results = load_results(results_dir)
    if refs is None:
        refs = load_json(os.path.join(results_dir, "refs.json")) or {}
    s = summarize(results, refs, expected)
    write_atomic(os.path.join(results_dir, "summary.json"), json.dumps(s, indent=1, sort_keys=True))
    write_atomic(os.path.join(results_dir, "summary.md"),
                 markdown_report(s, title or "cuda-l1 end-to-end benchmark: %s" % os.path.basename(
                     os.path.normpath(results_dir))))
    write_atomic(os.path.join(results_dir, "speedup.svg"), speedup_svg(s["rows"]))
    return s


def write_atomic(path, text):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp.%d" % os.getpid()
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def last_json_line(text):
    """The last line of text that parses as a JSON object, or None."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    return None


def tool_commit(tool):
    """The commit `tool` was built from, as its --version says ("git
    abc1234"), or None (an older build, or no tool)."""
    if not tool:
        return None
    try:
        out = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"\(git ([^,)]+),", out)
    return m.group(1) if m and m.group(1) != "unknown" else None


def git_commit(root):
    try:
        out = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def tail(text, n=4000):
    return text if len(text) <= n else "...\n" + text[-n:]


# ---------------------------------------------------------------------------
# Running things (GPU machine)

def run_cmd(cmd, cwd, env=None, timeout=None, stdout_path=None, stderr_path=None, started=None,
            finished=None):
    """Runs cmd (list) in its own process group; on time-out kills that group
    (the command and its children, nothing else). started/finished: called
    with the Popen object (to track running commands). Returns (rc, stdout,
    stderr, seconds, timed_out)."""
    t0 = time.time()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    if started:
        started(p)
    timed_out = False
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
    finally:
        if finished:
            finished(p)
    out = out.decode("utf-8", "replace")
    err = err.decode("utf-8", "replace")
    if stdout_path:
        write_atomic(stdout_path, tail(out, 256 * 1024))
    if stderr_path:
        write_atomic(stderr_path, tail(err, 256 * 1024))
    return p.returncode, out, err, time.time() - t0, timed_out


def copy_tree(src, dst):
    """A working copy the tool may rewrite: the corpus may be read-only (the
    shared HeCBench copy is), and the tool refuses to write read-only files."""
    shutil.copytree(src, dst, symlinks=True, ignore=shutil.ignore_patterns(
        "*.o", "*.obj", ".cuda-l1", "__pycache__"))
    for root, dirs, files in os.walk(dst):
        for n in dirs + files:
            p = os.path.join(root, n)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | 0o200)


_CHECK_ORDER = ["pass", "unknown", "fail", "crash", "timeout"]


def merge_runs(runs):
    """One run's record from several runs of the same binary (see Runner.run)."""
    last = runs[-1]
    checks = [r["check"] for r in runs]
    res = {"rc": last["rc"], "timed_out": any(r["timed_out"] for r in runs), "runs": len(runs),
           "wall_s": round(sum(r["wall_s"] for r in runs), 3),
           "check": max(checks, key=lambda c: _CHECK_ORDER.index(c) if c in _CHECK_ORDER else 99),
           "timer": median([r["timer"] for r in runs if r["timer"] is not None]),
           "timers": [r["timer"] for r in runs],
           "kernels": None, "spread": None,
           "stdout_tail": tail(last["out"], 2500), "stderr_tail": tail(last["err"], 1500)}
    kts = [r["kernels"] for r in runs if r["kernels"]]
    if kts:
        merged = dict(kts[-1])
        names = list(dict.fromkeys(k for kt in kts for k in kt["kernels"]))
        merged["kernels"] = {}
        for n in names:
            per = [kt["kernels"][n] for kt in kts if n in kt["kernels"]]
            e = dict(per[0])
            e["total_ns"] = median([x["total_ns"] for x in per])
            e["totals_ns"] = [x["total_ns"] for x in per]
            merged["kernels"][n] = e
        totals = [kt["total_ns"] for kt in kts]
        merged["total_ns"] = median(totals)
        merged["totals_ns"] = totals
        merged["dropped"] = sum(kt.get("dropped", 0) for kt in kts)
        res["kernels"] = merged
        if len(totals) > 1 and merged["total_ns"]:
            res["spread"] = (max(totals) - min(totals)) / merged["total_ns"]
    return res


def changed_files(orig_dir, new_dir):
    """Relative paths of text files that differ, and a unified diff."""
    changed, diff = [], []
    for base, _, files in os.walk(new_dir):
        for f in files:
            p = os.path.join(base, f)
            rel = os.path.relpath(p, new_dir)
            q = os.path.join(orig_dir, rel)
            if not os.path.exists(q) or not re.search(r"\.(cu|cuh|h|hpp|cpp|cc|c)$", f):
                continue
            try:
                with open(q, encoding="utf-8", errors="replace") as a, open(p, encoding="utf-8", errors="replace") as b:
                    ta, tb = a.read(), b.read()
            except OSError:
                continue
            if ta != tb:
                changed.append(rel)
                diff += list(difflib.unified_diff(ta.splitlines(True), tb.splitlines(True),
                                                  "a/" + rel, "b/" + rel))
    return sorted(changed), "".join(diff)


class BudgetExceeded(Exception):
    """A command was stopped because the run's time budget ran out."""


class RunnerError(Exception):
    """An error of the CPU stage, raised again in the GPU stage: (message,
    traceback)."""

    def __str__(self):
        return self.args[0]


class Runner:
    """Builds, runs, rewrites, rebuilds and reruns programs; writes one JSON
    per program under results_dir/programs. See utils/bench-corpus.py.

    With a deadline (absolute time.time()), every command's time limit is cut
    to what is left; a command stopped by the deadline (not by its own limit)
    makes the program 'interrupted': its result is not kept as done, and the
    next run starts it again."""

    def __init__(self, opts):
        self.o = opts
        self.cuda = opts.cuda_path
        self.nvcc = os.path.join(self.cuda, "bin", "nvcc")
        self.results = os.path.abspath(opts.results)
        self.work = os.path.abspath(opts.work)
        os.makedirs(os.path.join(self.results, "programs"), exist_ok=True)
        os.makedirs(self.work, exist_ok=True)
        self.deadline = None
        self.aborted = False
        self._running = set()
        self._lock = threading.Lock()

    def abort(self):
        """Stops the commands running now (their process groups) and every
        later one: the run is over."""
        with self._lock:
            self.aborted = True
            running = list(self._running)
        for p in running:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def _started(self, p):
        with self._lock:
            self._running.add(p)
            if self.aborted:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass

    def _finished(self, p):
        with self._lock:
            self._running.discard(p)

    def cmd(self, cmd, cwd, env, timeout, stdout_path=None, stderr_path=None):
        """run_cmd with the deadline applied (see the class comment)."""
        by_deadline = False
        if self.aborted:
            raise BudgetExceeded("the run was stopped")
        if self.deadline is not None:
            left = self.deadline - time.time()
            if left < 5:
                raise BudgetExceeded("no time left for " + os.path.basename(cmd[0]))
            if timeout is None or left < timeout:
                timeout, by_deadline = left, True
        res = run_cmd(cmd, cwd, env, timeout, stdout_path, stderr_path, self._started, self._finished)
        if (res[4] and by_deadline) or self.aborted:
            raise BudgetExceeded("%s stopped at the end of the time budget" % os.path.basename(cmd[0]))
        return res

    def log(self, msg):
        line = "[%s] %s" % (time.strftime("%H:%M:%S"), msg)
        print(line, flush=True)
        with open(os.path.join(self.results, "run.log"), "a") as f:
            f.write(line + "\n")

    # ---- environment
    def base_env(self):
        env = dict(os.environ)
        env["CUDA_PATH"] = self.cuda
        env["PATH"] = os.path.join(self.cuda, "bin") + os.pathsep + env.get("PATH", "")
        env.pop("CUDA_INJECTION64_PATH", None)
        return env

    def traced_env(self, ktdir):
        env = self.base_env()
        env["KT_OUT"] = os.path.join(ktdir, "kt-%p.json")
        env["KT_KIND"] = self.o.kt_kind
        if self.o.kernel_times_lib:
            env["CUDA_INJECTION64_PATH"] = self.o.kernel_times_lib
        return env

    # ---- build
    def build_cmds(self, prog, src_dir):
        """(build commands, compile commands for the tool)."""
        if prog["build"] == "nvcc":
            exe = os.path.join(src_dir, prog["name"])
            cmd = [self.nvcc] + prog["nvcc_flags"] + ["-o", exe] + prog["sources"]
            cdb = [{"directory": src_dir, "file": os.path.join(src_dir, s),
                    "arguments": [self.nvcc] + prog["nvcc_flags"] + ["-c", s, "-o", s + ".o"]}
                   for s in prog["sources"]]
            return [cmd], cdb, exe
        mk = open(os.path.join(src_dir, "Makefile"), errors="replace").read()
        arch = _make_var(mk, "ARCH") or "sm_60"
        arch_val = self.o.arch if arch.startswith("sm_") else self.o.arch.replace("sm_", "")
        make = ["make", "-C", src_dir, "ARCH=" + arch_val]
        exe = os.path.join(src_dir, _make_var(mk, "program") or _make_var(mk, "EXEC_NAME") or "main")
        return [make], None, exe

    def make_cdb(self, prog, src_dir):
        """compile_commands.json from `make -n -B` (HeCBench programs)."""
        mk = open(os.path.join(src_dir, "Makefile"), errors="replace").read()
        arch = _make_var(mk, "ARCH") or "sm_60"
        arch_val = self.o.arch if arch.startswith("sm_") else self.o.arch.replace("sm_", "")
        rc, out, _, _, _ = self.cmd(["make", "-n", "-B", "-C", src_dir, "ARCH=" + arch_val], src_dir,
                                    self.base_env(), 60)
        return compile_db_from_make(out, src_dir)

    def build(self, prog, src_dir, logname):
        cmds, cdb, exe = self.build_cmds(prog, src_dir)
        if cdb is None:
            cdb = self.make_cdb(prog, src_dir)
        write_atomic(os.path.join(src_dir, "compile_commands.json"), json.dumps(cdb, indent=1))
        log, ok, t0 = [], True, time.time()
        for c in cmds:
            rc, out, err, _, to = self.cmd(c, src_dir, self.base_env(), self.o.build_timeout)
            log.append("$ " + " ".join(shlex.quote(x) for x in c) + "\n" + out + err)
            if rc != 0 or to:
                ok = False
                break
        ok = ok and os.path.exists(exe)
        return {"ok": ok, "seconds": round(time.time() - t0, 2), "log": tail("\n".join(log), 3000),
                "exe": exe if ok else None}

    # ---- run
    def run(self, prog, exe, src_dir, tag, outdir):
        """Runs the program --repeat times (default 1). Kernel times: per
        kernel and in total, the median over the runs; 'spread' = (max - min)
        / median of the runs' totals. The check is the worst of the runs'."""
        runs = []
        for k in range(max(1, getattr(self.o, "repeat", 1))):
            ktdir = os.path.join(outdir, "kt-%s-%d" % (tag, k))
            shutil.rmtree(ktdir, ignore_errors=True)
            os.makedirs(ktdir)
            timeout = min(prog["timeout_s"], self.o.run_timeout)
            rc, out, err, secs, to = self.cmd([exe] + prog["args"], src_dir, self.traced_env(ktdir), timeout,
                                              os.path.join(outdir, tag + ".stdout"),
                                              os.path.join(outdir, tag + ".stderr"))
            kt = load_kernel_times(sorted(glob.glob(os.path.join(ktdir, "*.json"))))
            runs.append({"rc": rc, "timed_out": to, "wall_s": round(secs, 3),
                         "check": own_check(prog["check"], out, rc, to),
                         "timer": parse_timer(prog["timing_regex"], out + "\n" + err),
                         "kernels": kt if kt["processes"] else None, "out": out, "err": err})
            if runs[-1]["check"] not in RUN_OK:
                break      # a failing program is not run again
        res = merge_runs(runs)
        if self.o.ncu:
            res["ncu"] = self.run_ncu(prog, exe, src_dir, tag, outdir)
        return res

    def run_ncu(self, prog, exe, src_dir, tag, outdir):
        ncu = shutil.which("ncu", path=os.path.join(self.cuda, "bin") + os.pathsep + os.environ.get("PATH", ""))
        if not ncu:
            return {"error": "ncu not found"}
        # --clock-control none: the card's clocks are left as they are
        cmd = [ncu, "--csv", "--print-units", "base", "--clock-control", "none", "--metrics",
               "dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum",
               "--launch-count", str(self.o.ncu_launches), exe] + prog["args"]
        rc, out, err, secs, to = self.cmd(cmd, src_dir, self.base_env(), self.o.run_timeout * 3,
                                         os.path.join(outdir, tag + ".ncu.csv"))
        return {"rc": rc, "timed_out": to, "seconds": round(secs, 1), "kernels": parse_ncu_csv(out)}

    # ---- rewrite
    def rewrite(self, prog, src_dir, exe, outdir):
        files = [os.path.join(src_dir, s) for s in prog["sources"]]
        extra = list(prog.get("tool_args", []))
        if prog["args"]:
            # The program's own command line: sizes it reads from argv are
            # then known to harness inference (docs/harness.md).
            extra.append("--program-args=" + " ".join(shlex.quote(a) for a in prog["args"]))
        info = {}
        if self.o.capture_bin:
            capdir = os.path.join(outdir, "capture")
            shutil.rmtree(capdir, ignore_errors=True)
            cmd = shlex.split(CAPTURE_TEMPLATE.format(capture=shlex.quote(self.o.capture_bin),
                                                      capdir=shlex.quote(capdir), binary=shlex.quote(exe),
                                                      args=" ".join(shlex.quote(a) for a in prog["args"])))
            rc, out, err, secs, to = self.cmd(cmd, src_dir, self.base_env(), self.o.run_timeout * 2)
            info["capture"] = {"rc": rc, "seconds": round(secs, 1), "timed_out": to, "log": tail(out + err, 1500)}
            if rc == 0 and not to and os.path.isdir(capdir):
                extra.append("--capture=" + capdir)
        template = self.o.tool_cmd or TOOL_TEMPLATES[getattr(self.o, "tool_mode", "verify")]
        if ("--verify=run" in template and self.o.tool_timeout
                and not any(e.startswith("--verify-budget") for e in extra)):
            # End the verification before the runner kills the tool, so that
            # the fixes accepted so far are written back (docs/verify.md,
            # "Time budgets"): 70% of the program's time, the rest for the
            # candidate running when it is spent, parsing and writing.
            extra.append("--verify-budget=%d" % max(60, int(self.o.tool_timeout * 0.7)))
        fixes = os.path.join(outdir, "fixes.yaml")
        if os.path.exists(fixes):
            os.remove(fixes)
        cmd = shlex.split(template.format(rewrite=shlex.quote(self.o.rewrite), builddir=shlex.quote(src_dir),
                                          fixes=shlex.quote(fixes),
                                          files=" ".join(shlex.quote(f) for f in files),
                                          extra=" ".join(shlex.quote(e) for e in extra)))
        tool_env = self.base_env()
        if getattr(self.o, "tool_cuda_path", None):
            tool_env["CUDA_PATH"] = self.o.tool_cuda_path
        rc, out, err, secs, to = self.cmd(cmd, src_dir, tool_env, self.o.tool_timeout,
                                         os.path.join(outdir, "tool.stdout"), os.path.join(outdir, "tool.stderr"))
        text = ""
        for base, _, fs in os.walk(src_dir):
            for f in fs:
                if re.search(r"\.(cu|cuh|h|hpp)$", f):
                    with open(os.path.join(base, f), errors="replace") as fh:
                        text += fh.read() + "\n"
        info.update({"cmd": " ".join(shlex.quote(c) for c in cmd), "rc": rc, "timed_out": to,
                     "seconds": round(secs, 1), "annotations": parse_annotations(text),
                     "stdout_tail": tail(out, 3000), "stderr_tail": tail(err, 3000),
                     "fixes_applied": None, "exported_fixes": [],
                     "accepted": len(re.findall(r"\bACCEPTED\b", out + err)),
                     "rejected": len(re.findall(r"\brejected\b", out + err))})
        return info

    def attach_fixes(self, info, outdir, new_dir, pristine):
        """Rule ids (and kernels) of the edits the tool exported."""
        m = re.search(r"applied (\d+) fix(es)? in (\d+) file", info.get("stderr_tail", "") + info.get("stdout_tail", ""))
        info["fixes_applied"] = int(m.group(1)) if m else None
        path = os.path.join(outdir, "fixes.yaml")
        if not os.path.exists(path):
            return
        with open(path, errors="replace") as f:
            fixes = parse_export_fixes(f.read())
        texts = {}
        for fx in fixes:
            fx["kernel"] = None
            if fx["file"] and fx["offset"] is not None:
                rel = os.path.relpath(fx["file"], new_dir)
                fx["file"] = rel
                src = os.path.join(pristine, rel)
                if src not in texts:
                    try:
                        with open(src, errors="replace") as f:
                            texts[src] = f.read()
                    except OSError:
                        texts[src] = ""
                fx["kernel"] = kernel_at(texts[src], fx["offset"])
        info["exported_fixes"] = fixes

    # ---- one program
    def result_path(self, prog):
        return os.path.join(self.results, "programs", prog["name"] + ".json")

    def is_done(self, prog):
        r = load_json(self.result_path(prog))
        if not r:
            return False
        return r.get("status") == "done" or (r.get("status") == "error" and not self.o.retry_errors)

    def prepare(self, prog, side):
        """Fresh copy of the program (and its support folders) under work/."""
        base = os.path.join(self.work, prog["name"], side)
        shutil.rmtree(base, ignore_errors=True)
        os.makedirs(base)
        rel = os.path.relpath(prog["dir"], prog["root"])
        dst = os.path.join(base, rel)
        copy_tree(prog["dir"], dst)
        for s in prog["support"]:
            copy_tree(os.path.join(prog["root"], s), os.path.join(base, s))
        for a in prog["args"]:   # HeCBench: data of sibling folders given as ../x/...
            m = re.match(r"\.\./([^/]+)/", a)
            if m and os.path.isdir(os.path.join(prog["root"], m.group(1))) and \
                    not os.path.exists(os.path.join(base, m.group(1))):
                os.symlink(os.path.join(prog["root"], m.group(1)), os.path.join(base, m.group(1)))
        return dst

    def wants_rewrite(self):
        return bool(self.o.rewrite) and not self.o.no_rewrite

    def tool_uses_gpu(self):
        """Whether the rewrite step needs the GPU (then it runs in the GPU
        stage, one program at a time); otherwise it runs ahead in the pool."""
        if self.o.capture_bin:
            return True
        if self.o.tool_cmd:
            return "--verify=run" in self.o.tool_cmd
        return getattr(self.o, "tool_mode", "verify") == "verify"

    def outdir(self, prog):
        return os.path.join(self.results, "programs", prog["name"])

    def cpu_stage(self, prog):
        """What needs no GPU, run ahead of the GPU work in a pool: the copy
        and build of the original, and, when the rewrite needs no GPU, the
        rewrite and the rebuild. Never raises: the state says what happened."""
        st = {"orig_dir": None, "build": None, "rewrite": None, "error": None, "interrupted": None,
              "log": []}
        outdir = self.outdir(prog)
        shutil.rmtree(outdir, ignore_errors=True)
        os.makedirs(outdir)
        try:
            st["orig_dir"] = self.prepare(prog, "orig")
            st["build"] = self.build(prog, st["orig_dir"], "orig")
            if st["build"]["ok"] and self.wants_rewrite() and not self.tool_uses_gpu():
                st["rewrite"] = self.rewrite_and_rebuild(prog, st["build"], outdir, st["log"])
        except BudgetExceeded as e:
            st["interrupted"] = str(e)
        except Exception as e:  # reported by the program's run
            import traceback
            st["error"] = ("%s: %s" % (type(e).__name__, e), traceback.format_exc())
        return st

    def cpu_stage_safe(self, prog):
        try:
            return self.cpu_stage(prog)
        except Exception as e:
            return {"error": ("%s: %s" % (type(e).__name__, e), ""), "interrupted": None, "log": []}

    def rewrite_and_rebuild(self, prog, orig_build, outdir, log):
        """Copies the program, runs the tool on the copy, records what it
        changed, rebuilds when something changed. Returns {"tool",
        "unchanged", "build", "new_dir"}."""
        new_dir = self.prepare(prog, "new")
        # the tool gets the compile commands and sees the sources as the build did
        cmds, cdb, exe = self.build_cmds(prog, new_dir)
        if cdb is None:
            cdb = self.make_cdb(prog, new_dir)
        write_atomic(os.path.join(new_dir, "compile_commands.json"), json.dumps(cdb, indent=1))
        pristine = self.prepare(prog, "pristine")
        tool = self.rewrite(prog, new_dir, orig_build["exe"], outdir)
        self.attach_fixes(tool, outdir, new_dir, pristine)
        changed, diff = changed_files(pristine, new_dir)
        tool["files_changed"] = changed
        log.append("  %s tool: exit %s in %.0f s, %d kernels annotated, %s fixes applied, files changed: %s" % (
            prog["name"], tool["rc"], tool["seconds"], len(tool["annotations"]),
            "?" if tool.get("fixes_applied") is None else tool["fixes_applied"], ", ".join(changed) or "none"))
        out = {"tool": tool, "unchanged": not changed, "build": None, "new_dir": new_dir}
        if diff:
            write_atomic(os.path.join(outdir, "rewrite.diff"), diff)
        for f in changed:
            dst = os.path.join(outdir, "rewritten", f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(os.path.join(new_dir, f), dst)
        if changed:
            out["build"] = self.build(prog, new_dir, "new")
            if not out["build"]["ok"]:
                log.append("  %s rewritten: BUILD FAILED" % prog["name"])
        return out

    def run_program(self, prog, state=None):
        """The GPU stage of one program (and its CPU stage first when no
        state from the pool is given). Writes and returns its result."""
        r = {"name": prog["name"], "corpus": prog["corpus"], "category": prog["category"],
             "description": prog["description"], "sizes": prog["sizes"], "kernel_specs": prog["kernels"],
             "cublas": prog["cublas"], "args": prog["args"],
             "args_origin": prog.get("args_origin", "corpus"), "status": "running",
             "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
             "original": None, "tool": None, "rewritten": None, "unchanged": False,
             "tool_mode": (self.o.tool_cmd and "custom") or getattr(self.o, "tool_mode", "verify")}
        t0 = time.time()
        outdir = self.outdir(prog)
        try:
            st = state if state is not None else self.cpu_stage(prog)
            if st.get("interrupted"):
                raise BudgetExceeded(st["interrupted"])
            if st.get("error"):
                raise RunnerError(*st["error"])
            build = st["build"]
            r["original"] = {"build": build}
            if build["ok"]:
                r["original"]["run"] = self.run(prog, build["exe"], st["orig_dir"], "orig", outdir)
                self.log("  %s original: check %s, kernels %s ms, timer %s" % (
                    prog["name"], r["original"]["run"]["check"],
                    _f(_side_total(r["original"]) and _side_total(r["original"]) / 1e6, "%.3f"),
                    r["original"]["run"]["timer"]))
            if build["ok"] and self.wants_rewrite():
                rw = st.get("rewrite")
                if rw is None:
                    rw = self.rewrite_and_rebuild(prog, build, outdir, st["log"])
                for line in st["log"]:
                    self.log(line)
                r["tool"], r["unchanged"] = rw["tool"], rw["unchanged"]
                if rw["build"] is not None:
                    r["rewritten"] = {"build": rw["build"]}
                    if rw["build"]["ok"]:
                        r["rewritten"]["run"] = self.run(prog, rw["build"]["exe"], rw["new_dir"], "new", outdir)
                        row = program_row(r)
                        self.log("  %s rewritten: check %s, kernels %s ms, speedup %s" % (
                            prog["name"], r["rewritten"]["run"]["check"], _f(row["new_ms"], "%.3f"),
                            _f(row["speedup"], "%.3fx")))
            r["status"] = "done"
        except BudgetExceeded as e:
            r["status"] = "interrupted"
            r["error"] = str(e)
            self.log("  %s: interrupted (%s); it runs again next time" % (prog["name"], e))
        except Exception as e:  # recorded, the run goes on with the next program
            import traceback
            r["status"] = "error"
            r["error"] = "%s: %s" % (type(e).__name__, e)
            r["traceback"] = e.args[1] if isinstance(e, RunnerError) else traceback.format_exc()
            self.log("  %s: runner error %s" % (prog["name"], r["error"]))
        r["seconds"] = round(time.time() - t0, 1)
        r["finished"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        write_atomic(self.result_path(prog), json.dumps(r, indent=1, sort_keys=True))
        if not self.o.keep_work:
            shutil.rmtree(os.path.join(self.work, prog["name"]), ignore_errors=True)
        return r

    def build_fresh(self, prog, side):
        d = self.prepare(prog, side)
        return d, self.build(prog, d, side)


def compile_db_from_make(make_n_output, src_dir):
    """Compile commands (clang JSON database entries) for the .cu files that
    `make -n` would compile with nvcc."""
    entries = []
    for line in make_n_output.splitlines():
        line = line.strip()
        if not line or line.startswith(("make", "#", "echo")):
            continue
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        if not words or not os.path.basename(words[0]).startswith("nvcc"):
            continue
        cus = [w for w in words if w.endswith(".cu")]
        if not cus:
            continue
        args, skip = [], False
        for i, w in enumerate(words):
            if skip:
                skip = False
                continue
            if w == "-o":
                skip = True
                continue
            args.append(w)
        if "-c" not in args:
            args.insert(1, "-c")
        for cu in cus:
            others = [a for a in args if a not in cus or a == cu]
            entries.append({"directory": src_dir, "file": os.path.join(src_dir, cu), "arguments": others})
    return entries
