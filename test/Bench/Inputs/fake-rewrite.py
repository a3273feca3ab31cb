#!/usr/bin/env python3
"""Stands in for cuda-l1-rewrite in the CPU test of utils/bench-corpus.py.
Called as `fake-rewrite.py -p DIR --fix [--verify=run] [--export-fixes=F]
[extra] FILES...`; in every file, the kernel after a '// fake-rewrite:
annotate' line gets the tool's two annotation lines; after '// fake-rewrite:
break' its 1.0f becomes 2.0f (a wrong rewrite) and it is annotated too. With
--export-fixes, one diagnostic per rewritten kernel is written there in
clang-tidy's format (offset: the kernel's line in the original file)."""
import re
import sys

files = [a for a in sys.argv[1:] if a.endswith(".cu")]
print("fake-rewrite: program args: %r" % [a for a in sys.argv[1:] if a.startswith("--program-args")])
assert "-p" in sys.argv and "--fix" in sys.argv, sys.argv
exported = []
ANN = ("// cuda-l1: 2.00x faster on NVIDIA H200 (sm_90): 10.0 us -> 5.0 us, median of 50 (95% CI 1.90x-2.10x)\n"
       "// cuda-l1: applied {rules}; verified bitwise on 3 input sets\n")
for f in files:
    text = open(f).read()
    out = []
    mode = None
    offset = 0
    for line in text.splitlines(True):
        here = offset
        offset += len(line)
        if line.strip() == "// fake-rewrite: annotate":
            mode = "annotate"
            continue
        if line.strip() == "// fake-rewrite: break":
            mode = "break"
            continue
        if mode and line.startswith("__global__"):
            rules = "memory-restrict, algebraic-float-literal" if mode == "annotate" else "algebraic-powf-square"
            out.append(ANN.format(rules=rules))
            for r in rules.split(", "):
                exported.append((r, f, here))
            out.append(line)
            if mode == "break":
                mode = "breaking"
            else:
                mode = None
            continue
        if mode == "breaking" and "1.0f" in line:
            line = line.replace("1.0f", "2.0f")
            mode = None
        out.append(line)
    new = "".join(out)
    if new != text:
        open(f, "w").write(new)
        print("%s: ACCEPTED" % f, file=sys.stderr)
for a in sys.argv[1:]:
    if a.startswith("--export-fixes="):
        with open(a.split("=", 1)[1], "w") as y:
            y.write("---\nMainSourceFile:  '%s'\nDiagnostics:\n" % (files[0] if files else ""))
            for rule, f, off in exported:
                y.write("  - DiagnosticName:  %s\n    DiagnosticMessage:\n      Message:         'it''s faster'\n"
                        "      FilePath:        '%s'\n      FileOffset:      %d\n      Replacements:\n"
                        "        - FilePath:        '%s'\n          Offset:          %d\n"
                        "          Length:          0\n          ReplacementText: ''\n" % (rule, f, off, f, off + 3))
print("fake-rewrite: done; applied %d fixes in %d files" % (len(exported), len({f for _, f, _ in exported})),
      file=sys.stderr)
