#!/usr/bin/env python3
"""A small FileCheck for the GPU machine, which has no LLVM (utils/gpu-lit.sh
installs it as dist/gpu/bin/FileCheck). It implements the part of FileCheck
the GPU lit tests use, with FileCheck's meaning:

    FileCheck CHECK-FILE [--check-prefix=P | --check-prefixes=P,Q]
              [--input-file=F] [--implicit-check-not=PATTERN]

  P:        the pattern matches in a line at or after the previous match
  P-NEXT:   ... in the line right after the previous match
  P-SAME:   ... in the same line as the previous match, after it
  P-NOT:    the pattern does not match between the previous and next match
  P-EMPTY:  the next line is empty
Patterns are literal text with {{regex}} parts; runs of spaces match any run
of horizontal whitespace (FileCheck's default). Anything else (P-DAG,
P-LABEL, [[VAR]] captures) is refused with a message, never ignored, so a test
that needs the real FileCheck fails loudly here. test/Driver/filecheck-lite.test
checks that it agrees with LLVM's FileCheck on passing and failing inputs.
"""
import re
import sys

KINDS = ("NEXT", "SAME", "NOT", "EMPTY")
UNSUPPORTED = ("DAG", "LABEL", "COUNT")


def die(msg):
    sys.stderr.write("FileCheck (filecheck-lite): " + msg + "\n")
    sys.exit(2)


def compile_pattern(text, where):
    if "[[" in text:
        die(where + ": [[...]] variables are not supported by filecheck-lite")
    out, i = [], 0
    while i < len(text):
        j = text.find("{{", i)
        if j < 0:
            out.append(literal(text[i:]))
            break
        out.append(literal(text[i:j]))
        k = text.find("}}", j + 2)
        if k < 0:
            die(where + ": '{{' without '}}'")
        out.append("(?:" + text[j + 2:k] + ")")
        i = k + 2
    return re.compile("".join(out))


def literal(s):
    return "[ \t]+".join(re.escape(p) for p in re.split(r"[ \t]+", s))


def parse_checks(check_file, prefixes):
    with open(check_file, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    alt = "|".join(re.escape(p) for p in prefixes)
    rx = re.compile(r"(?<![A-Za-z0-9_-])(" + alt + r")(?:-([A-Z]+(?:-[0-9]+)?))?:(.*)$")
    checks = []
    for n, line in enumerate(lines, 1):
        m = rx.search(line)
        if not m:
            continue
        kind = m.group(2) or ""
        where = "%s:%d" % (check_file, n)
        if kind and kind.split("-")[0] in UNSUPPORTED:
            die(where + ": %s-%s is not supported by filecheck-lite" % (m.group(1), kind))
        if kind and kind not in KINDS:
            continue  # another prefix that merely starts with ours
        body = m.group(3).strip()
        if kind != "EMPTY" and not body:
            die(where + ": empty check pattern")
        checks.append((kind, compile_pattern(body, where) if body else None, where, body))
    if not checks:
        die("no check strings found with prefix%s %s in %s" %
            ("es" if len(prefixes) > 1 else "", ", ".join(prefixes), check_file))
    return checks


def main(argv):
    check_file, prefixes, input_file, implicit_not = None, [], None, []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("--check-prefix=") or a.startswith("-check-prefix="):
            prefixes.append(a.split("=", 1)[1])
        elif a.startswith("--check-prefixes=") or a.startswith("-check-prefixes="):
            prefixes += a.split("=", 1)[1].split(",")
        elif a.startswith("--input-file="):
            input_file = a.split("=", 1)[1]
        elif a == "--input-file":
            i += 1
            input_file = argv[i]
        elif a.startswith("--implicit-check-not="):
            implicit_not.append(compile_pattern(a.split("=", 1)[1], "--implicit-check-not"))
        elif a.startswith("-"):
            die("option %s is not supported" % a)
        elif check_file is None:
            check_file = a
        else:
            die("more than one check file")
        i += 1
    if check_file is None:
        die("usage: FileCheck CHECK-FILE [--check-prefix=P] [--input-file=F]")
    checks = parse_checks(check_file, prefixes or ["CHECK"])
    if input_file:
        with open(input_file, encoding="utf-8", errors="replace") as f:
            text = f.read()
    else:
        text = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()

    def fail(where, body, msg, at):
        sys.stderr.write("%s: error: %s: %s\n" % (where, msg, body))
        ctx = lines[at:at + 60]
        sys.stderr.write("input from line %d:\n%s\n" % (at + 1, "\n".join(ctx)))
        sys.exit(1)

    line, col = 0, 0          # position just after the previous match
    nots = []                 # pending P-NOT patterns (where, body, rx)
    start_for_nots = (0, 0)
    matched_once = False

    def check_nots(lo, hi):
        # Region from lo (line, col) up to hi (line, col) must not match.
        for where, body, rx in nots + [("--implicit-check-not", p.pattern, p) for p in implicit_not]:
            for ln in range(lo[0], min(hi[0], len(lines) - 1) + 1):
                s = lines[ln]
                a = lo[1] if ln == lo[0] else 0
                b = hi[1] if ln == hi[0] else len(s)
                if rx.search(s[a:b]):
                    fail(where, body, "excluded string found in input", ln)

    for kind, rx, where, body in checks:
        if kind == "NOT":
            nots.append((where, body, rx))
            continue
        if kind == "EMPTY":
            ln = line + 1 if matched_once else line
            if ln >= len(lines) or lines[ln] != "":
                fail(where, "", "expected an empty line", min(ln, len(lines)))
            check_nots(start_for_nots, (ln, 0))
            line, col, matched_once = ln, 0, True
            nots, start_for_nots = [], (ln, 0)
            continue
        if kind == "SAME":
            m = rx.search(lines[line], col) if line < len(lines) else None
            if not m:
                fail(where, body, "no match on the same line", line)
            found = (line, m)
        elif kind == "NEXT":
            ln = line + 1
            m = rx.search(lines[ln]) if ln < len(lines) else None
            if not m:
                fail(where, body, "no match on the next line", min(ln, len(lines)))
            found = (ln, m)
        else:
            found = None
            for ln in range(line, len(lines)):
                m = rx.search(lines[ln], col if ln == line else 0)
                if m:
                    found = (ln, m)
                    break
            if not found:
                fail(where, body, "expected string not found in input", line)
        ln, m = found
        check_nots(start_for_nots, (ln, m.start()))
        line, col, matched_once = ln, m.end(), True
        nots, start_for_nots = [], (ln, m.end())
    # Trailing P-NOT (and implicit ones) apply to the rest of the input.
    check_nots(start_for_nots, (len(lines) - 1, len(lines[-1]) if lines else 0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
