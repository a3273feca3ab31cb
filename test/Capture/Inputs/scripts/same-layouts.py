"""same-layouts.py SHIPPED_DIR FRESH_DIR NAME...: compares the layout facts
of two kernel models (SHIPPED_DIR/NAME.model.json, FRESH_DIR/NAME.json):
mangled names, parameter sizes, alignments, pointer-ness, variables."""
import json
import sys


def facts(path):
    out = {}
    for k in json.load(open(path))["kernels"]:
        variables = sorted((v["qualifiedName"], v["kind"]) for v in k.get("variables", []))
        for i in k.get("instantiations") or [k]:
            out[i["mangledName"]] = (
                [(p["sizeBytes"], p["alignBytes"], p["isPointer"]) for p in i["parameters"]],
                variables)
    return out


bad = 0
for name in sys.argv[3:]:
    a = facts("%s/%s.model.json" % (sys.argv[1], name))
    b = facts("%s/%s.json" % (sys.argv[2], name))
    if a != b:
        bad += 1
        print("%s: the shipped model differs from cuda-l1-rewrite's; regenerate it with" % name)
        print("  cuda-l1-rewrite --list-kernels --format=json test/Capture/Inputs/apps/%s.cu" % name)
        for m in sorted(set(a) | set(b)):
            if a.get(m) != b.get(m):
                print("  %s: shipped %s, now %s" % (m, a.get(m), b.get(m)))
    else:
        print("%s: %d kernels agree" % (name, len(a)))
sys.exit(1 if bad else 0)
