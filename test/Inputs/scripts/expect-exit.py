"""expect-exit.py N cmd args... : runs cmd, passes its output through, and
succeeds only when it exits with status N (lit's shell has no $?)."""
import subprocess
import sys

want = int(sys.argv[1])
rc = subprocess.call(sys.argv[2:])
if rc != want:
    sys.stderr.write("expect-exit: %r exited with %d, expected %d\n" % (sys.argv[2], rc, want))
    sys.exit(1)
