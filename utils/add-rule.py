#!/usr/bin/env python3
"""Adds a C++ rule to cuda-l1, like clang-tidy's add_new_check.py.

  utils/add-rule.py <category> <rule-id> [--root DIR] [--build DIR]

writes
  lib/Rules/<category>/<RuleName>.{h,cpp}   the rule (RuleName: the CamelCase
                                            of the id), a working example to
                                            edit: it reports kernels whose
                                            body is empty
  test/Rules/<category>/<rule-id>.cu        its lit test (findings, fixes,
                                            idempotence, nvcc/NVRTC compile)
and registers it: <Category>Module.cpp and the category's CMakeLists.txt.
With --build DIR it then builds cuda-l1-rewrite there and regenerates
docs/rules (utils/gen-rule-docs.py) from the rule's metadata; otherwise it
says how. --root: the source tree to change (default: this checkout).
See lib/Rules/RuleCheck.h for the entry points and what the base does.
"""
import argparse
import os
import re
import subprocess
import sys

CATEGORIES = ["algebraic", "coalescing", "launch", "memory", "sync", "unrolling"]
HERE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def camel(rule_id):
    return "".join(p[:1].upper() + p[1:] for p in rule_id.split("-"))


def banner(text, tail):
    line = "//===- %s " % text
    return line + "-" * max(1, 80 - len(line) - len(tail)) + tail


HEADER = """{banner}
//
// {id}: TODO: one line on the problem this rule finds.
//
//===----------------------------------------------------------------------===//
#ifndef {guard}
#define {guard}

#include "../RuleCheck.h"

namespace cudal1 {{

class {name} : public RuleCheck {{
public:
  RuleInfo info() const override;

protected:
  // The entry points (lib/Rules/RuleCheck.h): registerMatchers + check for
  // AST matchers, checkKernel per kernel, checkTranslationUnit at the end.
  void checkKernel(const KernelUnit &Kernel) override;
}};

}} // namespace cudal1

#endif
"""

SOURCE = """{banner}
//
// {id}: TODO: what the rule finds, why it is slow, and the rewrite (if any)
// with what makes it legal.
//
//===----------------------------------------------------------------------===//
#include "{name}.h"

#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {{

RuleInfo {name}::info() const {{
  RuleInfo I;
  I.Id = "{id}";
  I.Category = "{category}";
  I.Summary = "kernel whose body is empty (TODO: the rule's one-line summary)";
  // The exactness of the rewrite: Exactness::None for a finding without a
  // fix; Bitwise, Ulp, Reassociating or FastMath for a rule that fixes.
  I.Exactness = Exactness::None;
  I.Help = "TODO: the longer explanation (SARIF help).";
  // The page docs/rules/{id}.md (utils/gen-rule-docs.py).
  I.Doc.Detects = "A kernel whose body is empty (TODO).";
  I.Doc.WhySlow = "A launch of a kernel that does nothing still costs a "
                  "launch (TODO).";
  I.Doc.Example = R"cuda(__global__ void nothing() {{}}   // warning)cuda";
  I.Doc.Fix = "Remove the kernel and its launches (TODO).";
  return I;
}}

void {name}::checkKernel(const KernelUnit &Kernel) {{
  const auto *Body = dyn_cast_or_null<CompoundStmt>(Kernel.FD->getBody());
  if (Kernel.IsTemplate || !Body || !Body->body_empty())
    return;
  Finding F = finding(Kernel.FD->getLocation(),
                      "kernel '" + Kernel.FD->getNameAsString() +
                          "' does nothing",
                      Kernel.FD);
  // A fix goes in F.Fix (edits from makeTextEdit / makeInsertion); the base
  // reports it only when FixIt::Proven. Without one, say why.
  reportWithoutFix(std::move(F), "removing a kernel changes the program");
}}

}} // namespace cudal1
"""

TEST = """// {id}: TODO: one line on what the rule finds.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rules='-*,{id}' --fix --allow-unverified %t/t.cu 2>&1 \\
// RUN:   | FileCheck %s --check-prefix=CHECK-MESSAGES --implicit-check-not='{{{{t.cu:[0-9]+:[0-9]+: warning}}}}'
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
// Idempotent: a second run changes nothing.
// RUN: cp %t/t.cu %t/once.cu
// RUN: %cuda-l1-rewrite --rules='-*,{id}' --fix --allow-unverified %t/t.cu
// RUN: diff %t/once.cu %t/t.cu
// The rewritten file compiles: nvcc, and NVRTC for every kernel extracted
// with its context.
// RUN: %if nvcc %{{ %nvcc -arch=sm_90 -c %t/t.cu -o %t/t.o %}}
// RUN: %if nvrtc %{{ %cuda-l1-rewrite --extract=all --verify=compile -o %t/ex %t/t.cu | FileCheck --check-prefix=NVRTC %s %}}
// NVRTC: compiled, 0 failed
#include <cuda_runtime.h>

__global__ void nothing() {{}}
// CHECK-MESSAGES: t.cu:[[@LINE-1]]:17: warning: kernel 'nothing' does nothing [{id}]
// CHECK-MESSAGES: note: no fix: removing a kernel changes the program
// CHECK-FIXES: __global__ void nothing() {{}}

// Negative: a kernel that does something.
__global__ void something(float *p) {{ p[threadIdx.x] = 0.0f; }}

void launch(float *p) {{
  nothing<<<1, 32>>>();
  something<<<1, 32>>>(p);
}}
"""


def register(module_path, name):
    text = open(module_path).read()
    includes = re.findall(r'^#include "(\w+)\.h"$', text, re.M)
    if name in includes:
        sys.exit("add-rule: %s is already registered in %s" % (name, module_path))
    m = re.search(r"static RuleModule<([^>]*)>\s*(\w+);", text, re.S)
    if not m:
        sys.exit("add-rule: no 'static RuleModule<...>' in %s" % module_path)
    classes = [c.strip() for c in m.group(1).split(",") if c.strip()]
    classes = sorted(classes + [name])
    includes = sorted(includes + [name])
    head = text[:text.index('#include "')]
    body = "".join('#include "%s.h"\n' % i for i in includes)
    module, line = "", "static RuleModule<"
    for i, c in enumerate(classes):
        item = c + (", " if i + 1 < len(classes) else ">")
        if len(line) + len(item.rstrip()) > 80:
            module += line.rstrip() + "\n"
            line = " " * len("static RuleModule<")
        line += item
    module += line + "\n    " + m.group(2) + ";"
    text = head + body + "\nnamespace cudal1 {\n" + module + "\n} // namespace cudal1\n"
    open(module_path, "w").write(text)


def add_source(cmake_path, name):
    text = open(cmake_path).read()
    m = re.search(r"target_sources\(cudal1RulesChecks PRIVATE\n(.*?)\)", text, re.S)
    if not m:
        sys.exit("add-rule: no target_sources(cudal1RulesChecks ...) in %s" % cmake_path)
    items = [l.strip() for l in m.group(1).split("\n") if l.strip()]
    module = [i for i in items if i.endswith("Module.cpp")]
    others = sorted(set(i for i in items if not i.endswith("Module.cpp")) | {name + ".cpp"})
    new = "target_sources(cudal1RulesChecks PRIVATE\n" + "".join(
        "  %s\n" % i for i in module + others) + ")"
    open(cmake_path, "w").write(text[:m.start()] + new + text[m.end():])


def main():
    ap = argparse.ArgumentParser(description="Add a C++ rule (see the file comment).")
    ap.add_argument("category", choices=CATEGORIES)
    ap.add_argument("id", help="the rule id, '<category>-<name>' (lower case, '-')")
    ap.add_argument("--root", default=HERE, help="source tree (default: this checkout)")
    ap.add_argument("--build", help="build folder: build cuda-l1-rewrite there and "
                                    "regenerate docs/rules")
    args = ap.parse_args()
    rid, cat, root = args.id, args.category, os.path.abspath(args.root)
    if not re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)+", rid) or not rid.startswith(cat + "-"):
        sys.exit("add-rule: the id must be '%s-<name>' in lower case letters, digits "
                 "and '-', not '%s'" % (cat, rid))
    name = camel(rid)
    rules_dir = os.path.join(root, "lib", "Rules", cat)
    test_dir = os.path.join(root, "test", "Rules", cat)
    header = os.path.join(rules_dir, name + ".h")
    source = os.path.join(rules_dir, name + ".cpp")
    test = os.path.join(test_dir, rid + ".cu")
    for p in (header, source, test):
        if os.path.exists(p):
            sys.exit("add-rule: %s exists already" % p)
    guard = "CUDAL1_LIB_RULES_%s_%s_H" % (cat.upper(), name.upper())
    with open(header, "w") as f:
        f.write(HEADER.format(banner=banner("%s.h - %s" % (name, rid), "*- C++ -*-===//"),
                              id=rid, guard=guard, name=name))
    with open(source, "w") as f:
        f.write(SOURCE.format(banner=banner("%s.cpp - %s" % (name, rid), "===//"),
                              id=rid, name=name, category=cat))
    os.makedirs(test_dir, exist_ok=True)
    with open(test, "w") as f:
        f.write(TEST.format(id=rid))
    register(os.path.join(rules_dir, cat[:1].upper() + cat[1:] + "Module.cpp"), name)
    add_source(os.path.join(rules_dir, "CMakeLists.txt"), name)
    for p in (header, source, test):
        print("add-rule: wrote %s" % os.path.relpath(p, root))
    print("add-rule: registered %s in lib/Rules/%s/%sModule.cpp and CMakeLists.txt"
          % (name, cat, cat[:1].upper() + cat[1:]))
    gen = [sys.executable, os.path.join(root, "utils", "gen-rule-docs.py"),
           "--out", os.path.join(root, "docs", "rules")]
    if args.build:
        subprocess.run(["ninja", "-C", args.build, "cuda-l1-rewrite"], check=True)
        subprocess.run(gen + ["--tool", os.path.join(args.build, "bin", "cuda-l1-rewrite")],
                       check=True)
    else:
        print("add-rule: now build cuda-l1-rewrite and run utils/gen-rule-docs.py "
              "(or run again with --build <dir>) to write docs/rules/%s.md" % rid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
