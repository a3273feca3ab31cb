#!/usr/bin/env python3
"""Writes docs/rules/<id>.md for every rule, and the index docs/rules/README.md,
from the rules' own metadata: `cuda-l1-rewrite --list-rules --format=json`
(RuleInfo of the C++ rules, the `doc:` fields of the YAML rules).

  utils/gen-rule-docs.py [--tool build/bin/cuda-l1-rewrite | --json rules.json]
                         [--out docs/rules]

test/Driver/rule-docs.test checks that the committed pages are what this
script writes. utils/add-rule.py runs it after adding a rule.
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def camel(rule_id):
    return "".join(p[:1].upper() + p[1:] for p in rule_id.split("-"))


def origin_text(rule):
    origin = rule["origin"]
    if origin == "builtin":
        return "C++ rule (lib/Rules/%s/%s.cpp)" % (rule["category"], camel(rule["id"]))
    m = re.search(r"(rewrite-rules/.*)$", origin)
    return "YAML rule `%s`" % (m.group(1) if m else os.path.basename(origin))


def exactness_text(rule):
    if rule.get("exactnessNote"):
        return rule["exactnessNote"]
    if rule["exactness"] == "none":
        return "none (finding only)"
    return rule["exactness"]


def page(rule):
    doc = rule.get("doc", {})
    out = ["# %s" % rule["id"], "",
           "Category: `%s` · Exactness: %s · %s" % (rule["category"], exactness_text(rule),
                                                   origin_text(rule)), ""]
    if not rule.get("enabled", True):
        out += ["**Off by default**: enable it with `--rules=%s` or in a configuration's "
                "`Rules:` ([why](README.md#off-by-default))." % rule["id"], ""]
    out += ["## What it detects", "", doc.get("detects") or rule["summary"], ""]
    out += ["## Why it is slow", "", doc.get("why") or rule.get("help", ""), ""]
    if doc.get("example"):
        out += ["## Example", "", "```cuda", doc["example"], "```", ""]
        if doc.get("fixed"):
            out += ["becomes", "", "```cuda", doc["fixed"], "```", ""]
    out += ["## The fix", "", doc.get("fix") or "(not documented)", ""]
    if rule.get("options"):
        out += ["## Options", ""]
        for key, value in sorted(rule["options"].items()):
            out.append("- `%s.%s` (default `%s`)" % (rule["id"], key, value))
        out += ["", "Set them under `CheckOptions:` in `.cuda-l1.yaml` "
                    "([docs/advise.md](../advise.md)).", ""]
    if rule["exactness"] != "none":
        out += ["See [docs/fixes.md](../fixes.md) for how fixes are applied and verified.", ""]
    out += ["Suppress with `// NOLINT(%s)`; see [docs/advise.md](../advise.md)." % rule["id"]]
    return "\n".join(out) + "\n"


def index(rules):
    out = ["# Rules", "",
           "Every rule cuda-l1 knows, one page each. Written by utils/gen-rule-docs.py "
           "from the rules' own metadata; do not edit by hand.", "",
           "| rule | category | exactness | what it finds |", "| --- | --- | --- | --- |"]
    for r in rules:
        off = "" if r.get("enabled", True) else " (off by default)"
        out.append("| [%s](%s.md)%s | %s | %s | %s |" % (r["id"], r["id"], off, r["category"],
                                                       r["exactness"],
                                                       r["summary"].replace("|", "\\|")))
    off = [r["id"] for r in rules if not r.get("enabled", True)]
    if off:
        out += ["", "## Off by default", "",
                "Run only when named by their own id (`--rules=<id>`, or a configuration's "
                "`Rules:`; `*` and `memory-*` do not turn them on): "
                + ", ".join("`%s`" % i for i in off) + ". Their fixes leave the machine "
                "code nvcc emits unchanged on nearly every real program: "
                "`utils/sass-oracle.py` applied each rule's fixes alone to the HeCBench "
                "corpus and compared the SASS of every kernel "
                "([docs/analysis-precision.md](../analysis-precision.md#the-sass-oracle-issue-14)). "
                "They stay available for compilers other than nvcc and for "
                "`const`-correctness as a style."]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tool", default=os.path.join(ROOT, "build", "bin", "cuda-l1-rewrite"))
    ap.add_argument("--json", help="the output of --list-rules --format=json")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "rules"))
    args = ap.parse_args()
    if args.json:
        text = open(args.json).read()
    else:
        text = subprocess.run([args.tool, "--list-rules", "--format=json"], check=True,
                              capture_output=True, text=True).stdout
    rules = sorted(json.loads(text)["rules"], key=lambda r: r["id"])
    os.makedirs(args.out, exist_ok=True)
    ids = set()
    for r in rules:
        ids.add(r["id"])
        with open(os.path.join(args.out, r["id"] + ".md"), "w") as f:
            f.write(page(r))
    with open(os.path.join(args.out, "README.md"), "w") as f:
        f.write(index(rules))
    stale = [n for n in os.listdir(args.out)
             if n.endswith(".md") and n != "README.md" and n[:-3] not in ids]
    for n in stale:
        os.remove(os.path.join(args.out, n))
    print("wrote %d pages to %s%s" % (len(rules), args.out,
                                     (" (removed %s)" % ", ".join(sorted(stale))) if stale else ""))


if __name__ == "__main__":
    sys.exit(main())
