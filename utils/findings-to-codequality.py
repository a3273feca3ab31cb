#!/usr/bin/env python3
"""Turns cuda-l1-rewrite's --format=json findings (docs/findings-json.md)
into a GitLab Code Quality report (docs/ci.md, "GitLab").

usage: findings-to-codequality.py [--root DIR] [FINDINGS.json] > gl-code-quality-report.json

Paths in the report are relative to --root (default: the current folder, the
repository root in CI); findings outside it keep their absolute path.
Severities: error -> major, warning -> minor, note -> info."""
import argparse
import json
import os
import sys

SEVERITY = {"error": "major", "warning": "minor", "note": "info"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.getcwd())
    ap.add_argument("findings", nargs="?", help="the --format=json output (default: stdin)")
    a = ap.parse_args()
    name = a.findings or "<stdin>"
    try:
        doc = json.load(open(a.findings) if a.findings else sys.stdin)
    except (OSError, ValueError) as e:
        sys.exit("findings-to-codequality: %s: %s" % (name, e))
    if not isinstance(doc, dict) or doc.get("version") != 2 or not isinstance(doc.get("findings"), list):
        sys.exit("findings-to-codequality: %s: not the output of cuda-l1-rewrite --format=json "
                 "(version 2)" % name)
    root = os.path.realpath(a.root)
    report = []
    for f in doc["findings"]:
        path = f["file"]
        rel = os.path.relpath(path, root)
        if not rel.startswith(".."):
            path = rel
        report.append({
            "description": "%s [%s]" % (f["message"], f["rule"]),
            "check_name": f["rule"],
            "fingerprint": f["fingerprint"],
            "severity": SEVERITY.get(f["severity"], "minor"),
            "location": {"path": path, "lines": {"begin": f["line"]}},
        })
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
