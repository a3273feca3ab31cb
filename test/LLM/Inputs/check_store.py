#!/usr/bin/env python3
"""check_store.py STORE: summarises a cuda-l1 variant store for FileCheck:
one line per variant (origin, status, reject kind, whether its .cu file holds
its source), then the number of cached responses and transcript lines. Fails
when a file is not valid JSON."""
import json
import os
import sys

store = sys.argv[1]
rows = []
for root, _, files in os.walk(os.path.join(store, "variants")):
    for name in files:
        if not name.endswith(".json"):
            continue
        with open(os.path.join(root, name)) as f:
            v = json.load(f)
        with open(os.path.join(root, name[:-5] + ".cu")) as f:
            same = f.read() == v["source"]
        rows.append((v["round"], v["index"], "variant %s round %d #%d: %s%s%s source-file=%s%s" % (
            v["kernel"], v["round"], v["index"], v["status"],
            " [%s]" % v["reject_kind"] if v["reject_kind"] else "",
            " %.2fx" % v["speedup"] if "speedup" in v else "",
            "ok" if same else "DIFFERS",
            " commit=%s" % ("yes" if v.get("commit") else "no"))))
for _, _, row in sorted(rows):
    print(row)
cache = os.listdir(os.path.join(store, "cache"))
for name in cache:
    with open(os.path.join(store, "cache", name)) as f:
        entry = json.load(f)
    assert "request" in entry and "reply" in entry, name
print("cache: %d responses" % len(cache))
for name in sorted(os.listdir(os.path.join(store, "transcripts"))):
    with open(os.path.join(store, "transcripts", name)) as f:
        lines = [json.loads(l) for l in f]
    print("transcript: %d exchanges, %d from the cache, %d failed" % (
        len(lines), sum(1 for l in lines if l["from_cache"]),
        sum(1 for l in lines if not l["ok"])))
