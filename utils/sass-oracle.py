#!/usr/bin/env python3
"""The SASS oracle (issue 14, precision on good code): does a rule's fix
change the machine code nvcc emits?

For every CUDA file of a corpus and every rule that reports a finding there,
the rule's fixes alone are applied (`--rules='-*,R' --allow-unverified -o`),
the original and the rewritten file are compiled with
`nvcc -cubin -arch=sm_90 -O3`, and each kernel's machine code (the
cubin's `.text.<kernel>` section, what cuobjdump -sass disassembles) is
compared. A finding whose
fix leaves every kernel's SASS as it was changes nothing the GPU runs: it is
noise, and the rule's conditions should not report it.

Limits: only the kernels' code sections are compared, so a fix that edits
host code only (a launch configuration) or only the kernel's attributes
(a `__launch_bounds__`) counts as "changes no SASS" unless it changes the
kernel's register count (compared too, from `.nv.info`); a rule's fixes in one file are applied together, and a
kernel's change is credited to each of the rule's findings in it.

Writes one JSON line per (file, rule) to --out and prints, per rule:
findings, findings with a fix (one `--allow-unverified` applies), those
compiled and compared, and how many of those changed no kernel's SASS. Needs only nvcc (no GPU, no cuobjdump).

  python3 utils/sass-oracle.py --tool build/bin/cuda-l1-rewrite \\
      --corpus ../shared/corpus/hecbench --out /tmp/oracle.jsonl [--only a,b] [-j 2]
"""
import argparse, collections, json, os, re, shutil, struct, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep  # noqa: E402  (include_dirs, find_files)

NVCC = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def elf_sections(data):
    """[(name, type, offset, size, link)] of an ELF64 little-endian file."""
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    secs = []
    for i in range(shnum):
        name, typ, _fl, _addr, off, size, link = struct.unpack_from(
            "<IIQQQQI", data, shoff + i * shentsize)
        secs.append((name, typ, off, size, link))
    stroff = secs[shstrndx][2]

    def sname(n):
        e = data.index(b"\0", stroff + n)
        return data[stroff + n:e].decode("latin-1")
    return [(sname(n), t, o, z, l) for n, t, o, z, l in secs]


def elf_register_counts(data, secs):
    """{function: registers} from the cubin's `.nv.info` section
    (EIATTR_REGCOUNT, attribute 0x2f: symbol index, count), names from
    `.symtab`."""
    syms = {}
    for name, typ, off, size, link in secs:
        if typ == 2:  # SHT_SYMTAB
            stroff = secs[link][2]
            for i in range(size // 24):
                st_name = struct.unpack_from("<I", data, off + i * 24)[0]
                e = data.index(b"\0", stroff + st_name)
                syms[i] = data[stroff + st_name:e].decode("latin-1")
    regs = {}
    for name, typ, off, size, link in secs:
        if name != ".nv.info":
            continue
        i, b = 0, data[off:off + size]
        while i + 2 <= len(b):
            fmt, attr = b[i], b[i + 1]
            if fmt == 4:  # EIFMT_SVAL: 2-byte size, then the value
                n = struct.unpack_from("<H", b, i + 2)[0]
                if attr == 0x2F and n == 8:
                    sym, count = struct.unpack_from("<II", b, i + 4)
                    regs[syms.get(sym, str(sym))] = count
                i += 4 + n
            elif fmt == 3:  # EIFMT_HVAL: 2-byte value
                i += 4
            else:
                i += 2
    return regs


def elf_text_sections(data):
    """{function: code bytes} from a cubin's `.text.<function>` sections
    (ELF64, little-endian), each followed by the function's register count
    (a `__launch_bounds__` that changes only the register budget changes
    what the GPU runs too)."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return None
    secs = elf_sections(data)
    regs = elf_register_counts(data, secs)
    out = {}
    for n, _typ, off, size, _link in secs:
        if n.startswith(".text."):
            fn = n[len(".text."):]
            out[fn] = data[off:off + size] + b"|regs=%d" % regs.get(fn, -1)
    return out


def sass(path, incs, tmp, timeout):
    """{function name: machine code} of the file (the cubin's code sections,
    which is what cuobjdump -sass disassembles), or None if it does not
    compile."""
    cubin = os.path.join(tmp, os.path.basename(path) + ".cubin")
    rc, _, _ = run([NVCC, "-cubin", "-arch=sm_90", "-O3", "-std=c++17", "-w"] +
                   ["-I" + i for i in incs] + [path, "-o", cubin], timeout)
    if rc != 0:
        return None
    with open(cubin, "rb") as f:
        return elf_text_sections(f.read())


def kernel_ranges(tool, path, args, timeout):
    rc, out, _ = run([tool, "--list-kernels", "--format=json", path, "--"] + args, timeout)
    if rc != 0:
        return []
    try:
        d = json.loads(out)
    except ValueError:
        return []
    ks = []
    for k in d.get("kernels", []):
        names = [i.get("mangledName") for i in k.get("instantiations", []) if i.get("mangledName")]
        ks.append((k["begin"]["line"], k["end"]["line"], names))
    return ks


def one_file(path, a):
    incs = sweep.include_dirs(path, a.corpus)
    args = ["-I" + i for i in incs]
    rel = os.path.relpath(path, a.corpus)
    rc, out, _ = run([a.tool, "--format=json"] + a.every_rule + [path, "--"] + args, a.timeout)
    per_rule = collections.defaultdict(list)
    has_fix = collections.defaultdict(list)
    try:
        found = json.loads(out).get("findings", []) if rc in (0, 1) else []
    except ValueError:
        found = []
    for f in found:
        if os.path.abspath(f.get("file", "")) != os.path.abspath(path):
            continue
        fix = f.get("fix") or {}
        per_rule[f["rule"]].append(int(f["line"]))
        # What `--allow-unverified -o` applies: a proven fix that needs no
        # GPU measurement first.
        has_fix[f["rule"]].append(bool(fix) and fix.get("proven", True) and
                                  not fix.get("needsMeasurement", False))
    if a.rules:
        per_rule = {r: v for r, v in per_rule.items() if r in a.rules}
    if not per_rule:
        return []
    rows = []
    with tempfile.TemporaryDirectory() as t:
        before = sass(path, incs, t, a.timeout * 3)
        ranges = kernel_ranges(a.tool, path, args, a.timeout)
        for rule, lines in sorted(per_rule.items()):
            row = {"file": rel, "rule": rule, "lines": lines, "findings": len(lines),
                   "has_fix": has_fix[rule]}
            od = os.path.join(t, "o-" + rule)
            run([a.tool, "--rules=-*," + rule, "--allow-unverified", "--allow-fast-math",
                 "-o", od, path, "--"] + args, a.timeout)
            mine = [os.path.join(dp, f) for dp, _, fs in os.walk(od) for f in fs
                    if f == os.path.basename(path)]
            if not mine:
                row["fixed"] = False
                rows.append(row)
                continue
            row["fixed"] = True
            if before is None:
                row["compiles"] = "original does not compile"
                rows.append(row)
                continue
            after = sass(mine[0], [os.path.dirname(mine[0])] + incs, t, a.timeout * 3)
            if after is None:
                row["compiles"] = False
                rows.append(row)
                continue
            # Kernels whose SASS changed; a renamed kernel (a const added to
            # a parameter changes the mangled name) counts as changed only
            # if no unmatched function has its code.
            changed = []
            unmatched_after = {k: v for k, v in after.items() if k not in before}
            for name, code in before.items():
                if name in after:
                    if after[name] != code:
                        changed.append(name)
                elif code not in unmatched_after.values():
                    changed.append(name)
            row["changed_functions"] = changed
            # Per finding: inside a kernel whose SASS changed (a finding in a
            # device function counts when any kernel changed).
            per_line = []
            for ln in lines:
                ks = [k for k in ranges if k[0] <= ln <= k[1]]
                if ks:
                    per_line.append(any(n in changed for n in ks[0][2]) or
                                    (not ks[0][2] and bool(changed)))
                else:
                    per_line.append(bool(changed))
            row["line_changed"] = per_line
            rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpus", "hecbench"))
    ap.add_argument("--tool", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", help="programs, comma-separated")
    ap.add_argument("--rules", help="only these rules, comma-separated")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--summarize", action="store_true", help="no run: the table from --out")
    a = ap.parse_args()
    a.corpus = os.path.abspath(a.corpus)
    a.rules = set(a.rules.split(",")) if a.rules else None
    # Every rule, those off by default too (they run only when named).
    a.every_rule = []
    if not a.summarize:
        rc, out, _ = run([a.tool, "--list-rules", "--format=json"], 60)
        off = [r["id"] for r in json.loads(out)["rules"] if not r.get("enabled", True)] if rc == 0 else []
        a.every_rule = ["--rules=" + ",".join(off)] if off else []
        if not shutil.which(NVCC) and not os.path.exists(NVCC):
            sys.exit("sass-oracle: nvcc not found at %s (set NVCC)" % NVCC)
        files = sweep.find_files(a.corpus, set(a.only.split(",")) if a.only else None)
        with open(a.out, "w") as f, ThreadPoolExecutor(a.j) as ex:
            for rows in ex.map(lambda p: one_file(p, a), files):
                for r in rows:
                    f.write(json.dumps(r) + "\n")
                f.flush()
    summarize(a.out)


def summarize(out):
    # findings, with a fix, fix compiled and compared, changes no SASS, fix
    # does not compile
    tot = collections.defaultdict(lambda: [0, 0, 0, 0, 0])
    for l in open(out):
        r = json.loads(l)
        t = tot[r["rule"]]
        fixes = r.get("has_fix", [True] * r["findings"])
        t[0] += r["findings"]
        t[1] += sum(fixes)
        if r.get("fixed") and "line_changed" in r:
            t[2] += sum(fixes)
            t[3] += sum(1 for c, f in zip(r["line_changed"], fixes) if f and not c)
        elif r.get("fixed") and r.get("compiles") is False:
            t[4] += sum(fixes)
    print("| rule | findings | with a fix | fix compiled and compared | fix changes no SASS | fix does not compile |")
    print("|---|---:|---:|---:|---:|---:|")
    for rule, t in sorted(tot.items(), key=lambda kv: -kv[1][0]):
        print("| %s | %d | %d | %d | %d | %d |" % ((rule,) + tuple(t)))


if __name__ == "__main__":
    main()
