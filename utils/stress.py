#!/usr/bin/env python3
"""Generated stress for cuda-l1-rewrite (issue 18): thousands of generated
CUDA files from templates and mutations, each run through the tool.

    utils/stress.py [--cases N] [--seed S] [--tool BIN] [--batch B]
                    [--timeout S] [--out DIR] [--kinds a,b] [--scale F] [--round-robin]

Kinds of case (each file deterministic from --seed and its number):
  plain        1-6 kernels from templates (element-wise, reduction, stencil,
               transpose, loops, literals), often with a main() that launches
  macro-deep   an expression through a chain of 10-300 nested macros
  kernel-macro kernels defined by macros, instantiated many times
  if-maze      kernels in nested #if/#elif/#else mazes, some never closed
  template     template kernels instantiated many ways (types, values)
  huge         hundreds to thousands of kernels in one file (--scale)
  long-line    one expression line of 100k+ characters
  non-utf8     a plain file with bytes 0x80-0xff in comments, strings, code
  unbalanced   a plain file with braces/parentheses removed or added
  mutate       a plain file with tokens deleted, lines duplicated or swapped
  garbage      random bytes named .cu

Each batch of files is run (1) in advise mode, (2) with --fix
--allow-unverified, then --fix again until nothing changes. Checked: exit
status 0, 1 or 2 only (anything else, e.g. a signal, is a crash); no time-out
(a hang); no stack dump or "crashed" on stderr; no bare "N errors generated"
line; the fix runs converge: a second --fix changes nothing, except fixes the
run before dropped because their edit overlapped a fix with priority
(docs/fixes.md, "Conflicts"), and after 4 runs
nothing changes. A batch that fails is run again file by file to name the
file. Failing files are kept under --out/failures/ with the reason.

Prints a table: cases per kind, parsed/not parsed, exit statuses, findings
and fixes applied, failures. Exit status 0 when nothing failed, 1 otherwise.
Python standard library only.
"""
import argparse
import collections
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OK_EXIT = {0, 1, 2}
MAX_FIX_RUNS = 4
BARE = re.compile(r"^\d+ (errors?|warnings?)( and \d+ (errors?|warnings?))? generated\b", re.M)
DUMP = re.compile(r"Stack dump|PLEASE submit a bug report|crashed|AddressSanitizer|runtime error:")
DROPPED = re.compile(r"note: (.*?):\d+:\d+: \[([a-z0-9-]+)\] fix not applied: its edit overlaps")

# ---------------------------------------------------------------- generators

TYPES = ["float", "double", "int", "unsigned", "long long", "short", "char", "half2x"]


def ident(r, prefix="k"):
    return "%s_%s%d" % (prefix, "".join(r.choice("abcdefghxyz") for _ in range(3)), r.randrange(1000))


def kernel(r, name=None):
    """One kernel from a template, with random constants and types."""
    n = name or ident(r)
    t = r.choice(["float", "float", "double", "int"])
    c = r.choice(["2.0", "3.0f", "0.5", "7", "1e-3", "2.0f"])
    which = r.randrange(9)
    if which == 0:
        return ("__global__ void %s(%s *out, const %s *in, int n) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  if (i < n) out[i] = in[i] / %s + in[i] * %s;\n}\n" % (n, t, t, c, c))
    if which == 1:
        b = r.choice([64, 128, 256, 512])
        return ("__global__ void %s(const float *in, float *out, int n) {\n"
                "  __shared__ float s[%d];\n"
                "  int t = threadIdx.x, i = blockIdx.x * %d + t;\n"
                "  s[t] = i < n ? in[i] : 0.0f;\n  __syncthreads();\n"
                "  for (int k = %d / 2; k > 0; k >>= 1) {\n"
                "    if (t < k) s[t] += s[t + k];\n    __syncthreads();\n  }\n"
                "  if (t == 0) atomicAdd(out, s[0]);\n}\n" % (n, b, b, b))
    if which == 2:
        return ("__global__ void %s(float *out, const float *in, int w, int h) {\n"
                "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
                "  if (x > 0 && y > 0 && x < w - 1 && y < h - 1)\n"
                "    out[y * w + x] = 0.25 * (in[y * w + x - 1] + in[y * w + x + 1] +\n"
                "                             in[(y - 1) * w + x] + in[(y + 1) * w + x]);\n}\n" % n)
    if which == 3:
        return ("__global__ void %s(float *out, const float *in, int rows, int cols) {\n"
                "  int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
                "  int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];\n}\n" % n)
    if which == 4:
        return ("__global__ void %s(const float *a, const float *b, float *c, int n, int k) {\n"
                "  int row = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  if (row >= n) return;\n  float acc = 0;\n"
                "  for (int j = 0; j < k; ++j)\n"
                "    acc += a[row * k + j] * b[j] * powf(b[0], 2.0f);\n"
                "  c[row] = acc;\n}\n" % n)
    if which == 5:
        return ("__global__ void %s(%s *p, int n) {\n"
                "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
                "       i += blockDim.x * gridDim.x)\n"
                "    p[i] = sqrt((double)p[i]) * %s + exp(%s);\n}\n" % (n, t, c, c))
    if which == 6:
        return ("__device__ inline float %s_f(float x) { return x * x / %s; }\n"
                "__global__ void %s(float *p, int n) {\n"
                "  int i = threadIdx.x + blockIdx.x * blockDim.x;\n"
                "  if (i < n) { float v = p[i]; p[i] = %s_f(v) + %s_f(v) + v / 4.0; }\n}\n"
                % (n, c, n, n, n))
    if which == 7:
        return ("__global__ void %s(int *hist, const unsigned char *d, int n) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  if (i < n) atomicAdd(&hist[d[i] %% 16], 1);\n}\n" % n)
    return ("__global__ void %s(float *x, const float *y, float a, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            "  if (i < n) x[i] = a * x[i] + y[i] * %s;\n}\n" % (n, c))


def launcher(r, names):
    """A main() that allocates and launches some of the kernels (with
    argument shapes that do not always match: the tool must cope)."""
    n = r.choice(["1024", "1 << 20", "atoi(argv[1])", "N"])
    b = r.choice(["256", "128", "dim3(16, 16)", "bs"])
    body = ["#include <cstdlib>", "#define N 4096",
            "int main(int argc, char **argv) {",
            "  int n = %s; int bs = 256;" % n,
            "  float *a, *b, *c;",
            "  cudaMalloc(&a, n * sizeof(float)); cudaMalloc(&b, n * sizeof(float));",
            "  cudaMalloc(&c, n * sizeof(float));"]
    for k in names[:r.randrange(1, len(names) + 1)]:
        body.append("  %s<<<(n + 255) / 256, %s>>>(a, b, c, n, n);" % (k, b))
    body += ["  cudaDeviceSynchronize();", "  cudaFree(a); cudaFree(b); cudaFree(c);", "  return 0;", "}"]
    return "\n".join(body) + "\n"


def plain(r, kernels=None):
    k = kernels or r.randrange(1, 7)
    names = [ident(r) for _ in range(k)]
    text = "#include <cuda_runtime.h>\n" + "".join(kernel(r, n) for n in names)
    if r.random() < 0.6:
        text += launcher(r, names)
    return text


def macro_deep(r):
    d = r.randrange(10, 300)
    lines = ["#define M0(x) (x)"]
    for i in range(1, d):
        lines.append("#define M%d(x) M%d(%s)" % (i, i - 1, r.choice(["x", "(x) + 1.0f", "x * 2.0", "(x)/3.0"])))
    lines.append("__global__ void deep(float *p, int n) {\n  int i = threadIdx.x;\n"
                 "  if (i < n) p[i] = M%d(p[i]);\n}" % (d - 1))
    if r.random() < 0.5:  # a macro that expands to the whole kernel
        lines.append("#define WRAP(n) __global__ void n(float *q) { q[threadIdx.x] = M%d(q[0]) / 2.0; }" % (d // 2))
        lines.append("WRAP(wrapped_a)\nWRAP(wrapped_b)")
    return "\n".join(lines) + "\n"


def kernel_macro(r):
    lines = ["#define KERNEL(name, T, OP) \\",
             "  __global__ void name(T *__restrict__ p, const T *__restrict__ q, int n) { \\",
             "    int i = blockIdx.x * blockDim.x + threadIdx.x; \\",
             "    if (i < n) p[i] = q[i] OP (T)2.0; \\",
             "  }",
             "#define TWICE(name, T) KERNEL(name##_a, T, /) KERNEL(name##_b, T, *)"]
    for i in range(r.randrange(1, 60)):
        t = r.choice(["float", "double", "int"])
        if r.random() < 0.5:
            lines.append("KERNEL(km%d, %s, %s)" % (i, t, r.choice(["/", "*", "+", "-"])))
        else:
            lines.append("TWICE(kt%d, %s)" % (i, t))
    if r.random() < 0.5:
        lines.append("int main() { float *a; cudaMalloc(&a, 4096); km0<<<16, 256>>>(a, a, 4096); }")
    return "\n".join(lines) + "\n"


def if_maze(r):
    out, depth = [], 0
    for _ in range(r.randrange(5, 120)):
        x = r.random()
        if x < 0.3 and depth < 40:
            out.append(r.choice(["#if defined(A%d)" % r.randrange(5), "#ifdef __CUDA_ARCH__",
                                 "#if __CUDA_ARCH__ >= %d" % r.choice([350, 700, 900]),
                                 "#ifndef B%d" % r.randrange(5), "#if %d" % r.randrange(2),
                                 "#if (%d + X) * 2 > 3" % r.randrange(9)]))
            depth += 1
        elif x < 0.4 and depth:
            out.append(r.choice(["#elif defined(C)", "#else", "#elif 0", "#elif __CUDACC__"]))
        elif x < 0.6 and depth:
            out.append("#endif")
            depth -= 1
        elif x < 0.65:
            out.append("#define A%d %d" % (r.randrange(5), r.randrange(3)))
        else:
            out.append(kernel(r))
    if r.random() < 0.8:  # mostly closed; sometimes left open
        out += ["#endif"] * depth
    return "\n".join(out) + "\n"


def template(r):
    lines = ["template <typename T, int N>",
             "__global__ void tk(T *out, const T *in, int n) {",
             "  int i = blockIdx.x * N + threadIdx.x;",
             "  if (i < n) out[i] = in[i] / (T)2.0 + (T)N;",
             "}",
             "template <typename T> struct Op { __device__ T operator()(T a) const { return a * (T)3.0; } };",
             "template <typename T, typename F>",
             "__global__ void apply(T *p, F f, int n) { int i = threadIdx.x; if (i < n) p[i] = f(p[i]) / 2.0; }",
             "template <typename T, int... Is> __global__ void pack(T *p) { T v[] = {T(Is)...}; p[threadIdx.x] = v[0]; }"]
    types = ["float", "double", "int", "unsigned", "long long", "short", "char"]
    for _ in range(r.randrange(1, 40)):
        t = r.choice(types)
        v = r.choice([32, 64, 128, 256, 1024, 1, 0])
        which = r.randrange(3)
        if which == 0:
            lines.append("template __global__ void tk<%s, %d>(%s *, const %s *, int);" % (t, v, t, t))
        elif which == 1:
            lines.append("template __global__ void apply<%s, Op<%s>>(%s *, Op<%s>, int);" % (t, t, t, t))
        else:
            lines.append("template __global__ void pack<%s%s>(%s *);" % (
                t, "".join(", %d" % r.randrange(9) for _ in range(r.randrange(0, 6))), t))
    if r.random() < 0.6:
        lines.append("int main() { float *a; double *b; cudaMalloc(&a, 4096); cudaMalloc(&b, 8192);")
        lines.append("  tk<float, 256><<<4, 256>>>(a, a, 1024); tk<double, 64><<<16, 64>>>(b, b, 1024);")
        lines.append("  apply<<<1, 32>>>(a, Op<float>(), 32); pack<float, 1, 2><<<1, 1>>>(a); }")
    return "\n".join(lines) + "\n"


def huge(r, scale):
    k = max(2, int(r.randrange(200, 1500) * scale))
    return plain(r, k)


def long_line(r, scale):
    terms = max(10, int(r.randrange(3000, 12000) * scale))
    expr = " + ".join("p[%d] * %s" % (r.randrange(64), r.choice(["2.0", "0.5f", "3"])) for _ in range(terms))
    return "__global__ void longline(float *p) { p[threadIdx.x] = %s; }\n" % expr


def non_utf8(r):
    b = bytearray(plain(r).encode())
    for _ in range(r.randrange(1, 20)):
        pos = r.randrange(len(b) + 1)
        junk = bytes(r.randrange(0x80, 0x100) for _ in range(r.randrange(1, 6)))
        how = r.randrange(3)
        if how == 0:
            junk = b"// " + junk + b"\n"
        elif how == 1:
            junk = b'"' + junk + b'"'
        b[pos:pos] = junk
    if r.random() < 0.2:
        b[0:0] = b"\xef\xbb\xbf"  # a UTF-8 byte order mark
    if r.random() < 0.2:
        b[0:0] = b"\xff\xfe"  # a UTF-16 one
    return bytes(b)


def unbalanced(r):
    s = list(plain(r))
    for _ in range(r.randrange(1, 6)):
        pos = [i for i, ch in enumerate(s) if ch in "{}()[]"]
        if pos and r.random() < 0.6:
            del s[r.choice(pos)]
        else:
            s.insert(r.randrange(len(s) + 1), r.choice("{}()[]<>"))
    return "".join(s)


def mutate(r):
    lines = plain(r).split("\n")
    for _ in range(r.randrange(1, 8)):
        if not lines:
            break
        i = r.randrange(len(lines))
        op = r.randrange(6)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2 and len(lines) > 1:
            j = r.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3:
            toks = re.split(r"(\W)", lines[i])
            if toks:
                del toks[r.randrange(len(toks))]
            lines[i] = "".join(toks)
        elif op == 4:
            lines.insert(i, r.choice(["#define float double", "#define __global__", "#define if while",
                                      "#pragma unroll", "#define threadIdx blockIdx", "#line 1 \"other.cu\"",
                                      "#include \"missing.h\"", "#undef __global__", "asm(\"trap;\");"]))
        else:
            lines[i] = lines[i].replace("+", r.choice(["-", "*", "/", "+="]), 1)
    return "\n".join(lines)


def garbage(r):
    return bytes(r.randrange(256) for _ in range(r.randrange(1, 1 << r.randrange(4, 17))))


KINDS = ["plain", "macro-deep", "kernel-macro", "if-maze", "template", "huge",
         "long-line", "non-utf8", "unbalanced", "mutate", "garbage"]
WEIGHTS = [6, 2, 2, 3, 3, 0.4, 0.4, 3, 3, 5, 1]


def generate(seed, i, kinds, scale, round_robin=False):
    r = random.Random("%d/%d" % (seed, i))
    kind = r.choices(kinds, [WEIGHTS[KINDS.index(k)] for k in kinds])[0]
    if round_robin:
        kind = kinds[i % len(kinds)]
    f = {"plain": plain, "macro-deep": macro_deep, "kernel-macro": kernel_macro, "if-maze": if_maze,
         "template": template, "huge": lambda r: huge(r, scale), "long-line": lambda r: long_line(r, scale),
         "non-utf8": non_utf8, "unbalanced": unbalanced, "mutate": mutate, "garbage": garbage}[kind]
    text = f(r)
    return kind, text if isinstance(text, bytes) else text.encode()


# ---------------------------------------------------------------- running

def run(cmd, timeout, cwd):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"), time.monotonic() - t0
    except subprocess.TimeoutExpired:
        return "timeout", "", "", time.monotonic() - t0


def problems_of(rc, err, what):
    out = []
    if rc == "timeout":
        out.append("%s: time-out (hang)" % what)
    elif rc not in OK_EXIT:
        out.append("%s: exit status %s (crash)" % (what, rc))
    if rc != "timeout":
        m = DUMP.search(err)
        if m:
            out.append("%s: %r on stderr" % (what, m.group(0)))
        m = BARE.search(err)
        if m:
            out.append("%s: bare %r on stderr" % (what, m.group(0)))
    return out


def fixes_by_file(yaml_path):
    """{file: [rule, ...]} of the fixes an --export-fixes file lists."""
    out = collections.defaultdict(list)
    try:
        text = open(yaml_path, encoding="utf-8", errors="replace").read()
    except OSError:
        return out
    for block in text.split("  - DiagnosticName:")[1:]:
        rule = block.split("\n", 1)[0].strip().strip("'")
        m = re.search(r"FilePath:\s*'?([^'\n]+)", block)
        if m:
            out[os.path.basename(m.group(1).strip())].append(rule)
    return out


def check_batch(a, names, work, timeout):
    """Runs advise and the --fix runs over files `names` (in `work`).
    Returns ({name: [problem, ...]}, stats)."""
    probs = collections.defaultdict(list)
    st = {"findings": 0, "fixes": 0, "parse_fail": 0, "exit": collections.Counter()}
    rc, out, err, _ = run([a.tool] + names + ["--"], timeout, work)
    st["exit"][str(rc)] += 1
    for p in problems_of(rc, err, "advise"):
        for n in names:
            probs[n].append(p)
    st["findings"] += len(re.findall(r": (warning|error|note): .*\[[a-z0-9-]+\]$", out, re.M))
    st["parse_fail"] += len(set(re.findall(r"error: (\S+): could not be parsed", err)))
    fixdir = os.path.join(work, "fix")
    shutil.rmtree(fixdir, ignore_errors=True)
    os.makedirs(fixdir)
    for n in names:
        shutil.copy(os.path.join(work, n), os.path.join(fixdir, n))
    before = {n: open(os.path.join(fixdir, n), "rb").read() for n in names}
    prev_err = None
    for k in range(1, MAX_FIX_RUNS + 2):
        yp = os.path.join(work, "fixes%d.yaml" % k)
        if os.path.exists(yp):
            os.remove(yp)
        rc, out, err, _ = run([a.tool, "--fix", "--allow-unverified", "--export-fixes=" + yp] + names + ["--"],
                              timeout, fixdir)
        for p in problems_of(rc, err, "--fix run %d" % k):
            for n in names:
                probs[n].append(p)
        if rc == "timeout" or rc not in OK_EXIT:
            break
        applied = fixes_by_file(yp)
        if k == 1:
            st["fixes"] += sum(len(v) for v in applied.values())
        now = {n: open(os.path.join(fixdir, n), "rb").read() for n in names}
        changed = [n for n in names if now[n] != before[n]]
        if k > 1:
            announced = collections.defaultdict(set)
            for f, rule in DROPPED.findall(prev_err):
                announced[os.path.basename(f)].add(rule)
            for n in changed:
                extra = set(applied.get(n, [])) - announced[n]
                if extra or not applied.get(n):
                    probs[n].append("--fix run %d changed the file again (fixes of %s; run %d dropped only %s)" % (
                        k, ", ".join(sorted(extra)) or "no rule listed",
                        k - 1, ", ".join(sorted(announced[n])) or "none"))
        if not changed:
            break
        if k == MAX_FIX_RUNS + 1:
            for n in changed:
                probs[n].append("--fix still changes the file after %d runs" % MAX_FIX_RUNS)
        before, prev_err = now, err
        names = [n for n in names if n in changed and not probs[n]]
        if not names:
            break
    return probs, st


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", type=int, default=200)
    p.add_argument("--seed", type=int, default=18)
    p.add_argument("--tool", default=os.path.join(ROOT, "build", "bin", "cuda-l1-rewrite"))
    p.add_argument("--batch", type=int, default=25, help="files per tool run")
    p.add_argument("--timeout", type=float, default=60, help="seconds per file in a batch (a batch gets batch x this)")
    p.add_argument("--out", default=os.path.join(ROOT, "build", "stress"))
    p.add_argument("--kinds", default="", help="only these kinds, comma-separated")
    p.add_argument("--scale", type=float, default=1.0, help="size factor of the huge and long-line cases")
    p.add_argument("--round-robin", action="store_true", help="case i is of kind i modulo the kinds (else weighted at random)")
    a = p.parse_args()
    kinds = [k for k in a.kinds.split(",") if k] or KINDS
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        sys.exit("stress: unknown kinds %s (known: %s)" % (", ".join(bad), ", ".join(KINDS)))
    if not os.access(a.tool, os.X_OK):
        sys.exit("stress: %s: no cuda-l1-rewrite binary there (build it, or give --tool)" % a.tool)
    shutil.rmtree(a.out, ignore_errors=True)
    os.makedirs(os.path.join(a.out, "failures"))
    t0 = time.monotonic()
    per_kind = collections.Counter()
    failures = {}
    total = {"findings": 0, "fixes": 0, "parse_fail": 0, "exit": collections.Counter()}
    kernels = 0
    for start in range(0, a.cases, a.batch):
        work = os.path.join(a.out, "batch")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        names, kind_of = [], {}
        for i in range(start, min(a.cases, start + a.batch)):
            kind, data = generate(a.seed, i, kinds, a.scale, a.round_robin)
            n = "c%05d-%s.cu" % (i, kind)
            open(os.path.join(work, n), "wb").write(data)
            names.append(n)
            kind_of[n] = kind
            per_kind[kind] += 1
            kernels += data.count(b"__global__")
        probs, st = check_batch(a, names, work, a.timeout * len(names))
        if any(probs.values()) and len(names) > 1:
            # Name the file: each one alone.
            probs = {}
            for n in names:
                one = os.path.join(work, "one")
                shutil.rmtree(one, ignore_errors=True)
                os.makedirs(one)
                shutil.copy(os.path.join(work, n), os.path.join(one, n))
                pr, _ = check_batch(a, [n], one, a.timeout)
                probs[n] = pr.get(n, [])
        for k in ("findings", "fixes", "parse_fail"):
            total[k] += st[k]
        total["exit"].update(st["exit"])
        for n in names:
            if probs.get(n):
                failures[n] = probs[n]
                shutil.copy(os.path.join(work, n), os.path.join(a.out, "failures", n))
                open(os.path.join(a.out, "failures", n + ".why"), "w").write("\n".join(probs[n]) + "\n")
        done = min(a.cases, start + a.batch)
        print("[%d/%d] %d failing so far" % (done, a.cases, len(failures)), flush=True)
        md = table(a, done, kernels, time.monotonic() - t0, per_kind, total, failures)
        open(os.path.join(a.out, "stress.md"), "w").write(md)  # a run stopped early keeps its table
    print(md)
    print("stress: %s (%d failing cases); kept in %s" % ("FAIL" if failures else "PASS", len(failures),
                                                         os.path.join(a.out, "failures")))
    sys.exit(1 if failures else 0)


def table(a, done, kernels, secs, per_kind, total, failures):
    lines = ["# Generated stress", "",
             "seed %d, %d of %d cases (%d `__global__` kernels), %.0f s" % (a.seed, done, a.cases, kernels, secs), "",
             "| kind | cases |", "|---|---|"]
    lines += ["| %s | %d |" % (k, per_kind[k]) for k in KINDS if per_kind[k]]
    lines += ["", "| measure | value |", "|---|---|",
              "| files the tool could not parse (exit 2, said so) | %d |" % total["parse_fail"],
              "| advise exit statuses (per batch) | %s |" % ", ".join(
                  "%s: %d" % kv for kv in sorted(total["exit"].items())),
              "| findings (advise) | %d |" % total["findings"],
              "| fixes applied (first --fix run) | %d |" % total["fixes"],
              "| failing cases (crash, hang, stack dump, bare clang line, --fix not converging) | %d |" % len(failures),
              ""]
    for n in sorted(failures):
        lines.append("- %s: %s" % (n, "; ".join(failures[n])))
    json.dump({"failures": failures, "cases": done, "seed": a.seed},
              open(os.path.join(a.out, "stress.json"), "w"))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
