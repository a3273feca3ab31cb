#!/usr/bin/env python3
"""Stand-in for cuda-l1-capture in test/Bench/capture-coverage.test:
`fake-capture.py --launches N -o DIR -- APP ARGS...` runs APP and writes a
capture manifest whose content depends on APP's name: scale -> its kernel
captured; shift -> its one launch refused (the reason is kept); plain -> no
capture at all (exit 1, as the real launcher when nothing was written)."""
import json
import os
import subprocess
import sys

args = sys.argv[1:]
out = args[args.index("-o") + 1]
app = args[args.index("--") + 1:]
rc = subprocess.run(app).returncode
name = os.path.basename(app[0])
if name == "plain":
    print("cuda-l1-capture: error: no capture was written to %s" % out, file=sys.stderr)
    sys.exit(1)
os.makedirs(out, exist_ok=True)
mangled = "_Z12%s_kernelPffi" % name
launch = {"index": 0, "kernel": mangled, "demangled": "%s_kernel(float*, float, int)" % name}
if name == "shift":
    launch.update(status="skipped", reason="allocation 'x' is larger than --max-bytes")
    captured = 0
else:
    launch.update(status="captured")
    captured = 1
man = {"format": "cuda-l1-capture", "version": 1, "app": {"exitStatus": rc},
       "kernels": [{"kernel": mangled, "demangled": launch["demangled"], "launchesSeen": 2, "captured": captured}],
       "kernelsNotSelected": [], "launches": [launch]}
with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump(man, f)
sys.exit(rc)
