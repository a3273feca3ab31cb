"""Runs LLVM's FileCheck (on PATH) and filecheck-lite on the same check file
and inputs; prints whether they agree."""
import os, subprocess, sys
py, lite, d = sys.argv[1], sys.argv[2], sys.argv[3]
checks = os.path.join(d, "checks.txt")
cases = [("CHECK", f) for f in ("pass1.txt", "pass2.txt", "fail-same.txt", "fail-not.txt",
                                  "fail-next.txt", "fail-missing.txt")]
cases += [("ODD", "odd-pass.txt"), ("ODD", "pass1.txt"), ("OWN", "own-fail.txt"), ("OWN", "own-pass.txt")]
agree = 0
for prefix, inp in cases:
    with open(os.path.join(d, inp), "rb") as f:
        data = f.read()
    args = [checks, "--check-prefix=" + prefix]
    real = subprocess.run(["FileCheck"] + args, input=data, capture_output=True).returncode
    mine = subprocess.run([py, lite] + args, input=data, capture_output=True).returncode
    same = (real == 0) == (mine == 0)
    agree += same
    print("%s %s: %s" % (inp, prefix, ("both 0" if real == 0 else "both fail") if same
                          else "DISAGREE (FileCheck %d, lite %d)" % (real, mine)))
import tempfile
with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as t:
    t.write("CHECK-DAG: x\n")
r = subprocess.run([py, lite, t.name], input=b"x\n", capture_output=True)
os.unlink(t.name)
print("unsupported: exit %d, %s" % (r.returncode, r.stderr.decode().strip()))
print("agree %d of %d" % (agree, len(cases)))
