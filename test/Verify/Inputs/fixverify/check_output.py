"""check_output.py <rewritten kernels.cu> [results.json]: what
fix-verify-gpu.test expects of `--fix --verify=run -o` on kernels.cu: the
reciprocal hoist applied to 'iterate' with the DESIGN.md annotation right
above the kernel (once), 'shift' left alone, the results JSON with verdicts
for both kernels. Plain Python (no FileCheck on GPU machines)."""
import json
import re
import sys

text = open(sys.argv[1]).read()
lines = text.split("\n")
fail = []

def want(cond, what):
    if not cond:
        fail.append(what)

k = next((i for i, l in enumerate(lines) if l.startswith("__global__ void iterate")), None)
want(k is not None and k >= 2, "kernel 'iterate' with two lines above it")
if k is not None and k >= 2:
    l1, l2 = lines[k - 2], lines[k - 1]
    want(re.match(r"^// cuda-l1: [0-9.]+x faster on .+ \(sm_[0-9a-z]+\): [0-9.]+ us -> [0-9.]+ us, "
                  r"median of [0-9]+ \(95% CI [0-9.]+x-[0-9.]+x\)$", l1), "annotation line 1: %r" % l1)
    want(l2 == "// cuda-l1: applied algebraic-reciprocal-hoist; verified within ulp tolerance on 3 input sets",
         "annotation line 2: %r" % l2)
want(text.count("// cuda-l1:") == 2, "exactly one annotation (2 lines), found %d lines" % text.count("// cuda-l1:"))
want("inv_s" in text and "x / s" not in text, "the reciprocal hoisted in 'iterate'")
want("out[i] = in[i] / 2.0f + in[i] / 4.0f;" in text, "'shift' unchanged (its fixes are not faster)")
want("p[threadIdx.x] * 0.3;" in text, "'orphan' unchanged (no harness)")
if len(sys.argv) > 2:
    r = json.load(open(sys.argv[2]))
    kernels = {k["kernel"]: k for k in r.get("kernels", [])}
    want(set(kernels) == {"iterate", "shift"}, "results for iterate and shift: %s" % sorted(kernels))
    if "iterate" in kernels:
        c = kernels["iterate"]["candidates"]
        want(len(c) == 1 and c[0].get("accepted") is True, "iterate: one accepted candidate")
    if "shift" in kernels:
        c = kernels["shift"]["candidates"]
        # The two fixes alone, and (both right but not faster alone) the
        # two together: all rejected (the kernel is memory-bound).
        alone = [x for x in c if not str(x.get("name", "")).startswith("together")]
        want(len(alone) == 2 and len(c) <= 3 and all(x.get("accepted") is False for x in c),
             "shift: two rejected candidates (and at most their joint trial, rejected)")
for f in fail:
    print("check_output: FAIL: " + f)
print("check_output: %s" % ("FAIL" if fail else "ok"))
sys.exit(1 if fail else 0)
